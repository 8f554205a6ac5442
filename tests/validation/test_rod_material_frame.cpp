// Validation: a rod's material frame at t = 0 is the documented one (discrete_rod's schema,
// docs/examples.md "Geometry conventions"), positive natural curvatures bend the rod toward +m1
// and +m2, and the actuation controller's `bend_toward` bends it toward a world direction.
//
// Documented: the first edge gets m1 = unit(t0 x (0,1,0)) (unit(t0 x (0,0,-1)) along y),
// m2 = t0 x m1, carried along the rod by parallel transport; a `transform` rotates the frame with
// the rod. So +x: m1 = +z, m2 = -y; +y: m1 = -x, m2 = +z; +z: m1 = -x, m2 = -y.
//
// Exact answer for the bending tests (as test_actuated_rod.cpp): with no load, a rod whose first
// two nodes and first edge are clamped and whose every spring has the natural curvature kappa
// toward the unit direction n (orthogonal to the rod) relaxes to the zero-energy polygon whose
// edges turn by phi = kappa dl toward n: x_i = dl sum_{e<i} (cos(e phi) t0 + sin(e phi) n). Newton
// stops at |F| <= 1e-10 N with a softest compliance ~0.02 m/N: nodes within 1e-11 m (measured at
// round-off). A wrong sign or a swapped director moves the tip by centimetres.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr int kNodes = 21;
constexpr double kLength = 0.1, kEdge = kLength / (kNodes - 1);

std::string format(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

std::string format(const Vec3& v) { return "[" + format(v.x()) + ", " + format(v.y()) + ", " + format(v.z()) + "]"; }

/// A straight rod from the origin along `direction` (unit), clamped at its first edge, no
/// load, statics in one step, with the given controller block (or none).
std::string rod_scene(const Vec3& direction, const std::string& controller, const std::string& transform = "") {
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: statics, dt: 1.0,\n"
           "             newton: {absolute_tolerance: 1.0e-10, relative_tolerance: 0, increment_tolerance: 0,\n"
           "                      max_iterations: 100}}\n"
           "linear_solver: {type: eigen_ldlt}\n"
           "elements:\n"
           "  - name: rod\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0, 0, 0], to: " + format(kLength * direction) + ", nodes: " +
           std::to_string(kNodes) + (transform.empty() ? "" : ", " + transform) + "}}\n"
           "    cross_section: {circle: {radius: 1.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: 2.0e10, poisson_ratio: 0.5}\n"
           "    fixed: {nodes: [0, 1], edges: [0]}\n" +
           (controller.empty() ? "" : "controllers:\n  - " + controller + "\n");
}

std::string curvature_controller(double kappa1, double kappa2) {
    return "{type: actuation, element: rod, channel: natural_curvature, values: [\"" + format(kappa1) + "\", \"" +
           format(kappa2) + "\"]}";
}

/// Largest distance of the relaxed rod's nodes from the polygon turning by kappa dl toward n.
double polygon_error(Simulation& sim, const Vec3& t0, const Vec3& n, double kappa) {
    run_to_end(sim);
    const double phi = kappa * kEdge;
    double error = 0.0;
    Vec3 x = node_position(sim, "rod", 0);
    for (int i = 0; i < kNodes; ++i) {
        error = std::max(error, (node_position(sim, "rod", i) - x).norm());
        x += kEdge * (std::cos(i * phi) * t0 + std::sin(i * phi) * n);
    }
    return error;
}

/// {D1, D2} of bend-twist spring k (m1 and m2 on a straight rod).
std::pair<Vec3, Vec3> directors(const Simulation& sim, Index spring) {
    const auto d = sim.find_element("rod")->actuation_directions("natural_curvature", spring);
    REQUIRE(d.size() == 2);
    return {d[0], d[1]};
}

}  // namespace

TEST_CASE("rod material frame: m1 and m2 at t = 0 are the documented directors", "[validation][rod][frame]") {
    struct Case {
        Vec3 tangent, m1, m2;
    };
    const Vec3 horizontal = Vec3(0.6, 0.8, 0.0);
    const Case cases[] = {{Vec3::UnitX(), Vec3::UnitZ(), -Vec3::UnitY()},
                          {Vec3::UnitY(), -Vec3::UnitX(), Vec3::UnitZ()},
                          {Vec3::UnitZ(), -Vec3::UnitX(), -Vec3::UnitY()},
                          {-Vec3::UnitX(), -Vec3::UnitZ(), -Vec3::UnitY()},
                          {horizontal, Vec3::UnitZ(), horizontal.cross(Vec3::UnitZ())}};
    for (const Case& c : cases) {
        INFO("rod along " << c.tangent.transpose());
        auto sim = build_scene(rod_scene(c.tangent, ""));
        for (Index k : {0, kNodes - 3}) {  // first and last spring: parallel transport keeps them
            const auto [m1, m2] = directors(*sim, k);
            CHECK((m1 - c.m1).norm() < 1e-14);
            CHECK((m2 - c.m2).norm() < 1e-14);
            CHECK((m1.cross(m2) - c.tangent).norm() < 1e-14);  // t = m1 x m2
        }
    }
    // A transform turns the frame with the rod: a rod along +x turned by 90 degrees about z runs
    // along +y, but keeps m1 = R (+z) = +z and m2 = R (-y) = +x (the default rule for a rod built
    // along +y would give m1 = -x).
    auto turned = build_scene(rod_scene(Vec3::UnitX(), "", "transform: {rotate: {axis: [0, 0, 1], angle_deg: 90}}"));
    CHECK((node_position(*turned, "rod", -1) - Vec3(0.0, kLength, 0.0)).norm() < 1e-15);
    const auto [m1, m2] = directors(*turned, 0);
    CHECK((m1 - Vec3::UnitZ()).norm() < 1e-15);
    CHECK((m2 - Vec3::UnitX()).norm() < 1e-15);
}

