// Mesh shapes: exact polyhedral mass properties (rigid_shape.hpp, polyhedron_mass_properties)
// against the analytic box and corner tetrahedron, the closed-mesh checks, and the shared OBJ
// reader (soma/obj_mesh.hpp) on a cube file.
#include "../rigid_shape.hpp"

#include "soma/obj_mesh.hpp"
#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace soma;
using namespace soma::rigid_body;

namespace {

using Triangles = std::vector<std::array<Index, 3>>;

/// The box's 8 corners and 12 outward triangles (shape_surface, tested there to enclose the box).
ShapeSurface box_surface(const Vec3& size) {
    RigidShape box;
    box.kind = ShapeKind::box;
    box.size = size;
    return shape_surface(box);
}

/// The corner tetrahedron (0, a e_x, b e_y, c e_z), triangles outward.
std::vector<Vec3> corner_tetrahedron(double a, double b, double c) {
    return {Vec3::Zero(), Vec3(a, 0, 0), Vec3(0, b, 0), Vec3(0, 0, c)};
}
const Triangles kTetrahedronTriangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

}  // namespace

TEST_CASE("mesh shapes: a box mesh has the box's mass properties, anywhere and in any pose", "[rigid_shape][mesh]") {
    const Vec3 size(0.1, 0.2, 0.4);
    const ShapeSurface surface = box_surface(size);
    // Moved far from the origin and rotated, so that the tetrahedra from the origin have both
    // signs and the parallel-axis step matters.
    const Quaternion turn = rotation_exp(Vec3(0.3, -0.7, 1.1));
    const Vec3 offset(1.0, -2.0, 3.0);
    std::vector<Vec3> vertices;
    for (const Vec3& x : surface.points) vertices.push_back(offset + turn * x);
    const MassProperties p = polyhedron_mass_properties(vertices, surface.triangles, 1000.0);

    RigidShape box;
    box.kind = ShapeKind::box;
    box.size = size;
    const MassProperties expected = uniform_mass_properties(box, 1000.0);
    const Mat3 R = turn.toRotationMatrix();
    const Mat3 expected_inertia = R * expected.inertia * R.transpose();
    // Both are exact: the differences are round-off of sums of O(10) terms of size |offset|^2 m.
    CHECK(p.mass == Approx(expected.mass).epsilon(1e-12));
    CHECK((p.center_of_mass - offset).norm() < 1e-12);
    CHECK((p.inertia - expected_inertia).norm() < 1e-10 * expected_inertia.norm());
    CHECK_NOTHROW(check_closed_mesh(vertices, surface.triangles));
}

TEST_CASE("mesh shapes: a corner tetrahedron matches its integrals", "[rigid_shape][mesh]") {
    // By direct integration over 0 <= x/a + y/b + z/c <= 1: V = abc/6, centroid (a, b, c)/4,
    // integral x^2 dV = V a^2/10 and integral x y dV = V a b/20, so about the centroid
    // C_xx = V a^2 (1/10 - 1/16) = 3 V a^2/80 and C_xy = V a b (1/20 - 1/16) = -V a b/80:
    // I_xx = 3 m (b^2 + c^2)/80 and I_xy = -C_xy rho = m a b/80.
    const double a = 0.3, b = 0.5, c = 0.7, density = 2.0;
    const MassProperties p = polyhedron_mass_properties(corner_tetrahedron(a, b, c), kTetrahedronTriangles, density);
    const double m = density * a * b * c / 6.0;
    CHECK(p.mass == Approx(m).epsilon(1e-14));
    CHECK((p.center_of_mass - Vec3(a, b, c) / 4.0).norm() < 1e-15);
    Mat3 expected;
    expected << 3 * m * (b * b + c * c) / 80, m * a * b / 80, m * a * c / 80,  //
        m * a * b / 80, 3 * m * (a * a + c * c) / 80, m * b * c / 80,         //
        m * a * c / 80, m * b * c / 80, 3 * m * (a * a + b * b) / 80;
    CHECK((p.inertia - expected).norm() < 1e-14 * expected.norm() * 10);
    CHECK_NOTHROW(check_mass_properties(p));

    // As a shape: the points are the vertices (radius 0) placed at the centre, triangles drawn.
    RigidShape shape;
    shape.kind = ShapeKind::mesh;
    shape.vertices = corner_tetrahedron(a, b, c);
    shape.triangles = kTetrahedronTriangles;
    shape.center = Vec3(0, 0, 1);
    CHECK(shape_volume(shape) == Approx(a * b * c / 6.0).epsilon(1e-14));
    const MassProperties moved = uniform_mass_properties(shape, density);
    CHECK((moved.center_of_mass - (Vec3(a, b, c) / 4.0 + shape.center)).norm() < 1e-15);
    const ShapeSurface surface = shape_surface(shape);
    REQUIRE(surface.points.size() == 4);
    CHECK(surface.points[3] == Vec3(0, 0, c + 1));
    CHECK(surface.radii == std::vector<double>(4, 0.0));
    CHECK(surface.triangles == kTetrahedronTriangles);
}

