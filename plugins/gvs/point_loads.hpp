#pragma once
/// \file point_loads.hpp
/// \brief State-dependent external loads at the computational points of a GVS tree (Mathew et
/// al., section 6): wrenches given in the world frame, a sphere's Hertz contact with a hollow
/// cylinder about the world z axis, and the hydrodynamic drag-lift, added mass and buoyancy.
///
/// The model lists which points carry which load (multibody_model.hpp: add_world_wrench,
/// add_wall_contact, add_hydrodynamics); the inverse dynamics subtracts them from the point
/// wrench F_k ("inertial minus external", Mathew et al., eq. 16) and differentiates them. This
/// file holds the per-point laws, free of the tree, so that each can be checked by hand.
/// Nothing here allocates.
#include "gvs_types.hpp"

namespace soma::gvs {

/// \brief A rigid hollow cylinder of radius `radius` about the world z axis that bodies touch
/// from inside, with the Hertz law f = k_c delta^p (Mathew et al., eqs. 57-58).
struct CylinderWall {
    double radius = 0.0;     ///< r_cyl (m)
    double stiffness = 0.0;  ///< k_c (N / m^p)
    double exponent = 1.5;   ///< p, the Hertz exponent (1.5 for a sphere on a surface)
};

/// \brief A sphere of radius `sphere_radius` centred at point `point` (the rod's local radius on
/// a rod, Mathew et al., section 6.2) that touches the model's CylinderWall.
struct WallContact {
    Index point = 0;
    double sphere_radius = 0.0;
};

/// \brief The fluid's action on point `point` (Mathew et al., eqs. 62-66), in the point's frame,
/// quadrature weight included (like the point's inertia).
struct PointHydrodynamics {
    Index point = 0;
    Mat6 drag = Mat6::Zero();  ///< 𝓓_k: the drag-lift wrench is 𝓓_k |v_k| eta_k (eq. 62)
    /// C_k = 𝓜_A,k + (rho_w / rho_b) 𝓜_k: the model's inertia at the point includes the added
    /// mass 𝓜_A,k, and the wrench C_k Ad^{-1}_{g_k} G takes back the gravity of the added mass
    /// and adds the buoyancy, so the net weight is (1 - rho_w / rho_b) 𝓜_k Ad^{-1}_{g_k} G.
    Mat6 gravity_correction = Mat6::Zero();
};

/// \brief The force of a CylinderWall on a sphere of radius \p sphere_radius centred at \p r
/// (world frame), and its derivative df/dr (Mathew et al., eqs. 57, 58, 61):
///
///     n = C_1 r, C_1 = diag(1, 1, 0), delta = |n| + r_s - r_cyl, u = n / |n|,
///     f = -k_c delta^p u if delta > 0, else 0,
///     df/dr = -k* C_1,  k* = k_c p delta^(p-1) u u^T + (k_c delta^p / |n|) (I_3 - u u^T).
///
/// The sign: u points away from the axis and the wall pushes the sphere back towards it. The
/// paper prints f = +k_c delta^p u in eq. 57 (the printed F_g is what the body applies to the
/// wall); with the RNEA's "inertial minus external" point wrench the force on the body is -k_c
/// delta^p u. At delta = 0 the force is continuous and, for p > 1, so is its derivative (zero);
/// for p = 1 the derivative jumps and the one for delta > 0 is only a one-sided derivative.
/// \param[out] jacobian df/dr, zero when delta <= 0 (not written when null).
/// \return the force f (zero when delta <= 0). The sphere must be smaller than the cylinder
/// (add_wall_contact checks it), so delta > 0 implies |n| > 0.
Vec3 cylinder_wall_force(const CylinderWall& wall, double sphere_radius, const Vec3& r, Mat3* jacobian);

/// \brief The drag-lift wrench F_D = 𝓓 |v| eta, |v| = |[0 I_3] eta| the point's translational
/// speed (Mathew et al., eq. 62), and its derivative with respect to eta (eq. 63):
///
///     𝓓* = 𝓓 (eta eta^T I_v / |v| + |v| I_6),   I_v = diag(0, 0, 0, 1, 1, 1).
///
/// At |v| = 0 the derivative returned is zero. It is the exact derivative when the twist is zero
/// (F_D is then quadratic in eta); when the point spins in place (w != 0, v = 0), the part
/// 𝓓 [w; 0] |v| of F_D has no derivative there: zero is its symmetric (central) derivative, and
/// a step t dv (t > 0) adds 𝓓 [w; 0] t |dv| whatever the sign of dv, so the one-sided
/// derivatives are +-𝓓 [w; 0] |dv|.
/// \param[out] derivative 𝓓* (not written when null).
Vec6 drag_wrench(const Mat6& drag, const Vec6& eta, Mat6* derivative);

}  // namespace soma::gvs
