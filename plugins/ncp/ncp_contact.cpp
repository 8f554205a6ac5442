// Contacts with a floor and between elements (ncp_contact.hpp).
#include "ncp_contact.hpp"

#include "soma/element_selection.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace soma::ncp {

NcpContact::NcpContact(ContactSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (settings_.floor) {
        const double length = settings_.floor->normal.norm();
        if (!(length > 0.0) || !std::isfinite(length)) errors_.fail("floor.normal", "must be a nonzero finite vector");
        settings_.floor->normal /= length;
    }
    if (!(settings_.friction >= 0.0)) errors_.fail("friction", "must be >= 0, got " + std::to_string(settings_.friction));
    if (!(settings_.margin > 0.0)) errors_.fail("margin", "must be > 0 m, got " + std::to_string(settings_.margin));
}

void NcpContact::bind(const SceneView& scene) {
    elements_ = select_elements(scene, settings_.elements, errors_);
    excluded_.clear();
    const auto index_of = [&](const std::string& name) {
        for (std::size_t e = 0; e < elements_.size(); ++e)
            if (elements_[e]->name() == name) return e;
        errors_.fail("exclude", "'" + name + "' is not one of the elements in contact (" +
                                    element_name_list(scene) + (settings_.elements.empty() ? "" : ", as `elements` selects") + ")");
        return std::size_t{0};
    };
    for (const auto& [first, second] : settings_.exclude) {
        const std::size_t a = index_of(first), b = index_of(second);
        if (a == b) errors_.fail("exclude", "an element does not touch itself: '" + first + "' is listed with itself");
        excluded_.insert(std::minmax(a, b));
    }
    const VectorX& q = scene.state().q;
    candidates_.clear();
    solids_.clear();
    std::set<std::array<Index, 3>> seen;  // a node two elements share is one candidate
    const auto movable = [&](const Element& element, Index point) {
        const std::vector<Index> dofs = point_stencil(element, point, q);
        return std::any_of(dofs.begin(), dofs.end(), [&](Index dof) { return scene.dof_is_free(dof); });
    };
    for (std::size_t e = 0; e < elements_.size(); ++e) {
        const Element& element = *elements_[e];
        const Geometry& g = element.geometry();
        for (const Index point : surface_points(element)) {
            if (!g.mapped_points && !seen.insert(g.point_dofs[static_cast<std::size_t>(point)]).second) continue;
            const double radius = static_cast<std::size_t>(point) < g.point_radius.size() ? g.point_radius[static_cast<std::size_t>(point)] : 0.0;
            candidates_.push_back({e, point, radius, movable(element, point)});
        }
        std::vector<ContactSolid> solids;
        try {
            solids = element_solids(element, q);
        } catch (const std::invalid_argument& error) {
            errors_.fail("elements", error.what());
        }
        for (ContactSolid& solid : solids) {
            const bool can_move = std::any_of(solid.vertices.begin(), solid.vertices.end(),
                                              [&](Index v) { return movable(element, v); });
            solids_.push_back({std::move(solid), e, can_move});
        }
    }
    if (!settings_.floor && solids_.empty())
        errors_.fail("elements", "there is nothing to touch: no `floor`, and none of the elements is a solid (a rigid "
                                 "body with a closed convex mesh, a sphere or a capsule)");
    positions_.resize(elements_.size());
    velocities_.resize(elements_.size());
}

ContactEnd NcpContact::frame_point(const Element& e, Index point, const Vec3& centre, const Vec3& arm,
                                   const ContactEnd& otherwise, const VectorX& q) {
    const Index frame = e.rigid_frame_of_point(point);
    if (frame < 0) return otherwise;
    EvalContext context;
    context.q = &q;
    e.frame_kinematics(frame, context, frame_);
    ContactEnd end;
    end.element = &e;
    end.frame = frame;
    end.offset = frame_.rotation.transpose() * (centre - frame_.origin);
    end.arm = arm;
    return end;
}

void NcpContact::consider(const Candidate& c, const ContactEnd& surface, const Vec3& normal, double gap,
                          double relative_normal_speed, double thickness, double dt, const VectorX& q) {
    const double predicted = gap + 2.0 * dt * relative_normal_speed;
    if (std::min(gap, predicted) > settings_.margin) return;
    UnilateralContact contact;
    const Element& element = *elements_[c.element];
    contact.a = ContactEnd::at_point(&element, c.point);
    contact.thickness = thickness;
    if (c.radius > 0.0 && element.geometry().mapped_points) {
        contact.a = frame_point(element, c.point, positions_[c.element][static_cast<std::size_t>(c.point)],
                                -c.radius * normal, contact.a, q);
        if (contact.a.frame >= 0) contact.thickness -= c.radius;
    }
    contact.b = surface;
    contact.normal = normal;
    contact.friction = settings_.friction;
    contacts_.push_back(contact);
}

