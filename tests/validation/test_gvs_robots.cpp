// Validation: the `gvs` element (plugins/gvs) in scenes, against closed forms, the discrete rod,
// and itself under changes that should not matter.
//
//  - A Kirchhoff cantilever (L = 0.5 m, radius 1 cm, E = 1 GPa, rho = 1000) under its own weight
//    (statics): the tip deflection of Euler-Bernoulli theory, w = q L^4 / (8 E I). The load keeps the
//    tip within 0.6% of L, where the geometric nonlinearity changes w by about (w/L)^2 ~ 4e-5 and the
//    quadratic curvature q (L - X)^2 / (2 E I) is in the basis: the tolerance 1e-4 covers both. The
//    answer does not move with the number of load steps or the linear solver, and the same
//    cantilever as a discrete_rod agrees within its own discretisation error.
//  - A rod bent by one straight cable of tension T at offset e (statics, no gravity): a uniform
//    curvature kappa = T e / (E I), so the tip lies on the circle of that curvature (inextensible
//    Kirchhoff rod: the closed form is exact, the tolerance is Newton's).
//  - The paper's scenes in configs/gvs/ have the paper's DoF counts (Mathew et al., Table 3).
//  - Loads: a world force at a cantilever's tip (P L^3 / (3 E I)); a body sinking through water on
//    a prismatic joint reaches the terminal speed of its drag, buoyancy and added mass.
//  - Dynamics of the cable-driven manipulator: implicit midpoint and Newmark (both second order)
//    agree, and implicit Euler converges to them at first order in dt.
//  - Closed chains: a rod welded at both ends (q L^4 / (384 E I)); a propped cantilever, its tip
//    hinged by a planar revolute loop joint (q L^4 / (192 E I), the tip turning q L^3 / (48 E I)).
//  - Bad input: an expression error points at its key; the scene's gravity force named on a gvs
//    element is refused with the reason (the robot carries its own gravity).
//  - The kernel's point forces and joints on a robot's points (wide points, point_kinematics.hpp):
//    a point_load at the tip equals the element's own tip wrench; a slider carrying a rod comes
//    to rest on floor_contact with the floor's forces summing to the weight; a ball joint holds
//    the robot's tip at a discrete_rod's tip, and the pair deflects as two springs in parallel; a
//    clamp welds a rigid arm to the robot's end frame (the cantilever with an end moment).
//  - A ball joint's and a clamp's C, G_q and curvature with the robot's wide end against central
//    differences.
//  - viscous_drag on the rod's points: a slider-borne rod falls at the drag's terminal speed.
//  - A spherical joint turned a full turn stops the run with the reason.
#include "rigid_pendulum.hpp"
#include "scene_runner.hpp"

#include "soma/smooth_contact_law.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kLength = 0.5, kRadius = 0.01, kYoung = 1.0e9, kDensity = 1000.0, kGravity = 9.81;
const double kSecondMoment = std::numbers::pi * std::pow(kRadius, 4) / 4.0;
const double kArea = std::numbers::pi * kRadius * kRadius;

// The cantilever's soft link: a Kirchhoff rod with the constants above, its root at its link's frame.
const std::string kBeamLink = "      - name: beam\n"
                              "        soft:\n"
                              "          length: 0.5\n"
                              "          section: {circular: {radius: 0.01}}\n"
                              "          young_modulus: 1.0e9\n"
                              "          poisson_ratio: 0.5\n"
                              "          density: 1000\n"
                              "          strains: {torsion: 2, bending_y: 4, bending_z: 4}\n";

// A robot `robot`: a 0.2 kg slider on a vertical prismatic joint carrying the cantilever's beam.
const std::string kSliderCarryingBeam = "elements:\n"
                                        "  - name: robot\n"
                                        "    type: gvs\n"
                                        "    gravity: [0, 0, -9.81]\n"
                                        "    links:\n"
                                        "      - name: slider\n"
                                        "        joint: {type: prismatic, axis: [0, 0, 1]}\n"
                                        "        rigid: {mass: 0.2, inertia: [1.0e-4, 1.0e-4, 1.0e-4, 0, 0, 0]}\n" +
                                        kBeamLink;

std::string gvs_cantilever(const std::string& integrator, const std::string& extra_soft = "",
                           const std::string& gravity = "[0, 0, -9.81]", const std::string& solver = "eigen_lu") {
    return "simulation: {duration: 1.0}\n" + integrator + "linear_solver: {type: " + solver +
           "}\n"
           "elements:\n"
           "  - name: rod\n"
           "    type: gvs\n"
           "    gravity: " + gravity + "\n"
           "    links:\n"
           + kBeamLink + extra_soft;
}

/// \p scene (a gvs_cantilever) with the beam's strains replaced by \p strains and its Gauss points
/// set to \p gauss_points.
std::string with_strains(std::string scene, const std::string& strains, int gauss_points) {
    const std::string kirchhoff = "strains: {torsion: 2, bending_y: 4, bending_z: 4}";
    return scene.replace(scene.find(kirchhoff), kirchhoff.size(),
                         "strains: " + strains + "\n          gauss_points: " + std::to_string(gauss_points));
}

std::string statics(int load_steps) {
    return "integrator: {type: statics, dt: " + num(1.0 / load_steps) +
           ", ramp_time: 1.0, newton: {absolute_tolerance: 1.0e-11}, adaptive: {enabled: false}}\n";
}

/// The message of a scene that must be refused when it is built (a failed check if it is not).
std::string refusal(const std::string& scene) {
    try {
        build_scene(scene);
    } catch (const std::exception& error) {
        return error.what();
    }
    FAIL_CHECK("the scene was accepted");
    return {};
}

/// Runs a scene that must stop before its end (run_to_end requires it to complete).
RunResult run_expecting_stop(Simulation& simulation) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-validation";
    options.progress = false;
    RunResult result = run_simulation(simulation, options);
    CHECK_FALSE(result.summary.completed);
    return result;
}

Vec3 gvs_tip(const Simulation& simulation, const std::string& element = "rod") { return node_position(simulation, element, -1); }

}  // namespace

