#pragma once
/// \file rayleigh_damping.hpp
/// \brief Rayleigh (proportional) damping of elements: the force -(alpha M + beta K) v.
///
///     F += D v,   J += c_v D,   D = alpha M + beta K      (summed over the chosen elements)
///
/// M is an element's mass matrix and K its stiffness, the tangent dF_e/dq of the element's own
/// internal forces (elastic springs, hinges; not gravity, contact or other forces), both read
/// through SceneView::element_jacobian, so any element type is damped without special cases.
/// A linear mode of angular frequency w then has the damping ratio
///
///     zeta(w) = alpha / (2 w) + beta w / 2,
///
/// so a target ratio zeta at two frequencies f1 < f2 (w_i = 2 pi f_i) gives
///
///     alpha = 2 zeta w1 w2 / (w1 + w2),   beta = 2 zeta / (w1 + w2),
///
/// and modes between f1 and f2 are damped slightly less than zeta (the least, at sqrt(w1 w2), by
/// the factor 2 sqrt(w1 w2) / (w1 + w2)), modes outside more. The mass term damps rigid motion
/// too; the stiffness term damps only deformation, increasingly at high frequency.
///
/// D is evaluated once per step at the committed state the step starts from (v = a = 0) and is
/// constant during the step, so dF/dv = D and dF/dq = dF/da = 0 are exact and Newton keeps its
/// convergence. The force vanishes at v = 0: equilibria and statics are unchanged. Limitation:
/// K is the step-start tangent (for large rotations within one step the damping matrix lags
/// the configuration by one step), and where the tangent is indefinite (a buckling structure,
/// a compressed rod) beta K can feed energy into the modes it destabilises.

#include "point_selection.hpp"
#include "soma/element_jacobian.hpp"
#include "soma/force.hpp"
#include "soma/parameters.hpp"
#include "soma/settings_errors.hpp"

#include <memory>
#include <string>
#include <vector>

namespace soma::forces_basic {

/// The settings of a `rayleigh_damping` force.
struct RayleighDampingSettings {
    double alpha = 0.0;                 ///< mass-proportional coefficient (1/s), >= 0
    double beta = 0.0;                  ///< stiffness-proportional coefficient (s), >= 0
    std::vector<std::string> elements;  ///< element names; empty: every element
    std::string beta_key = "beta";      ///< the key errors about beta point at (damping_ratio in that form)
};

/// alpha and beta of Rayleigh damping.
struct RayleighCoefficients {
    double alpha = 0.0;  ///< 1/s
    double beta = 0.0;   ///< s
};

/// \brief The coefficients that give damping ratio \p zeta at the frequencies \p f1 and \p f2 (Hz):
/// alpha = 2 zeta w1 w2/(w1 + w2), beta = 2 zeta/(w1 + w2), w = 2 pi f. Requires 0 < f1 < f2.
RayleighCoefficients rayleigh_coefficients(double zeta, double f1, double f2);

/// \brief The damping ratio of a mode of frequency \p f (Hz): alpha/(2 w) + beta w/2.
double rayleigh_damping_ratio(const RayleighCoefficients& c, double f);

/// \brief The `rayleigh_damping` schema: `alpha` and/or `beta`, or `damping_ratio` with `frequencies`.
ParameterSchema rayleigh_damping_schema();

/// \brief Settings from a validated `rayleigh_damping` block: reads either form, and fails at the
/// key (Parameters::fail) when both or neither are given, or when f1 >= f2.
RayleighDampingSettings rayleigh_damping_settings(const Parameters& parameters);

/// Rayleigh damping of the chosen elements (see the file comment).
class RayleighDamping final : public Force {
public:
    /// \brief Checks alpha, beta >= 0; errors go to \p errors.
    explicit RayleighDamping(RayleighDampingSettings settings,
                             SettingsErrors errors = SettingsErrors("rayleigh_damping"));

    /// \brief Resolves the elements and asks the scene for each one's Jacobian blocks.
    void bind(const SceneView& scene) override;
    /// \brief One stencil per stencil of each damped element (the blocks of D). The first time,
    /// with beta > 0, refuses elements whose stiffness K is zero (rigid bodies, point masses):
    /// beta would silently do nothing there.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief F += D v, J += c_v D, with D at the step's start state.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief D is symmetric when every damped element's Jacobian is.
    bool symmetric_jacobian() const override { return symmetric_; }
    /// \brief Evaluates D at the state the step starts from.
    void begin_step(const State& start) override;
    void reject_step() override { current_ = false; }

    /// The coefficients in use.
    const RayleighDampingSettings& settings() const { return settings_; }

private:
    /// D = alpha M + beta K of every damped element at \p start (q = start.q, v = a = 0).
    void evaluate_damping_matrix(const State& start);
    /// With beta > 0: fails at the beta key when a listed element (or, with the default
    /// selection, every element) has K = 0 at \p state.
    void refuse_beta_without_stiffness(const State& state);

    RayleighDampingSettings settings_;
    SettingsErrors errors_;
    std::vector<std::unique_ptr<ElementJacobian>> jacobians_;
    std::vector<std::string> element_names_;  ///< of jacobians_, for messages
    const State* initial_state_ = nullptr;    ///< the scene's state at bind()
    bool stiffness_checked_ = false;
    struct Block {
        std::size_t element;  ///< index into jacobians_
        Index block;          ///< block index in that element
        StencilId stencil;    ///< this force's stencil over the same DOFs
    };
    std::vector<Block> blocks_;
    bool symmetric_ = true;
    bool current_ = false;  ///< D holds the step-start matrix of the current pattern
    VectorX zero_;          ///< v = a = 0 for evaluating D
    VectorX product_;       ///< D_b v_b of one block
};

}  // namespace soma::forces_basic
