#pragma once
/// \file triangle_mesh.hpp
/// \brief A triangle mesh and the topology the shell models need: unique edges with their
/// adjacent faces (and the face-orientation sign s^k of MAT-DiSMech eq. 19),
/// hinges (MAT-DiSMech §3.3.1, eq. 17), undeformed areas and edge lengths.
///
/// Conventions (0-based everywhere):
/// - Triangle t has vertices (p0, p1, p2) = triangles[t]. Its **local edge k is the edge opposite
///   vertex k**, oriented along the triangle's cyclic order, i.e. from p[(k+1)%3] to p[(k+2)%3]:
///   local edge 0 = p1->p2, local edge 1 = p2->p0, local edge 2 = p0->p1 (MAT-DiSMech Appendix A,
///   v_1 = p_3 - p_2, v_2 = p_1 - p_3, v_3 = p_2 - p_1 in its 1-based notation).
/// - The face normal is (p1 - p0) x (p2 - p0) direction (counter-clockwise = +normal).
/// - A global edge has nodes {n0, n1} with n0 -> n1 equal to the cyclic direction of its
///   **first** adjacent face (so faces[0].sign == +1 always). For an interior edge of a
///   consistently oriented mesh the second face runs the other way (faces[1].sign == -1).
/// - Edges are numbered in order of first appearance when walking triangles 0..T-1 and local
///   edges 0, 1, 2; the numbering is deterministic for a given triangle list.
/// - Hinge h of interior edge e has nodes [x0, x1, x2, x3]: x0 -> x1 is the edge (= edge nodes
///   n0 -> n1), x2 is the vertex opposite the edge in the first face, x3 in the second face
///   (MAT-DiSMech §3.3.1, eq. 17). With a consistently oriented mesh the hinge angle is 0 when flat.
///
/// Validation (TriangleMesh::build_topology throws MeshError):
/// - a triangle index out of range or repeated within one triangle;
/// - a degenerate triangle (area <= 1e-12 * (longest edge)^2);
/// - a non-manifold edge (shared by more than 2 triangles);
/// - inconsistent orientation: an interior edge traversed in the same direction by both faces.
///   We **refuse** such meshes (with the offending triangles named) rather than silently
///   re-orienting them: a re-orientation would change the sign convention of hinge angles that
///   the user may have specified for actuation. Re-orient the mesh in the authoring tool.
/// - Unused nodes (referenced by no triangle) are **refused** as well: a node with no triangle
///   has no mass and no stiffness, so it would make the system matrix singular.

#include "soma/types.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace soma::shells {

/// Error in a mesh's data or topology; the message names the triangle/edge/node concerned.
class MeshError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One face adjacent to a global edge.
struct EdgeFace {
    Index triangle = -1;  ///< triangle index
    int local_edge = -1;  ///< local edge index k in that triangle (edge opposite vertex k)
    int sign = +1;        ///< +1 if the global edge direction n0->n1 equals the face's cyclic
                          ///< direction for that edge, -1 otherwise (s^k of MAT-DiSMech eq. 19)
};

/// One unique mesh edge.
struct MeshEdge {
    std::array<Index, 2> nodes{};  ///< n0 -> n1: the direction of the edge vector
    Index face_count = 0;          ///< 1 (boundary) or 2 (interior)
    std::array<EdgeFace, 2> faces{};  ///< faces[0] always valid; faces[1] valid iff face_count == 2
};

/// One hinge (interior edge): node order of MAT-DiSMech's reference code (§3.3.1).
struct Hinge {
    Index edge = -1;               ///< global edge index
    std::array<Index, 4> nodes{};  ///< x0, x1 (edge), x2 (wing of face 0), x3 (wing of face 1)
};

/// Triangle mesh: node positions and triangles (vertex indices, 0-based).
struct TriangleMesh {
    std::vector<Vec3> positions;
    std::vector<std::array<Index, 3>> triangles;
};

/// Topology and undeformed measures derived once from a TriangleMesh.
struct MeshTopology {
    std::vector<MeshEdge> edges;
    /// triangle_edges[t][k] = global edge index of local edge k of triangle t.
    std::vector<std::array<Index, 3>> triangle_edges;
    /// triangle_edge_signs[t][k] = sign of local edge k in triangle t (same as in EdgeFace).
    std::vector<std::array<int, 3>> triangle_edge_signs;
    std::vector<Hinge> hinges;
    std::vector<double> triangle_areas;  ///< undeformed areas (m^2)
    std::vector<double> edge_lengths;    ///< undeformed lengths of the global edges (m)
};

/// \brief Validates `mesh` and derives its topology (see the file comment for conventions and
/// refused meshes).
/// \throws MeshError with a message naming the offending triangle / edge / node.
MeshTopology build_topology(const TriangleMesh& mesh);

/// Nodes of local edge k of triangle `tri`, in the triangle's cyclic direction:
/// {tri[(k+1)%3], tri[(k+2)%3]}.
inline std::array<Index, 2> local_edge_nodes(const std::array<Index, 3>& tri, int k) {
    return {tri[static_cast<std::size_t>((k + 1) % 3)], tri[static_cast<std::size_t>((k + 2) % 3)]};
}

/// Area of the triangle (a, b, c).
double triangle_area(const Vec3& a, const Vec3& b, const Vec3& c);

/// Sum of the undeformed triangle areas.
double total_area(const MeshTopology& topology);

}  // namespace soma::shells
