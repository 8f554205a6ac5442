#pragma once
/// \file conjugate_residual.hpp
/// \brief The Jacobi-preconditioned conjugate residual method (PCR) for the Newton systems of the
/// non-smooth Newton method (Macklin et al. 2019, §8.2), and preconditioned conjugate gradients
/// (PCG) on the same interface for comparison.
///
/// Both solve A x = b for a symmetric positive (semi-)definite A given as an operator, with the
/// preconditioner P = diag(A)^-1 given as the vector of inverse diagonal entries. With
/// P = L L^T, PCR is CR on L^T A L, so over the Krylov space K_k (eq. 69) it minimises the
/// residual in the P-norm, ||r||_P = sqrt(r^T P r), r = b - A x: that norm never increases from
/// one iteration to the next, and an early stop always returns the best iterate so far. PCG
/// minimises the A-norm of the error instead, and its residual can rise (Figs. 11 and 18).
/// This is why the paper runs a fixed, small number of PCR iterations per Newton step, and why
/// it converged on the nearly singular contact systems where CG and Cholesky may fail (§8.2).
///
/// PCR, textbook recurrence (q = A p and z = P r are kept up to date; one A product, one P
/// application and three dot products per iteration, r^T z being the P-norm):
///
///     r = b - A x;  z = P r;  p = z;  w = A z;  q = w;  rho = z.w
///     repeat:  y = P q;  alpha = rho / (q.y)
///              x += alpha p;  r -= alpha q;  z -= alpha y
///              w = A z;  rho' = z.w;  beta = rho' / rho;  rho = rho'
///              p = z + beta p;  q = w + beta q
///
/// Every vector lives in a KrylovWorkspace: repeated solves of one size allocate nothing.

#include "soma/types.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace soma::ncp {

/// When a Krylov solve stops.
struct KrylovOptions {
    int max_iterations = 20;           ///< the paper uses 10 to 80 per Newton step (Table 2)
    double relative_tolerance = 1e-10; ///< stop at ||r||_P <= relative_tolerance ||r_0||_P ...
    double absolute_tolerance = 0.0;   ///< ... or at ||r||_P <= absolute_tolerance, whichever is larger
    /// When non-null, ||r||_P is pushed at the start and after every iteration. It allocates: for
    /// tests and diagnostics only, never inside a time step.
    std::vector<double>* residual_history = nullptr;
};

/// What a Krylov solve did. Residuals are in the P-norm sqrt(r^T P r), P = diag(A)^-1.
struct KrylovReport {
    int iterations = 0;            ///< iterations taken (A products after the initial ones)
    double initial_residual = 0.0; ///< ||b - A x_0||_P
    double residual = 0.0;         ///< ||b - A x||_P at return (from the recurrence)
    bool converged = false;        ///< residual at tolerance (false at max_iterations or breakdown)
};

/// The vectors of a Krylov solve, kept between calls (resized only when the size changes).
struct KrylovWorkspace {
    VectorX r;  ///< residual b - A x
    VectorX z;  ///< preconditioned residual P r
    VectorX p;  ///< search direction
    VectorX w;  ///< A z (PCR)
    VectorX q;  ///< A p
    VectorX y;  ///< P q (PCR)

    /// \brief Sizes every vector to \p n; a no-op (no allocation) when they have that size.
    void resize(Eigen::Index n) {
        for (VectorX* v : {&r, &z, &p, &w, &q, &y})
            if (v->size() != n) v->resize(n);
    }
};

namespace detail {

/// sqrt(r^T z) for z = P r (clamped at 0 against round-off).
inline double preconditioned_norm(const VectorX& r, const VectorX& z) { return std::sqrt(std::max(r.dot(z), 0.0)); }

/// The stopping threshold of \p options for an initial residual \p initial.
inline double stopping_threshold(const KrylovOptions& options, double initial) {
    return std::max(options.relative_tolerance * initial, options.absolute_tolerance);
}

/// The start both methods share: r = b - A x0 and z = P r (q is scratch for A x0), the initial
/// P-norm residual into \p report and the history; true when x0 already meets the tolerance.
template <class Apply>
bool start_iteration(const Apply& apply, const VectorX& inverse_diagonal, const VectorX& rhs, const VectorX& x,
                     KrylovWorkspace& work, const KrylovOptions& options, KrylovReport& report, double& threshold) {
    apply(x, work.q);
    work.r = rhs - work.q;
    work.z = inverse_diagonal.cwiseProduct(work.r);
    report.initial_residual = report.residual = preconditioned_norm(work.r, work.z);
    if (options.residual_history) options.residual_history->push_back(report.residual);
    threshold = stopping_threshold(options, report.initial_residual);
    report.converged = report.residual <= threshold;
    return report.converged;
}

}  // namespace detail

