#include "solver_common.hpp"

namespace soma::eigen_solvers {

void AnalyzedShape::remember(const SparseMatrix& pattern) {
    rows = static_cast<Index>(pattern.rows());
    cols = static_cast<Index>(pattern.cols());
    nonzeros = static_cast<Index>(pattern.nonZeros());
}

std::string AnalyzedShape::mismatch(const SparseMatrix& matrix, const char* solver_name) const {
    if (!analyzed()) {
        return std::string(solver_name) + ": factorize() called before analyze()";
    }
    if (matrix.rows() != rows || matrix.cols() != cols || matrix.nonZeros() != nonzeros) {
        return std::string(solver_name) + ": factorize() got a " + std::to_string(matrix.rows()) +
               "x" + std::to_string(matrix.cols()) + " matrix with " +
               std::to_string(matrix.nonZeros()) + " nonzeros, but the analysed pattern is " +
               std::to_string(rows) + "x" + std::to_string(cols) + " with " +
               std::to_string(nonzeros) + " nonzeros (call analyze() when the pattern changes)";
    }
    return {};
}

const char* info_meaning(Eigen::ComputationInfo info) {
    switch (info) {
        case Eigen::Success: return "success";
        case Eigen::NumericalIssue: return "numerical issue (matrix singular or not of the "
                                           "required definiteness)";
        case Eigen::NoConvergence: return "iterative method did not converge";
        case Eigen::InvalidInput: return "invalid input (matrix or parameters)";
    }
    return "unknown Eigen status";
}

std::string rhs_mismatch(const VectorX& rhs, Index size, const char* solver_name) {
    if (size < 0) return std::string(solver_name) + ": solve() called before a successful factorize()";
    if (rhs.size() != size) {
        return std::string(solver_name) + ": right-hand side has " + std::to_string(rhs.size()) +
               " entries, the factorized matrix has " + std::to_string(size) + " rows";
    }
    return {};
}

}  // namespace soma::eigen_solvers
