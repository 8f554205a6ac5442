// Validation: constraints solved with Lagrange multipliers in the kernel's KKT system
// (plugins/joints ball_joint, kernel/simulation_system.cpp, kernel/newton.cpp).
//
//  - A double pendulum of two rigid bars, each joint a ball_joint (bar 1 to the world, bar 2 to a
//    marker at bar 1's tip), against an independent integration of the reduced (two-angle)
//    equations of motion, and its energy conserved by the implicit midpoint rule to second order.
//  - A compliant joint is a spring: a point mass on a ball_joint of compliance alpha to the world
//    under gravity oscillates as m z'' = -z/alpha - m g.
//  - A body hung from a rod's tip by a ball_joint loads the rod exactly as a point load of its
//    weight at the tip.
#include "compound_double_pendulum.hpp"
#include "scene_runner.hpp"

#include "soma/point_map.hpp"
#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

/// Largest |E - E0| over a run of the double pendulum.
double energy_error(double dt, double duration, const std::string& integrator = "implicit_midpoint") {
    const Bar b1{0.5}, b2{0.4};
    auto sim = build_scene(double_pendulum_scene(b1, b2, 0.8, 0.3, dt, duration, integrator));
    const double e0 = sim->kinetic_energy() + sim->potential_energy();
    double worst = 0.0;
    const int steps = static_cast<int>(std::round(duration / dt));
    for (int n = 0; n < steps; ++n) {
        REQUIRE(step_once(*sim, dt));
        worst = std::max(worst, std::abs(sim->kinetic_energy() + sim->potential_energy() - e0));
    }
    return worst;
}

}  // namespace

TEST_CASE("constraints: a double pendulum of rigid bars matches the reduced equations", "[validation][constraints]") {
    const Bar b1{0.5}, b2{0.4};
    const ReducedComparison run = compare_with_reduced("implicit_midpoint");
    const double worst = run.worst_angle, worst_joint = run.worst_joint;
    const Simulation* sim = run.sim.get();
    INFO("largest angle error " << worst << " rad, largest end-of-step joint gap " << worst_joint << " m");
    // The elbow at the end of the step: the midpoint rule holds the joint at the midpoints, so the
    // end points drift by O(h^2) per step, bounded.
    // Midpoint rule, h = 1 ms, |phi''| ~ 30 rad/s^2: the phase error after 2 s is ~ (h w)^2 w t / 24,
    // below 1e-4 rad; 1e-3 leaves room for the chaotic sensitivity of the second bar.
    CHECK(worst < 1e-3);
    CHECK(worst_joint < 1e-5);

    // The multipliers are the joint forces: at the pivot they carry the weight on average; here
    // just check they are finite and of the order of the weight.
    const VectorX& lambda = sim->constraint_multipliers();
    REQUIRE(lambda.size() == 6);
    CHECK(lambda.allFinite());
    CHECK(lambda.head<3>().norm() < 10 * (b1.mass() + b2.mass()) * kG);
}

TEST_CASE("constraints: the double pendulum's energy error is second order under implicit midpoint",
          "[validation][constraints]") {
    const double coarse = energy_error(4e-3, 1.0), fine = energy_error(2e-3, 1.0);
    INFO("energy error " << coarse << " J at dt = 4 ms, " << fine << " J at 2 ms");
    CHECK(coarse / fine == Approx(4.0).margin(0.6));
}

TEST_CASE("constraints: a compliant joint is a spring", "[validation][constraints]") {
    const double m = 0.5, alpha = 1e-3, dt = 1e-4, duration = 0.3;
    auto sim = build_scene("simulation: {duration: " + num(duration) + "}\n"
                           "integrator: {type: implicit_midpoint, dt: " + num(dt) +
                           ", newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 0}, adaptive: {enabled: false}}\n"
                           "linear_solver: {type: eigen_ldlt}\n"
                           "elements: [{name: bead, type: point_mass, position: [0, 0, 0], mass: " + num(m) + "}]\n"
                           "constraints:\n"
                           "  - {type: ball_joint, first: {element: bead}, second: {world: [0, 0, 0]}, compliance: " +
                           num(alpha) + "}\n"
                           "forces: [{type: gravity, acceleration: [0, 0, " + num(-kG) + "]}]\n");
    const double omega = 1.0 / std::sqrt(m * alpha), amplitude = m * kG * alpha;
    double worst = 0.0;
    for (int n = 1; n <= static_cast<int>(std::round(duration / dt)); ++n) {
        REQUIRE(step_once(*sim, dt));
        const double exact = -amplitude * (1.0 - std::cos(omega * n * dt));
        worst = std::max(worst, std::abs(node_position(*sim, "bead", 0).z() - exact));
    }
    // omega h = 4.5e-3: the trapezoidal phase error after omega t = 13 rad is (omega h)^2/12 * 13 ~ 2e-5 of
    // the amplitude (the LDLT solver works: compliance makes the KKT matrix quasi-definite).
    CHECK(worst < 1e-4 * amplitude);
}

