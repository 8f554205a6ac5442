// Edge-edge contacts between convex polyhedra (edge_contacts.hpp).
#include "edge_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace soma::ncp {

std::vector<PolyhedronEdge> polyhedron_edges(const std::vector<std::array<Index, 3>>& faces,
                                             const std::vector<Vec3>& positions, double flat_angle) {
    // Each undirected edge with the triangles on either side (bind-time only).
    std::map<std::pair<Index, Index>, std::vector<std::size_t>> sides;
    for (std::size_t f = 0; f < faces.size(); ++f)
        for (std::size_t k = 0; k < 3; ++k) {
            const Index i = faces[f][k], j = faces[f][(k + 1) % 3];
            sides[std::minmax(i, j)].push_back(f);
        }
    std::vector<PolyhedronEdge> edges;
    for (const auto& [ends, triangles] : sides) {
        if (triangles.size() != 2) continue;  // not a closed mesh's edge (element_solids refuses those)
        const Vec3 n0 = triangle_normal(positions, faces[triangles[0]]);
        const Vec3 n1 = triangle_normal(positions, faces[triangles[1]]);
        // One face split in two (a box face's diagonal): the same normal, to round-off.
        if (n0.cross(n1).norm() <= flat_angle && n0.dot(n1) > 0.0) continue;
        edges.push_back({{ends.first, ends.second}, {triangles[0], triangles[1]}});
    }
    return edges;
}

void face_normals(const std::vector<std::array<Index, 3>>& faces, const std::vector<Vec3>& positions,
                  std::vector<Vec3>& normals) {
    normals.resize(faces.size());
    for (std::size_t f = 0; f < faces.size(); ++f) normals[f] = triangle_normal(positions, faces[f]);
}

Vec3 edge_cone_axis(const Vec3& n0, const Vec3& n1) {
    const Vec3 along = n0.cross(n1);
    const double length = along.norm();
    return length > 0.0 ? Vec3(along / length) : Vec3::Zero();  // a flat edge has no cone (polyhedron_edges skips those)
}

void edge_cone_axes(const std::vector<PolyhedronEdge>& edges, const std::vector<Vec3>& normals, std::vector<Vec3>& axes) {
    axes.resize(edges.size());
    for (std::size_t k = 0; k < edges.size(); ++k) axes[k] = edge_cone_axis(normals[edges[k].faces[0]], normals[edges[k].faces[1]]);
}

bool in_edge_cone(const Vec3& n, const Vec3& n0, const Vec3& n1, const Vec3& axis, double tolerance) {
    if (axis.isZero(0.0)) return false;
    // The hemisphere test keeps the tolerance from admitting the antipodal direction at a nearly
    // flat edge (both sine tests pass near -n0 when the dihedral angle is below twice it).
    return n.dot(n0 + n1) > 0.0 && n0.cross(n).dot(axis) >= -tolerance && n.cross(n1).dot(axis) >= -tolerance;
}

bool supporting_edge_normal(const Vec3& da, const Vec3& na0, const Vec3& na1, const Vec3& axis_a, const Vec3& db,
                            const Vec3& nb0, const Vec3& nb1, const Vec3& axis_b, Vec3& normal) {
    const Vec3 c = da.cross(db);
    const double length = c.norm();
    if (!(length > kParallelTolerance * da.norm() * db.norm())) return false;
    normal = c / length;
    // Out of B: the sign whose direction lies in b's cone (at most one of them can: the cone is
    // narrower than 180 degrees). Then -n must lie in a's cone (Gregorius 2013: the arc of a and
    // the negated arc of b intersect).
    if (!in_edge_cone(normal, nb0, nb1, axis_b)) {
        normal = -normal;
        if (!in_edge_cone(normal, nb0, nb1, axis_b)) return false;
    }
    return in_edge_cone(-normal, na0, na1, axis_a);
}

