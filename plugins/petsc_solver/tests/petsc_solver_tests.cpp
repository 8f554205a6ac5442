// Tests of the petsc solver: Krylov and direct configurations against a dense LU reference,
// re-factorization on the analysed pattern with the symbolic factorization reused (PETSc's event
// counters), unsymmetric systems, failures, and the per-instance options.
//
// Tolerances. Residual-based criteria are made exact by asking PETSc for the unpreconditioned
// residual norm (ksp_norm_type unpreconditioned for CG; right preconditioning for GMRES): then
// ||r|| / ||b|| <= rtol at convergence and ||x - x*|| / ||x*|| <= kappa * rtol (kappa known in
// closed form for the Laplacians, linear_test_systems.hpp), plus 1e-12 for the reference's rounding.
// Direct factorizations (preonly + lu/cholesky) are backward stable: 1000 * kappa * eps.

#include "petsc_ksp_solver.hpp"
#include "linear_test_systems.hpp"

#include <catch2/catch.hpp>

#include <petsclog.h>

#include <algorithm>
#include <array>
#include <limits>

using namespace soma;
using namespace soma::petsc_solver;
namespace ts = soma::test_systems;

namespace {

constexpr int kGrid = 13;  // 2197 unknowns
constexpr double kEps = std::numeric_limits<double>::epsilon();

struct Variant {
    double alpha;
    double beta;
};
constexpr std::array<Variant, 3> kVariants{{{1.0, 0.1}, {2.5, 0.01}, {0.3, 1.0}}};

struct SpdCase {
    SparseMatrix matrix;
    VectorX rhs;
    VectorX reference;
    double kappa;
};

const SpdCase& spd_case(std::size_t v) {
    static const std::array<SpdCase, 3> cases = [] {
        std::array<SpdCase, 3> out;
        for (std::size_t i = 0; i < kVariants.size(); ++i) {
            auto& c = out[i];
            c.matrix = ts::laplacian_3d(kGrid, kVariants[i].alpha, kVariants[i].beta);
            c.rhs = c.matrix * ts::manufactured_solution(c.matrix.rows());
            c.reference = ts::dense_reference(c.matrix, c.rhs);
            c.kappa = ts::laplacian_3d_condition(kGrid, kVariants[i].alpha, kVariants[i].beta);
        }
        return out;
    }();
    return cases[v];
}

struct UnsymmetricCase {
    SparseMatrix matrix;
    VectorX rhs;
    VectorX reference;
    double kappa1;
};

/// Two value sets of the convection-diffusion operator on one pattern.
const UnsymmetricCase& unsymmetric_case(int which) {
    static const std::array<UnsymmetricCase, 2> cases = [] {
        std::array<UnsymmetricCase, 2> out;
        const double gammas[2] = {4.0, 1.5};
        for (int i = 0; i < 2; ++i) {
            auto& u = out[i];
            u.matrix = ts::convection_diffusion_3d(kGrid, gammas[i]);
            u.rhs = u.matrix * ts::manufactured_solution(u.matrix.rows());
            double rcond = 0.0;
            u.reference = ts::dense_reference(u.matrix, u.rhs, &rcond);
            u.kappa1 = 1.0 / rcond;
        }
        return out;
    }();
    return cases[which];
}

/// How many times PETSc ran the logged event `name` so far (main stage).
int event_count(const char* name) {
    PetscLogDefaultBegin();  // idempotent; events are only counted once logging is on
    PetscLogEvent event = 0;
    REQUIRE(PetscLogEventGetId(name, &event) == 0);
    PetscEventPerfInfo info{};
    REQUIRE(PetscLogEventGetPerfInfo(0, event, &info) == 0);
    return info.count;
}

template <class Tolerance>
void check_spd_sequence(PetscKspSolver& solver, Tolerance tolerance) {
    solver.analyze(spd_case(0).matrix);
    VectorX x;
    for (std::size_t v = 0; v < kVariants.size(); ++v) {
        INFO("value set " << v);
        const auto& c = spd_case(v);
        REQUIRE(solver.factorize(c.matrix));
        INFO(solver.last_error());
        REQUIRE(solver.solve(c.rhs, x));
        CHECK(ts::relative_error(x, c.reference) <= tolerance(c.kappa));
    }
}

}  // namespace

