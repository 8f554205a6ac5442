// Solids from Geometry and the nearest surface point (contact_solids.hpp).
#include "contact_solids.hpp"

#include "soma/point_map.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace soma::ncp {
namespace {

/// Whether every directed edge of the triangles is matched by its reverse exactly once.
bool is_closed(const std::vector<std::array<Index, 3>>& triangles) {
    std::map<std::pair<Index, Index>, int> directed;  // bind-time only
    for (const auto& t : triangles)
        for (int e = 0; e < 3; ++e) ++directed[{t[static_cast<std::size_t>(e)], t[static_cast<std::size_t>((e + 1) % 3)]}];
    for (const auto& [edge, count] : directed) {
        const auto reverse = directed.find({edge.second, edge.first});
        if (count != 1 || reverse == directed.end() || reverse->second != 1) return false;
    }
    return true;
}

/// The triangles grouped by connected component (triangles sharing a point are connected):
/// each closed component is one convex solid (a compound body's parts, an OBJ file of pieces).
std::vector<std::vector<std::array<Index, 3>>> connected_parts(const std::vector<std::array<Index, 3>>& triangles) {
    std::map<Index, Index> parent;  // union-find over point indices (bind-time only)
    const auto root = [&](Index i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    };
    for (const auto& t : triangles)
        for (const Index i : t) parent.emplace(i, i);
    for (const auto& t : triangles) {
        const Index r0 = root(t[0]);
        for (int e = 1; e < 3; ++e) parent[root(t[static_cast<std::size_t>(e)])] = r0;
    }
    std::map<Index, std::size_t> part_of_root;  // numbered in order of first appearance
    std::vector<std::vector<std::array<Index, 3>>> parts;
    for (const auto& t : triangles) {
        const auto [it, inserted] = part_of_root.emplace(root(t[0]), parts.size());
        if (inserted) parts.emplace_back();
        parts[it->second].push_back(t);
    }
    return parts;
}

std::vector<Vec3> positions_of(const Element& element, const VectorX& q) {
    std::vector<Vec3> x;
    for (std::size_t i = 0; i < element.geometry().point_dofs.size(); ++i)
        x.push_back(point_position(element, static_cast<Index>(i), q));
    return x;
}

}  // namespace

Vec3 triangle_normal(const std::vector<Vec3>& positions, const std::array<Index, 3>& face) {
    const Vec3& x0 = positions[static_cast<std::size_t>(face[0])];
    const Vec3 n = (positions[static_cast<std::size_t>(face[1])] - x0).cross(positions[static_cast<std::size_t>(face[2])] - x0);
    const double length = n.norm();
    return length > 0.0 ? Vec3(n / length) : Vec3::Zero();
}

std::vector<Index> surface_points(const Element& element) {
    const Geometry& g = element.geometry();
    const auto count = static_cast<Index>(g.point_dofs.size());
    std::vector<Index> points;
    if (!g.mapped_points) {
        for (Index i = 0; i < count; ++i) points.push_back(i);
        return points;
    }
    std::set<Index> on_surface;
    for (const auto& t : g.triangles) on_surface.insert(t.begin(), t.end());
    for (const auto& e : g.edges) on_surface.insert(e.begin(), e.end());
    for (Index i = 0; i < count; ++i)
        if (static_cast<std::size_t>(i) < g.point_radius.size() && g.point_radius[static_cast<std::size_t>(i)] > 0.0)
            on_surface.insert(i);
    return {on_surface.begin(), on_surface.end()};
}