/// \brief Solves A x = b by the Jacobi-preconditioned conjugate residual method (§8.2).
///
/// Stops when ||r||_P <= max(relative_tolerance ||r_0||_P, absolute_tolerance) or after
/// max_iterations. A breakdown (q^T P q = 0: the direction is in the null space of A or is 0;
/// rho = z^T A z = 0: no progress possible along z; or a non-finite step) stops the solve with x
/// the last iterate, reported converged only if the residual is already at tolerance.
///
/// \param[in] apply callable apply(const VectorX& in, VectorX& out) setting out = A in; out has
///            the size of in on entry, and in and out never alias
/// \param[in] inverse_diagonal P = diag(A)^-1 as a vector, every entry > 0
/// \param[in] rhs b
/// \param[in,out] x the initial guess on entry (size of b), the solution on return
/// \param[in,out] work buffers, sized here
/// \param[in] options tolerances, iteration limit, optional residual history
template <class Apply>
KrylovReport conjugate_residual(const Apply& apply, const VectorX& inverse_diagonal, const VectorX& rhs,
                                VectorX& x, KrylovWorkspace& work, const KrylovOptions& options) {
    assert(inverse_diagonal.size() == rhs.size() && x.size() == rhs.size());
    work.resize(rhs.size());
    VectorX& r = work.r; VectorX& z = work.z; VectorX& p = work.p;
    VectorX& w = work.w; VectorX& q = work.q; VectorX& y = work.y;

    KrylovReport report;
    double threshold = 0.0;
    if (detail::start_iteration(apply, inverse_diagonal, rhs, x, work, options, report, threshold)) return report;
    p = z;
    apply(z, w);
    q = w;
    double rho = z.dot(w);
    while (report.iterations < options.max_iterations) {
        y = inverse_diagonal.cwiseProduct(q);
        const double qy = q.dot(y);
        if (!(qy > 0.0) || rho == 0.0) break;
        const double alpha = rho / qy;
        if (!std::isfinite(alpha)) break;
        x += alpha * p;
        r -= alpha * q;
        z -= alpha * y;
        ++report.iterations;
        report.residual = detail::preconditioned_norm(r, z);
        if (options.residual_history) options.residual_history->push_back(report.residual);
        if (report.residual <= threshold) break;
        apply(z, w);
        const double rho_next = z.dot(w);
        const double beta = rho_next / rho;
        rho = rho_next;
        p = z + beta * p;
        q = w + beta * q;
    }
    report.converged = report.residual <= threshold;
    return report;
}

/// \brief Solves A x = b by Jacobi-preconditioned conjugate gradients, with the interface, the
/// stopping rule, the breakdown handling (p^T A p <= 0, or a non-finite step) and the P-norm
/// residual of conjugate_residual(); for comparison with it (Figs. 11 and 18 of the paper).
template <class Apply>
KrylovReport preconditioned_conjugate_gradient(const Apply& apply, const VectorX& inverse_diagonal,
                                               const VectorX& rhs, VectorX& x, KrylovWorkspace& work,
                                               const KrylovOptions& options) {
    assert(inverse_diagonal.size() == rhs.size() && x.size() == rhs.size());
    work.resize(rhs.size());
    VectorX& r = work.r; VectorX& z = work.z; VectorX& p = work.p; VectorX& q = work.q;

    KrylovReport report;
    double threshold = 0.0;
    if (detail::start_iteration(apply, inverse_diagonal, rhs, x, work, options, report, threshold)) return report;
    double rho = r.dot(z);
    p = z;
    while (report.iterations < options.max_iterations) {
        apply(p, q);
        const double pq = p.dot(q);
        if (!(pq > 0.0)) break;
        const double alpha = rho / pq;
        if (!std::isfinite(alpha)) break;
        x += alpha * p;
        r -= alpha * q;
        z = inverse_diagonal.cwiseProduct(r);
        ++report.iterations;
        const double rho_next = r.dot(z);
        report.residual = std::sqrt(std::max(rho_next, 0.0));
        if (options.residual_history) options.residual_history->push_back(report.residual);
        if (report.residual <= threshold) break;
        p = z + (rho_next / rho) * p;  // rho > 0: the last residual was above the threshold
        rho = rho_next;
    }
    report.converged = report.residual <= threshold;
    return report;
}

}  // namespace soma::ncp
