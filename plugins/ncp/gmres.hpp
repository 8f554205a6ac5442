#pragma once
/// \file gmres.hpp
/// \brief GMRES (Saad and Schultz 1986) for the unsymmetric Newton systems of the non-smooth
/// Newton method: with the exact friction Jacobian (ncp_newton's `friction_jacobian: exact`) the
/// Schur complement is not symmetric, which the conjugate residual method (conjugate_residual.hpp)
/// assumes.
///
/// The Jacobi preconditioner P = diag(A)^-1 is applied on both sides, B = P^1/2 A P^1/2, so that,
/// as PCR, it minimises the residual in the P-norm ||r||_P = ||P^1/2 (b - A x)||_2 over the Krylov
/// space, which never increases from one iteration to the next: an early stop returns the best
/// iterate so far. Arnoldi with modified Gram-Schmidt builds an orthonormal basis V of the Krylov
/// space and the Hessenberg matrix H (B V_k = V_{k+1} H_k); Givens rotations reduce H to upper
/// triangular form as it grows, so the residual's norm after k iterations is the last entry of the
/// rotated right-hand side, |g_k|, without forming x. No restarts: max_iterations is the basis'
/// size (the Newton step's budget of operator products, as for PCR).
///
/// Every buffer lives in a GmresWorkspace: repeated solves of one size allocate nothing.

#include "conjugate_residual.hpp"

#include <Eigen/Dense>

#include <cassert>
#include <cmath>

namespace soma::ncp {

/// The buffers of a GMRES solve, kept between calls (resized only when a size changes).
struct GmresWorkspace {
    Eigen::MatrixXd basis;      ///< V: n x (m + 1)
    Eigen::MatrixXd hessenberg; ///< H: (m + 1) x m, rotated to upper triangular as it grows
    VectorX cosines, sines, rotated_rhs, coefficients, scale, w, product;

    void resize(Eigen::Index n, int m) {
        if (basis.rows() != n || basis.cols() != m + 1) basis.resize(n, m + 1);
        if (hessenberg.rows() != m + 1 || hessenberg.cols() != m) hessenberg.resize(m + 1, m);
        for (VectorX* v : {&cosines, &sines, &coefficients})
            if (v->size() != m) v->resize(m);
        if (rotated_rhs.size() != m + 1) rotated_rhs.resize(m + 1);
        for (VectorX* v : {&scale, &w, &product})
            if (v->size() != n) v->resize(n);
    }
};

/// \brief Solves A x = b by GMRES, Jacobi-preconditioned on both sides (the P-norm of PCR).
///
/// Stops when ||r||_P <= max(relative_tolerance ||r_0||_P, absolute_tolerance), after
/// max_iterations, or at a breakdown (the Krylov space stops growing: then x solves the system
/// in it exactly). \p apply, \p inverse_diagonal, \p rhs and \p x as for conjugate_residual.
template <class Apply>
KrylovReport gmres(const Apply& apply, const VectorX& inverse_diagonal, const VectorX& rhs, VectorX& x,
                   GmresWorkspace& work, const KrylovOptions& options) {
    assert(inverse_diagonal.size() == rhs.size() && x.size() == rhs.size());
    const Eigen::Index n = rhs.size();
    const int m = std::max(options.max_iterations, 1);
    work.resize(n, m);
    work.scale = inverse_diagonal.cwiseSqrt();  // P^1/2

    KrylovReport report;
    apply(x, work.product);
    work.w = work.scale.cwiseProduct(rhs - work.product);  // P^1/2 r_0
    const double beta = work.w.norm();
    report.initial_residual = report.residual = beta;
    if (options.residual_history) options.residual_history->push_back(beta);
    const double threshold = detail::stopping_threshold(options, beta);
    if (beta <= threshold || !(beta > 0.0)) {
        report.converged = beta <= threshold;
        return report;
    }
    work.basis.col(0) = work.w / beta;
    work.rotated_rhs.setZero();
    work.rotated_rhs[0] = beta;
    int k = 0;  // basis vectors used in the solution
    while (k < m) {
        // w = P^1/2 A P^1/2 v_k, orthogonalised against v_0 .. v_k (modified Gram-Schmidt).
        work.w = work.scale.cwiseProduct(work.basis.col(k));
        apply(work.w, work.product);
        work.w = work.scale.cwiseProduct(work.product);
        for (int i = 0; i <= k; ++i) {
            const double h = work.w.dot(work.basis.col(i));
            work.hessenberg(i, k) = h;
            work.w -= h * work.basis.col(i);
        }
        const double next = work.w.norm();
        // The earlier rotations on column k, then the one that zeroes its subdiagonal entry.
        for (int i = 0; i < k; ++i) {
            const double a = work.hessenberg(i, k), b = work.hessenberg(i + 1, k);
            work.hessenberg(i, k) = work.cosines[i] * a + work.sines[i] * b;
            work.hessenberg(i + 1, k) = -work.sines[i] * a + work.cosines[i] * b;
        }
        const double diagonal = work.hessenberg(k, k);
        const double radius = std::hypot(diagonal, next);
        if (!(radius > 0.0) || !std::isfinite(radius)) break;  // A P^1/2 v_k = 0: no progress possible
        work.cosines[k] = diagonal / radius;
        work.sines[k] = next / radius;
        work.hessenberg(k, k) = radius;
        work.rotated_rhs[k + 1] = -work.sines[k] * work.rotated_rhs[k];
        work.rotated_rhs[k] *= work.cosines[k];
        ++k;
        report.iterations = k;
        report.residual = std::abs(work.rotated_rhs[k]);
        if (options.residual_history) options.residual_history->push_back(report.residual);
        if (report.residual <= threshold || next == 0.0 || k == m) break;
        work.basis.col(k) = work.w / next;
    }
    if (k > 0) {
        // y = H_k^-1 g_k (upper triangular), x += P^1/2 V_k y.
        auto coefficients = work.coefficients.head(k);
        coefficients = work.rotated_rhs.head(k);
        work.hessenberg.topLeftCorner(k, k).triangularView<Eigen::Upper>().solveInPlace(coefficients);
        work.w.noalias() = work.basis.leftCols(k) * coefficients;
        x += work.scale.cwiseProduct(work.w);
    }
    report.converged = report.residual <= threshold;
    return report;
}

}  // namespace soma::ncp
