#pragma once
/// \file midedge_bending.hpp
/// \brief Mid-edge normal shell bending of one triangle (digest 000 §2.7, paper §3.3.2, eq. 18-20
/// and Appendix A with the digest's corrections, erratum §9.4-9.6).
///
/// Conventions (digest 000 §2.7, triangle_mesh.hpp): vertices (p_0, p_1, p_2); local edge k is
/// opposite vertex k and runs along the cyclic order, v_k = p_{k+2} - p_{k+1} (indices mod 3);
///
///     normal n = unit(v_2 x v_0),   A = |v_2 x v_0| / 2,   t^k = v_k x n   (|t^k| = l^k, outward)
///
/// Every mesh edge e carries a unit vector tau^{e,0} perpendicular to it (refreshed from the
/// configuration at the start of each step by the element) and a DOF xi^e = n^{m,e}.tau^{e,0}.
/// A triangle sees the face-oriented tau~^k = s^k tau^{e(k),0} (s^k = +1 when the global edge
/// direction is the face's cyclic direction, digest §2.7 "face-oriented tau", erratum §9.6).
/// Here tau^{e,0} = unit(e_hat x n_avg), the reference code's sign (the paper's n_avg x e_hat is
/// its negative; harmless, digest §2.7): with it tau~^k is close to t_hat^k and c^k > 0.
///
///     g^k = s^k xi^k - f^k,   f^k = n.tau~^k,   c^k = 1 / (A_bar l_bar^k (t_hat^k.tau~^k))
///     Lambda = sum_k c^k g^k t^k (x) t^k                                      (eq. 19)
///     E = k_b A_bar [ (1-nu) Tr((Lambda - Lambda_bar)^2) + nu (Tr Lambda - Tr Lambda_bar)^2 ]   (eq. 20)
///     k_b = E h^3 / (24 (1 - nu^2))        (eq. 20; NOT Appendix A's prefactor, erratum §9.4)
///
/// c^k uses the current t_hat^k but the undeformed A_bar and l_bar^k (digest §2.7).
///
/// Natural shape (one departure from the paper, for rotation invariance): Lambda_bar is kept as
/// its edge coefficients a_bar^k = c_bar^k g_bar^k (natural configuration, xi_bar = 0) and laid
/// on the CURRENT edge normals t^k, so that
///
///     Lambda - Lambda_bar = sum_k d^k t^k (x) t^k,   d^k = c^k g^k - a_bar^k,
///     Tr((Lambda - Lambda_bar)^2) = sum_ij d^i d^j (t^i.t^j)^2,   Tr(Lambda - Lambda_bar) = sum_i d^i (l^i)^2.
///
/// The paper's Tr(Lambda Lambda_bar) = sum_ij c^i c_bar^j g^i g_bar^j (t^i.t_bar^j)^2 mixes current and
/// natural world-frame vectors and changes when a triangle with a curved natural shape is rigidly
/// rotated; laying Lambda_bar on t^k is its rotation-invariant form to the order the model keeps
/// (triangle shapes nearly preserved, digest §2.7 "Approximation"). Both agree exactly at the
/// natural configuration and whenever the natural state is flat (a_bar = 0), as in every
/// validation case.
///
/// Derivatives (Appendix A, digest §2.7): only f^k is differentiated; c^k, t^k and A are held
/// constant. With delta = d (3-vector), M_ij = (t^i.t^j)^2, L_i = (l^i)^2:
///
///     E / (k_b A_bar) = (1-nu) d^T M d + nu (L^T d)^2
///     dd^i/dxi^i = c^i s^i,   dd^i/dx_k = -c^i df^i/dx_k,   df^i/dx_k = (tau~^i.t^k) n / (2A)
///     d2f^i/dx_k1 dx_k2 ~= (tau~^i.t^k1) (n (x) t^k2 + t^k2 (x) n) / (4 A^2)   (paper's approximation)
///
/// which reproduces the digest's corrected Appendix A gradient and Hessian term by term (the
/// minus sign of the x-x Hessians and the outer products of erratum §9.5 come out of the chain
/// rule). The gradient is therefore the exact gradient of the energy with c, t and A frozen at
/// the evaluation point, and only an approximation of the gradient of the full energy.
///
/// DOF order of one triangle (12): [x_0, x_1, x_2, xi^0, xi^1, xi^2], xi^k of the triangle's local
/// edge k. No function here allocates.

#include "soma/types.hpp"

#include <array>

