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
