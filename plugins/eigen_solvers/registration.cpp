// Registration of the Eigen-backed linear solvers: each type's parameter schema and the
// translation of its validated Parameters into the solver's plain settings struct (the solvers
// themselves never see Parameters, so their tests do not depend on the kernel's implementation).

#include "iterative_solvers.hpp"
#include "simplicial_cholesky_solver.hpp"
#include "sparse_lu_solver.hpp"
#ifdef SOMA_HAVE_CHOLMOD
#include "cholmod_solver.hpp"
#endif

#include "soma/api.hpp"
#include "soma/registry.hpp"

#include <memory>

namespace {

using soma::LinearSolver;
using soma::ParameterSchema;
using soma::Parameters;
using namespace soma::eigen_solvers;

/// Keys shared by the Krylov solvers.
void add_krylov_keys(ParameterSchema& schema) {
    schema.real("tolerance", "stop when the relative residual ||b - J x|| / ||b|| is below this")
        .fallback(1e-10)
        .positive()
        .below(1.0);
    schema.integer("max_iterations",
                   "iteration limit; solve() fails (and Newton cuts the step) when reached")
        .fallback(1000L)
        .range(1.0, 1e9);
}

ParameterSchema ldlt_schema() {
    return ParameterSchema(
        "eigen_ldlt",
        "Sparse LDL^T (Eigen SimplicialLDLT, no pivoting) with AMD ordering; reads the lower "
        "triangle. The default direct solver: symbolic analysis is done once per Jacobian "
        "pattern and reused at every Newton iteration. Handles SPD and quasi-definite "
        "(compliant constraints) systems; a zero pivot fails with its column. Not for hard "
        "constraints (compliance 0): their KKT matrix has a zero diagonal, so such a scene is refused.");
}

ParameterSchema llt_schema() {
    return ParameterSchema(
        "eigen_llt",
        "Sparse Cholesky LL^T (Eigen SimplicialLLT) with AMD ordering; reads the lower triangle. "
        "SPD systems only: fails on the first non-positive pivot (refused with constraints of "
        "compliance 0).");
}

#ifdef SOMA_HAVE_CHOLMOD
ParameterSchema cholmod_schema() {
    ParameterSchema schema(
        "cholmod",
        "SuiteSparse CHOLMOD sparse Cholesky (through Eigen's CholmodSupport); reads the lower "
        "triangle. Supernodal factorization uses dense BLAS kernels and is the fastest direct "
        "solver on large 3D meshes. No pivoting: refused with hard constraints (compliance 0).");
    schema.string("mode",
                  "auto: CHOLMOD chooses supernodal LL^T when the factor is dense enough "
                  "(flops/nnz(L) >= 40), else simplicial LDL^T; simplicial: LDL^T, also for "
                  "quasi-definite systems; supernodal: LL^T, SPD only")
        .one_of_strings({"auto", "simplicial", "supernodal"})
        .fallback(std::string("auto"));
    return schema;
}

CholmodSettings cholmod_settings(const Parameters& p) {
    CholmodSettings s;
    const std::string mode = p.string("mode");
    s.mode = mode == "simplicial"   ? CholmodMode::simplicial
             : mode == "supernodal" ? CholmodMode::supernodal
                                    : CholmodMode::automatic;
    return s;
}
#endif

ParameterSchema lu_schema() {
    ParameterSchema schema(
        "eigen_lu",
        "Sparse LU (Eigen SparseLU, supernodal) with COLAMD column ordering, for unsymmetric "
        "Jacobians (follower loads, friction), and the saddle-point (KKT) matrix of hard constraints "
        "(compliance 0): pivoting never picks a zero diagonal. Reads the whole matrix.");
    schema.real("pivot_threshold",
                "threshold partial pivoting: the diagonal entry is kept as pivot when "
                "|a_jj| >= pivot_threshold * max_i |a_ij|; 1 = partial pivoting, smaller values "
                "favour the diagonal (less fill, less stable)")
        .fallback(1.0)
        .range(0.0, 1.0);
    return schema;
}

SparseLuSettings lu_settings(const Parameters& p) {
    SparseLuSettings s;
    s.pivot_threshold = p.real("pivot_threshold");
    return s;
}

ParameterSchema cg_schema() {
    ParameterSchema schema(
        "eigen_cg",
        "Preconditioned conjugate gradient (Eigen ConjugateGradient on both triangles) for SPD "
        "Jacobians; starts from zero at every solve.");
    schema.string("preconditioner",
                  "diagonal: Jacobi; incomplete_cholesky: IC(0) with AMD ordering and an "
                  "automatic diagonal shift (fewer iterations, costlier setup)")
        .one_of_strings({"diagonal", "incomplete_cholesky"})
        .fallback(std::string("diagonal"));
    add_krylov_keys(schema);
    return schema;
}

ConjugateGradientSettings cg_settings(const Parameters& p) {
    ConjugateGradientSettings s;
    s.preconditioner = p.string("preconditioner") == "incomplete_cholesky"
                           ? CgPreconditioner::incomplete_cholesky
                           : CgPreconditioner::diagonal;
    s.tolerance = p.real("tolerance");
    s.max_iterations = static_cast<int>(p.integer("max_iterations"));
    return s;
}

ParameterSchema bicgstab_schema() {
    ParameterSchema schema(
        "eigen_bicgstab",
        "Preconditioned BiCGSTAB (Eigen) for general, unsymmetric Jacobians, hard constraints' KKT "
        "matrices included (both preconditioners tolerate a zero diagonal); starts from zero at "
        "every solve.");
    schema.string("preconditioner", "diagonal: Jacobi; ilut: incomplete LU with thresholding")
        .one_of_strings({"diagonal", "ilut"})
        .fallback(std::string("ilut"));
    add_krylov_keys(schema);
    schema.integer("fill_factor",
                   "ilut only: at most fill_factor times a row's nonzeros kept in each row of L "
                   "and of U")
        .fallback(10L)
        .range(1.0, 1000.0);
    schema.real("drop_tolerance",
                "ilut only: entries smaller than drop_tolerance * ||row|| are dropped")
        .fallback(1e-4)
        .range(0.0, 1.0);
    return schema;
}

BicgstabSettings bicgstab_settings(const Parameters& p) {
    BicgstabSettings s;
    s.preconditioner = p.string("preconditioner") == "diagonal" ? BicgstabPreconditioner::diagonal
                                                                : BicgstabPreconditioner::ilut;
    s.tolerance = p.real("tolerance");
    s.max_iterations = static_cast<int>(p.integer("max_iterations"));
    s.fill_factor = static_cast<int>(p.integer("fill_factor"));
    s.drop_tolerance = p.real("drop_tolerance");
    return s;
}

}  // namespace

