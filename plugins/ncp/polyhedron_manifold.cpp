// The contact manifold of two convex polyhedra (polyhedron_manifold.hpp).
#include "polyhedron_manifold.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <utility>

namespace soma::ncp {

std::vector<PolyhedronFace> polyhedron_faces(const std::vector<std::array<Index, 3>>& faces,
                                             const std::vector<Vec3>& positions, double flat_angle) {
    // Triangles across each undirected edge (bind-time only).
    std::map<std::pair<Index, Index>, std::vector<std::size_t>> sides;
    for (std::size_t f = 0; f < faces.size(); ++f)
        for (std::size_t k = 0; k < 3; ++k) sides[std::minmax(faces[f][k], faces[f][(k + 1) % 3])].push_back(f);
    std::vector<std::size_t> group(faces.size());
    for (std::size_t f = 0; f < faces.size(); ++f) group[f] = f;
    const auto root = [&](std::size_t f) {
        while (group[f] != f) f = group[f] = group[group[f]];
        return f;
    };
    for (const auto& [edge, triangles] : sides) {
        if (triangles.size() != 2) continue;
        const Vec3 n0 = triangle_normal(positions, faces[triangles[0]]), n1 = triangle_normal(positions, faces[triangles[1]]);
        if (n0.cross(n1).norm() <= flat_angle && n0.dot(n1) > 0.0) group[root(triangles[0])] = root(triangles[1]);
    }
    std::map<std::size_t, std::size_t> face_of_root;
    std::vector<PolyhedronFace> result;
    for (std::size_t f = 0; f < faces.size(); ++f) {
        const auto [it, inserted] = face_of_root.emplace(root(f), result.size());
        if (inserted) result.emplace_back();
        result[it->second].triangles.push_back(f);
    }
    // Each face's boundary: its triangles' directed edges whose reverse is not in the face, chained
    // head to tail (counter-clockwise, as the triangles are).
    for (PolyhedronFace& face : result) {
        std::map<Index, Index> next;
        std::map<std::pair<Index, Index>, int> directed;
        for (const std::size_t t : face.triangles)
            for (std::size_t k = 0; k < 3; ++k) ++directed[{faces[t][k], faces[t][(k + 1) % 3]}];
        for (const auto& [edge, count] : directed)
            if (!directed.count({edge.second, edge.first})) next[edge.first] = edge.second;
        if (next.empty()) throw std::invalid_argument("a face without a boundary (not a closed convex mesh)");
        const Index first = next.begin()->first;
        Index at = first;
        do {
            face.loop.push_back(at);
            const auto it = next.find(at);
            if (it == next.end() || face.loop.size() > next.size())
                throw std::invalid_argument("a face's boundary is not one loop (not a closed convex mesh)");
            at = it->second;
        } while (at != first);
        if (face.loop.size() != next.size())
            throw std::invalid_argument("a face's boundary is more than one loop (not a closed convex mesh)");
    }
    return result;
}

namespace {

const Vec3& at(const PolyhedronFeatures& p, Index i) { return p.positions[static_cast<std::size_t>(i)]; }

/// A face's outward unit normal at this look: its first triangle's.
const Vec3& normal_of(const PolyhedronShape& s, std::size_t face) { return s.features.normals[s.faces[face].triangles[0]]; }

/// The best face of \p a against \p b's vertices: its index and separation.
std::pair<std::size_t, double> best_face(const PolyhedronShape& a, const PolyhedronShape& b) {
    std::pair<std::size_t, double> best{0, -std::numeric_limits<double>::infinity()};
    for (std::size_t f = 0; f < a.faces.size(); ++f) {
        const double deepest = deepest_beyond_plane(normal_of(a, f), at(a.features, a.faces[f].loop[0]),
                                                    b.features.solid.vertices, b.features.positions);
        if (deepest > best.second) best = {f, deepest};
    }
    return best;
}

/// The face of \p s whose normal is most opposed to \p n.
std::size_t incident_face(const PolyhedronShape& s, const Vec3& n) {
    std::size_t facing = 0;
    double most_opposed = std::numeric_limits<double>::infinity();
    for (std::size_t f = 0; f < s.faces.size(); ++f)
        if (const double c = normal_of(s, f).dot(n); c < most_opposed) {
            most_opposed = c;
            facing = f;
        }
    return facing;
}

/// A point's affine weights in whichever of \p face's triangles holds it best (the largest
/// smallest weight; exact for any point of the face's plane, which a rigid body keeps).
ContactEnd face_point(const PolyhedronShape& s, std::size_t face, const Vec3& x) {
    ContactEnd end;
    double best = -std::numeric_limits<double>::infinity();
    for (const std::size_t t : s.faces[face].triangles) {
        const std::array<Index, 3>& f = s.features.solid.faces[t];
        const Vec3 &a = at(s.features, f[0]), &b = at(s.features, f[1]), &c = at(s.features, f[2]);
        const Vec3 e0 = b - a, e1 = c - a, r = x - a;
        const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1), d20 = r.dot(e0), d21 = r.dot(e1);
        const double denominator = d00 * d11 - d01 * d01;
        const double v = (d11 * d20 - d01 * d21) / denominator, w = (d00 * d21 - d01 * d20) / denominator;
        const double smallest = std::min({1.0 - v - w, v, w});
        if (smallest > best) {
            best = smallest;
            end.points = f;
            end.weights = {1.0 - v - w, v, w};
            end.count = 3;
        }
    }
    return end;
}

/// A point's name from the features it comes from (the faces clipped, its two carriers): a hash
/// combine (boost's), so that a point of another incident face, the bodies having turned within
/// the step, is another contact.
std::size_t point_name(std::initializer_list<std::size_t> features) {
    std::size_t name = 0;
    for (const std::size_t f : features) name ^= f + 0x9e3779b97f4a7c15ull + (name << 6) + (name >> 2);
    return name;
}

/// A vertex of the polygon being clipped, with the carriers (an incident edge k: k; a reference
/// side k: kSide + k) of its incoming and outgoing boundary segments.
struct ClipVertex {
    Vec3 x;
    std::size_t in, out;
};
constexpr std::size_t kSide = std::size_t{1} << 20;

}  // namespace

