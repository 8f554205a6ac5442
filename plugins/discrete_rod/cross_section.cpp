// Cross-section constants: MAT-DiSMech §3.1-3.2 (circle; J = pi r^4/2, not the pi r^2/2 printed
// after eq. 16), the reference code's §7.2 cantilever (rectangle).
#include "cross_section.hpp"

#include <numbers>

namespace soma::rod {

CrossSection circular_cross_section(double radius) {
    const double r2 = radius * radius;
    CrossSection s;
    s.area = std::numbers::pi * r2;
    s.second_moment1 = std::numbers::pi * r2 * r2 / 4.0;
    s.second_moment2 = s.second_moment1;
    s.torsion_constant = std::numbers::pi * r2 * r2 / 2.0;  // pi r^4/2, not the paper's pi r^2/2 (a typo after MAT-DiSMech eq. 16)
    s.contact_radius = radius;
    return s;
}

CrossSection rectangular_cross_section(double width, double height,
                                       std::optional<double> torsion_constant) {
    const double b = width;   // along m2
    const double h = height;  // along m1
    CrossSection s;
    s.area = b * h;
    s.second_moment1 = b * h * h * h / 12.0;  // kappa1: bending in the (t, m1) plane
    s.second_moment2 = h * b * b * b / 12.0;  // kappa2: bending in the (t, m2) plane
    s.torsion_constant = torsion_constant.value_or(b * h * h * h / 6.0);  // reference code (MAT-DiSMech §7.2 cantilever)
    s.contact_radius = 0.5 * h;
    return s;
}

}  // namespace soma::rod