TEST_CASE("rod material frame: kappa1 > 0 bends toward +m1, kappa2 > 0 toward +m2", "[validation][rod][frame]") {
    const double kappa = 5.0;  // 1/m: the tip turns by 0.5 rad
    // Rod along +y: m1 = -x, m2 = +z.
    {
        auto sim = build_scene(rod_scene(Vec3::UnitY(), curvature_controller(kappa, 0.0)));
        CHECK(polygon_error(*sim, Vec3::UnitY(), -Vec3::UnitX(), kappa) < 1e-11);
        CHECK(node_position(*sim, "rod", -1).x() < -0.02);
    }
    {
        auto sim = build_scene(rod_scene(Vec3::UnitY(), curvature_controller(0.0, kappa)));
        CHECK(polygon_error(*sim, Vec3::UnitY(), Vec3::UnitZ(), kappa) < 1e-11);
        CHECK(node_position(*sim, "rod", -1).z() > 0.02);
    }
    // Rod along +z: m1 = -x, m2 = -y.
    {
        auto sim = build_scene(rod_scene(Vec3::UnitZ(), curvature_controller(kappa, 0.0)));
        CHECK(polygon_error(*sim, Vec3::UnitZ(), -Vec3::UnitX(), kappa) < 1e-11);
    }
    {
        auto sim = build_scene(rod_scene(Vec3::UnitZ(), curvature_controller(0.0, kappa)));
        CHECK(polygon_error(*sim, Vec3::UnitZ(), -Vec3::UnitY(), kappa) < 1e-11);
    }
}

TEST_CASE("actuation bend_toward: the rod bends toward the world direction d", "[validation][rod][actuation][frame]") {
    const double kappa = 4.0;
    // A rod along a general direction (a line along +x turned about a skew axis), d with a
    // component along the rod (projected away) and one across it.
    const Vec3 axis = Vec3(1.0, 2.0, -0.5).normalized();
    const double angle = 0.7;
    const Mat3 R = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
    const std::string transform = "transform: {rotate: {axis: " + format(Vec3(1.0, 2.0, -0.5)) + ", angle_deg: " +
                                  format(angle * 180.0 / std::numbers::pi) + "}}";
    const Vec3 t0 = R * Vec3::UnitX();
    for (const Vec3& d : {Vec3(0.3, -1.0, 2.0), Vec3(-1.0, 0.2, 0.1), Vec3(0.0, 0.0, 1.0)}) {
        INFO("d = " << d.transpose());
        const Vec3 n = (d - d.dot(t0) * t0).normalized();
        const std::string controller = "{type: actuation, element: rod, channel: natural_curvature, bend_toward: "
                                       "{direction: " + format(d) + ", curvature: \"" + format(kappa) + "*min(t, 1)\"}}";
        auto sim = build_scene(rod_scene(Vec3::UnitX(), controller, transform));
        CHECK(polygon_error(*sim, t0, n, kappa) < 1e-11);
        // The tip moved toward d: its displacement across the rod is along n.
        const Vec3 tip = node_position(*sim, "rod", -1) - node_position(*sim, "rod", 0);
        const Vec3 across = tip - tip.dot(t0) * t0;
        CHECK(across.dot(n) > 0.9 * across.norm());
        CHECK(across.norm() > 0.01);
    }
}

TEST_CASE("actuation bend_toward: errors", "[validation][rod][actuation][frame]") {
    // d along the rod: no bending direction.
    CHECK_THROWS_WITH(build_scene(rod_scene(Vec3::UnitX(), "{type: actuation, element: rod, channel: natural_curvature, "
                                                            "bend_toward: {direction: [2, 0, 0], curvature: \"1\"}}")),
                      Catch::Contains("controllers[0].bend_toward.direction: the direction (2, 0, 0) is along the element "
                                      "at item 0"));
    // A channel without directions.
    CHECK_THROWS_WITH(build_scene(rod_scene(Vec3::UnitX(), "{type: actuation, element: rod, channel: natural_twist, "
                                                            "bend_toward: {direction: [0, 0, 1], curvature: \"1\"}}")),
                      Catch::Contains("controllers[0].bend_toward: channel 'natural_twist' of element 'rod' has no "
                                      "bending directions"));
    // Both values and bend_toward.
    CHECK_THROWS_WITH(build_scene(rod_scene(Vec3::UnitX(), "{type: actuation, element: rod, channel: natural_curvature, "
                                                            "values: [\"1\", \"0\"], bend_toward: {direction: [0, 0, 1], "
                                                            "curvature: \"1\"}}")),
                      Catch::Contains("not several"));
}
