// Contacts with a floor and between elements (ncp_contact.hpp).
#include "ncp_contact.hpp"

#include "capsule_contacts.hpp"

#include "soma/element_selection.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>
#include <map>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <stdexcept>

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
    looks_.valid = false;
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
    edge_solids_.clear();
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
            // A polyhedron's edges are topology: its faces keep their angles (a rigid body).
            std::vector<PolyhedronEdge> edges;
            std::vector<Index> spanning;
            std::vector<PolyhedronFace> faces;
            if (solid.kind == ContactSolid::Kind::polyhedron) {
                std::vector<Vec3> x(g.point_dofs.size());
                for (std::size_t i = 0; i < x.size(); ++i) x[i] = point_position(element, static_cast<Index>(i), q);
                if (settings_.edge_contacts) edges = polyhedron_edges(solid.faces, x);
                spanning = spanning_vertices(solid.vertices, x);
                if (settings_.manifold) {
                    try {
                        faces = polyhedron_faces(solid.faces, x);
                    } catch (const std::invalid_argument& error) {
                        errors_.fail("elements", "element '" + element.name() + "': its triangle mesh: " + error.what());
                    }
                }
            }
            // Swept for edge contacts: polyhedra with edges (every polyhedron for its manifolds),
            // and capsules (their sides) always.
            if (!edges.empty() || !faces.empty() || solid.kind == ContactSolid::Kind::capsule)
                edge_solids_.push_back(solids_.size());
            Solid entry;
            entry.solid = std::move(solid);
            entry.element = e;
            entry.movable = can_move;
            entry.edges = std::move(edges);
            entry.spanning = std::move(spanning);
            entry.faces = std::move(faces);
            solids_.push_back(std::move(entry));
        }
    }
    // Each corner of a polyhedron knows it (its face choice against another polyhedron).
    std::map<std::pair<std::size_t, Index>, std::size_t> polyhedron_of;
    for (std::size_t k = 0; k < solids_.size(); ++k)
        if (solids_[k].solid.kind == ContactSolid::Kind::polyhedron)
            for (const Index v : solids_[k].solid.vertices) polyhedron_of[{solids_[k].element, v}] = k;
    for (Candidate& c : candidates_)
        if (const auto it = polyhedron_of.find({c.element, c.point}); it != polyhedron_of.end()) c.solid = it->second;
    if (!settings_.floor && solids_.empty())
        errors_.fail("elements", "there is nothing to touch: no `floor`, and none of the elements is a solid (a rigid "
                                 "body with a closed convex mesh, a sphere or a capsule)");
    positions_.resize(elements_.size());
    velocities_.resize(elements_.size());
    // Per-step buffers sized once.
    boxes_.resize(edge_solids_.size());
    edge_solids_by_x_.reserve(edge_solids_.size());
    for (Solid& solid : solids_) {
        solid.normals.resize(solid.solid.faces.size());
        solid.start_normals.resize(solid.solid.faces.size());
        solid.edge_axes.resize(solid.edges.size());
        solid.start_edge_axes.resize(solid.edges.size());
    }
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

bool NcpContact::within_margin(double gap, double relative_normal_speed, double dt) const {
    if (at_solved_end_) return gap <= settings_.margin;  // the solved end itself: nothing to predict
    const double predicted = gap + 2.0 * dt * relative_normal_speed;
    return std::min(gap, predicted) <= settings_.margin;
}

void NcpContact::add_contact(const ContactEnd& a, const ContactEnd& b, const Vec3& normal, double thickness,
                             const ContactKey& key, double gap) {
    // At a solved end, a pair found before keeps its row, unless the start found it and it ends
    // penetrated by more than a tenth of the margin: then the start's row (its normal and material
    // points fixed while the bodies turned and slid) did not describe it, and the end's geometry
    // adds one that does (once).
    if (at_solved_end_) {
        if (std::binary_search(end_keys_.begin(), end_keys_.end(), key)) return;
        const auto start = std::lower_bound(start_found_.begin(), start_found_.end(), std::make_pair(key, -kInfinity));
        // Found at the start: again only when it ends deeper than there by a tenth of the margin (not
        // a penetration max_depenetration_speed closes over several steps).
        if (start != start_found_.end() && start->first == key && gap >= std::min(-0.1 * settings_.margin, start->second - 0.1 * settings_.margin))
            return;
        new_keys_.push_back(key);
    } else {
        start_found_.emplace_back(key, gap);
    }
    UnilateralContact contact;
    contact.a = a;
    contact.b = b;
    contact.normal = normal;
    contact.thickness = thickness;
    contact.friction = settings_.friction;
    contacts_.push_back(contact);
}

