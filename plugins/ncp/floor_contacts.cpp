// Contacts with a floor (floor_contacts.hpp).
#include "floor_contacts.hpp"

#include "point_selection.hpp"

#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>

namespace soma::ncp {

FloorContacts::FloorContacts(FloorContactSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    const double length = settings_.normal.norm();
    if (!(length > 0.0) || !std::isfinite(length)) errors_.fail("normal", "must be a nonzero finite vector");
    settings_.normal /= length;
    if (!(settings_.friction >= 0.0)) errors_.fail("friction", "must be >= 0, got " + std::to_string(settings_.friction));
    if (!(settings_.margin >= 0.0)) errors_.fail("margin", "must be >= 0 m, got " + std::to_string(settings_.margin));
}

void FloorContacts::bind(const SceneView& scene) {
    auto points = forces_basic::gather_points(select_elements(scene, settings_.elements, errors_));
    forces_basic::merge_shared_points(points);  // a node two elements share touches the floor once
    candidates_.clear();
    const VectorX& q = scene.state().q;
    for (const forces_basic::ForcePoint& p : points) {
        const std::vector<Index> dofs = point_stencil(*p.element, p.index, q);
        if (std::none_of(dofs.begin(), dofs.end(), [&](Index dof) { return scene.dof_is_free(dof); })) continue;
        candidates_.push_back({p.element, p.index, p.radius});
    }
    if (candidates_.empty()) errors_.fail("elements", "none of the elements' points can move: there is nothing to touch the floor");
}

void FloorContacts::detect(const SceneView& scene, double dt) {
    const State& s = scene.state();
    velocity_ahead_ = s.v + dt * s.a;
    EvalContext context;
    context.q = &s.q;
    context.v = &velocity_ahead_;
    const Vec3& n = settings_.normal;
    contacts_.clear();
    for (const Candidate& c : candidates_) {
        evaluate_point(*c.element, c.point, context, kinematics_);
        const double gap = n.dot(kinematics_.position) - settings_.height - c.radius;
        const double predicted = gap + 2.0 * dt * n.dot(kinematics_.velocity);
        if (std::min(gap, predicted) > settings_.margin) continue;
        UnilateralContact contact;
        contact.a = {c.element, c.point, Vec3::Zero()};
        contact.b = {nullptr, 0, settings_.height * n};  // a point of the plane
        contact.normal = n;
        contact.thickness = c.radius;
        contact.friction = settings_.friction;
        contacts_.push_back(contact);
    }
}

}  // namespace soma::ncp