TEST_CASE("gvs cantilever under its own weight: Euler-Bernoulli tip deflection, whatever the load steps and solver",
          "[validation][gvs]") {
    const double q = kDensity * kArea * kGravity;
    const double expected = q * std::pow(kLength, 4) / (8.0 * kYoung * kSecondMoment);  // 3.07 mm
    double reference = 0.0;
    for (const auto& [steps, solver] : {std::pair{1, "eigen_lu"}, {4, "eigen_lu"}, {1, "eigen_ldlt"}, {2, "petsc"}}) {
        auto simulation = build_scene(gvs_cantilever(statics(steps), "", "[0, 0, -9.81]", solver));
        run_to_end(*simulation);
        const Vec3 tip = gvs_tip(*simulation);
        INFO("load steps " << steps << ", solver " << solver);
        CHECK(-tip.z() == Approx(expected).epsilon(1e-4));
        if (reference == 0.0) reference = tip.z();
        // Same equilibrium: Newton's tolerance (1e-11 N) over the stiffness, far below 1e-9 relative.
        CHECK(tip.z() == Approx(reference).epsilon(1e-9));
    }

    // The same cantilever as a discrete_rod, clamped by its first two nodes and first edge (so
    // its free length starts at node 1: the rod runs from -h to L). Its clamp puts the error at
    // first order in the node spacing h (measured: 2.0e-2, 1.0e-2 relative at 101, 201 nodes), so
    // the two runs' Richardson extrapolation 2 w(h/2) - w(h) is compared: 2e-4 from the GVS answer
    // (measured), within 1e-3.
    const auto discrete_tip = [](int nodes) {
        const double h = kLength / (nodes - 2);
        auto discrete = build_scene("simulation: {duration: 1.0}\n" + statics(1) +
                                    "linear_solver: {type: eigen_ldlt}\n"
                                    "elements:\n"
                                    "  - name: rod\n"
                                    "    type: discrete_rod\n"
                                    "    geometry: {line: {from: [" + num(-h) + ", 0, 0], to: [0.5, 0, 0], nodes: " +
                                    std::to_string(nodes) + "}}\n"
                                    "    cross_section: {circle: {radius: 0.01}}\n"
                                    "    material: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.5}\n"
                                    "    fixed: {nodes: [0, 1], edges: [0]}\n"
                                    "forces:\n"
                                    "  - {type: gravity, acceleration: [0, 0, -9.81]}\n");
        run_to_end(*discrete);
        return node_position(*discrete, "rod", -1).z();
    };
    const double coarse = discrete_tip(101), fine = discrete_tip(201);
    CHECK((coarse - reference) / (fine - reference) == Approx(2.0).epsilon(0.1));  // first order
    CHECK(2.0 * fine - coarse == Approx(reference).epsilon(1e-3));
}

TEST_CASE("gvs statics: each row's force scale is the sum of its terms, so the balance test can pass",
          "[validation][gvs]") {
    // Two load steps of the same loads (no ramp) under the default balance test: the second starts
    // at the first's equilibrium. With |F| as each row's force scale the balance test could not
    // pass (|F| <= 3e-8 |F|), and the step needed an iteration to find that it moves nothing; with
    // the terms' sizes (ID, K q) the first iterate already passes.
    auto simulation = build_scene(gvs_cantilever(
        "integrator: {type: statics, dt: 1.0, adaptive: {enabled: false}}\n", "", "[0, 0, -9.81]"));
    Simulation& sim = *simulation;
    sim.begin_attempt();
    const StepReport first = sim.integrator().step(sim, 1.0);
    REQUIRE(first.converged);
    CHECK(first.newton_iterations >= 2);
    sim.begin_attempt();
    const StepReport second = sim.integrator().step(sim, 1.0);
    REQUIRE(second.converged);
    CHECK(second.newton_iterations == 0);

    // At the equilibrium: every row's scale is at least |F_i|, and the weight and the bending
    // stiffness that balance it make |S| many orders above |F|.
    const Index n = sim.dof_count();
    AffineStep at_rest;
    at_rest.dt = 1.0;
    at_rest.q_pred = at_rest.v_pred = at_rest.a_pred = VectorX::Zero(n);
    at_rest.coefficients = {1.0, 0.0, 0.0};
    VectorX x = sim.state().q.head(n);
    REQUIRE(sim.begin_solve(at_rest, x).empty());
    const SystemEvaluation e = sim.evaluate(at_rest, x, sim.multipliers(), false, true);
    REQUIRE(e.force_scale != nullptr);
    const auto nf = static_cast<Index>(sim.free_dofs().size());
    for (Index i = 0; i < nf; ++i) CHECK((*e.force_scale)[i] >= std::abs(sim.residual()[i]));
    CHECK(e.force_norm <= 3e-8 * e.force_scale->head(nf).norm());
    CHECK(e.force_scale->head(nf).norm() > 1e-3);  // the terms balance the beam's weight, 1.5 N
}

TEST_CASE("gvs rod bent by a cable: the circle of curvature T e / (E I)", "[validation][gvs]") {
    const double tension = 2.0, offset = 0.005;
    const double kappa = tension * offset / (kYoung * kSecondMoment);  // 1.27 1/m: a quarter-circle-ish bend
    for (const int steps : {1, 5}) {
        auto simulation = build_scene(gvs_cantilever(
            statics(steps), "          cables: [{y: 0, z: " + num(offset) + ", tension: " + num(tension) + "}]\n", "[0, 0, 0]"));
        run_to_end(*simulation);
        const Vec3 tip = gvs_tip(*simulation);
        INFO("load steps " << steps);
        // Towards the cable (+z), on the circle of radius 1 / kappa tangent to x at the base.
        CHECK(tip.x() == Approx(std::sin(kappa * kLength) / kappa).epsilon(1e-9));
        CHECK(tip.z() == Approx((1.0 - std::cos(kappa * kLength)) / kappa).epsilon(1e-9));
        CHECK(std::abs(tip.y()) < 1e-12);
    }
}

