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
    std::vector<const Element*> elements;
    for (const Element* element : select_elements(scene, settings_.elements, errors_)) {
        if (element->geometry().weight_at_points) {
            elements.push_back(element);
            continue;
        }
        // Its point masses do not place its weight (Geometry::weight_at_points): m_i g there would
        // be wrong, and the element's own gravity would count twice.
        const std::string why = "carries its own gravity (its `gravity` key), with each mass at its centre; this "
                                "force would add a second, misplaced weight";
        if (!settings_.elements.empty())
            errors_.fail("elements", "element '" + element->name() + "' " + why + ": leave it out of `elements`");
        scene.note("gravity '" + name() + "': skips element '" + element->name() + "', which " + why);
    }
    if (settings_.medium_density > 0.0) {
        for (const Element* element : elements)
            if (!(element->geometry().density > 0.0))
                errors_.fail("medium_density", "buoyancy needs the density of element '" + element->name() +
                                                   "', which declares none");
    }
    points_.clear();
    stencil_dofs_.clear();
    weight_.clear();
    for (const ForcePoint& p : gather_points(elements)) {
        // A rigid body's massless corners carry no weight: no stencil for them.
        if (p.element->geometry().mapped_points && p.mass == 0.0) continue;
        points_.push_back(p);
        stencil_dofs_.push_back(force_point_stencil(p, scene));
        weight_.push_back(p.mass * buoyancy_factor(p.density, settings_.medium_density) * settings_.acceleration);
    }
}

void Gravity::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const auto& d : stencil_dofs_) stencils_.push_back(pattern.add_stencil(d));
}

void Gravity::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(stencils_.size() == weight_.size());
    for (std::size_t i = 0; i < weight_.size(); ++i) {
        const Vec3 residual = -context.load_factor * weight_[i];
        const ForcePoint& p = points_[i];
        if (!p.element->geometry().mapped_points) {
            assembly.add_residual(stencils_[i], residual);  // dF/dq = dF/dv = 0
            continue;
        }
        evaluate_point(*p.element, p.index, context, kinematics_);
        add_point_residual(assembly, stencils_[i], *p.element, p.index, context, kinematics_, residual);
    }
}

double Gravity::potential_energy(const EvalContext& context) const {
    assert(context.q);
    double energy = 0.0;
    for (std::size_t i = 0; i < weight_.size(); ++i)
        energy -= weight_[i].dot(point_position(*points_[i].element, points_[i].index, *context.q));
    return context.load_factor * energy;
}

}  // namespace soma::forces_basic