namespace {

struct EdgeAxis {
    std::size_t edge_a = 0, edge_b = 0;
    double separation = -std::numeric_limits<double>::infinity();
};

/// The supporting edge pair of \p a and \p b that separates them best (none: -infinity).
EdgeAxis best_edge_axis(const PolyhedronShape& a, const PolyhedronShape& b) {
    EdgeAxis best;
    const PolyhedronFeatures &fa = a.features, &fb = b.features;
    for (std::size_t i = 0; i < fa.edges.size(); ++i) {
        const PolyhedronEdge& ea = fa.edges[i];
        const Vec3& a0 = at(fa, ea.points[0]);
        const Vec3 da = at(fa, ea.points[1]) - a0;
        for (std::size_t j = 0; j < fb.edges.size(); ++j) {
            const PolyhedronEdge& eb = fb.edges[j];
            const Vec3& b0 = at(fb, eb.points[0]);
            Vec3 n;
            if (!supporting_edge_normal(da, fa.normals[ea.faces[0]], fa.normals[ea.faces[1]], fa.edge_axes[i],
                                        at(fb, eb.points[1]) - b0, fb.normals[eb.faces[0]], fb.normals[eb.faces[1]],
                                        fb.edge_axes[j], n))
                continue;
            // n is normal to both edges: a's line is n . (a0 - b0) from b's along it.
            if (const double separation = n.dot(a0 - b0); separation > best.separation) best = {i, j, separation};
        }
    }
    return best;
}

}  // namespace

double best_face_separation(const PolyhedronShape& a, const PolyhedronShape& b) {
    return std::max(best_face(a, b).second, best_face(b, a).second);
}

SeparatingAxis separating_axis(const PolyhedronShape& a, const PolyhedronShape& b, double edge_tolerance,
                               double facing_depth) {
    const auto [face_a, separation_a] = best_face(a, b);
    const auto [face_b, separation_b] = best_face(b, a);
    SeparatingAxis axis;
    // A's face unless B's separates better beyond round-off of the sizes compared (deterministic
    // for faces lying flat on each other).
    const double round_off = 1e-12 * (1.0 + std::abs(separation_a));
    if (separation_b > separation_a + round_off) {
        axis.kind = SeparatingAxis::Kind::face_of_b;
        axis.face = face_b;
        axis.separation = separation_b;
    } else {
        axis.face = face_a;
        axis.separation = separation_a;
    }
    const EdgeAxis edges = best_edge_axis(a, b);
    axis.edge_a = edges.edge_a;
    axis.edge_b = edges.edge_b;
    axis.best_edges = edges.separation;
    // The best face nearly facing the other's, not overlapping along its normal beyond the
    // allowance: the two meet flat, and the face is the axis. (Overlapping deeper, the face is
    // no contact axis: a leg's side facing a plate's edge, the pair 6 mm into each other along
    // an edge axis, is 7 cm deep along the leg's face.)
    const PolyhedronShape& reference = axis.kind == SeparatingAxis::Kind::face_of_a ? a : b;
    const PolyhedronShape& incident = axis.kind == SeparatingAxis::Kind::face_of_a ? b : a;
    const Vec3& n = normal_of(reference, axis.face);
    const bool facing = axis.separation >= -facing_depth &&
                        n.dot(normal_of(incident, incident_face(incident, n))) <= -std::cos(kOpposedFaceAngle);
    if (!facing && edges.separation > axis.separation + edge_tolerance) {
        axis.kind = SeparatingAxis::Kind::edges;
        axis.separation = edges.separation;
    }
    return axis;
}

