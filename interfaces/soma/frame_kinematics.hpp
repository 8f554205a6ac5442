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
#include "soma/wide_storage.hpp"

#include <array>
#include <span>
#include <vector>

namespace soma {

/// Most DOFs the fixed-size part of a frame holds (a rod end: two nodes and the edge's twist angle).
inline constexpr int kMaxFrameDofs = 7;

/// One frame at one iterate. Columns beyond dof_count are unused.
///
/// A frame that depends on more than kMaxFrameDofs DOFs is *wide* (a GVS robot's link frame
/// depends on every coordinate from the base to it), as a wide point is (point_kinematics.hpp):
/// its DOFs and Jacobians live in the `wide_` members, which set_dof_count grows (never shrinks)
/// and the element fills (both Jacobians, the first dof_count columns). Read a frame through
/// dof(), dof_span() and the *_columns() views, which serve both kinds, and keep the object
/// across evaluations so that a wide frame allocates nothing after the first.
struct FrameKinematics {
    int dof_count = 0;                        ///< DOFs the frame depends on
    std::array<Index, kMaxFrameDofs> dofs{};  ///< their global indices (first dof_count; not wide)
    Vec3 origin = Vec3::Zero();               ///< x(q), world
    Mat3 rotation = Mat3::Identity();         ///< R(q): columns are the frame's axes (world)
    Vec3 velocity = Vec3::Zero();             ///< xdot (when the context has v)
    Vec3 angular_velocity = Vec3::Zero();     ///< omega, world (when the context has v)
    /// J = d[xdot; omega]/dv (applyJ / applyJT).
    Eigen::Matrix<double, 6, kMaxFrameDofs> jacobian = Eigen::Matrix<double, 6, kMaxFrameDofs>::Zero();
    /// J_q = d[x; phi]/dq in the Newton step's coordinates (see the file comment).
    Eigen::Matrix<double, 6, kMaxFrameDofs> position_jacobian = Eigen::Matrix<double, 6, kMaxFrameDofs>::Zero();

    // A wide frame's DOFs and its two Jacobians (6 x dof_count), as above.
    std::vector<Index> wide_dofs;
    Eigen::Matrix<double, 6, Eigen::Dynamic> wide_jacobian, wide_position_jacobian;
    /// Scratch for a wide frame's dof_count square geometric stiffness (its top-left block;
    /// Element::wide_frame_geometric_stiffness grows it, never shrinks it).
    Eigen::MatrixXd wide_stiffness;

    using Columns = Eigen::Map<Eigen::Matrix<double, 6, Eigen::Dynamic>>;
    using ConstColumns = Eigen::Map<const Eigen::Matrix<double, 6, Eigen::Dynamic>>;

    bool is_wide() const { return dof_count > kMaxFrameDofs; }
    /// \brief Sets dof_count; a wide frame's storage grows to it (allocates only when it grows).
    void set_dof_count(int count) {
        dof_count = count;
        if (is_wide()) grow_wide_storage(count, wide_dofs, wide_jacobian, wide_position_jacobian);
    }
    Index dof(int column) const {
        return is_wide() ? wide_dofs[static_cast<std::size_t>(column)] : dofs[static_cast<std::size_t>(column)];
    }
    std::span<const Index> dof_span() const {
        return {is_wide() ? wide_dofs.data() : dofs.data(), static_cast<std::size_t>(dof_count)};
    }
    std::span<Index> dof_span() { return {is_wide() ? wide_dofs.data() : dofs.data(), static_cast<std::size_t>(dof_count)}; }
    // The first dof_count columns of a fixed-size Jacobian are contiguous (column-major, 6 rows).
    ConstColumns jacobian_columns() const { return {is_wide() ? wide_jacobian.data() : jacobian.data(), 6, dof_count}; }
    ConstColumns position_jacobian_columns() const {
        return {is_wide() ? wide_position_jacobian.data() : position_jacobian.data(), 6, dof_count};
    }
    Columns jacobian_columns() { return {is_wide() ? wide_jacobian.data() : jacobian.data(), 6, dof_count}; }
    Columns position_jacobian_columns() {
        return {is_wide() ? wide_position_jacobian.data() : position_jacobian.data(), 6, dof_count};
    }
};

/// d(J^T [f; tau])/dq of one frame at fixed world f and tau (rows and columns: the frame's DOFs,
/// first dof_count; columns in Newton coordinates).
using FrameStiffness = Eigen::Matrix<double, kMaxFrameDofs, kMaxFrameDofs>;

}  // namespace soma
