#pragma once
/// \file edge_contacts.hpp
/// \brief Edge-edge contacts between two convex polyhedra (for ncp_contact): the edges of a
/// polyhedron with their Gauss-map arcs, the test that two edges are a supporting pair, the
/// closest points of two segments, and the separating-axis value over the faces.
///
/// Two convex polyhedra A and B can touch edge to edge with no corner of either inside or on the
/// other (two bars crossed at 90 degrees, one lying on the other; a box standing on its edge
/// across another's edge): the vertex-face search of ncp_contact finds nothing there. The
/// candidates are the pairs of edges (a of A, b of B) whose Gauss-map arcs intersect
/// (Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013: an edge's arc
/// joins the outward normals of its two faces; a and b are a supporting pair exactly when the
/// arc of a and the arc of b, negated, cross, i.e. when their cross product is a face normal of
/// the Minkowski difference A - B). With the normal n = (da x db) / |da x db|, signed to point
/// out of B, that is:
///
///     n in cone(n_b0, n_b1)   and   -n in cone(n_a0, n_a1),
///
/// each cone the non-negative combinations of an edge's two face normals (a wedge of angle
/// below 180 degrees, the exterior dihedral angle). Gregorius writes the same test as the signs
/// of four triple products and a hemisphere check; the cone form needs no hemisphere check (the
/// sign of n is chosen by B's cone) and takes a tolerance in the natural unit, the sine of the
/// angle by which n may lie outside a cone.
///
/// A supporting pair whose segments' closest points lie inside both edges (by more than the
/// margin from every end) is a contact with gap n . (p_a - p_b). Near an end the corner is a
/// vertex candidate that the vertex-face search already finds within the margin, and a second
/// row there would only make the contacts redundant; this also rejects the edges of two equal
/// boxes stacked exactly (they coincide, and are skipped as parallel, or meet at corners). In a
/// penetrating configuration every edge axis and face axis has a negative value, and the true
/// contact axis is the shallowest (the separating-axis theorem: the penetration depth is the
/// largest axis value): a pair deeper than the best axis, faces' or edges', by more than the
/// margin is spurious and is dropped.
///
/// Face crossings. Two faces that meet flat (a plate dropped onto another across it, a table's
/// top on another's) touch over the polygon where they overlap. Its corners are the corners of
/// either face inside the other (vertex candidates) and the points where an edge of one face
/// crosses an edge of the other, seen along the face normal (the clipping points of the box-box
/// contact manifolds of game physics). Those edges are no supporting pair while the faces are not
/// exactly parallel, so the Gauss-map test misses them; a plate hitting another corner first
/// then turns flat within the step with no row at its far side. So for each face a of A and
/// face b of B that are nearly opposed (their normals within kOpposedFaceAngle of antiparallel),
/// each edge of b that crosses an edge of a in a's plane, inside both by more than the margin,
/// is a candidate too: b's edge point against a's face, normal out of a's face (-n_a out of B),
/// gap n_a . (p_b - p_a), under the same depth rule.

#include "contact_solids.hpp"

#include "soma/types.hpp"

#include <array>
#include <cstddef>
#include <vector>