namespace {

/// The gap between the projections of \p first's and \p second's vertices onto \p n (pointing
/// from first towards second): min over second of n . y minus max over first.
double projection_gap(const Vec3& n, const ContactSolid& first, const std::vector<Vec3>& first_positions,
                      const ContactSolid& second, const std::vector<Vec3>& second_positions) {
    double high = -std::numeric_limits<double>::infinity(), low = std::numeric_limits<double>::infinity();
    for (const Index v : first.vertices) high = std::max(high, n.dot(first_positions[static_cast<std::size_t>(v)]));
    for (const Index v : second.vertices) low = std::min(low, n.dot(second_positions[static_cast<std::size_t>(v)]));
    return low - high;
}

}  // namespace

SeparatingAxis closing_axis(const PolyhedronShape& a, const PolyhedronShape& b, const std::vector<Vec3>& ahead_a,
                            const std::vector<Vec3>& ahead_b, double edge_tolerance, double allowance) {
    const SeparatingAxis now = separating_axis(a, b, edge_tolerance, allowance);
    if (!(now.separation > 0.0)) return now;  // touching or overlapping: the theorem's own axis
    const ContactSolid &solid_a = a.features.solid, &solid_b = b.features.solid;
    SeparatingAxis latest = now;
    double latest_time = -1.0;
    bool apart_at_end = false;
    // Along a fixed axis the gap between the projections is concave in the motion (a minimum less
    // a maximum of linear functions); negative at the predicted end along every axis, the pair
    // ends overlapping, and an axis positive now closes at s0 / (s0 - s1) of the span at the
    // earliest: the pair touches when the last axis closes (Eberly 2002, "Dynamic collision
    // detection using oriented bounding boxes"). Apart at the end along some axis, the pair is
    // predicted to end apart (whatever it does on the way), and keeps the theorem's axis now.
    const auto consider = [&](const SeparatingAxis& candidate, double s0, double s1) {
        if (s1 >= 0.0) {
            apart_at_end = true;
            return;
        }
        const double time = s0 > 0.0 ? s0 / (s0 - s1) : 0.0;
        if (time > latest_time) {
            latest_time = time;
            latest = candidate;
            latest.separation = s0;
        }
    };
    SeparatingAxis candidate = now;
    for (const bool on_a : {true, false}) {
        const PolyhedronShape& owner = on_a ? a : b;
        candidate.kind = on_a ? SeparatingAxis::Kind::face_of_a : SeparatingAxis::Kind::face_of_b;
        for (std::size_t f = 0; f < owner.faces.size(); ++f) {
            const Vec3& n = normal_of(owner, f);
            candidate.face = f;
            consider(candidate,
                     on_a ? projection_gap(n, solid_a, a.features.positions, solid_b, b.features.positions)
                          : projection_gap(n, solid_b, b.features.positions, solid_a, a.features.positions),
                     on_a ? projection_gap(n, solid_a, ahead_a, solid_b, ahead_b) : projection_gap(n, solid_b, ahead_b, solid_a, ahead_a));
            if (apart_at_end) return now;
        }
    }
    const PolyhedronFeatures &fa = a.features, &fb = b.features;
    candidate.kind = SeparatingAxis::Kind::edges;
    for (std::size_t i = 0; i < fa.edges.size(); ++i) {
        const PolyhedronEdge& ea = fa.edges[i];
        const Vec3& a0 = at(fa, ea.points[0]);
        for (std::size_t j = 0; j < fb.edges.size(); ++j) {
            const PolyhedronEdge& eb = fb.edges[j];
            const Vec3& b0 = at(fb, eb.points[0]);
            Vec3 n;  // out of B
            if (!supporting_edge_normal(at(fa, ea.points[1]) - a0, fa.normals[ea.faces[0]], fa.normals[ea.faces[1]],
                                        fa.edge_axes[i], at(fb, eb.points[1]) - b0, fb.normals[eb.faces[0]],
                                        fb.normals[eb.faces[1]], fb.edge_axes[j], n))
                continue;
            candidate.edge_a = i;
            candidate.edge_b = j;
            candidate.best_edges = n.dot(a0 - b0);
            consider(candidate, projection_gap(n, solid_b, b.features.positions, solid_a, a.features.positions),
                     projection_gap(n, solid_b, ahead_b, solid_a, ahead_a));
            if (apart_at_end) return now;
        }
    }
    return latest;
}