void NcpContact::consider(const Candidate& c, const ContactEnd& surface, const Vec3& normal, double gap,
                          double relative_normal_speed, double thickness, double dt, const VectorX& q,
                          const ContactKey& key) {
    if (!within_margin(gap, relative_normal_speed, dt)) return;
    const Element& element = *elements_[c.element];
    ContactEnd a = ContactEnd::at_point(&element, c.point);
    if (c.radius > 0.0 && element.geometry().mapped_points) {
        a = frame_point(element, c.point, positions_[c.element][static_cast<std::size_t>(c.point)], -c.radius * normal, a, q);
        if (a.frame >= 0) thickness -= c.radius;
    }
    add_contact(a, surface, normal, thickness, key, gap);
}

void NcpContact::detect_edge_contacts(double dt, double reach, const VectorX& q) {
    // The solids' boxes, each grown by half the reach (and a capsule's radius): two overlap when
    // they come within it.
    edge_solids_by_x_.clear();
    for (std::size_t k = 0; k < edge_solids_.size(); ++k) {
        Solid& solid = solids_[edge_solids_[k]];
        const std::vector<Vec3>& x = positions_[solid.element];
        Vec3 low = Vec3::Constant(std::numeric_limits<double>::infinity()), high = -low;
        for (const Index v : solid.solid.vertices) {
            low = low.cwiseMin(x[static_cast<std::size_t>(v)]);
            high = high.cwiseMax(x[static_cast<std::size_t>(v)]);
        }
        const double grow = 0.5 * reach + solid.solid.radius;
        boxes_[k] = {Vec3(low.array() - grow), Vec3(high.array() + grow)};
        edge_solids_by_x_.emplace_back(boxes_[k][0].x(), k);
    }
    std::sort(edge_solids_by_x_.begin(), edge_solids_by_x_.end());
    const auto is_capsule = [](const Solid& solid) { return solid.solid.kind == ContactSolid::Kind::capsule; };
    const auto axis_of = [&](const Solid& solid) {
        const std::vector<Vec3>& x = positions_[solid.element];
        return CapsuleAxis{x[static_cast<std::size_t>(solid.solid.vertices[0])], x[static_cast<std::size_t>(solid.solid.vertices[1])],
                           solid.solid.radius};
    };
    for (auto first = edge_solids_by_x_.begin(); first != edge_solids_by_x_.end(); ++first) {
        const std::array<Vec3, 2>& box_a = boxes_[first->second];
        for (auto second = std::next(first); second != edge_solids_by_x_.end() && second->first <= box_a[1].x(); ++second) {
            const std::array<Vec3, 2>& box_b = boxes_[second->second];
            if (box_b[0].y() > box_a[1].y() || box_a[0].y() > box_b[1].y() || box_b[0].z() > box_a[1].z() ||
                box_a[0].z() > box_b[1].z())
                continue;
            // A is the solid listed first whatever the boxes' order along x, so that a pair is
            // the same (its key, its face crossings' reference faces) at every look; a capsule
            // against a polyhedron is A.
            std::size_t index_a = std::min(edge_solids_[first->second], edge_solids_[second->second]);
            std::size_t index_b = std::max(edge_solids_[first->second], edge_solids_[second->second]);
            if (is_capsule(solids_[index_b]) && !is_capsule(solids_[index_a])) std::swap(index_a, index_b);
            const Solid& a = solids_[index_a];
            const Solid& b = solids_[index_b];
            if (a.element == b.element || (!a.movable && !b.movable)) continue;
            if (excluded_.count(std::minmax(a.element, b.element))) continue;
            edge_pairs_.clear();
            if (settings_.manifold && !is_capsule(a) && !is_capsule(b)) {
                add_manifold(index_a, index_b, dt, reach);
                continue;
            }
            if (!is_capsule(a)) {
                supporting_edge_pairs({a.solid, a.edges, positions_[a.element], a.normals, a.edge_axes},
                                      {b.solid, b.edges, positions_[b.element], b.normals, b.edge_axes}, settings_.margin, reach,
                                      edge_pairs_, /*face_crossings=*/true, round_off_slack());
            } else if (!is_capsule(b)) {
                if (b.edges.empty()) continue;  // edge_contacts: false
                capsule_edge_pairs(axis_of(a), {b.solid, b.edges, positions_[b.element], b.normals, b.edge_axes},
                                   settings_.margin, reach,
                                   edge_pairs_);
            } else {
                EdgePair pair;
                if (capsule_side_pair(axis_of(a), axis_of(b), settings_.margin, reach,
                                      centroids_[a.element] - centroids_[b.element], pair))
                    edge_pairs_.push_back(pair);
            }
            // An edge: its two ends (a capsule's axis; edge 0).
            const auto edge_ends = [](const Solid& solid, std::size_t edge) {
                return solid.edges.empty() ? std::array<Index, 2>{solid.solid.vertices[0], solid.solid.vertices[1]}
                                           : solid.edges[edge].points;
            };
            for (const EdgePair& pair : edge_pairs_) {
                const std::array<Index, 2> ea = edge_ends(a, pair.edge_a), eb = edge_ends(b, pair.edge_b);
                // The edge's material point's velocity (like the point candidates'): along n, a
                // capsule's surface point moves as its axis point.
                const auto velocity_at = [&](const Solid& solid, const std::array<Index, 2>& edge, double w) {
                    const std::vector<Vec3>& v = velocities_[solid.element];
                    return Vec3((1.0 - w) * v[static_cast<std::size_t>(edge[0])] + w * v[static_cast<std::size_t>(edge[1])]);
                };
                const double speed = pair.normal.dot(velocity_at(a, ea, pair.s) - velocity_at(b, eb, pair.t));
                if (!within_margin(pair.gap, speed, dt)) continue;
                // Each end is the edge's material point: two points of its element, weights 1 - s,
                // s; a capsule's is on its surface, fixed in its body's frame (for the friction's
                // torque), out along -n on A and +n on B.
                double thickness = 0.0;
                const auto end = [&](const Solid& solid, const std::array<Index, 2>& edge, double w, double sign) {
                    ContactEnd e;
                    e.element = elements_[solid.element];
                    e.points = {edge[0], edge[1], 0};
                    e.weights = {1.0 - w, w, 0.0};
                    e.count = 2;
                    if (!is_capsule(solid)) return e;
                    const std::vector<Vec3>& x = positions_[solid.element];
                    const Vec3 centre = (1.0 - w) * x[static_cast<std::size_t>(edge[0])] + w * x[static_cast<std::size_t>(edge[1])];
                    const ContactEnd on_surface =
                        frame_point(*e.element, edge[0], centre, sign * solid.solid.radius * pair.normal, e, q);
                    if (on_surface.frame >= 0) return on_surface;
                    thickness += solid.solid.radius;
                    return e;
                };
                const ContactEnd end_a = end(a, ea, pair.s, -1.0), end_b = end(b, eb, pair.t, 1.0);
                add_contact(end_a, end_b, pair.normal, thickness,
                            {is_capsule(a) ? std::size_t{2} : std::size_t{1}, index_a, pair.edge_a, index_b, pair.edge_b},
                            pair.gap);
            }
        }
    }
}

