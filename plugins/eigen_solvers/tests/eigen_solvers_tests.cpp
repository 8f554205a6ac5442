// Tests of the eigen_solvers plugin: every solver against a dense LU reference on a 3D Laplacian
// (2197 unknowns), re-factorization with new values on the analysed pattern, unsymmetric systems,
// failure reporting (singular matrices, non-convergence, misuse).
//
// Tolerances. The systems are alpha L + beta I with L the 7-point Laplacian, whose 2-norm
// condition number kappa is known in closed form (linear_test_systems.hpp).
//  - Direct solvers are backward stable: forward error <= c * kappa * eps with a modest c;
//    we allow c = 1000 (kappa <= 80 here, so about 2e-11).
//  - Krylov solvers stop at relative residual ||r|| / ||b|| <= tol, and
//    ||x - x*|| / ||x*|| <= kappa ||r|| / ||b|| exactly; we check kappa * tol plus 1e-12 for the
//    dense reference's own rounding and the recurrence residual's drift.

#include "iterative_solvers.hpp"
#include "simplicial_cholesky_solver.hpp"
#include "sparse_lu_solver.hpp"
#ifdef SOMA_HAVE_CHOLMOD
#include "cholmod_solver.hpp"
#endif
#include "linear_test_systems.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <limits>
#include <map>

using namespace soma;
using namespace soma::eigen_solvers;
namespace ts = soma::test_systems;

namespace {

constexpr int kGrid = 13;  // 13^3 = 2197 unknowns
constexpr double kEps = std::numeric_limits<double>::epsilon();

/// Three value sets on one pattern: the first is analysed, all three are factorized in turn.
struct Variant {
    double alpha;
    double beta;
};
constexpr std::array<Variant, 3> kVariants{{{1.0, 0.1}, {2.5, 0.01}, {0.3, 1.0}}};

/// One SPD case: matrix, right-hand side, dense reference and condition number (computed once:
/// the dense LU of a 2197 x 2197 matrix takes a fraction of a second).
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

/// Analyse once, then factorize and solve each value set on the same pattern (the reuse path
/// the kernel exercises at every Newton iteration). `tolerance(kappa)` is the allowed relative
/// error against the dense reference.
template <class Tolerance>
void check_spd_sequence(LinearSolver& solver, Tolerance tolerance) {
    solver.analyze(spd_case(0).matrix);
    VectorX x;
    for (std::size_t v = 0; v < kVariants.size(); ++v) {
        INFO("value set " << v);
        const auto& c = spd_case(v);
        REQUIRE(solver.factorize(c.matrix));
        REQUIRE(solver.solve(c.rhs, x));
        CHECK(ts::relative_error(x, c.reference) <= tolerance(c.kappa));
    }
    // Solving again with the same factorization gives the same answer (no state consumed).
    VectorX again;
    REQUIRE(solver.solve(spd_case(2).rhs, again));
    CHECK((again - x).norm() <= 1e-14 * x.norm());
}

double direct_tolerance(double kappa) { return 1e3 * kappa * kEps; }

/// The kernel's changing pattern (ts::growing_pattern_stages): analyze only when the pattern
/// grew, factorize matrices whose vanished springs are explicit zeros on the analysed pattern.
template <class Tolerance>
void check_growing_pattern(LinearSolver& solver, Tolerance tolerance) {
    static const std::vector<ts::PatternStage> stages = ts::growing_pattern_stages(kGrid);
    VectorX x;
    for (std::size_t s = 0; s < stages.size(); ++s) {
        INFO("stage " << s);
        if (stages[s].new_pattern) solver.analyze(stages[s].matrix);
        REQUIRE(solver.factorize(stages[s].matrix));
        REQUIRE(solver.solve(stages[s].rhs, x));
        CHECK(ts::relative_error(x, stages[s].reference) <= tolerance(stages[s].kappa));
    }
}

/// The unsymmetric case, with its reference and the LU's 1-norm condition estimate.
struct UnsymmetricCase {
    SparseMatrix matrix;
    VectorX rhs;
    VectorX reference;
    double kappa1;
};

const UnsymmetricCase& unsymmetric_case() {
    static const UnsymmetricCase c = [] {
        UnsymmetricCase u;
        u.matrix = ts::convection_diffusion_3d(kGrid, 4.0);
        u.rhs = u.matrix * ts::manufactured_solution(u.matrix.rows());
        double rcond = 0.0;
        u.reference = ts::dense_reference(u.matrix, u.rhs, &rcond);
        u.kappa1 = 1.0 / rcond;
        return u;
    }();
    return c;
}

}  // namespace

