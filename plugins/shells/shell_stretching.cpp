// Shell in-plane stretching: one axial spring per mesh edge (digest 000 §2.0, §2.1, erratum §9.2).
#include "shell_stretching.hpp"

#include <cmath>
#include <stdexcept>

namespace soma::shells {

double shell_stretching_stiffness(StretchingMode mode, double youngs_modulus, double poisson_ratio,
                                  double thickness, double rest_length) {
    switch (mode) {
        case StretchingMode::hinge:
            // (sqrt(3)/2) E h l_bar: the reference code's value, twice the paper's sqrt(3)/4; it is
            // the triangular spring-lattice result (digest §2.1 [D], erratum §9.2).
            return 0.5 * std::sqrt(3.0) * youngs_modulus * thickness * rest_length;
        case StretchingMode::midedge:
            if (!(poisson_ratio < 1.0))
                throw std::invalid_argument("mid-edge shell stretching needs poisson_ratio < 1");
            // 2 E h l_bar / (1 - nu^2): the reference code's value (digest §2.1 [C]).
            return 2.0 * youngs_modulus * thickness * rest_length / (1.0 - poisson_ratio * poisson_ratio);
    }
    throw std::invalid_argument("unknown shell stretching mode");
}

double edge_spring_energy(const EdgeSpring& spring, const Vec3& x0, const Vec3& x1) {
    const double strain = (x1 - x0).norm() / spring.rest_length - 1.0;
    return 0.5 * spring.stiffness * strain * strain * spring.rest_length;
}

namespace {

struct EdgeKinematics {
    double length;
    Vec3 tangent;
    double strain;
};

EdgeKinematics edge_kinematics(const EdgeSpring& spring, const Vec3& x0, const Vec3& x1) {
    const Vec3 e = x1 - x0;
    const double length = e.norm();
    return {length, e / length, length / spring.rest_length - 1.0};
}

/// dE/dx1 = -dE/dx0 = k_s eps t_hat; returns the energy.
double edge_gradient(const EdgeSpring& spring, const EdgeKinematics& k, VecN<6>& gradient) {
    const Vec3 force = spring.stiffness * k.strain * k.tangent;
    gradient.head<3>() = -force;
    gradient.tail<3>() = force;
    return 0.5 * spring.stiffness * k.strain * k.strain * spring.rest_length;
}

}  // namespace

double edge_spring_energy_gradient(const EdgeSpring& spring, const Vec3& x0, const Vec3& x1,
                                   VecN<6>& gradient) {
    return edge_gradient(spring, edge_kinematics(spring, x0, x1), gradient);
}

double edge_spring_energy_gradient_hessian(const EdgeSpring& spring, const Vec3& x0,
                                           const Vec3& x1, VecN<6>& gradient, MatN<6>& hessian) {
    const EdgeKinematics k = edge_kinematics(spring, x0, x1);
    const Vec3& t = k.tangent;
    // K = k_s [ (1/l_bar - 1/|e|) I + t t^T/|e| ]  (digest §2.1's e e^T/|e|^3 written with t).
    const Mat3 K = spring.stiffness * ((1.0 / spring.rest_length - 1.0 / k.length) * Mat3::Identity() +
                                       t.lazyProduct(t.transpose()) / k.length);
    hessian.topLeftCorner<3, 3>() = K;
    hessian.bottomRightCorner<3, 3>() = K;
    hessian.topRightCorner<3, 3>() = -K;
    hessian.bottomLeftCorner<3, 3>() = -K;
    return edge_gradient(spring, k, gradient);
}

}  // namespace soma::shells
