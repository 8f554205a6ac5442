#pragma once
/// \file cross_section.hpp
/// \brief Cross-section constants of a rod: area, second moments of area, torsion constant
/// (MAT-DiSMech §3.1-3.2; the rectangle of its §7.2 cantilever).
///
/// Orientation relative to the material frame {m1, m2, t} (MAT-DiSMech eq. 12-13): kappa1 measures
/// bending in the (t, m1) plane, i.e. rotation about the m2 axis, so its stiffness uses
/// I1 = integral of (coordinate along m1)^2 dA; kappa2 bends in the (t, m2) plane and uses
/// I2 = integral of (coordinate along m2)^2 dA.

#include <optional>

namespace soma::rod {

/// Geometric constants of a uniform cross-section (SI units).
struct CrossSection {
    double area = 0.0;              ///< A (m^2): stretching k_s = E A, mass rho A
    double second_moment1 = 0.0;    ///< I1 (m^4): bending stiffness E I1 of kappa1
    double second_moment2 = 0.0;    ///< I2 (m^4): bending stiffness E I2 of kappa2
    double torsion_constant = 0.0;  ///< J (m^4): twisting stiffness G J
    double contact_radius = 0.0;    ///< radius used by contact and drag forces (m)

    /// \brief Polar second moment of area I1 + I2 (m^4); the twist inertia of an edge is
    /// rho * (I1 + I2) * rest length (MAT-DiSMech's reference code).
    double polar_moment() const { return second_moment1 + second_moment2; }
};

/// \brief Circle of radius r: A = pi r^2, I1 = I2 = pi r^4/4, J = pi r^4/2.
///
/// J = pi r^4/2 follows the reference code; the paper prints pi r^2/2, a typo (after MAT-DiSMech
/// eq. 16). The contact radius is r.
CrossSection circular_cross_section(double radius);

/// \brief Rectangle of width b (along m2) and height h (along m1), as the reference code's
/// cantilever (MAT-DiSMech §7.2, Fig. 8; section from its reference code): A = b h, I1 = b h^3/12 (kappa1, bending across the height),
/// I2 = h b^3/12 (kappa2, bending across the width), J = b h^3/6 unless `torsion_constant` is
/// given. Note: b h^3/6 is the reference code's value; Saint-Venant's thin-strip value is
/// b h^3/3 (b >> h), hence the override. The contact radius is h/2, the half-thickness along
/// m1 (for a thin strip with h < b, the thin direction: what touches a floor lying flat).
CrossSection rectangular_cross_section(double width, double height,
                                       std::optional<double> torsion_constant = std::nullopt);

}  // namespace soma::rod
