#pragma once
/// \file midedge_bending.hpp
/// \brief Mid-edge normal shell bending of one triangle (MAT-DiSMech §3.3.2, eq. 18-20, after
/// Grinspun et al. 2006), as a function of the configuration alone, with its exact gradient and
/// Hessian.
///
/// Conventions (triangle_mesh.hpp): vertices (p_0, p_1, p_2); local edge k is opposite vertex k
/// and runs along the cyclic order, v_k = p_{k+2} - p_{k+1} (indices mod 3); n is the unit
/// normal, t^k = v_k x n the in-plane outward edge normal (|t^k| = l^k = |v_k|).
///
/// The paper's shape operator (eq. 19) with its edge coefficients (Appendix A):
///
///     Lambda = sum_k c^k (s^k xi^k - f^k) t^k (x) t^k,
///     f^k = n.tau~^k,   c^k = 1 / (A_bar l_bar^k (t_hat^k.tau~^k)),   tau~^k = s^k tau^k
///
/// where tau^e = unit(e_hat x n_avg) is the edge's in-plane perpendicular in the average tangent
/// plane (n_avg = unit(n_a + n_b) of its two faces) and xi^e = n^{m,e}.tau^e is the mid-edge
/// normal's component along it (the DOF). The paper refreshes tau^e from the configuration at the
/// start of every time step and carries xi over unchanged; an equilibrium then depends on the
/// number of load steps (xi is measured against a frame that moves between steps). Here tau^e
/// is a function of the current configuration, so the energy is a function of (x, xi) only and
/// its equilibria are path-independent. Evaluated at the configuration the paper takes tau from,
/// both give the same energy.
///
/// With tau^e from the current configuration the edge terms have a closed form. Let theta^k be
/// the signed dihedral angle at edge k (from this face's normal to the neighbour's, about v_k,
/// hinge_bending.hpp's hinge_angle with the neighbour's opposite vertex as the wing). Then
/// n_avg makes the angle theta^k/2 with n, and
///
///     c^k (s^k xi^k - f^k) = phi^k / (A_bar l_bar^k),   phi^k = s^k xi^k sec(theta^k/2) + tan(theta^k/2)
///
/// (f^k = -sin(theta)/|n + n'|, t_hat.tau~ = (1 + cos theta)/|n + n'|, |n + n'| = 2 cos(theta/2)).
/// A boundary edge has n_avg = n: phi^k = s^k xi^k = n^m.t_hat^k.
///
/// Held edges (a clamp): an edge whose xi is fixed or prescribed has its mid-edge normal held in
/// the world, n^m(xi) = sqrt(1 - xi^2) n_bar + xi tau_bar, from the edge's initial normal n_bar and
/// tau_bar = unit(e_bar x n_bar) (e_bar the initial direction n0 -> n1): xi keeps its meaning of
/// a free edge's (the component along tau), measured in the initial frame. For each adjacent face
/// the edge measure is phi^k = sin(theta_g^k), with theta_g^k the hinge angle to the ghost wing
/// y = p_{k+1} + v_k x n^m (midedge_ghost_wing), whose face (p_{k+2}, p_{k+1}, y) has the normal
/// n^m projected perpendicular to the current edge. phi is the component of that normal along the
/// face's t_hat^k, as n^m.t_hat^k is for a free boundary edge. The ghost depends on the edge's
/// nodes and xi, and the derivatives follow that dependence exactly (so J times any velocity of
/// the clamp, a rigid translation included, is right; Rayleigh damping relies on it).

/// Energy (eq. 20), with the natural shape laid on the current edge normals for rotation
/// invariance (Lambda_bar = sum_k a_bar^k t^k (x) t^k, a_bar^k the natural value of
/// phi^k / (A_bar l_bar^k)), d^k = phi^k / (A_bar l_bar^k) - a_bar^k and
/// t^i.t^j = v_i.v_j:
///
///     E = k_b A_bar [ (1-nu) sum_ij d^i d^j (v_i.v_j)^2 + nu (sum_i |v_i|^2 d^i)^2 ],
///     k_b = E h^3 / (24 (1 - nu^2))        (eq. 20; not Appendix A's prefactor)
///
/// The derivatives are exact: the chain rule through d(theta, xi) (hinge_angle's exact gradient
/// and Hessian) and through the Gram matrix v_i.v_j. The paper's Appendix A derivatives hold c,
/// t and A constant and are not the derivatives of any energy; they are not used.
///
/// Local DOF order of one triangle (21): [x_0, x_1, x_2, xi^0, xi^1, xi^2, w_0, w_1, w_2], with
/// w_k the wing vertex across an interior local edge k (the neighbour's opposite vertex; unused on
/// boundary and held edges, where its entries are zero). The element drops the entries of wings
/// that are not DOFs. No function here allocates.

