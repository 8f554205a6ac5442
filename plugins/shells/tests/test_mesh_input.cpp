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
    // Found by fuzz_text_mesh (fuzz/regressions/text_mesh/index_beyond_long): a real index too
    // large for a long was converted anyway (undefined behaviour).
    CHECK_THROWS_WITH(geometry_text("*Nodes\n0,0,0\n1,0,0\n0,1,0\n*Triangles\n1,2,1e300\n"),
                      Catch::StartsWith("mesh.txt:6: '1e300' is not a node index"));
}

TEST_CASE("mesh files: format by extension, missing file", "[mesh][input]") {
    CHECK(mesh_format_from_extension("a/b/canopy.OBJ") == MeshFileFormat::obj);
    CHECK(mesh_format_from_extension("plate.txt") == MeshFileFormat::text);
    CHECK_THROWS_WITH(read_mesh_file("/nonexistent/mesh.obj", MeshFileFormat::obj),
                      Catch::Contains("/nonexistent/mesh.obj:0: mesh file not found"));
    const std::string path = "shells_test_mesh.obj";
    {
        std::ofstream f(path);
        f << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    }
    CHECK(read_mesh_file(path, MeshFileFormat::obj).triangles.size() == 1);
    std::remove(path.c_str());
}

namespace {

/// Checks that `m` meshes exactly the rectangle [origin, origin + (lx, ly)] with straight sides:
/// every node inside it and in its plane, every boundary edge (one adjacent triangle) on one of
/// the four side lines, the boundary's total length the perimeter 2 (lx + ly) (so no side has a
/// gap or a zigzag), all four corners are nodes, and the areas sum to lx ly.
void check_straight_rectangle(const TriangleMesh& m, const Vec3& origin, double lx, double ly) {
    const double tol = 1e-12 * std::max(lx, ly);
    auto on_side = [&](const Vec3& x) {
        return std::abs(x.x() - origin.x()) <= tol || std::abs(x.x() - origin.x() - lx) <= tol ||
               std::abs(x.y() - origin.y()) <= tol || std::abs(x.y() - origin.y() - ly) <= tol;
    };
    for (const Vec3& x : m.positions) {
        CHECK(x.z() == origin.z());
        CHECK(x.x() >= origin.x() - tol);
        CHECK(x.x() <= origin.x() + lx + tol);
        CHECK(x.y() >= origin.y() - tol);
        CHECK(x.y() <= origin.y() + ly + tol);
    }
    const MeshTopology t = build_topology(m);
    double boundary_length = 0.0;
    for (std::size_t e = 0; e < t.edges.size(); ++e) {
        if (t.edges[e].face_count != 1) continue;
        const Vec3& a = m.positions[static_cast<std::size_t>(t.edges[e].nodes[0])];
        const Vec3& b = m.positions[static_cast<std::size_t>(t.edges[e].nodes[1])];
        INFO("boundary edge " << e << " from " << a.transpose() << " to " << b.transpose());
        CHECK(on_side(a));
        CHECK(on_side(b));
        // Both ends on the SAME side: the edge runs along it (not across a corner).
        CHECK((std::abs(a.x() - b.x()) <= tol || std::abs(a.y() - b.y()) <= tol));
        boundary_length += t.edge_lengths[e];
    }
    CHECK(boundary_length == Approx(2.0 * (lx + ly)).epsilon(1e-12));
    for (const Vec3& corner : {origin, Vec3(origin + Vec3(lx, 0, 0)), Vec3(origin + Vec3(0, ly, 0)),
                               Vec3(origin + Vec3(lx, ly, 0))}) {
        const bool found = std::any_of(m.positions.begin(), m.positions.end(),
                                       [&](const Vec3& x) { return (x - corner).norm() <= tol; });
        INFO("corner " << corner.transpose());
        CHECK(found);
    }
    CHECK(total_area(t) == Approx(lx * ly).epsilon(1e-12));
    CHECK(normals_up(m));
}

}  // namespace

TEST_CASE("generated rectangle: straight sides on the reference code's plate", "[mesh][generate]") {
    // MAT-DiSMech §7.2, Fig. 8's plate: 5 mm edges, length 0.1, width 0.021651 (5 row spacings). The
    // reference code's own mesh (123 nodes) has zigzag ends; closing the 3 odd rows adds 2 nodes
    // each and the 5 bands 2 half-triangles each.
    const double lx = 0.1, ly = 0.021651;
    const TriangleMesh m = rectangle_mesh(Vec3(0, 0, 0), lx, ly, 0.005);
    CHECK(m.positions.size() == 3 * 21 + 3 * 22);
    CHECK(m.triangles.size() == 5 * (2 * 20 + 1));
    check_straight_rectangle(m, Vec3(0, 0, 0), lx, ly);
    // Interior triangles equilateral to 1e-4 in the width; the half-triangles 90/60/30.
    CHECK(min_angle_degrees(m) > 29.99);
    int half_triangles = 0, equilateral = 0;
    for (const auto& tri : m.triangles) {
        const Vec3 &a = m.positions[tri[0]], &b = m.positions[tri[1]], &c = m.positions[tri[2]];
        const double area = triangle_area(a, b, c);
        if (area == Approx(0.005 * (ly / 5) / 2.0).epsilon(1e-9)) ++equilateral;
        else if (area == Approx(0.0025 * (ly / 5) / 2.0).epsilon(1e-9)) ++half_triangles;
    }
    CHECK(half_triangles == 5 * 2);
    CHECK(equilateral == 5 * 39);
    // Numbering: row by row, increasing x; row 1 starts with its end node on the side x = 0.
    CHECK(m.positions[20].isApprox(Vec3(0.1, 0, 0)));
    CHECK(m.positions[21].isApprox(Vec3(0, ly / 5, 0)));
    CHECK(m.positions[22].isApprox(Vec3(0.0025, ly / 5, 0)));
    CHECK(m.positions[42].isApprox(Vec3(0.1, ly / 5, 0)));
}

