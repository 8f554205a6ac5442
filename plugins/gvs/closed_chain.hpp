#pragma once
/// \file closed_chain.hpp
/// \brief Loop-closure constraints between two points of a GVS tree (Mathew et al., section 5.2,
/// eqs. 46-52): the constraint error e, its Jacobian de/dq, the Pfaffian matrix A and Adot qdot,
/// the Baumgarte index-1 row with its derivatives in q and qdot (eq. 46b, D71-D83), and the
/// constraint wrenches with their derivative in q, added to the inverse dynamics.
///
/// A loop joint joins frame a, fixed to point A of the tree by the offset o_A (g_a = g_A o_A),
/// and frame b, fixed to point B (g_b = g_B o_B). Its relative pose is g_BA = g_b^{-1} g_a and
/// Phi_perp (6 x c, in frame b) holds the constrained directions: 6 columns for a weld, 5 for a
/// revolute joint, 3 (the linear part) for a spherical joint. With J_a = Ad^{-1}_{o_A} J_A and
/// J_b = Ad^{-1}_{o_B} J_B the frames' body Jacobians (J_A = data.s_b[A]):
///
///     e     = Phi_perp^T log(g_BA)^vee                                           (eq. 47c)
///     A     = Phi_perp^T (Ad_{g_BA} J_a - J_b)                                   (eq. 47a)
///     de/dq = Phi_perp^T T^{-1}(log(g_BA)^vee) (Ad_{g_BA} J_a - J_b)              (D80)
///
/// (Ad_{g_BA} J_a - J_b) qdot is the velocity of g_BA in frame b, gdot_BA g_BA^{-1}; the tangent
/// operator T of screw_theory.hpp maps d/dt log(g_BA) to it. D80 prints Phi_perp for
/// Phi_perp^T. de/dq equals A only where log(g_BA) commutes with the velocity (e = 0 for a weld);
/// elsewhere the index-3 Jacobian of eq. 52b, [[dID/dq + K, -A^T], [de/dq, 0]], is not symmetric.
///
/// Sign of the multipliers: the generalised constraint force is +A^T lambda, so the equations read
/// ID + K q + D qdot - B u - A^T lambda = 0 (eq. 46a). Phi_perp lambda is the wrench, in frame b,
/// that the B side applies to the A side: the wrench Ad^{-*}_{g_BA} Phi_perp lambda acts at
/// frame a and -Phi_perp lambda at frame b, and J_a^T Ad^{-*}_{g_BA} Phi_perp lambda -
/// J_b^T Phi_perp lambda = A^T lambda. ConstraintWrenches applies them in the inverse dynamics,
/// so that its data.id is ID - A^T lambda and its data.did_dq the derivative of that at fixed
/// lambda (D69 plus the wrenches' transport along the tree).
///
/// Validity: e = Phi_perp^T log(g_BA) jumps where a revolute or spherical joint's free rotation
/// crosses pi (log picks the other branch), so a loop joint that turns through half a turn, a
/// crank or a wheel, breaks Newton there. Welds and small free rotations are fine.

#include "inverse_dynamics.hpp"

#include <vector>

namespace soma::gvs {

/// \brief One loop joint: frames a (on point_a) and b (on point_b) and the constrained
/// directions, in frame b.
struct LoopJoint {
    Index point_a = 0, point_b = 0;
    Pose offset_a, offset_b;  ///< o_A, o_B: frame a in point A's frame, frame b in point B's
    Matrix6X constrained;     ///< Phi_perp, 6 x c, 1 <= c <= 6, in frame b
};

/// \brief Phi_perp of a weld (fixed) loop joint: I_6.
Matrix6X weld_directions();
/// \brief Phi_perp of a revolute loop joint about \p axis of frame b (normalised here): the other
/// two rotations and the three translations, an orthonormal 6 x 5 basis.
Matrix6X revolute_directions(const Vec3& axis);
/// \brief Phi_perp of a spherical loop joint: the three translations, [0; I_3].
Matrix6X spherical_directions();
/// \brief The directions of \p constrained that lie in frame b's xy-plane (the translations x, y
/// and the rotation about z), an orthonormal basis of span(Phi_perp) intersected with that plane:
/// the loop joint of a planar model, whose coordinates never move frame a out of the plane, so
/// that the out-of-plane rows would be rows no coordinate moves (a singular saddle point).
/// Throws std::invalid_argument if none is left.
Matrix6X in_plane_directions(const Matrix6X& constrained);

/// \brief The loop joints of a tree (immutable once built): the constraint rows of joint j are
/// first_row[j] .. first_row[j] + c_j.
struct ClosedChainModel {
    std::vector<LoopJoint> joints;
    std::vector<Index> first_row;
    Index row_count = 0;
};

/// \brief Appends \p joint to \p chains and returns its index.
/// \throws std::invalid_argument if Phi_perp is not 6 x c with 1 <= c <= 6, or a point is not a
///   point of \p model.
Index add_loop_joint(ClosedChainModel& chains, const MultibodyModel& model, LoopJoint joint);

/// \brief Every buffer the loop constraints write, sized once (no allocation per evaluation).
struct ClosedChainData {
    ClosedChainData(const MultibodyModel& model, const ClosedChainModel& chains);

