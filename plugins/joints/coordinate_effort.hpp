#pragma once
/// \file coordinate_effort.hpp
/// \brief A generalised force along a joint's coordinate (joint_drive, joint_stop): the effort
/// tau = k e + d e' (e the coordinate's error, e' its rate's) enters the residual as g_f^T tau,
/// with the Jacobian
///
///     dF/dq = k g_f^T g_q + tau d(g_f^T)/dq + d g_f^T d(theta')/dq,   dF/dv = d g_f^T g_f
///
/// (g_f, g_q the coordinate's force and position rows, JointCoordinate). How a frame's velocity
/// turns with its DOFs at fixed v is left out (joint_drive.hpp says what that costs).

#include "frame_joint.hpp"

#include "soma/types.hpp"

namespace soma::joints {

/// \p residual = g_f^T effort; \p jacobian (when not null) = the c_q and c_v parts above, for a
/// coordinate whose curvature was evaluated at tau = 1 (it is linear in tau).
inline void add_coordinate_effort(const JointCoordinate& c, double effort, double stiffness, double damping,
                                  const JacobianCoefficients& w, VectorX& residual, Eigen::MatrixXd* jacobian) {
    residual.noalias() = effort * c.force_row.transpose();
    if (!jacobian) return;
    jacobian->noalias() = w.c_q * effort * c.curvature;
    const Index n = jacobian->cols();
    for (Index col = 0; col < n; ++col) {  // the outer product, column by column (no temporaries)
        const double column = w.c_q * (stiffness * c.position_row[col] + damping * c.rate_position_row[col]) +
                              w.c_v * damping * c.force_row[col];
        for (Index r = 0; r < n; ++r) (*jacobian)(r, col) += c.force_row[r] * column;
    }
}

}  // namespace soma::joints
