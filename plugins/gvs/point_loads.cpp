#include "point_loads.hpp"

#include <cmath>

namespace soma::gvs {

Vec3 cylinder_wall_force(const CylinderWall& wall, double sphere_radius, const Vec3& r, Mat3* jacobian) {
    // (Mathew et al., eq. 58): n = C_1 r, delta = |n| + r_s - r_cyl
    const Vec3 n(r.x(), r.y(), 0.0);
    const double distance = n.norm();
    const double delta = distance + sphere_radius - wall.radius;
    if (!(delta > 0.0)) {
        if (jacobian) jacobian->setZero();
        return Vec3::Zero();
    }
    const Vec3 u = n / distance;
    const double magnitude = wall.stiffness * std::pow(delta, wall.exponent);
    if (jacobian) {
        // (Mathew et al., eqs. 60, 61): df/dr = -k* C_1
        const Mat3 uu = u * u.transpose();
        Mat3 k_star = (wall.stiffness * wall.exponent * std::pow(delta, wall.exponent - 1.0)) * uu;
        k_star += (magnitude / distance) * (Mat3::Identity() - uu);
        *jacobian = -k_star;
        jacobian->col(2).setZero();  // times C_1: the height along the axis does not matter
    }
    // (Mathew et al., eq. 57, sign of the force on the body): back towards the axis
    return -magnitude * u;
}

Vec6 drag_wrench(const Mat6& drag, const Vec6& eta, Mat6* derivative) {
    const double speed = eta.tail<3>().norm();
    if (!(speed > 0.0)) {
        if (derivative) derivative->setZero();
        return Vec6::Zero();
    }
    if (derivative) {
        // (Mathew et al., eq. 63): 𝓓* = 𝓓 (eta eta^T I_v / |v| + |v| I_6)
        Mat6 inner = speed * Mat6::Identity();
        inner.rightCols<3>().noalias() += eta * (eta.tail<3>().transpose() / speed);
        derivative->noalias() = drag * inner;
    }
    return speed * (drag * eta);  // (Mathew et al., eq. 62)
}

}  // namespace soma::gvs
