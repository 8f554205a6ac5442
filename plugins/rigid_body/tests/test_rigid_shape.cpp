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
