#pragma once
/// \file rod_discretization.hpp
/// \brief The computational points of one soft rod and everything precomputed at them: the
/// quadrature, the Zanna collocation points, the strain basis, the cross-section constants and
/// the generalised stiffness and damping (Mathew et al., sections 2-3, eqs. 3, C1, D64, D65).
///
/// Points. n_g Gauss-Legendre points on [0, L] plus the base X = 0 and the tip X = L, which carry
/// weight 0 (the cable-driven manipulator's 5 Gauss points give n_p = 7, Mathew et al., section
/// 4.5), so that the kinematics reaches both ends while integrals use Gauss quadrature:
///
///     integral_0^L Qbar dX ~ sum_k w_k Qbar(X_k),   exact for polynomials of degree <= 2 n_g - 1
///
/// (Mathew et al., eq. 3). Intervals. Between consecutive points X_a and X_{a+1}, h_a = X_{a+1} - X_a;
/// the 4th-order Magnus expansion collocates the strain at the Zanna points
/// z1, z2 = X_a + (1/2 -+ sqrt(3)/6) h_a (Mathew et al., eq. C1), the 2nd-order one at the midpoint.
///
/// Sections. The section's y and z axes are the rod frame's; a circle of radius r(X) or a
/// rectangle of width w(X) along y and height h(X) along z, evaluated at every point:
///
///     Sigma   = diag(G J_x, E J_y, E J_z, E A, G A, G A)       screw stiffness (N m^2, N)
///     Upsilon = v diag(J_x, 3 J_y, 3 J_z, 3 A, A, A)           screw damping (v in Pa s)
///     Mbar    = rho diag(J_p, J_y, J_z, A, A, A)               screw inertia per unit length
///     K = sum_k w_k Phi_k^T Sigma_k Phi_k,   D = sum_k w_k Phi_k^T Upsilon_k Phi_k   (eqs. D64, D65)
///
/// with G = E / (2 (1 + nu)), J_y = integral z^2 dA, J_z = integral y^2 dA, J_x the torsion constant
/// and J_p = J_y + J_z the polar moment. For a circle J_x = J_p = pi r^4 / 2; for a rectangle
/// Saint-Venant's torsion constant is smaller than J_p (0.84 J_p for a square, 0.037 J_p for the
/// fin-ray's 1 x 10 mm ribs). Stiffness and damping twist the section (J_x, as in D64, D65); the
/// rotary inertia spins it (J_p): the two differ only for non-circular sections.

#include "gvs_types.hpp"
#include "strain_basis.hpp"

#include <functional>
#include <variant>
#include <vector>

namespace soma::gvs {

/// \brief Gauss-Legendre nodes (increasing) and weights on [-1, 1].
struct GaussLegendreRule {
    std::vector<double> nodes;
    std::vector<double> weights;
};

/// Most Gauss points accepted per rod.
inline constexpr int kMaxGaussPoints = 64;

/// \brief The n-point Gauss-Legendre rule on [-1, 1]: nodes by Newton's iteration on P_n from
/// Tricomi's guesses (to 1e-16), weights 2 / ((1 - x^2) P_n'(x)^2) (to 1e-13 relative at n = 64).
/// Exact for polynomials of degree <= 2n - 1.
/// \throws std::invalid_argument unless 1 <= n <= kMaxGaussPoints.
GaussLegendreRule gauss_legendre(int n);

/// A scalar field of the arc length, f(X) with X in [0, L] (a radius, a width, ...).
using ScalarField = std::function<double(double)>;
/// A reference strain field xi*(X) (Mathew et al., eq. 1).
using StrainField = std::function<Vec6(double)>;

/// \brief A circular section of radius r(X) (m).
struct CircularProfile {
    ScalarField radius;
};

/// \brief A rectangular section of width w(X) along the section's y axis and height h(X) along
/// its z axis (m): bending about z (k_z) bends across the width.
struct RectangularProfile {
    ScalarField width;
    ScalarField height;
};

/// The shape of the section along the rod, possibly tapered.
using SectionProfile = std::variant<CircularProfile, RectangularProfile>;

/// \brief Geometric constants of one section (SI units).
struct SectionConstants {
    double area = 0.0;              ///< A (m^2)
    double torsion_constant = 0.0;  ///< J_x (m^4): G J_x is the torsional stiffness
    double second_moment_y = 0.0;   ///< J_y = integral z^2 dA (m^4): bending about y
    double second_moment_z = 0.0;   ///< J_z = integral y^2 dA (m^4): bending about z