SOMA_PLUGIN("eigen_solvers") {
    registry.add_linear_solver(ldlt_schema(), [](const Parameters&) -> std::unique_ptr<LinearSolver> {
        return std::make_unique<SimplicialLdltSolver>();
    });
    registry.add_linear_solver(llt_schema(), [](const Parameters&) -> std::unique_ptr<LinearSolver> {
        return std::make_unique<SimplicialLltSolver>();
    });
#ifdef SOMA_HAVE_CHOLMOD
    registry.add_linear_solver(cholmod_schema(), [](const Parameters& p) -> std::unique_ptr<LinearSolver> {
        return std::make_unique<CholmodSolver>(cholmod_settings(p));
    });
#endif
    registry.add_linear_solver(lu_schema(), [](const Parameters& p) -> std::unique_ptr<LinearSolver> {
        return std::make_unique<SparseLuSolver>(lu_settings(p));
    });
    registry.add_linear_solver(cg_schema(), [](const Parameters& p) -> std::unique_ptr<LinearSolver> {
        return std::make_unique<ConjugateGradientSolver>(cg_settings(p));
    });
    registry.add_linear_solver(bicgstab_schema(), [](const Parameters& p) -> std::unique_ptr<LinearSolver> {
        return std::make_unique<BicgstabSolver>(bicgstab_settings(p));
    });
}