    VectorX lambda;                   ///< the multipliers (input of ConstraintWrenches), rows
    std::vector<Pose> relative_pose;  ///< g_BA per joint
    std::vector<Vec6> relative_log;   ///< log(g_BA)^vee per joint
    std::vector<Matrix6X> relative_jacobian;  ///< Ad_{g_BA} J_a - J_b per joint, 6 x n
    VectorX e;                        ///< eq. 47c
    Eigen::MatrixXd A;                ///< eq. 47a, rows x n
    Eigen::MatrixXd de_dq;            ///< D80 (with Phi_perp^T), rows x n
    VectorX adot_qdot;                ///< Adot qdot (eq. 47b)
    VectorX c;                        ///< the Baumgarte row C (eq. 46b), rows
    Eigen::MatrixXd dc_dq;            ///< dC/dq (D71-D80), rows x n
    Eigen::MatrixXd dc_dqdot;         ///< dC/dqdot (D81-D83), rows x n
    Matrix6X work;                    ///< 6 x n scratch of baumgarte_rows
};

/// \brief e, A, de/dq and Adot qdot (eqs. 47a-47c, D80) from \p data filled by
/// inverse_dynamics_derivatives at the same q and \p qdot (its data.pose, data.eta, data.s_b,
/// data.y_b, data.r_b). Adot qdot = Phi_perp^T (Ad_{g_BA} Jdot_a qdot - Jdot_b qdot
/// - ad_{eta_b} Ad_{g_BA} eta_a), eq. 47b with ad_{eta_BA} J_a qdot written out, and
/// Jdot_k qdot = (Y^B_k - R^B_k) qdot.
void closed_chain_constraints(const MultibodyData& data, const ClosedChainModel& chains, const VectorX& qdot,
                              ClosedChainData& out);

/// \brief The Baumgarte index-1 row of the loop joints and its exact derivatives (Mathew et al.,
/// eqs. 46b, D71-D83), into out.c, out.dc_dq and out.dc_dqdot; it calls closed_chain_constraints
/// first, so e, A, de/dq and Adot qdot are filled too. With T = \p time_constant (T_B > 0):
///
///     C = A qddot + Adot qdot + (2/T) A qdot + (1/T^2) e                          (eq. 46b)
///       = Phi_perp^T (X + (2/T) (Ad_{g_BA} eta_a - eta_b)) + (1/T^2) e,
///     X = Ad_{g_BA} etadot_a - etadot_b - ad_{eta_b} Ad_{g_BA} eta_a
///
/// (X = d/dt (Ad_{g_BA} eta_a - eta_b), the rate of g_BA's velocity in frame b). Its derivatives
/// use d eta_k/dq = R^B_k, d etadot_k/dq = L^B_k - ad_{eta_k} R^B_k, d etadot_k/dqdot =
/// Y^B_k - ad_{eta_k} S^B_k (D73, D74, D83) and d(Ad_{g_BA} x)/dq = -ad_{Ad_{g_BA} x}
/// (Ad_{g_BA} J_a - J_b) (D75, D76), moved to frames a and b by the offsets; D82 is written in
/// full (the Ad_{g_BA}, the offsets and the velocity-product term, with Phi_perp^T). L^B_k, Q^B_k
/// without the gravity term of eq. 20c, is Q^B_k + ad_{Ad^{-1}_{g_k} G} S^B_k, exactly: the
/// gravity terms -ad_{Ad^{-1}_{g_beta} G} S_beta of the path, moved to point k by
/// Ad^{-1}_{g_beta,k}, sum to -ad_{Ad^{-1}_{g_k} G} S^B_k (Ad^{-1} ad_x = ad_{Ad^{-1} x} Ad^{-1}).
///
/// \p data must come from inverse_dynamics_derivatives at the same q, \p qdot and \p qddot and
/// with the same \p gravity (data.q_b holds (dS/dq) qddot and the gravity term). Allocates nothing.
/// \throws std::invalid_argument if \p time_constant is not positive and finite.
void baumgarte_rows(const MultibodyData& data, const ClosedChainModel& chains, const VectorX& qdot,
                    const VectorX& qddot, const Vec3& gravity, double time_constant, ClosedChainData& out);

/// \brief The loop joints' constraint wrenches for the multipliers out.lambda, as loads of the
/// inverse dynamics (KinematicLoads): at point A, o_A's coadjoint of Ad^{-*}_{g_BA} Phi_perp
/// lambda, which turns with g_BA, and at point B the follower wrench -Ad*_{o_B} Phi_perp lambda.
/// With derivatives, dF_A/dq = -Ad*_{o_A} Ad^{-*}_{g_BA} adbar*_{Phi_perp lambda}
/// (Ad_{g_BA} J_a - J_b) (Mathew et al., D69) seeds the backward pass. The data.id it yields is
/// ID - A^T lambda, data.did_dq its derivative at fixed lambda. With derivatives it writes
/// buffers.relative_jacobian; it holds references to both arguments.
class ConstraintWrenches final : public KinematicLoads {
public:
    ConstraintWrenches(const ClosedChainModel& chains, ClosedChainData& buffers)
        : chains_(chains), buffers_(buffers) {}
    void apply(const MultibodyModel& model, MultibodyData& data, bool derivatives) const override;

private:
    const ClosedChainModel& chains_;
    ClosedChainData& buffers_;
};

}  // namespace soma::gvs