void NcpContact::detect(const SceneView& scene, double dt) {
    const State& s = scene.state();
    velocity_ahead_ = s.v + dt * s.a;
    EvalContext context;
    context.q = &s.q;
    context.v = &velocity_ahead_;
    PointKinematics k;
    double fastest = 0.0;
    for (std::size_t e = 0; e < elements_.size(); ++e) {
        const auto count = elements_[e]->geometry().point_dofs.size();
        positions_[e].resize(count);
        velocities_[e].resize(count);
        for (std::size_t i = 0; i < count; ++i) {
            evaluate_point(*elements_[e], static_cast<Index>(i), context, k);
            positions_[e][i] = k.position;
            velocities_[e][i] = k.velocity;
            fastest = std::max(fastest, k.velocity.norm());
        }
    }
    centroids_.resize(elements_.size());
    for (std::size_t e = 0; e < elements_.size(); ++e) {
        centroids_[e].setZero();
        for (const Vec3& x : positions_[e]) centroids_[e] += x;
        centroids_[e] /= static_cast<double>(std::max<std::size_t>(positions_[e].size(), 1));
    }
    contacts_.clear();
    const auto x_of = [&](const Candidate& c) -> const Vec3& { return positions_[c.element][static_cast<std::size_t>(c.point)]; };
    const auto v_of = [&](const Candidate& c) -> const Vec3& { return velocities_[c.element][static_cast<std::size_t>(c.point)]; };

    if (settings_.floor) {
        const Vec3& n = settings_.floor->normal;
        for (const Candidate& c : candidates_) {
            if (!c.movable) continue;  // the floor cannot push a point that cannot move
            const double gap = n.dot(x_of(c)) - settings_.floor->height - c.radius;
            consider(c, ContactEnd::at_world(settings_.floor->height * n), n, gap, n.dot(v_of(c)), c.radius, dt, s.q);
        }
    }
    if (solids_.empty()) return;

    // Broad phase: candidates by x; each solid's box selects a range.
    sorted_.clear();
    double largest_radius = 0.0;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
        sorted_.emplace_back(x_of(candidates_[i]).x(), i);
        largest_radius = std::max(largest_radius, candidates_[i].radius);
    }
    std::sort(sorted_.begin(), sorted_.end());
    const double reach = settings_.margin + largest_radius + 4.0 * dt * fastest;  // both sides' motion, twice
    for (const Solid& solid : solids_) {
        const std::vector<Vec3>& x = positions_[solid.element];
        Vec3 low = Vec3::Constant(std::numeric_limits<double>::infinity()), high = -low;
        for (const Index v : solid.solid.vertices) {
            low = low.cwiseMin(x[static_cast<std::size_t>(v)]);
            high = high.cwiseMax(x[static_cast<std::size_t>(v)]);
        }
        low.array() -= reach + solid.solid.radius;
        high.array() += reach + solid.solid.radius;
        auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(low.x(), std::size_t{0}));
        for (; it != sorted_.end() && it->first <= high.x(); ++it) {
            const Candidate& c = candidates_[it->second];
            if (c.element == solid.element || (!c.movable && !solid.movable)) continue;
            if (excluded_.count(std::minmax(c.element, solid.element))) continue;
            const Vec3& p = x_of(c);
            if (p.y() < low.y() || p.y() > high.y() || p.z() < low.z() || p.z() > high.z()) continue;
            // The candidate's body comes from its centroid's side (contact_solids.hpp).
            const Vec3 approach = (centroids_[c.element] - centroids_[solid.element]).normalized();
            const SolidProximity near = solid_proximity(solid.solid, x, p, approach, settings_.margin);
            // Two rounded points (sphere centres, capsule ends) meet once: the pair is found both
            // ways, and the lower element's candidate keeps it.
            const auto& radii = elements_[solid.element]->geometry().point_radius;
            if (c.radius > 0.0 && near.vertex >= 0 && c.element > solid.element &&
                static_cast<std::size_t>(near.vertex) < radii.size() && radii[static_cast<std::size_t>(near.vertex)] > 0.0)
                continue;
            Vec3 surface_velocity = Vec3::Zero();
            for (int j = 0; j < near.surface.count; ++j)
                surface_velocity += near.surface.weights[static_cast<std::size_t>(j)] *
                                    velocities_[solid.element][static_cast<std::size_t>(near.surface.points[static_cast<std::size_t>(j)])];
            // A sphere's or capsule's contact point is on its surface (for its friction torque).
            ContactEnd surface = near.surface;
            double thickness = c.radius + near.thickness;
            if (near.thickness > 0.0) {
                Vec3 centre = Vec3::Zero();
                for (int j = 0; j < near.surface.count; ++j)
                    centre += near.surface.weights[static_cast<std::size_t>(j)] *
                              x[static_cast<std::size_t>(near.surface.points[static_cast<std::size_t>(j)])];
                const ContactEnd on_surface = frame_point(*elements_[solid.element], solid.solid.vertices[0], centre,
                                                          near.thickness * near.normal, near.surface, s.q);
                if (on_surface.frame >= 0) {
                    surface = on_surface;
                    thickness -= near.thickness;
                }
            }
            consider(c, surface, near.normal, near.distance - c.radius, near.normal.dot(v_of(c) - surface_velocity),
                     thickness, dt, s.q);
        }
    }
}

}  // namespace soma::ncp
