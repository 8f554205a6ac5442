#pragma once
/// \file floor_contact.hpp
/// \brief Smooth penalty contact with a plane floor and smoothed Coulomb friction
/// (MAT-DiSMech §5.2, eq. 25-26; friction as eq. 23).
///
/// For each point i with position x_i, contact radius r_i and velocity v_i, with the floor
/// n̂·x = h (default n̂ = +z, so h is the floor height):
///
///     gap        Δ_i = n̂·x_i - r_i - h
///     energy     E_i = k_c s², s = (1/K1) log(1 + e^{-K1 Δ_i}),  K1 = 15/δ_i   (Δ_i < δ_i)
///     normal     f_c = -E'(Δ_i) n̂,  |F_c| = -E'(Δ_i) ≥ 0   (eq. 25 is +E' n̂, the energy gradient)
///     friction   f_fr = -μ |F_c| φ(w) v_t,  v_t = (I - n̂n̂ᵀ) v_i, w = |v_t|, φ = γ(w)/w
///
/// Residual and Jacobian per point (P = I - n̂n̂ᵀ, E', E'' at Δ_i):
///
///     F += E' n̂ + μ |F_c| φ v_t
///     J += c_q [ E'' n̂n̂ᵀ - μ φ E'' v_t n̂ᵀ ]                 (d|F_c|/dq = -E'' n̂ᵀ)
///        + c_v μ |F_c| [ φ P + ψ v_t v_tᵀ ]                   (ψ = φ'(w)/w)
///
/// The friction Jacobian is unsymmetric (symmetric_jacobian() is false when μ > 0). At v_t = 0,
/// φ = K2/2 and ψ = -(K2/2)³ (2/3): the law is linear viscous near rest and J is smooth there.
///
/// As in the reference code the term is skipped for Δ_i ≥ δ_i. There E < k_c (e^{-15}/K1)² and
/// |F_c| < 3e-13 of its value at Δ = 0, so the cut is invisible to Newton (no FD test sees it).
/// The band δ defaults to each point's radius (the code's δ_floor = r0).
///
/// Contact and friction are not applied loads: they do not scale with context.load_factor.
/// Points shared by two elements touch the floor once (largest radius).

#include "point_selection.hpp"
#include "soma/settings_errors.hpp"

#include "soma/force.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma::forces_basic {

/// The settings of a `floor_contact` force.
struct FloorContactSettings {
    double height = 0.0;                  ///< h: the floor is n̂·x = h (m)
    Vec3 normal{0.0, 0.0, 1.0};           ///< n̂, pointing out of the floor (normalised at construction)
    double stiffness = 20.0;              ///< k_c (N/m = J/m²); MAT-DiSMech's rod drop (§7.1, Fig. 7) uses 20
    std::optional<double> band;           ///< δ (m); empty: each point's contact radius
    double friction = 0.0;                ///< μ ≥ 0
    double slip_velocity = 1e-3;          ///< v_tol (m/s) > 0: K2 = 15/v_tol
    std::vector<std::string> elements;    ///< element names; empty: every element
};

/// Smooth floor contact with friction, MAT-DiSMech §5.2, eq. 25-26.
class FloorContact final : public Force {
public:
    /// \brief Checks the settings (k_c > 0, δ > 0, μ ≥ 0, v_tol > 0, |n̂| > 0).
    explicit FloorContact(FloorContactSettings settings, SettingsErrors errors = SettingsErrors("floor_contact"));

    /// \brief Resolves the elements, merges shared points, and fixes each point's r_i and K1.
    void bind(const SceneView& scene) override;
    /// \brief One 3-DOF stencil per point.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief Contact and friction terms (see the file comment).
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief Σ E_i over points inside the band.
    double potential_energy(const EvalContext& context) const override;
    /// \brief False when μ > 0 (friction's Jacobian is unsymmetric).
    bool symmetric_jacobian() const override { return settings_.friction == 0.0; }
    /// \brief True: contact is the penalty energy E(Δ) (its stiffness E'' grows steeply with
    /// penetration).
    bool is_penalty_contact() const override { return true; }

    /// \brief The unit floor normal in use.
    const Vec3& normal() const { return settings_.normal; }

private:
    struct ContactPoint {
        std::array<Index, 3> dofs{};  ///< identity points
        const Element* element = nullptr;
        Index index = 0;              ///< point index in its element
        bool mapped = false;          ///< true: reached through point_map.hpp (a rigid body's corner)
        std::vector<Index> stencil_dofs;
        double offset = 0.0;     ///< r_i + h: Δ_i = n̂·x_i - offset
        double band = 0.0;       ///< δ_i (m)
        double sharpness = 0.0;  ///< K1 = 15/δ_i (1/m)
    };

    FloorContactSettings settings_;
    SettingsErrors errors_;
    double friction_sharpness_ = 0.0;  ///< K2 = 15/v_tol (s/m)
    std::vector<ContactPoint> points_;
    std::vector<StencilId> stencils_;
    PointKinematics kinematics_;  ///< kept: a wide point's storage is sized once
};

}  // namespace soma::forces_basic