TEST_CASE("petsc cg/icc matches the reference and reuses the symbolic factorization",
          "[petsc_solver]") {
    PetscSettings settings;  // cg + icc by default
    settings.rtol = 1e-9;
    settings.options = {{"ksp_norm_type", "unpreconditioned"}};
    PetscKspSolver solver(settings);
    CHECK(solver.ksp_type() == "cg");
    CHECK(solver.pc_type() == "icc");
    CHECK_FALSE(solver.capabilities().unsymmetric);
    CHECK(solver.capabilities().iterative);

    solver.analyze(spd_case(0).matrix);
    const int symbolic_before = event_count("MatICCFactorSym");
    const int numeric_before = event_count("MatCholFctrNum");
    check_spd_sequence(solver, [&](double kappa) { return kappa * settings.rtol + 1e-12; });
    CHECK(solver.last_iterations() > 0);
    // check_spd_sequence analysed the same pattern again (a new Mat), then factorized 3 times:
    // one symbolic ICC factorization, three numeric ones.
    CHECK(event_count("MatICCFactorSym") - symbolic_before == 1);
    CHECK(event_count("MatCholFctrNum") - numeric_before == 3);
}

TEST_CASE("petsc preonly with a direct factorization", "[petsc_solver]") {
    for (const char* pc : {"lu", "cholesky"}) {
        INFO("pc " << pc);
        PetscSettings settings;
        settings.ksp_type = "preonly";
        settings.pc_type = pc;
        PetscKspSolver solver(settings);
        CHECK_FALSE(solver.capabilities().iterative);
        check_spd_sequence(solver, [](double kappa) { return 1e3 * kappa * kEps; });
    }
}

TEST_CASE("petsc gmres/ilu solves an unsymmetric system, refactorizing numerically only",
          "[petsc_solver]") {
    PetscSettings settings;
    settings.ksp_type = "gmres";
    settings.pc_type = "ilu";
    settings.rtol = 1e-9;
    settings.options = {{"-ksp_pc_side", "right"}};  // criterion on the true residual
    PetscKspSolver solver(settings);
    CHECK(solver.capabilities().unsymmetric);

    solver.analyze(unsymmetric_case(0).matrix);
    const int symbolic_before = event_count("MatILUFactorSym");
    const int numeric_before = event_count("MatLUFactorNum");
    VectorX x;
    for (int which : {0, 1}) {
        INFO("value set " << which);
        const auto& u = unsymmetric_case(which);
        REQUIRE(solver.factorize(u.matrix));
        REQUIRE(solver.solve(u.rhs, x));
        CHECK((u.rhs - u.matrix * x).norm() / u.rhs.norm() <= settings.rtol * (1 + 1e-3));
        // cond_2 vs the LU's cond_1 estimate: a factor 10 covers their difference here.
        CHECK(ts::relative_error(x, u.reference) <= 10 * u.kappa1 * settings.rtol + 1e-12);
    }
    CHECK(event_count("MatILUFactorSym") - symbolic_before == 1);
    CHECK(event_count("MatLUFactorNum") - numeric_before == 2);
}

TEST_CASE("petsc factorizes a grown pattern and explicit zeros, analysing only new patterns",
          "[petsc_solver]") {
    // The kernel's changing pattern (ts::growing_pattern_stages): analyze() only when the
    // pattern grew; in between, vanished springs are explicit zeros of the analysed pattern.
    static const std::vector<ts::PatternStage> stages = ts::growing_pattern_stages(kGrid);
    const int new_patterns = static_cast<int>(
        std::count_if(stages.begin(), stages.end(), [](const ts::PatternStage& s) { return s.new_pattern; }));
    struct Configuration {
        const char* ksp;
        const char* pc;
        const char* symbolic_event;
        const char* numeric_event;
    };
    for (const Configuration& config : {Configuration{"cg", "icc", "MatICCFactorSym", "MatCholFctrNum"},
                                        Configuration{"preonly", "cholesky", "MatCholFctrSym", "MatCholFctrNum"},
                                        Configuration{"preonly", "lu", "MatLUFactorSym", "MatLUFactorNum"}}) {
        INFO(config.ksp << " / " << config.pc);
        PetscSettings settings;
        settings.ksp_type = config.ksp;
        settings.pc_type = config.pc;
        settings.rtol = 1e-9;
        settings.options = {{"ksp_norm_type", "unpreconditioned"}};
        if (std::string(config.ksp) == "preonly") settings.options.clear();
        PetscKspSolver solver(settings);
        const bool iterative = solver.capabilities().iterative;
        const int symbolic_before = event_count(config.symbolic_event);
        const int numeric_before = event_count(config.numeric_event);
        VectorX x;
        for (std::size_t s = 0; s < stages.size(); ++s) {
            INFO("stage " << s);
            if (stages[s].new_pattern) solver.analyze(stages[s].matrix);
            REQUIRE(solver.factorize(stages[s].matrix));
            INFO(solver.last_error());
            REQUIRE(solver.solve(stages[s].rhs, x));
            // Iterative: kappa * rtol on the true residual (see the top of this file); direct:
            // backward stable, 1000 * kappa * eps.
            const double tolerance = iterative ? stages[s].kappa * settings.rtol + 1e-12 : 1e3 * stages[s].kappa * kEps;
            CHECK(ts::relative_error(x, stages[s].reference) <= tolerance);
        }
        // One symbolic factorization per analysed pattern, one numeric per factorize().
        CHECK(event_count(config.symbolic_event) - symbolic_before == new_patterns);
        CHECK(event_count(config.numeric_event) - numeric_before == static_cast<int>(stages.size()));
    }
}

