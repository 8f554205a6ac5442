#pragma once
/// \file virtual_joint.hpp
/// \brief One joint of the GVS recursion: a soft interval [X_a, X_a + h] of a Cosserat rod seen as
/// a "virtual joint", or a rigid joint, with every kinematic quantity the recursive inverse
/// dynamics and its analytical derivatives need (Mathew et al., Appendix C).
///
/// A soft interval's twist comes from the strain xi = Phi q + xi* at the two Zanna collocation
/// points z1, z2 = X_a + (1/2 -+ sqrt(3)/6) h, a fourth-order truncation of the Magnus expansion
/// of g' = g xi^ (Mathew et al., eq. C1), with c = sqrt(3) h^2 / 12:
///
///     Omega = (h/2)(xi_z1 + xi_z2) + c ad_{xi_z1} xi_z2,      g_{a,a+1} = exp(Omega^),
///     Z     = dOmega/dq = (h/2)(Phi_z1 + Phi_z2) + c (ad_{xi_z1} Phi_z2 - ad_{xi_z2} Phi_z1),
///     S     = T(Omega) Z   (motion subspace: S qdot is the joint's relative twist in the frame at X_a).
///
/// The second-order option is the midpoint rule Omega = h xi(X_a + h/2), Z = h Phi(X_a + h/2) (not
/// in the paper; SoRoSim offers it). A rigid joint has Omega = xi = Phi q + xi*, Z = Phi.
///
/// Derivative notation (Mathew et al., Appendix C): (dS/dq) v is the 6 x n matrix whose column k
/// is (dS/dq_k) v; it is not Sdot, whose column j is sum_k (dS_j/dq_k) qdot_k.
///
/// Nothing allocates after VirtualJointKinematics::resize().

#include "gvs_types.hpp"
#include "screw_theory.hpp"

#include <Eigen/Core>

namespace soma::gvs {

/// \brief Everything the RNEA and its derivatives need from one joint. n is the body's DOF count
/// (a soft interval depends on all its rod's coordinates); all 6 x n buffers are sized by resize().
struct VirtualJointKinematics {
    /// \brief Sizes the 6 x n buffers (and zeroes everything). Call once per model.
    void resize(Index n);

    Vec6 Omega = Vec6::Zero();       ///< twist of the joint (eq. C1)
    Vec6 Omega_dot = Vec6::Zero();   ///< = Z qdot (eqs. C2, C6)
    Vec6 Omega_ddot = Vec6::Zero();  ///< = Z qddot + Zdot qdot (eqs. C3, C7)
    Matrix6X Z;                      ///< dOmega/dq (eq. C5)
    Matrix6X Z_dot;                  ///< dZ/dt = (dZ/dq) qdot (eqs. C8, C9)
    Matrix6X Z_ddot;                 ///< d^2Z/dt^2 = (dZ/dq) qddot (eqs. C11, C14)
    Mat6 T = Mat6::Identity();       ///< tangent operator T(Omega) (Appendix A)
    Mat6 T_dot = Mat6::Zero();       ///< dT/dt (Appendix A)
    Matrix6X S;                      ///< T Z (eq. C15)
    Matrix6X S_dot;                  ///< Tdot Z + T Zdot (eq. C21)
    Matrix6X dS_dq_qdot;             ///< (dS/dq) qdot (eq. C19)
    Matrix6X dS_dq_qddot;            ///< (dS/dq) qddot (eq. C20)
    Matrix6X dSdot_dq_qdot;          ///< (dSdot/dq) qdot, qdot held fixed (eq. C24)
    Pose g;                          ///< exp(Omega^): the interval's end in its start frame
};

/// \brief What evaluate_soft_joint() and evaluate_rigid_joint() fill: the kinematics alone
/// (Omega and its rates, Z, Zdot, T, Tdot, S, Sdot, g: what ID needs) or also the derivative
/// blocks (Zddot, (dS/dq)qdot, (dS/dq)qddot, (dSdot/dq)qdot), which cost 3 to 5 times as much.
enum class JointOutputs { kinematics, derivatives };

/// \brief Evaluates a soft interval of length \p h (Mathew et al., eqs. C1-C24).
/// \param[in] order  fourth: Zanna collocation (eq. C1); second: the midpoint rule, which reads the
///                   midpoint's basis and reference strain from \p Phi_z1 and \p xi_star_z1 and
///                   ignores \p Phi_z2 and \p xi_star_z2.
/// \param[in] Phi_z1, Phi_z2          the rod's strain basis at the collocation points (6 x n)
/// \param[in] xi_star_z1, xi_star_z2  the reference strain there
/// \param[in] q, qdot, qddot          the rod's coordinates and their rates (size n)
/// \param[out] out                    resized beforehand to n
void evaluate_soft_joint(MagnusOrder order, double h, const Matrix6X& Phi_z1, const Matrix6X& Phi_z2,
                         const Vec6& xi_star_z1, const Vec6& xi_star_z2, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& qdot, const Eigen::Ref<const VectorX>& qddot,
                         VirtualJointKinematics& out, JointOutputs outputs = JointOutputs::derivatives);

/// \brief Evaluates a rigid joint of constant strain xi = Phi q + xi* on [0, 1] (Mathew et al.,
/// section 2): Omega = xi, Z = Phi, Zdot = Zddot = 0.
/// \param[in] Phi      the joint's basis (6 x n), e.g. [I_3; 0] for a spherical joint
/// \param[in] xi_star  its reference strain
/// \param[out] out     resized beforehand to n
void evaluate_rigid_joint(const Matrix6X& Phi, const Vec6& xi_star, const Eigen::Ref<const VectorX>& q,
                          const Eigen::Ref<const VectorX>& qdot, const Eigen::Ref<const VectorX>& qddot,
                          VirtualJointKinematics& out, JointOutputs outputs = JointOutputs::derivatives);

/// \brief out += (dS^T/dq) F, the n x n Jacobian of S(q)^T F for a fixed wrench F (Mathew et al.,
/// eq. C29): entry (i, k) is F . dS_i/dq_k.
/// \param[in] order, h, Phi_z1, Phi_z2  as given to evaluate_soft_joint() for the same joint
/// \param[in] k                         that joint's evaluated kinematics (Omega, T and Z are read)
/// \param[in] F                         a wrench in the joint's base frame (the paper's F^C)
/// \param[in,out] out                   n x n
void add_dST_dq_times(MagnusOrder order, double h, const Matrix6X& Phi_z1, const Matrix6X& Phi_z2,
                      const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out);

/// \brief out += (dS^T/dq) F for a rigid joint: only the tangent operator's terms of eq. C29, Z = Phi
/// being constant.
void add_dST_dq_times_rigid(const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out);

}  // namespace soma::gvs