std::vector<ContactSolid> element_solids(const Element& element, const VectorX& q) {
    const Geometry& g = element.geometry();
    std::vector<ContactSolid> solids;
    if (!g.mapped_points) return solids;
    const auto radius = [&](Index i) {
        return static_cast<std::size_t>(i) < g.point_radius.size() ? g.point_radius[static_cast<std::size_t>(i)] : 0.0;
    };
    std::set<Index> in_mesh;
    const std::vector<std::vector<std::array<Index, 3>>> parts = connected_parts(g.triangles);
    const std::vector<Vec3> x = parts.empty() ? std::vector<Vec3>{} : positions_of(element, q);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        // A compound body's parts are separate solids; name the part when there are several.
        const std::string what = "element '" + element.name() + "': its triangle mesh" +
                                 (parts.size() > 1 ? " (part " + std::to_string(k) + " of " + std::to_string(parts.size()) + ")" : "");
        if (!is_closed(parts[k]))
            throw std::invalid_argument(what + " is not closed (an edge not shared by exactly two triangles "
                                               "in opposite directions), so it bounds no solid that points could be kept out of; "
                                               "close and weld the mesh, or leave the element out of `elements`");
        ContactSolid solid;
        solid.kind = ContactSolid::Kind::polyhedron;
        solid.element = &element;
        solid.faces = parts[k];
        std::set<Index> vertices;
        for (const auto& t : solid.faces) vertices.insert(t.begin(), t.end());
        in_mesh.insert(vertices.begin(), vertices.end());
        solid.vertices.assign(vertices.begin(), vertices.end());
        // Convex: every vertex on or below every face's plane (to round-off of the part's size).
        Vec3 low = x[static_cast<std::size_t>(solid.vertices[0])], high = low;
        for (const Index v : solid.vertices) {
            low = low.cwiseMin(x[static_cast<std::size_t>(v)]);
            high = high.cwiseMax(x[static_cast<std::size_t>(v)]);
        }
        const double size = (high - low).norm();
        double volume = 0.0;  // six times the signed volume (divergence theorem over the faces)
        for (const auto& f : solid.faces) {
            const Vec3& a = x[static_cast<std::size_t>(f[0])];
            const Vec3& b = x[static_cast<std::size_t>(f[1])];
            const Vec3& c = x[static_cast<std::size_t>(f[2])];
            if (!((b - a).cross(c - a).norm() > 1e-12 * size * size))
                throw std::invalid_argument(what + " has a triangle of zero area (" + std::to_string(f[0]) + ", " +
                                            std::to_string(f[1]) + ", " + std::to_string(f[2]) +
                                            "), which has no normal to push along");
            volume += a.dot(b.cross(c));
        }
        if (!(volume > 0.0))
            throw std::invalid_argument(what + " is wound inwards (negative volume): its faces' normals must "
                                               "point out of the body (counter-clockwise seen from outside)");
        for (const auto& f : solid.faces) {
            const Vec3 n = triangle_normal(x, f);
            for (const Index v : solid.vertices)
                if (n.dot(x[static_cast<std::size_t>(v)] - x[static_cast<std::size_t>(f[0])]) > 1e-9 * size)
                    throw std::invalid_argument(what + " is not convex, and contacts with it are solved against its "
                                                       "faces' planes; use its convex hull, or convex parts that do not "
                                                       "overlap (a rigid body's `shapes` list, or an OBJ file of separate "
                                                       "closed convex pieces that share no vertex: pieces joined at a "
                                                       "vertex are one part)");
        }
        solids.push_back(std::move(solid));
    }
    for (const auto& e : g.edges)
        if (radius(e[0]) > 0.0) {
            ContactSolid solid;
            solid.kind = ContactSolid::Kind::capsule;
            solid.element = &element;
            solid.vertices = {e[0], e[1]};
            solid.radius = std::max(radius(e[0]), radius(e[1]));
            solids.push_back(std::move(solid));
        }
    std::set<Index> on_edge;
    for (const auto& e : g.edges) on_edge.insert(e.begin(), e.end());
    for (Index i = 0; i < static_cast<Index>(g.point_dofs.size()); ++i)
        if (radius(i) > 0.0 && !in_mesh.count(i) && !on_edge.count(i)) {
            ContactSolid solid;
            solid.kind = ContactSolid::Kind::sphere;
            solid.element = &element;
            solid.vertices = {i};
            solid.radius = radius(i);
            solids.push_back(std::move(solid));
        }
    return solids;
}