SeparatingAxis NcpContact::start_axis(std::size_t index_a, std::size_t index_b) {
    const std::pair<std::size_t, std::size_t> pair{index_a, index_b};
    if (at_solved_end_) {
        const auto it = std::lower_bound(start_axes_.begin(), start_axes_.end(), pair,
                                         [](const auto& entry, const auto& key) { return entry.first < key; });
        if (it != start_axes_.end() && it->first == pair) return it->second;
    }
    const Solid& a = solids_[index_a];
    const Solid& b = solids_[index_b];
    const PolyhedronShape start_a{{a.solid, a.edges, start_positions_[a.element], a.start_normals, a.start_edge_axes}, a.faces};
    const PolyhedronShape start_b{{b.solid, b.edges, start_positions_[b.element], b.start_normals, b.start_edge_axes}, b.faces};
    const SeparatingAxis axis = closing_axis(start_a, start_b, start_ahead_[a.element], start_ahead_[b.element],
                                             kEdgeAxisPreference * settings_.margin, settings_.margin);
    if (!at_solved_end_) start_axes_.emplace_back(pair, axis);
    return axis;
}

void NcpContact::add_manifold(std::size_t index_a, std::size_t index_b, double dt, double reach) {
    const Solid& a = solids_[index_a];
    const Solid& b = solids_[index_b];
    const PolyhedronShape now_a{{a.solid, a.edges, positions_[a.element], a.normals, a.edge_axes}, a.faces};
    const PolyhedronShape now_b{{b.solid, b.edges, positions_[b.element], b.normals, b.edge_axes}, b.faces};
    // Apart by more than the reach and the margin along a face axis: no point of theirs is nearer
    // (a point over the reference face is at least the bodies' distance from its foot, and an edge
    // pair is dropped when deeper than that axis by the margin).
    const double face_now = best_face_separation(now_a, now_b);
    if (face_now - settings_.margin > reach + round_off_slack()) return;
    // The axis from the step's start, where the pair is apart or touching: a corner that went
    // deep into a thin plate within the step would find the plate's side the shallowest axis
    // at the solved end, and be pushed out sideways, not back the way it came.
    manifold_points_.clear();
    PairSeparation separation_now(now_a, now_b);
    const auto along = [&](const SeparatingAxis& axis) {
        return contact_manifold(now_a, now_b, axis, reach, settings_.margin, round_off_slack(), separation_now,
                                manifold_points_);
    };
    // The axis from the step's start; where it is a face that finds no point over it, the best
    // edge pair; where its edges are no longer a supporting pair (the bodies turned within the
    // step), the axis of this look's geometry, likewise.
    const auto along_or_edges = [&](const SeparatingAxis& axis) {
        return along(axis) || (axis.kind != SeparatingAxis::Kind::edges && along(axis.edge_axis()));
    };
    if (!along_or_edges(start_axis(index_a, index_b)))
        along_or_edges(separating_axis(now_a, now_b, kEdgeAxisPreference * settings_.margin, settings_.margin));
    // Overlapping here by more than a tenth of the margin where none of those points is: the
    // axis of the step's start no longer describes the pair (a leg's corner, turned within the
    // step, pokes into another leg beside the face the start chose). The overlap's own axis (the
    // separating-axis theorem's, without a preference) adds its points.
    if (face_now < -kDeepOverlap * settings_.margin && separation_now() < -kDeepOverlap * settings_.margin) {
        const SeparatingAxis deepest = separating_axis(now_a, now_b, 0.0, -kInfinity);
        double shallowest = kInfinity;
        bool found = false;
        for (const ManifoldPoint& p : manifold_points_) {
            shallowest = std::min(shallowest, p.gap);
            found = found || p.axis == axis_name(deepest);
        }
        if (!found && shallowest > deepest.separation + kDeepOverlap * settings_.margin)
            along(deepest);
    }
    const auto velocity_of = [&](const Solid& solid, const ContactEnd& end) {
        Vec3 v = Vec3::Zero();
        for (int j = 0; j < end.count; ++j)
            v += end.weights[static_cast<std::size_t>(j)] * velocities_[solid.element][static_cast<std::size_t>(end.points[static_cast<std::size_t>(j)])];
        return v;
    };
    for (ManifoldPoint& p : manifold_points_) {
        if (!within_margin(p.gap, p.normal.dot(velocity_of(a, p.a) - velocity_of(b, p.b)), dt)) continue;
        p.a.element = elements_[a.element];
        p.b.element = elements_[b.element];
        add_contact(p.a, p.b, p.normal, 0.0, {3, index_a, p.axis, index_b, p.name}, p.gap);
    }
}