TEST_CASE("gvs: the paper's scenes have its DoF counts (Mathew et al., Table 3)", "[validation][gvs]") {
    const char* source = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(source != nullptr);
    const std::filesystem::path configs = std::filesystem::path(source) / "configs" / "gvs";
    // File, element, DoF, points. The manipulator's points are the paper's n_p (the base, 5 or 10
    // Gauss points, the tip). The serial robot's are the base, each rigid link's joint and end
    // frames and the soft link's 6 points (21; the paper counts 22, a point more per link at X = 0
    // of the soft link's fixed joint). The vehicle's: the base, the body, per shaft its offset,
    // joint and end, per hook its offset and the flagellum's 6 points (50; the paper's n_p is 80).
    // The parallel robot's: the base, per pillar its offset (and joint) and 6 points, the platform's
    // offset and joint (26, as the paper's n_p). The fin-ray finger's: the base, the two sidewalls'
    // offsets and joints, the ribs' joints and 17 x 7 rod points (116; the paper's n_p is 136, a
    // point more per soft link).
    for (const auto& [file, element, dofs, points] : {std::tuple{"cable_manipulator.yaml", "manipulator", 24, 7},
                                                        std::tuple{"serial_robot.yaml", "robot", 27, 21},
                                                        std::tuple{"contact_scenario.yaml", "manipulator", 24, 12},
                                                        std::tuple{"underwater_vehicle.yaml", "vehicle", 80, 50},
                                                        std::tuple{"parallel_robot.yaml", "robot", 63, 26},
                                                        std::tuple{"fin_ray_finger.yaml", "finger", 74, 116}}) {
        INFO(file);
        auto simulation = std::make_unique<Simulation>(load_scene_file(configs / file), plugin_registry());
        const Element* e = simulation->find_element(element);
        REQUIRE(e != nullptr);
        CHECK(e->dof_count() == dofs);
        CHECK(static_cast<int>(e->geometry().point_dofs.size()) == points);
    }
}

TEST_CASE("gvs dynamics: implicit midpoint and Newmark agree; implicit Euler converges to them at first order",
          "[validation][gvs]") {
    // The manipulator of configs/gvs/cable_manipulator.yaml for 1 s, cable 0 pulled from rest to
    // 8 N: a swing of about 3 cm.
    const auto tip_at_end = [](const std::string& type, double dt) {
        auto simulation = build_scene(
            "simulation: {duration: 1.0}\n"
            "integrator: {type: " + type + ", dt: " + num(dt) +
            ", newton: {absolute_tolerance: 1.0e-10}, adaptive: {enabled: false}}\n"
            "elements:\n"
            "  - name: rod\n"
            "    type: gvs\n"
            "    base_orientation: [0.7071067811865476, 0, 0.7071067811865476, 0]\n"
            "    gravity: [0, 0, -9.81]\n"
            "    links:\n"
            "      - name: beam\n"
            "        soft:\n"
            "          length: 0.5\n"
            "          section: {circular: {radius: \"0.03 - 0.015*X/L\"}}\n"
            "          young_modulus: 1.0e6\n"
            "          density: 1000\n"
            "          damping: 1.0e4\n"
            "          strains: {torsion: 4, bending_y: 4, bending_z: 4, elongation: 2, shear_y: 2, shear_z: 2}\n"
            "          cables: [{y: 0, z: \"0.03 - 0.015*X/L\"}]\n"
            "controllers:\n"
            "  - {type: actuation, element: rod, channel: cable_tension, values: [\"8*sin(_pi*t/2)^2\"]}\n");
        run_to_end(*simulation);
        return gvs_tip(*simulation);
    };
    const Vec3 midpoint = tip_at_end("implicit_midpoint", 1e-3);
    const Vec3 midpoint_fine = tip_at_end("implicit_midpoint", 5e-4);
    const Vec3 newmark = tip_at_end("newmark", 1e-3);
    const Vec3 euler = tip_at_end("implicit_euler", 2e-3), euler_fine = tip_at_end("implicit_euler", 1e-3);
    const double swing = (midpoint_fine - Vec3(0, 0, -0.5)).norm();
    CHECK(swing > 0.01);
    // Second order: halving dt changes the midpoint answer by ~3/4 of its error (~(dt omega)^2 of
    // the swing); Newmark (trapezoidal) differs from it by the same order.
    CHECK((midpoint - midpoint_fine).norm() < 1e-4 * swing);
    CHECK((newmark - midpoint_fine).norm() < 1e-4 * swing);
    // First order: the error halves with dt (ratio 2 within 10%).
    const double e_coarse = (euler - midpoint_fine).norm(), e_fine = (euler_fine - midpoint_fine).norm();
    CHECK(e_coarse / e_fine == Approx(2.0).epsilon(0.1));
}

TEST_CASE("gvs: bad input is refused at its key", "[validation][gvs]") {
    try {
        build_scene(gvs_cantilever(statics(1), "          cables: [{y: 0, z: \"0.005*(1 + X\"}]\n"));
        FAIL("an unbalanced expression was accepted");
    } catch (const std::exception& error) {
        const std::string what = error.what();
        CHECK(what.find("test.yaml:17:") != std::string::npos);  // the cable's z
        CHECK(what.find("'0.005*(1 + X'") != std::string::npos);
    }
    try {
        build_scene(gvs_cantilever(statics(1)) + "forces:\n  - {type: gravity, elements: [rod]}\n");
        FAIL("the kernel's gravity force was applied to a gvs element");
    } catch (const std::exception& error) {
        const std::string what = error.what();
        CHECK(what.find("own gravity (its `gravity` key)") != std::string::npos);
        CHECK(what.find("test.yaml:18:") != std::string::npos);  // at the force
        CHECK(what.find("forces[0]") != std::string::npos);
    }
    try {  // IMC contact's pair stencils are fixed-size: a robot's points are refused at `elements`
        build_scene(gvs_cantilever(statics(1)) + "forces:\n  - {type: imc_contact, stiffness: 1.0e3, elements: [rod]}\n");
        FAIL("imc_contact was accepted on a gvs element");
    } catch (const std::exception& error) {
        const std::string what = error.what();
        CHECK(what.find("more than IMC contact handles yet") != std::string::npos);
        CHECK(what.find("forces[0].elements") != std::string::npos);
    }
    {  // A wrench whose expression stops being finite during the run stops it there, at its key.
        auto simulation = build_scene(gvs_cantilever("integrator: {type: implicit_euler, dt: 0.01}\n", "", "[0, 0, 0]") +
                                      "    wrenches: [{link: beam, at: end, force: [\"0\", \"0\", \"sqrt(0.05 - t)\"]}]\n");
        const RunResult result = run_expecting_stop(*simulation);
        CHECK(simulation->state().t == Approx(0.05));
        INFO(result.diagnosis);
        CHECK(result.diagnosis.find("test.yaml:17:") != std::string::npos);
        CHECK(result.diagnosis.find("wrenches[0].force") != std::string::npos);
        CHECK(result.diagnosis.find("is not finite") != std::string::npos);
    }
    // Without `elements` the gravity force skips the robot (with a note): its weight stays its own.
    auto own = build_scene(gvs_cantilever(statics(1)));
    auto both = build_scene(gvs_cantilever(statics(1)) + "forces:\n  - {type: gravity}\n");
    run_to_end(*own);
    run_to_end(*both);
    CHECK(gvs_tip(*both).z() == Approx(gvs_tip(*own).z()).epsilon(1e-12));
    try {
        build_scene(gvs_cantilever(statics(1)) + "    wall: {radius: 0.1, stiffness: 1.0e4, links: [beam, beam]}\n");
        FAIL("a link listed twice in the wall was accepted");
    } catch (const std::exception& error) {
        CHECK(std::string(error.what()).find("listed twice") != std::string::npos);
    }
}