TEST_CASE("eigen_ldlt matches the dense reference and reuses its analysis", "[eigen_solvers]") {
    SimplicialLdltSolver solver;
    CHECK_FALSE(solver.capabilities().unsymmetric);
    CHECK(solver.capabilities().symmetric_positive_definite);
    check_spd_sequence(solver, direct_tolerance);
    CHECK(solver.last_iterations() == 0);
}

TEST_CASE("eigen_ldlt reads only the lower triangle", "[eigen_solvers]") {
    // Garbage in the strict upper triangle must not change the answer.
    const auto& c = spd_case(0);
    SparseMatrix polluted = c.matrix;
    for (int col = 0; col < polluted.outerSize(); ++col)
        for (SparseMatrix::InnerIterator it(polluted, col); it; ++it)
            if (it.row() < it.col()) it.valueRef() = 1e6;
    SimplicialLdltSolver solver;
    solver.analyze(polluted);
    REQUIRE(solver.factorize(polluted));
    VectorX x;
    REQUIRE(solver.solve(c.rhs, x));
    CHECK(ts::relative_error(x, c.reference) <= direct_tolerance(c.kappa));
}

TEST_CASE("eigen_ldlt reports a zero pivot with its column", "[eigen_solvers]") {
    const Index k = 1000;
    const SparseMatrix singular = ts::with_zero_row_and_column(spd_case(0).matrix, k);
    SimplicialLdltSolver solver;
    solver.analyze(singular);
    CHECK_FALSE(solver.factorize(singular));
    CHECK_THAT(solver.last_error(), Catch::Contains("LDLT factorization failed") &&
                                        Catch::Contains("column " + std::to_string(k)));
    VectorX x;
    CHECK_FALSE(solver.solve(spd_case(0).rhs, x));  // no valid factorization to solve with
    // A good matrix on the same pattern factorizes again afterwards.
    REQUIRE(solver.factorize(spd_case(1).matrix));
    REQUIRE(solver.solve(spd_case(1).rhs, x));
    CHECK(ts::relative_error(x, spd_case(1).reference) <= direct_tolerance(spd_case(1).kappa));
}

TEST_CASE("eigen_ldlt refuses misuse with a message", "[eigen_solvers]") {
    SimplicialLdltSolver solver;
    CHECK_FALSE(solver.factorize(spd_case(0).matrix));
    CHECK_THAT(solver.last_error(), Catch::Contains("before analyze()"));
    solver.analyze(spd_case(0).matrix);
    const SparseMatrix other = ts::laplacian_3d(kGrid - 1, 1.0, 0.0);
    CHECK_FALSE(solver.factorize(other));
    CHECK_THAT(solver.last_error(), Catch::Contains("analysed pattern"));
    REQUIRE(solver.factorize(spd_case(0).matrix));
    VectorX x;
    CHECK_FALSE(solver.solve(VectorX::Ones(5), x));
    CHECK_THAT(solver.last_error(), Catch::Contains("right-hand side has 5 entries"));
}

TEST_CASE("eigen_llt matches the dense reference and fails on indefinite input", "[eigen_solvers]") {
    SimplicialLltSolver solver;
    check_spd_sequence(solver, direct_tolerance);
    // -L is negative definite: the first pivot is already negative.
    const SparseMatrix negative = -spd_case(0).matrix;
    solver.analyze(negative);
    CHECK_FALSE(solver.factorize(negative));
    CHECK_THAT(solver.last_error(), Catch::Contains("not positive definite"));
}