namespace soma::shells {

/// Constants of one triangle's mid-edge bending energy, fixed at construction.
struct MidedgeTriangle {
    double rest_area = 0.0;                    ///< A_bar (m^2)
    Vec3 rest_lengths = Vec3::Ones();          ///< l_bar^k of local edge k (m)
    Vec3 signs = Vec3::Ones();                 ///< s^k of local edge k (+1 or -1)
    Vec3 natural_coefficients = Vec3::Zero();  ///< a_bar^k = c_bar^k g_bar^k (1/m), xi_bar = 0
    double bending_stiffness = 0.0;            ///< k_b = E h^3 / (24 (1 - nu^2)) (J)
    double poisson_ratio = 0.0;                ///< nu in [0, 0.5]
};

/// \brief k_b = E h^3 / (24 (1 - nu^2)) (digest 000 eq. 20, §2.0).
/// \throws std::invalid_argument for nu outside [0, 0.5] (nu = 1 would divide by zero), or
/// non-positive E, h.
double midedge_bending_stiffness(double youngs_modulus, double poisson_ratio, double thickness);

/// Per-triangle quantities at one configuration: everything the paper holds constant (c, t, A)
/// plus the unit normal and the face-oriented tau~.
struct MidedgeFrame {
    Vec3 normal = Vec3::UnitZ();          ///< n
    double area = 0.0;                    ///< current A (used only in df/dx)
    std::array<Vec3, 3> edge_normals{};   ///< t^k = v_k x n (length l^k)
    std::array<Vec3, 3> face_tau{};       ///< tau~^k = s^k tau^{e(k),0}
    Vec3 coefficients = Vec3::Zero();     ///< c^k = 1 / (A_bar l_bar^k (t_hat^k.tau~^k))
};

/// \brief Unit normal and area of the triangle (x_0, x_1, x_2): n = unit(v_2 x v_0).
Vec3 midedge_unit_normal(const std::array<Vec3, 3>& x, double* area = nullptr);

/// \brief The frame of the triangle at configuration x (digest §2.7 conventions).
/// \param[in] rest_area    A_bar
/// \param[in] rest_lengths l_bar^k
/// \param[in] x            vertex positions
/// \param[in] face_tau     tau~^k = s^k tau^{e(k),0} of the three local edges
MidedgeFrame midedge_frame(double rest_area, const Vec3& rest_lengths, const std::array<Vec3, 3>& x,
                           const std::array<Vec3, 3>& face_tau);

/// \brief Natural coefficients a_bar^k = c_bar^k g_bar^k = -c_bar^k f_bar^k (xi_bar = 0) of the
/// natural configuration x_bar with its tau~ (computed once, at construction).
Vec3 midedge_natural_coefficients(double rest_area, const Vec3& rest_lengths, const std::array<Vec3, 3>& x_bar,
                                  const std::array<Vec3, 3>& face_tau);

/// \brief Energy with c, t and A taken from `frozen` and f^k = normal.tau~^k from the given
/// normal: the function the paper's gradient differentiates exactly (tests freeze `frozen` at
/// the evaluation point and vary only the normal, through the positions, and xi).
double midedge_energy_frozen(const MidedgeTriangle& triangle, const MidedgeFrame& frozen, const Vec3& normal,
                             const Vec3& xi);

/// \brief The mid-edge bending energy E (eq. 20) of one triangle at positions x and edge DOFs xi.
double midedge_energy(const MidedgeTriangle& triangle, const std::array<Vec3, 3>& x, const Vec3& xi,
                      const std::array<Vec3, 3>& face_tau);

/// \brief Energy and the paper's gradient (Appendix A, c, t, A held constant).
/// \param[out] gradient [dE/dx_0, dE/dx_1, dE/dx_2, dE/dxi^0, dE/dxi^1, dE/dxi^2]
/// \return the energy
double midedge_energy_gradient(const MidedgeTriangle& triangle, const std::array<Vec3, 3>& x, const Vec3& xi,
                               const std::array<Vec3, 3>& face_tau, VecN<12>& gradient);

/// \brief Energy, gradient and the symmetrized approximate Hessian (Appendix A with the digest's
/// corrections, then (H + H^T)/2; see the .cpp for why).
/// \param[out] gradient as midedge_energy_gradient (bit for bit)
/// \param[out] hessian  12x12, exactly symmetric
/// \return the energy
double midedge_energy_gradient_hessian(const MidedgeTriangle& triangle, const std::array<Vec3, 3>& x,
                                       const Vec3& xi, const std::array<Vec3, 3>& face_tau, VecN<12>& gradient,
                                       MatN<12>& hessian);

/// \brief Discrete shape operator Lambda = sum_k c^k g^k t^k (x) t^k (3x3, world frame), for
/// output and tests.
Mat3 midedge_shape_operator(const MidedgeTriangle& triangle, const std::array<Vec3, 3>& x, const Vec3& xi,
                            const std::array<Vec3, 3>& face_tau);

/// \brief tau^{e,0} = unit(e_hat x n_avg) of a mesh edge n0 -> n1 (reference code's sign, digest
/// §2.7), with n_avg = unit(n_a + n_b) of its faces' unit normals (n_b = n_a on a boundary edge).
Vec3 midedge_edge_tau(const Vec3& x0, const Vec3& x1, const Vec3& normal_a, const Vec3& normal_b);

}  // namespace soma::shells
