// Mesh input (mesh_input.hpp): OBJ and MAT-DiSMech text readers with their error messages, and
// the generated rectangle and regular polygon meshes.
#include "mesh_input.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <sstream>

using namespace soma;
using namespace soma::shells;

namespace {

TriangleMesh obj(const std::string& text) {
    std::istringstream in(text);
    return parse_obj(in, "test.obj");
}

TriangleMesh geometry_text(const std::string& text) {
    std::istringstream in(text);
    return parse_text_geometry(in, "mesh.txt");
}

/// Smallest interior angle (degrees) over all triangles.
double min_angle_degrees(const TriangleMesh& m) {
    double smallest = 180.0;
    for (const auto& t : m.triangles)
        for (int k = 0; k < 3; ++k) {
            const Vec3& a = m.positions[t[k]];
            const Vec3 u = m.positions[t[(k + 1) % 3]] - a, v = m.positions[t[(k + 2) % 3]] - a;
            smallest = std::min(smallest, std::atan2(u.cross(v).norm(), u.dot(v)) * 180.0 / std::numbers::pi);
        }
    return smallest;
}

/// True when every triangle's normal points to +z.
bool normals_up(const TriangleMesh& m) {
    for (const auto& t : m.triangles) {
        const Vec3 n = (m.positions[t[1]] - m.positions[t[0]]).cross(m.positions[t[2]] - m.positions[t[0]]);
        if (!(n.z() > 0.0)) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("OBJ reader: vertices, faces, fan triangulation, negative indices", "[mesh][input]") {
    const TriangleMesh m = obj(
        "# a unit square as one quad and a triangle with relative indices\n"
        "mtllib x.mtl\n"
        "o sheet\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0   # comment\n"
        "vt 0 0\nvn 0 0 1\n"
        "f 1/1/1 2/1/1 3//1 4\n"
        "v 2 0 0\n"
        "f -4 -1 -3\n");
    REQUIRE(m.positions.size() == 5);
    REQUIRE(m.triangles.size() == 3);
    CHECK(m.triangles[0] == std::array<Index, 3>{0, 1, 2});
    CHECK(m.triangles[1] == std::array<Index, 3>{0, 2, 3});
    CHECK(m.triangles[2] == std::array<Index, 3>{1, 4, 2});
    CHECK(m.positions[4] == Vec3(2, 0, 0));
    CHECK_NOTHROW(build_topology(m));
}

TEST_CASE("OBJ reader: errors name the file and line", "[mesh][input]") {
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 1 0\n"), Catch::StartsWith("test.obj:2: a vertex needs 3 coordinates"));
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 1 0 x\n"), Catch::StartsWith("test.obj:2: 'x' is not a finite number"));
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n"),
                      Catch::StartsWith("test.obj:5: vertex index 4 is out of range"));
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 1 0 0\nf 1 2\n"), Catch::StartsWith("test.obj:3: a face needs at least 3"));
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), Catch::StartsWith("test.obj:4: '0' is not a vertex index"));
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 1 0 0\nl 1 2\n"), Catch::StartsWith("test.obj:3: 'l'") && Catch::Contains("discrete_rod"));
    CHECK_THROWS_WITH(obj("v 0 0 0\n"), Catch::StartsWith("test.obj:0: no faces"));
    // A non-convex quad: its fan from corner 1 folds over itself (one triangle faces -z).
    CHECK_THROWS_WITH(obj("v 0 0 0\nv 2 0 0\nv 1 0.2 0\nv 1 2 0\nf 1 3 2 4\n"),
                      Catch::StartsWith("test.obj:5: the face is not convex"));
}

TEST_CASE("text geometry reader: *Nodes / *Edges / *Triangles", "[mesh][input]") {
    const TriangleMesh m = geometry_text(
        "*Nodes\n0, 0, 0\n1.0,0,0\n1 1 0\n0.0, 1.0, 0.0\n\n*Edges\n*Triangles\n1, 2, 3\n1,3,4.0\n");
    REQUIRE(m.positions.size() == 4);
    REQUIRE(m.triangles.size() == 2);
    CHECK(m.triangles[1] == std::array<Index, 3>{0, 2, 3});

    CHECK_THROWS_WITH(geometry_text("*Nodes\n0,0,0\n1,0,0\n0,1,0\n*Edges\n1,2\n*Triangles\n1,2,3\n"),
                      Catch::StartsWith("mesh.txt:6: rod edge in a shell mesh") && Catch::Contains("shared nodes"));
    CHECK_THROWS_WITH(geometry_text("*Nodes\n0,0,0\n1,0\n"), Catch::StartsWith("mesh.txt:3: a node needs 3 coordinates"));
    CHECK_THROWS_WITH(geometry_text("*Nodes\n0,0,0\n1,0,0\n0,1,0\n*Triangles\n1,2,4\n"),
                      Catch::StartsWith("mesh.txt:6: node index 4 is out of range 1..3"));
    CHECK_THROWS_WITH(geometry_text("0,0,0\n"), Catch::StartsWith("mesh.txt:1: data before the first section"));
    CHECK_THROWS_WITH(geometry_text("*Nodes\n0,0,0\n*Faces\n"), Catch::StartsWith("mesh.txt:3: unknown section"));
    CHECK_THROWS_WITH(geometry_text("*Nodes\n0,0,0\n1,0,0\n0,1,0\n*Triangles\n1,2,x\n"),
                      Catch::StartsWith("mesh.txt:6: 'x' is not a node index"));
}