double separation(const PolyhedronShape& a, const PolyhedronShape& b) {
    return std::max(best_face_separation(a, b), best_edge_axis(a, b).separation);
}

double PairSeparation::operator()() {
    if (!known_) {
        value_ = separation(a_, b_);
        known_ = true;
    }
    return value_;
}

std::size_t axis_name(const SeparatingAxis& axis) {
    switch (axis.kind) {
        case SeparatingAxis::Kind::face_of_a: return axis.face;
        case SeparatingAxis::Kind::face_of_b: return kSide + axis.face;
        case SeparatingAxis::Kind::edges: return (std::size_t{2} << 40) + (axis.edge_a << 20) + axis.edge_b;
    }
    return 0;
}

namespace {

/// The points of \p incident's face \p facing over \p reference's face \p face (clipped by the
/// planes through its sides, normal to it: Sutherland and Hodgman 1974), appended to \p points
/// with the normal out of B (\p on_a: the reference face is A's); those deeper than the pair's
/// separation by more than \p depth_allowance are dropped, those with a gap beyond \p reach left
/// out. Each point carries \p axis (axis_name) and \p name_base plus its features' name. Returns
/// whether any point was not too deep.
bool clip_faces(const PolyhedronShape& a, const PolyhedronShape& b, bool on_a, std::size_t face, std::size_t facing,
                double reach, double depth_allowance, double slack, PairSeparation& separation_now, std::size_t axis,
                std::size_t name_base, std::vector<ManifoldPoint>& points) {
    const PolyhedronShape& reference = on_a ? a : b;
    const PolyhedronShape& incident = on_a ? b : a;
    const Vec3& n = normal_of(reference, face);
    thread_local std::vector<ClipVertex> polygon, clipped;  // reused: no allocation once grown
    polygon.clear();
    const std::vector<Index>& loop = incident.faces[facing].loop;
    for (std::size_t k = 0; k < loop.size(); ++k)
        polygon.push_back({at(incident.features, loop[k]), (k + loop.size() - 1) % loop.size(), k});
    // Clipped by each side of the reference face: the plane through the side, normal to the face,
    // keeping what lies over the face (within the round-off slack).
    const std::vector<Index>& sides = reference.faces[face].loop;
    for (std::size_t k = 0; k < sides.size() && !polygon.empty(); ++k) {
        const Vec3& r0 = at(reference.features, sides[k]);
        const Vec3 inward = n.cross(at(reference.features, sides[(k + 1) % sides.size()]) - r0).normalized();
        clipped.clear();
        for (std::size_t i = 0; i < polygon.size(); ++i) {
            const ClipVertex& p = polygon[i];
            const ClipVertex& q = polygon[(i + 1) % polygon.size()];
            const double dp = inward.dot(p.x - r0), dq = inward.dot(q.x - r0);
            const bool p_in = dp >= -slack, q_in = dq >= -slack;
            if (p_in) clipped.push_back(p);
            if (p_in != q_in) {
                // The crossing of the plane, unless the kept end lies on it within the slack: that
                // end is the crossing then, and a second point there would only be redundant.
                const double s = dp / (dp - dq);
                if (s > 0.0 && s < 1.0) {
                    const Vec3 x = p.x + s * (q.x - p.x);
                    // Leaving: along the segment's carrier, then along this side; entering: the reverse.
                    clipped.push_back(p_in ? ClipVertex{x, p.out, kSide + k} : ClipVertex{x, kSide + k, p.out});
                }
            }
        }
        std::swap(polygon, clipped);
    }
    if (polygon.empty()) return false;
    const double plane = n.dot(at(reference.features, sides[0]));
    // The separating-axis theorem: no contact is deeper than the pair's overlap, the largest
    // value over all axes. A clipped point deeper than that by more than the allowance is not in
    // contact along n (behind the reference face and beyond the other side of its solid: a
    // plate's point under the other plate, where the axis is its top); its row would pull it
    // through. Only a point deeper than the allowance can be (when the pair is apart, every point
    // over the reference face is at least their distance from its foot, and the separation is
    // at most that).
    double deepest = std::numeric_limits<double>::infinity();
    for (const ClipVertex& v : polygon) deepest = std::min(deepest, n.dot(v.x) - plane);
    const double shallowest_allowed =
        deepest >= -depth_allowance ? -std::numeric_limits<double>::infinity() : separation_now() - depth_allowance;
    bool described = false;
    for (const ClipVertex& v : polygon) {
        const double depth = n.dot(v.x) - plane;
        if (depth < shallowest_allowed) continue;
        described = true;
        if (depth > reach) continue;
        ManifoldPoint p;
        const ContactEnd on_incident = face_point(incident, facing, v.x);
        const ContactEnd on_reference = face_point(reference, face, v.x - depth * n);
        // The normal out of B: the reference face's own where B owns it, else against it.
        p.a = on_a ? on_reference : on_incident;
        p.b = on_a ? on_incident : on_reference;
        p.normal = on_a ? Vec3(-n) : n;
        p.gap = depth;
        p.axis = axis;
        p.name = point_name({name_base, face, facing, std::min(v.in, v.out), std::max(v.in, v.out)});
        points.push_back(p);
    }
    return described;
}

/// The face of \p s whose normal is nearest \p n, and the cosine between them.
std::pair<std::size_t, double> face_along(const PolyhedronShape& s, const Vec3& n) {
    std::pair<std::size_t, double> best{0, -std::numeric_limits<double>::infinity()};
    for (std::size_t f = 0; f < s.faces.size(); ++f)
        if (const double c = normal_of(s, f).dot(n); c > best.second) best = {f, c};
    return best;
}

}  // namespace