namespace {

/// The barycentric weights (of a, b, c) of the point of triangle abc nearest to \p x (Ericson,
/// Real-Time Collision Detection, 2005, section 5.1.5: by the Voronoi regions of its features).
std::array<double, 3> nearest_on_triangle(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 ab = b - a, ac = c - a, ap = x - a;
    const double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0.0 && d2 <= 0.0) return {1.0, 0.0, 0.0};
    const Vec3 bp = x - b;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0.0 && d4 <= d3) return {0.0, 1.0, 0.0};
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        const double v = d1 / (d1 - d3);
        return {1.0 - v, v, 0.0};
    }
    const Vec3 cp = x - c;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0.0 && d5 <= d6) return {0.0, 0.0, 1.0};
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        const double w = d2 / (d2 - d6);
        return {1.0 - w, 0.0, w};
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return {0.0, 1.0 - w, w};
    }
    const double denominator = 1.0 / (va + vb + vc);
    const double v = vb * denominator, w = vc * denominator;
    return {1.0 - v - w, v, w};
}

}  // namespace

std::vector<Index> spanning_vertices(const std::vector<Index>& vertices, const std::vector<Vec3>& positions) {
    if (vertices.empty()) return {};
    const auto at = [&](Index i) -> const Vec3& { return positions[static_cast<std::size_t>(i)]; };
    std::vector<Index> chosen{vertices[0]};
    // Each next vertex maximises its distance from the span of those chosen (a point, a line, a plane).
    const auto farthest = [&](const auto& distance) {
        Index best = -1;
        double largest = 0.0;
        for (const Index v : vertices)
            if (const double d = distance(at(v)); d > largest) {
                largest = d;
                best = v;
            }
        return std::make_pair(best, largest);
    };
    const Vec3 o = at(vertices[0]);
    const auto [second, extent] = farthest([&](const Vec3& x) { return (x - o).norm(); });
    if (second < 0) return chosen;
    chosen.push_back(second);
    const Vec3 axis = (at(second) - o).normalized();
    const auto [third, off_line] = farthest([&](const Vec3& x) { return ((x - o) - (x - o).dot(axis) * axis).norm(); });
    if (off_line <= 1e-9 * extent) return chosen;
    chosen.push_back(third);
    const Vec3 normal = axis.cross(at(third) - o).normalized();
    const auto [fourth, off_plane] = farthest([&](const Vec3& x) { return std::abs((x - o).dot(normal)); });
    if (off_plane <= 1e-9 * extent) return chosen;
    chosen.push_back(fourth);
    return chosen;
}

std::pair<int, double> best_separating_face(const ContactSolid& solid, const std::vector<Vec3>& positions,
                                            const std::vector<Vec3>& normals, const std::vector<Index>& vertices,
                                            const std::vector<Vec3>& vertex_positions) {
    std::pair<int, double> best{-1, -std::numeric_limits<double>::infinity()};
    for (std::size_t f = 0; f < solid.faces.size(); ++f) {
        const Vec3& n = normals[f];
        const Vec3& on_plane = positions[static_cast<std::size_t>(solid.faces[f][0])];
        double deepest = std::numeric_limits<double>::infinity();
        for (const Index v : vertices) deepest = std::min(deepest, n.dot(vertex_positions[static_cast<std::size_t>(v)] - on_plane));
        if (deepest > best.second) best = {static_cast<int>(f), deepest};
    }
    return best;
}

