#pragma once
/// \file contact_solids.hpp
/// \brief The solids a point can touch, read from an element's Geometry, and the nearest
/// material point of a solid's surface to a point (for ncp_contact's narrow phase).
///
/// A solid is part of an element with mapped points (a rigid body), in three kinds:
/// - a convex polyhedron: a connected part of the element's closed triangle mesh (a box, a
///   cylinder, a convex mesh, each part of a compound body), whose faces' planes bound it (each
///   part is checked closed and convex at bind);
/// - a sphere: a point with a radius that no edge or triangle uses (a rigid sphere's centre);
/// - a capsule: an edge with a radius (a rigid capsule's axis).
/// A point outside a polyhedron is measured by its largest distance over the face planes: exact
/// over a face, a lower bound near an edge or a corner (never a missed contact within the
/// margin; the normal there is the nearest face's).

#include "soma/contact_constraint.hpp"
#include "soma/element.hpp"

#include <array>
#include <limits>
#include <utility>
#include <string>
#include <vector>

namespace soma::ncp {

struct ContactSolid {
    enum class Kind { polyhedron, sphere, capsule };
    Kind kind = Kind::polyhedron;
    const Element* element = nullptr;
    std::vector<std::array<Index, 3>> faces;  ///< polyhedron: triangles (outward, counter-clockwise)
    std::vector<Index> vertices;              ///< polyhedron: its points; sphere: the centre; capsule: the axis ends
    double radius = 0.0;                      ///< sphere, capsule
};

/// The unit outward normal of triangle \p face (counter-clockwise seen from outside) at \p positions; zero if degenerate.
Vec3 triangle_normal(const std::vector<Vec3>& positions, const std::array<Index, 3>& face);

/// \brief The solids of \p element (none for an element with identity points: rods, shells,
/// particles deform and have no solid to enter). \p q: the configuration to check the mesh in.
/// Each connected part of the triangle mesh is its own solid.
/// \throws std::invalid_argument, naming the element (and the part), when a part of its triangle
/// mesh is open, has a triangle of zero area, is wound inwards or is not convex.
std::vector<ContactSolid> element_solids(const Element& element, const VectorX& q);

/// The points of \p element that can touch a solid or a floor: every point of an element with
/// identity points; on a mapped element, those on its surface (in a triangle or an edge, or with
/// a radius): a rigid body's origin and centre of mass are inside it.
std::vector<Index> surface_points(const Element& element);

/// A contact candidate: the solid's material point nearest to a point, and the normal there.
struct SolidProximity {
    double distance = 0.0;  ///< signed, from the solid's surface (negative inside)
    Vec3 normal = Vec3::UnitZ();  ///< world, out of the solid
    ContactEnd surface;     ///< the material point on the solid's surface (or its centre line: see thickness)
    double thickness = 0.0; ///< the solid's part of the contact thickness (a sphere's or capsule's radius)
    Index vertex = -1;      ///< the point nearest on a sphere (its centre) or a capsule's axis end, else -1
};

/// \brief Four of \p vertices (indices into \p positions) that span a tetrahedron of nearly the
/// largest volume, greedily: the first, the farthest from it, the farthest from their line, the
/// farthest from their plane. Fewer when the vertices are collinear or coplanar (to 1e-9 of
/// their extent). A rigid solid's velocity field is fitted to these four's velocities.
std::vector<Index> spanning_vertices(const std::vector<Index>& vertices, const std::vector<Vec3>& positions);

/// \brief How solid_proximity chooses a polyhedron's face for a point, first rule first.
struct FaceChoice {
    /// The face of the pair's contact (index into ContactSolid::faces), -1 for none: a corner of
    /// a polyhedron meets the face of the other that separates the two best (their separating
    /// axis, from the step's start: ncp_contact), as every corner of that pair does.
    int reference = -1;
    /// The point's displacement relative to the solid over the time looked back and ahead: the
    /// face by which the line x + sigma motion, -1 <= sigma <= 1, enters the solid (clipped by the
    /// faces' planes: Cyrus and Beck), the face whose plane it crosses last on the way in. A rod's
    /// node driven into a plate near its end meets the face it came through, not the end face it
    /// is nearer to. Inside now, the face it leaves by along the line instead when that is nearer
    /// (a point pushed back out, whose velocity reversed within the step: extrapolated back, it
    /// would have entered by the far side). Unused when the line does not enter within that span
    /// (it misses the solid, or is inside all along: a point sliding on a face), when it has left
    /// the solid by now (a point outside or on the surface moving away: a corner bouncing off a
    /// plate's top, extrapolated back, "entered" by the plate's underside), or when the motion is
    /// within the `tie` (a point at rest: its motion is round-off, and on an edge it would pick
    /// either face).
    Vec3 motion = Vec3::Zero();
    /// Else the faces whose planes lie within `tie` of the farthest one compete, and the one whose
    /// normal points most along `approach` (the direction the point's body comes from) wins: a
    /// box's corner resting exactly on the edge of another box's top face (two equal boxes
    /// stacked) is 0 from the side planes and slightly below the top plane, and must meet the top.
    Vec3 approach = Vec3::Zero();
    double tie = 0.0;
};

/// \brief The proximity of the world point \p x to \p solid, whose points are at \p positions
/// (world, indexed by point). \p positions must hold every point of the solid's element. On a
/// polyhedron, the face is chosen by \p choice; without one, the farthest plane's.
/// \param[in] normals a polyhedron's face normals at \p positions (edge_contacts.hpp, face_normals),
///            computed once per look for all its points; unused for a sphere or a capsule
/// \param[in] reach a polyhedron's point outside by more than \p reach, entering no face, is not
///            searched for its nearest surface point: its distance is then its farthest plane's (a
///            lower bound) and its surface point is none (count 0), for a caller that drops it
SolidProximity solid_proximity(const ContactSolid& solid, const std::vector<Vec3>& positions,
                               const std::vector<Vec3>& normals, const Vec3& x, const FaceChoice& choice = {},
                               double reach = std::numeric_limits<double>::infinity());

/// \brief The face of polyhedron \p solid (index into its faces) whose plane separates the points
/// \p vertices best: the largest over faces of the smallest signed distance of a vertex to its
/// plane (the separating-axis value of the faces), with that value. \p normals: the solid's face
/// normals at \p positions.
std::pair<int, double> best_separating_face(const ContactSolid& solid, const std::vector<Vec3>& positions,
                                            const std::vector<Vec3>& normals, const std::vector<Index>& vertices,
                                            const std::vector<Vec3>& vertex_positions);

}  // namespace soma::ncp
