#pragma once
/// \file rod_description.hpp
/// \brief Plain C++ description of one discrete rod: what the scene's `discrete_rod` block is
/// translated to (registration.cpp), and what tests build rods from.

#include "cross_section.hpp"

#include "soma/types.hpp"

#include <optional>
#include <vector>

namespace soma::rod {

/// Linear elastic, isotropic material of a rod.
struct RodMaterial {
    double density = 0.0;         ///< rho (kg/m^3)
    double youngs_modulus = 0.0;  ///< E (Pa)
    double poisson_ratio = 0.5;   ///< nu, in [0, 0.5]
    std::optional<double> shear_modulus;  ///< G (Pa); default E / (2 (1 + nu)) (MAT-DiSMech after eq. 16)

    /// \brief G: the override when given, else E / (2 (1 + nu)).
    double shear() const {
        return shear_modulus ? *shear_modulus : youngs_modulus / (2.0 * (1.0 + poisson_ratio));
    }
};

/// Everything needed to build a DiscreteRod. The initial configuration (positions, zero twist
/// angles) is the natural, stress-free state.
struct RodDescription {
    std::vector<Vec3> positions;  ///< node positions in order along the rod, at least 3 (m)
    CrossSection section;
    RodMaterial material;
    Vec3 initial_velocity = Vec3::Zero();  ///< same velocity for every node (m/s)
    /// The material director m1 of the first edge at t = 0 (projected orthogonal to the edge);
    /// default: default_first_director(t0) (rod_frames.hpp). A transformed geometry passes the
    /// default of the untransformed rod, rotated, so the cross-section turns with the rod.
    std::optional<Vec3> first_director;
    /// Assemble the symmetric part of the bend-twist Hessian instead of the Hessian as computed.
    /// The exact Hessian is symmetric up to round-off (bend_twist_spring.hpp), so this costs
    /// Newton nothing and lets solvers that read one triangle see the whole matrix; false makes
    /// the rod report an unsymmetric Jacobian (the kernel's default solver is then eigen_lu).
    bool symmetric_jacobian = false;
    /// Planar mode: the coordinate axis (0, 1, 2 for x, y, z) normal to the rod's plane. The rod
    /// then holds that position component of every node and the twist of every edge at their
    /// initial values (Element::held_dofs), so it deforms in the plane through its initial shape.
    std::optional<int> planar_axis;
};

}  // namespace soma::rod
