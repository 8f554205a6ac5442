// Rod frames: MAT-DiSMech §3.2 (parallel transport, space/time-parallel frames, material frame)
// and eq. 15 (reference twist).
#include "rod_frames.hpp"

#include <Eigen/Geometry>

#include <cassert>
#include <cmath>
#include <numbers>

namespace soma::rod {

Vec3 parallel_transport(const Vec3& u, const Vec3& t1, const Vec3& t2) {
    // The rotation about b = t1 x t2 by the angle between the tangents, in Rodrigues' form
    // without normalising b (|b| = sin, c = cos):
    //     P(u) = c u + b x u + (b.u) b / (1 + c)
    // It is the reference code's (u.t1) t2 + (u.n1) n2 + (u.b^) b^ (same rotation), with no square root
    // and no special case for parallel tangents (b = 0 gives the identity exactly).
    const Vec3 b = t1.cross(t2);
    const double c = t1.dot(t2);
    if (1.0 + c > 1e-12) return c * u + b.cross(u) + (b.dot(u) / (1.0 + c)) * b;
    // (Nearly) antiparallel tangents: the transport is ill-defined (the reference code's formula,
    // kept for robustness; a rod edge never reverses within one Newton iterate in practice).
    const double b_norm = b.norm();
    if (b_norm < 1e-300) return u;
    const Vec3 bh = b / b_norm;
    return u.dot(t1) * t2 + u.dot(t1.cross(bh)) * t2.cross(bh) + u.dot(bh) * bh;
}

double signed_angle(const Vec3& u, const Vec3& v, const Vec3& n) {
    return std::atan2(n.dot(u.cross(v)), u.dot(v));
}

Vec3 rotate_about_axis(const Vec3& v, const Vec3& z, double phi) {
    const double c = std::cos(phi);
    const double s = std::sin(phi);
    return c * v + s * z.cross(v) + z.dot(v) * (1.0 - c) * z;
}

Vec3 default_first_director(const Vec3& t0) {
    Vec3 first = t0.cross(Vec3(0.0, 1.0, 0.0));
    if (first.norm() < 1e-6) first = t0.cross(Vec3(0.0, 0.0, -1.0));
    return first.normalized();
}

void space_parallel_frames(std::span<const Vec3> tangents, std::span<Vec3> a1) {
    if (tangents.empty()) return;
    space_parallel_frames(tangents, a1, default_first_director(tangents[0]));
}

void space_parallel_frames(std::span<const Vec3> tangents, std::span<Vec3> a1, const Vec3& first) {
    assert(tangents.size() == a1.size());
    if (tangents.empty()) return;
    a1[0] = (first - first.dot(tangents[0]) * tangents[0]).normalized();
    for (std::size_t c = 1; c < tangents.size(); ++c)
        a1[c] = time_parallel_transport(a1[c - 1], tangents[c - 1], tangents[c]);
}

Vec3 time_parallel_transport(const Vec3& a1_old, const Vec3& t_old, const Vec3& t_new) {
    Vec3 a1 = parallel_transport(a1_old, t_old, t_new);
    a1 -= a1.dot(t_new) * t_new;
    return a1.normalized();
}

double reference_twist(const Vec3& a1_e, const Vec3& t_e, const Vec3& a1_f, const Vec3& t_f,
                       double previous) {
    // MAT-DiSMech's reference code: u = Rot(t_f, previous) P(a1_e); twist = previous + angle(u, a1_f; t_f). Turning u
    // by `previous` lowers its angle to a1_f by `previous`, modulo 2 pi, so this equals
    //     previous + remainder(angle(P(a1_e), a1_f; t_f) - previous, 2 pi),
    // computed here without the rotation's sine and cosine.
    const Vec3 u = parallel_transport(a1_e, t_e, t_f);
    const double raw = signed_angle(u, a1_f, t_f);
    return previous + std::remainder(raw - previous, 2.0 * std::numbers::pi);
}

void material_frame(const Vec3& a1, const Vec3& a2, double theta, Vec3& m1, Vec3& m2) {
    const double c = std::cos(theta);
    const double s = std::sin(theta);
    m1 = c * a1 + s * a2;
    m2 = -s * a1 + c * a2;
}

}  // namespace soma::rod
