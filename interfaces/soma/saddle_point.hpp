#pragma once
/// \file saddle_point.hpp
/// \brief Recognising the saddle-point (KKT) matrix of hard constraints when a factorization
/// fails, so that every solver's error says what it is and what to do.
///
/// A hard constraint (compliance 0) adds multiplier rows with a zero diagonal:
///
///     [[J, -G^T], [-G, 0]]
///
/// A factorization without pivoting (LDL^T, LL^T, ILU, incomplete Cholesky) divides by those
/// zeros whenever its ordering eliminates a multiplier before the DOFs it constrains. Scenes
/// pairing hard constraints with such a solver are refused when built (its capabilities lack
/// `saddle_point`, linear_solver.hpp); this helper covers a matrix that reaches one anyway (a
/// solver used directly, a third-party assembly). Header-only: every solver plugin shares it.

#include "soma/types.hpp"

#include <algorithm>
#include <string>

namespace soma {

/// \brief The first column whose diagonal entry is zero (or not stored) while another entry of
/// the column is not: a multiplier's column (-G^T) in a KKT matrix, rather than a DOF that is
/// simply absent (a zero row and column, plainly singular). -1 when there is none.
/// O(nnz): meant for the failure path, not for every factorization.
inline Index zero_diagonal_column(const SparseMatrix& matrix) {
    const Index n = static_cast<Index>(std::min(matrix.rows(), matrix.cols()));
    for (Index c = 0; c < n; ++c) {
        double diagonal = 0.0;
        bool coupled = false;
        for (SparseMatrix::InnerIterator it(matrix, c); it; ++it) {
            if (it.row() == c) diagonal = it.value();
            else if (it.value() != 0.0) coupled = true;
        }
        if (diagonal == 0.0 && coupled) return c;
    }
    return -1;
}

/// \brief Empty when \p matrix has no such column (zero_diagonal_column); otherwise a sentence (starting with
/// "; ") to append to a factorization error: the matrix looks like the saddle-point system of
/// hard constraints, which \p solver cannot factor, and the remedies.
inline std::string saddle_point_advice(const SparseMatrix& matrix, const std::string& solver) {
    const Index column = zero_diagonal_column(matrix);
    if (column < 0) return {};
    return "; the diagonal entry of column " + std::to_string(column) +
           " is zero: this looks like the saddle-point (KKT) matrix of hard constraints "
           "(compliance 0), which " + solver +
           " cannot factor without pivoting. Use a solver with the saddle_point capability "
           "(eigen_lu; or petsc with ksp_type gmres and pc_type none or jacobi), or give the "
           "constraints a compliance > 0 (the matrix is then quasi-definite and LDL^T works)";
}

}  // namespace soma
