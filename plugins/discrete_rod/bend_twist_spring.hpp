#pragma once
/// \file bend_twist_spring.hpp
/// \brief Bending and twisting energy at one interior rod node (MAT-DiSMech §3.2,
/// eq. 11-16; Bergou et al. 2010 with the Panetta-corrected Hessians of the reference code).
///
/// A bend-twist spring has a center node x_c, an incoming edge e = x_c - x_p and an outgoing
/// edge f = x_n - x_c. Its 11 local DOFs are [x_p (3), x_c (3), x_n (3), theta_e, theta_f].
///
///     kb     = 2 e x f / (|e||f| + e.f)                       curvature binormal
///     kappa1 =  1/2 (m2_e + m2_f) . kb,   kappa2 = -1/2 (m1_e + m1_f) . kb
///     tau    = theta_f - theta_e + m_ref                       (m_ref: reference twist)
///     E      = 1/(2 dl) [ EI1 (kappa1 - kappa1_bar)^2 + EI2 (kappa2 - kappa2_bar)^2
///                         + GJ (tau - tau_bar)^2 ]
///
/// kappa1 measures bending in the (t, m1) plane (rotation about m2), so EI1 uses the second
/// moment of area about the m2 axis; kappa2 bending in the (t, m2) plane, about the m1 axis.
///
/// Reference frames are time-parallel transported (MAT-DiSMech §3.2) from the source tangents s
/// (the committed ones) to the current tangents t, so the energy is a function of the DOFs for
/// a given s. The gradient and Hessian here are its exact derivatives at any t, s: the textbook
/// DER formulas (frames moving by the minimal rotation of their tangent) are exact only at
/// t = s; away from it the transported frame also spins about t by the holonomy of the
/// transport (the solid angle of the spherical triangle s, t, t + dt):
///
///     d psi = omega . de,   omega = (t x s) / (|e| (1 + s.t))
///
/// and a spin acts on the energy exactly as a change of theta. So with theta~ = theta + psi,
/// g_exact = S^T g and H_exact = S^T H S + dE/dtheta_e d(omega_e)/de (+ the same for f), where
/// g, H are the minimal-rotation derivatives and S = d(e, f, theta~)/d(e, f, theta). Without the
/// correction the assembled force is not a gradient away from the committed state (an error of
/// O(angle(s, t) dE/dtheta)), the Jacobian is not its derivative (Newton converges only
/// linearly) and its position block has an antisymmetric part proportional to the twisting
/// moment; with it the Hessian is symmetric up to round-off. H(i, j) = d g_i / d q_j.
///
/// Internally all derivatives are first computed in "edge space", the 8 variables
/// [e (3), f (3), theta_e, theta_f], and mapped once to the 11 node DOFs (e and f are linear in
/// the positions, so the map is exact: g11 = S^T g8, H11 = S^T H8 S).

#include "soma/types.hpp"

