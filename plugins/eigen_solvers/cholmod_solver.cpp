#include "cholmod_solver.hpp"

#include "soma/saddle_point.hpp"

#include <Eigen/CholmodSupport>

namespace soma::eigen_solvers {
namespace {

/// Eigen's CholmodDecomposition with access to the CHOLMOD factor, which Eigen keeps protected:
/// we need it for the failing column (`minor`) and to solve with cholmod_solve2 and persistent
/// workspaces (Eigen's solve() calls cholmod_solve, which allocates the result every time).
class CholmodFactorization : public Eigen::CholmodDecomposition<SparseMatrix, Eigen::Lower> {
public:
    cholmod_factor* factor() const { return m_cholmodFactor; }
};

const char* status_meaning(int status) {
    switch (status) {
        case CHOLMOD_OK: return "ok";
        case CHOLMOD_NOT_POSDEF: return "matrix is not positive definite";
        case CHOLMOD_DSMALL: return "diagonal entry of the factor is tiny (nearly singular)";
        case CHOLMOD_OUT_OF_MEMORY: return "out of memory";
        case CHOLMOD_TOO_LARGE: return "problem too large";
        case CHOLMOD_NOT_INSTALLED: return "method not installed";
        case CHOLMOD_INVALID: return "invalid input";
        case CHOLMOD_GPU_PROBLEM: return "GPU problem";
    }
    return "unknown CHOLMOD status";
}

}  // namespace

struct CholmodSolver::Impl {
    CholmodFactorization chol;
    // cholmod_solve2 workspaces: allocated on the first solve, reused while the size holds.
    cholmod_dense* x = nullptr;
    cholmod_dense* y = nullptr;
    cholmod_dense* e = nullptr;

    ~Impl() { free_workspaces(); }
    void free_workspaces() {
        cholmod_free_dense(&x, &chol.cholmod());
        cholmod_free_dense(&y, &chol.cholmod());
        cholmod_free_dense(&e, &chol.cholmod());
    }
};

CholmodSolver::CholmodSolver(const CholmodSettings& settings)
    : impl_(std::make_unique<Impl>()), settings_(settings) {
    switch (settings.mode) {
        case CholmodMode::automatic: impl_->chol.setMode(Eigen::CholmodAuto); break;
        case CholmodMode::simplicial: impl_->chol.setMode(Eigen::CholmodLDLt); break;
        case CholmodMode::supernodal: impl_->chol.setMode(Eigen::CholmodSupernodalLLt); break;
    }
    // Failures are reported through last_error(); CHOLMOD's own printing would duplicate them
    // on stderr.
    impl_->chol.cholmod().print = 0;
}

CholmodSolver::~CholmodSolver() = default;

LinearSolverCapabilities CholmodSolver::capabilities() const {
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    // Only the explicitly simplicial LDL^T mode is meant for quasi-definite matrices; automatic
    // mode may pick a supernodal LL^T.
    caps.symmetric_indefinite = settings_.mode == CholmodMode::simplicial;
    caps.unsymmetric = false;  // reads the lower triangle only
    caps.saddle_point = false;  // no pivoting in either mode: a zero diagonal can be a zero pivot
    return caps;
}

void CholmodSolver::analyze(const SparseMatrix& pattern) {
    impl_->chol.analyzePattern(pattern);
    analysis_error_.clear();
    if (impl_->chol.info() != Eigen::Success || impl_->chol.factor() == nullptr) {
        analysis_error_ = std::string("cholmod: symbolic analysis failed: ") +
                          status_meaning(impl_->chol.cholmod().status);
    }
    shape_.remember(pattern);
    factorized_size_ = -1;
    error_.clear();
}

bool CholmodSolver::factorize(const SparseMatrix& matrix) {
    factorized_size_ = -1;
    error_ = shape_.mismatch(matrix, "cholmod");
    if (!error_.empty()) return false;
    if (!analysis_error_.empty()) {
        error_ = analysis_error_;
        return false;
    }
    // Numeric factorization into the factor object created by analyze(): CHOLMOD reuses its
    // symbolic structure and, after the first call, its numeric storage.
    impl_->chol.factorize(matrix);
    const cholmod_factor* factor = impl_->chol.factor();
    if (impl_->chol.info() != Eigen::Success) {
        // `minor` is the column (in the factor's permuted order) where the factorization stopped;
        // Perm maps it back to the matrix's column.
        const auto minor = static_cast<Index>(factor->minor);
        std::string where;
        if (minor < static_cast<Index>(factor->n) && factor->Perm != nullptr) {
            where = " at column " + std::to_string(static_cast<const int*>(factor->Perm)[minor]);
        }
        // In LDL^T mode CHOLMOD flags only a zero pivot (as "not positive definite").
        const std::string what = factor->is_ll ? status_meaning(impl_->chol.cholmod().status)
                                               : "matrix is singular (zero pivot)";
        error_ = "CHOLMOD factorization failed: " + what + where + saddle_point_advice(matrix, "cholmod");
        return false;
    }
    factorized_size_ = static_cast<Index>(matrix.rows());
    return true;
}

bool CholmodSolver::solve(const VectorX& rhs, VectorX& solution) {
    error_ = rhs_mismatch(rhs, factorized_size_, "cholmod");
    if (!error_.empty()) return false;
    // A cholmod_dense view of the right-hand side: no copy (CHOLMOD only reads B).
    cholmod_dense b{};
    b.nrow = static_cast<size_t>(rhs.size());
    b.ncol = 1;
    b.nzmax = b.nrow;
    b.d = b.nrow;
    b.x = const_cast<double*>(rhs.data());
    b.z = nullptr;
    b.xtype = CHOLMOD_REAL;
    b.dtype = CHOLMOD_DOUBLE;
    cholmod_common& common = impl_->chol.cholmod();
    const int ok = cholmod_solve2(CHOLMOD_A, impl_->chol.factor(), &b, nullptr, &impl_->x, nullptr,
                                  &impl_->y, &impl_->e, &common);
    if (!ok || impl_->x == nullptr) {
        error_ = std::string("CHOLMOD solve failed: ") + status_meaning(common.status);
        return false;
    }
    solution.resize(rhs.size());
    solution = Eigen::Map<const VectorX>(static_cast<const double*>(impl_->x->x), rhs.size());
    return true;
}

bool CholmodSolver::is_supernodal() const {
    const cholmod_factor* factor = impl_->chol.factor();
    return factor != nullptr && factor->is_super != 0;
}

}  // namespace soma::eigen_solvers