bool contact_manifold(const PolyhedronShape& a, const PolyhedronShape& b, const SeparatingAxis& axis, double reach,
                      double depth_allowance, double slack, PairSeparation& separation_now,
                      std::vector<ManifoldPoint>& points) {
    if (axis.kind == SeparatingAxis::Kind::edges) {
        if (!(axis.best_edges > -std::numeric_limits<double>::infinity())) return false;  // no supporting pair
        const PolyhedronFeatures &fa = a.features, &fb = b.features;
        const PolyhedronEdge &ea = fa.edges[axis.edge_a], &eb = fb.edges[axis.edge_b];
        const Vec3 &a0 = at(fa, ea.points[0]), &a1 = at(fa, ea.points[1]), &b0 = at(fb, eb.points[0]), &b1 = at(fb, eb.points[1]);
        // The axis at this look: the edges' cross product, out of B.
        Vec3 n;
        if (!supporting_edge_normal(a1 - a0, fa.normals[ea.faces[0]], fa.normals[ea.faces[1]], fa.edge_axes[axis.edge_a],
                                    b1 - b0, fb.normals[eb.faces[0]], fb.normals[eb.faces[1]], fb.edge_axes[axis.edge_b], n))
            return false;  // no longer a supporting pair at this look (the bodies turned within the step)
        double s = 0.0, t = 0.0;
        segment_closest_points(a0, a1, b0, b1, s, t);
        const Vec3 pa = a0 + s * (a1 - a0), pb = b0 + t * (b1 - b0);
        const double gap = n.dot(pa - pb);
        if (gap <= reach && gap >= separation_now() - depth_allowance) {
            ManifoldPoint p;
            p.a.points = {ea.points[0], ea.points[1], 0};
            p.a.weights = {1.0 - s, s, 0.0};
            p.a.count = 2;
            p.b.points = {eb.points[0], eb.points[1], 0};
            p.b.weights = {1.0 - t, t, 0.0};
            p.b.count = 2;
            p.normal = n;
            p.gap = gap;
            p.axis = axis_name(axis);
            points.push_back(p);
        }
        // Two faces, one of each, within kOpposedFaceAngle of the axis (plates tilted a few
        // degrees against each other, touching where their edges cross): they meet flat within
        // the step, over the polygon of their overlap, whose points the prediction catches.
        const double aligned = std::cos(kOpposedFaceAngle);
        const auto [face_b, along_b] = face_along(b, n);
        const auto [face_a, along_a] = face_along(a, -n);
        if (along_b >= aligned && along_a >= aligned)
            clip_faces(a, b, /*on_a=*/false, face_b, face_a, reach, depth_allowance, slack, separation_now, axis_name(axis), 1,
                       points);
        return true;
    }
    // A face axis: the reference face on its owner, the incident face on the other.
    const bool on_a = axis.kind == SeparatingAxis::Kind::face_of_a;
    const std::size_t facing = incident_face(on_a ? b : a, normal_of(on_a ? a : b, axis.face));
    return clip_faces(a, b, on_a, axis.face, facing, reach, depth_allowance, slack, separation_now, axis_name(axis), 0,
                      points);
}

}  // namespace soma::ncp