TEST_CASE("petsc reports a singular matrix", "[petsc_solver]") {
    const SparseMatrix singular = ts::with_zero_row_and_column(spd_case(0).matrix, 1000);
    for (const char* pc : {"icc", "lu"}) {
        INFO("pc " << pc);
        PetscSettings settings;
        settings.ksp_type = std::string(pc) == "lu" ? "preonly" : "cg";
        settings.pc_type = pc;
        PetscKspSolver solver(settings);
        solver.analyze(singular);
        VectorX x;
        const bool ok = solver.factorize(singular) && solver.solve(spd_case(0).rhs, x);
        CHECK_FALSE(ok);
        INFO(solver.last_error());
        CHECK_THAT(solver.last_error(), Catch::Contains("FACTOR_NUMERIC_ZEROPIVOT") ||
                                            Catch::Contains("DIVERGED"));
        // The same pattern with good values works again.
        REQUIRE(solver.factorize(spd_case(0).matrix));
        REQUIRE(solver.solve(spd_case(0).rhs, x));
    }
}

TEST_CASE("petsc options reach PETSc under a per-instance prefix", "[petsc_solver]") {
    PetscSettings limited;
    limited.options = {{"ksp_max_it", "1"}, {"-ksp_rtol", "1e-12"}};
    PetscKspSolver a(limited);
    PetscKspSolver b;  // defaults, built after a's options are in the database
    CHECK(a.options_prefix() != b.options_prefix());

    PetscReal rtol = 0, atol = 0, dtol = 0;
    PetscInt max_it = 0;
    REQUIRE(KSPGetTolerances(a.ksp(), &rtol, &atol, &dtol, &max_it) == 0);
    CHECK(rtol == 1e-12);
    CHECK(max_it == 1);
    REQUIRE(KSPGetTolerances(b.ksp(), &rtol, &atol, &dtol, &max_it) == 0);
    CHECK(rtol == PetscSettings{}.rtol);
    CHECK(max_it == PetscSettings{}.max_iterations);

    const auto& c = spd_case(0);
    VectorX x;
    a.analyze(c.matrix);
    REQUIRE(a.factorize(c.matrix));
    CHECK_FALSE(a.solve(c.rhs, x));
    CHECK(a.last_iterations() == 1);
    CHECK_THAT(a.last_error(), Catch::Contains("DIVERGED_ITS") && Catch::Contains("after 1 iterations"));

    b.analyze(c.matrix);
    REQUIRE(b.factorize(c.matrix));
    CHECK(b.solve(c.rhs, x));
    CHECK(b.last_iterations() > 1);
}

TEST_CASE("petsc options override the keys and set the capabilities", "[petsc_solver]") {
    PetscSettings settings;  // cg + icc
    settings.options = {{"ksp_type", "gmres"}, {"pc_type", "ilu"}};
    PetscKspSolver solver(settings);
    CHECK(solver.ksp_type() == "gmres");
    CHECK(solver.pc_type() == "ilu");
    CHECK(solver.capabilities().unsymmetric);
}

