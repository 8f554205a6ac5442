#pragma once
/// \file shell_material.hpp
/// \brief Material constants of a thin shell (both the hinge and the mid-edge models).

namespace soma::shells {

/// Linear elastic, isotropic shell material.
struct ShellMaterial {
    double density = 0.0;         ///< rho (kg/m^3)
    double youngs_modulus = 0.0;  ///< E (Pa)
    double poisson_ratio = 0.3;   ///< nu (the hinge model does not use it, MAT-DiSMech eq. 17)
};

}  // namespace soma::shells
