#include "rayleigh_damping.hpp"

#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace soma::forces_basic {

namespace {
constexpr double kTwoPi = 6.283185307179586476925;

}  // namespace

RayleighCoefficients rayleigh_coefficients(double zeta, double f1, double f2) {
    if (!(f1 > 0.0 && f1 < f2)) throw std::invalid_argument("rayleigh_coefficients needs 0 < f1 < f2");
    const double w1 = kTwoPi * f1, w2 = kTwoPi * f2;
    return {2.0 * zeta * w1 * w2 / (w1 + w2), 2.0 * zeta / (w1 + w2)};
}

double rayleigh_damping_ratio(const RayleighCoefficients& c, double f) {
    const double w = kTwoPi * f;
    return c.alpha / (2.0 * w) + 0.5 * c.beta * w;
}

ParameterSchema rayleigh_damping_schema() {
    ParameterSchema schema(
        "rayleigh_damping",
        "Rayleigh damping of elements: the force -(alpha M + beta K) v, with M each element's mass matrix and K "
        "its stiffness (the tangent of its own elastic forces; not gravity or contact) at the start of each step. "
        "A mode of angular frequency w gets the damping ratio alpha/(2 w) + beta w/2. Give alpha and/or beta, or "
        "a damping_ratio reached at two frequencies (alpha = 2 zeta w1 w2/(w1 + w2), beta = 2 zeta/(w1 + w2)): "
        "modes between them are damped slightly less, modes outside more. The alpha term also damps rigid motion. "
        "A material damping model for any element; unlike viscous_drag (a drag of the surrounding fluid on rod "
        "nodes), it does not depend on where the body moves. Zero at rest: equilibria and statics are unchanged. "
        "Rigid bodies and point masses have no stiffness (K = 0): damp them with alpha; a beta on such an "
        "element (listed, or every element of the default selection) is refused.");
    schema.real("alpha", "mass-proportional coefficient alpha").unit("1/s").non_negative();
    schema.real("beta", "stiffness-proportional coefficient beta").unit("s").non_negative();
    schema.real("damping_ratio", "damping ratio zeta reached at both `frequencies` (0.02 = 2% of critical)")
        .positive()
        .below(1.0);
    schema.real_list("frequencies", "the two frequencies [f1, f2], f1 < f2, at which the ratio is `damping_ratio`; "
                                    "choose them around the modes to damp")
        .unit("Hz")
        .exact_size(2)
        .positive();
    schema.string_list("elements", "names of the elements damped; empty: every element")
        .fallback(std::vector<std::string>{});
    return schema;
}

RayleighDampingSettings rayleigh_damping_settings(const Parameters& p) {
    RayleighDampingSettings s;
    s.elements = p.string_list("elements");
    const bool direct = p.has("alpha") || p.has("beta");
    const bool by_ratio = p.has("damping_ratio") || p.has("frequencies");
    if (direct && by_ratio)
        p.fail(p.has("damping_ratio") ? "damping_ratio" : "frequencies",
               "give either alpha and/or beta, or damping_ratio with frequencies, not both");
    if (!direct && !by_ratio)
        p.fail("", "no damping given: set alpha and/or beta, or damping_ratio with frequencies [f1, f2]");
    s.beta_key = direct ? "beta" : "damping_ratio";
    if (direct) {
        if (p.has("alpha")) s.alpha = p.real("alpha");
        if (p.has("beta")) s.beta = p.real("beta");
        return s;
    }
    if (!p.has("frequencies")) p.fail("damping_ratio", "needs `frequencies: [f1, f2]`, the two frequencies (Hz) at which the ratio holds");
    if (!p.has("damping_ratio")) p.fail("frequencies", "needs `damping_ratio`, the ratio reached at these frequencies");
    const std::vector<double> f = p.real_list("frequencies");
    if (!(f[0] < f[1]))
        p.fail("frequencies", "f1 = " + setting_text(f[0]) + " Hz must be below f2 = " + setting_text(f[1]) +
                                  " Hz (two distinct frequencies fix alpha and beta)");
    const RayleighCoefficients c = rayleigh_coefficients(p.real("damping_ratio"), f[0], f[1]);
    s.alpha = c.alpha;
    s.beta = c.beta;
    return s;
}

RayleighDamping::RayleighDamping(RayleighDampingSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.alpha >= 0.0)) errors_.fail("alpha", "must be >= 0 1/s, got " + setting_text(settings_.alpha));
    if (!(settings_.beta >= 0.0)) errors_.fail("beta", "must be >= 0 s, got " + setting_text(settings_.beta));
}

void RayleighDamping::bind(const SceneView& scene) {
    jacobians_.clear();
    element_names_.clear();
    symmetric_ = true;
    for (const Element* element : select_elements(scene, settings_.elements, errors_)) {
        jacobians_.push_back(scene.element_jacobian(*element));
        element_names_.push_back(element->name());
        symmetric_ = symmetric_ && element->symmetric_jacobian();
    }
    initial_state_ = &scene.state();
    stiffness_checked_ = false;
    zero_ = VectorX::Zero(static_cast<Index>(scene.state().q.size()));
    current_ = false;
}

