#include "point_load.hpp"

#include "point_selection.hpp"

#include "soma/nearest_point.hpp"
#include "soma/point_map.hpp"

#include <algorithm>
#include <cassert>

namespace soma::forces_basic {

PointLoad::PointLoad(PointLoadSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (settings_.element.empty()) errors_.fail("element", "must name an element");
    if (settings_.at) {
        if (!settings_.nodes.empty())
            errors_.fail("at", "give either `nodes` (indices) or `at` (a position), not both");
        if (!settings_.at->allFinite()) errors_.fail("at", "must be finite");
    } else if (settings_.nodes.empty()) {
        errors_.fail("nodes", "must list at least one node (or give `at: [x, y, z]` for the node nearest a position)");
    }
    if (!settings_.force.allFinite()) errors_.fail("force", "must be finite");
}

void PointLoad::bind(const SceneView& scene) {
    const Element* element = scene.find_element(settings_.element);
    if (!element)
        errors_.fail("element",
                     "no element named '" + settings_.element + "'; elements are: " + element_name_list(scene));
    const Geometry& geometry = element->geometry();
    const long count = static_cast<long>(geometry.point_dofs.size());
    points_.clear();
    dofs_.clear();
    if (settings_.at) {
        const NearestPoint nearest = nearest_point(*element, scene.state().q, *settings_.at);
        if (nearest.index < 0) errors_.fail("at", "element '" + settings_.element + "' has no nodes");
        points_.push_back(nearest.index);
        dofs_.push_back(point_stencil(*element, nearest.index, scene.state().q));
        element_ = element;
        scene.note((settings_.where.empty() ? "point_load '" + name() + "'" : settings_.where) + ": " +
                   describe_nearest_point(settings_.element, *settings_.at, nearest));
        return;
    }
    for (const long node : settings_.nodes) {
        const long resolved = node < 0 ? node + count : node;
        if (resolved < 0 || resolved >= count)
            errors_.fail("nodes", "node " + std::to_string(node) + " is out of range: element '" +
                                      settings_.element + "' has " + std::to_string(count) +
                                      " nodes (valid indices " + std::to_string(-count) + " .. " +
                                      std::to_string(count - 1) + ")");
        if (std::find(points_.begin(), points_.end(), resolved) != points_.end())
            errors_.fail("nodes", "node " + std::to_string(node) + " names node " + std::to_string(resolved) +
                                      " a second time");
        points_.push_back(static_cast<Index>(resolved));
        dofs_.push_back(point_stencil(*element, static_cast<Index>(resolved), scene.state().q));
    }
    element_ = element;
}

void PointLoad::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const auto& d : dofs_) stencils_.push_back(pattern.add_stencil(d));
}

void PointLoad::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(stencils_.size() == dofs_.size());
    const Vec3 load = context.load_factor * settings_.force;
    if (!element_->geometry().mapped_points) {
        for (const StencilId s : stencils_) assembly.add_residual(s, Vec3(-load));  // no Jacobian
        return;
    }
    // A point of a rigid body: the load's moment turns with the body (geometric stiffness).
    for (std::size_t i = 0; i < stencils_.size(); ++i) {
        evaluate_point(*element_, points_[i], context, kinematics_);
        add_point_residual(assembly, stencils_[i], *element_, points_[i], context, kinematics_, -load);
    }
}

double PointLoad::potential_energy(const EvalContext& context) const {
    assert(context.q);
    double work = 0.0;
    for (const Index p : points_) work += settings_.force.dot(point_position(*element_, p, *context.q));
    return -context.load_factor * work;
}

}  // namespace soma::forces_basic