TEST_CASE("mesh files: format by extension, missing file", "[mesh][input]") {
    CHECK(mesh_format_from_extension("a/b/canopy.OBJ") == MeshFileFormat::obj);
    CHECK(mesh_format_from_extension("plate.txt") == MeshFileFormat::text);
    CHECK_THROWS_WITH(read_mesh_file("/nonexistent/mesh.obj", MeshFileFormat::obj),
                      Catch::Contains("/nonexistent/mesh.obj:0: cannot open"));
    const std::string path = "shells_test_mesh.obj";
    {
        std::ofstream f(path);
        f << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    }
    CHECK(read_mesh_file(path, MeshFileFormat::obj).triangles.size() == 1);
    std::remove(path.c_str());
}

TEST_CASE("generated rectangle: the reference code's equilateral plate mesh", "[mesh][generate]") {
    // digest 000 §7.5: 5 mm equilateral triangles, length 0.1, width 0.021651 (5 row spacings).
    const TriangleMesh m = rectangle_mesh(Vec3(0, 0, 0), 0.1, 0.021651, 0.005);
    CHECK(m.positions.size() == 123);  // 3 rows of 21 + 3 offset rows of 20, as the reference mesh
    CHECK(m.triangles.size() == 5 * 39);
    const MeshTopology t = build_topology(m);
    const double du = 0.005, dw = 0.021651 / 5.0;
    CHECK(total_area(t) == Approx(195 * du * dw / 2.0).epsilon(1e-12));
    CHECK(min_angle_degrees(m) > 59.99);  // equilateral to 1e-4 in the width
    CHECK(normals_up(m));
    double xmax = 0.0, ymax = 0.0;
    for (const Vec3& x : m.positions) {
        xmax = std::max(xmax, x.x());
        ymax = std::max(ymax, x.y());
    }
    CHECK(xmax == Approx(0.1));
    CHECK(ymax == Approx(0.021651));
}

TEST_CASE("generated rectangle: rows along y, stretched spacings, offset origin", "[mesh][generate]") {
    const Vec3 origin(1.0, -2.0, 0.5);
    const TriangleMesh m = rectangle_mesh(origin, 0.3, 0.5, 0.045, RowDirection::y);
    // Rows along y: n_u = round(0.5/0.045) = 11 edges per row, n_w = round(0.3/0.03897) = 8.
    CHECK(m.positions.size() == 5 * 12 + 4 * 11);
    CHECK(m.triangles.size() == 8 * 21);
    CHECK(normals_up(m));
    CHECK(min_angle_degrees(m) > 50.0);
    const MeshTopology t = build_topology(m);
    CHECK(total_area(t) == Approx(8 * 21 * (0.5 / 11) * (0.3 / 8) / 2.0).epsilon(1e-12));
    for (const Vec3& x : m.positions) {
        CHECK(x.z() == 0.5);
        CHECK(x.x() >= origin.x() - 1e-15);
        CHECK(x.y() <= origin.y() + 0.5 + 1e-15);
    }
    CHECK_THROWS_AS(rectangle_mesh(origin, 0.0, 1.0, 0.1), std::invalid_argument);
}

TEST_CASE("generated regular polygon: equilateral hexagon, other polygons", "[mesh][generate]") {
    const Vec3 c(0.1, 0.2, 3.0);
    const TriangleMesh hex = regular_polygon_mesh(c, 1.0, 6, 0.25);  // n = 4
    CHECK(hex.positions.size() == 3 * 16 + 3 * 4 + 1);
    CHECK(hex.triangles.size() == 6 * 16);
    CHECK(min_angle_degrees(hex) > 59.9999);
    CHECK(normals_up(hex));
    const MeshTopology t = build_topology(hex);
    CHECK(total_area(t) == Approx(1.5 * std::sqrt(3.0)).epsilon(1e-12));  // 3 sqrt(3)/2 R^2 (digest §7.3: 2.598 m^2)
    for (double l : t.edge_lengths) CHECK(l == Approx(0.25).epsilon(1e-12));

    const TriangleMesh pent = regular_polygon_mesh(c, 0.5, 5, 0.1);
    CHECK(pent.triangles.size() == 5 * 25);
    CHECK(min_angle_degrees(pent) > 50.0);  // angles 72, 54, 54
    const MeshTopology tp = build_topology(pent);
    CHECK(total_area(tp) == Approx(2.5 * 0.25 * std::sin(2.0 * std::numbers::pi / 5)).epsilon(1e-12));
    CHECK_THROWS_AS(regular_polygon_mesh(c, 1.0, 2, 0.1), std::invalid_argument);
}
