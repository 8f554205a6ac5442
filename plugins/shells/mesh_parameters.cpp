// The `mesh` block of the shell schemas: file (OBJ / text), rectangle, regular_polygon.
#include "mesh_parameters.hpp"

#include "mesh_input.hpp"

#include "soma/rigid_transform.hpp"

#include <stdexcept>

namespace soma::shells {
namespace {

ParameterSchema mesh_file_schema() {
    ParameterSchema s("file", "A triangle mesh read from a file.");
    s.string("path", "file path, relative to the scene file's folder").require();
    s.string("format",
             "obj: Wavefront OBJ (v and f lines; 1-based or negative indices; polygons with more than 3 "
             "corners are fan-triangulated from their first corner; l/p lines are refused). text: the "
             "MAT-DiSMech geometry format, sections *Nodes (x,y,z), *Edges (must be empty for a shell: "
             "rods are separate elements joined by shared nodes) and *Triangles (i,j,k, 1-based). "
             "Default: obj for a .obj file name, text otherwise")
        .one_of_strings({"obj", "text"});
    add_transform_parameter(s);
    return s;
}

ParameterSchema mesh_rectangle_schema() {
    ParameterSchema s("rectangle",
                      "The rectangle [origin, origin + size] in the plane z = origin.z, meshed with straight "
                      "sides: nodes on all four sides, corners included, triangles covering it exactly "
                      "(normals +z). Nodes are numbered row by row, increasing along the rows.");
    s.vec3("origin", "corner with the smallest x and y").unit("m").fallback(soma::Vec3(0.0, 0.0, 0.0));
    s.real_list("size", "[Lx, Ly]").unit("m").exact_size(2).require().positive();
    s.real("edge_length", "target triangle edge length a").unit("m").require().positive();
    s.string("pattern",
             "equilateral: rows of near-equilateral triangles (n_u = round(L_row/a) edges per row, n_w = "
             "round(L_across/(a sqrt(3)/2)) row spacings, stretched to fit the size); every other row is offset "
             "by half an edge and closed at both ends by an extra node on the side, so each band of triangles "
             "ends in two right half-triangles (angles 90/60/30). The hinge shell's bending stiffness is "
             "calibrated on equilateral triangles. right: a structured grid of round(Lx/a) x round(Ly/a) cells, "
             "each split into two right triangles along the diagonal from its corner of smallest x and y. "
             "right_alternating: the same grid with the diagonals alternating cell by cell (checkerboard)")
        .fallback(std::string("equilateral"))
        .one_of_strings({"equilateral", "right", "right_alternating"});
    s.string("rows", "direction of the rows of nodes (and of the node numbering): x or y")
        .fallback(std::string("x"))
        .one_of_strings({"x", "y"});
    add_transform_parameter(s);
    return s;
}

ParameterSchema mesh_polygon_schema() {
    ParameterSchema s("regular_polygon",
                      "A regular polygon in the plane z = center.z (first corner at center + (R, 0, 0), "
                      "counter-clockwise, normals +z). Each sector (center, two corners) is subdivided into "
                      "n^2 similar triangles, n = round(R/edge_length): all equilateral for a hexagon "
                      "(3n^2+3n+1 nodes, 6n^2 triangles).");
    s.vec3("center", "center of the polygon").unit("m").fallback(soma::Vec3(0.0, 0.0, 0.0));
    s.real("circumradius", "distance R from the center to a corner (a hexagon's side length)").unit("m").require().positive();
    s.integer("sides", "number of sides").fallback(6L).range(3, 4096);
    s.real("edge_length", "target triangle edge length").unit("m").require().positive();
    add_transform_parameter(s);
    return s;
}

}  // namespace

void add_mesh_parameter(ParameterSchema& schema, const std::string& key) {
    schema.one_of(key, "the triangle mesh (its initial shape is the natural, stress-free shape)",
                  {mesh_file_schema(), mesh_rectangle_schema(), mesh_polygon_schema()})
        .require();
}

TriangleMesh mesh_from_parameters(const Parameters& p, const std::string& key) {
    const std::string kind = p.choice(key);
    const Parameters m = p.choice_block(key);
    TriangleMesh mesh;
    try {
        if (kind == "file") {
            const std::string path = m.path("path");
            const MeshFileFormat format = m.has("format")
                                              ? (m.string("format") == "obj" ? MeshFileFormat::obj : MeshFileFormat::text)
                                              : mesh_format_from_extension(path);
            mesh = read_mesh_file(path, format);
        } else if (kind == "rectangle") {
            const std::vector<double> size = m.real_list("size");
            const std::string pattern = m.string("pattern");
            mesh = rectangle_mesh(m.vec3("origin"), size[0], size[1], m.real("edge_length"),
                                  m.string("rows") == "y" ? RowDirection::y : RowDirection::x,
                                  pattern == "right"               ? RectanglePattern::right
                                  : pattern == "right_alternating" ? RectanglePattern::right_alternating
                                                                   : RectanglePattern::equilateral);
        } else if (kind == "regular_polygon") {
            mesh = regular_polygon_mesh(m.vec3("center"), m.real("circumradius"), static_cast<int>(m.integer("sides")),
                                        m.real("edge_length"));
        } else {
            p.fail(key, "unknown mesh kind '" + kind + "'");
        }
        // The transform moves the initial (natural) shape; a rotation keeps the orientation.
        const RigidTransform transform = transform_from(m);
        for (Vec3& x : mesh.positions) x = transform.apply(x);
        build_topology(mesh);  // validate here, so the error points at the mesh block
    } catch (const MeshInputError& error) {
        m.fail("path", error.what());
    } catch (const MeshError& error) {
        m.fail(kind == "file" ? "path" : "edge_length", std::string("invalid mesh: ") + error.what());
    } catch (const std::invalid_argument& error) {
        m.fail(kind == "file" ? "path" : "edge_length", error.what());
    }
    return mesh;
}

}  // namespace soma::shells