void segment_closest_points(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, double& s, double& t) {
    // Ericson 2005, section 5.1.9: minimise |a0 + s da - b0 - t db|^2 over the square [0, 1]^2.
    const Vec3 da = a1 - a0, db = b1 - b0, r = a0 - b0;
    const double aa = da.dot(da), bb = db.dot(db), ab = da.dot(db), ar = da.dot(r), br = db.dot(r);
    const double denominator = aa * bb - ab * ab;  // |da x db|^2 >= 0
    // The lines' closest point on a, clamped (any point of a for parallel segments: s = 0).
    s = denominator > 0.0 ? std::clamp((ab * br - ar * bb) / denominator, 0.0, 1.0) : 0.0;
    // b's point nearest to a(s); if it leaves b, clamp it and recompute a's nearest to b's end.
    t = (ab * s + br) / bb;
    if (t < 0.0) {
        t = 0.0;
        s = std::clamp(-ar / aa, 0.0, 1.0);
    } else if (t > 1.0) {
        t = 1.0;
        s = std::clamp((ab - ar) / aa, 0.0, 1.0);
    }
}

double deepest_beyond_plane(const Vec3& n, const Vec3& on_plane, const std::vector<Index>& vertices,
                            const std::vector<Vec3>& positions) {
    const double plane = n.dot(on_plane);
    double deepest = std::numeric_limits<double>::infinity();
    for (const Index v : vertices) deepest = std::min(deepest, n.dot(positions[static_cast<std::size_t>(v)]) - plane);
    return deepest;
}

double face_separation(const std::vector<std::array<Index, 3>>& faces_a, const std::vector<Vec3>& normals_a,
                       const std::vector<Vec3>& positions_a, const std::vector<Index>& vertices_b,
                       const std::vector<Vec3>& positions_b) {
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t f = 0; f < faces_a.size(); ++f)
        best = std::max(best, deepest_beyond_plane(normals_a[f], positions_a[static_cast<std::size_t>(faces_a[f][0])],
                                                   vertices_b, positions_b));
    return best;
}

bool near_an_end(double s, double length_a, double t, double length_b, double margin) {
    return s * length_a <= margin || (1.0 - s) * length_a <= margin || t * length_b <= margin || (1.0 - t) * length_b <= margin;
}

void face_crossing_pairs(const PolyhedronFeatures& a, const PolyhedronFeatures& b, double margin, double reach,
                         std::vector<EdgePair>& pairs) {
    const auto at = [](const PolyhedronFeatures& p, Index i) -> const Vec3& { return p.positions[static_cast<std::size_t>(i)]; };
    const double opposed = -std::cos(kOpposedFaceAngle);
    for (std::size_t i = 0; i < a.edges.size(); ++i) {
        const PolyhedronEdge& ea = a.edges[i];
        const Vec3 &a0 = at(a, ea.points[0]), &a1 = at(a, ea.points[1]);
        const Vec3 da = a1 - a0;
        const double length_a = da.norm();
        for (std::size_t j = 0; j < b.edges.size(); ++j) {
            const PolyhedronEdge& eb = b.edges[j];
            // The cheap test first: most edge pairs have no nearly opposed faces.
            const auto opposed_to_b = [&](std::size_t fa) {
                return std::any_of(eb.faces.begin(), eb.faces.end(),
                                   [&](std::size_t fb) { return a.normals[fa].dot(b.normals[fb]) <= opposed; });
            };
            if (!opposed_to_b(ea.faces[0]) && !opposed_to_b(ea.faces[1])) continue;
            // Once per edge pair: a supporting pair (found before) or an earlier face of a.
            const auto same = [&](const EdgePair& p) { return p.edge_a == i && p.edge_b == j; };
            if (std::any_of(pairs.begin(), pairs.end(), same)) continue;
            const Vec3 &b0 = at(b, eb.points[0]), &b1 = at(b, eb.points[1]);
            const Vec3 db = b1 - b0;
            const double length_b = db.norm();
            for (const std::size_t fa : ea.faces) {
                const Vec3& na = a.normals[fa];
                if (!opposed_to_b(fa)) continue;
                // b's edge projected onto a's face plane, crossed with a's edge there (both lines lie
                // in the plane; s along a, t along b): a0 + s da = b0' + t db', db' = db - (na . db) na.
                const Vec3 db_in = db - na.dot(db) * na;
                const Vec3 r = (b0 - na.dot(b0 - a0) * na) - a0;
                const double denominator = da.cross(db_in).dot(na);
                if (!(std::abs(denominator) > kParallelTolerance * length_a * length_b)) continue;
                const double s = r.cross(db_in).dot(na) / denominator, t = r.cross(da).dot(na) / denominator;
                if (s <= 0.0 || s >= 1.0 || t <= 0.0 || t >= 1.0) continue;
                // b's point against a's face: out of B is -na.
                const double gap = na.dot((b0 + t * db) - (a0 + s * da));
                if (gap > reach || near_an_end(s, length_a, t, length_b, margin)) continue;
                pairs.push_back({i, j, s, t, Vec3(-na), gap});
                break;
            }
        }
    }
}

