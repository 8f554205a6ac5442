// Mass properties of the shapes against numerical integration over slices, and the checks of
// user-given mass properties.
#include "../rigid_shape.hpp"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <numbers>

using namespace soma;
using namespace soma::rigid_body;

namespace {

/// Mass and inertia of a solid of revolution about z with radius profile rho(z) on [z0, z1],
/// density 1, by the midpoint rule over thin discs: dm = pi rho^2 dz, dIzz = rho^2/2 dm,
/// dIxx = (rho^2/4 + z^2) dm. 200000 slices: relative error ~1e-10 for these smooth profiles.
MassProperties revolve(const std::function<double(double)>& rho, double z0, double z1) {
    const int n = 200000;
    const double dz = (z1 - z0) / n;
    MassProperties p;
    double ixx = 0.0, izz = 0.0;
    for (int i = 0; i < n; ++i) {
        const double z = z0 + (i + 0.5) * dz;
        const double r = rho(z);
        const double dm = std::numbers::pi * r * r * dz;
        p.mass += dm;
        izz += 0.5 * r * r * dm;
        ixx += (0.25 * r * r + z * z) * dm;
    }
    p.inertia = Vec3(ixx, ixx, izz).asDiagonal();
    return p;
}

void check_close(const MassProperties& formula, const MassProperties& numeric) {
    // The midpoint rule's error on the sphere's and capsule's caps (sqrt profile, infinite slope
    // at the poles) is ~1e-8 relative with 2e5 slices.
    CHECK(formula.mass == Approx(numeric.mass).epsilon(1e-7));
    CHECK(formula.inertia(0, 0) == Approx(numeric.inertia(0, 0)).epsilon(1e-7));
    CHECK(formula.inertia(2, 2) == Approx(numeric.inertia(2, 2)).epsilon(1e-7));
}

}  // namespace

TEST_CASE("rigid shapes: mass properties of uniform solids", "[rigid_shape]") {
    RigidShape s;
    s.kind = ShapeKind::sphere;
    s.radius = 0.3;
    check_close(uniform_mass_properties(s, 1.0), revolve([](double z) { return std::sqrt(std::max(0.0, 0.09 - z * z)); }, -0.3, 0.3));

    s.kind = ShapeKind::cylinder;
    s.radius = 0.2;
    s.length = 0.7;
    check_close(uniform_mass_properties(s, 1.0), revolve([](double) { return 0.2; }, -0.35, 0.35));

    s.kind = ShapeKind::capsule;
    s.radius = 0.1;
    s.length = 0.5;
    const auto capsule = [](double z) {
        const double over = std::max(0.0, std::abs(z) - 0.25);
        return std::sqrt(std::max(0.0, 0.01 - over * over));
    };
    check_close(uniform_mass_properties(s, 1.0), revolve(capsule, -0.35, 0.35));

    s.kind = ShapeKind::box;
    s.size = Vec3(0.1, 0.2, 0.4);
    s.center = Vec3(1, 2, 3);
    const MassProperties box = uniform_mass_properties(s, 1000.0);
    CHECK(box.mass == Approx(8.0));
    CHECK(box.inertia(0, 0) == Approx(8.0 / 12.0 * (0.04 + 0.16)));
    CHECK(box.inertia(2, 2) == Approx(8.0 / 12.0 * (0.01 + 0.04)));
    CHECK(box.center_of_mass == Vec3(1, 2, 3));
}

TEST_CASE("rigid shapes: surfaces have outward triangles and the documented points", "[rigid_shape]") {
    RigidShape s;
    s.kind = ShapeKind::box;
    s.size = Vec3(1, 2, 3);
    for (ShapeKind kind : {ShapeKind::box, ShapeKind::cylinder}) {
        s.kind = kind;
        s.radius = 0.5;
        s.length = 2.0;
        const ShapeSurface surface = shape_surface(s);
        // A closed outward surface encloses its volume: sum over triangles of x . n dA / 3.
        double volume = 0.0;
        for (const auto& t : surface.triangles) {
            const Vec3 &a = surface.points[t[0]], &b = surface.points[t[1]], &c = surface.points[t[2]];
            volume += a.dot(b.cross(c)) / 6.0;
        }
        const double expected = kind == ShapeKind::box ? 6.0 : 0.5 * 32 * 0.25 * std::sin(2 * std::numbers::pi / 32) * 2.0;
        CHECK(volume == Approx(expected).epsilon(1e-12));
    }
    s.kind = ShapeKind::capsule;
    const ShapeSurface capsule = shape_surface(s);
    REQUIRE(capsule.points.size() == 2);
    CHECK(capsule.radii[0] == 0.5);
    CHECK(capsule.points[1].z() == Approx(1.0));
}

TEST_CASE("rigid shapes: impossible mass properties are refused", "[rigid_shape]") {
    MassProperties p;
    p.mass = 1.0;
    p.inertia = Vec3(1.0, 1.0, 3.0).asDiagonal();
    CHECK_THROWS_WITH(check_mass_properties(p), Catch::Contains("I1 + I2 >= I3"));
    p.inertia = Vec3(1.0, 1.0, -1.0).asDiagonal();
    CHECK_THROWS_WITH(check_mass_properties(p), Catch::Contains("positive definite"));
    p.inertia = Vec3(1.0, 1.0, 1.5).asDiagonal();
    CHECK_NOTHROW(check_mass_properties(p));
    p.mass = 0.0;
    CHECK_THROWS_WITH(check_mass_properties(p), Catch::Contains("mass must be positive"));
}

