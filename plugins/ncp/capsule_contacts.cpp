// A capsule's side against capsules and polyhedron edges (capsule_contacts.hpp).
#include "capsule_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace soma::ncp {

bool capsule_side_pair(const CapsuleAxis& a, const CapsuleAxis& b, double margin, double reach, const Vec3& apart,
                       EdgePair& pair) {
    const Vec3 da = a.end1 - a.end0, db = b.end1 - b.end0;
    const Vec3 c = da.cross(db);
    const double length = c.norm(), length_a = da.norm(), length_b = db.norm();
    if (!(length > kParallelTolerance * length_a * length_b)) return false;
    double s = 0.0, t = 0.0;
    segment_closest_points(a.end0, a.end1, b.end0, b.end1, s, t);
    if (near_an_end(s, length_a, t, length_b, margin)) return false;
    // Inside both, p_a - p_b is along the common perpendicular c: its sign is the normal's.
    const Vec3 d = (a.end0 + s * da) - (b.end0 + t * db);
    Vec3 n = c / length;
    const double along = n.dot(d);
    if (along < 0.0 || (along == 0.0 && n.dot(apart) < 0.0)) n = -n;
    const double gap = n.dot(d) - a.radius - b.radius;
    if (gap > reach) return false;
    pair = {0, 0, s, t, n, gap};
    return true;
}

void capsule_edge_pairs(const CapsuleAxis& a, const PolyhedronFeatures& b, double margin, double reach,
                        std::vector<EdgePair>& pairs) {
    const auto at = [&](Index i) -> const Vec3& { return b.positions[static_cast<std::size_t>(i)]; };
    const Vec3 da = a.end1 - a.end0;
    const double length_a = da.norm();
    const std::size_t first = pairs.size();
    double edge_axis = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < b.edges.size(); ++j) {
        const PolyhedronEdge& eb = b.edges[j];
        const Vec3 &b0 = at(eb.points[0]), &b1 = at(eb.points[1]);
        const Vec3 db = b1 - b0;
        const Vec3 c = da.cross(db);
        const double length = c.norm(), length_b = db.norm();
        if (!(length > kParallelTolerance * length_a * length_b)) continue;
        // The side faces every direction normal to the axis: a supporting pair when n (or -n)
        // lies in the edge's cone.
        Vec3 n = c / length;
        const Vec3 &nb0 = b.normals[eb.faces[0]], &nb1 = b.normals[eb.faces[1]];
        if (!in_edge_cone(n, nb0, nb1, b.edge_axes[j])) {
            n = -n;
            if (!in_edge_cone(n, nb0, nb1, b.edge_axes[j])) continue;
        }
        // Every point of the axis is n . (a0 - b0) from the edge's line along n.
        const double separation = n.dot(a.end0 - b0) - a.radius;
        edge_axis = std::max(edge_axis, separation);
        if (separation > reach) continue;
        double s = 0.0, t = 0.0;
        segment_closest_points(a.end0, a.end1, b0, b1, s, t);
        if (near_an_end(s, length_a, t, length_b, margin)) continue;
        pairs.push_back({0, j, s, t, n, separation});
    }
    if (pairs.size() == first) return;
    // B's face planes against the capsule: its deepest point below a plane is an end, r below it.
    double face_axis = -std::numeric_limits<double>::infinity();
    for (std::size_t f = 0; f < b.solid.faces.size(); ++f) {
        const Vec3& n = b.normals[f];
        const double plane = n.dot(at(b.solid.faces[f][0]));
        face_axis = std::max(face_axis, std::min(n.dot(a.end0), n.dot(a.end1)) - plane - a.radius);
    }
    const double axis = std::max(face_axis, edge_axis) - margin;
    pairs.erase(std::remove_if(pairs.begin() + static_cast<std::ptrdiff_t>(first), pairs.end(),
                               [&](const EdgePair& p) { return p.gap < axis; }),
                pairs.end());
}

}  // namespace soma::ncp
