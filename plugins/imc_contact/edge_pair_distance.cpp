#include "edge_pair_distance.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace soma::imc_contact {

namespace {

/// Edges whose squared sine of angle is at most this are treated as parallel (header).
constexpr double kParallelSine2 = 1e-12;

double clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

EdgeEnd end_of(double parameter) {
    if (parameter <= 0.0) return EdgeEnd::first;
    if (parameter >= 1.0) return EdgeEnd::second;
    return EdgeEnd::free;
}

bool is_parallel(double d1, double d2, double r) { return d1 * d2 - r * r <= kParallelSine2 * d1 * d2; }

}  // namespace

ClosestPoints closest_points(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4) {
    // Lumelsky (MAT-DiSMech §4.1): minimise |x1 + t e1 - x3 - u e2| over the unit square.
    const Vec3 e1 = x2 - x1, e2 = x4 - x3, e12 = x3 - x1;
    const double d1 = e1.squaredNorm(), d2 = e2.squaredNorm(), r = e1.dot(e2);
    const double s1 = e1.dot(e12), s2 = e2.dot(e12);
    ClosestPoints c;
    double t = 0.0;
    if (d1 > 0.0 && d2 > 0.0 && !is_parallel(d1, d2, r)) t = clamp01((s1 * d2 - s2 * r) / (d1 * d2 - r * r));
    double u = d2 > 0.0 ? (t * r - s2) / d2 : 0.0;
    if (u < 0.0 || u > 1.0) {
        u = clamp01(u);
        t = d1 > 0.0 ? clamp01((u * r + s1) / d1) : 0.0;
    }
    c.t = t;
    c.u = u;
    c.distance = (t * e1 - u * e2 - e12).norm();
    c.contact_class = {end_of(t), end_of(u)};
    return c;
}

void edge_pair_distance(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4, EdgePairClass contact_class,
                        bool with_hessian, EdgePairDistance& out) {
    const Vec3 e1 = x2 - x1, e2 = x4 - x3, w = x1 - x3;
    const double a = e1.squaredNorm(), b = e1.dot(e2), c = e2.squaredNorm();
    const bool t_free = contact_class.edge1 == EdgeEnd::free;
    const bool u_free = contact_class.edge2 == EdgeEnd::free;

    // The class's parameters: ends held, free ones at the unconstrained optimum of
    // D = |w + t e1 - u e2|², whose stationarity is  a t - b u = -e1·w,  b t - c u = -e2·w.
    double t = t_free ? 0.0 : static_cast<double>(contact_class.edge1);
    double u = u_free ? 0.0 : static_cast<double>(contact_class.edge2);
    if (t_free && u_free) {
        const double det = b * b - a * c;  // -(|e1|²|e2|² - (e1·e2)²) = -|e1 x e2|²
        assert(det != 0.0);
        t = (c * e1.dot(w) - b * e2.dot(w)) / det;
        u = (b * e1.dot(w) - a * e2.dot(w)) / det;
    } else if (t_free) {
        t = (b * u - e1.dot(w)) / a;
    } else if (u_free) {
        u = (b * t + e2.dot(w)) / c;
    }
    out.t = t;
    out.u = u;

    const Vec3 r = w + t * e1 - u * e2;
    const double distance = r.norm();
    assert(distance > 0.0);
    out.distance = distance;
    const double alpha[4] = {1.0 - t, t, -(1.0 - u), -u};
    out.normal = r / distance;
    for (int k = 0; k < 4; ++k) out.gradient.segment<3>(3 * k) = alpha[k] * out.normal;  // ∇Δ = ∇D/(2Δ)
    if (!with_hessian) return;

    // ∇²D = 2 (α αᵀ ⊗ I) - G H⁻¹ Gᵀ over the free parameters (header).
    MatN<12> hessian_d = MatN<12>::Zero();
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) hessian_d.block<3, 3>(3 * i, 3 * j).diagonal().setConstant(2.0 * alpha[i] * alpha[j]);
    const double beta[4] = {-1.0, 1.0, 0.0, 0.0};
    const double gamma[4] = {0.0, 0.0, -1.0, 1.0};
    VecN<12> g_t, g_u;
    for (int k = 0; k < 4; ++k) {
        g_t.segment<3>(3 * k) = 2.0 * (alpha[k] * e1 + beta[k] * r);
        g_u.segment<3>(3 * k) = -2.0 * (alpha[k] * e2 + gamma[k] * r);
    }
    // ds/dx = -H⁻¹ Gᵀ, and G H⁻¹ Gᵀ = -G ds/dx.
    out.t_gradient.setZero();
    out.u_gradient.setZero();
    if (t_free && u_free) {
        // H = 2 [[a, -b], [-b, c]];  H⁻¹ = [[c, b], [b, a]] / (2 (a c - b²)).
        const double scale = 1.0 / (2.0 * (a * c - b * b));
        out.t_gradient = -scale * (c * g_t + b * g_u);
        out.u_gradient = -scale * (b * g_t + a * g_u);
    } else if (t_free) {
        out.t_gradient = -(0.5 / a) * g_t;
    } else if (u_free) {
        out.u_gradient = -(0.5 / c) * g_u;
    }
    hessian_d.noalias() += g_t * out.t_gradient.transpose();
    hessian_d.noalias() += g_u * out.u_gradient.transpose();
    out.hessian.noalias() = (0.5 / distance) * hessian_d - (1.0 / distance) * out.gradient * out.gradient.transpose();
}

}  // namespace soma::imc_contact