TEST_CASE("petsc refuses unknown types and unused options", "[petsc_solver]") {
    PetscSettings bad_ksp;
    bad_ksp.ksp_type = "conjugate_gradient";
    try {
        PetscKspSolver solver(bad_ksp);
        FAIL("an unknown KSP type was accepted");
    } catch (const PetscSettingsError& e) {
        CHECK(e.key() == "ksp_type");
        CHECK_THAT(e.what(), Catch::Contains("conjugate_gradient"));
    }
    PetscSettings bad_pc;
    bad_pc.pc_type = "incomplete_cholesky";
    CHECK_THROWS_AS(PetscKspSolver(bad_pc), PetscSettingsError);

    // A misspelt option is refused when the solver is built (so `soma check` reports it), at its
    // own key, with every unused option named; the correctly spelt one passes.
    PetscSettings typo;
    typo.options = {{"ksp_max_iters", "5"}, {"-pc_factr_levels", "1"}, {"ksp_max_it", "5"}};
    try {
        PetscKspSolver solver(typo);
        FAIL("misspelt options were accepted");
    } catch (const PetscSettingsError& e) {
        CHECK(e.key() == "options.-pc_factr_levels");  // std::map order: '-' sorts first
        CHECK_THAT(e.what(), Catch::Contains("options not used by KSP 'cg' with PC 'icc'") &&
                                 Catch::Contains("pc_factr_levels, ksp_max_iters") &&
                                 !Catch::Contains("ksp_max_it,") && !Catch::EndsWith("ksp_max_it"));
    }
    // Options read only while the preconditioner is set up, or during a solve, are used: the
    // trial solve at construction reads them.
    PetscSettings read_late;
    read_late.options = {{"pc_factor_levels", "1"}, {"ksp_converged_reason", ""}};
    PetscKspSolver solver(read_late);
    const auto& c = spd_case(0);
    VectorX x;
    solver.analyze(c.matrix);
    REQUIRE(solver.factorize(c.matrix));
    CHECK(solver.solve(c.rhs, x));
    CHECK(ts::relative_error(x, c.reference) <= c.kappa * read_late.rtol + 1e-12);  // as cg/icc above
}

TEST_CASE("petsc capabilities: symmetric indefinite and saddle-point systems", "[petsc_solver][saddle_point]") {
    struct Expect {
        const char* ksp;
        const char* pc;
        bool symmetric_indefinite;
        bool saddle_point;
    };
    // MINRES needs an SPD preconditioner: Jacobi on an indefinite diagonal is not one. GMRES
    // minimises the residual whatever the operator; PETSc's factorizations do not pivot, and
    // BiCGSTAB breaks down on KKT systems (tests/validation/test_constraint_solvers.cpp).
    const Expect cases[] = {
        {"cg", "icc", false, false},       {"cg", "jacobi", false, false},    {"minres", "none", true, true},
        {"minres", "jacobi", false, false}, {"gmres", "none", true, true},    {"gmres", "jacobi", true, true},
        {"gmres", "ilu", true, false},      {"fgmres", "jacobi", true, true}, {"bcgs", "jacobi", true, false},
        {"preonly", "lu", true, false},     {"preonly", "cholesky", false, false},
    };
    for (const Expect& e : cases) {
        INFO("ksp " << e.ksp << ", pc " << e.pc);
        PetscSettings settings;
        settings.ksp_type = e.ksp;
        settings.pc_type = e.pc;
        const LinearSolverCapabilities caps = PetscKspSolver(settings).capabilities();
        CHECK(caps.symmetric_indefinite == e.symmetric_indefinite);
        CHECK(caps.saddle_point == e.saddle_point);
    }
}

TEST_CASE("petsc: a factorization that meets a hard constraint's zero diagonal says it looks like a saddle point",
          "[petsc_solver][saddle_point]") {
    // [[0, -1], [-1, 0]]: a massless DOF held by a hard constraint; LU without pivoting meets 0 first.
    SparseMatrix m(2, 2);
    m.insert(0, 1) = -1.0;
    m.insert(1, 0) = -1.0;
    m.insert(0, 0) = 0.0;
    m.insert(1, 1) = 0.0;
    m.makeCompressed();
    PetscSettings settings;
    settings.ksp_type = "preonly";
    settings.pc_type = "lu";
    PetscKspSolver solver(settings);
    solver.analyze(m);
    VectorX x;
    const bool ok = solver.factorize(m) && solver.solve(VectorX::Ones(2), x);
    CHECK_FALSE(ok);
    CHECK_THAT(solver.last_error(), Catch::Contains("saddle-point (KKT) matrix of hard constraints") &&
                                        Catch::Contains("eigen_lu") && Catch::Contains("compliance > 0"));
}