SolidProximity solid_proximity(const ContactSolid& solid, const std::vector<Vec3>& positions,
                               const std::vector<Vec3>& normals, const Vec3& x, const FaceChoice& choice, double reach) {
    const Vec3& approach = choice.approach;
    const Vec3& motion = choice.motion;
    const double tie = choice.tie;
    const auto at = [&](Index i) -> const Vec3& { return positions[static_cast<std::size_t>(i)]; };
    SolidProximity p;
    p.surface.element = solid.element;
    switch (solid.kind) {
        case ContactSolid::Kind::polyhedron: {
            // The face whose plane is farthest from x: the separating plane of a point outside,
            // the nearest face of a point inside.
            const auto normal_of = [&](const std::array<Index, 3>& f) -> const Vec3& {
                return normals[static_cast<std::size_t>(&f - solid.faces.data())];
            };
            double farthest = -std::numeric_limits<double>::infinity();  // two passes: fine for convex shapes of few faces
            for (const auto& f : solid.faces) farthest = std::max(farthest, normal_of(f).dot(x - at(f[0])));
            double best = 0.0, alignment = -std::numeric_limits<double>::infinity();
            const std::array<Index, 3>* face = nullptr;
            // The entry face of the relative motion (Cyrus-Beck clipping of x + sigma motion), and
            // its exit face.
            double enter = -1.0, leave = 1.0;
            bool misses = false;
            const std::array<Index, 3>* exit_face = nullptr;
            double exit_distance = 0.0;
            Vec3 exit_normal = Vec3::Zero();
            for (const auto& f : solid.faces) {
                const Vec3& n = normal_of(f);
                const double d = n.dot(x - at(f[0])), rate = n.dot(motion);
                if (rate == 0.0) {
                    misses = misses || d > 0.0;
                } else if (rate < 0.0) {  // inside this plane for sigma >= -d / rate
                    if (-d / rate > enter) {
                        enter = -d / rate;
                        face = &f;
                        best = d;
                        p.normal = n;
                    }
                } else if (-d / rate < leave) {  // outside this plane for sigma > -d / rate
                    leave = -d / rate;
                    exit_face = &f;
                    exit_distance = d;
                    exit_normal = n;
                }
            }
            // A motion below the tie is no direction: round-off of a point at rest on an edge. A
            // line that leaves the solid by now is a point moving away from it (outside, or on its
            // surface): where its extrapolated past entered says nothing (a corner bounced off a
            // plate's top would "enter" by the plate's underside).
            if (misses || enter > leave || motion.norm() <= tie || leave <= 0.0) face = nullptr;
            // Inside now: of the face it entered by and the face it leaves by along its motion, the
            // nearer (a point pushed back out, its velocity reversed within the step, leaves by the
            // face it came through; extrapolated back, it would have entered by the far one).
            if (face && enter < 0.0 && exit_face && leave < -enter) {
                face = exit_face;
                best = exit_distance;
                p.normal = exit_normal;
            }
            if (choice.reference >= 0) {
                // The pair's contact face, before all, where x lies over it (within the tie): one of
                // the coplanar triangles of the reference's face. Farther out, x is no corner of
                // that contact (the clipping of contact manifolds keeps it out).
                const Vec3& n = normals[static_cast<std::size_t>(choice.reference)];
                const double d = n.dot(x - at(solid.faces[static_cast<std::size_t>(choice.reference)][0]));
                const Vec3 foot = x - d * n;
                const auto over = [&](const std::array<Index, 3>& f) {
                    for (std::size_t k = 0; k < 3; ++k) {
                        const Vec3& a = at(f[k]);
                        const Vec3 outward = (at(f[(k + 1) % 3]) - a).cross(n).normalized();  // in the plane, out of the triangle
                        if (outward.dot(foot - a) > tie) return false;
                    }
                    return true;
                };
                for (const auto& f : solid.faces)
                    if (normal_of(f).dot(n) > 1.0 - 1e-9 && over(f)) {
                        face = &f;
                        p.normal = n;
                        best = d;
                        break;
                    }
            }
            const bool entered = face != nullptr;
            if (!entered && farthest > tie && farthest > reach) {
                // Farther than the caller looks: its distance is at least the farthest plane's.
                p.distance = farthest;
                p.surface.count = 0;
                return p;
            }
            if (!entered && farthest > tie) {
                // Outside by more than the tie: the nearest point of the surface, which beyond an
                // edge or a corner is on it, not on a face's plane (a ball passing a box's edge
                // clears it by more than the plane's distance, and is pushed along the line to it).
                double nearest = std::numeric_limits<double>::infinity();
                for (const auto& f : solid.faces) {
                    const std::array<double, 3> w = nearest_on_triangle(x, at(f[0]), at(f[1]), at(f[2]));
                    const Vec3 on = w[0] * at(f[0]) + w[1] * at(f[1]) + w[2] * at(f[2]);
                    if (const double d = (x - on).norm(); d < nearest) {
                        nearest = d;
                        p.surface.points = f;
                        p.surface.weights = w;
                        // Over the face's inside: its plane's normal and distance, exactly.
                        const bool inside = w[0] > 0.0 && w[1] > 0.0 && w[2] > 0.0;
                        p.normal = inside ? normal_of(f) : Vec3((x - on) / d);  // d >= farthest > tie > 0
                        p.distance = inside ? p.normal.dot(x - at(f[0])) : d;
                    }
                }
                p.surface.count = 3;
                return p;
            }
            for (const auto& f : solid.faces) {
                if (entered) break;
                const Vec3& n = normal_of(f);
                const double d = n.dot(x - at(f[0]));
                if (d < farthest - tie) continue;
                const double a = n.dot(approach);
                if (!face || a > alignment || (a == alignment && d > best)) {
                    best = d;
                    alignment = a;
                    face = &f;
                    p.normal = n;
                }
            }
            p.distance = best;
            // The foot of x on the plane, in barycentric weights of the face (extrapolated).
            const Vec3 foot = x - best * p.normal;
            const Vec3 e0 = at((*face)[1]) - at((*face)[0]), e1 = at((*face)[2]) - at((*face)[0]), r = foot - at((*face)[0]);
            const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1), d20 = r.dot(e0), d21 = r.dot(e1);
            const double denominator = d00 * d11 - d01 * d01;
            const double v = (d11 * d20 - d01 * d21) / denominator, w = (d00 * d21 - d01 * d20) / denominator;
            p.surface.points = *face;
            p.surface.weights = {1.0 - v - w, v, w};
            p.surface.count = 3;
            return p;
        }
        case ContactSolid::Kind::sphere: {
            const Vec3 r = x - at(solid.vertices[0]);
            const double length = r.norm();
            p.normal = length > 0.0 ? Vec3(r / length) : Vec3::UnitZ();
            p.distance = length - solid.radius;
            p.surface.points[0] = solid.vertices[0];
            p.thickness = solid.radius;
            p.vertex = solid.vertices[0];
            return p;
        }
        case ContactSolid::Kind::capsule: {
            const Vec3& a = at(solid.vertices[0]);
            const Vec3 axis = at(solid.vertices[1]) - a;
            const double s = std::clamp(axis.squaredNorm() > 0.0 ? (x - a).dot(axis) / axis.squaredNorm() : 0.0, 0.0, 1.0);
            const Vec3 r = x - (a + s * axis);
            const double length = r.norm();
            p.normal = length > 0.0 ? Vec3(r / length) : Vec3::UnitZ();
            p.distance = length - solid.radius;
            p.surface.points = {solid.vertices[0], solid.vertices[1], 0};
            p.surface.weights = {1.0 - s, s, 0.0};
            p.surface.count = 2;
            p.thickness = solid.radius;
            if (s == 0.0 || s == 1.0) p.vertex = solid.vertices[s == 0.0 ? 0 : 1];
            return p;
        }
    }
    return p;
}

}  // namespace soma::ncp
