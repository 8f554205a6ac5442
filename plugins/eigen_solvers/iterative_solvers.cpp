#include "iterative_solvers.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/OrderingMethods>

#include <cstdio>
#include <type_traits>

namespace soma::eigen_solvers {
namespace {

/// Whether \p S is Eigen's conjugate gradient, whose count leaves out the pass that converges.
template <class S>
struct IsConjugateGradient : std::false_type {};
template <class Matrix, int UpLo, class Preconditioner>
struct IsConjugateGradient<Eigen::ConjugateGradient<Matrix, UpLo, Preconditioner>> : std::true_type {};

/// The Eigen solver type \p S behind the KrylovBackend interface.
template <class S>
class KrylovBackendOf final : public KrylovBackend {
public:
    explicit KrylovBackendOf(double tolerance, int max_iterations) {
        solver_.setTolerance(tolerance);
        solver_.setMaxIterations(max_iterations);
    }
    S& solver() { return solver_; }

    void analyze(const SparseMatrix& matrix) override {
        if constexpr (kAnalyzesInCompute) analyzed_ = false;
        else solver_.analyzePattern(matrix);
    }
    Eigen::ComputationInfo factorize(const SparseMatrix& matrix) override {
        if (kAnalyzesInCompute && !analyzed_) {
            solver_.compute(matrix);
            analyzed_ = true;
        } else {
            solver_.factorize(matrix);
        }
        return solver_.preconditioner().info();
    }
    Eigen::ComputationInfo solve(const VectorX& rhs, VectorX& solution) override {
        solution = solver_.solve(rhs);
        // The passes made, one product with the matrix each. Eigen's conjugate gradient breaks
        // out of the pass that converges before counting it (an exact preconditioner reports 0);
        // from a zero start and a nonzero right-hand side it always makes that pass. BiCGSTAB
        // counts every pass.
        passes_ = static_cast<int>(solver_.iterations());
        if (IsConjugateGradient<S>::value && solver_.info() == Eigen::Success && rhs.squaredNorm() > 0.0) ++passes_;
        return solver_.info();
    }
    int iterations() const override { return passes_; }
    double relative_residual() const override { return solver_.error(); }

private:
    // Eigen 3.4's IterativeSolverBase::analyzePattern reads the preconditioner's info(), which
    // IncompleteLUT sets only when it factorizes: an uninitialised enum (UBSan, docs/reliability.md,
    // Sanitizers). An ILUT backend analyzes in its first factorization after a new pattern,
    // through compute(), which sets info() before reading it.
    static constexpr bool kAnalyzesInCompute =
        std::is_same_v<typename S::Preconditioner, Eigen::IncompleteLUT<double, Index>>;
    S solver_;
    bool analyzed_ = false;
    int passes_ = 0;
};

std::string format_real(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

using CgDiagonal = Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper,
                                            Eigen::DiagonalPreconditioner<double>>;
using CgIncompleteCholesky =
    Eigen::ConjugateGradient<SparseMatrix, Eigen::Lower | Eigen::Upper,
                             Eigen::IncompleteCholesky<double, Eigen::Lower, Eigen::AMDOrdering<Index>>>;
using BicgstabDiagonal = Eigen::BiCGSTAB<SparseMatrix, Eigen::DiagonalPreconditioner<double>>;
using BicgstabIlut = Eigen::BiCGSTAB<SparseMatrix, Eigen::IncompleteLUT<double, Index>>;

std::unique_ptr<KrylovBackend> make_cg(const ConjugateGradientSettings& s) {
    if (s.preconditioner == CgPreconditioner::incomplete_cholesky) {
        return std::make_unique<KrylovBackendOf<CgIncompleteCholesky>>(s.tolerance, s.max_iterations);
    }
    return std::make_unique<KrylovBackendOf<CgDiagonal>>(s.tolerance, s.max_iterations);
}

std::unique_ptr<KrylovBackend> make_bicgstab(const BicgstabSettings& s) {
    if (s.preconditioner == BicgstabPreconditioner::ilut) {
        auto backend = std::make_unique<KrylovBackendOf<BicgstabIlut>>(s.tolerance, s.max_iterations);
        backend->solver().preconditioner().setFillfactor(s.fill_factor);
        backend->solver().preconditioner().setDroptol(s.drop_tolerance);
        return backend;
    }
    return std::make_unique<KrylovBackendOf<BicgstabDiagonal>>(s.tolerance, s.max_iterations);
}

}  // namespace

// ---- common Krylov part ---------------------------------------------------------------------

EigenKrylovSolver::EigenKrylovSolver(std::unique_ptr<KrylovBackend> backend, std::string method,
                                     std::string type_name, std::string preconditioner,
                                     double tolerance)
    : backend_(std::move(backend)),
      method_(std::move(method)),
      type_name_(std::move(type_name)),
      preconditioner_(std::move(preconditioner)),
      tolerance_(tolerance) {}

void EigenKrylovSolver::analyze(const SparseMatrix& pattern) {
    matrix_ = pattern;
    backend_->analyze(matrix_);
    shape_.remember(pattern);
    factorized_size_ = -1;
    iterations_ = 0;
    error_.clear();
}

bool EigenKrylovSolver::factorize(const SparseMatrix& matrix) {
    factorized_size_ = -1;
    error_ = shape_.mismatch(matrix, type_name_.c_str());
    if (!error_.empty()) return false;
    // Same shape: the assignment copies indices and values into the storage allocated in
    // analyze(), without reallocating.
    matrix_ = matrix;
    const Eigen::ComputationInfo info = backend_->factorize(matrix_);
    if (info != Eigen::Success) {
        error_ = method_ + ": " + preconditioner_ + " preconditioner setup failed: " +
                 info_meaning(info);
        return false;
    }
    factorized_size_ = static_cast<Index>(matrix.rows());
    return true;
}

bool EigenKrylovSolver::solve(const VectorX& rhs, VectorX& solution) {
    iterations_ = 0;
    error_ = rhs_mismatch(rhs, factorized_size_, type_name_.c_str());
    if (!error_.empty()) return false;
    solution.resize(rhs.size());
    const Eigen::ComputationInfo info = backend_->solve(rhs, solution);
    iterations_ = backend_->iterations();
    const double residual = backend_->relative_residual();
    if (info != Eigen::Success || !solution.allFinite()) {
        if (info == Eigen::NoConvergence || info == Eigen::Success) {
            error_ = method_ + " did not converge in " + std::to_string(iterations_) +
                     " iterations: relative residual " + format_real(residual) +
                     " > tolerance " + format_real(tolerance_) + " (preconditioner " +
                     preconditioner_ + ")";
        } else {
            error_ = method_ + " failed after " + std::to_string(iterations_) +
                     " iterations: " + info_meaning(info);
        }
        return false;
    }
    return true;
}

// ---- eigen_cg -------------------------------------------------------------------------------

ConjugateGradientSolver::ConjugateGradientSolver(const ConjugateGradientSettings& settings)
    : EigenKrylovSolver(make_cg(settings), "CG", "eigen_cg",
                        settings.preconditioner == CgPreconditioner::diagonal
                            ? "diagonal"
                            : "incomplete_cholesky",
                        settings.tolerance) {}

LinearSolverCapabilities ConjugateGradientSolver::capabilities() const {
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    caps.unsymmetric = false;  // CG needs a symmetric matrix
    caps.iterative = true;
    caps.saddle_point = false;  // CG needs a positive definite matrix; a KKT matrix is indefinite
    return caps;
}

// ---- eigen_bicgstab -------------------------------------------------------------------------

BicgstabSolver::BicgstabSolver(const BicgstabSettings& settings)
    : EigenKrylovSolver(make_bicgstab(settings), "BiCGSTAB", "eigen_bicgstab",
                        settings.preconditioner == BicgstabPreconditioner::diagonal ? "diagonal"
                                                                                    : "ilut",
                        settings.tolerance) {}

LinearSolverCapabilities BicgstabSolver::capabilities() const {
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    caps.symmetric_indefinite = true;
    caps.unsymmetric = true;
    caps.iterative = true;
    // BiCGSTAB never divides by a diagonal entry, and both preconditioners tolerate a zero one
    // (Eigen's Jacobi uses 1 there, its ILUT shifts a zero pivot to sqrt(droptol) |row|).
    caps.saddle_point = true;
    return caps;
}

}  // namespace soma::eigen_solvers
