#pragma once
/// \file rod_end_frames.hpp
/// \brief The material frame of one rod edge as a map of its DOFs: the end frames a discrete rod
/// exposes to joints that transmit torque (Element::frame_kinematics; a `clamp`).
///
/// Edge e = x_b - x_a, tangent t = e/|e|, reference director a1 time-parallel transported from the
/// committed director and tangent s (rod_frames.hpp), material frame R = [m1, m2, t], the
/// reference frame turned by the edge's twist angle theta (Bergou et al. 2010, section 4; the
/// MAT-DiSMech paper, section 2). Its world angular velocity is linear in (edot, thetadot):
///
///     omega = A(e) edot + t thetadot,   A = (1/|e|) ( [t] + t w^T / c ),   w = t x s,  c = 1 + s.t
///
/// The first term turns the frame with its tangent by the minimal rotation (t x tdot); the second
/// is the spin of a frame transported from s rather than from t (the holonomy of the transport,
/// bend_twist_spring.hpp: dpsi = (t x s)/(|e| c) . de); the third the twist. At s = t the spin
/// vanishes. Because A is the derivative of R(q) at every iterate, Newton sees the exact Jacobian.
///
/// A world torque tau on the frame is the generalised force J^T tau = (-g, g, t.tau) on
/// (x_a, x_b, theta), g = A^T tau = (tau x t + (t.tau) w / c)/|e|. Its derivative at fixed tau (the
/// frame map's geometric stiffness), with h = |e| g, P = I - t t^T, L = |e|:
///
///     dg/de       = ( dh/dt P - h t^T ) / L^2,
///     dh/dt       = [tau] + w tau^T / c - (t.tau) ( [s] / c + w s^T / c^2 ),
///     d(t.tau)/de = tau^T P / L.

#include "soma/types.hpp"

#include <Eigen/Core>

namespace soma::rod {

/// The DOFs of one edge's material frame, in the column order of its Jacobians: x_a (3), x_b (3), theta.
inline constexpr int kEdgeFrameDofs = 7;

/// What one edge's frame depends on: its end nodes, its twist angle, and the committed reference
/// director and tangent the reference frame is transported from.
struct EdgeFrameInput {
    Vec3 x_a, x_b;
    double theta = 0.0;
    Vec3 director;  ///< committed a1 (unit, orthogonal to source)
    Vec3 source;    ///< committed unit tangent s
};

/// \brief The frame's rotation [m1, m2, t] and its world angular Jacobian d omega / d(x_a, x_b, theta).
void edge_material_frame(const EdgeFrameInput& input, Mat3& rotation,
                         Eigen::Matrix<double, 3, kEdgeFrameDofs>& angular_jacobian);

/// \brief Adds d(J_angular^T tau)/d(x_a, x_b, theta) at fixed world torque \p torque (see the file comment).
void add_edge_frame_torque_stiffness(const EdgeFrameInput& input, const Vec3& torque,
                                     Eigen::Matrix<double, kEdgeFrameDofs, kEdgeFrameDofs>& stiffness);

}  // namespace soma::rod
