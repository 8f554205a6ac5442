#include "sparse_lu_solver.hpp"

namespace soma::eigen_solvers {

SparseLuSolver::SparseLuSolver(const SparseLuSettings& settings) {
    lu_.setPivotThreshold(settings.pivot_threshold);
}

LinearSolverCapabilities SparseLuSolver::capabilities() const {
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    caps.symmetric_indefinite = true;
    caps.unsymmetric = true;  // reads the whole matrix
    // Threshold partial pivoting never picks a zero diagonal (SparseLU skips it even with
    // pivot_threshold 0), so hard constraints' KKT matrices factor.
    caps.saddle_point = true;
    return caps;
}

void SparseLuSolver::analyze(const SparseMatrix& pattern) {
    // SparseLU's analyzePattern needs compressed storage; the kernel's matrix always is.
    lu_.analyzePattern(pattern);
    shape_.remember(pattern);
    factorized_size_ = -1;
    error_.clear();
}

bool SparseLuSolver::factorize(const SparseMatrix& matrix) {
    factorized_size_ = -1;
    error_ = shape_.mismatch(matrix, "eigen_lu");
    if (!error_.empty()) return false;
    lu_.factorize(matrix);
    if (lu_.info() != Eigen::Success) {
        // SparseLU's own message names the zero pivot's column ("... ZERO COLUMN AT k" etc.).
        error_ = "LU factorization failed: " + std::string(info_meaning(lu_.info())) + ": " +
                 lu_.lastErrorMessage();
        return false;
    }
    factorized_size_ = static_cast<Index>(matrix.rows());
    return true;
}

bool SparseLuSolver::solve(const VectorX& rhs, VectorX& solution) {
    error_ = rhs_mismatch(rhs, factorized_size_, "eigen_lu");
    if (!error_.empty()) return false;
    solution.resize(rhs.size());
    solution = lu_.solve(rhs);
    return true;
}

}  // namespace soma::eigen_solvers
