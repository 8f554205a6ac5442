#pragma once
/// \file frame_pair.hpp
/// \brief The two frames a joint or a frame spring couples, with the joint frames riding on them
/// (joint_rows.hpp): bound once, evaluated at each iterate, and the maps that take a row's
/// 12-vector gradient and its derivative to the DOFs (G_f and G_q rows, the curvature).

#include "frame_end.hpp"
#include "joint_rows.hpp"

#include <array>

namespace soma::joints {

struct FramePair {
    std::array<BoundFrame, 2> ends;  ///< 0: the first (moving) frame, 1: the second (or the world)
    std::array<Vec3, 2> local_arm{Vec3::Zero(), Vec3::Zero()};        ///< r_i, in element frame i
    std::array<Mat3, 2> local_axes{Mat3::Identity(), Mat3::Identity()};  ///< A_i
    // The last evaluation (scratch: a wide frame's storage grows on first use).
    mutable std::array<FrameKinematics, 2> kinematics;
    mutable JointFramePair frames;

    /// \brief Places both joint frames at the world point \p at with the world axes \p axes (the
    /// columns), in the configuration \p q (as built): fixes r_i and A_i.
    void place(const VectorX& q, const Vec3& at, const Mat3& axes);
    /// The frames and the joint frames at \p context.
    void evaluate(const EvalContext& context) const;
    /// The frames' velocities [xdot_1, omega_1, xdot_2, omega_2] of the last evaluation (world).
    RowGradient velocities() const;

    /// \brief Adds a row's G_f and G_q entries (gradient \p g) into \p force and \p position,
    /// indexed by the DOFs' columns.
    template <class Force, class Position>
    void scatter(const RowGradient& g, Force&& force, Position&& position) const {
        for (std::size_t i = 0; i < 2; ++i) {
            if (!ends[i].element) continue;
            const FrameKinematics& k = kinematics[i];
            const auto J = k.jacobian_columns();
            const auto J_q = k.position_jacobian_columns();
            const auto gi = g.segment<6>(6 * static_cast<Index>(i));
            for (int c = 0; c < k.dof_count; ++c) {
                const Index column = ends[i].columns[static_cast<std::size_t>(c)];
                force(column) += gi.dot(J.col(c));
                position(column) += gi.dot(J_q.col(c));
            }
        }
    }
    /// \brief Adds J^T H J_q for a 12 x 12 gradient derivative \p hessian and the frames' geometric
    /// stiffness at \p wrench (force, torque on each frame) to \p curvature (DOF columns).
    void add_curvature(const EvalContext& context, const RowGradient& wrench, const RowHessian& hessian,
                       Eigen::MatrixXd& curvature) const;
    /// \brief Adds J_i^T B_ij J_j of a 12 x 12 block matrix \p b (velocity-space: a damping's
    /// d(wrench)/d(velocities)) to \p out (DOF columns).
    void add_velocity_block(const RowHessian& b, Eigen::MatrixXd& out) const;
};

}  // namespace soma::joints
