#pragma once
// Test systems for the linear solvers: 3D Laplacians (SPD, condition number known in closed
// form), an upwind convection-diffusion operator (unsymmetric M-matrix) and a dense LU reference.

#include "soma/types.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <cmath>
#include <vector>

namespace soma::test_systems {

/// alpha * L + beta * I with L the 7-point Dirichlet Laplacian on an n^3 grid (6 on the diagonal,
/// -1 per neighbour), both triangles stored. The pattern does not depend on alpha, beta.
inline SparseMatrix laplacian_3d(int n, double alpha, double beta) {
    const int size = n * n * n;
    auto id = [n](int i, int j, int k) { return i + n * (j + n * k); };
    std::vector<Eigen::Triplet<double, Index>> t;
    t.reserve(7 * size);
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const int r = id(i, j, k);
                t.emplace_back(r, r, 6.0 * alpha + beta);
                if (i > 0) t.emplace_back(r, id(i - 1, j, k), -alpha);
                if (i + 1 < n) t.emplace_back(r, id(i + 1, j, k), -alpha);
                if (j > 0) t.emplace_back(r, id(i, j - 1, k), -alpha);
                if (j + 1 < n) t.emplace_back(r, id(i, j + 1, k), -alpha);
                if (k > 0) t.emplace_back(r, id(i, j, k - 1), -alpha);
                if (k + 1 < n) t.emplace_back(r, id(i, j, k + 1), -alpha);
            }
    SparseMatrix a(size, size);
    a.setFromTriplets(t.begin(), t.end());
    a.makeCompressed();
    return a;
}

/// 2-norm condition number of laplacian_3d(n, alpha, beta): the Laplacian's eigenvalues are
/// sum_d 2 (1 - cos(m_d pi / (n + 1))), m_d = 1..n.
inline double laplacian_3d_condition(int n, double alpha, double beta) {
    const double c = std::cos(M_PI / (n + 1));
    return (alpha * 6.0 * (1.0 + c) + beta) / (alpha * 6.0 * (1.0 - c) + beta);
}

/// laplacian_3d(n, 1, 0) plus an upwind convection term gamma * (u_i - u_{i-1}) along x:
/// unsymmetric, diagonally dominant (an M-matrix), so non-singular.
inline SparseMatrix convection_diffusion_3d(int n, double gamma) {
    SparseMatrix a = laplacian_3d(n, 1.0, 0.0);
    for (int col = 0; col < a.outerSize(); ++col)
        for (SparseMatrix::InnerIterator it(a, col); it; ++it) {
            if (it.row() == it.col()) it.valueRef() += gamma;
            // the x-predecessor of row r is r - 1 when r is not on the grid's low x face
            if (it.col() == it.row() - 1 && it.row() % n != 0) it.valueRef() -= gamma;
        }
    return a;
}

/// Same pattern, row and column `k` zeroed: singular (a DOF with no stiffness and no mass).
inline SparseMatrix with_zero_row_and_column(SparseMatrix a, Index k) {
    for (int col = 0; col < a.outerSize(); ++col)
        for (SparseMatrix::InnerIterator it(a, col); it; ++it)
            if (it.row() == k || it.col() == k) it.valueRef() = 0.0;
    return a;
}

/// A smooth, sign-changing manufactured solution.
inline VectorX manufactured_solution(Index size) {
    VectorX x(size);
    for (Index i = 0; i < size; ++i) x[i] = std::sin(0.37 * i) + 0.5 * std::cos(0.011 * i * i);
    return x;
}

/// Dense partial-pivoting LU reference solution; `rcond` receives LU's estimate of
/// 1 / cond_1(A).
inline VectorX dense_reference(const SparseMatrix& a, const VectorX& b, double* rcond = nullptr) {
    const Eigen::MatrixXd dense(a);
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(dense);
    if (rcond != nullptr) *rcond = lu.rcond();
    return lu.solve(b);
}

inline double relative_error(const VectorX& x, const VectorX& reference) {
    return (x - reference).norm() / reference.norm();
}

}  // namespace soma::test_systems
