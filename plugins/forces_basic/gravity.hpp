#pragma once
/// \file gravity.hpp
/// \brief Uniform gravity with buoyancy on the points of selected elements (MAT-DiSMech §5.1).
///
///     f_i = m_i g_eff,   g_eff = ((ρ - ρ_med)/ρ) g
///
/// ρ is the element's density (Geometry::density) and ρ_med the surrounding medium's. It is an
/// applied load: the residual gets F -= load_factor f_i, and the potential energy is
/// -load_factor Σ f_i·x_i. The Jacobian is zero for nodes; a mapped point (a rigid body's centre
/// of mass off its origin) adds the geometric stiffness of its map (point_map.hpp).

#include "point_selection.hpp"
#include "soma/settings_errors.hpp"

#include "soma/force.hpp"

#include <string>
#include <vector>

namespace soma::forces_basic {

/// The settings of a `gravity` force (registration.cpp fills them from the scene).
struct GravitySettings {
    Vec3 acceleration{0.0, 0.0, -9.81};  ///< g (m/s²)
    double medium_density = 0.0;         ///< ρ_med (kg/m³); 0: no buoyancy
    std::vector<std::string> elements;   ///< element names; empty: every element
};

/// Gravity and buoyancy, MAT-DiSMech §5.1.
class Gravity final : public Force {
public:
    /// \brief Checks the settings (medium_density ≥ 0); errors go to \p errors.
    explicit Gravity(GravitySettings settings, SettingsErrors errors = SettingsErrors("gravity"));

    /// \brief Resolves the elements and precomputes f_i = m_i g_eff for every point.
    void bind(const SceneView& scene) override;
    /// \brief One 3-DOF stencil per point.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief F -= load_factor f_i on each point; no Jacobian.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief -load_factor Σ f_i·x_i.
    double potential_energy(const EvalContext& context) const override;

    /// \brief (ρ - ρ_med)/ρ: the factor buoyancy applies to g (1 when ρ_med = 0).
    static double buoyancy_factor(double density, double medium_density);

private:
    GravitySettings settings_;
    SettingsErrors errors_;
    std::vector<ForcePoint> points_;            ///< the points with mass
    std::vector<std::vector<Index>> stencil_dofs_;  ///< per point (mapped points: all DOFs they depend on)
    std::vector<Vec3> weight_;                  ///< f_i = m_i g_eff per point (N)
    std::vector<StencilId> stencils_;
    PointKinematics kinematics_;  ///< kept: a wide point's storage is sized once
};

}  // namespace soma::forces_basic
