#include "viscous_drag.hpp"

#include <cassert>

namespace soma::forces_basic {

ViscousDrag::ViscousDrag(ViscousDragSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.viscosity > 0.0))
        errors_.fail("viscosity", "must be > 0 Pa*s, got " + std::to_string(settings_.viscosity));
}

void ViscousDrag::bind(const SceneView& scene) {
    const auto elements = select_elements(scene, settings_.elements, errors_);
    const auto points = gather_points(elements);
    if (!settings_.elements.empty()) {
        for (const Element* element : elements) {
            bool has_length = false;
            for (const ForcePoint& p : points) has_length |= (p.element == element && p.length > 0.0);
            if (!has_length)
                errors_.fail("elements", "element '" + element->name() +
                                             "' has no rod length (Voronoi length 0 at every point), so viscous "
                                             "drag would not act on it; shells take aerodynamic drag");
        }
    }
    points_.clear();
    dofs_.clear();
    coefficient_.clear();
    for (const ForcePoint& p : points) {
        if (!(p.length > 0.0)) continue;  // pure-shell point: no drag (see header)
        points_.push_back(p);
        dofs_.push_back(force_point_stencil(p, scene));
        coefficient_.push_back(settings_.viscosity * p.length);
    }
}

void ViscousDrag::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const auto& d : dofs_) stencils_.push_back(pattern.add_stencil(d));
}

void ViscousDrag::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(context.v && stencils_.size() == coefficient_.size());
    const VectorX& v = *context.v;
    const double c_v = context.coefficients.c_v;
    for (std::size_t i = 0; i < coefficient_.size(); ++i) {
        const ForcePoint& p = points_[i];
        if (p.element->geometry().mapped_points) {  // a GVS rod point: through its map (point_map.hpp)
            evaluate_point(*p.element, p.index, context, kinematics_);
            const Mat3 d_velocity = coefficient_[i] * Mat3::Identity();
            add_point_residual(assembly, stencils_[i], *p.element, p.index, context, kinematics_,
                               Vec3(coefficient_[i] * kinematics_.velocity), {nullptr, &d_velocity});
            continue;
        }
        const auto& d = p.dofs;
        const Vec3 velocity(v[d[0]], v[d[1]], v[d[2]]);
        assembly.add_residual(stencils_[i], coefficient_[i] * velocity);
        assembly.add_jacobian_diagonal(stencils_[i], c_v * coefficient_[i]);
    }
}

}  // namespace soma::forces_basic
