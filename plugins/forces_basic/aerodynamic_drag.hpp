#pragma once
/// \file aerodynamic_drag.hpp
/// \brief Quadratic (form) drag on surface triangles (MAT-DiSMech §5.4, eq. 29, Appendix B).
///
/// For each triangle k with nodes (a, b, c), undeformed area A_k, current unnormalised normal
/// n = (x_b - x_a) × (x_c - x_a) and unit normal n̂ = n/|n|, each of its nodes i gets
///
///     f_i += -β_k sgn(w) w² n̂ = -β_k w|w| n̂,   w = u_i·n̂,   β_k = ρ_med C_D A_k / 6
///
/// (eq. 29: (ρ_med C_D/2)(A_k/3)). u_i is the node velocity of the current iterate (context.v):
/// the reference code's (x - x_n)/Δt is the implicit-Euler velocity, whose 1/Δt the integrator
/// supplies as c_v. The force does not depend on the orientation of n̂ (w and n̂ flip together).
///
/// Residual and Jacobian per triangle and node i (F += -f, J = c_q dF/dq + c_v dF/dv):
///
///     F_i      += β w|w| n̂
///     dF_i/dv_i = β 2|w| n̂n̂ᵀ                                  (d(w|w|)/dw = 2|w|: w|w| is C¹)
///     dF_i/dx_m = β (2|w| n̂ u_iᵀ + w|w| I) ∂n̂/∂x_m,   m ∈ {a, b, c}
///     ∂n̂/∂x_a   = (1/|n|) (I - n̂n̂ᵀ) [(x_c - x_b)×]               (Appendix B, cyclic: b → [(x_a - x_c)×],
///                                                               c → [(x_b - x_a)×])
///
/// Appendix B's ∂n/∂x is that of the *unit* normal (the paper writes n_t). Its n_t n_tᵀ/|n_t|³ form is the
/// (I - n̂n̂ᵀ)/|n| above. The Jacobian is unsymmetric (symmetric_jacobian() is false); each triangle
/// is one 9-DOF stencil, in which dF/dv is block diagonal.
///
/// A_k is computed at bind() from each element's initial configuration (Element::initial_state),
/// the undeformed shell. A triangle with zero undeformed area is refused. A triangle that
/// degenerates during the motion (|n| = 0) has no normal and contributes nothing at that iterate.
///
/// Drag is not an applied load: it does not scale with context.load_factor, and it is dissipative
/// (potential energy 0).

#include "point_selection.hpp"
#include "soma/settings_errors.hpp"

#include "soma/force.hpp"

#include <array>
#include <string>
#include <vector>

namespace soma::forces_basic {

/// The settings of an `aerodynamic_drag` force.
struct AerodynamicDragSettings {
    double medium_density = 0.0;        ///< ρ_med (kg/m³), > 0; no default (air 1.2, water 1000)
    double drag_coefficient = 0.0;      ///< C_D (dimensionless), > 0; no default
    std::vector<std::string> elements;  ///< element names; empty: every element with triangles
};

/// Aerodynamic drag on shell triangles, MAT-DiSMech §5.4, eq. 29, Appendix B.
class AerodynamicDrag final : public Force {
public:
    /// \brief Checks ρ_med > 0 and C_D > 0; errors go to \p errors.
    explicit AerodynamicDrag(AerodynamicDragSettings settings,
                             SettingsErrors errors = SettingsErrors("aerodynamic_drag"));

    /// \brief Resolves the elements and stores each triangle's global DOFs and β_k = ρ C_D A_k/6,
    /// A_k from the element's initial configuration.
    void bind(const SceneView& scene) override;
    /// \brief One 9-DOF stencil per triangle (x_a, x_b, x_c).
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief F_i += β w|w| n̂ and its c_q, c_v Jacobian (see the file comment). Allocates nothing.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief dF/dq is unsymmetric.
    bool symmetric_jacobian() const override { return false; }

    /// \brief The number of triangles bound.
    std::size_t triangle_count() const { return triangles_.size(); }

private:
    struct DragTriangle {
        std::array<Index, 9> dofs{};  ///< x, y, z of nodes a, b, c
        double coefficient = 0.0;     ///< β_k = ρ_med C_D A_k / 6 (kg/m)
    };

    AerodynamicDragSettings settings_;
    SettingsErrors errors_;
    std::vector<DragTriangle> triangles_;
    std::vector<StencilId> stencils_;
};

}  // namespace soma::forces_basic
