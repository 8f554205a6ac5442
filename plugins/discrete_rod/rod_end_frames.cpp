// The end frames of a discrete rod as maps of its DOFs (rod_end_frames.hpp): the material frame
// of the first and last edge, with the end node as origin.
#include "rod_end_frames.hpp"

#include "discrete_rod.hpp"
#include "rod_frames.hpp"

#include "soma/rotation.hpp"

#include <stdexcept>

namespace soma::rod {

void edge_material_frame(const EdgeFrameInput& in, Mat3& rotation, Eigen::Matrix<double, 3, kEdgeFrameDofs>& J) {
    const Vec3 e = in.x_b - in.x_a;
    const double length = e.norm();
    const Vec3 t = e / length;
    const Vec3 a1 = time_parallel_transport(in.director, in.source, t);
    Vec3 m1, m2;
    material_frame(a1, t.cross(a1), in.theta, m1, m2);
    rotation.col(0) = m1;
    rotation.col(1) = m2;
    rotation.col(2) = t;
    const double c = 1.0 + in.source.dot(t);
    const Vec3 w = t.cross(in.source);
    const Mat3 A = (skew(t) + t * w.transpose() / c) / length;
    J.leftCols<3>() = -A;
    J.middleCols<3>(3) = A;
    J.col(6) = t;
}

void add_edge_frame_torque_stiffness(const EdgeFrameInput& in, const Vec3& tau,
                                     Eigen::Matrix<double, kEdgeFrameDofs, kEdgeFrameDofs>& K) {
    const Vec3 e = in.x_b - in.x_a;
    const double L = e.norm();
    const Vec3 t = e / L;
    const Vec3& s = in.source;
    const double c = 1.0 + s.dot(t);
    const Vec3 w = t.cross(s);
    const double t_tau = t.dot(tau);
    const Vec3 h = tau.cross(t) + (t_tau / c) * w;
    const Mat3 P = Mat3::Identity() - t * t.transpose();
    const Mat3 dh_dt = skew(tau) + w * tau.transpose() / c - t_tau * (skew(s) / c + w * s.transpose() / (c * c));
    const Mat3 dg_de = (dh_dt * P - h * t.transpose()) / (L * L);
    const Eigen::RowVector3d dtwist_de = (P * tau).transpose() / L;
    // Generalised force (-g, g, t.tau) over (x_a, x_b, theta); e = x_b - x_a.
    K.block<3, 3>(0, 0) += dg_de;
    K.block<3, 3>(0, 3) -= dg_de;
    K.block<3, 3>(3, 0) -= dg_de;
    K.block<3, 3>(3, 3) += dg_de;
    K.block<1, 3>(6, 0) -= dtwist_de;
    K.block<1, 3>(6, 3) += dtwist_de;
}

// ---- DiscreteRod's frames: 0 "start" (edge 0, origin node 0), 1 "end" (last edge, last node) ----

namespace {
void require_frame(const DiscreteRod& rod, Index frame) {
    if (frame < 0 || frame > 1)
        throw std::out_of_range("discrete_rod '" + rod.name() + "' has frames 0 (start) and 1 (end), not " +
                                std::to_string(frame));
}
}  // namespace

std::string DiscreteRod::frame_name(Index frame) const {
    require_frame(*this, frame);
    return frame == 0 ? "start" : "end";
}

Index DiscreteRod::frame_point(Index frame) const {
    require_frame(*this, frame);
    return frame == 0 ? 0 : node_count_ - 1;
}

EdgeFrameInput DiscreteRod::end_frame_input(Index frame, const VectorX& q) const {
    require_frame(*this, frame);
    const Index edge = frame == 0 ? 0 : edge_count_ - 1;
    const auto ue = static_cast<std::size_t>(edge);
    EdgeFrameInput in;
    in.x_a = node_position(q, edge);
    in.x_b = node_position(q, edge + 1);
    in.theta = q[edge_dof_[ue]];
    in.director = director_[ue];
    in.source = tangent_[ue];
    return in;
}

void DiscreteRod::frame_kinematics(Index frame, const EvalContext& context, FrameKinematics& out) const {
    const EdgeFrameInput in = end_frame_input(frame, *context.q);
    const Index edge = frame == 0 ? 0 : edge_count_ - 1;
    const auto& a = node_dofs_[static_cast<std::size_t>(edge)];
    const auto& b = node_dofs_[static_cast<std::size_t>(edge + 1)];
    out.dof_count = kEdgeFrameDofs;
    out.dofs = {a[0], a[1], a[2], b[0], b[1], b[2], edge_dof_[static_cast<std::size_t>(edge)]};
    Eigen::Matrix<double, 3, kEdgeFrameDofs> angular;
    edge_material_frame(in, out.rotation, angular);
    const int origin_column = frame == 0 ? 0 : 3;
    out.origin = frame == 0 ? in.x_a : in.x_b;
    out.jacobian.setZero();
    out.jacobian.block<3, 3>(0, origin_column).setIdentity();
    out.jacobian.bottomRows<3>() = angular;
    out.position_jacobian = out.jacobian;  // vector-space DOFs
    if (context.v) {
        VecN<kEdgeFrameDofs> v;
        for (int k = 0; k < kEdgeFrameDofs; ++k) v[k] = (*context.v)[out.dofs[static_cast<std::size_t>(k)]];
        out.velocity = v.segment<3>(origin_column);
        out.angular_velocity = angular * v;
    }
}

void DiscreteRod::add_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& /*force*/,
                                                const Vec3& torque, FrameStiffness& stiffness) const {
    // The origin is a node (identity map): a force adds no geometric stiffness.
    Eigen::Matrix<double, kEdgeFrameDofs, kEdgeFrameDofs> K = Eigen::Matrix<double, kEdgeFrameDofs, kEdgeFrameDofs>::Zero();
    add_edge_frame_torque_stiffness(end_frame_input(frame, *context.q), torque, K);
    stiffness.topLeftCorner<kEdgeFrameDofs, kEdgeFrameDofs>() += K;
}

}  // namespace soma::rod