TEST_CASE("constraints: a body hung from a rod's tip loads it as its weight would", "[validation][constraints]") {
    const double m = 0.01, L = 0.5;
    const std::string rod = "  - name: rod\n"
                            "    type: discrete_rod\n"
                            "    geometry: {line: {from: [0, 0, 0], to: [" + num(L) + ", 0, 0], nodes: 21}}\n"
                            "    cross_section: {circle: {radius: 0.002}}\n"
                            "    material: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}\n"
                            "    fixed: {nodes: [0, 1], edges: [0]}\n";
    // The body: a sphere whose origin is at the rod's tip and whose centre of mass hangs 2 cm below.
    auto hung = build_scene("simulation: {duration: 20}\n"
                            "integrator: {type: implicit_euler, dt: 0.05}\n"
                            "elements:\n" + rod +
                            "  - name: body\n"
                            "    type: rigid_body\n"
                            "    position: [" + num(L) + ", 0, 0]\n"
                            "    shape: {sphere: {radius: 0.005}}\n"
                            "    shape_center: [0, 0, -0.02]\n"
                            "    mass: " + num(m) + "\n"
                            "    inertia: [1.0e-7, 1.0e-7, 1.0e-7, 0, 0, 0]\n"
                            "    center_of_mass: [0, 0, -0.02]\n"
                            "constraints:\n"
                            "  - {type: ball_joint, first: {element: body, node: 0}, second: {element: rod, node: -1}}\n"
                            "forces: [{type: gravity, elements: [body]}]\n");
    run_to_end(*hung);
    auto loaded = build_scene("simulation: {duration: 1}\n"
                              "integrator: {type: statics, dt: 1}\n"
                              "elements:\n" + rod +
                              "forces: [{type: point_load, element: rod, nodes: [-1], force: [0, 0, " + num(-m * kG) +
                              "]}]\n");
    run_to_end(*loaded);
    const Vec3 tip_hung = node_position(*hung, "rod", -1), tip_loaded = node_position(*loaded, "rod", -1);
    INFO("tip " << tip_hung.transpose() << " hung, " << tip_loaded.transpose() << " loaded");
    // Implicit Euler at dt = 0.05 s damps the ~2 Hz bending mode by ~1e-20 over 400 steps: the
    // hung state is the static equilibrium, to the Newton tolerance.
    CHECK((tip_hung - tip_loaded).norm() < 1e-6 * std::abs(tip_loaded.z()));
    // And the joint holds the body at the tip.
    CHECK((node_position(*hung, "body", 0) - tip_hung).norm() < 1e-9);
}

TEST_CASE("constraints: Newmark holds the double pendulum's joints from a consistent initial acceleration",
          "[validation][constraints][newmark]") {
    // Newmark's first step starts from a0 solved with the joints held at the acceleration level
    // (the kernel's rows for a solve with c_q = 0); each step holds them at the end point, so the
    // end-of-step gap is Newton's constraint tolerance, and the average-acceleration rule (beta =
    // 1/4, gamma = 1/2) is second order like the midpoint rule.
    // A wrong a0 (one that ignored the joints) would put an error h/2 |a0 error| ~ 1e-2 rad/s into
    // the first step's angular velocity, ~2e-2 rad after 2 s: the angle check below sees it.
    const ReducedComparison run = compare_with_reduced("newmark");
    const double worst = run.worst_angle, worst_joint = run.worst_joint;
    INFO("largest angle error " << worst << " rad, largest end-of-step joint gap " << worst_joint << " m");
    // Same bound and reasoning as the midpoint rule's test above (both second order, h = 1 ms).
    CHECK(worst < 1e-3);
    // Held at the end point to the constraint tolerance 1e-13 m (round-off of Newton's last update).
    CHECK(worst_joint < 1e-11);

    // Second order: halving dt divides the energy error by 4 (as for the midpoint rule above).
    const double coarse = energy_error(4e-3, 1.0, "newmark"), fine = energy_error(2e-3, 1.0, "newmark");
    INFO("energy error " << coarse << " J at dt = 4 ms, " << fine << " J at 2 ms");
    CHECK(coarse / fine == Approx(4.0).margin(0.6));
}