void RayleighDamping::declare_pattern(PatternBuilder& pattern) {
    // The elements have declared their stencils (the kernel declares elements first): D has
    // one block per element stencil, added through a stencil of this force over the same DOFs.
    blocks_.clear();
    Index largest = 0;
    for (std::size_t e = 0; e < jacobians_.size(); ++e)
        for (Index b = 0; b < jacobians_[e]->block_count(); ++b) {
            const auto dofs = jacobians_[e]->block_dofs(b);
            blocks_.push_back({e, b, pattern.add_stencil(dofs)});
            largest = std::max(largest, static_cast<Index>(dofs.size()));
        }
    product_ = VectorX::Zero(largest);
    current_ = false;
    if (!stiffness_checked_ && settings_.beta > 0.0 && initial_state_ != nullptr) refuse_beta_without_stiffness(*initial_state_);
    stiffness_checked_ = true;
}

void RayleighDamping::refuse_beta_without_stiffness(const State& state) {
    // K = dF_e/dq at v = a = 0. An element with internal forces has K != 0 at any state (a rod's
    // stretching springs at rest included); a rigid body or a point mass has none, so beta K = 0
    // exactly and the user's beta (or damping ratio) would silently not apply.
    EvalContext at_state;
    at_state.t = state.t;
    at_state.q = &state.q;
    at_state.v = &zero_;
    at_state.a = &zero_;
    at_state.step_start = &state;
    at_state.coefficients = {1.0, 0.0, 0.0};
    std::vector<std::string> without;
    for (std::size_t e = 0; e < jacobians_.size(); ++e) {
        ElementJacobian& jacobian = *jacobians_[e];
        jacobian.evaluate(at_state);
        double largest = 0.0;
        for (Index b = 0; b < jacobian.block_count(); ++b) {
            const Index n = static_cast<Index>(jacobian.block_dofs(b).size());
            const double* values = jacobian.block(b);
            for (Index k = 0; k < n * n; ++k) largest = std::max(largest, std::abs(values[k]));
        }
        if (largest == 0.0) without.push_back(element_names_[e]);
    }
    const bool listed = !settings_.elements.empty();
    if (without.empty() || (!listed && without.size() < jacobians_.size())) return;
    std::string names;
    for (const auto& name : without) names += (names.empty() ? "'" : ", '") + name + "'";
    errors_.fail(settings_.beta_key,
                 "beta = " + setting_text(settings_.beta) + " s damps stiffness, but " + names +
                     (without.size() == 1 ? " has" : " have") +
                     " none (K = 0: a rigid body or point mass does not deform), so the beta term would do "
                     "nothing there; damp rigid motion with alpha alone (the velocity then decays as "
                     "exp(-alpha t)), or list only deformable elements under `elements` (docs/damping.md)");
}

void RayleighDamping::begin_step(const State& start) { evaluate_damping_matrix(start); }

void RayleighDamping::evaluate_damping_matrix(const State& start) {
    // c_q dF_e/dq + c_a dF_e/da with (c_q, c_v, c_a) = (beta, 0, alpha) at v = a = 0 is
    // alpha M + beta K in one evaluation of each element.
    EvalContext at_start;
    at_start.t = start.t;
    at_start.q = &start.q;
    at_start.v = &zero_;
    at_start.a = &zero_;
    at_start.step_start = &start;
    at_start.coefficients = {settings_.beta, 0.0, settings_.alpha};
    for (auto& jacobian : jacobians_) jacobian->evaluate(at_start);
    current_ = true;
}

void RayleighDamping::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    if (!current_) {
        // The pattern was declared again after begin_step (or no step began: a bare evaluation).
        if (!context.step_start) throw std::logic_error("rayleigh_damping needs EvalContext::step_start");
        evaluate_damping_matrix(*context.step_start);
    }
    const VectorX& v = *context.v;
    const double c_v = context.coefficients.c_v;
    for (const Block& block : blocks_) {
        const ElementJacobian& jacobian = *jacobians_[block.element];
        const auto dofs = jacobian.block_dofs(block.block);
        const Index n = static_cast<Index>(dofs.size());
        const Eigen::Map<const Eigen::MatrixXd> D(jacobian.block(block.block), n, n);
        // D_b v_b by hand: a plain loop allocates nothing whatever n is.
        for (Index r = 0; r < n; ++r) product_[r] = 0.0;
        for (Index c = 0; c < n; ++c) {
            const double vc = v[dofs[static_cast<std::size_t>(c)]];
            for (Index r = 0; r < n; ++r) product_[r] += D(r, c) * vc;
        }
        assembly.add_residual(block.stencil, product_.head(n));
        assembly.add_jacobian(block.stencil, D, c_v);
    }
}

}  // namespace soma::forces_basic
