#pragma once
/// \file frame_differences.hpp
/// \brief Central finite differences of a frame map (frame_kinematics.hpp) for plugin tests: the
/// origin's rows and the world rotation vector's rows of J_q.

#include "soma/rotation.hpp"
#include "soma/types.hpp"

#include <Eigen/Geometry>

#include <utility>

namespace soma::testing {

/// \brief J_q of a frame by central differences with step \p h: column j holds
/// ((x+ - x-), log(R+ R-^T)) / 2h, the origin's change and the world rotation vector turning R-
/// into R+ (dR = [dphi] R). \p frame_of(x) returns the pair (origin, rotation) at DOFs x.
template <class Function>
Eigen::MatrixXd finite_difference_frame_jacobian(Function&& frame_of, const VectorX& x, double h) {
    const auto n = static_cast<Index>(x.size());
    Eigen::MatrixXd jacobian(6, n);
    VectorX xp = x, xm = x;
    for (Index j = 0; j < n; ++j) {
        xp(j) = x(j) + h;
        xm(j) = x(j) - h;
        const std::pair<Vec3, Mat3> plus = frame_of(xp), minus = frame_of(xm);
        jacobian.col(j).head<3>() = (plus.first - minus.first) / (2.0 * h);
        jacobian.col(j).tail<3>() = rotation_log(Quaternion(Mat3(plus.second * minus.second.transpose()))) / (2.0 * h);
        xp(j) = xm(j) = x(j);
    }
    return jacobian;
}

}  // namespace soma::testing
