// Validation: the `transform` of generated geometries (rigid_transform.hpp): a rotation about
// the world origin, then a translation, applied to the initial configuration, which is also the
// natural shape.
//
// A rigid transform of a whole problem (geometry, loads, clamps) must transform its solution:
// if q* is the equilibrium of the original scene under gravity g, the transformed scene under
// gravity R g has the equilibrium R q* + t, and every energy is the same. For a rod this holds
// only if the material frame turns with the rod (a rectangle's height stays in the same place
// relative to the rod's shape): the rod tests use a rectangular section whose two bending
// stiffnesses differ by 25x, bent about both axes, so a frame chosen from the world axes
// after the transform would bend a different way and fail by far more than the tolerance.
//
// Tolerance: both scenes stop Newton at |F| <= 1e-11 N-ish (absolute tolerance), on deflections
// of order 1e-3..1e-2 m with compliances below 1 m/N: positions agree to 1e-9 m and energies to
// 1e-9 relative (measured ~1e-13, round-off of R x + t).
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

std::string format(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

std::string format(const Vec3& v) { return "[" + format(v.x()) + ", " + format(v.y()) + ", " + format(v.z()) + "]"; }

const Vec3 kAxis = Vec3(1.0, -2.0, 0.5);
constexpr double kAngleDeg = 130.0;
const Vec3 kTranslate = Vec3(0.3, -0.1, 2.0);

Mat3 rotation() { return Eigen::AngleAxisd(kAngleDeg * std::numbers::pi / 180.0, kAxis.normalized()).toRotationMatrix(); }

std::string transform_text() {
    return "transform: {translate: " + format(kTranslate) + ", rotate: {axis: " + format(kAxis) +
           ", angle_deg: " + format(kAngleDeg) + "}}";
}

std::string statics_header() {
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: statics, dt: 0.25, ramp_time: 1.0,\n"
           "             newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 1.0e-12, increment_tolerance: 0,\n"
           "                      max_iterations: 100}}\n"
           "linear_solver: {type: eigen_ldlt}\n";
}

/// A helix rod (natural curvature and twist), rectangular section, first three nodes and two
/// edges fixed, under gravity g.
std::string rod_scene(const std::string& transform, const Vec3& gravity) {
    return statics_header() +
           "elements:\n"
           "  - name: rod\n"
           "    type: discrete_rod\n"
           "    geometry: {helix: {center: [0.01, 0, 0], radius: 0.05, pitch: 0.04, turns: 0.6, nodes: 31" +
           (transform.empty() ? "" : ", " + transform) + "}}\n"
           "    cross_section: {rectangle: {width: 5.0e-3, height: 1.0e-3}}\n"
           "    material: {density: 1000, youngs_modulus: 1.0e8, poisson_ratio: 0.5}\n"
           "    fixed: {nodes: [0, 1, 2], edges: [0, 1]}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: " + format(gravity) + "}\n";
}

/// A hinge-shell strip clamped on x <= 0.02 (nodes selected by index: a box would not follow the
/// rotation), under gravity g.
std::string shell_scene(const std::string& transform, const Vec3& gravity, const std::string& clamped) {
    return statics_header() +
           "elements:\n"
           "  - name: plate\n"
           "    type: hinge_shell\n"
           "    mesh: {rectangle: {origin: [0.1, 0.2, 0.3], size: [0.1, 0.04], edge_length: 0.01" +
           (transform.empty() ? "" : ", " + transform) + "}}\n"
           "    thickness: 1.0e-3\n"
           "    material: {density: 1000, youngs_modulus: 1.0e7}\n"
           "    fixed: {nodes: [" + clamped + "]}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: " + format(gravity) + "}\n";
}

/// Runs both scenes and checks the moved one against R x + t of the original; returns the largest
/// displacement of the original from its initial configuration.
double check_transformed(Simulation& original, Simulation& moved, const std::string& element) {
    const Mat3 R = rotation();
    const Index n = static_cast<Index>(original.find_element(element)->geometry().point_dofs.size());
    REQUIRE(moved.find_element(element)->geometry().point_dofs.size() == static_cast<std::size_t>(n));
    // Initial configuration: R x + t.
    double initial_error = 0.0;
    for (Index i = 0; i < n; ++i)
        initial_error = std::max(initial_error, (node_position(moved, element, i) -
                                                 (R * node_position(original, element, i) + kTranslate)).norm());
    CHECK(initial_error < 1e-14);
    std::vector<Vec3> initial(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) initial[static_cast<std::size_t>(i)] = node_position(original, element, i);
    const double e0 = original.potential_energy(), e0_moved = moved.potential_energy();
    run_to_end(original);
    run_to_end(moved);
    double max_error = 0.0, deflection = 0.0;
    for (Index i = 0; i < n; ++i) {
        const Vec3 expected = R * node_position(original, element, i) + kTranslate;
        max_error = std::max(max_error, (node_position(moved, element, i) - expected).norm());
        deflection = std::max(deflection, (node_position(original, element, i) - initial[static_cast<std::size_t>(i)]).norm());
    }
    double elastic = 0.0, elastic_moved = 0.0;
    for (const Contributor* c : original.contributors())
        if (dynamic_cast<const Element*>(c) != nullptr) elastic += original.potential_energy(*c);
    for (const Contributor* c : moved.contributors())
        if (dynamic_cast<const Element*>(c) != nullptr) elastic_moved += moved.potential_energy(*c);
    std::printf("transform, %s: initial energies %.3e / %.3e J, max |x_moved - (R x + t)| %.3e m, elastic energy %.9e / %.9e J\n",
                element.c_str(), e0, e0_moved, max_error, elastic, elastic_moved);
    CHECK(max_error < 1e-9);
    CHECK(elastic > 0.0);
    CHECK(elastic_moved == Approx(elastic).epsilon(1e-9));
    return deflection;
}

}  // namespace

