#pragma once
/// \file mesh_input.hpp
/// \brief Triangle meshes from files (Wavefront OBJ, the MAT-DiSMech text geometry format) and
/// generated meshes (rectangle with straight sides, regular polygon).
///
/// Every reader and generator returns a TriangleMesh with 0-based indices; validate it with
/// build_topology() (triangle_mesh.hpp). File errors are MeshInputError with "file:line: ".

#include "triangle_mesh.hpp"

#include "soma/input_limits.hpp"
#include "soma/obj_mesh.hpp"

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace soma::shells {

/// An error in a mesh file: what() is "file:line: message" (line 0 for whole-file errors).
using MeshInputError = soma::MeshFileError;

/// File formats understood by read_mesh_file().
enum class MeshFileFormat {
    obj,   ///< Wavefront OBJ
    text,  ///< MAT-DiSMech text geometry: *Nodes / *Edges / *Triangles sections
};

/// \brief The format implied by a file name: ".obj" (any case) -> obj, anything else -> text.
MeshFileFormat mesh_format_from_extension(const std::string& path);

/// \brief Wavefront OBJ (vertices and faces only): soma/obj_mesh.hpp's reader; `l` and `p`
/// statements are refused with the advice to declare rods as discrete_rod elements joined to the
/// shell by shared nodes.
/// \param[in] input  the stream to read
/// \param[in] name   file name used in error messages
/// \throws MeshInputError on malformed lines and out-of-range indices ("name:line: ...")
TriangleMesh parse_obj(std::istream& input, const std::string& name);

/// \brief The MAT-DiSMech text geometry format (MAT-DiSMech §6.1; the format is its reference code's):
///
///     *Nodes
///     x, y, z          (one node per line)
///     *Edges
///     i, j             (rod edges, 1-based)
///     *Triangles
///     i, j, k          (1-based)
///
/// Section names are case-insensitive; numbers are separated by commas and/or whitespace;
/// blank lines and text after '#' are ignored. A shell element has no rod edges: any line in an
/// `*Edges` section is refused with its line number (declare the rods as discrete_rod elements
/// joined by shared nodes). An empty `*Edges` section is accepted.
/// At most \p max_nodes nodes and \p max_triangles triangles, refused at the line that exceeds them.
/// \throws MeshInputError ("name:line: ...")
TriangleMesh parse_text_geometry(std::istream& input, const std::string& name, long max_nodes = kMaxNodesPerElement,
                                 long max_triangles = kMaxTrianglesPerElement);

/// \brief Reads a mesh file in the given format (see parse_obj / parse_text_geometry). The file
/// must be a regular file of at most kMaxDataFileBytes (soma/input_file.hpp); a mesh of more
/// than kMaxNodesPerElement nodes or kMaxTrianglesPerElement triangles is refused at the line
/// that exceeds them.
/// \throws MeshInputError when the file is not a regular file, too large, cannot be opened or is
/// malformed.
TriangleMesh read_mesh_file(const std::string& path, MeshFileFormat format);

/// Direction of the rows of a generated rectangle mesh (and of its node numbering).
enum class RowDirection { x, y };

/// Triangulation pattern of a generated rectangle mesh.
enum class RectanglePattern {
    equilateral,        ///< rows of near-equilateral triangles, closed by half-triangles at the row ends
    right,              ///< structured grid, every cell split along its diagonal (u, w) -> (u + du, w + dw)
    right_alternating,  ///< structured grid, diagonals alternating cell by cell (checkerboard)
};

/// \brief A rectangle [origin.x, origin.x + Lx] x [origin.y, origin.y + Ly] in the plane
/// z = origin.z, with straight sides: nodes lie on all four sides, corners included, and the
/// triangles cover the rectangle exactly (normals +z).
///
/// With rows along x (u = x, w = y; rows along y swap the roles of x and y):
/// - `equilateral`: n_w = max(1, round(Lw / (a sqrt(3)/2))) row spacings and n_u =
///   max(1, round(Lu / a)) edges per row; the spacings are stretched to fit exactly: du = Lu/n_u,
///   dw = Lw/n_w. Even rows (w = 0, 2dw, ...) have n_u + 1 nodes at u = 0, du, ..., Lu. Odd rows
///   are offset by half an edge and closed at both ends: n_u + 2 nodes at u = 0, du/2, 3du/2,
///   ..., Lu - du/2, Lu. The interior triangles are isosceles with base du and height dw
///   (equilateral when Lw is a multiple of a sqrt(3)/2 and Lu of a, which the hinge shell's
///   stiffness is calibrated on); each band between two rows ends in two right half-triangles
///   (legs du/2 and dw: angles 90, 60, 30 degrees when equilateral). Counts: (n_w + 1) rows,
///   n_w (2 n_u + 1) triangles; (n_u + 1) nodes in each of the ceil((n_w + 1)/2) even rows and
///   n_u + 2 in each of the floor((n_w + 1)/2) odd rows. Lu = 0.1, a = 0.005, Lw = 0.021651
///   (the reference code's plate, MAT-DiSMech §7.2, Fig. 8, whose own mesh has zigzag ends): 6 rows, 129
///   nodes, 205 triangles.
/// - `right`, `right_alternating`: n_u = max(1, round(Lu / a)), n_w = max(1, round(Lw / a))
///   cells of du x dw (stretched to fit), (n_u + 1)(n_w + 1) nodes, 2 n_u n_w right triangles;
///   `right` splits every cell along the same diagonal (from its corner of smallest x and y to
///   the opposite one, for either row direction), `right_alternating` alternates the diagonal
///   in a checkerboard (cell (i, j) with i + j even as `right`), which is symmetric about the
///   rectangle's mid-lines when n_u and n_w are even.
/// - Nodes are numbered row by row (increasing w), increasing u within a row.
/// \throws std::invalid_argument for non-positive sizes or edge length, an edge length above the
/// longer side, or more than kMaxTrianglesPerElement triangles or kMaxNodesPerElement nodes
/// (soma/input_limits.hpp; computed before anything is generated).
TriangleMesh rectangle_mesh(const Vec3& origin, double length_x, double length_y, double edge_length,
                            RowDirection rows = RowDirection::x,
                            RectanglePattern pattern = RectanglePattern::equilateral);

/// \brief A regular polygon of `sides` corners on a circle of radius R about `center`, in the
/// plane z = center.z, first corner at center + (R, 0, 0), counter-clockwise (normals +z).
///
/// Each of the `sides` sectors (center, corner k, corner k+1) is subdivided uniformly into n^2
/// triangles with n = max(1, round(R / a)); nodes on shared sector sides are merged. For a
/// hexagon the sectors are equilateral and so are all triangles (side R/n): 3n^2 + 3n + 1 nodes
/// and 6n^2 triangles. For other polygons the triangles are similar to the sector triangle, with
/// angles 360/sides and 90 - 180/sides degrees (near-equilateral only for 5 to 7 sides).
/// \throws std::invalid_argument for sides < 3, non-positive sizes, an edge length above the
/// diameter 2R, or more than kMaxTrianglesPerElement triangles or kMaxNodesPerElement nodes
/// (soma/input_limits.hpp; computed before anything is generated).
TriangleMesh regular_polygon_mesh(const Vec3& center, double circumradius, int sides, double edge_length);

}  // namespace soma::shells