#ifdef SOMA_HAVE_CHOLMOD
TEST_CASE("cholmod matches the dense reference in every mode", "[eigen_solvers][cholmod]") {
    for (const auto& [mode, supernodal] :
         {std::pair{CholmodMode::simplicial, false}, std::pair{CholmodMode::supernodal, true},
          std::pair{CholmodMode::automatic, true}}) {
        INFO("mode " << static_cast<int>(mode));
        CholmodSolver solver(CholmodSettings{mode});
        CHECK_FALSE(solver.capabilities().unsymmetric);
        check_spd_sequence(solver, direct_tolerance);
        // A 3D Laplacian's factor is dense enough for CHOLMOD's automatic choice to go
        // supernodal (flops / nnz(L) >= 40).
        CHECK(solver.is_supernodal() == supernodal);
    }
}

TEST_CASE("cholmod reports a failed factorization with its column", "[eigen_solvers][cholmod]") {
    const Index k = 1000;
    const SparseMatrix singular = ts::with_zero_row_and_column(spd_case(0).matrix, k);
    for (CholmodMode mode : {CholmodMode::simplicial, CholmodMode::supernodal}) {
        CholmodSolver solver(CholmodSettings{mode});
        solver.analyze(singular);
        CHECK_FALSE(solver.factorize(singular));
        CHECK_THAT(solver.last_error(), Catch::Contains("CHOLMOD factorization failed") &&
                                            Catch::Contains("at column " + std::to_string(k)));
        VectorX x;
        CHECK_FALSE(solver.solve(spd_case(0).rhs, x));
        REQUIRE(solver.factorize(spd_case(0).matrix));
        REQUIRE(solver.solve(spd_case(0).rhs, x));
        CHECK(ts::relative_error(x, spd_case(0).reference) <= direct_tolerance(spd_case(0).kappa));
    }
}
#endif

TEST_CASE("eigen_lu solves SPD and unsymmetric systems", "[eigen_solvers]") {
    SparseLuSolver solver;
    CHECK(solver.capabilities().unsymmetric);
    check_spd_sequence(solver, direct_tolerance);

    const auto& u = unsymmetric_case();
    solver.analyze(u.matrix);
    VectorX x;
    REQUIRE(solver.factorize(u.matrix));
    REQUIRE(solver.solve(u.rhs, x));
    // Backward stable with partial pivoting: the same c * kappa * eps bound, with the 1-norm
    // condition estimate.
    CHECK(ts::relative_error(x, u.reference) <= 1e3 * u.kappa1 * kEps);
}

TEST_CASE("eigen_lu reports a singular matrix", "[eigen_solvers]") {
    const SparseMatrix singular = ts::with_zero_row_and_column(unsymmetric_case().matrix, 1000);
    SparseLuSolver solver;
    solver.analyze(singular);
    CHECK_FALSE(solver.factorize(singular));
    CHECK_THAT(solver.last_error(), Catch::Contains("LU factorization failed"));
    INFO(solver.last_error());
}

TEST_CASE("eigen_cg converges to the settings' tolerance with either preconditioner",
          "[eigen_solvers]") {
    int iterations[2] = {0, 0};
    for (CgPreconditioner pc : {CgPreconditioner::diagonal, CgPreconditioner::incomplete_cholesky}) {
        INFO("preconditioner " << static_cast<int>(pc));
        ConjugateGradientSettings settings;
        settings.preconditioner = pc;
        settings.tolerance = 1e-9;
        ConjugateGradientSolver solver(settings);
        CHECK(solver.capabilities().iterative);
        CHECK_FALSE(solver.capabilities().unsymmetric);
        check_spd_sequence(solver, [&](double kappa) { return kappa * settings.tolerance + 1e-12; });
        CHECK(solver.last_iterations() > 0);
        iterations[static_cast<int>(pc)] = solver.last_iterations();
    }
    // Sanity on the preconditioners' quality: IC(0) needs fewer iterations than Jacobi.
    CHECK(iterations[1] < iterations[0]);
}