#include "soma/types.hpp"

#include <array>

namespace soma::shells {

/// How the mid-edge normal of a triangle's local edge is determined.
enum class MidedgeEdgeKind {
    interior,  ///< two faces, xi free: phi = s xi sec(theta/2) + tan(theta/2)
    boundary,  ///< one face, xi free: phi = s xi
    held,      ///< xi fixed or prescribed: mid-edge normal held in the world, phi = sin(theta_g)
};

/// Constants of one triangle's mid-edge bending energy.
struct MidedgeTriangle {
    double rest_area = 0.0;                    ///< A_bar (m^2)
    Vec3 rest_lengths = Vec3::Ones();          ///< l_bar^k of local edge k (m)
    Vec3 signs = Vec3::Ones();                 ///< s^k of local edge k (+1 or -1)
    Vec3 natural_coefficients = Vec3::Zero();  ///< a_bar^k (1/m^3): natural phi^k / (A_bar l_bar^k)
    double bending_stiffness = 0.0;            ///< k_b = E h^3 / (24 (1 - nu^2)) (J)
    double poisson_ratio = 0.0;                ///< nu in [0, 0.5]
    std::array<MidedgeEdgeKind, 3> kinds{MidedgeEdgeKind::interior, MidedgeEdgeKind::interior,
                                         MidedgeEdgeKind::interior};
    /// Held edges only: the initial normal n_bar and tau_bar = unit(e_bar x n_bar) of local edge k
    /// (e_bar: the mesh edge's initial direction n0 -> n1, the sign convention of its xi).
    std::array<Vec3, 3> held_normal{};
    std::array<Vec3, 3> held_tangent{};
};

/// The configuration one triangle's energy reads (see the DOF order above).
struct MidedgeStencil {
    std::array<Vec3, 3> x{};      ///< vertices p_0, p_1, p_2
    Vec3 xi = Vec3::Zero();       ///< xi of local edges 0, 1, 2 (global sign convention)
    std::array<Vec3, 3> wing{};   ///< wing vertex across an interior local edge k (unused otherwise)
};

/// \brief k_b = E h^3 / (24 (1 - nu^2)) (MAT-DiSMech eq. 20).
/// \throws std::invalid_argument for nu outside [0, 0.5] (nu = 1 would divide by zero), or
/// non-positive E, h.
double midedge_bending_stiffness(double youngs_modulus, double poisson_ratio, double thickness);

/// \brief The edge measures phi^k of the three local edges (dimensionless).
Vec3 midedge_edge_measures(const MidedgeTriangle& triangle, const MidedgeStencil& stencil);

/// \brief The held mid-edge normal n^m(xi) = sqrt(1 - xi^2) n_bar + xi tau_bar of a held local edge.
/// \throws std::domain_error for |xi| > 1 (no unit normal has that component).
Vec3 midedge_held_normal(const MidedgeTriangle& triangle, int k, double xi);

/// \brief Natural coefficients a_bar^k = phi^k / (A_bar l_bar^k) at the natural configuration
/// (xi = 0), for the edge kinds set in `triangle`.
Vec3 midedge_natural_coefficients(const MidedgeTriangle& triangle, const MidedgeStencil& natural);

/// \brief The mid-edge bending energy (eq. 20) of one triangle (J).
double midedge_energy(const MidedgeTriangle& triangle, const MidedgeStencil& stencil);

/// \brief Energy and its exact gradient in the 21-DOF order above.
double midedge_energy_gradient(const MidedgeTriangle& triangle, const MidedgeStencil& stencil,
                               VecN<21>& gradient);

/// \brief Energy, exact gradient and exact (symmetric) Hessian in the 21-DOF order above.
double midedge_energy_gradient_hessian(const MidedgeTriangle& triangle, const MidedgeStencil& stencil,
                                       VecN<21>& gradient, MatN<21>& hessian);

/// \brief Discrete shape operator Lambda = sum_k (phi^k / (A_bar l_bar^k)) t^k (x) t^k (3x3,
/// world frame, 1/m), for output and tests.
Mat3 midedge_shape_operator(const MidedgeTriangle& triangle, const MidedgeStencil& stencil);

/// \brief The ghost wing vertex of a held edge from `edge_start` along `edge_vector` (the face's
/// cyclic direction): the face (edge_end, edge_start, ghost) has the normal `held_normal`
/// projected perpendicular to the edge, so the hinge angle to it is the angle from the face
/// normal to the held mid-edge normal.
Vec3 midedge_ghost_wing(const Vec3& edge_start, const Vec3& edge_vector, const Vec3& held_normal);

}  // namespace soma::shells