namespace soma::ncp {

/// \brief Angle (sine, dimensionless) below which two triangles that share an edge count as one
/// face: the two triangles of a box's face, a fan of a cylinder's cap. Round-off leaves ~1e-16;
/// meshes read from files with 7 or more significant digits leave below 1e-7 over their size.
inline constexpr double kFlatAngle = 1e-6;

/// \brief Angle (sine) by which a direction may lie outside an edge's cone of face normals and
/// still count: crossed bars whose faces are parallel touch at the cones' boundaries, where
/// round-off and the solver's gap tolerance (1e-9 m over a 0.1 m face: 1e-8 rad) tip it either
/// way. A pair admitted at this angle is still a valid row: its points stay apart along n, which
/// is within 1e-6 rad of a face normal.
inline constexpr double kConeTolerance = 1e-6;

/// \brief |da x db| <= kParallelTolerance |da| |db|: two edges are parallel (no edge-edge normal;
/// parallel edges in contact meet through their ends, which the vertex-face search finds). At
/// 1e-6 the normal's round-off is ~1e-10.
inline constexpr double kParallelTolerance = 1e-6;

/// \brief Angle (radians) within which two faces of two polyhedra count as nearly opposed for face
/// crossings: 30 degrees, well above the turn of a plate slammed flat within a step (about 5
/// degrees in the table pile) and far from the right angles of faces that cannot meet flat.
inline constexpr double kOpposedFaceAngle = 0.5235987755982988;

/// An edge where two faces of a convex polyhedron meet at an angle.
struct PolyhedronEdge {
    std::array<Index, 2> points{};          ///< its ends (point indices in the element's Geometry)
    std::array<std::size_t, 2> faces{};     ///< the triangles on either side (indices into ContactSolid::faces)
};


/// \brief The edges of a closed convex triangle mesh: its unique undirected triangle edges whose
/// two triangles are not coplanar (a box's 12, not its faces' diagonals). Topology, computed once
/// (a rigid body's faces keep their angles), at \p positions.
/// \param[in] faces triangles of a closed mesh (each undirected edge in exactly two of them)
/// \param[in] positions the points, indexed by the faces' point indices
/// \param[in] flat_angle sine of the angle between two triangles' normals below which they are one face
std::vector<PolyhedronEdge> polyhedron_edges(const std::vector<std::array<Index, 3>>& faces,
                                             const std::vector<Vec3>& positions, double flat_angle = kFlatAngle);

/// \brief The unit outward normals of \p faces at \p positions into \p normals (resized; no
/// allocation once it has the capacity).
void face_normals(const std::vector<std::array<Index, 3>>& faces, const std::vector<Vec3>& positions,
                  std::vector<Vec3>& normals);

/// \brief The unit direction e = (n0 x n1)/|n0 x n1| along an edge whose faces have the unit
/// normals \p n0, \p n1 (the axis of its cone of normals); zero for a flat edge.
Vec3 edge_cone_axis(const Vec3& n0, const Vec3& n1);

/// \brief edge_cone_axis of each of \p edges, from its faces' \p normals, into \p axes (resized;
/// no allocation once it has the capacity): per look, so that the cone tests of every edge pair
/// share them.
void edge_cone_axes(const std::vector<PolyhedronEdge>& edges, const std::vector<Vec3>& normals, std::vector<Vec3>& axes);

/// \brief Whether the unit direction \p n, normal to an edge, lies in the cone of the edge's two
/// unit face normals \p n0, \p n1 (their non-negative combinations), or within the angle whose
/// sine is \p tolerance outside it. With e = \p axis = edge_cone_axis(n0, n1) along the edge, n at
/// angle theta from n0 and n1 at phi < pi: (n0 x n) . e = sin theta and (n x n1) . e =
/// sin(phi - theta), both >= 0 exactly when 0 <= theta <= phi. False for a flat edge (axis zero).
bool in_edge_cone(const Vec3& n, const Vec3& n0, const Vec3& n1, const Vec3& axis, double tolerance = kConeTolerance);

/// \brief Whether edge a (direction \p da, face normals \p na0, \p na1) of A and edge b of B are a
/// supporting pair (their Gauss-map arcs intersect: Gregorius 2013), and its normal.
/// \param[in] axis_a, axis_b the edges' cone axes (edge_cone_axis)
/// \param[out] normal n = +-(da x db)/|da x db|, signed so that it points out of B: in b's cone, with -n in a's
/// \return false for parallel edges (kParallelTolerance) and for arcs that do not meet (kConeTolerance)
bool supporting_edge_normal(const Vec3& da, const Vec3& na0, const Vec3& na1, const Vec3& axis_a, const Vec3& db,
                            const Vec3& nb0, const Vec3& nb1, const Vec3& axis_b, Vec3& normal);

/// \brief The closest points of segments a0 + s (a1 - a0) and b0 + t (b1 - b0), s, t in [0, 1]
/// (Ericson, Real-Time Collision Detection, 2005, section 5.1.9: the lines' closest points,
/// clamped to one segment and the other's parameter recomputed and clamped). Segments of
/// positive length.
void segment_closest_points(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1, double& s, double& t);

/// \brief Whether the points at \p s along an edge of length \p length_a and \p t along one of length
/// \p length_b lie within \p margin of an end of either (there the corner is a point candidate).
bool near_an_end(double s, double length_a, double t, double length_b, double margin);

/// \brief The smallest signed distance of \p vertices (indices into \p positions) to the plane
/// through \p on_plane with unit normal \p n: how far the deepest of them lies beyond it
/// (negative: inside).
double deepest_beyond_plane(const Vec3& n, const Vec3& on_plane, const std::vector<Index>& vertices,
                            const std::vector<Vec3>& positions);

/// \brief The separating-axis value of A's face normals against B:
/// max over A's faces of the min over B's vertices of the signed distance to the face's plane
/// (positive: a plane of A separates B by that much; negative: B's deepest vertex inside that
/// face's plane, for the least deep face).
/// \param[in] faces_a, normals_a A's triangles and their unit outward normals
/// \param[in] positions_a A's points; \p vertices_b, \p positions_b B's vertices and points
double face_separation(const std::vector<std::array<Index, 3>>& faces_a, const std::vector<Vec3>& normals_a,
                       const std::vector<Vec3>& positions_a, const std::vector<Index>& vertices_b,
                       const std::vector<Vec3>& positions_b);

/// One polyhedron solid at a step: its faces and vertices, edges (from bind), points and face normals (per step).
struct PolyhedronFeatures {
    const ContactSolid& solid;
    const std::vector<PolyhedronEdge>& edges;
    const std::vector<Vec3>& positions;     ///< of its element's points
    const std::vector<Vec3>& normals;       ///< of solid.faces, unit, outward
    const std::vector<Vec3>& edge_axes;     ///< of edges, their cone axes (edge_cone_axes; per step)
};

/// An edge pair of two polyhedra A, B that may touch: a supporting pair or a face crossing.
struct EdgePair {
    std::size_t edge_a = 0, edge_b = 0;  ///< indices into A's and B's edges
    double s = 0.0;                      ///< the point on a: (1 - s) a0 + s a1
    double t = 0.0;                      ///< the point on b: (1 - t) b0 + t b1
    Vec3 normal = Vec3::UnitZ();         ///< unit, out of B towards A
    double gap = 0.0;                    ///< n . (p_a - p_b), negative when they overlap (m)
};

/// \brief The edge-edge contact candidates of polyhedra \p a and \p b (appended to \p pairs): every
/// supporting pair (supporting_edge_normal) whose closest points (segment_closest_points) are
/// inside both edges by more than \p margin from every end, whose gap is at most \p reach, and
/// which is not deeper than the pair's best axis by more than \p margin: the largest of
/// face_separation of A against B, of B against A, and n . (a0 - b0) over every supporting pair.
/// \param[in] margin the contact margin (m): the ends' clearance and the depth allowance
/// With \p face_crossings, also the face crossings of face_crossing_pairs, under the same depth rule.
/// \param[in] reach largest gap kept (m): the margin plus the motion the caller's prediction may close
/// \param[in] slack the round-off allowance (m) of the early return: a pair whose best face axis
/// is beyond the reach plus the margin by more than it has no pair to keep, and is not searched
void supporting_edge_pairs(const PolyhedronFeatures& a, const PolyhedronFeatures& b, double margin, double reach,
                           std::vector<EdgePair>& pairs, bool face_crossings = false, double slack = 0.0);

/// \brief The face crossings of polyhedra \p a and \p b (appended to \p pairs, before the depth
/// rule): for each edge a of A on a face with normal n_a and edge b of B on a face nearly opposed
/// to it (n_a . n_b <= -cos kOpposedFaceAngle), not already in \p pairs, the point where b, projected
/// onto a's face plane, crosses a, when it is inside both by more than \p margin: normal -n_a,
/// gap n_a . (p_b - p_a) (kept when at most \p reach). One per edge pair.
void face_crossing_pairs(const PolyhedronFeatures& a, const PolyhedronFeatures& b, double margin, double reach,
                         std::vector<EdgePair>& pairs);

}  // namespace soma::ncp
