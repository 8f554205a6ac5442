#include "gravity.hpp"

#include <cassert>

namespace soma::forces_basic {

Gravity::Gravity(GravitySettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.medium_density >= 0.0))
        errors_.fail("medium_density", "must be >= 0 kg/m^3, got " + std::to_string(settings_.medium_density));
    if (!settings_.acceleration.allFinite()) errors_.fail("acceleration", "must be finite");
}

double Gravity::buoyancy_factor(double density, double medium_density) {
    if (medium_density == 0.0) return 1.0;
    return (density - medium_density) / density;
}

void Gravity::bind(const SceneView& scene) {
    const auto elements = select_elements(scene, settings_.elements, errors_);
    if (settings_.medium_density > 0.0) {
        for (const Element* element : elements)
            if (!(element->geometry().density > 0.0))
                errors_.fail("medium_density", "buoyancy needs the density of element '" + element->name() +
                                                   "', which declares none");
    }
    const auto points = gather_points(elements);
    dofs_.clear();
    weight_.clear();
    for (const ForcePoint& p : points) {
        dofs_.push_back(p.dofs);
        weight_.push_back(p.mass * buoyancy_factor(p.density, settings_.medium_density) * settings_.acceleration);
    }
}

void Gravity::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const auto& d : dofs_) stencils_.push_back(pattern.add_stencil(d));
}

void Gravity::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(stencils_.size() == weight_.size());
    // dF/dq = dF/dv = 0: nothing to add to J.
    for (std::size_t i = 0; i < weight_.size(); ++i)
        assembly.add_residual(stencils_[i], -context.load_factor * weight_[i]);
}

double Gravity::potential_energy(const EvalContext& context) const {
    assert(context.q);
    const VectorX& q = *context.q;
    double energy = 0.0;
    for (std::size_t i = 0; i < weight_.size(); ++i) {
        const Vec3 x(q[dofs_[i][0]], q[dofs_[i][1]], q[dofs_[i][2]]);
        energy -= weight_[i].dot(x);
    }
    return context.load_factor * energy;
}

}  // namespace soma::forces_basic
