// Validation: the `spring` force (plugins/forces_basic/point_spring.hpp) between points of rigid
// bodies, rods and the world.
//
//  - Its Jacobian on spinning rigid bodies (mapped points: the unsymmetric terms of ArtiSynth's
//    technical notes, section 0.23) and a rod node, with damping, through the open System: J y = b
//    for y = J^-1 b checked by central differences of the residual along y (the elements' own
//    Jacobians are exact and tested, so a wrong spring term shows here).
//  - A body hung from a world point by a cable over a via point (a frictionless pulley): at rest
//    the cable's tension is the weight, so the body hangs k^-1 m g + r - |AB| below the pulley.
//  - A body on an axial spring oscillates with period 2 pi sqrt(m / k); the midpoint rule's
//    discrete frequency is (2/h) atan(omega h / 2) = omega (1 - (omega h)^2 / 12 + ...), so the
//    error falls 4x with h halved.
#include "scene_runner.hpp"

#include "soma/rotation.hpp"
#include "soma/system.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <string>

using namespace soma;
using namespace soma::validation;

TEST_CASE("spring: the Jacobian through rigid-body points and a rod node matches differences of F",
          "[validation][spring]") {
    const std::string scene =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: implicit_euler, dt: 0.01}\n"
        "elements:\n"
        "  - {name: a, type: rigid_body, position: [0, 0, 0], orientation: [0.9, 0.3, -0.2, 0.2449489742783178], velocity: [0.2, -0.1, 0.3],\n"
        "     angular_velocity: [3, -2, 5], mass: 1, inertia: [0.02, 0.025, 0.03, 0.001, 0, 0.002],\n"
        "     markers: [{position: [0.1, 0.05, -0.02]}]}\n"
        "  - {name: b, type: rigid_body, position: [0.5, 0.1, 0.2], angular_velocity: [-1, 4, 2], mass: 2,\n"
        "     inertia: [0.02, 0.01, 0.03, 0, 0, 0], markers: [{position: [-0.05, 0.1, 0.03]}]}\n"
        "  - {name: rod, type: discrete_rod, geometry: {line: {from: [0, 0.5, 0], to: [0.3, 0.5, 0], nodes: 4}},\n"
        "     cross_section: {circle: {radius: 0.005}}, material: {density: 1000, youngs_modulus: 1.0e6}}\n"
        "forces:\n"
        "  - {type: spring, points: [{element: a, node: 2}, {world: [0.2, 0.3, 0.4]}, {element: b, node: 2},\n"
        "     {element: rod, node: -1}], stiffness: 300, damping: 4, rest_length: 0.5}\n"
        "  - {type: spring, points: [{element: a, node: 0}, {element: b, node: 1}], stiffness: 50, damping: 2}\n";
    auto sim = build_scene(scene);
    const AffineStep step = euler_step(*sim, 0.01);
    VectorX x = VectorX::Zero(sim->dof_count());
    REQUIRE(sim->begin_solve(step, x).empty());
    const VectorX lambda = VectorX::Zero(sim->constraint_row_count());
    sim->evaluate(step, x, lambda, true, false);
    REQUIRE(sim->factorize());
    const Index m = sim->unknown_count();
    Eigen::MatrixXd b(m, 2), y;
    b.col(0) = VectorX::LinSpaced(m, -1.0, 1.0);
    for (Index i = 0; i < m; ++i) b(i, 1) = std::sin(1.3 * static_cast<double>(i) + 0.4);
    REQUIRE(sim->solve_linear(b, y));
    const auto& free = sim->free_dofs();
    for (Index j = 0; j < 2; ++j) {
        // Central differences moving q by 1e-3 (m or rad). The residual holds inertia and stiff
        // terms that cancel (M/h^2 against the rod's stretching), so its round-off is large: the
        // error measured fell from 7e-6 to 2e-8 relative as the step grew from 1e-6 to 1e-3, with
        // no spring at all; truncation at 1e-3 stays below 1e-7 here. Dropping the spring's
        // rigid-point geometric stiffness, or the turning of a rigid point's velocity, gives 1e-2
        // (both tried).
        const double eps = 1e-3 / (step.coefficients.c_q * std::max(1.0, y.col(j).cwiseAbs().maxCoeff()));
        VectorX xp = x, xm = x;
        for (std::size_t i = 0; i < free.size(); ++i) {
            xp[free[i]] += eps * y(static_cast<Index>(i), j);
            xm[free[i]] -= eps * y(static_cast<Index>(i), j);
        }
        sim->evaluate(step, xp, lambda, false, false);
        const VectorX fp = sim->residual();
        sim->evaluate(step, xm, lambda, false, false);
        const VectorX fm = sim->residual();
        const VectorX jy = (fp - fm) / (2 * eps);
        INFO("direction " << j << ": |J y - b| = " << (jy - b.col(j)).norm());
        CHECK((jy - b.col(j)).norm() <= 1e-6 * b.col(j).norm());
    }
}