    /// \brief J_p = J_y + J_z (m^4): the rotary inertia about the axis per unit density and length.
    double polar_moment() const { return second_moment_y + second_moment_z; }
};

/// \brief A circle of radius r: A = pi r^2, J_y = J_z = pi r^4 / 4, J_x = pi r^4 / 2.
SectionConstants circular_section(double radius);

/// \brief A rectangle of width w (along y) and height h (along z): A = w h, J_y = w h^3 / 12,
/// J_z = h w^3 / 12, J_x = rectangle_torsion_constant(w, h).
SectionConstants rectangular_section(double width, double height);

/// \brief Saint-Venant's torsion constant of a solid rectangle with sides a >= b (either order):
///
///     J = a b^3 / 3 [1 - (192 / pi^5) (b / a) sum_{n odd} tanh(n pi a / (2 b)) / n^5]
///
/// (Saint-Venant's series for the solid rectangle, as in Timoshenko & Goodier, Theory of
/// Elasticity, torsion of rectangular bars), summed to round-off: exact, not Roark's
/// 0.21 (b/a) approximation (whose error reaches 0.5%). Square: 0.1406 a^4; thin strip: a b^3/3.
double rectangle_torsion_constant(double width, double height);

/// \brief A linear elastic, Kelvin-Voigt damped material.
struct RodMaterial {
    double young_modulus = 0.0;  ///< E (Pa), > 0
    double poisson_ratio = 0.0;  ///< nu, in (-1, 0.5]
    double density = 0.0;        ///< rho (kg/m^3), > 0
    double damping = 0.0;        ///< v (Pa s), >= 0: material damping coefficient (Mathew et al., D65)

    /// \brief G = E / (2 (1 + nu)) (Pa).
    double shear_modulus() const { return young_modulus / (2.0 * (1.0 + poisson_ratio)); }
};

/// \brief Sigma = diag(G J_x, E J_y, E J_z, E A, G A, G A) (Mathew et al., D64).
Mat6 section_stiffness(const SectionConstants& section, const RodMaterial& material);
/// \brief Upsilon = v diag(J_x, 3 J_y, 3 J_z, 3 A, A, A) (Mathew et al., D65).
Mat6 section_damping(const SectionConstants& section, const RodMaterial& material);
/// \brief Mbar = rho diag(J_p, J_y, J_z, A, A, A), the screw inertia per unit length about the
/// section's centroid, J_p = J_y + J_z.
Mat6 section_inertia(const SectionConstants& section, const RodMaterial& material);

/// \brief Everything that defines one soft rod's discretisation. The length is the basis's.
struct RodDescription {
    StrainBasis basis;
    SectionProfile section;
    RodMaterial material;
    int gauss_points = 5;                          ///< n_g, 1..kMaxGaussPoints
    MagnusOrder magnus_order = MagnusOrder::fourth;
    StrainField xi_star{};  ///< reference strain xi*(X); empty: straight, [0 0 0 1 0 0]
};

/// \brief A soft rod's computational points and what is precomputed at them (immutable once built).
///
/// Points k = 0 .. n_p - 1 (n_p = n_g + 2): X[0] = 0, X[n_p - 1] = L, weights sum to L.
/// Intervals a = 0 .. n_p - 2 join X[a] to X[a + 1]; their collocation points are stored at
/// a * collocation_per_interval() + j, j = 0 (z1) and 1 (z2) at 4th order, j = 0 (midpoint) at 2nd.
struct RodDiscretization {
    /// \brief Evaluates everything at the points of \p rod.
    /// \throws std::invalid_argument naming the key and the valid range: gauss_points outside
    ///   1..64, E <= 0, nu outside (-1, 0.5], rho <= 0, v < 0, a missing profile field, a
    ///   dimension that is negative or not finite at a point or zero at a Gauss point (a point
    ///   of zero weight, such as the tip of a rod tapered to a point, may have zero section), or
    ///   a reference strain that is not finite.
    explicit RodDiscretization(const RodDescription& rod);

    StrainBasis basis;
    MagnusOrder magnus_order;
    int gauss_points;

    // Computational points (Mathew et al., eq. 3).
    std::vector<double> X;                  ///< X_k, increasing
    std::vector<double> weight;             ///< w_k; 0 at the base and the tip
    std::vector<Matrix6X> phi;              ///< Phi(X_k), 6 x n
    std::vector<Vec6> xi_star;              ///< xi*(X_k)
    std::vector<SectionConstants> section;  ///< A, J_x, J_y, J_z at X_k
    std::vector<Mat6> stiffness;            ///< Sigma(X_k) (D64)
    std::vector<Mat6> damping;              ///< Upsilon(X_k) (D65)
    std::vector<Mat6> inertia;              ///< Mbar(X_k) per unit length; the point's is w_k Mbar

    // Intervals (Mathew et al., eq. C1).
    std::vector<double> h;                  ///< h_a = X_{a+1} - X_a
    std::vector<double> collocation_X;      ///< z1, z2 (or the midpoint) of each interval
    std::vector<Matrix6X> collocation_phi;  ///< Phi at the collocation points
    std::vector<Vec6> collocation_xi_star;  ///< xi* at the collocation points

    Eigen::MatrixXd K;  ///< generalised stiffness, n x n, symmetric PSD (D64)
    Eigen::MatrixXd D;  ///< generalised damping, n x n, symmetric PSD (D65)

    Index dof_count() const { return basis.dof_count(); }
    double length() const { return basis.length(); }
    Index point_count() const { return static_cast<Index>(X.size()); }
    Index interval_count() const { return static_cast<Index>(h.size()); }
    /// \brief 2 (z1, z2) at 4th order, 1 (the midpoint) at 2nd.
    int collocation_per_interval() const { return magnus_order == MagnusOrder::fourth ? 2 : 1; }
};

}  // namespace soma::gvs
