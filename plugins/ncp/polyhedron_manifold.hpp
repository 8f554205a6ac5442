#pragma once
/// \file polyhedron_manifold.hpp
/// \brief The contact manifold of two convex polyhedra (for ncp_contact's `polyhedron_pairs:
/// manifold`): their separating axis over faces and edge pairs, and the contact points along it,
/// by clipping (the box-box contacts of game physics: Gregorius, "The Separating Axis Test
/// between Convex Polyhedra", GDC 2013, and "Robust Contact Creation for Physics Simulations",
/// GDC 2015).
///
/// The axis is the separating-axis theorem's: the largest, over the face normals of A, the face
/// normals of B and the normals of their supporting edge pairs (edge_contacts.hpp), of the
/// separation along it (positive apart, negative the depth of the overlap). Faces win ties: an
/// edge pair is the axis only when it separates better than the best face by `edge_tolerance`,
/// and B's face only when it separates better than A's by round-off (so that two boxes stacked
/// face to face always clip the same way); a best face nearly facing the other's is the axis
/// whatever the edges say (separating_axis). Over a predicted motion, the axis that closes last
/// (closing_axis).
///
/// - A face axis: the face of the solid that owns it is the reference face (normal n out of it);
///   the incident face is the other solid's face whose normal is most opposed to n. The incident
///   face's polygon, clipped by the planes through the reference face's edges normal to it
///   (Sutherland and Hodgman 1974), leaves the points of the incident face over the reference
///   face: each is a contact of the incident point against its foot on the reference plane, with
///   the gap along n. Two plates lying flat on each other touch at the corners of the polygon
///   where they overlap: corners of either, and crossings of their edges.
/// - An edge axis: one contact, between the two edges' closest points (segment_closest_points),
///   normal the edges' cross product out of B, gap along it (the lines' gap: where the closest
///   points are clamped to an end they may lie apart across the axis, a support the pair does not
///   have; dropping such points made the table pile worse, docs/validation.md 11.6); and where a
///   face of each lies within kOpposedFaceAngle of the axis, their clipped overlap too (plates
///   tilted a few degrees, their edges crossing, turn flat within the step).
/// - Either way, a point deeper than the pair's separation (the theorem's value at this look) by
///   more than the depth allowance is dropped: it is not in contact along the axis (a pair of
///   edges whose lines pass deep through each other but whose segments do not; a plate's point
///   under the other plate, where the axis is its top).
///
/// Each point is named by the faces clipped and the two features whose intersection it is (an
/// incident corner: its two incident edges; a crossing: an incident edge and a reference side; a
/// reference corner over the incident face: two reference sides), so that a contact found again
/// at another look of the same step has the same name.

#include "contact_solids.hpp"
#include "edge_contacts.hpp"

#include "soma/contact_constraint.hpp"
#include "soma/types.hpp"

#include <array>
#include <cstddef>
#include <limits>
#include <vector>