namespace {

/// The largest end-of-step elbow gap of the double pendulum over \p duration at step dt.
double worst_elbow_gap(const std::string& integrator, double dt, double duration) {
    const Bar b1{0.5}, b2{0.4};
    auto sim = build_scene(double_pendulum_scene(b1, b2, 0.8, 0.3, dt, duration, integrator));
    double worst = 0.0;
    const int steps = static_cast<int>(std::round(duration / dt));
    for (int n = 0; n < steps; ++n) {
        REQUIRE(step_once(*sim, dt));
        worst = std::max(worst, (node_position(*sim, "bar2", 0) - node_position(*sim, "bar1", 2)).norm());
    }
    return worst;
}

}  // namespace

TEST_CASE("constraints: the explicit integrators hold the double pendulum's joints at second order and follow "
          "the reduced equations at their order",
          "[validation][constraints][explicit]") {
    // symplectic_euler and bridson_marino evaluate the forces where x does not move q; the joints
    // are held where each step's velocity leads, linearised there (G v+ = -C/h: AffineStep::end_c_q).
    // What is left at the step's end is the rows' curvature, |C(q+)| ~ |v h|^2 / (2 r): second order
    // in h, and corrected by the next step rather than accumulated.
    for (const std::string integrator : {"symplectic_euler", "bridson_marino"}) {
        INFO(integrator);
        const ReducedComparison run = compare_with_reduced(integrator);
        INFO("largest angle error " << run.worst_angle << " rad, largest end-of-step joint gap " << run.worst_joint << " m");
        const double coarse_gap = worst_elbow_gap(integrator, 2e-3, 1.0), fine_gap = worst_elbow_gap(integrator, 1e-3, 1.0);
        const double coarse_energy = energy_error(2e-3, 1.0, integrator), fine_energy = energy_error(1e-3, 1.0, integrator);
        INFO("elbow gap " << coarse_gap << " m at dt = 2 ms, " << fine_gap << " m at 1 ms; energy error " << coarse_energy
                          << " J, " << fine_energy << " J");
        // Bar tips move at up to ~3 m/s about joints 0.2-0.5 m away: (3e-3 m)^2 / (2 x 0.2 m) ~ 2e-5 m
        // at h = 1 ms, bounded over the 2 s.
        CHECK(run.worst_joint < 3e-5);
        CHECK(coarse_gap / fine_gap == Approx(4.0).margin(0.6));
        if (integrator == "bridson_marino") {
            // Each half step is solved to Newton's tolerance, though the bars' forces are nonlinear in
            // the velocity (centripetal terms): the committed end acceleration satisfies
            // M a = f(t, q, v) + G_f^T lambda at the end state to the scene's absolute tolerance 1e-11
            // (a solve stopped after its first Newton step would leave what that step's linearisation of
            // the centripetal terms missed).
            auto sim = build_scene(double_pendulum_scene(Bar{0.5}, Bar{0.4}, 0.8, 0.3, 1e-3, 0.2, integrator));
            double worst = 0.0;
            for (int n = 0; n < 200; ++n) {
                REQUIRE(step_once(*sim, 1e-3));
                const State& s = sim->state();
                AffineStep at_end;
                at_end.t_eval = s.t;
                at_end.q_pred = s.q.head(s.v.size());
                at_end.v_pred = s.v;
                at_end.a_pred = VectorX::Zero(s.v.size());
                at_end.coefficients = {0.0, 0.0, 1.0};
                const VectorX lambda = sim->constraint_multipliers();
                worst = std::max(worst, sim->evaluate(at_end, s.a, lambda, false, false).force_norm);
            }
            INFO("largest |M a - f - G^T lambda| at the committed states " << worst << " N");
            CHECK(worst < 1e-10);
        }
        if (integrator == "symplectic_euler") {
            // First order: the energy error halves with h (it oscillates, bounded: symplectic), and the
            // angles follow at O(h) (~ h w^2 t / 2 ~ 1e-3 x 30 x 2 / 2 = 3e-2 rad on the chaotic second bar).
            CHECK(coarse_energy / fine_energy == Approx(2.0).margin(0.4));
            CHECK(run.worst_angle < 3e-2);
        } else {
            // Second order, as the midpoint rule (its bound above).
            CHECK(coarse_energy / fine_energy == Approx(4.0).margin(0.8));
            CHECK(run.worst_angle < 1e-3);
        }
    }
}