TEST_CASE("mesh shapes: open, inconsistently oriented, inside-out and tiny meshes are refused", "[rigid_shape][mesh]") {
    const auto vertices = corner_tetrahedron(1, 1, 1);
    Triangles open = kTetrahedronTriangles;
    open.pop_back();
    CHECK_THROWS_WITH(check_closed_mesh(vertices, open), Catch::Contains("has only one triangle") && Catch::Contains("not closed"));
    Triangles flipped = kTetrahedronTriangles;
    std::swap(flipped[3][1], flipped[3][2]);  // one face reversed
    CHECK_THROWS_WITH(check_closed_mesh(vertices, flipped), Catch::Contains("same direction") &&
                                                                Catch::Contains("not consistently oriented"));
    Triangles inside_out;
    for (const auto& t : kTetrahedronTriangles) inside_out.push_back({t[0], t[2], t[1]});
    CHECK_THROWS_WITH(check_closed_mesh(vertices, inside_out), Catch::Contains("signed volume is -0.16") &&
                                                                   Catch::Contains("normals outwards"));
    CHECK_THROWS_WITH(check_closed_mesh({vertices[0], vertices[1], vertices[2]}, {{0, 1, 2}, {0, 2, 1}}),
                      Catch::Contains("at least 4 vertices, this one has 3"));
    Triangles repeated = kTetrahedronTriangles;
    repeated[0] = {0, 0, 1};
    CHECK_THROWS_WITH(check_closed_mesh(vertices, repeated), Catch::Contains("triangle 1 repeats a vertex"));
}

TEST_CASE("mesh shapes: a cube read from OBJ quads bounds the unit cube", "[rigid_shape][mesh]") {
    std::istringstream cube(
        "# unit cube, quads counter-clockwise seen from outside\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
        "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n");
    const ObjTriangles mesh = parse_obj_triangles(cube, "cube.obj");
    REQUIRE(mesh.triangles.size() == 12);
    CHECK_NOTHROW(check_closed_mesh(mesh.positions, mesh.triangles));
    const MassProperties p = polyhedron_mass_properties(mesh.positions, mesh.triangles, 1.0);
    CHECK(p.mass == Approx(1.0).epsilon(1e-14));
    CHECK((p.center_of_mass - Vec3::Constant(0.5)).norm() < 1e-15);
    // Unit cube: I = m (1 + 1)/12 = 1/6 about each axis, no products.
    CHECK((p.inertia - Mat3::Identity() / 6.0).norm() < 1e-14);

    std::istringstream with_line("v 0 0 0\nv 1 0 0\nl 1 2\n");
    CHECK_THROWS_WITH(parse_obj_triangles(with_line, "x.obj", "use a triangle mesh"),
                      Catch::Equals("x.obj:3: 'l' (polyline/point) statements are not part of a triangle surface: "
                                    "use a triangle mesh"));
    CHECK_THROWS_WITH(read_obj_triangles("/nonexistent/body.obj"), Catch::Equals("/nonexistent/body.obj:0: mesh file not found"));
}
