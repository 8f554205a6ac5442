#pragma once
/// \file planar_elastica.hpp
/// \brief Reference solution: an inextensible planar elastica clamped at s = 0 (horizontal),
/// free at s = L, under a uniform load q per unit length (MAT-DiSMech §7.2, Fig. 8).
///
/// With theta(s) the tangent angle (counter-clockwise from +x), moment balance of the part
/// beyond s gives EI theta'' = q (L - s) cos(theta), theta(0) = 0, theta'(L) = 0; the tip
/// deflection is -z(L) = -int_0^L sin(theta) ds. Solved by shooting on theta'(0) with a
/// classical RK4 integration of (theta, theta', x, z) and bisection on theta'(L) = 0.

namespace soma::validation {

struct ElasticaResult {
    double tip_deflection;  ///< -z(L) (positive downward), m
    double tip_x;           ///< x(L), m
    double root_curvature;  ///< theta'(0), 1/m
};

/// \param load_per_length q (N/m), \param bending_stiffness EI (N m^2), \param length L (m)
/// \param steps RK4 steps (the solution is smooth: 4000 steps give ~1e-12 relative accuracy)
ElasticaResult solve_cantilever_elastica(double load_per_length, double bending_stiffness, double length,
                                         int steps = 4000);

}  // namespace soma::validation
