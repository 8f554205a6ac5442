#pragma once
/// \file hinge_bending.hpp
/// \brief Discrete hinge bending of a triangle mesh (MAT-DiSMech §3.3.1, eq. 17):
///
///     E = 1/2 k_b (phi - phi_bar)^2,        k_b = (2/sqrt(3)) E h^3/12
///
/// phi is the signed angle between the normals of the two faces of a hinge (0 when flat),
/// phi_bar the natural angle (from the initial geometry, or set by actuation).
///
/// Stiffness: we use the reference code's k_b = (2/sqrt(3)) E h^3/12, twice the paper's
/// (1/sqrt(3)) E h^3/12 (MAT-DiSMech, after eq. 17). On an equilateral mesh the continuum
/// plate rigidity of hinge springs is D = (sqrt(3)/2) k_b (Seung & Nelson 2008), so
/// the code's value gives D = E h^3/12. The lattice has its own bending Poisson ratio 1/3
/// (derived in tests/validation/test_cantilever_plate_hinge.cpp): a strip with free anticlastic
/// curvature has rigidity (8/9) E h^3/12. The material's Poisson ratio does not enter, and the
/// response depends on the mesh (shape; orientation on non-equilateral meshes).
///
/// Node order [x0, x1, x2, x3] (MAT-DiSMech's reference code): x0 -> x1 is the hinge edge, x2 the wing vertex
/// of the first face (x0, x1, x2), x3 the wing vertex of the second face (x1, x0, x3). With
/// consistently oriented faces the normals are n0 = e0 x e1 and n1 = e2 x e0 and
///
///     phi = atan2( (n0 x n1) . e0/|e0|,  n0 . n1 )
///
/// (the reference code's signedAngle(n0, n1, e0)). phi > 0 when the wings x2, x3 have rotated
/// away from the normal side, towards -n0: the sheet then forms a ridge pointing to +n (a
/// "mountain" seen from the side the normals point to). See hinge_angle().
/// Local DOFs (12): [x0, x1, x2, x3], 3 each.

#include "soma/types.hpp"

namespace soma::shells {

/// Hinge stiffness (N m) of the hinge model: k_b = (2/sqrt(3)) E h^3/12 (reference code,
/// twice the value printed after MAT-DiSMech eq. 17).
double hinge_bending_stiffness(double youngs_modulus, double thickness);

/// \brief Signed hinge angle phi in (-pi, pi] (rad): the angle from n0 = e0 x e1 to
/// n1 = e2 x e0 about the edge direction e0 = x1 - x0 (right-hand rule), 0 when flat.
/// Example: x0 = 0, x1 = (1,0,0), x2 = (a, 1, 0), x3 = (b, -cos t, -sin t) gives phi = t
/// (x3 rotated by t about +e0, below the plane of the first face whose normal is +z).
double hinge_angle(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3);

/// \brief phi and its gradient d phi / d[x0, x1, x2, x3] (Tamstorf-Grinspun form, as in MAT-DiSMech's reference code).
double hinge_angle_gradient(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3,
                            VecN<12>& gradient);

/// \brief phi, its gradient and its Hessian (12x12, symmetric) (Tamstorf-Grinspun form).
double hinge_angle_gradient_hessian(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3,
                                    VecN<12>& gradient, MatN<12>& hessian);

/// Natural angle and stiffness of one hinge spring.
struct HingeSpring {
    double stiffness = 0.0;      ///< k_b (N m)
    double natural_angle = 0.0;  ///< phi_bar (rad)
};

/// \brief Hinge energy 1/2 k_b (phi - phi_bar)^2 (J).
double hinge_energy(const HingeSpring& spring, const Vec3& x0, const Vec3& x1, const Vec3& x2,
                    const Vec3& x3);

/// \brief Energy and gradient k_b (phi - phi_bar) grad phi.
double hinge_energy_gradient(const HingeSpring& spring, const Vec3& x0, const Vec3& x1,
                             const Vec3& x2, const Vec3& x3, VecN<12>& gradient);

/// \brief Energy, gradient and Hessian k_b [grad phi grad phi^T + (phi - phi_bar) Hess phi].
double hinge_energy_gradient_hessian(const HingeSpring& spring, const Vec3& x0, const Vec3& x1,
                                     const Vec3& x2, const Vec3& x3, VecN<12>& gradient,
                                     MatN<12>& hessian);

}  // namespace soma::shells