double NcpContact::evaluate_points(const VectorX& q, const VectorX& velocity) {
    EvalContext context;
    context.q = &q;
    context.v = &velocity;
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
    // Each solid's velocity field from its spanning vertices: v(x) = v_0 + G (x - x_0), with
    // G [x_k - x_0] = [v_k - v_0], k = 1..3; a polyhedron's face normals and edges' cone axes,
    // shared by all its points' and edges' tests at this look.
    for (Solid& solid : solids_) {
        const std::vector<Vec3>& x = positions_[solid.element];
        if (solid.solid.kind == ContactSolid::Kind::polyhedron) {
            face_normals(solid.solid.faces, x, solid.normals);
            edge_cone_axes(solid.edges, solid.normals, solid.edge_axes);
        }
        const std::vector<Vec3>& v = velocities_[solid.element];
        const auto at = [](const std::vector<Vec3>& values, Index i) -> const Vec3& { return values[static_cast<std::size_t>(i)]; };
        const Index first = solid.spanning.empty() ? solid.solid.vertices[0] : solid.spanning[0];
        solid.base = at(x, first);
        solid.base_velocity = at(v, first);
        solid.velocity_gradient.setZero();
        if (solid.spanning.size() < 4) continue;
        Mat3 span, change;
        for (int k = 0; k < 3; ++k) {
            span.col(k) = at(x, solid.spanning[static_cast<std::size_t>(k) + 1]) - solid.base;
            change.col(k) = at(v, solid.spanning[static_cast<std::size_t>(k) + 1]) - solid.base_velocity;
        }
        solid.velocity_gradient = change * span.inverse();
    }
    return fastest;
}