TEST_CASE("gvs rigid pendulum: the angle equation; prescribed and fixed joint coordinates", "[validation][gvs]") {
    // A 1 kg body (inertia 2e-3 kg m^2 about its centre, 0.2 m below a revolute joint about x),
    // released at 0.5 rad: theta'' = -(m g l / I_pivot) sin(theta), integrated independently with
    // RK4 (step 1e-4 s: its error ~1e-12). The implicit midpoint rule at dt = 1e-3 s errs by
    // ~omega t (omega dt)^2 / 24 of the amplitude, 2e-5 rad over 1.5 s (omega = 6.9 rad/s).
    const auto pendulum = [](const std::string& joint_entries) {
        return "simulation: {duration: 1.5}\n"
               "integrator: {type: implicit_midpoint, dt: 1.0e-3, newton: {absolute_tolerance: 1.0e-12}, "
               "adaptive: {enabled: false}}\n"
               "elements:\n"
               "  - name: pendulum\n"
               "    type: gvs\n"
               "    gravity: [0, 0, -9.81]\n"
               "    links:\n" +
               kRigidPendulumLink + joint_entries;
    };
    auto simulation = build_scene(pendulum(""));
    run_to_end(*simulation);
    const auto [theta, omega] = rigid_pendulum_reference(1.5);
    const Element* e = simulation->find_element("pendulum");
    CHECK(simulation->state().q[e->global_dof(0)] == Approx(theta).margin(1e-4));
    CHECK(simulation->state().v[e->global_dof(0)] == Approx(omega).margin(1e-3));

    // A prescribed joint follows its expression exactly; a fixed one stays.
    auto driven = build_scene(pendulum("    prescribed: [{coordinates: [0], displacement: [\"0.3*sin(2*t)\"]}]\n"));
    run_to_end(*driven);
    const Element* d = driven->find_element("pendulum");
    CHECK(driven->state().q[d->global_dof(0)] == Approx(0.5 + 0.3 * std::sin(3.0)).epsilon(1e-14));
    auto held = build_scene(pendulum("    fixed: {coordinates: [-1]}\n"));
    run_to_end(*held);
    CHECK(held->state().q[held->find_element("pendulum")->global_dof(0)] == 0.5);
    // Element types without coordinates refuse the key.
    try {
        build_scene("simulation: {duration: 1.0}\n" + statics(1) +
                    "elements:\n"
                    "  - name: rod\n"
                    "    type: discrete_rod\n"
                    "    geometry: {line: {from: [0, 0, 0], to: [0.5, 0, 0], nodes: 5}}\n"
                    "    cross_section: {circle: {radius: 0.01}}\n"
                    "    material: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.5}\n"
                    "    fixed: {coordinates: [0]}\n");
        FAIL("a discrete_rod accepted `coordinates`");
    } catch (const std::exception& error) {
        CHECK(std::string(error.what()).find("has no coordinates") != std::string::npos);
    }
    // An empty list written out would hold nothing: refused at its key.
    try {
        build_scene(pendulum("    fixed: {coordinates: []}\n"));
        FAIL("`coordinates: []` was accepted");
    } catch (const std::exception& error) {
        const std::string what = error.what();
        CHECK(what.find("lists no coordinates") != std::string::npos);
        CHECK(what.find("fixed.coordinates") != std::string::npos);
    }
}

TEST_CASE("gvs loads: a world force at the tip; a body sinking through water reaches its terminal speed",
          "[validation][gvs]") {
    // P = 0.2 N down at the tip (`wrenches`), no gravity: w = P L^3 / (3 E I) = 1.06 mm, 2e-3 of L,
    // where the geometric nonlinearity is ~(w/L)^2 = 5e-6: tolerance 1e-4.
    auto tip_load = build_scene(gvs_cantilever(statics(2), "", "[0, 0, 0]") +
                                "    wrenches: [{link: beam, at: end, force: [\"0\", \"0\", \"-0.2\"]}]\n");
    run_to_end(*tip_load);
    CHECK(-gvs_tip(*tip_load).z() == Approx(0.2 * std::pow(kLength, 3) / (3.0 * kYoung * kSecondMoment)).epsilon(1e-4));

    // A 2 kg body (1.5 kg, and 0.5 kg of ballast on the same frame that displaces nothing: the
    // buoyancy is the displaced water's alone) displacing 1 L of water (net weight 1 kg g) on a
    // vertical prismatic joint, drag
    // D = 5 kg/m, added mass 0.5 kg: (m + m_a) v' = (m - rho_w V) g - D v |v|, so
    // v(t) = -v_t tanh(D v_t t / (m + m_a)), v_t = sqrt((m - rho_w V) g / D) = 1.40 m/s. The implicit
    // midpoint rule at 1 ms is second order: ~1e-7 relative here, tolerance 1e-5.
    const auto sinker = [](double duration) {
        auto simulation = build_scene("simulation: {duration: " + num(duration) +
                                      "}\n"
                                      "integrator: {type: implicit_midpoint, dt: 1.0e-3, newton: {absolute_tolerance: "
                                      "1.0e-12}, adaptive: {enabled: false}}\n"
                                      "elements:\n"
                                      "  - name: sinker\n"
                                      "    type: gvs\n"
                                      "    gravity: [0, 0, -9.81]\n"
                                      "    fluid_density: 1000\n"
                                      "    links:\n"
                                      "      - name: body\n"
                                      "        joint: {type: prismatic, axis: [0, 0, 1]}\n"
                                      "        rigid:\n"
                                      "          mass: 1.5\n"
                                      "          inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0]\n"
                                      "          fluid: {drag: [0, 0, 0, 0, 0, 5.0], added_mass: [0, 0, 0, 0, 0, 0.5], "
                                      "volume: 1.0e-3}\n"
                                      "      - name: ballast\n"  // on the body's frame point, not immersed
                                      "        rigid: {mass: 0.5, inertia: [1.0e-4, 1.0e-4, 1.0e-4, 0, 0, 0]}\n");
        run_to_end(*simulation);
        return simulation->state().v[simulation->find_element("sinker")->global_dof(0)];
    };
    const double terminal = std::sqrt(1.0 * kGravity / 5.0);
    CHECK(sinker(0.2) == Approx(-terminal * std::tanh(5.0 * terminal * 0.2 / 2.5)).epsilon(1e-5));
    CHECK(sinker(4.0) == Approx(-terminal).epsilon(1e-6));
}

