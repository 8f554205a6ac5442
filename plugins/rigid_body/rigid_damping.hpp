#pragma once
/// \file rigid_damping.hpp
/// \brief Linear and angular viscous damping of rigid bodies (the `rigid_damping` force).
///
/// A body moving through a viscous medium, or the losses a rigid-body engine lumps into
/// "linear/angular damping", modelled as a force at the centre of mass opposing its velocity and
/// a torque about the centre of mass opposing the angular velocity:
///
///     f   = -c_t v_c          (world; v_c = p' + R (omega x c), the centre of mass's velocity)
///     tau = -c_r omega        (about the centre of mass; isotropic, so the same in body axes)
///
/// It dissipates c_t |v_c|^2 + c_r |omega|^2 and is frame-indifferent: it does not depend on
/// where the body frame's origin is. The force acts through the body's map at its centre-of-mass
/// point (point 1; point_map.hpp, add_point_residual): residual J^T c_t v_c with its exact
/// q- and v-Jacobians. The torque's generalised force on the rotation DOFs (body coordinates,
/// virtual work tau . dphi) is c_r omega_body, whose only derivative is c_v c_r 1.
/// Unlike `viscous_drag` (per unit rod length, for rods), the coefficients are per body.

#include "rigid_body.hpp"

#include "soma/force.hpp"
#include "soma/settings_errors.hpp"

#include <string>
#include <vector>

namespace soma {
class SceneView;
}

namespace soma::rigid_body {

/// The settings of a `rigid_damping` force.
struct RigidDampingSettings {
    double linear_damping = 0.0;        ///< c_t (N s/m), >= 0
    double angular_damping = 0.0;       ///< c_r (N m s/rad), >= 0
    std::vector<std::string> elements;  ///< rigid bodies by name; empty: every rigid body
};

/// Linear and angular damping of rigid bodies (see the file comment).
class RigidDamping final : public Force {
public:
    /// \brief Checks c_t, c_r >= 0, not both zero; errors go to \p errors.
    explicit RigidDamping(RigidDampingSettings settings, SettingsErrors errors = SettingsErrors("rigid_damping"));

    /// \brief Resolves the bodies: every rigid body, or the named elements (each must be a
    /// rigid_body; a scene without one is refused).
    void bind(const SceneView& scene) override;
    /// \brief Binds to \p bodies directly (tests, programmatic use).
    void bind_bodies(std::vector<const RigidBody*> bodies);
    /// \brief One stencil per body: its 6 DOFs.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief F += J_c^T c_t v_c + (0, c_r omega) with the exact Jacobian.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;

private:
    RigidDampingSettings settings_;
    SettingsErrors errors_;
    std::vector<const RigidBody*> bodies_;
    std::vector<StencilId> stencils_;
};

}  // namespace soma::rigid_body
