#pragma once
/// \file wall_clamped_cantilever.hpp
/// \brief The rod cantilever of MAT-DiSMech §7.2 (a 20 mm x 1 mm strip, rho = 1200) clamped at a
/// wall: nodes 0 and 1 at x_c -/+ dl/2 are fixed with edge 0 between them, so the rod is clamped
/// at the midpoint of that edge (x_c) and the free length is exactly L (test_cantilever_static.cpp
/// case (d)). Shared by the static, dynamic and damping validations.

#include <string>

namespace soma::validation {

struct WallClampedCantilever {
    double youngs_modulus = 2e9;  ///< E (Pa)
    int nodes = 51;
    double density = 1200.0, width = 0.02, thickness = 0.001;  ///< kg/m^3, m, m
    double clamp_x = 0.01, free_length = 0.09;                  ///< x_c and L (m)
};

/// \brief The scene: `integrator` is the integrator block (YAML flow map), `forces` the whole
/// forces list (e.g. "forces:\n  - {type: gravity}\n", or empty).
std::string wall_clamped_cantilever_scene(const WallClampedCantilever& beam, const std::string& integrator,
                                          double duration, const std::string& forces);

}  // namespace soma::validation
