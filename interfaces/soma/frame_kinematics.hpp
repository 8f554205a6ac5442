#pragma once
/// \file frame_kinematics.hpp
/// \brief Where a frame of an element is, how it is turned, and how both depend on the DOFs:
/// the data of a mapping (x(q), R(q)) beside the points' x_i(q) (point_kinematics.hpp; SOFA's
/// RigidMapping is the model).
///
/// A frame is an origin x and a rotation R whose columns are the frame's axes in world
/// coordinates: a rigid body's body frame, a rod end's material frame {m1, m2, t}. Its velocity
/// is the origin's velocity xdot and the world angular velocity omega (dR/dt = [omega] R). Both
/// are linear in the DOF velocities v:
///
///     [xdot; omega] = J v                       (rows 0-2: origin, rows 3-5: angular)
///
/// so J^T [f; tau] is the generalised force of a world force f at the origin and a world torque
/// tau on the frame. A variation of the DOFs in the Newton step's coordinates moves the frame by
///
///     [dx; dphi] = J_q dq,   R + dR = exp([dphi]) R       (world rotation vector dphi)
///
/// J_q equals J for vector-space DOFs (a rod) and J times the Jacobian of integrate for a
/// rotation (a rigid body's tangent displacement, element.hpp ManifoldBlock).

#include "soma/types.hpp"

#include <array>

namespace soma {

/// Most DOFs one frame may depend on (a rod end: two nodes and the edge's twist angle).
inline constexpr int kMaxFrameDofs = 7;

/// One frame at one iterate. Columns beyond dof_count are unused.
struct FrameKinematics {
    int dof_count = 0;                        ///< DOFs the frame depends on
    std::array<Index, kMaxFrameDofs> dofs{};  ///< their global indices (first dof_count)
    Vec3 origin = Vec3::Zero();               ///< x(q), world
    Mat3 rotation = Mat3::Identity();         ///< R(q): columns are the frame's axes (world)
    Vec3 velocity = Vec3::Zero();             ///< xdot (when the context has v)
    Vec3 angular_velocity = Vec3::Zero();     ///< omega, world (when the context has v)
    /// J = d[xdot; omega]/dv (applyJ / applyJT).
    Eigen::Matrix<double, 6, kMaxFrameDofs> jacobian = Eigen::Matrix<double, 6, kMaxFrameDofs>::Zero();
    /// J_q = d[x; phi]/dq in the Newton step's coordinates (see the file comment).
    Eigen::Matrix<double, 6, kMaxFrameDofs> position_jacobian = Eigen::Matrix<double, 6, kMaxFrameDofs>::Zero();
};

/// d(J^T [f; tau])/dq of one frame at fixed world f and tau (rows and columns: the frame's DOFs,
/// first dof_count; columns in Newton coordinates).
using FrameStiffness = Eigen::Matrix<double, kMaxFrameDofs, kMaxFrameDofs>;

}  // namespace soma