void NcpContact::detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved) {
    const State& s = scene.state();
    velocity_ahead_ = s.v + dt * s.a;
    // A look is a function of its arguments (ContactConstraint::detect): an integrator looking
    // again at the same step passes the same start and the same solved ends first, so what they
    // found is kept, not searched again.
    const auto same = [](const VectorX& a, const VectorX& b) { return a.size() == b.size() && a == b; };
    const bool same_start = looks_.valid && dt == looks_.dt && same(s.q, looks_.q) && same(velocity_ahead_, looks_.v);
    if (!same_start) {
        looks_.valid = false;  // until the search below completes (it may throw)
        contacts_.clear();
        start_found_.clear();
        end_keys_.clear();
        at_solved_end_ = false;
        const double fastest = evaluate_points(s.q, velocity_ahead_);
        start_positions_ = positions_;  // same sizes every step: no allocation after the first
        start_axes_.clear();
        start_ahead_ = positions_;
        for (std::size_t e = 0; e < start_ahead_.size(); ++e)
            for (std::size_t i = 0; i < start_ahead_[e].size(); ++i) start_ahead_[e][i] += 2.0 * dt * velocities_[e][i];
        for (Solid& solid : solids_) {
            solid.start_normals = solid.normals;
            solid.start_edge_axes = solid.edge_axes;
        }
        find_contacts(s.q, dt, fastest);
        std::sort(start_found_.begin(), start_found_.end());
        std::sort(start_axes_.begin(), start_axes_.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        looks_.valid = true;
        looks_.dt = dt;
        looks_.q = s.q;
        looks_.v = velocity_ahead_;
        looks_.start_contacts = contacts_.size();
        looks_.end_count = 0;
    }
    // The solved ends already looked at, in order, and what the contacts were after each (the
    // entries past end_count are kept for their buffers).
    std::size_t kept = 0;
    while (kept < solved.size() && kept < looks_.end_count && same(*solved[kept].q, looks_.ends[kept].q) &&
           same(*solved[kept].v, looks_.ends[kept].v))
        ++kept;
    looks_.end_count = kept;
    contacts_.resize(kept == 0 ? looks_.start_contacts : looks_.ends[kept - 1].contacts);
    if (kept == 0) end_keys_.clear();
    else end_keys_ = looks_.ends[kept - 1].end_keys;
    if (kept == solved.size()) return;
    // Each further solved end in turn: what is within the margin there, from the end's geometry
    // (its faces, its supporting edges), without prediction, but for what the looks before found
    // (add_contact). The solved velocity still tells the faces points entered by.
    at_solved_end_ = true;
    for (std::size_t k = kept; k < solved.size(); ++k) {
        new_keys_.clear();
        evaluate_points(*solved[k].q, *solved[k].v);
        find_contacts(*solved[k].q, dt, 0.0);
        end_keys_.insert(end_keys_.end(), new_keys_.begin(), new_keys_.end());
        std::sort(end_keys_.begin(), end_keys_.end());
        if (looks_.ends.size() <= k) looks_.ends.emplace_back();
        SolvedLook& look = looks_.ends[k];
        look.q = *solved[k].q;
        look.v = *solved[k].v;
        look.contacts = contacts_.size();
        look.end_keys = end_keys_;
        looks_.end_count = k + 1;
    }
    at_solved_end_ = false;
}

Vec3 NcpContact::solid_velocity(const Solid& solid, const Vec3& x) const {
    return solid.base_velocity + solid.velocity_gradient * (x - solid.base);
}

void NcpContact::find_contacts(const VectorX& q, double dt, double fastest) {
    const auto x_of = [&](const Candidate& c) -> const Vec3& { return positions_[c.element][static_cast<std::size_t>(c.point)]; };
    const auto v_of = [&](const Candidate& c) -> const Vec3& { return velocities_[c.element][static_cast<std::size_t>(c.point)]; };

    if (settings_.floor) {
        const Vec3& n = settings_.floor->normal;
        for (const Candidate& c : candidates_) {
            if (!c.movable) continue;  // the floor cannot push a point that cannot move
            const double gap = n.dot(x_of(c)) - settings_.floor->height - c.radius;
            consider(c, ContactEnd::at_world(settings_.floor->height * n), n, gap, n.dot(v_of(c)), c.radius, dt, q,
                     {0, static_cast<std::size_t>(&c - candidates_.data()), kFloor, 0, 0});
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
    pair_reference_.resize(solids_.size());
    pair_reference_search_.resize(solids_.size(), 0);
    for (const Solid& solid : solids_) {
        ++search_;  // a new solid: the pairs' reference faces are found afresh
        const auto solid_index = static_cast<std::size_t>(&solid - solids_.data());
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
            // A corner against another polyhedron is a point of their manifold (add_manifold).
            if (settings_.manifold && c.solid != kNone && solid.solid.kind == ContactSolid::Kind::polyhedron) continue;
            const Vec3& p = x_of(c);
            if (p.y() < low.y() || p.y() > high.y() || p.z() < low.z() || p.z() > high.z()) continue;
            // The candidate enters by the face its motion relative to the solid crosses over the
            // step before and after now, else it comes from its centroid's side (contact_solids.hpp).
            FaceChoice choice;
            choice.approach = (centroids_[c.element] - centroids_[solid.element]).normalized();
            choice.tie = settings_.margin;
            choice.motion = 2.0 * dt * (v_of(c) - solid_velocity(solid, p));
            if (c.solid != kNone && solid.solid.kind == ContactSolid::Kind::polyhedron) {
                // Two polyhedra: the contact face is this solid's face that separates the corner's
                // polyhedron best, when no face of that polyhedron separates them better (then
                // its own corners are not the contact's; the other's corners against it are).
                if (pair_reference_search_[c.solid] != search_) {
                    // From the step's start, where the pair is apart or touching: at a solved end a
                    // corner that went deep into a thin plate within the step would find the plate's
                    // side the shallowest axis, and be pushed out sideways, not back the way it came.
                    const Solid& own = solids_[c.solid];
                    const std::vector<Vec3>& start = start_positions_[solid.element];
                    const std::vector<Vec3>& own_start = start_positions_[own.element];
                    const auto [face, separation] =
                        best_separating_face(solid.solid, start, solid.start_normals, own.solid.vertices, own_start);
                    const double own_separation =
                        best_separating_face(own.solid, own_start, own.start_normals, solid.solid.vertices, start).second;
                    pair_reference_[c.solid] = separation >= own_separation ? face : -1;
                    pair_reference_search_[c.solid] = search_;
                }
                choice.reference = pair_reference_[c.solid];
            }
            // Farther than the reach (on a polyhedron, outside its planes by more), it is dropped
            // below whatever its nearest point: within_margin admits no gap beyond the margin and
            // the step's motion of both sides, which the reach bounds (a slack far above the
            // round-off of the two sums keeps that exact).
            const SolidProximity near = solid_proximity(solid.solid, x, solid.normals, p, choice, reach + round_off_slack());
            if (near.surface.count == 0) continue;
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
                                                          near.thickness * near.normal, near.surface, q);
                if (on_surface.frame >= 0) {
                    surface = on_surface;
                    thickness -= near.thickness;
                }
            }
            consider(c, surface, near.normal, near.distance - c.radius,
                     near.normal.dot(v_of(c) - surface_velocity), thickness, dt, q,
                     {0, it->second, solid_index, 0, 0});
        }
    }
    // Edge against edge and a capsule's side: the same reach without the candidates' radii (the
    // sweep grows a capsule's box by its own).
    if (!edge_solids_.empty()) detect_edge_contacts(dt, settings_.margin + 4.0 * dt * fastest, q);
}

}  // namespace soma::ncp
