// Visual shapes (rigid_body `visuals`, Element::display_surface) and STL meshes
// (soma/stl_mesh.hpp): the display meshes of round shapes are closed, outward and near the true
// volume; a body's visuals move with it exactly as its own points do, and add no point and no
// mass; STL files, binary and ASCII, read the same solid, and malformed ones are refused at
// their line.
#include "rigid_body_fixture.hpp"

#include "soma/stl_mesh.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>

using namespace soma;
using namespace soma::rigid_body;
using namespace soma::rigid_body::testing;

namespace {

RigidShape round_shape(ShapeKind kind, double radius, double length) {
    RigidShape s;
    s.kind = kind;
    s.radius = radius;
    s.length = length;
    s.center = Vec3(0.1, -0.2, 0.3);
    s.orientation = Quaternion(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    return s;
}

/// The volume a closed, outward triangle mesh bounds (divergence theorem).
double enclosed_volume(const ShapeSurface& mesh) {
    double six_v = 0.0;
    for (const auto& t : mesh.triangles)
        six_v += mesh.points[static_cast<std::size_t>(t[0])].dot(
            mesh.points[static_cast<std::size_t>(t[1])].cross(mesh.points[static_cast<std::size_t>(t[2])]));
    return six_v / 6.0;
}

std::string binary_stl(const std::vector<std::array<Vec3, 3>>& triangles) {
    std::string out(80, ' ');
    const auto put = [&](const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); };
    const auto count = static_cast<std::uint32_t>(triangles.size());
    put(&count, 4);  // little endian on the machines this runs on (x86-64, aarch64)
    for (const auto& t : triangles) {
        const float normal[3] = {0, 0, 0};
        put(normal, 12);
        for (const Vec3& x : t) {
            const float xyz[3] = {static_cast<float>(x.x()), static_cast<float>(x.y()), static_cast<float>(x.z())};
            put(xyz, 12);
        }
        const std::uint16_t attribute = 0;
        put(&attribute, 2);
    }
    return out;
}

const Vec3 kCorners[4] = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
const std::vector<std::array<Vec3, 3>> kTetrahedron = {{kCorners[0], kCorners[2], kCorners[1]},
                                                       {kCorners[0], kCorners[1], kCorners[3]},
                                                       {kCorners[0], kCorners[3], kCorners[2]},
                                                       {kCorners[1], kCorners[2], kCorners[3]}};

}  // namespace

TEST_CASE("visual shapes: a sphere's and a capsule's display meshes are closed, outward and near their volume",
          "[rigid_shape][visuals]") {
    for (const RigidShape& s : {round_shape(ShapeKind::sphere, 0.2, 0.0), round_shape(ShapeKind::capsule, 0.1, 0.5)}) {
        INFO(describe_shape(s));
        const ShapeSurface mesh = display_mesh(s);
        CHECK_NOTHROW(check_closed_mesh(mesh.points, mesh.triangles));
        // Inscribed: every vertex on the surface (distance from the axis segment = radius).
        const Mat3 R = s.orientation.toRotationMatrix();
        for (const Vec3& x : mesh.points) {
            const Vec3 local = R.transpose() * (x - s.center);
            const double h = s.kind == ShapeKind::capsule ? 0.5 * s.length : 0.0;
            const Vec3 nearest(0, 0, std::clamp(local.z(), -h, h));
            CHECK((local - nearest).norm() == Approx(s.radius).epsilon(1e-12));
        }
        // An inscribed polyhedron of 24 segments and 12 rings loses a few percent of the volume:
        // the sphere's 1 - V_mesh/V is 2.8 %, below the 5 % bound; never more than all.
        const double exact = shape_volume(s);
        CHECK(enclosed_volume(mesh) < exact);
        CHECK(enclosed_volume(mesh) > 0.95 * exact);
    }
    // A box, a cylinder and a mesh draw the triangles of their surface.
    RigidShape box;
    box.kind = ShapeKind::box;
    box.size = Vec3(0.1, 0.2, 0.3);
    CHECK(display_mesh(box).triangles == shape_surface(box).triangles);
}

