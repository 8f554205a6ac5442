// Stretching spring: digest 000 §2.1 (paper eq. 9-10).
#include "stretching_spring.hpp"

namespace soma::rod {

double stretching_energy(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1) {
    const double strain = (x1 - x0).norm() / spring.rest_length - 1.0;
    return 0.5 * spring.stiffness * strain * strain * spring.rest_length;
}

namespace {

/// Edge length, tangent and strain of the spring (digest 000 §2.1), shared by both paths.
struct StretchKinematics {
    double length;
    Vec3 tangent;
    double strain;
};

StretchKinematics stretch_kinematics(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1) {
    const Vec3 e = x1 - x0;
    const double length = e.norm();
    return {length, e / length, length / spring.rest_length - 1.0};
}

/// dE/dx1 = -dE/dx0 = k_s eps t; returns the energy.
double stretch_gradient(const StretchingSpring& spring, const StretchKinematics& k, VecN<6>& gradient) {
    const double ks = spring.stiffness;
    const Vec3 force = ks * k.strain * k.tangent;  // dE/dx1
    gradient.head<3>() = -force;
    gradient.tail<3>() = force;
    return 0.5 * ks * k.strain * k.strain * spring.rest_length;
}

}  // namespace

double stretching_energy_gradient(const StretchingSpring& spring, const Vec3& x0, const Vec3& x1,
                                  VecN<6>& gradient) {
    return stretch_gradient(spring, stretch_kinematics(spring, x0, x1), gradient);
}

double stretching_energy_gradient_hessian(const StretchingSpring& spring, const Vec3& x0,
                                          const Vec3& x1, VecN<6>& gradient, MatN<6>& hessian) {
    const StretchKinematics k = stretch_kinematics(spring, x0, x1);
    const Vec3& t = k.tangent;
    // K = k_s [ (1/l - 1/|e|) I + t t^T / |e| ]  (the digest's e e^T/|e|^3 written with t).
    const Mat3 K = spring.stiffness * ((1.0 / spring.rest_length - 1.0 / k.length) * Mat3::Identity() +
                                       t.lazyProduct(t.transpose()) / k.length);
    hessian.topLeftCorner<3, 3>() = K;
    hessian.bottomRightCorner<3, 3>() = K;
    hessian.topRightCorner<3, 3>() = -K;
    hessian.bottomLeftCorner<3, 3>() = -K;
    return stretch_gradient(spring, k, gradient);
}

}  // namespace soma::rod