TEST_CASE("generated rectangle: rows along y, stretched spacings, offset origin", "[mesh][generate]") {
    const Vec3 origin(1.0, -2.0, 0.5);
    const TriangleMesh m = rectangle_mesh(origin, 0.3, 0.5, 0.045, RowDirection::y);
    // Rows along y: n_u = round(0.5/0.045) = 11 edges per row, n_w = round(0.3/0.03897) = 8.
    CHECK(m.positions.size() == 5 * 12 + 4 * 13);
    CHECK(m.triangles.size() == 8 * 23);
    check_straight_rectangle(m, origin, 0.3, 0.5);
    CHECK(min_angle_degrees(m) > 31.0);  // half-triangles' smallest angle: atan((du/2)/dw) = atan(0.0227/0.0375) = 31.2
    // Rows run along y: consecutive nodes of row 0 step in y at x = origin.x.
    CHECK(m.positions[1].isApprox(origin + Vec3(0, 0.5 / 11, 0)));
    CHECK_THROWS_AS(rectangle_mesh(origin, 0.0, 1.0, 0.1), std::invalid_argument);
    CHECK_THROWS_AS(rectangle_mesh(origin, 1.0, 1.0, -0.1), std::invalid_argument);
}

TEST_CASE("generated rectangle: a single row band and a single edge per row", "[mesh][generate]") {
    // n_u = n_w = 1: one even row (2 nodes), one closed odd row (3 nodes), 3 triangles.
    const TriangleMesh m = rectangle_mesh(Vec3(0, 0, 0), 0.1, 0.08, 0.1);
    CHECK(m.positions.size() == 5);
    CHECK(m.triangles.size() == 3);
    check_straight_rectangle(m, Vec3(0, 0, 0), 0.1, 0.08);
}

TEST_CASE("generated rectangle: right-triangle grids", "[mesh][generate]") {
    const Vec3 origin(-0.5, 0.25, 2.0);
    const double lx = 0.4, ly = 0.3, a = 0.05;  // 8 x 6 square cells
    for (RectanglePattern pattern : {RectanglePattern::right, RectanglePattern::right_alternating})
        for (RowDirection rows : {RowDirection::x, RowDirection::y}) {
            INFO("pattern " << static_cast<int>(pattern) << ", rows " << static_cast<int>(rows));
            const TriangleMesh m = rectangle_mesh(origin, lx, ly, a, rows, pattern);
            CHECK(m.positions.size() == 9 * 7);
            CHECK(m.triangles.size() == 2 * 8 * 6);
            check_straight_rectangle(m, origin, lx, ly);
            CHECK(min_angle_degrees(m) == Approx(45.0).epsilon(1e-9));  // isosceles right triangles
            const MeshTopology t = build_topology(m);
            // Edges: horizontal 8*7 + vertical 9*6 + one diagonal per cell 48.
            CHECK(t.edges.size() == 8 * 7 + 9 * 6 + 48);
            // Node 1 is the next node along the rows.
            const Vec3 step = rows == RowDirection::x ? Vec3(a, 0, 0) : Vec3(0, a, 0);
            CHECK(m.positions[1].isApprox(origin + step));
            // The diagonal of the cell at the origin runs from (0, 0) to (a, a) in both patterns.
            const bool has_diagonal = std::any_of(t.edges.begin(), t.edges.end(), [&](const MeshEdge& e) {
                const Vec3 d = m.positions[static_cast<std::size_t>(e.nodes[0])] - origin;
                const Vec3 f = m.positions[static_cast<std::size_t>(e.nodes[1])] - origin;
                return (d.norm() < 1e-12 && f.isApprox(Vec3(a, a, 0))) || (f.norm() < 1e-12 && d.isApprox(Vec3(a, a, 0)));
            });
            CHECK(has_diagonal);
            // Interior node (2a, 2a): 6 neighbours with one diagonal direction; 8 with alternating
            // diagonals (all four cells around it have their diagonal at it, i + j even there).
            std::vector<int> degree(m.positions.size(), 0);
            for (const MeshEdge& e : t.edges) {
                ++degree[static_cast<std::size_t>(e.nodes[0])];
                ++degree[static_cast<std::size_t>(e.nodes[1])];
            }
            std::size_t center = m.positions.size();
            for (std::size_t i = 0; i < m.positions.size(); ++i)
                if ((m.positions[i] - origin - Vec3(2 * a, 2 * a, 0)).norm() < 1e-12) center = i;
            REQUIRE(center < m.positions.size());
            CHECK(degree[center] == (pattern == RectanglePattern::right ? 6 : 8));
        }
    // Stretched cells: round(0.37/0.1) = 4 by round(0.12/0.1) = 1.
    const TriangleMesh s = rectangle_mesh(Vec3::Zero(), 0.37, 0.12, 0.1, RowDirection::x, RectanglePattern::right);
    CHECK(s.positions.size() == 5 * 2);
    check_straight_rectangle(s, Vec3::Zero(), 0.37, 0.12);
}