TEST_CASE("gvs closed chain: a rod clamped at both ends by a loop weld (Euler-Bernoulli)", "[validation][gvs]") {
    // The cantilever's rod with its tip welded to the base frame at (L, 0, 0) (`gvs_loop_joint`):
    // under its own weight the midspan (the middle Gauss point, X = L/2) falls
    // q L^4 / (384 E I) = 64 um. The bending moment is quadratic in X, inside the basis, but the
    // midspan deflection is a small difference of the two signs of curvature, so the positions'
    // integration along the rod (4th-order Magnus between points) shows: measured 2.8e-3 off at 5
    // Gauss points, 3.1e-4 at 9, 3.6e-5 at 15, falling with the number of points (checked below);
    // the geometric nonlinearity is ~(w/L)^2 = 2e-8.
    const std::string loop = "constraints:\n"
                             "  - type: gvs_loop_joint\n"
                             "    element: rod\n"
                             "    joint: weld\n"
                             "    a: {link: beam, at: end}\n"
                             "    b: {link: base, offset_position: [0.5, 0, 0]}\n";
    const double q = kDensity * kArea * kGravity;
    const double expected = q * std::pow(kLength, 4) / (384.0 * kYoung * kSecondMoment);
    // Extensible: an inextensible rod cannot move its tip along itself at first order, so the weld's
    // axial row would be a zero row of the KKT matrix.
    const auto clamped = [](const std::string& scene, int gauss_points) {
        return with_strains(scene, "{torsion: 2, bending_y: 4, bending_z: 4, elongation: 1}", gauss_points);
    };
    const auto midspan_error = [&](int gauss_points, int steps) {
        auto simulation = build_scene(clamped(gvs_cantilever(statics(steps)), gauss_points) + loop);
        run_to_end(*simulation);
        // The tip stays welded: at (L, 0, 0).
        CHECK((gvs_tip(*simulation) - Vec3(kLength, 0, 0)).norm() < 1e-12);
        const Vec3 mid = node_position(*simulation, "rod", (gauss_points + 1) / 2);
        CHECK(mid.x() == Approx(0.5 * kLength).epsilon(1e-6));
        return std::abs(-mid.z() - expected) / expected;
    };
    const double coarse = midspan_error(9, 1), fine = midspan_error(15, 1);
    CHECK(fine < 1e-4);
    CHECK(fine < 0.2 * coarse);
    CHECK(midspan_error(15, 3) == Approx(fine).margin(1e-9));  // whatever the load steps
    // Dynamics with the constraint (implicit Euler): released from the straight shape it sags and
    // rings down around the same equilibrium (damped by the integrator), the weld held each step.
    auto dynamic = build_scene(clamped(gvs_cantilever("integrator: {type: implicit_euler, dt: 1.0e-3, newton: "
                                                      "{absolute_tolerance: 1.0e-10}}\n"),
                                       15) +
                               loop);
    run_to_end(*dynamic);
    CHECK((gvs_tip(*dynamic) - Vec3(kLength, 0, 0)).norm() < 1e-10);
    CHECK(-node_position(*dynamic, "rod", 8).z() == Approx(expected).epsilon(0.05));

    // A weld on an inextensible rod: its axial row moves with no coordinate, refused at bind.
    try {
        build_scene(gvs_cantilever(statics(1)) + loop);
        FAIL("a weld with a row no coordinate moves was accepted");
    } catch (const std::exception& error) {
        CHECK(std::string(error.what()).find("not independent") != std::string::npos);
    }
    // A loop that is not closed initially is refused at the constraint.
    try {
        build_scene(gvs_cantilever(statics(1)) + "constraints:\n  - {type: gvs_loop_joint, element: rod, joint: weld, "
                                                 "a: {link: beam, at: end}, b: {link: base, offset_position: [0.4, 0, 0]}}\n");
        FAIL("an open loop was accepted");
    } catch (const std::exception& error) {
        CHECK(std::string(error.what()).find("not closed in the initial configuration") != std::string::npos);
    }
}