TEST_CASE("spring: a body hangs from a cable over a pulley where the tension is its weight", "[validation][spring]") {
    // The cable runs from A = (0, 0, 1) over the via point B = (0.5, 0, 1) down to the body's
    // centre; k = 200 N/m, rest length 0.8 m, 1.5 kg. At rest: k (|AB| + d - r) = m g.
    const double k = 200.0, r = 0.8, m = 1.5, g = 9.81;
    const std::string scene =
        "simulation: {duration: 6.0}\n"
        "integrator: {type: implicit_euler, dt: 0.01}\n"
        "elements:\n"
        "  - {name: load, type: rigid_body, position: [0.5, 0, 0.6], mass: 1.5, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
        "forces:\n"
        "  - {type: gravity, acceleration: [0, 0, -9.81]}\n"
        "  - {type: spring, name: cable, points: [{world: [0, 0, 1]}, {world: [0.5, 0, 1]}, {element: load, node: 1}],\n"
        "     stiffness: 200, damping: 10, rest_length: 0.8, tension_only: true}\n";
    auto sim = build_scene(scene);
    run_to_end(*sim);
    const double drop = m * g / k + r - 0.5;
    const Vec3 x = node_position(*sim, "load", 1);
    // Damped at zeta = 0.29 (omega = 11.5 rad/s) over 6 s: e^{-0.29 * 11.5 * 6} ~ 2e-9 of the 0.03 m start.
    CHECK(x.z() == Approx(1.0 - drop).margin(1e-7));
    CHECK(std::abs(x.x() - 0.5) < 1e-7);
}

TEST_CASE("spring: a body on an axial spring oscillates with period 2 pi sqrt(m/k), to the midpoint rule's order",
          "[validation][spring]") {
    // 2 kg on k = 80 N/m from 0.1 m of stretch, no gravity: z(t) = z_rest + 0.1 cos(omega t),
    // omega = sqrt(40). The midpoint rule keeps the amplitude and lags the phase by
    // (omega h)^2 / 12 of omega t: at t = 2 s and h = 5 ms, 1.3e-3 rad, 1e-4 m at most.
    const double k = 80.0, m = 2.0, omega = std::sqrt(k / m);
    const auto error_at = [&](double h) {
        const std::string scene =
            "simulation: {duration: 2.0}\n"
            "integrator: {type: implicit_midpoint, dt: " + num(h) + ", newton: {absolute_tolerance: 1.0e-12}}\n"
            "elements:\n"
            "  - {name: bob, type: rigid_body, position: [0, 0, -0.6], mass: 2, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
            "forces:\n"
            "  - {type: spring, points: [{world: [0, 0, 0]}, {element: bob, node: 0}], stiffness: 80, rest_length: 0.5}\n";
        auto sim = build_scene(scene);
        run_to_end(*sim);
        const double z = node_position(*sim, "bob", 0).z();
        return z - (-0.5 - 0.1 * std::cos(omega * 2.0));
    };
    const double coarse = error_at(0.01), fine = error_at(0.005);
    INFO("errors " << coarse << " and " << fine);
    CHECK(std::abs(fine) < 1e-4);
    CHECK(std::abs(coarse / fine) == Approx(4.0).epsilon(0.05));  // second order
}

TEST_CASE("frame_spring: a wheel on a torsion spring to the world turns with period 2 pi sqrt(I/k_r)",
          "[validation][spring]") {
    // A body (I_zz = 0.05 kg m^2) held to the world by a frame spring at its centre (k_r = 2 N m/rad,
    // k_t = 100 N/m), started spinning at 1 rad/s about z from its built pose:
    // theta(t) = sin(omega t)/omega, omega = sqrt(k_r/I) = sqrt(40). Midpoint rule, h = 2 ms: the
    // phase error (omega h)^2/12 of omega t, 2e-5 of omega t = 12.6 rad, 4e-5 rad of amplitude.
    const std::string scene =
        "simulation: {duration: 2.0}\n"
        "integrator: {type: implicit_midpoint, dt: 0.002, newton: {absolute_tolerance: 1.0e-12}}\n"
        "elements:\n"
        "  - {name: wheel, type: rigid_body, position: [0, 0, 0], angular_velocity: [0, 0, 1], mass: 1,\n"
        "     inertia: [0.03, 0.04, 0.05, 0, 0, 0]}\n"
        "forces:\n"
        "  - {type: frame_spring, first: {element: wheel}, stiffness: 100, rotational_stiffness: 2}\n";
    auto sim = build_scene(scene);
    run_to_end(*sim);
    const Element* wheel = sim->find_element("wheel");
    const double* c = sim->state().q.data() + wheel->block_coordinate(0);
    const Mat3 R = Quaternion(c[0], c[1], c[2], c[3]).toRotationMatrix();
    const double omega = std::sqrt(2.0 / 0.05);
    CHECK(std::atan2(R(1, 0), R(0, 0)) == Approx(std::sin(omega * 2.0) / omega).margin(1e-4));
    CHECK((R.col(2) - Vec3::UnitZ()).norm() < 1e-12);  // about its principal axis only
    CHECK(node_position(*sim, "wheel", 0).norm() < 1e-12);
}