TEST_CASE("transform: a rotated and translated rod (rectangular section) has the transformed equilibrium",
          "[validation][transform][rod]") {
    const Vec3 g(0.0, 0.0, -9.81);
    auto original = build_scene(rod_scene("", g));
    auto moved = build_scene(rod_scene(transform_text(), rotation() * g));
    // The rod really bends (not a trivially rigid answer): some node moves by more than 1 mm.
    CHECK(check_transformed(*original, *moved, "rod") > 1e-3);
}

TEST_CASE("transform: a rotated and translated shell mesh has the transformed equilibrium", "[validation][transform][shell]") {
    // Rectangle 0.1 x 0.04, a = 0.01, rows along x: n_u = 10, n_w = round(0.04/0.00866) = 5 rows;
    // even rows 11 nodes, odd rows 12: the nodes with x <= 0.12 are the first 3 of each row.
    std::string clamped;
    const int row_sizes[] = {11, 12, 11, 12, 11, 12};
    int start = 0;
    for (int size : row_sizes) {
        for (int k = 0; k < 3; ++k) clamped += (clamped.empty() ? "" : ", ") + std::to_string(start + k);
        start += size;
    }
    const Vec3 g(0.0, 0.0, -9.81);
    auto original = build_scene(shell_scene("", g, clamped));
    for (int i = 0; i < start; ++i) {  // the clamp is the strip x <= 0.12, as intended
        const bool listed = (i % 23) < 3 || ((i % 23) >= 11 && (i % 23) < 14);
        CHECK((node_position(*original, "plate", i).x() <= 0.12 + 1e-12) == listed);
    }
    auto moved = build_scene(shell_scene(transform_text(), rotation() * g, clamped));
    CHECK(check_transformed(*original, *moved, "plate") > 1e-3);
}

TEST_CASE("transform: errors point at the transform", "[validation][transform]") {
    const Vec3 g(0.0, 0.0, -9.81);
    CHECK_THROWS_WITH(build_scene(rod_scene("transform: {rotate: {axis: [0, 0, 0], angle_deg: 30}}", g)),
                      Catch::Contains("elements[0].geometry.helix.transform.rotate.axis: the rotation axis must not be zero"));
    CHECK_THROWS_WITH(build_scene(rod_scene("transform: {rotate: {axis: [1.0e300, 1.0e300, 0], angle_deg: 30}}", g)),
                      Catch::Contains("transform.rotate.axis: the rotation axis is too long to normalize"));
    CHECK_THROWS_WITH(build_scene(shell_scene("transform: {rotate: {axis: [0, 0, 0], angle_deg: 30}}", g, "0")),
                      Catch::Contains("elements[0].mesh.rectangle.transform.rotate.axis: the rotation axis must not be zero"));
    CHECK_THROWS_WITH(build_scene(rod_scene("transform: {rotate: {axis: [0, 0, 1]}}", g)),
                      Catch::Contains("angle_deg"));
    CHECK_THROWS_WITH(build_scene(rod_scene("transform: {translation: [1, 0, 0]}", g)), Catch::Contains("translate"));
}