TEST_CASE("gvs closed chain: a propped cantilever, its tip hinged by a planar revolute loop joint (Euler-Bernoulli)",
          "[validation][gvs]") {
    // The cantilever bending in its xy-plane only (bending_z, and elongation: the hinge holds the
    // tip's axial motion), loaded by a hundredth of its weight along -y, its tip hinged at
    // (L, 0, 0) by a revolute loop joint about z holding only x and y (`planar: true`).
    // Euler-Bernoulli: the midspan falls q L^4 / (192 E I) and the tip turns q L^3 / (48 E I) about
    // z (a weld would hold it at 0). As for the weld, the midspan is a small difference of the two
    // signs of curvature, resolved as the Gauss points grow: measured 1.3e-4 off at 9 points,
    // 1.9e-5 at 15, 2.6e-6 at 25. Why a hundredth: the hinge holds the sagging rod's ends apart,
    // which stretches it by ~(w/L)^2 and stiffens it; at the full weight that moves the midspan by
    // -8.5e-5 (the errors above converge to it), at a hundredth by 1e-8.
    const std::string loop = "constraints:\n"
                             "  - type: gvs_loop_joints\n"
                             "    element: rod\n"
                             "    joints:\n"
                             "      - {joint: revolute, planar: true, a: {link: beam, at: end},\n"
                             "         b: {link: base, offset_position: [0.5, 0, 0]}}\n";
    const double q = 0.01 * kDensity * kArea * kGravity;
    const double midspan = q * std::pow(kLength, 4) / (192.0 * kYoung * kSecondMoment);
    const double tip_turn = q * std::pow(kLength, 3) / (48.0 * kYoung * kSecondMoment);
    const auto planar = [](const std::string& scene, int gauss_points) {
        return with_strains(scene, "{bending_z: 4, elongation: 1}", gauss_points);
    };
    const auto errors = [&](int gauss_points, int steps) {
        auto simulation = build_scene(planar(gvs_cantilever(statics(steps), "", "[0, -0.0981, 0]"), gauss_points) + loop);
        run_to_end(*simulation);
        CHECK((gvs_tip(*simulation) - Vec3(kLength, 0, 0)).norm() < 1e-12);
        const Vec3 mid = node_position(*simulation, "rod", (gauss_points + 1) / 2);
        // The tip's tangent, from the chord of the last two points: the tip and the Gauss point
        // next to it, d = 0.003 L away at 15 points.
        const Vec3 last = node_position(*simulation, "rod", gauss_points);
        const Vec3 chord = gvs_tip(*simulation) - last;
        return std::pair{std::abs(-mid.y() - midspan) / midspan, chord.y() / chord.x()};
    };
    const auto [coarse, coarse_slope] = errors(9, 1);
    const auto [fine, fine_slope] = errors(15, 1);
    CHECK(fine < 1e-4);
    CHECK(fine < 0.2 * coarse);
    CHECK(errors(15, 3).first == Approx(fine).margin(1e-9));  // whatever the load steps
    // The hinge carries no moment, so the curvature grows from 0 at the tip as 3 q L s / (8 E I) and
    // the chord's slope differs from the tip's by 3 (d / L)^2 = 3e-5 of it; the positions are
    // resolved to ~1e-4 (the midspan above): tolerance 1e-3 (measured 1.2e-4).
    CHECK(fine_slope == Approx(tip_turn).epsilon(1e-3));

    // Written without `planar`, the hinge's rows out of the plane (z, the rotations about x and y)
    // move with no coordinate of this planar rod: refused at bind, pointing at `planar`.
    const std::string rod = planar(gvs_cantilever(statics(1), "", "[0, -0.0981, 0]"), 9);
    const auto with = [&](std::string from, const std::string& to) {
        std::string text = loop;
        return text.replace(text.find(from), from.size(), to);
    };
    const std::string full = refusal(rod + with("planar: true, ", ""));
    CHECK(full.find("`planar: true`") != std::string::npos);
    CHECK(full.find("constraints[0].joints[0].joint") != std::string::npos);
    // `planar` on a robot that leaves the plane (bending about y too) would free those
    // directions: refused at `planar`. A frame b off the plane (z offset) is not closed.
    const std::string bending_out = refusal(
        with_strains(gvs_cantilever(statics(1), "", "[0, -0.0981, 0]"), "{bending_y: 2, bending_z: 4, elongation: 1}", 9) +
        loop);
    CHECK(bending_out.find("constraints[0].joints[0].planar") != std::string::npos);
    CHECK(bending_out.find("out of frame b's xy-plane") != std::string::npos);
    CHECK(refusal(rod + with("[0.5, 0, 0]", "[0.5, 0, 0.01]")).find("not closed out of frame b's xy-plane") !=
          std::string::npos);
    // A planar hinge turns about frame b's z axis.
    CHECK(refusal(rod + with("planar: true, ", "planar: true, axis: [1, 0, 0], ")).find("the plane's normal") !=
          std::string::npos);

    // Rows that only a prescribed coordinate moves count as dependent: a slider along x (the
    // actuator) carries an arm on a hinge about z whose end is hinged to the world. Free, the two
    // coordinates move both rows (x, y); with the slider prescribed only the hinge is left.
    const auto slider_arm = [](const std::string& prescribed) {
        return "simulation: {duration: 0.01}\n"
               "integrator: {type: implicit_euler, dt: 1.0e-3}\n"
               "elements:\n"
               "  - name: robot\n"
               "    type: gvs\n"
               "    gravity: [0, -9.81, 0]\n"
               "    links:\n"
               "      - {name: slider, joint: {type: prismatic, axis: [1, 0, 0]}, rigid: {mass: 0.1, inertia: [1.0e-4, "
               "1.0e-4, 1.0e-4, 0, 0, 0]}}\n"
               "      - {name: arm, joint: {type: revolute, axis: [0, 0, 1]}, rigid: {mass: 0.1, inertia: [1.0e-4, "
               "1.0e-4, 1.0e-4, 0, 0, 0], center_of_mass: [0.1, 0, 0], end_position: [0.2, 0, 0]}}\n" +
               prescribed +
               "constraints:\n"
               "  - {type: gvs_loop_joint, element: robot, joint: revolute, planar: true, a: {link: arm, at: end}, "
               "b: {link: base, offset_position: [0.2, 0, 0]}}\n";
    };
    CHECK_NOTHROW(build_scene(slider_arm("")));
    CHECK(refusal(slider_arm("    prescribed: [{coordinates: [0], displacement: [\"0\"]}]\n"))
              .find("fixed and prescribed coordinates do not count") != std::string::npos);
}