TEST_CASE("generated regular polygon: equilateral hexagon, other polygons", "[mesh][generate]") {
    const Vec3 c(0.1, 0.2, 3.0);
    const TriangleMesh hex = regular_polygon_mesh(c, 1.0, 6, 0.25);  // n = 4
    CHECK(hex.positions.size() == 3 * 16 + 3 * 4 + 1);
    CHECK(hex.triangles.size() == 6 * 16);
    CHECK(min_angle_degrees(hex) > 59.9999);
    CHECK(normals_up(hex));
    const MeshTopology t = build_topology(hex);
    CHECK(total_area(t) == Approx(1.5 * std::sqrt(3.0)).epsilon(1e-12));  // 3 sqrt(3)/2 R^2 (MAT-DiSMech Fig. 6: 2.598 m^2)
    for (double l : t.edge_lengths) CHECK(l == Approx(0.25).epsilon(1e-12));

    const TriangleMesh pent = regular_polygon_mesh(c, 0.5, 5, 0.1);
    CHECK(pent.triangles.size() == 5 * 25);
    CHECK(min_angle_degrees(pent) > 50.0);  // angles 72, 54, 54
    const MeshTopology tp = build_topology(pent);
    CHECK(total_area(tp) == Approx(2.5 * 0.25 * std::sin(2.0 * std::numbers::pi / 5)).epsilon(1e-12));
    CHECK_THROWS_AS(regular_polygon_mesh(c, 1.0, 2, 0.1), std::invalid_argument);
}

TEST_CASE("mesh files beyond the maximum size per element are refused at the line beyond it", "[mesh][input][limits]") {
    std::istringstream nodes("*Nodes\n0,0,0\n1,0,0\n0,1,0\n1,1,0\n*Triangles\n1,2,3\n");
    CHECK_THROWS_WITH(parse_text_geometry(nodes, "mesh.txt", 3, 10),
                      "mesh.txt:5: more than 3 nodes, the maximum per element (docs/reliability.md, Input limits): use a "
                      "coarser mesh");
    std::istringstream triangles("*Nodes\n0,0,0\n1,0,0\n0,1,0\n1,1,0\n*Triangles\n1,2,3\n2,4,3\n");
    CHECK_THROWS_WITH(parse_text_geometry(triangles, "mesh.txt", 10, 1),
                      "mesh.txt:8: more than 1 triangles, the maximum per element (docs/reliability.md, Input limits): "
                      "use a coarser mesh");
    std::istringstream obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 4 3\n");
    CHECK_THROWS_WITH(parse_obj_triangles(obj, "quad.obj", "", 10, 1),  // the quad is two triangles
                      "quad.obj:5: more than 1 triangles, the maximum per element (docs/reliability.md, Input limits): "
                      "use a coarser mesh");
    std::istringstream vertices("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    CHECK_THROWS_WITH(parse_obj_triangles(vertices, "tri.obj", "", 2, 10),
                      "tri.obj:3: more than 2 vertices, the maximum per element (docs/reliability.md, Input limits): "
                      "use a coarser mesh");
}

TEST_CASE("generated meshes are sized before they are generated", "[mesh][input][limits]") {
    // Issue 8 item 2: R/a = 1e10 overflowed n^2 sides in a long; now counted in double.
    CHECK_THROWS_WITH(regular_polygon_mesh(Vec3::Zero(), 0.5, 4, 5.0e-11),
                      Catch::StartsWith("asks for 4e+20 triangles, above the maximum of 8000000 triangles per element"));
    CHECK_THROWS_WITH(rectangle_mesh(Vec3::Zero(), 1.0, 1.0, 1.0e-12),
                      Catch::StartsWith("asks for 2.31e+24 triangles, above the maximum of 8000000 triangles"));
    CHECK_THROWS_WITH(rectangle_mesh(Vec3::Zero(), 0.1, 0.05, 0.11),
                      Catch::StartsWith("edge_length 0.11 is larger than the plate (0.1 x 0.05)"));
    // At the longer side itself: one cell along it, refused only above.
    CHECK(rectangle_mesh(Vec3::Zero(), 0.1, 0.05, 0.1, RowDirection::x, RectanglePattern::right).triangles.size() == 2);
}
