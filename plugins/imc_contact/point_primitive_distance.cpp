#include "point_primitive_distance.hpp"

#include <Eigen/Geometry>

#include <algorithm>

namespace soma::imc_contact {

namespace {

/// Triangles whose squared sine of the angle at a is at most this have no face region.
constexpr double kDegenerateSine2 = 1e-12;

}  // namespace

EdgeClosest closest_edge_point(const Vec3& p, const Vec3& a, const Vec3& b) {
    const Vec3 e = b - a;
    const double length2 = e.squaredNorm();
    const double s = length2 > 0.0 ? (p - a).dot(e) / length2 : 0.0;
    if (s <= 0.0) return {(p - a).norm(), EdgeEnd::first};
    if (s >= 1.0) return {(p - b).norm(), EdgeEnd::second};
    return {(p - a - s * e).norm(), EdgeEnd::free};
}

TriangleClosest closest_triangle_feature(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 ab = b - a, ac = c - a;
    if (ab.cross(ac).squaredNorm() <= kDegenerateSine2 * ab.squaredNorm() * ac.squaredNorm()) {
        // No face: the closest of the three edges (each end a vertex of the triangle).
        const EdgeClosest on_ab = closest_edge_point(p, a, b), on_bc = closest_edge_point(p, b, c),
                          on_ca = closest_edge_point(p, c, a);
        const auto feature = [](EdgeEnd end, TriangleFeature first, TriangleFeature second, TriangleFeature edge) {
            return end == EdgeEnd::first ? first : end == EdgeEnd::second ? second : edge;
        };
        if (on_ab.distance <= on_bc.distance && on_ab.distance <= on_ca.distance)
            return {on_ab.distance, feature(on_ab.end, TriangleFeature::vertex_a, TriangleFeature::vertex_b, TriangleFeature::edge_ab)};
        if (on_bc.distance <= on_ca.distance)
            return {on_bc.distance, feature(on_bc.end, TriangleFeature::vertex_b, TriangleFeature::vertex_c, TriangleFeature::edge_bc)};
        return {on_ca.distance, feature(on_ca.end, TriangleFeature::vertex_c, TriangleFeature::vertex_a, TriangleFeature::edge_ca)};
    }
    // Ericson §5.1.5: the Voronoi regions of the vertices, then of the edges, else the face.
    const Vec3 ap = p - a;
    const double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0.0 && d2 <= 0.0) return {ap.norm(), TriangleFeature::vertex_a};
    const Vec3 bp = p - b;
    const double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0.0 && d4 <= d3) return {bp.norm(), TriangleFeature::vertex_b};
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        const double s = d1 / (d1 - d3);
        return {(ap - s * ab).norm(), TriangleFeature::edge_ab};
    }
    const Vec3 cp = p - c;
    const double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0.0 && d5 <= d6) return {cp.norm(), TriangleFeature::vertex_c};
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        const double t = d2 / (d2 - d6);
        return {(ap - t * ac).norm(), TriangleFeature::edge_ca};
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return {(bp - t * (c - b)).norm(), TriangleFeature::edge_bc};
    }
    const double denominator = 1.0 / (va + vb + vc);
    const double s = vb * denominator, t = vc * denominator;
    return {(ap - s * ab - t * ac).norm(), TriangleFeature::face};
}

PairClassMap<4> node_triangle_class_map(TriangleFeature feature) {
    // Nodes (p, a, b, c); r = p - q with q on the triangle (header).
    PairClassMap<4> map;
    switch (feature) {
        case TriangleFeature::face:
            map.base << 1.0, -1.0, 0.0, 0.0;
            map.directions.col(0) << 0.0, 1.0, -1.0, 0.0;
            map.directions.col(1) << 0.0, 1.0, 0.0, -1.0;
            map.free_count = 2;
            break;
        case TriangleFeature::edge_ab:  // q = a + s (b - a)
            map.base << 1.0, -1.0, 0.0, 0.0;
            map.directions.col(0) << 0.0, 1.0, -1.0, 0.0;
            map.free_count = 1;
            break;
        case TriangleFeature::edge_bc:  // q = b + s (c - b)
            map.base << 1.0, 0.0, -1.0, 0.0;
            map.directions.col(0) << 0.0, 0.0, 1.0, -1.0;
            map.free_count = 1;
            break;
        case TriangleFeature::edge_ca:  // q = c + s (a - c)
            map.base << 1.0, 0.0, 0.0, -1.0;
            map.directions.col(0) << 0.0, -1.0, 0.0, 1.0;
            map.free_count = 1;
            break;
        case TriangleFeature::vertex_a: map.base << 1.0, -1.0, 0.0, 0.0; break;
        case TriangleFeature::vertex_b: map.base << 1.0, 0.0, -1.0, 0.0; break;
        case TriangleFeature::vertex_c: map.base << 1.0, 0.0, 0.0, -1.0; break;
    }
    return map;
}

PairClassMap<3> node_edge_class_map(EdgeEnd end) {
    // Nodes (p, a, b): r = p - (a + s (b - a)).
    PairClassMap<3> map;
    switch (end) {
        case EdgeEnd::first: map.base << 1.0, -1.0, 0.0; break;
        case EdgeEnd::second: map.base << 1.0, 0.0, -1.0; break;
        case EdgeEnd::free:
            map.base << 1.0, -1.0, 0.0;
            map.directions.col(0) << 0.0, 1.0, -1.0;
            map.free_count = 1;
            break;
    }
    return map;
}

PairClassMap<2> node_node_class_map() {
    PairClassMap<2> map;
    map.base << 1.0, -1.0;
    return map;
}

}  // namespace soma::imc_contact
