#pragma once
/// \file proximity_check.hpp
/// \brief Exact distances between segments, points, triangles and spheres, and the closest
/// non-adjacent pairs of a rod or shell mesh: an independent check of contact scenes.
///
/// The contact plugin (plugins/imc_contact/edge_pair_distance.*) finds the closest points of two
/// segments with Lumelsky's algorithm (clamp t, project for u, clamp u, re-project for t). The
/// validation tests must not trust that code to check the plugin's results, so the segment
/// distance here is computed another way: as the exact minimum over t of the convex function
///
///     g(t) = dist(a0 + t e1, segment b) = min_u |a0 + t e1 - b0 - u e2|,    u in [0, 1],
///
/// whose inner minimum is the clamped projection u(t) = clamp(u*(t), 0, 1), u*(t) affine in t.
/// u(t) is 0, u* or 1 on at most three intervals of t, split where u* crosses 0 and 1, and on
/// each g(t)^2 is a quadratic in t: the global minimum is at an interval's end or at a
/// quadratic's vertex clamped into its interval. Every candidate t is then evaluated with the
/// exact clamped projection, so a candidate misplaced by round-off costs only its effect on the
/// value (second order at a vertex). The point-triangle distance is the exact one (the plane
/// when the projection falls inside, else the nearest of the three edges).
///
/// **Pairs.** As in the plugin (and MAT-DiSMech §4.4), edges that share a node, or whose nodes
/// are joined by an edge, are never in contact; a node is never in contact with a triangle that
/// contains it or a neighbour of it. These pairs are excluded; every other pair is checked, by
/// brute force (O(n^2) pairs: meant for test meshes of a few hundred edges). A pair is evaluated
/// exactly unless the distance between the axis-aligned boxes of its primitives, a lower bound of
/// its distance, already shows that it can lower neither the closest distance nor the tightest
/// gap found so far; the result is the exhaustive search's (to the round-off of the box bound).

#include "soma/types.hpp"

#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace soma {
class Simulation;
}

namespace soma::validation {

/// Closest points of two segments: a0 + t e1 and b0 + u e2 with t, u in [0, 1].
struct SegmentDistance {
    double distance = 0.0;
    double t = 0.0;
    double u = 0.0;
};

/// \brief Distance from \p p to the segment [\p a, \p b] (exact clamped projection).
/// \param[out] t when not null, the parameter of the closest point a + t (b - a)
double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b, double* t = nullptr);

/// \brief Distance between segments [\p a0, \p a1] and [\p b0, \p b1]: the exact minimum over t
/// of the distance from a0 + t (a1 - a0) to the other segment (file comment). Degenerate
/// (zero-length) segments are points.
SegmentDistance segment_segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1);

/// \brief Distance from \p p to the triangle (\p a, \p b, \p c): to its plane when p's
/// projection falls inside it, else to the nearest edge. A degenerate triangle is its edges.
double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// \brief Signed distance from \p p to the surface of the sphere (\p centre, \p radius):
/// negative inside.
double point_sphere_gap(const Vec3& p, const Vec3& centre, double radius);

/// The contact geometry of rods and shells: nodes, edges (rod edges and each triangle edge once)
/// and triangles, with a contact thickness h per node and per edge (a rod's radius, half a
/// shell's thickness) and the element each belongs to.
struct ContactMesh {
    std::vector<Vec3> nodes;
    std::vector<double> node_thickness;            ///< h of each node (m)
    std::vector<Index> node_element;               ///< owning element of each node (the first, for shared nodes)
    std::vector<std::array<Index, 2>> edges;
    std::vector<double> edge_thickness;            ///< h of each edge (m): the mean of its nodes', as the plugin
    std::vector<Index> edge_element;
    std::vector<std::array<Index, 3>> triangles;
    std::vector<Index> triangle_element;
    std::vector<std::array<Index, 3>> node_dofs;   ///< global DOFs of each node (from a Simulation; else empty)

    /// \brief Node adjacency from the edges (call after the edges are set; the pair functions
    /// call it when it is out of date).
    void build_adjacency();
    /// True when nodes \p a and \p b are joined by an edge.
    bool neighbours(Index a, Index b) const;
    /// True when edges \p i and \p j share a node or have neighbouring nodes.
    bool edges_excluded(Index i, Index j) const;
    /// True when \p node is a corner of triangle \p k or a neighbour of one.
    bool node_triangle_excluded(Index node, Index k) const;

    std::vector<std::vector<Index>> adjacency;     ///< sorted neighbours of each node
};

/// \brief Rod chains as a contact mesh: chain c's nodes joined in order, edge k of chain c with
/// thickness \p edge_thickness[c][k]; each chain is one element. The node thickness is the mean
/// of its edges'.
ContactMesh rod_chains(const std::vector<std::vector<Vec3>>& chains,
                       const std::vector<std::vector<double>>& edge_thickness);

/// \brief The contact mesh of the named elements of \p simulation (all with edges or triangles
/// when \p elements is empty) at its current state: rod edges, triangles and their edges (each
/// once), nodes shared between elements merged by their global DOFs, thickness from the points'
/// contact radius. Elements with mapped points (rigid bodies) are refused.
ContactMesh contact_mesh(const Simulation& simulation, const std::vector<std::string>& elements = {});

/// \brief Moves the nodes of a mesh built by contact_mesh() to configuration \p q.
void set_positions(ContactMesh& mesh, const VectorX& q);

/// Which pairs to take.
enum class PairSet {
    all,             ///< every non-excluded pair
    self,            ///< pairs within one element only
    across_elements  ///< pairs of different elements only
};

/// The closest pair of one kind: its centreline (or node-surface) distance, its surface gap
/// distance - (h_first + h_second), and the pair's indices.
struct ClosestPair {
    double distance = std::numeric_limits<double>::infinity();
    double gap = std::numeric_limits<double>::infinity();
    Index first = -1;
    Index second = -1;
};

/// Minimum distance and minimum gap over a pair set (the two may be different pairs when the
/// thickness varies), and how many pairs were checked.
struct Proximity {
    ClosestPair closest;  ///< the pair of smallest distance
    ClosestPair tightest; ///< the pair of smallest gap
    std::size_t pairs = 0;
};

/// \brief Every non-excluded pair of edges (first < second): segment distance and gap
/// distance - (h_i + h_j).
Proximity edge_edge_proximity(ContactMesh& mesh, PairSet set = PairSet::all);

/// \brief Every non-excluded (node, triangle) pair: point-triangle distance and gap
/// distance - (h_node + h_triangle), h_triangle the mean of its corners'. first: the node,
/// second: the triangle.
Proximity node_triangle_proximity(ContactMesh& mesh, PairSet set = PairSet::all);

/// \brief Largest distance any node moved between configurations \p before and \p after (same
/// mesh).
double max_node_displacement(const std::vector<Vec3>& before, const std::vector<Vec3>& after);

}  // namespace soma::validation