TEST_CASE("rigid shapes: a turned shape's mass properties and points turn with it", "[rigid_shape]") {
    // A capsule along the part's z axis, turned a quarter turn about body y, lies along body x:
    // its inertia is the unturned one with the x and z moments swapped, its points on body x.
    RigidShape capsule;
    capsule.kind = ShapeKind::capsule;
    capsule.radius = 0.1;
    capsule.length = 0.6;
    capsule.center = Vec3(0.2, -0.1, 0.3);
    const MassProperties along_z = uniform_mass_properties(capsule, 1000.0);
    capsule.orientation = Quaternion(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitY()));
    const MassProperties along_x = uniform_mass_properties(capsule, 1000.0);
    CHECK(along_x.mass == along_z.mass);
    CHECK((along_x.center_of_mass - capsule.center).norm() == 0.0);
    // Round-off of the quarter-turn rotation matrix (cos(pi/2) ~ 6e-17) on moments ~1: 1e-15.
    CHECK(along_x.inertia(0, 0) == Approx(along_z.inertia(2, 2)).epsilon(1e-14));
    CHECK(along_x.inertia(2, 2) == Approx(along_z.inertia(0, 0)).epsilon(1e-14));
    CHECK(std::abs(along_x.inertia(0, 2)) < 1e-15);
    const ShapeSurface ends = shape_surface(capsule);
    CHECK((ends.points[1] - (capsule.center + Vec3(0.3, 0, 0))).norm() < 1e-15);

    // A mesh turned: its centre of mass (off the mesh's origin) turns about the shape's centre.
    RigidShape wedge;
    wedge.kind = ShapeKind::mesh;
    wedge.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
    wedge.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    wedge.center = Vec3(1, 2, 3);
    wedge.orientation = Quaternion(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()));
    const MassProperties turned = uniform_mass_properties(wedge, 6.0);  // volume 1/6: mass 1
    CHECK(turned.mass == Approx(1.0).epsilon(1e-15));
    // The tetrahedron's centroid (1/4, 1/4, 1/4) turned a quarter about z: (-1/4, 1/4, 1/4).
    CHECK((turned.center_of_mass - Vec3(0.75, 2.25, 3.25)).norm() < 1e-15);
}

TEST_CASE("rigid shapes: a compound body's mass properties are those of the solid its parts make", "[rigid_shape]") {
    // An L-shaped prism (a non-convex solid) as two boxes, against its closed mesh integrated
    // exactly by polyhedron_mass_properties: both exact, so they agree to round-off.
    // L in the xz plane: [0, 2] x [0, 1] (the foot) and [0, 1] x [1, 3] (the upright), 0.5 deep.
    RigidShape foot, upright;
    foot.kind = upright.kind = ShapeKind::box;
    foot.size = Vec3(2, 0.5, 1);
    foot.center = Vec3(1, 0.25, 0.5);
    upright.size = Vec3(1, 0.5, 2);
    upright.center = Vec3(0.5, 0.25, 2);
    const MassProperties parts = compound_mass_properties({foot, upright}, 700.0);

    // The L's outline, counter-clockwise in x-z seen from -y, extruded over y in [0, 0.5].
    const std::vector<Vec3> outline = {Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(2, 0, 1), Vec3(1, 0, 1), Vec3(1, 0, 3), Vec3(0, 0, 3)};
    std::vector<Vec3> vertices = outline;
    for (const Vec3& x : outline) vertices.push_back(x + Vec3(0, 0.5, 0));
    std::vector<std::array<Index, 3>> triangles;
    const Index n = 6;
    for (Index k = 0; k < n; ++k) {  // the sides: each outline edge swept along y
        const Index a = k, b = (k + 1) % n;
        triangles.push_back({a, b + n, b});
        triangles.push_back({a, a + n, b + n});
    }
    // The two L-shaped ends as fans from the inner corner (vertex 3 sees every other vertex).
    for (const auto& [i, j] : std::vector<std::pair<Index, Index>>{{4, 5}, {5, 0}, {0, 1}, {1, 2}}) {
        triangles.push_back({3, i, j});              // y = 0, normal -y
        triangles.push_back({3 + n, j + n, i + n});  // y = 0.5, normal +y
    }
    check_closed_mesh(vertices, triangles);
    const MassProperties mesh = polyhedron_mass_properties(vertices, triangles, 700.0);
    CHECK(parts.mass == Approx(mesh.mass).epsilon(1e-14));
    CHECK((parts.center_of_mass - mesh.center_of_mass).norm() < 1e-14);
    CHECK((parts.inertia - mesh.inertia).norm() < 1e-12 * mesh.inertia.norm());
    // And the L's centre of mass by hand: (2 * (1, 0.5) + 2 * (0.5, 2)) / 4 in (x, z).
    CHECK((parts.center_of_mass - Vec3(0.75, 0.25, 1.25)).norm() < 1e-15);

    // The same L turned as a whole (each part turned and its centre moved), against its turned
    // mesh: covers R I R^T and the parallel-axis shift of turned, off-centre parts together.
    const Quaternion turn(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    for (RigidShape* part : {&foot, &upright}) {
        part->orientation = turn;
        part->center = turn * part->center;
    }
    const MassProperties turned_parts = compound_mass_properties({foot, upright}, 700.0);
    for (Vec3& v : vertices) v = turn * v;
    const MassProperties turned_mesh = polyhedron_mass_properties(vertices, triangles, 700.0);
    CHECK(turned_parts.mass == Approx(turned_mesh.mass).epsilon(1e-14));
    CHECK((turned_parts.center_of_mass - turned_mesh.center_of_mass).norm() < 1e-14);
    CHECK((turned_parts.inertia - turned_mesh.inertia).norm() < 1e-12 * turned_mesh.inertia.norm());
    // Not the unturned inertia (the turn matters: this could not pass by ignoring orientations).
    CHECK((turned_parts.inertia - parts.inertia).norm() > 1e-2 * parts.inertia.norm());
}