TEST_CASE("eigen_cg counts every pass it makes, the one that converges included", "[eigen_solvers]") {
    // On a diagonal SPD matrix the Jacobi preconditioner is exact: from the zero start the first
    // pass lands on the solution (one product with the matrix). Eigen's own count says 0 there
    // (it breaks before counting the converging pass); a zero right-hand side needs no pass.
    SparseMatrix diagonal(5, 5);
    for (Index i = 0; i < 5; ++i) diagonal.insert(i, i) = 1.0 + static_cast<double>(i);
    diagonal.makeCompressed();
    ConjugateGradientSettings settings;
    settings.tolerance = 1e-12;
    ConjugateGradientSolver solver(settings);
    solver.analyze(diagonal);
    REQUIRE(solver.factorize(diagonal));
    VectorX rhs = VectorX::LinSpaced(5, 1.0, 5.0), x;
    REQUIRE(solver.solve(rhs, x));
    CHECK((diagonal * x - rhs).norm() < 1e-12 * rhs.norm());
    CHECK(solver.last_iterations() == 1);
    REQUIRE(solver.solve(VectorX::Zero(5), x));
    CHECK(solver.last_iterations() == 0);
    // Not converged within max_iterations: that many passes (the next test's 2).
}

TEST_CASE("eigen_cg reports non-convergence", "[eigen_solvers]") {
    ConjugateGradientSettings settings;
    settings.max_iterations = 2;
    settings.tolerance = 1e-10;
    ConjugateGradientSolver solver(settings);
    solver.analyze(spd_case(0).matrix);
    REQUIRE(solver.factorize(spd_case(0).matrix));
    VectorX x;
    CHECK_FALSE(solver.solve(spd_case(0).rhs, x));
    CHECK(solver.last_iterations() == 2);
    CHECK_THAT(solver.last_error(), Catch::Contains("CG did not converge in 2 iterations") &&
                                        Catch::Contains("> tolerance 1e-10"));
}

TEST_CASE("eigen_cg fails on an inconsistent singular system", "[eigen_solvers]") {
    // Zero row and column: b has a nonzero entry there, so no x satisfies J x = b.
    const SparseMatrix singular = ts::with_zero_row_and_column(spd_case(0).matrix, 1000);
    ConjugateGradientSettings settings;
    settings.max_iterations = 200;
    ConjugateGradientSolver solver(settings);
    solver.analyze(singular);
    REQUIRE(solver.factorize(singular));
    VectorX x;
    CHECK_FALSE(solver.solve(VectorX::Ones(singular.rows()), x));
    CHECK_THAT(solver.last_error(), Catch::Contains("did not converge"));
}

TEST_CASE("eigen_bicgstab solves SPD and unsymmetric systems", "[eigen_solvers]") {
    for (BicgstabPreconditioner pc : {BicgstabPreconditioner::diagonal, BicgstabPreconditioner::ilut}) {
        INFO("preconditioner " << static_cast<int>(pc));
        BicgstabSettings settings;
        settings.preconditioner = pc;
        settings.tolerance = 1e-9;
        BicgstabSolver solver(settings);
        CHECK(solver.capabilities().unsymmetric);
        check_spd_sequence(solver, [&](double kappa) { return kappa * settings.tolerance + 1e-12; });

        const auto& u = unsymmetric_case();
        solver.analyze(u.matrix);
        VectorX x;
        REQUIRE(solver.factorize(u.matrix));
        REQUIRE(solver.solve(u.rhs, x));
        // The stopping criterion itself, recomputed with the true residual ...
        CHECK((u.rhs - u.matrix * x).norm() / u.rhs.norm() <= settings.tolerance * (1 + 1e-3));
        // ... and the error it implies; cond_2 <= sqrt(n) cond_1, but the 1-norm estimate is
        // already within a small factor of cond_2 for this operator: 10 covers it.
        CHECK(ts::relative_error(x, u.reference) <= 10 * u.kappa1 * settings.tolerance + 1e-12);
    }
}

TEST_CASE("eigen_bicgstab reports non-convergence", "[eigen_solvers]") {
    BicgstabSettings settings;
    settings.preconditioner = BicgstabPreconditioner::diagonal;
    settings.max_iterations = 2;
    BicgstabSolver solver(settings);
    const auto& u = unsymmetric_case();
    solver.analyze(u.matrix);
    REQUIRE(solver.factorize(u.matrix));
    VectorX x;
    CHECK_FALSE(solver.solve(u.rhs, x));
    CHECK_THAT(solver.last_error(), Catch::Contains("BiCGSTAB did not converge in"));
}

