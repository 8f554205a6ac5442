#pragma once
/// \file rigid_shape.hpp
/// \brief The shapes of rigid bodies: their mass properties at a uniform density, and the points
/// and triangles they show to forces (floor contact) and to output.
///
/// Every shape is centred on its own centre, which sits at `center` in body coordinates, with its
/// own axes turned by `orientation` from the body's; a cylinder's and a capsule's axis is the
/// shape's z axis. A body may hold several shapes (a compound body: a table's top and legs), each
/// a convex part for contact; their mass properties at one density add up (compound_mass_properties). Contact points carry a radius: a sphere is
/// its centre with radius R, a capsule the centres of its two end caps with radius r, so that a
/// smooth surface touches a plane exactly (and a capsule is the edge between them, so that
/// contact with edges, imc_contact, sees its whole surface); a box is its 8 corners and a cylinder 2 x 32 points on
/// its rims (radius 0; lying on its side, a cylinder may rest up to 1 - cos(pi/32) = 0.5% of r
/// lower than the true surface). A triangle mesh's contact and output points are its vertices
/// (radius 0) and its triangles are drawn; its mass properties at a uniform density are exact
/// for the closed polyhedron (polyhedron_mass_properties).

#include "soma/rotation.hpp"
#include "soma/types.hpp"

#include <array>
#include <string>
#include <vector>

namespace soma::rigid_body {

enum class ShapeKind { box, sphere, cylinder, capsule, mesh };

struct RigidShape {
    ShapeKind kind = ShapeKind::sphere;
    Vec3 size = Vec3::Zero();    ///< box: edge lengths along body x, y, z
    double radius = 0.0;         ///< sphere, cylinder, capsule
    double length = 0.0;         ///< cylinder: height; capsule: length of its cylindrical part
    Vec3 center = Vec3::Zero();  ///< the shape's centre in body coordinates
    Quaternion orientation = Quaternion::Identity();  ///< the shape's axes in body coordinates
    /// mesh: vertices relative to `center` in the shape's axes (scaled) and triangles (0-based,
    /// counter-clockwise seen from outside when the mesh is closed)
    std::vector<Vec3> vertices;
    std::vector<std::array<Index, 3>> triangles;
};

/// Mass, centre of mass and rotational inertia about the centre of mass, in body coordinates.
struct MassProperties {
    double mass = 0.0;
    Vec3 center_of_mass = Vec3::Zero();
    Mat3 inertia = Mat3::Zero();
};

/// \brief Mass properties of a uniform solid \p shape of density \p density (kg/m^3):
/// box m/12 (b^2 + c^2, ...), sphere 2/5 m R^2, cylinder (m(3r^2 + L^2)/12, ..., m r^2/2), capsule
/// with its hemispherical caps (each cap's centroid 3r/8 from its flat face).
MassProperties uniform_mass_properties(const RigidShape& shape, double density);

/// \brief Mass properties of the uniform solid made of the \p shapes at one \p density: masses
/// add, the centre of mass is the mass-weighted mean, and each inertia is turned into body axes
/// (R I R^T) and moved to the common centre of mass by the parallel-axis theorem,
/// I += m_i (|d|^2 1 - d d^T). Overlapping shapes count their common volume twice.
MassProperties compound_mass_properties(const std::vector<RigidShape>& shapes, double density);

/// The shape's volume (m^3); a mesh's is its signed volume (that of the solid it encloses when
/// it is closed and oriented outwards, see check_closed_mesh).
double shape_volume(const RigidShape& shape);

/// \brief Mass properties of the uniform solid of density \p density bounded by the closed,
/// outward-oriented triangle mesh (\p vertices, \p triangles): exact, by the divergence theorem
/// over the tetrahedra (origin, a, b, c) of its triangles (Eberly, "Polyhedral Mass Properties
/// (Revisited)", 2002; Mirtich 1996). Tetrahedron t with signed volume V_t = a . (b x c) / 6
/// has centroid (a + b + c)/4 and second moment integral of x x^T dV =
/// V_t/20 (a a^T + b b^T + c c^T + s s^T), s = a + b + c; the sums over t are moved to the centre
/// of mass (parallel axis) and I = tr(C) 1 - C.
MassProperties polyhedron_mass_properties(const std::vector<Vec3>& vertices,
                                          const std::vector<std::array<Index, 3>>& triangles, double density);

/// \brief Checks that a triangle mesh bounds a solid: at least 4 vertices, indices in range,
/// every edge shared by exactly two triangles that traverse it in opposite directions (closed
/// and consistently oriented), and a positive signed volume (normals outwards).
/// \throws std::invalid_argument naming the first offending edge or what is wrong.
void check_closed_mesh(const std::vector<Vec3>& vertices, const std::vector<std::array<Index, 3>>& triangles);

/// Points (body coordinates, with their contact radius) and surface triangles for output.
struct ShapeSurface {
    std::vector<Vec3> points;
    std::vector<double> radii;
    std::vector<std::array<Index, 3>> triangles;  ///< indices into points, outward normals
    std::vector<std::array<Index, 2>> edges;      ///< indices into points: a capsule's axis (with radius r, its surface)
};

/// The contact and output points of \p shape (see the file comment).
ShapeSurface shape_surface(const RigidShape& shape);

/// \brief Triangles that draw \p shape, in body coordinates (points and triangles only): its
/// surface's for a box, a cylinder and a mesh; for a sphere and a capsule, which touch as points
/// with a radius, a tessellation of the round surface (24 segments; 11 rings of latitude between
/// the poles, a capsule's equator ring twice), closed and oriented outwards.
ShapeSurface display_mesh(const RigidShape& shape);

/// Short description for messages ("box 0.1 x 0.2 x 0.3 m").
std::string describe_shape(const RigidShape& shape);

/// \brief Checks user-given mass properties: mass > 0, inertia symmetric positive definite with
/// principal moments that satisfy the triangle inequality (I1 + I2 >= I3, as every real body).
/// \throws std::invalid_argument naming what is wrong.
void check_mass_properties(const MassProperties& properties);

}  // namespace soma::rigid_body