void supporting_edge_pairs(const PolyhedronFeatures& a, const PolyhedronFeatures& b, double margin, double reach,
                           std::vector<EdgePair>& pairs, bool face_crossings, double slack) {
    const auto at = [](const PolyhedronFeatures& p, Index i) -> const Vec3& { return p.positions[static_cast<std::size_t>(i)]; };
    // The pair's best face axis, and its best edge axis: the largest n . (a0 - b0) over every
    // supporting pair (their separating-axis values). A pair is kept only when it is no deeper
    // than the best axis less the margin (below) and its gap is at most the reach: when the face
    // axis alone is past the reach by the margin (and the round-off slack), nothing can be, and
    // the 144 edge pairs of two boxes whose grown boxes overlap but whose faces separate them
    // (most pairs of a pile's tilted plates) are not visited.
    const double face_axis = std::max(face_separation(a.solid.faces, a.normals, a.positions, b.solid.vertices, b.positions),
                                      face_separation(b.solid.faces, b.normals, b.positions, a.solid.vertices, a.positions));
    if (face_axis - margin > reach + slack) return;
    double edge_axis = -std::numeric_limits<double>::infinity();
    const std::size_t first = pairs.size();
    for (std::size_t i = 0; i < a.edges.size(); ++i) {
        const PolyhedronEdge& ea = a.edges[i];
        const Vec3 &a0 = at(a, ea.points[0]), &a1 = at(a, ea.points[1]);
        const Vec3 da = a1 - a0;
        const double length_a = da.norm();
        const Vec3 &na0 = a.normals[ea.faces[0]], &na1 = a.normals[ea.faces[1]];
        for (std::size_t j = 0; j < b.edges.size(); ++j) {
            const PolyhedronEdge& eb = b.edges[j];
            const Vec3 &b0 = at(b, eb.points[0]), &b1 = at(b, eb.points[1]);
            const Vec3 db = b1 - b0;
            Vec3 n;
            if (!supporting_edge_normal(da, na0, na1, a.edge_axes[i], db, b.normals[eb.faces[0]], b.normals[eb.faces[1]],
                                        b.edge_axes[j], n))
                continue;
            // n is normal to both edges: every point of a is n . (a0 - b0) from b's line along n.
            const double separation = n.dot(a0 - b0);
            edge_axis = std::max(edge_axis, separation);
            if (separation > reach) continue;
            double s = 0.0, t = 0.0;
            segment_closest_points(a0, a1, b0, b1, s, t);
            const double length_b = db.norm();
            // Inside both edges: near an end, that corner is the vertex-face search's (within the margin).
            if (near_an_end(s, length_a, t, length_b, margin)) continue;
            const double gap = n.dot((a0 + s * da) - (b0 + t * db));
            pairs.push_back({i, j, s, t, n, gap});
        }
    }
    if (face_crossings) face_crossing_pairs(a, b, margin, reach, pairs);
    // The separating-axis theorem: the contact axis is the shallowest of all, faces' and edges';
    // a pair deeper than it by more than the margin is spurious.
    if (pairs.size() == first) return;
    const double axis = std::max(face_axis, edge_axis) - margin;
    pairs.erase(std::remove_if(pairs.begin() + static_cast<std::ptrdiff_t>(first), pairs.end(),
                               [&](const EdgePair& p) { return p.gap < axis; }),
                pairs.end());
}

}  // namespace soma::ncp