namespace soma::rod {

/// Rest state and stiffness of one bend-twist spring.
struct BendTwistSpring {
    double voronoi_length = 1.0;  ///< dl = 1/2 (|e_bar| + |f_bar|) (m), MAT-DiSMech after eq. 14
    double bend_stiffness1 = 0.0;  ///< EI1 (N m^2), for kappa1
    double bend_stiffness2 = 0.0;  ///< EI2 (N m^2), for kappa2
    double twist_stiffness = 0.0;  ///< GJ (N m^2)
    double rest_kappa1 = 0.0;      ///< natural curvature kappa1_bar (dimensionless)
    double rest_kappa2 = 0.0;      ///< natural curvature kappa2_bar (dimensionless)
    double rest_twist = 0.0;       ///< natural twist tau_bar (rad) = reference twist at t = 0
};

/// The current configuration of one spring: positions, twist angles, reference frames.
struct BendTwistConfiguration {
    Vec3 x_prev, x_center, x_next;
    double theta_e = 0.0, theta_f = 0.0;  ///< twist angles of the two edges (rad)
    Vec3 a1_e, a2_e, a1_f, a2_f;          ///< current reference frames of edges e and f
    double reference_twist = 0.0;         ///< current reference twist m_ref (rad)
    /// Unit tangents the reference frames were time-parallel transported from (the committed
    /// ones); zero: the current tangents (the frames are the committed ones).
    Vec3 source_e = Vec3::Zero(), source_f = Vec3::Zero();
};

/// One edge's share of the kinematics: unit tangent, length and material frame (MAT-DiSMech
/// §3.2). A rod computes it once per edge for the two springs on either side of the edge.
struct EdgeKinematics {
    Vec3 tangent;
    double length = 0.0;
    Vec3 m1, m2;  ///< material frame: the reference frame turned by theta about the tangent
};

/// Quantities derived from a configuration, shared by the energy and its derivatives.
struct BendTwistKinematics {
    Vec3 t_e, t_f;        ///< unit tangents
    /// Source tangents of the reference frames: each edge's a1 is parallel-transported from the
    /// tangent s (the committed one) to t. Equal to t_e, t_f unless the caller sets them.
    Vec3 s_e, s_f;
    double len_e = 0.0, len_f = 0.0;
    Vec3 m1_e, m2_e, m1_f, m2_f;  ///< material frames
    double chi = 0.0;     ///< 1 + t_e . t_f
    Vec3 kb;              ///< curvature binormal
    Vec3 t_tilde;         ///< (t_e + t_f) / chi
    double kappa1 = 0.0, kappa2 = 0.0, twist = 0.0;
};

/// \brief Curvature binormal 2 e x f / (|e||f| + e.f) (MAT-DiSMech eq. 11).
Vec3 curvature_binormal(const Vec3& e, const Vec3& f);

/// \brief Tangents, material frames, curvature binormal, kappa1, kappa2 and twist.
BendTwistKinematics bend_twist_kinematics(const BendTwistConfiguration& config);

/// \brief The same from the two edges' kinematics and the twist tau = theta_f - theta_e + m_ref.
BendTwistKinematics bend_twist_kinematics(const EdgeKinematics& e, const EdgeKinematics& f,
                                          double twist);

/// \brief Gradient and Hessian of kappa1 in edge space [e, f, theta_e, theta_f]
/// (MAT-DiSMech eq. 12; the reference code's Panetta-corrected D_ee, D_ff). H(i, j) = d g_i / d v_j.
void curvature1_derivatives(const BendTwistKinematics& k, VecN<8>& gradient, MatN<8>& hessian);

/// \brief Gradient and Hessian of kappa2 in edge space (MAT-DiSMech eq. 13).
void curvature2_derivatives(const BendTwistKinematics& k, VecN<8>& gradient, MatN<8>& hessian);

/// \brief Gradient and Hessian of the twist tau in edge space (MAT-DiSMech eq. 15; Panetta-
/// corrected position blocks). tau is linear in theta, so the theta rows/columns are zero.
void twist_derivatives(const BendTwistKinematics& k, VecN<8>& gradient, MatN<8>& hessian);

/// \brief Maps an edge-space gradient to the 11 node DOFs: g11 = S^T g8 with
/// e = x_c - x_p, f = x_n - x_c.
void edge_to_node_gradient(const VecN<8>& edge_gradient, VecN<11>& node_gradient);

/// \brief Maps an edge-space Hessian to the 11 node DOFs: H11 = S^T H8 S.
void edge_to_node_hessian(const MatN<8>& edge_hessian, MatN<11>& node_hessian);

/// \brief Bending + twisting energy of the spring (J).
double bend_twist_energy(const BendTwistSpring& spring, const BendTwistKinematics& k);
double bend_twist_energy(const BendTwistSpring& spring, const BendTwistConfiguration& config);

/// \brief Energy and gradient of the spring over its 11 local DOFs, without the Hessian (the
/// residual-only evaluation of a Newton trial point). The gradient is bit for bit the one of
/// bend_twist_energy_gradient_hessian: both share the kinematics and the edge-space gradients.
/// \param[out] gradient 11-vector
/// \return the energy
double bend_twist_energy_gradient(const BendTwistSpring& spring, const BendTwistKinematics& k,
                                  VecN<11>& gradient);
double bend_twist_energy_gradient(const BendTwistSpring& spring,
                                  const BendTwistConfiguration& config, VecN<11>& gradient);

/// \brief Energy, gradient and Hessian of the spring over its 11 local DOFs
/// [x_p, x_c, x_n, theta_e, theta_f] (MAT-DiSMech eq. 11-16):
///
///     g = (1/dl) [ EI1 dk1 grad k1 + EI2 dk2 grad k2 + GJ dtau grad tau ]
///     H = (1/dl) [ EI1 (grad k1 grad k1^T + dk1 Hess k1) + EI2 (...) + GJ (...) ]
///
/// \param[out] gradient 11-vector
/// \param[out] hessian  11x11, H(i, j) = d g_i / d q_j (see the file comment on its symmetry)
/// \return the energy
double bend_twist_energy_gradient_hessian(const BendTwistSpring& spring,
                                          const BendTwistKinematics& k, VecN<11>& gradient,
                                          MatN<11>& hessian);
double bend_twist_energy_gradient_hessian(const BendTwistSpring& spring,
                                          const BendTwistConfiguration& config,
                                          VecN<11>& gradient, MatN<11>& hessian);

/// \brief As bend_twist_energy_gradient_hessian, with the symmetric part of the Hessian (the
/// `symmetric_jacobian` option of the rod). It is taken in edge space, 1/2 (H8 + H8^T), before
/// the mapping: S^T H8 S is linear in H8, so this is exactly the symmetric part of the 11x11
/// Hessian, at 28 averages instead of 55 and with no 11x11 temporary.
double bend_twist_energy_gradient_symmetric_hessian(const BendTwistSpring& spring,
                                                    const BendTwistKinematics& k,
                                                    VecN<11>& gradient, MatN<11>& hessian);

}  // namespace soma::rod
