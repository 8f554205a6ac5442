#include "closed_chain.hpp"

#include <stdexcept>
#include <string>

namespace soma::gvs {
namespace {

/// g_BA = (g_B o_B)^{-1} (g_A o_A).
Pose relative_pose_of(const LoopJoint& joint, const MultibodyData& data) {
    const Pose a = compose(data.pose[static_cast<std::size_t>(joint.point_a)], joint.offset_a);
    const Pose b = compose(data.pose[static_cast<std::size_t>(joint.point_b)], joint.offset_b);
    return compose(inverse(b), a);
}

/// Ad_{g_BA} J_a - J_b = Ad_{g_BA o_A^{-1}} J_A - Ad^{-1}_{o_B} J_B into \p out (6 x n).
void relative_jacobian_of(const LoopJoint& joint, const Pose& g, const MultibodyData& data, Matrix6X& out) {
    const Mat6 from_a = Ad(compose(g, inverse(joint.offset_a)));
    const Mat6 from_b = Ad_inverse(joint.offset_b);
    out.noalias() = from_a * data.s_b[static_cast<std::size_t>(joint.point_a)];
    out.noalias() -= from_b * data.s_b[static_cast<std::size_t>(joint.point_b)];
}

}  // namespace

Matrix6X weld_directions() { return Matrix6X::Identity(6, 6); }

Matrix6X revolute_directions(const Vec3& axis) {
    const Vec3 z = axis.normalized();
    // Two unit vectors orthogonal to the axis: cross it with the world axis least aligned with it.
    Index least = 0;
    z.cwiseAbs().minCoeff(&least);
    const Vec3 x = z.cross(Vec3::Unit(least)).normalized();
    const Vec3 y = z.cross(x);
    Matrix6X out = Matrix6X::Zero(6, 5);
    out.block<3, 1>(0, 0) = x;
    out.block<3, 1>(0, 1) = y;
    out.block<3, 3>(3, 2).setIdentity();
    return out;
}

Matrix6X spherical_directions() {
    Matrix6X out = Matrix6X::Zero(6, 3);
    out.bottomRows<3>().setIdentity();
    return out;
}

Index add_loop_joint(ClosedChainModel& chains, const MultibodyModel& model, LoopJoint joint) {
    const Index c = joint.constrained.cols();
    if (joint.constrained.rows() != 6 || c < 1 || c > 6)
        throw std::invalid_argument("loop joint: constrained directions must be 6 x c with 1 <= c <= 6, got " +
                                    std::to_string(c) + " columns");
    for (const Index point : {joint.point_a, joint.point_b})
        if (point < 0 || point >= model.point_count())
            throw std::invalid_argument("loop joint: point " + std::to_string(point) + " is not in the tree (" +
                                        std::to_string(model.point_count()) + " points)");
    chains.first_row.push_back(chains.row_count);
    chains.row_count += c;
    chains.joints.push_back(std::move(joint));
    return static_cast<Index>(chains.joints.size()) - 1;
}

ClosedChainData::ClosedChainData(const MultibodyModel& model, const ClosedChainModel& chains)
    : lambda(VectorX::Zero(chains.row_count)),
      relative_pose(chains.joints.size()),
      relative_log(chains.joints.size(), Vec6::Zero()),
      relative_jacobian(chains.joints.size(), Matrix6X::Zero(6, model.dof_count)),
      e(VectorX::Zero(chains.row_count)),
      A(Eigen::MatrixXd::Zero(chains.row_count, model.dof_count)),
      de_dq(Eigen::MatrixXd::Zero(chains.row_count, model.dof_count)),
      adot_qdot(VectorX::Zero(chains.row_count)) {}

void closed_chain_constraints(const MultibodyData& data, const ClosedChainModel& chains, const VectorX& qdot,
                              ClosedChainData& out) {
    for (std::size_t j = 0; j < chains.joints.size(); ++j) {
        const LoopJoint& joint = chains.joints[j];
        const Index row = chains.first_row[j], c = joint.constrained.cols();
        const auto phi_t = joint.constrained.transpose();
        const Pose g = relative_pose_of(joint, data);
        out.relative_pose[j] = g;
        out.relative_log[j] = log_pose(g);
        Matrix6X& relative = out.relative_jacobian[j];
        relative_jacobian_of(joint, g, data, relative);
        // (Mathew et al., eqs. 47c, 47a, D80 with Phi_perp^T)
        out.e.segment(row, c).noalias() = phi_t * out.relative_log[j];
        out.A.middleRows(row, c).noalias() = phi_t * relative;
        const Eigen::Matrix<double, Eigen::Dynamic, 6, Eigen::RowMajor, 6, 6> phi_t_tinv =
            phi_t * tangent_inverse(out.relative_log[j]);
        out.de_dq.middleRows(row, c).noalias() = phi_t_tinv * relative;
        // (Mathew et al., eq. 47b): Adot qdot = Phi^T (Ad_g Jdot_a qdot - Jdot_b qdot - ad_{eta_b} Ad_g eta_a)
        const auto a = static_cast<std::size_t>(joint.point_a), b = static_cast<std::size_t>(joint.point_b);
        const Mat6 to_a = Ad_inverse(joint.offset_a), to_b = Ad_inverse(joint.offset_b);
        const Vec6 jdot_a = to_a * (data.y_b[a] * qdot - data.r_b[a] * qdot);
        const Vec6 jdot_b = to_b * (data.y_b[b] * qdot - data.r_b[b] * qdot);
        const Mat6 ad_g = Ad(g);
        const Vec6 eta_a_in_b = ad_g * (to_a * data.eta[a]);
        const Vec6 eta_b = to_b * data.eta[b];
        const Vec6 rate = ad_g * jdot_a - jdot_b - ad(eta_b) * eta_a_in_b;
        out.adot_qdot.segment(row, c).noalias() = phi_t * rate;
    }
}

void ConstraintWrenches::apply(const MultibodyModel& /*model*/, MultibodyData& data, bool derivatives) const {
    for (std::size_t j = 0; j < chains_.joints.size(); ++j) {
        const LoopJoint& joint = chains_.joints[j];
        const Index row = chains_.first_row[j], c = joint.constrained.cols();
        const Vec6 w = joint.constrained * buffers_.lambda.segment(row, c);  // Phi_perp lambda, frame b
        const Pose g = relative_pose_of(joint, data);
        const Mat6 to_a = coAd(joint.offset_a) * coAd_inverse(g);  // frame b's wrench at point A
        const Vec6 at_a = to_a * w;
        const Vec6 at_b = -(coAd(joint.offset_b) * w);
        const auto a = static_cast<std::size_t>(joint.point_a), b = static_cast<std::size_t>(joint.point_b);
        // F_k is inertial minus external (Mathew et al., eq. 16)
        data.wrench[a] -= at_a;
        data.wrench_sum[a] -= at_a;
        data.wrench[b] -= at_b;
        data.wrench_sum[b] -= at_b;
        if (!derivatives) continue;
        // (Mathew et al., D69): dF_A/dq = -Ad*_{o_A} Ad^{-*}_{g_BA} adbar*_{Phi lambda} (Ad_{g_BA} J_a - J_b);
        // the external wrench enters U^S with a minus sign, so + here.
        relative_jacobian_of(joint, g, data, buffers_.relative_jacobian[j]);
        const Mat6 seed = to_a * coad_bar(w);
        data.u_sum[a].noalias() += seed * buffers_.relative_jacobian[j];
    }
}

}  // namespace soma::gvs
