#pragma once
/// \file point_primitive_distance.hpp
/// \brief A node against a triangle, an edge or another node: the closest feature (the contact
/// class) and its class map for pair_distance.hpp. Node-triangle contact goes beyond the paper
/// (MAT-DiSMech §4 has edge-edge pairs only): with it, shells touch shells and rods touch the
/// inside of a shell's triangles, and the distance between two triangle meshes is the smallest
/// over node-triangle and edge-edge pairs.
///
/// **Node-triangle.** For node p and triangle (a, b, c), a point of the triangle is
/// a + s (b - a) + t (c - a), so with the nodes ordered (p, a, b, c)
///
///     r = p - q,   α = (1, -1, 0, 0) + s (0, 1, -1, 0) + t (0, 1, 0, -1)          (face: s, t free)
///
/// The closest point lies inside the face, on one of its edges (one free parameter along that
/// edge) or at a vertex (none); the region test is Ericson's (Real-Time Collision Detection,
/// §5.1.5), which compares the node's projections on the edges. The face's distance is the
/// distance to the triangle's plane, an edge's the distance to its line, a vertex's the distance
/// to it: they agree in value and gradient where the region changes, as for edge pairs.
///
/// **Node-edge** (nodes p, a, b; α = (1, -1, 0) + s (0, 1, -1)) and **node-node** (α = (1, -1))
/// serve primitives that are points only: a rigid sphere is its centre with the sphere's radius.

#include "edge_pair_distance.hpp"
#include "pair_distance.hpp"

namespace soma::imc_contact {

/// Where a node's closest point on a triangle (a, b, c) lies.
enum class TriangleFeature : signed char { face, edge_ab, edge_bc, edge_ca, vertex_a, vertex_b, vertex_c };

/// The closest point of a triangle to a node.
struct TriangleClosest {
    double distance = 0.0;
    TriangleFeature feature = TriangleFeature::face;
};

/// \brief The distance from \p p to triangle (\p a, \p b, \p c) and the feature that holds the
/// closest point (Ericson §5.1.5). A degenerate triangle (sin² of its angle at a below 1e-12) has no
/// face region: its closest edge is taken.
TriangleClosest closest_triangle_feature(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// The class map of \p feature for the nodes (p, a, b, c) (file comment).
PairClassMap<4> node_triangle_class_map(TriangleFeature feature);

/// The closest point of an edge to a node.
struct EdgeClosest {
    double distance = 0.0;
    EdgeEnd end = EdgeEnd::free;
};

/// \brief The distance from \p p to segment [\p a, \p b] and where its closest point lies.
EdgeClosest closest_edge_point(const Vec3& p, const Vec3& a, const Vec3& b);

/// The class map of \p end for the nodes (p, a, b) (file comment).
PairClassMap<3> node_edge_class_map(EdgeEnd end);

/// The class map of two nodes (p, q): α = (1, -1).
PairClassMap<2> node_node_class_map();

}  // namespace soma::imc_contact