TEST_CASE("every solver factorizes a grown pattern and explicit zeros on a reused analysis",
          "[eigen_solvers]") {
    {
        INFO("eigen_ldlt");
        SimplicialLdltSolver solver;
        check_growing_pattern(solver, direct_tolerance);
    }
    {
        INFO("eigen_llt");
        SimplicialLltSolver solver;
        check_growing_pattern(solver, direct_tolerance);
    }
#ifdef SOMA_HAVE_CHOLMOD
    for (const CholmodMode mode : {CholmodMode::automatic, CholmodMode::simplicial, CholmodMode::supernodal}) {
        INFO("cholmod mode " << static_cast<int>(mode));
        CholmodSolver solver(CholmodSettings{mode});
        check_growing_pattern(solver, direct_tolerance);
    }
#endif
    {
        INFO("eigen_lu");
        SparseLuSolver solver;
        check_growing_pattern(solver, direct_tolerance);
    }
    for (const auto preconditioner : {CgPreconditioner::diagonal, CgPreconditioner::incomplete_cholesky}) {
        INFO("eigen_cg preconditioner " << static_cast<int>(preconditioner));
        ConjugateGradientSettings settings;
        settings.preconditioner = preconditioner;
        settings.tolerance = 1e-10;
        ConjugateGradientSolver solver(settings);
        // ||x - x*|| / ||x*|| <= kappa ||r|| / ||b||, plus the reference's rounding.
        check_growing_pattern(solver, [&](double kappa) { return kappa * settings.tolerance + 1e-12; });
    }
    for (const auto preconditioner : {BicgstabPreconditioner::diagonal, BicgstabPreconditioner::ilut}) {
        INFO("eigen_bicgstab preconditioner " << static_cast<int>(preconditioner));
        BicgstabSettings settings;
        settings.preconditioner = preconditioner;
        settings.tolerance = 1e-10;
        BicgstabSolver solver(settings);
        check_growing_pattern(solver, [&](double kappa) { return kappa * settings.tolerance + 1e-12; });
    }
}

// ---- hard constraints: the saddle-point matrix [[M, -G^T], [-G, 0]] ----------------------------

namespace {

/// A massless DOF held by a hard constraint: [[0, -1], [-1, 0]]. Every symmetric ordering puts
/// the zero diagonal first, so a factorization without pivoting always meets a zero pivot.
SparseMatrix massless_dof_held_hard() {
    SparseMatrix m(2, 2);
    m.insert(0, 1) = -1.0;
    m.insert(1, 0) = -1.0;
    m.makeCompressed();
    return m;
}

/// A unit point mass in 3D with its x held by a hard constraint: SPD J, one multiplier row.
SparseMatrix point_mass_held_hard() {
    SparseMatrix m(4, 4);
    for (Index i = 0; i < 3; ++i) m.insert(i, i) = 1.0;
    m.insert(0, 3) = -1.0;
    m.insert(3, 0) = -1.0;
    m.insert(3, 3) = 0.0;  // the stored, zero diagonal of the multiplier row
    m.makeCompressed();
    return m;
}

}  // namespace

TEST_CASE("saddle-point matrices: only eigen_lu and eigen_bicgstab have the capability, and LU solves them",
          "[eigen_solvers][saddle_point]") {
    CHECK(SparseLuSolver().capabilities().saddle_point);
    CHECK(BicgstabSolver(BicgstabSettings{}).capabilities().saddle_point);
    CHECK_FALSE(SimplicialLdltSolver().capabilities().saddle_point);
    CHECK_FALSE(SimplicialLltSolver().capabilities().saddle_point);
    CHECK_FALSE(ConjugateGradientSolver(ConjugateGradientSettings{}).capabilities().saddle_point);
#ifdef SOMA_HAVE_CHOLMOD
    for (CholmodMode mode : {CholmodMode::automatic, CholmodMode::simplicial, CholmodMode::supernodal})
        CHECK_FALSE(CholmodSolver(CholmodSettings{mode}).capabilities().saddle_point);
#endif
    for (const SparseMatrix& m : {massless_dof_held_hard(), point_mass_held_hard()}) {
        SparseLuSolver lu;
        lu.analyze(m);
        REQUIRE(lu.factorize(m));
        const VectorX b = VectorX::LinSpaced(m.rows(), 1.0, 2.0);
        VectorX x;
        REQUIRE(lu.solve(b, x));
        CHECK((m * x - b).norm() <= 1e-14 * b.norm());  // exact data, pivoted LU: round-off only
    }
}

