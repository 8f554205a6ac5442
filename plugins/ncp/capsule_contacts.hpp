#pragma once
/// \file capsule_contacts.hpp
/// \brief A capsule's side against another capsule's side and against a convex polyhedron's
/// edges (for ncp_contact).
///
/// A capsule is the set of points within its radius r of its axis, a segment. Its axis ends, with
/// the radius, are point candidates, and they find every contact whose closest point on the axis
/// is an end: against a floor, against a face of a polyhedron (the deepest point of a segment
/// into a half-space is an end), against a sphere or another capsule's end. What they miss is a
/// contact in the middle of the axis: two capsules crossed, one lying on the other, or a capsule
/// lying across a box's edge with its ends overhanging. There the axis's closest point to the
/// other solid is inside the axis, and the other solid's closest feature is an edge (a
/// capsule's axis or a polyhedron's edge): the closest points of two segments (Ericson 2005,
/// section 5.1.9), inside both by more than the margin (nearer an end, that end's point
/// candidate finds it).
///
/// Inside both segments, the segment joining the closest points is the two lines' common
/// perpendicular, so the normal is n = +-(da x db)/|da x db| exactly (well defined even when the
/// axes cross: no division by the distance), signed out of B towards A, and the gap is
/// n . (p_a - p_b) - r_a - r_b. A capsule's side faces every direction normal to its axis, so a
/// capsule against a polyhedron's edge is a supporting pair when n lies in the edge's cone of
/// face normals (edge_contacts.hpp, in_edge_cone); otherwise a face of the polyhedron is closer,
/// and the capsule's end meets that face. The depth rule of edge_contacts.hpp applies too: a
/// pair deeper than the best separating axis (the polyhedron's face planes against the capsule,
/// each supporting edge's n) by more than the margin is spurious (a capsule lying on a box's top
/// across it is n = -z from the bottom edges beneath, the box's height deep).

#include "edge_contacts.hpp"

#include "soma/types.hpp"

#include <vector>

namespace soma::ncp {

/// A capsule at a step: its axis from \p end0 to \p end1 (world) and its radius.
struct CapsuleAxis {
    Vec3 end0 = Vec3::Zero();
    Vec3 end1 = Vec3::Zero();
    double radius = 0.0;
};

/// \brief The side contact of capsules \p a and \p b, if any: their axes not parallel
/// (kParallelTolerance; parallel capsules touch through their ends' point candidates), their
/// closest points inside both axes by more than \p margin from every end, and the gap at most \p
/// reach. \p apart (from B towards A, any length) signs the normal when the axes cross exactly.
/// \param[out] pair edge_a = edge_b = 0; s along a, t along b; normal out of B; gap between the surfaces
bool capsule_side_pair(const CapsuleAxis& a, const CapsuleAxis& b, double margin, double reach, const Vec3& apart,
                       EdgePair& pair);

/// \brief The contacts of capsule \p a's side with polyhedron \p b's edges (appended to \p pairs,
/// edge_a = 0, edge_b the edge): each edge not parallel to the axis whose normal with it, signed
/// out of B, lies in the edge's cone, whose closest points are inside both by more than \p margin,
/// with the gap at most \p reach and not below the pair's best separating axis by more than \p
/// margin (the largest of B's face planes against the capsule and the supporting edges' n).
void capsule_edge_pairs(const CapsuleAxis& a, const PolyhedronFeatures& b, double margin, double reach,
                        std::vector<EdgePair>& pairs);

}  // namespace soma::ncp
