#pragma once
/// \file solver_common.hpp
/// \brief Bookkeeping shared by the Eigen-backed solvers: the analysed pattern's shape and the
/// meaning of Eigen's ComputationInfo codes.

#include "soma/types.hpp"

#include <Eigen/Core>

#include <string>

namespace soma::eigen_solvers {

/// \brief The shape of the pattern passed to analyze(), kept to refuse a factorize() on a matrix
/// of another pattern (that would read the symbolic factorization out of bounds).
///
/// Only rows, columns and the nonzero count are compared: an O(1) check. A full index comparison
/// would cost O(nnz) per Newton iteration for a mistake the kernel's cached pattern rules out.
struct AnalyzedShape {
    Index rows = -1;
    Index cols = -1;
    Index nonzeros = -1;

    /// \brief Remembers the shape of \p pattern.
    void remember(const SparseMatrix& pattern);
    /// \brief True once remember() has been called.
    bool analyzed() const { return rows >= 0; }
    /// \brief Empty when \p matrix has the remembered shape, otherwise why it does not (the text
    /// names \p solver_name, e.g. "eigen_ldlt").
    std::string mismatch(const SparseMatrix& matrix, const char* solver_name) const;
};

/// \brief What an Eigen ComputationInfo code means, in words.
const char* info_meaning(Eigen::ComputationInfo info);

/// \brief Shape checks common to solve(): right-hand side size versus the factorized size.
/// Empty when fine.
std::string rhs_mismatch(const VectorX& rhs, Index size, const char* solver_name);

}  // namespace soma::eigen_solvers