TEST_CASE("visual shapes: a body's visuals move with it as its points do, and add no point and no mass",
          "[rigid_body][visuals]") {
    RigidBodyDescription plain = lopsided_body();
    RigidBodyDescription with_visuals = plain;
    RigidShape visual;
    visual.kind = ShapeKind::box;
    visual.size = Vec3(0.3, 0.1, 0.05);
    visual.center = Vec3(-0.2, 0.15, 0.05);
    visual.orientation = Quaternion(Eigen::AngleAxisd(0.4, Vec3(0, 1, 1).normalized()));
    with_visuals.visuals = {visual, round_shape(ShapeKind::sphere, 0.05, 0.0)};
    // The same body with a marker at each visual vertex: its point kinematics is the reference.
    const ShapeSurface box_mesh = display_mesh(visual);
    RigidBodyDescription marked = plain;
    marked.markers = box_mesh.points;

    RigidBody a(plain);
    const RigidBody b(with_visuals);
    CHECK(b.geometry().point_dofs.size() == a.geometry().point_dofs.size());
    CHECK(b.geometry().triangles == a.geometry().triangles);
    CHECK(b.mass_properties().mass == a.mass_properties().mass);

    RigidBody body(with_visuals), reference(marked);
    body.bind({0, 1, 2, 3, 4, 5}, {kCoordinate});
    reference.bind({0, 1, 2, 3, 4, 5}, {kCoordinate});
    Iterate it{&body, Quaternion(0.6, -0.4, 0.5, 0.48).normalized()};
    VectorX dofs(6);
    dofs << 0.3, -0.1, 0.7, 0.0, 0.0, 0.0;  // a committed state: the rotation in the quaternion
    it.set_dofs(dofs);
    it.v << 0.4, -1.2, 0.3, 2.0, -1.5, 3.1;
    DisplaySurface surface;
    body.display_surface(it.q, it.v, surface);
    REQUIRE(surface.vertices.size() == box_mesh.points.size() + display_mesh(round_shape(ShapeKind::sphere, 0.05, 0.0)).points.size());
    REQUIRE(surface.velocities.size() == surface.vertices.size());
    CHECK(surface.triangles.size() == box_mesh.triangles.size() + display_mesh(round_shape(ShapeKind::sphere, 0.05, 0.0)).triangles.size());
    for (std::size_t k = 0; k < box_mesh.points.size(); ++k) {
        Vec3 x, xdot;
        reference.point_state(static_cast<Index>(2 + k), it.q, it.v, x, xdot);  // markers follow points 0, 1
        CHECK((surface.vertices[k] - x).norm() < 1e-14);
        CHECK((surface.velocities[k] - xdot).norm() < 1e-13);
    }
    DisplaySurface none;
    a.bind({0, 1, 2, 3, 4, 5}, {kCoordinate});
    a.display_surface(it.q, it.v, none);
    CHECK(none.vertices.empty());
    CHECK(none.triangles.empty());
}

TEST_CASE("STL meshes: binary and ASCII files read the same welded solid", "[mesh][stl]") {
    const ObjTriangles binary = parse_stl_triangles(binary_stl(kTetrahedron), "t.stl");
    std::string ascii = "solid t\n";
    for (const auto& t : kTetrahedron) {
        ascii += " facet normal 0 0 0\n  outer loop\n";
        for (const Vec3& x : t) ascii += "   vertex " + std::to_string(x.x()) + " " + std::to_string(x.y()) + " " +
                                         std::to_string(x.z()) + "\n";
        ascii += "  endloop\n endfacet\n";
    }
    ascii += "endsolid t\n";
    const ObjTriangles text = parse_stl_triangles(ascii, "t.stl");
    for (const ObjTriangles* mesh : {&binary, &text}) {
        CHECK(mesh->positions.size() == 4);  // 12 corners welded into 4 vertices
        CHECK(mesh->triangles.size() == 4);
        CHECK_NOTHROW(check_closed_mesh(mesh->positions, mesh->triangles));  // closed and outward
        CHECK(polyhedron_mass_properties(mesh->positions, mesh->triangles, 6.0).mass == Approx(1.0).epsilon(1e-12));
    }
    // A binary header that begins with "solid" is still binary (decided by the size).
    std::string solid_header = binary_stl(kTetrahedron);
    solid_header.replace(0, 5, "solid");
    CHECK(parse_stl_triangles(solid_header, "t.stl").triangles.size() == 4);
    // A triangle whose corners weld into fewer than three vertices has no area: dropped.
    auto with_sliver = kTetrahedron;
    with_sliver.push_back({kCorners[1], kCorners[1], kCorners[2]});
    CHECK(parse_stl_triangles(binary_stl(with_sliver), "t.stl").triangles.size() == 4);
}

TEST_CASE("STL meshes: malformed files are refused at their line", "[mesh][stl]") {
    const auto refused = [](const std::string& data) {
        try {
            (void)parse_stl_triangles(data, "bad.stl");
        } catch (const MeshFileError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(refused("") == "bad.stl:0: the file is empty");
    CHECK_THAT(refused("hello\n"), Catch::Contains("bad.stl:1:") && Catch::Contains("neither a binary STL"));
    CHECK_THAT(refused("solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n  endloop\n"),
               Catch::Contains("bad.stl:6:") && Catch::Contains("3 vertices, got 2"));
    CHECK_THAT(refused("solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 nan\n"),
               Catch::Contains("bad.stl:4:") && Catch::Contains("finite"));
    CHECK_THAT(refused("solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n"),
               Catch::Contains("ends inside a facet"));
    CHECK_THAT(refused("solid x\n   vertex 0 0 0\n"), Catch::Contains("bad.stl:2:") && Catch::Contains("outside"));
    const std::string facet = " facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n   vertex 0 1 0\n  endloop\n";
    CHECK_THAT(refused("solid x\n" + facet + "  endloop\n"),
               Catch::Contains("bad.stl:8:") && Catch::Contains("'endloop' without its 'outer loop'"));
    CHECK_THAT(refused("solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n  outer loop\n"),
               Catch::Contains("bad.stl:5:") && Catch::Contains("inside a loop"));
    CHECK_THAT(refused("solid x\n  colour red\n"), Catch::Contains("'colour' is not an ASCII STL keyword"));
    CHECK_THAT(refused("solid x\nendsolid x\n"), Catch::Contains("no triangles"));
    std::string binary = binary_stl(kTetrahedron);
    const float nan = std::nanf("");
    std::memcpy(binary.data() + 84 + 12, &nan, 4);
    CHECK_THAT(refused(binary), Catch::Contains("triangle 1") && Catch::Contains("finite"));
    // A binary file cut short is no longer 84 + 50 n bytes: read as text, refused as neither.
    CHECK_THAT(refused(binary.substr(0, binary.size() - 7)), Catch::Contains("neither a binary STL"));
}