TEST_CASE("gvs with the kernel's point forces and joints: point load, floor contact, a ball joint to a discrete rod",
          "[validation][gvs]") {
    const double P = 0.2, cantilever_stiffness = 3.0 * kYoung * kSecondMoment / std::pow(kLength, 3);

    // A point_load at the tip (through the point map) against the element's own world wrench
    // there: the same equilibrium to Newton's tolerance (1e-11 N over a stiffness of 190 N/m:
    // 5e-14 m of a 1.06 mm deflection), and P L^3 / (3 E I) within the beam theory's (w/L)^2.
    auto wrench = build_scene(gvs_cantilever(statics(2), "", "[0, 0, 0]") +
                              "    wrenches: [{link: beam, at: end, force: [\"0\", \"0\", \"-0.2\"]}]\n");
    auto load = build_scene(gvs_cantilever(statics(2), "", "[0, 0, 0]") +
                            "forces:\n  - {type: point_load, element: rod, nodes: [-1], force: [0, 0, -0.2]}\n");
    run_to_end(*wrench);
    run_to_end(*load);
    CHECK(gvs_tip(*load).z() == Approx(gvs_tip(*wrench).z()).epsilon(1e-9));
    CHECK(-gvs_tip(*load).z() == Approx(P / cantilever_stiffness).epsilon(1e-4));

    // A vertical slider (0.2 kg) carrying the cantilever, resting on floor_contact: the slider is
    // free along z, so at equilibrium the floor's forces on the rod's points carry the whole
    // weight, sum_i -E'(gap_i) = (m_slider + rho A L) g, to Newton's tolerance (1e-11 N of
    // 3.5 N), whatever the load steps.
    const double floor_height = -0.0105, floor_stiffness = 1.0e4, band = 1.0e-3;
    for (const int steps : {1, 3}) {
        auto resting = build_scene(
            "simulation: {duration: 1.0}\n" + statics(steps) +
            kSliderCarryingBeam +
            "forces:\n"
            "  - {type: floor_contact, elements: [robot], height: " + num(floor_height) + ", stiffness: " +
            num(floor_stiffness) + ", band: " + num(band) + "}\n");
        run_to_end(*resting);
        const Element& robot = *resting->find_element("robot");
        const Geometry& geometry = robot.geometry();
        double support = 0.0;
        int touching = 0;
        for (std::size_t i = 0; i < geometry.point_dofs.size(); ++i) {
            const double gap = node_position(*resting, "robot", static_cast<long>(i)).z() -
                               (geometry.point_radius[i] + floor_height);
            if (gap >= band) continue;
            support -= penalty_energy(gap, floor_stiffness, kContactSmoothingWidth / band).gradient;
            ++touching;
        }
        INFO("load steps " << steps);
        CHECK(touching >= 5);  // the rod's points, not the slider's frames (radius 0, 1 cm higher)
        CHECK(support == Approx((0.2 + kDensity * kArea * kLength) * kGravity).epsilon(1e-9));
    }

    // A discrete_rod cantilever clamped at x = 1 reaching back to the robot's tip at x = L, held
    // there by a ball_joint, and p at the joint: two springs in parallel, w = p / (k_gvs + k_rod),
    // with k_gvs = 3 E I / L^3 and k_rod the discrete rod's own tip stiffness (measured alone with
    // the same mesh, so its discretisation error cancels). The joint also holds the tips' x
    // together, so their end shortening (~0.6 w^2 / L each) stretches the pair and stiffens it by
    // a part in (w/L)^2 EA L / (E I) (measured: 0.55 % at p = 0.2 N, where w/L = 1e-3): a load of
    // 5 mN keeps that near 3e-6 (it scales with p^2), far inside the tolerance 1e-4.
    const double p = 0.005;
    const int nodes = 51;
    const double h = kLength / (nodes - 2);
    const std::string discrete_rod = "  - name: partner\n"
                                     "    type: discrete_rod\n"
                                     "    geometry: {line: {from: [" + num(1.0 + h) + ", 0, 0], to: [0.5, 0, 0], nodes: " +
                                     std::to_string(nodes) + "}}\n"
                                     "    cross_section: {circle: {radius: 0.01}}\n"
                                     "    material: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.5}\n"
                                     "    fixed: {nodes: [0, 1], edges: [0]}\n";
    const std::string downward = "force: [0, 0, " + num(-p) + "]}\n";
    auto alone = build_scene("simulation: {duration: 1.0}\n" + statics(2) + "elements:\n" + discrete_rod +
                             "forces:\n  - {type: point_load, element: partner, nodes: [-1], " + downward);
    run_to_end(*alone);
    const double rod_stiffness = p / -node_position(*alone, "partner", -1).z();
    auto joined = build_scene(gvs_cantilever(statics(2), "", "[0, 0, 0]") + discrete_rod +
                              "constraints:\n"
                              "  - {type: ball_joint, first: {element: rod, node: -1}, second: {element: partner, node: -1}}\n"
                              "forces:\n  - {type: point_load, element: rod, nodes: [-1], " + downward);
    run_to_end(*joined);
    const double w = -gvs_tip(*joined).z();
    CHECK(w == Approx(p / (cantilever_stiffness + rod_stiffness)).epsilon(1e-4));
    CHECK((gvs_tip(*joined) - node_position(*joined, "partner", -1)).norm() <= 1e-12);
    CHECK(rod_stiffness == Approx(cantilever_stiffness).epsilon(0.05));  // the same beam, discretised
}

TEST_CASE("gvs: a spherical joint turned a full turn stops the run with the reason", "[validation][gvs]") {
    // A body on a spherical joint spun up by a joint torque about z (1 N m on 1e-3 kg m^2) reaches
    // |w| = 2 pi after 0.11 s, where its exponential coordinates are singular: the run stops there
    // with that diagnosis instead of stepping on through a singular T(xi).
    auto spinner = build_scene("simulation: {duration: 0.5}\n"
                               "integrator: {type: implicit_midpoint, dt: 1.0e-3}\n"
                               "elements:\n"
                               "  - name: spinner\n"
                               "    type: gvs\n"
                               "    gravity: [0, 0, 0]\n"
                               "    links:\n"
                               "      - name: body\n"
                               "        joint: {type: spherical}\n"
                               "        rigid: {mass: 1.0, inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0]}\n"
                               "controllers:\n"
                               "  - {type: actuation, element: spinner, channel: joint_force, items: [2], values: [\"1\"]}\n");
    const RunResult result = run_expecting_stop(*spinner);
    CHECK(spinner->state().t == Approx(std::sqrt(2.0 * 2.0 * std::numbers::pi / 1000.0)).epsilon(0.02));
    CHECK(result.diagnosis.find("exponential coordinates are singular") != std::string::npos);
    CHECK(result.diagnosis.find("link 'body'") != std::string::npos);
}

