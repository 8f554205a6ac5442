#include "edge_pair_distance.hpp"

#include <Eigen/Geometry>

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

void parallel_mollifier(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4, double epsilon,
                        ParallelMollifier& out) {
    const Vec3 e1 = x2 - x1, e2 = x4 - x3;
    const Vec3 cross = e1.cross(e2);
    const double c = cross.squaredNorm();
    out.gradient.setZero();
    out.hessian.setZero();
    if (c >= epsilon) {
        out.value = 1.0;
        return;
    }
    out.value = (-c / epsilon + 2.0) * c / epsilon;
    const double dm = 2.0 / epsilon - 2.0 * c / (epsilon * epsilon), d2m = -2.0 / (epsilon * epsilon);
    // c = |e1 x e2|²: ∂c/∂e1 = 2 e2 x (e1 x e2), ∂c/∂e2 = 2 (e1 x e2) x e1; with s = e1 x e2,
    // ∂s/∂e1 = -[e2]x, ∂s/∂e2 = [e1]x, and ∂²s_i/∂e1_j∂e2_k = ε_ijk:
    // ∂²c/∂e1² = 2 [e2]xᵀ[e2]x, ∂²c/∂e2² = 2 [e1]xᵀ[e1]x, ∂²c/∂e1∂e2 = -2 [e2]xᵀ[e1]x - 2 [s]x.
    const auto skew = [](const Vec3& v) {
        Mat3 m;
        m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
        return m;
    };
    const Mat3 s1 = skew(e1), s2 = skew(e2);
    const Vec3 dc_de1 = 2.0 * e2.cross(cross), dc_de2 = 2.0 * cross.cross(e1);
    const Mat3 h11 = 2.0 * s2.transpose() * s2, h22 = 2.0 * s1.transpose() * s1;
    const Mat3 h12 = -2.0 * s2.transpose() * s1 - 2.0 * skew(cross);
    // e1 = x2 - x1, e2 = x4 - x3: node signs (-1, +1) for each edge.
    VecN<12> dc;
    dc << -dc_de1, dc_de1, -dc_de2, dc_de2;
    MatN<12> d2c;
    const double sign[2] = {-1.0, 1.0};
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            const double ab = sign[a] * sign[b];
            d2c.block<3, 3>(3 * a, 3 * b) = ab * h11;
            d2c.block<3, 3>(6 + 3 * a, 6 + 3 * b) = ab * h22;
            d2c.block<3, 3>(3 * a, 6 + 3 * b) = ab * h12;
            d2c.block<3, 3>(6 + 3 * b, 3 * a) = ab * h12.transpose();
        }
    out.gradient = dm * dc;
    out.hessian = dm * d2c + d2m * dc * dc.transpose();
}

PairClassMap<4> edge_pair_class_map(EdgePairClass contact_class) {
    // α = (1 - t, t, -(1 - u), -u): a held parameter enters α⁰, a free one a direction.
    PairClassMap<4> map;
    const double t = contact_class.edge1 == EdgeEnd::free ? 0.0 : static_cast<double>(contact_class.edge1);
    const double u = contact_class.edge2 == EdgeEnd::free ? 0.0 : static_cast<double>(contact_class.edge2);
    map.base << 1.0 - t, t, -(1.0 - u), -u;
    if (contact_class.edge1 == EdgeEnd::free) map.directions.col(map.free_count++) << -1.0, 1.0, 0.0, 0.0;
    if (contact_class.edge2 == EdgeEnd::free) map.directions.col(map.free_count++) << 0.0, 0.0, 1.0, -1.0;
    return map;
}

}  // namespace soma::imc_contact
