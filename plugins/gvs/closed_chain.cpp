#include "closed_chain.hpp"

#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <cmath>
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
    if (!(axis.norm() > 0.0) || !axis.allFinite())
        throw std::invalid_argument("loop joint: a revolute joint's axis must be a finite, non-zero vector");
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

Matrix6X in_plane_directions(const Matrix6X& constrained) {
    // v = Phi a lies in the plane iff its rotations about x, y and its translation along z vanish:
    // a in the kernel of those three rows of Phi.
    Eigen::Matrix<double, 3, Eigen::Dynamic> out_of_plane(3, constrained.cols());
    out_of_plane << constrained.row(0), constrained.row(1), constrained.row(5);
    const Eigen::MatrixXd kernel = Eigen::FullPivLU<Eigen::MatrixXd>(out_of_plane).kernel();
    const Eigen::MatrixXd in_plane = constrained * kernel;
    if (kernel.cols() == 0 || in_plane.norm() == 0.0)
        throw std::invalid_argument("loop joint: none of its constrained directions lies in the xy-plane of frame b");
    // Orthonormal columns: rows of the same scale as the joint's other forms.
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(in_plane);
    return qr.householderQ() * Eigen::MatrixXd::Identity(6, in_plane.cols());
}

Index add_loop_joint(ClosedChainModel& chains, const MultibodyModel& model, LoopJoint joint) {
    const Index c = joint.constrained.cols();
    if (joint.constrained.rows() != 6 || c < 1 || c > 6)
        throw std::invalid_argument("loop joint: constrained directions must be 6 x c with 1 <= c <= 6, got " +
                                    std::to_string(c) + " columns");
    // Constrained directions that are not finite or not independent would give zero or repeated
    // rows and a singular saddle-point system.
    if (!joint.constrained.allFinite() ||
        Eigen::JacobiSVD<Eigen::MatrixXd>(joint.constrained).singularValues().minCoeff() <
            1e-8 * Eigen::JacobiSVD<Eigen::MatrixXd>(joint.constrained).singularValues().maxCoeff())
        throw std::invalid_argument("loop joint: the constrained directions must be finite and independent "
                                    "(full column rank)");
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
      adot_qdot(VectorX::Zero(chains.row_count)),
      c(VectorX::Zero(chains.row_count)),
      dc_dq(Eigen::MatrixXd::Zero(chains.row_count, model.dof_count)),
      dc_dqdot(Eigen::MatrixXd::Zero(chains.row_count, model.dof_count)),
      work(Matrix6X::Zero(6, model.dof_count)) {}

void closed_chain_constraints(const MultibodyData& data, const ClosedChainModel& chains, const VectorX& qdot,
                              ClosedChainData& out) {
    // A, de/dq and Adot qdot read the points' Jacobians, which only the derivative pass fills.
    if (!data.derivatives_valid)
        throw std::logic_error("closed_chain_constraints: call inverse_dynamics_derivatives first (the plain "
                               "inverse_dynamics leaves the points' Jacobians unset)");
    // Adot qdot reads Y^B, which a position-only pass (DerivativeSet::position) leaves unset.
    if (!data.rate_derivatives_valid && !qdot.isZero(0.0))
        throw std::logic_error("closed_chain_constraints: Adot qdot needs the rate derivatives (DerivativeSet::all)");
    if (out.e.size() != chains.row_count || out.A.cols() != data.dof_count)
        throw std::invalid_argument("closed_chain_constraints: the ClosedChainData was built for other chains or "
                                    "another model");
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

void baumgarte_rows(const MultibodyData& data, const ClosedChainModel& chains, const VectorX& qdot,
                    const VectorX& qddot, const Vec3& gravity, double time_constant, ClosedChainData& out) {
    if (!(time_constant > 0.0) || !std::isfinite(time_constant))
        throw std::invalid_argument("Baumgarte rows: the time constant must be positive and finite");
    closed_chain_constraints(data, chains, qdot, out);
    const double rate = 2.0 / time_constant, stiffness = 1.0 / (time_constant * time_constant);
    // (Mathew et al., eq. 46b)
    out.c.noalias() = out.A * qddot;
    out.c += out.adot_qdot;
    out.c.noalias() += rate * (out.A * qdot);
    out.c += stiffness * out.e;
    Vec6 gravity_twist = Vec6::Zero();
    gravity_twist.tail<3>() = gravity;
    for (std::size_t j = 0; j < chains.joints.size(); ++j) {
        const LoopJoint& joint = chains.joints[j];
        const Index row = chains.first_row[j], c = joint.constrained.cols();
        const auto phi_t = joint.constrained.transpose();
        const auto a = static_cast<std::size_t>(joint.point_a), b = static_cast<std::size_t>(joint.point_b);
        const Mat6 to_a = Ad_inverse(joint.offset_a), to_b = Ad_inverse(joint.offset_b);
        const Mat6 ad_g = Ad(out.relative_pose[j]);
        const Vec6 eta_a = to_a * data.eta[a], eta_b = to_b * data.eta[b];
        const Vec6 eta_a_in_b = ad_g * eta_a, eta_dot_a_in_b = ad_g * (to_a * data.eta_dot[a]);
        // X + (2/T) V, V = Ad_g eta_a - eta_b, written as K_W W + K_Ra R_a + K_La L_a + K_Rb R_b + K_Lb L_b
        // in q (W = Ad_g J_a - J_b; R, L the points' R^B, L^B) and K_Ra S_a + K_La Y_a + K_Rb S_b + K_Lb Y_b
        // in qdot (Mathew et al., D72-D76, D81-D83).
        const Mat6 k_w = ad(eta_b) * ad(eta_a_in_b) - ad(eta_dot_a_in_b) - rate * ad(eta_a_in_b);
        const Mat6 k_la = ad_g * to_a, k_lb = -to_b;
        const Mat6 k_ra = (rate * Mat6::Identity() - ad(eta_b)) * k_la - ad_g * ad(eta_a) * to_a;
        const Mat6 k_rb = (ad(eta_b) + ad(eta_a_in_b) - rate * Mat6::Identity()) * to_b;
        // L^B_k = Q^B_k + ad_{Ad^{-1}_{g_k} G} S^B_k: Q^B without the gravity term of eq. 20c
        const Mat6 gravity_a = k_la * ad(Ad_inverse(data.pose[a]) * gravity_twist);
        const Mat6 gravity_b = k_lb * ad(Ad_inverse(data.pose[b]) * gravity_twist);
        out.work.noalias() = k_w * out.relative_jacobian[j];
        out.work.noalias() += k_ra * data.r_b[a];
        out.work.noalias() += k_la * data.q_b[a];
        out.work.noalias() += gravity_a * data.s_b[a];
        out.work.noalias() += k_rb * data.r_b[b];
        out.work.noalias() += k_lb * data.q_b[b];
        out.work.noalias() += gravity_b * data.s_b[b];
        // (Mathew et al., D71, D80)
        out.dc_dq.middleRows(row, c).noalias() = phi_t * out.work;
        out.dc_dq.middleRows(row, c) += stiffness * out.de_dq.middleRows(row, c);
        out.work.noalias() = k_ra * data.s_b[a];
        out.work.noalias() += k_la * data.y_b[a];
        out.work.noalias() += k_rb * data.s_b[b];
        out.work.noalias() += k_lb * data.y_b[b];
        out.dc_dqdot.middleRows(row, c).noalias() = phi_t * out.work;
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
        data.include_load_columns(joint.point_a, joint.point_a);  // W = Ad J_a - J_b: both paths
        data.include_load_columns(joint.point_a, joint.point_b);
        const Mat6 seed = to_a * coad_bar(w);
        for (const ColumnRange& r : data.load_columns[a])
            data.u_sum[a].middleCols(r.first, r.count).noalias() +=
                seed * buffers_.relative_jacobian[j].middleCols(r.first, r.count);
    }
}

}  // namespace soma::gvs
