#include "simplicial_cholesky_solver.hpp"

#include "soma/saddle_point.hpp"

namespace soma::eigen_solvers {

// ---- eigen_ldlt -----------------------------------------------------------------------------

LinearSolverCapabilities SimplicialLdltSolver::capabilities() const {
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    // No pivoting: quasi-definite (regularised KKT) systems factor for any ordering; a general
    // indefinite matrix may hit a zero pivot, which factorize() reports.
    caps.symmetric_indefinite = true;
    caps.unsymmetric = false;  // reads the lower triangle only
    // A hard constraint's zero diagonal is a zero pivot whenever AMD orders a multiplier before
    // the DOFs it constrains: not a saddle-point solver.
    caps.saddle_point = false;
    return caps;
}

void SimplicialLdltSolver::analyze(const SparseMatrix& pattern) {
    ldlt_.analyze(pattern);
    shape_.remember(pattern);
    factorized_size_ = -1;
    error_.clear();
}

bool SimplicialLdltSolver::factorize(const SparseMatrix& matrix) {
    factorized_size_ = -1;
    error_ = shape_.mismatch(matrix, "eigen_ldlt");
    if (!error_.empty()) return false;
    ldlt_.factorize(matrix);
    if (ldlt_.info() != Eigen::Success) {
        // Eigen stores D(k,k) before testing it and stops at the first zero, so the first zero
        // of D is the failing pivot (entries before it were all non-zero in this pass). The
        // pivot index is in the AMD-permuted order; P^-1 maps it back to the matrix's column.
        const auto& d = ldlt_.vectorD();
        Index k = 0;
        while (k < d.size() && d[k] != 0.0) ++k;
        if (k < d.size()) {
            const Index column = ldlt_.permutationPinv().indices()[k];
            error_ = "LDLT factorization failed: matrix is singular (zero pivot) at column " +
                     std::to_string(column) + saddle_point_advice(matrix, "eigen_ldlt");
        } else {
            error_ = std::string("LDLT factorization failed: ") + info_meaning(ldlt_.info());
        }
        return false;
    }
    factorized_size_ = static_cast<Index>(matrix.rows());
    return true;
}

bool SimplicialLdltSolver::solve(const VectorX& rhs, VectorX& solution) {
    error_ = rhs_mismatch(rhs, factorized_size_, "eigen_ldlt");
    if (!error_.empty()) return false;
    solution.resize(rhs.size());  // no-op when the caller reuses its vector
    solution = ldlt_.solve(rhs);
    return true;
}

// ---- eigen_llt ------------------------------------------------------------------------------

LinearSolverCapabilities SimplicialLltSolver::capabilities() const {
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    caps.unsymmetric = false;  // reads the lower triangle only
    return caps;
}

void SimplicialLltSolver::analyze(const SparseMatrix& pattern) {
    llt_.analyze(pattern);
    shape_.remember(pattern);
    factorized_size_ = -1;
    error_.clear();
}

bool SimplicialLltSolver::factorize(const SparseMatrix& matrix) {
    factorized_size_ = -1;
    error_ = shape_.mismatch(matrix, "eigen_llt");
    if (!error_.empty()) return false;
    llt_.factorize(matrix);
    if (llt_.info() != Eigen::Success) {
        // Eigen does not expose the failing column of an LL^T (the pivot is not stored).
        const std::string advice = saddle_point_advice(matrix, "eigen_llt");
        error_ = "LLT factorization failed: matrix is not positive definite (a pivot was <= 0)" +
                 (advice.empty() ? std::string("; use eigen_ldlt for indefinite or singular-prone systems")
                                 : advice);
        return false;
    }
    factorized_size_ = static_cast<Index>(matrix.rows());
    return true;
}

bool SimplicialLltSolver::solve(const VectorX& rhs, VectorX& solution) {
    error_ = rhs_mismatch(rhs, factorized_size_, "eigen_llt");
    if (!error_.empty()) return false;
    solution.resize(rhs.size());
    solution = llt_.solve(rhs);
    return true;
}

}  // namespace soma::eigen_solvers