TEST_CASE("gvs with a clamp: a rigid arm welded to the robot's tip frame", "[validation][gvs]") {
    // The cantilever's end frame (`beam.end`) clamped to a rigid arm (a 0.5 m box) that reaches
    // a = 0.5 m further along x, with P = 0.05 N down at the arm's far end, no gravity: the rod's
    // tip carries P and the moment P a, so (Euler-Bernoulli)
    //     w_tip = P L^3 / (3 E I) + P a L^2 / (2 E I),  theta_tip = P L^2 / (2 E I) + P a L / (E I),
    // and the arm's end falls w_tip + a theta_tip = 1.85 mm. The rotation keeps theta^2 ~ 6e-6:
    // tolerance 1e-4. The same with 1 and 3 load steps (Newton's tolerance, 1e-9).
    const double P = 0.05, a = 0.5, EI = kYoung * kSecondMoment, L = kLength;
    const double w_tip = P * std::pow(L, 3) / (3 * EI) + P * a * L * L / (2 * EI);
    const double theta_tip = P * L * L / (2 * EI) + P * a * L / EI;
    double reference = 0.0;
    for (const int steps : {1, 3}) {
        auto welded = build_scene(gvs_cantilever(statics(steps), "", "[0, 0, 0]") +
                                  "  - name: arm\n"
                                  "    type: rigid_body\n"
                                  "    position: [0.75, 0, 0]\n"
                                  "    shape: {box: {size: [0.5, 0.02, 0.02]}}\n"
                                  "    density: 1000\n"
                                  "    markers: [{position: [-0.25, 0, 0]}, {position: [0.25, 0, 0]}]\n"
                                  "constraints:\n"
                                  "  - {type: clamp, first: {element: rod, frame: beam.end}, second: {element: arm, "
                                  "frame: marker_0}}\n"
                                  "forces:\n"
                                  "  - {type: point_load, element: arm, nodes: [3], force: [0, 0, -0.05]}\n");
        run_to_end(*welded);
        const double end = -node_position(*welded, "arm", 3).z();
        INFO("load steps " << steps);
        CHECK(end == Approx(w_tip + a * theta_tip).epsilon(1e-4));
        CHECK(-gvs_tip(*welded).z() == Approx(w_tip).epsilon(1e-4));
        CHECK((gvs_tip(*welded) - node_position(*welded, "arm", 2)).norm() <= 1e-12);
        if (reference == 0.0) reference = end;
        CHECK(end == Approx(reference).epsilon(1e-9));
    }
}

TEST_CASE("gvs: a ball joint's and a clamp's curvature with a robot's wide end against central differences",
          "[validation][gvs]") {
    // The joints read a GVS point or frame through its wide map: C, G_q and the curvature
    // d(G_f^T lambda)/dq (the map's geometric stiffness plus, for the clamp, the torques turning
    // with the frames) against central differences at a bent configuration. h = 1e-6: truncation
    // and round-off near 1e-10 relative (measured: 6e-11 to 6e-10), so 1e-8 leaves room while a
    // missing term is O(1).
    auto scene = build_scene(gvs_cantilever(statics(1), "", "[0, 0, 0]") +
                             "  - name: arm\n"
                             "    type: rigid_body\n"
                             "    position: [0.75, 0, 0]\n"
                             "    shape: {box: {size: [0.5, 0.02, 0.02]}}\n"
                             "    density: 1000\n"
                             "    markers: [{position: [-0.25, 0, 0]}]\n"
                             "constraints:\n"
                             "  - {type: ball_joint, first: {element: rod, node: -1}, second: {element: arm, node: 2}}\n"
                             "  - {type: clamp, first: {element: rod, frame: beam.end}, second: {element: arm, frame: "
                             "marker_0}}\n");
    VectorX q = scene->state().q;
    const Element& rod = *scene->find_element("rod");
    for (Index i = 0; i < rod.dof_count(); ++i) q[rod.global_dof(i)] += 0.3 * std::sin(1.0 + 2.0 * i);
    for (const auto& constraint : scene->constraints()) {
        INFO(constraint->name());
        const Index rows = constraint->row_count(), n = static_cast<Index>(constraint->dofs().size());
        REQUIRE(n > kMaxFrameDofs);  // the robot's end is wide
        ConstraintEvaluation out{VectorX(rows), Eigen::MatrixXd(rows, n), Eigen::MatrixXd(rows, n), Eigen::MatrixXd(n, n)};
        VectorX lambda(rows);
        for (Index r = 0; r < rows; ++r) lambda[r] = 0.7 - 0.4 * r;
        EvalContext context;
        context.q = &q;
        constraint->evaluate(context, lambda.data(), out);
        const ConstraintEvaluation at_q = out;
        Eigen::MatrixXd dvalue(rows, n), dforce(n, n);
        const double h = 1e-6;
        for (Index j = 0; j < n; ++j) {
            // The arm's rotation DOFs are tangent displacements: step them through integrate.
            VectorX step = VectorX::Zero(scene->dof_count()), plus(q.size()), minus(q.size());
            step[constraint->dofs()[static_cast<std::size_t>(j)]] = h;
            scene->integrate(q, step, plus);
            scene->integrate(q, -step, minus);
            context.q = &plus;
            constraint->evaluate(context, lambda.data(), out);
            const VectorX value_plus = out.value, force_plus = out.force_jacobian.transpose() * lambda;
            context.q = &minus;
            constraint->evaluate(context, lambda.data(), out);
            dvalue.col(j) = (value_plus - out.value) / (2 * h);
            dforce.col(j) = (force_plus - out.force_jacobian.transpose() * lambda) / (2 * h);
        }
        CHECK((at_q.position_jacobian - dvalue).norm() <= 1e-8 * dvalue.norm());
        CHECK((at_q.curvature - dforce).norm() <= 1e-8 * dforce.norm());
        CHECK(dforce.norm() > 0.0);
    }
}

TEST_CASE("gvs with viscous_drag: a slider-borne rod falls at the terminal speed of its drag", "[validation][gvs]") {
    // The slider (0.2 kg) carries the cantilever (rho A L = 0.157 kg) down a vertical prismatic
    // joint through viscous_drag eta = 1 Pa s acting on the rod's points by their quadrature
    // lengths (summing to L): at steady state (m_s + rho A L) g = eta L v_t. The time constant
    // m / (eta L) = 0.71 s; 12 s are 17 of them (exp(-17) = 4e-8), and a steady state does not
    // depend on the integrator or its step: tolerance 1e-6, with two steps.
    const double mass = 0.2 + kDensity * kArea * kLength, terminal = mass * kGravity / (1.0 * kLength);
    for (const std::string dt : {"0.02", "0.01"}) {
        auto falling = build_scene("simulation: {duration: 12.0}\n"
                                   "integrator: {type: implicit_euler, dt: " + dt + "}\n" +
                                   kSliderCarryingBeam + "forces:\n  - {type: viscous_drag, viscosity: 1.0}\n");
        run_to_end(*falling);
        INFO("dt " << dt);
        CHECK(falling->state().v[falling->find_element("robot")->global_dof(0)] == Approx(-terminal).epsilon(1e-6));
    }
}
