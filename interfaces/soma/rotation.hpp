#pragma once
/// \file rotation.hpp
/// \brief Rotations as unit quaternions and rotation vectors: the exponential and logarithm of
/// SO(3) and the right Jacobian of the exponential, with small-angle series where the closed
/// forms lose precision.
///
/// Conventions (ArtiSynth technical notes, section 0.2): a unit quaternion (w, x, y, z) rotates
/// by theta about u as (cos(theta/2), sin(theta/2) u). A body angular velocity omega (in body
/// coordinates) moves R by dR/dt = R [omega]; one step of a body rotation vector phi is
/// R_next = R exp([phi]). The right Jacobian Jr(phi) is defined by
/// exp([phi + dphi]) = exp([phi]) exp([Jr(phi) dphi]) to first order.

#include "soma/types.hpp"

#include <Eigen/Geometry>

#include <cmath>

namespace soma {

using Quaternion = Eigen::Quaterniond;

/// [a]: the cross-product matrix, [a] b = a x b.
inline Mat3 skew(const Vec3& a) {
    // Entry by entry: GCC leaves Eigen's comma initializer out of line in hot loops (7% of a GVS
    // step, measured with perf).
    Mat3 m;
    m(0, 0) = 0.0;
    m(1, 0) = a.z();
    m(2, 0) = -a.y();
    m(0, 1) = -a.z();
    m(1, 1) = 0.0;
    m(2, 1) = a.x();
    m(0, 2) = a.y();
    m(1, 2) = -a.x();
    m(2, 2) = 0.0;
    return m;
}

/// exp([phi]) as a unit quaternion.
inline Quaternion rotation_exp(const Vec3& phi) {
    const double theta = phi.norm();
    // sin(theta/2)/theta = 1/2 - theta^2/48 + theta^4/3840: the series is exact to round-off below 1e-4.
    const double s = theta < 1e-4 ? 0.5 - theta * theta / 48.0 : std::sin(0.5 * theta) / theta;
    return Quaternion(std::cos(0.5 * theta), s * phi.x(), s * phi.y(), s * phi.z());
}

/// The rotation vector phi with exp([phi]) = q, |phi| <= pi (q and -q give the same phi).
inline Vec3 rotation_log(const Quaternion& q) {
    const double sign = q.w() < 0.0 ? -1.0 : 1.0;
    const Vec3 v = sign * q.vec();
    const double w = sign * q.w();
    const double s = v.norm();
    // phi = 2 atan2(s, w) v / s; near s = 0 the factor tends to 2/w (1 + ...): use the series of
    // atan(s/w)/s to keep full precision for tiny rotations.
    if (s < 1e-8) return (2.0 / w) * (1.0 - s * s / (3.0 * w * w)) * v;
    return (2.0 * std::atan2(s, w) / s) * v;
}

/// Jr(phi) = I - (1 - cos t)/t^2 [phi] + (t - sin t)/t^3 [phi]^2, t = |phi|.
inline Mat3 right_jacobian(const Vec3& phi) {
    const double t2 = phi.squaredNorm();
    const Mat3 k = skew(phi);
    double a, b;
    if (t2 < 1e-8) {  // series: a = 1/2 - t^2/24, b = 1/6 - t^2/120, error O(t^4) < 1e-17
        a = 0.5 - t2 / 24.0;
        b = 1.0 / 6.0 - t2 / 120.0;
    } else {
        const double t = std::sqrt(t2);
        a = (1.0 - std::cos(t)) / t2;
        b = (t - std::sin(t)) / (t2 * t);
    }
    return Mat3::Identity() - a * k + b * k * k;
}

/// Jr(phi)^{-1} = I + [phi]/2 + (1/t^2 - (1 + cos t)/(2 t sin t)) [phi]^2.
inline Mat3 right_jacobian_inverse(const Vec3& phi) {
    const double t2 = phi.squaredNorm();
    const Mat3 k = skew(phi);
    double c;
    if (t2 < 1e-8) {
        c = 1.0 / 12.0 + t2 / 720.0;
    } else {
        const double t = std::sqrt(t2);
        c = 1.0 / t2 - (1.0 + std::cos(t)) / (2.0 * t * std::sin(t));
    }
    return Mat3::Identity() + 0.5 * k + c * k * k;
}

}  // namespace soma