TEST_CASE("a factorization that meets a hard constraint's zero diagonal says it looks like a saddle point",
          "[eigen_solvers][saddle_point]") {
    // (A function, not a stored matcher: Catch's combined matchers hold references to temporaries.)
    const auto says_saddle_point = [](const std::string& error) {
        return error.find("saddle-point (KKT) matrix of hard constraints") != std::string::npos &&
               error.find("eigen_lu") != std::string::npos && error.find("compliance > 0") != std::string::npos;
    };
    {
        // LDL^T: the first pivot is the zero diagonal in every ordering.
        SimplicialLdltSolver ldlt;
        const SparseMatrix m = massless_dof_held_hard();
        ldlt.analyze(m);
        CHECK_FALSE(ldlt.factorize(m));
        INFO(ldlt.last_error());
        CHECK_THAT(ldlt.last_error(), Catch::Contains("zero pivot"));
        CHECK(says_saddle_point(ldlt.last_error()));
    }
    {
        // LL^T: the KKT matrix of an SPD J and a nonzero G is indefinite, so some pivot is <= 0.
        SimplicialLltSolver llt;
        const SparseMatrix m = point_mass_held_hard();
        llt.analyze(m);
        CHECK_FALSE(llt.factorize(m));
        INFO(llt.last_error());
        CHECK_THAT(llt.last_error(), Catch::Contains("not positive definite"));
        CHECK(says_saddle_point(llt.last_error()));
    }
#ifdef SOMA_HAVE_CHOLMOD
    for (CholmodMode mode : {CholmodMode::simplicial, CholmodMode::supernodal}) {
        INFO("cholmod mode " << static_cast<int>(mode));
        CholmodSolver cholmod(CholmodSettings{mode});
        const SparseMatrix m = mode == CholmodMode::simplicial ? massless_dof_held_hard() : point_mass_held_hard();
        cholmod.analyze(m);
        CHECK_FALSE(cholmod.factorize(m));
        INFO(cholmod.last_error());
        CHECK(says_saddle_point(cholmod.last_error()));
    }
#endif
    // A plainly singular matrix (a zero row and column) is not called a saddle point.
    SimplicialLdltSolver ldlt;
    const SparseMatrix singular = ts::with_zero_row_and_column(spd_case(0).matrix, 1000);
    ldlt.analyze(singular);
    CHECK_FALSE(ldlt.factorize(singular));
    CHECK_THAT(ldlt.last_error(), !Catch::Contains("saddle"));
}

TEST_CASE("the preordered factorization gives Eigen's own factors, from a value map cached at analysis",
          "[eigen_solvers]") {
    // Same ordering (analyze() runs Eigen's AMD itself), same ordered matrix (the map only moves
    // values), same elimination: the factors agree to the last bit, for every value set on the
    // analysed pattern.
    PreorderedCholesky<Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<Index>>, true> cached;
    cached.analyze(spd_case(0).matrix);
    for (std::size_t v = 0; v < kVariants.size(); ++v) {
        INFO("value set " << v);
        const SparseMatrix& a = spd_case(v).matrix;
        Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<Index>> reference(a);
        cached.factorize(a);
        REQUIRE(cached.info() == Eigen::Success);
        CHECK(cached.permutationP().indices() == reference.permutationP().indices());
        CHECK(cached.vectorD() == reference.vectorD());
        const SparseMatrix difference = SparseMatrix(cached.matrixL()) - SparseMatrix(reference.matrixL());
        CHECK(difference.norm() == 0.0);
    }
    // A matrix in uncompressed storage (values not in the analysed order) takes Eigen's own path.
    SparseMatrix uncompressed = spd_case(1).matrix;
    uncompressed.uncompress();
    cached.factorize(uncompressed);
    Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<Index>> reference(spd_case(1).matrix);
    CHECK(cached.vectorD() == reference.vectorD());
}
