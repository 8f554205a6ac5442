// Stretching spring: digest 000 §2.1 (paper eq. 9-10).
#include "stretching_spring.hpp"

namespace soma::rod {

double stretching_energy(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1) {
    const double strain = (x1 - x0).norm() / spring.rest_length - 1.0;
    return 0.5 * spring.stiffness * strain * strain * spring.rest_length;
}

double stretching_energy_gradient_hessian(const StretchingSpring& spring, const Vec3& x0,
                                          const Vec3& x1, VecN<6>& gradient, MatN<6>& hessian) {
    const Vec3 e = x1 - x0;
    const double length = e.norm();
    const Vec3 t = e / length;
    const double strain = length / spring.rest_length - 1.0;
    const double ks = spring.stiffness;

    const Vec3 force = ks * strain * t;  // dE/dx1
    gradient.head<3>() = -force;
    gradient.tail<3>() = force;

    // K = k_s [ (1/l - 1/|e|) I + t t^T / |e| ]  (the digest's e e^T/|e|^3 written with t).
    const Mat3 K = ks * ((1.0 / spring.rest_length - 1.0 / length) * Mat3::Identity() +
                         (t * t.transpose()) / length);
    hessian.topLeftCorner<3, 3>() = K;
    hessian.bottomRightCorner<3, 3>() = K;
    hessian.topRightCorner<3, 3>() = -K;
    hessian.bottomLeftCorner<3, 3>() = -K;
    return 0.5 * ks * strain * strain * spring.rest_length;
}

}  // namespace soma::rod
