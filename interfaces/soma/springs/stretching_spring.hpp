#pragma once
/// \file springs/stretching_spring.hpp
/// \brief The stretching spring between two points (MAT-DiSMech §3.1, eq. 9-10), shared by
/// rod edges and shell edges.
///
///     eps = |e| / |e_bar| - 1,   E = 1/2 k_s eps^2 |e_bar|,   e = x1 - x0
///     dE/dx1 = -dE/dx0 = k_s eps t,   t = e/|e|
///     d2E/dx_a dx_b = +/- K,   K = k_s [ (1/|e_bar| - 1/|e|) I + t t^T / |e| ]
///
/// The stiffness k_s is the element's: E A for a rod edge, a lattice value for a shell edge.

#include "soma/types.hpp"

namespace soma::springs {

struct StretchingSpring {
    double rest_length = 1.0;  ///< |e_bar| (m)
    double stiffness = 0.0;    ///< k_s (N)
};

/// \brief Energy of the spring between x0 and x1.
inline double stretching_energy(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1) {
    const double strain = (x1 - x0).norm() / spring.rest_length - 1.0;
    return 0.5 * spring.stiffness * strain * strain * spring.rest_length;
}

/// \brief Energy and gradient over [x0, x1] (for residual-only evaluations).
inline double stretching_energy_gradient(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1,
                                         VecN<6>& gradient) {
    const Vec3 e = x1 - x0;
    const double length = e.norm();
    const double strain = length / spring.rest_length - 1.0;
    const Vec3 force = spring.stiffness * strain / length * e;  // dE/dx1
    gradient.head<3>() = -force;
    gradient.tail<3>() = force;
    return 0.5 * spring.stiffness * strain * strain * spring.rest_length;
}

/// \brief Energy, gradient and Hessian over [x0, x1].
inline double stretching_energy_gradient_hessian(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1,
                                                 VecN<6>& gradient, MatN<6>& hessian) {
    const Vec3 e = x1 - x0;
    const double length = e.norm();
    const Vec3 t = e / length;
    const Mat3 K = spring.stiffness * ((1.0 / spring.rest_length - 1.0 / length) * Mat3::Identity() +
                                       t.lazyProduct(t.transpose()) / length);
    hessian.topLeftCorner<3, 3>() = K;
    hessian.bottomRightCorner<3, 3>() = K;
    hessian.topRightCorner<3, 3>() = -K;
    hessian.bottomLeftCorner<3, 3>() = -K;
    return stretching_energy_gradient(spring, x0, x1, gradient);
}

}  // namespace soma::springs
