#pragma once
/// \file viscous_drag.hpp
/// \brief Viscous (Stokes-like) drag per unit rod length (MAT-DiSMech §5.3, eq. 27-28).
///
///     f_i = -η Δl_i v_i          (force on point i)
///     F  += η Δl_i v_i,   J += c_v η Δl_i I
///
/// v is the velocity of the current iterate (context.v), as in the reference code, where the
/// implicit-Euler velocity (q - q_k)/Δt gives eq. 28's 1/Δt; here that factor is the
/// integrator's c_v. Δl_i is the point's Voronoi length along rod edges (a GVS rod's point: its
/// quadrature weight, the length it stands for). Mapped points take the force through their map
/// (point_map.hpp), v_i their velocity.
///
/// Points with zero Voronoi length (pure-shell points) get no drag, as in the reference code:
/// a force per unit length has no meaning on a surface, whose fluid loading is the aerodynamic
/// drag of MAT-DiSMech §5.4. With the default selection (every element) such points are skipped silently;
/// an element named explicitly that has no rod length at all is refused at bind(), since the
/// user asked for drag on it and would get none.

#include "point_selection.hpp"
#include "soma/settings_errors.hpp"

#include "soma/force.hpp"

#include <string>
#include <vector>

namespace soma::forces_basic {

/// The settings of a `viscous_drag` force.
struct ViscousDragSettings {
    double viscosity = 0.0;             ///< η (Pa·s), > 0
    std::vector<std::string> elements;  ///< element names; empty: every element
};

/// Viscous drag on rod points, MAT-DiSMech §5.3, eq. 27-28.
class ViscousDrag final : public Force {
public:
    /// \brief Checks η > 0; errors go to \p errors.
    explicit ViscousDrag(ViscousDragSettings settings, SettingsErrors errors = SettingsErrors("viscous_drag"));

    /// \brief Resolves the elements and keeps the points with Δl_i > 0.
    void bind(const SceneView& scene) override;
    /// \brief One stencil per point with Δl_i > 0 (3 DOFs, or the DOFs a mapped point depends on).
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief F += η Δl_i v_i, J += c_v η Δl_i I.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;

private:
    ViscousDragSettings settings_;
    SettingsErrors errors_;
    std::vector<ForcePoint> points_;   ///< the points with Δl_i > 0
    std::vector<std::vector<Index>> dofs_;  ///< stencil DOFs per point (a mapped point: all it depends on)
    std::vector<double> coefficient_;  ///< η Δl_i (N·s/m)
    std::vector<StencilId> stencils_;
    PointKinematics kinematics_;       ///< kept: a wide point's storage is sized once
};

}  // namespace soma::forces_basic
