#pragma once
/// \file point_kinematics.hpp
/// \brief Where a point of an element is, how fast it moves, and how both depend on the DOFs:
/// the data of a mapping x_i(q) (SOFA's mapping: apply, applyJ, applyJT, applyDJT).

#include "soma/types.hpp"

#include <array>

namespace soma {

/// Most DOFs one point may depend on (a rigid body's 3 translations and 3 rotations).
inline constexpr int kMaxPointDofs = 6;

/// One point at one iterate. Columns beyond dof_count are unused.
struct PointKinematics {
    int dof_count = 3;                          ///< DOFs the point depends on
    std::array<Index, kMaxPointDofs> dofs{};    ///< their global indices (first dof_count)
    Vec3 position = Vec3::Zero();               ///< x_i(q)
    Vec3 velocity = Vec3::Zero();               ///< xdot_i = J v
    /// J = d xdot / d v: maps DOF velocities to the point's velocity; J^T f is the generalised
    /// force of a world force f at the point (applyJ / applyJT).
    Eigen::Matrix<double, 3, kMaxPointDofs> jacobian = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();
    /// d x / d q in the Newton step's coordinates (for a rotation, the tangent displacement of
    /// ManifoldBlock): J times the Jacobian of integrate. Equal to `jacobian` for vector DOFs.
    Eigen::Matrix<double, 3, kMaxPointDofs> position_jacobian = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();
    /// d xdot / d q at fixed v (a rotating body's point velocity turns with it); zero for identity points.
    Eigen::Matrix<double, 3, kMaxPointDofs> velocity_jacobian = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();
};

/// d(J^T f)/dq of one point (rows and columns: the point's DOFs, first dof_count).
using PointStiffness = Eigen::Matrix<double, kMaxPointDofs, kMaxPointDofs>;

}  // namespace soma