namespace soma::ncp {

/// A face of a convex polyhedron: its coplanar triangles, and its boundary as a loop of corners.
struct PolyhedronFace {
    std::vector<Index> loop;              ///< its corners, counter-clockwise seen from outside
    std::vector<std::size_t> triangles;   ///< indices into ContactSolid::faces
};

/// \brief The faces of a closed convex triangle mesh: triangles joined across their edges where
/// their normals agree (to the sine \p flat_angle), each group's boundary ordered into a loop
/// (a box's 6 quadrilaterals). Topology, computed once, at \p positions.
std::vector<PolyhedronFace> polyhedron_faces(const std::vector<std::array<Index, 3>>& faces,
                                             const std::vector<Vec3>& positions, double flat_angle = kFlatAngle);

/// A polyhedron at one look: its features (edge_contacts.hpp) and its faces.
struct PolyhedronShape {
    PolyhedronFeatures features;
    const std::vector<PolyhedronFace>& faces;
};

/// The separating axis of a pair of polyhedra A, B.
struct SeparatingAxis {
    enum class Kind { face_of_a, face_of_b, edges };
    Kind kind = Kind::face_of_a;
    std::size_t face = 0;                ///< face_of_a, face_of_b: index into that solid's faces
    std::size_t edge_a = 0, edge_b = 0;  ///< the best supporting edge pair: indices into A's and B's edges
    double separation = 0.0;             ///< along the axis (m): positive apart, negative overlapping
    /// The best edge pair's separation (m); -infinity without a supporting pair.
    double best_edges = -std::numeric_limits<double>::infinity();
    /// The best edge pair as the axis (kind edges), for a face axis whose clipping finds nothing.
    SeparatingAxis edge_axis() const {
        SeparatingAxis axis = *this;
        axis.kind = Kind::edges;
        axis.separation = best_edges;
        return axis;
    }
};

/// \brief The separating axis of \p a and \p b (file comment): faces first, an edge pair only when
/// better than the best face by more than \p edge_tolerance (m), and not when the best face's
/// incident face is within kOpposedFaceAngle of facing it and the face separates them by at
/// least -\p facing_depth (m; -infinity: never): nearly facing faces meet flat (two plates
/// tilted a few degrees against each other, touching where their edges cross, turn flat within
/// the step, over the polygon the clipping finds).
SeparatingAxis separating_axis(const PolyhedronShape& a, const PolyhedronShape& b, double edge_tolerance,
                               double facing_depth);

/// \brief The axis along which \p a and \p b, apart now, come into contact over their predicted
/// motion to the positions \p ahead_a, \p ahead_b (of their elements' points): the separating-axis
/// theorem over the motion (each axis fixed, the pair touches when the last axis's gap closes:
/// Eberly 2002, "Dynamic collision detection using oriented bounding boxes"), so a leg passing
/// beside a plate's side face and rising into its underside meets the underside. The theorem's
/// axis now (separating_axis with \p edge_tolerance and \p allowance) where the pair touches or
/// overlaps already, or where some axis separates it at the predicted end.
SeparatingAxis closing_axis(const PolyhedronShape& a, const PolyhedronShape& b, const std::vector<Vec3>& ahead_a,
                            const std::vector<Vec3>& ahead_b, double edge_tolerance, double allowance);

/// One contact point of a manifold.
struct ManifoldPoint {
    ContactEnd a, b;              ///< material points of A and B (element unset: the caller's)
    Vec3 normal = Vec3::UnitZ();  ///< unit, out of B towards A
    double gap = 0.0;             ///< n . (x_a - x_b) (m)
    std::size_t axis = 0;         ///< axis_name of the axis it was found along
    std::size_t name = 0;         ///< the features it comes from (file comment), unique within the pair and axis
};

/// The separating-axis value of a pair of polyhedra at one look (separation), computed once, when
/// first asked: the depth rule of a pair's manifold may need it along several axes.
class PairSeparation {
public:
    PairSeparation(const PolyhedronShape& a, const PolyhedronShape& b) : a_(a), b_(b) {}
    double operator()();

private:
    const PolyhedronShape& a_;
    const PolyhedronShape& b_;
    bool known_ = false;
    double value_ = 0.0;
};

/// \brief The contact points of \p a and \p b along \p axis (separating_axis, possibly found at
/// another look of the step: its features are re-evaluated at this look's geometry), appended to
/// \p points: those with a gap of at most \p reach, and not deeper than the pair's separation at
/// this look (separation) by more than \p depth_allowance (the separating-axis theorem: deeper
/// is not in contact along this axis). \p slack: the round-off allowance
/// (m) of the clipping, by which a point on a side plane counts as inside.
/// \return false, with no point, when the axis does not describe the pair at this look: an edge
/// axis's edges are no longer a supporting pair (the bodies turned within the step) or there is no
/// supporting pair, or no point of the incident face lies over the reference face without being
/// too deep (the pair's nearest features are an edge's and a corner's beside the face: the best
/// edge pair describes it)
/// \param[in,out] separation_now the pair's separation at this look (of \p a and \p b)
bool contact_manifold(const PolyhedronShape& a, const PolyhedronShape& b, const SeparatingAxis& axis, double reach,
                      double depth_allowance, double slack, PairSeparation& separation_now,
                      std::vector<ManifoldPoint>& points);

/// \brief The best face axis of \p a against \p b and of \p b against \p a, the larger: max over
/// each solid's faces of the smallest signed distance of the other's vertices to its plane.
double best_face_separation(const PolyhedronShape& a, const PolyhedronShape& b);

/// \brief The separating-axis value of \p a and \p b: the largest separation over their face
/// normals and supporting edge pairs' normals (positive apart; negative, minus the depth of the
/// overlap).
double separation(const PolyhedronShape& a, const PolyhedronShape& b);

/// \brief A name for SeparatingAxis \p axis, unique within a pair (for contact keys).
std::size_t axis_name(const SeparatingAxis& axis);

}  // namespace soma::ncp
