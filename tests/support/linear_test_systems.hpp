#pragma once
// Test systems for the linear solvers: 3D Laplacians (SPD, condition number known in closed
// form), an upwind convection-diffusion operator (unsymmetric M-matrix) and a dense LU reference.

#include "soma/types.hpp"

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <utility>
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

using DofPair = std::pair<Index, Index>;

/// laplacian_3d(n, 1, 0.1) plus springs k (u_i - u_j)^2 / 2 between the far-apart unknowns of
/// `pairs`: every pair's four entries are stored, with stiffness k when the pair is in `active`
/// and as explicit zeros otherwise (the kernel keeps a vanished stencil's entries that way).
inline SparseMatrix laplacian_with_springs(int n, const std::vector<DofPair>& pairs,
                                           const std::vector<DofPair>& active, double k) {
    const SparseMatrix base = laplacian_3d(n, 1.0, 0.1);
    std::vector<Eigen::Triplet<double, Index>> t;
    for (int col = 0; col < base.outerSize(); ++col)
        for (SparseMatrix::InnerIterator it(base, col); it; ++it) t.emplace_back(it.row(), it.col(), it.value());
    for (const auto& [i, j] : pairs) {
        const bool on = std::find(active.begin(), active.end(), DofPair{i, j}) != active.end();
        const double value = on ? k : 0.0;
        t.emplace_back(i, i, value);
        t.emplace_back(j, j, value);
        t.emplace_back(i, j, -value);
        t.emplace_back(j, i, -value);
    }
    SparseMatrix a(base.rows(), base.cols());
    a.setFromTriplets(t.begin(), t.end());  // sums duplicates and keeps explicit zeros
    a.makeCompressed();
    return a;
}

/// One factorization of a pattern that changes as the kernel's does (contact springs appear and
/// vanish; the pattern is a union that grows; analysis only when it grew).
struct PatternStage {
    SparseMatrix matrix;
    bool new_pattern = false;  ///< analyze(matrix) before factorizing
    VectorX rhs;
    VectorX reference;
    double kappa = 0.0;  ///< bound on the 2-norm condition number
};

/// The stages: springs A and B on (analysed); A vanished (zeros, same pattern); both vanished;
/// the pattern grown by a new spring C with only C on (analysed again); back to A alone on the
/// grown pattern. The springs (k = 1) share no unknown, so they raise the Laplacian's largest
/// eigenvalue by at most 2k and do not lower its smallest: kappa <= (lambda_max + 2) / lambda_min.
inline std::vector<PatternStage> growing_pattern_stages(int n) {
    const Index last = n * n * n - 1;
    const DofPair a{0, last}, b{1, last / 2}, c{2, last - 1};
    const double cosine = std::cos(M_PI / (n + 1));
    const double kappa = (6.0 * (1.0 + cosine) + 0.1 + 2.0) / (6.0 * (1.0 - cosine) + 0.1);
    const std::vector<std::pair<std::vector<DofPair>, std::vector<DofPair>>> patterns_and_springs{
        {{a, b}, {a, b}}, {{a, b}, {b}}, {{a, b}, {}}, {{a, b, c}, {c}}, {{a, b, c}, {a}}};
    std::vector<PatternStage> stages;
    for (std::size_t s = 0; s < patterns_and_springs.size(); ++s) {
        PatternStage stage;
        stage.matrix = laplacian_with_springs(n, patterns_and_springs[s].first, patterns_and_springs[s].second, 1.0);
        stage.new_pattern = s == 0 || patterns_and_springs[s].first != patterns_and_springs[s - 1].first;
        // The manufactured solution is the reference: a backward-stable solve of A x = A x* is
        // within a small multiple of kappa * eps of x* (the rounding of A x* included), the bound
        // the tests allow; a dense LU of each stage would only add its own kappa * eps error.
        stage.reference = manufactured_solution(stage.matrix.rows());
        stage.rhs = stage.matrix * stage.reference;
        stage.kappa = kappa;
        stages.push_back(std::move(stage));
    }
    return stages;
}

}  // namespace soma::test_systems
