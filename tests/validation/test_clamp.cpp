// Validation of the clamp (plugins/joints clamp.hpp): a frame held at a frame, in position and
// rotation, through the elements' frame maps.
//
//  (a) A cantilever rod clamped by its start frame, to the world or to a rigid body that is itself
//      clamped to the world, bends under a tip load exactly as the same rod with its first edge
//      fixed (nodes 0, 1 and the twist of edge 0).
//  (b) A rod clamped into a freely spinning rigid body follows it: spun about the rod's axis the
//      twist is transmitted (the free end's material frame turns with the body); spun about a
//      perpendicular axis the bending is (the end tangent stays the body's axis, the free end
//      sweeps round with the body).
//  (c) A compliant clamp is a spring: a body on a clamp of rotational_compliance c under a couple
//      tau turns by asin(tau c) (the law of the sin-based rows), and by tau alpha along a force.
#include "scene_runner.hpp"

#include "soma/element.hpp"
#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

FrameKinematics frame_of(const Simulation& simulation, const std::string& element, Index frame) {
    const Element* e = simulation.find_element(element);
    REQUIRE(e != nullptr);
    EvalContext context;
    context.q = &simulation.state().q;
    FrameKinematics k;
    e->frame_kinematics(frame, context, k);
    return k;
}

/// Angle of the rotation taking \p a to \p b.
double angle_between(const Mat3& a, const Mat3& b) {
    return rotation_log(Quaternion(Mat3(b * a.transpose()))).norm();
}

double direction_angle(const Vec3& a, const Vec3& b) { return std::atan2(a.cross(b).norm(), a.dot(b)); }

const std::string kCantilever = "    type: discrete_rod\n"
                                "    geometry: {line: {from: [0, 0, 0], to: [0.5, 0, 0], nodes: 21}}\n"
                                "    cross_section: {circle: {radius: 0.002}}\n"
                                "    material: {density: 1000, youngs_modulus: 1.0e9, poisson_ratio: 0.3}\n";

std::string statics_scene(const std::string& elements, const std::string& constraints, double load) {
    return "simulation: {duration: 1}\n"
           "integrator: {type: statics, dt: 0.1, ramp_time: 0.5, newton: {absolute_tolerance: 1.0e-12}}\n"
           "elements:\n" + elements + (constraints.empty() ? "" : "constraints:\n" + constraints) +
           "forces: [{type: point_load, element: rod, nodes: [-1], force: [0, 0, " + num(-load) + "]}]\n";
}

}  // namespace

TEST_CASE("clamp: a cantilever clamped by its start frame bends as one with its first edge fixed", "[validation][clamp]") {
    // P L^3 / (3 EI) = 0.03 * 3.3 = 0.1 m: a tenth of a metre of a 0.5 m rod, geometrically nonlinear.
    const double load = 0.03;
    auto fixed = build_scene(statics_scene("  - name: rod\n" + kCantilever + "    fixed: {nodes: [0, 1], edges: [0]}\n", "", load));
    run_to_end(*fixed);
    auto to_world = build_scene(statics_scene("  - name: rod\n" + kCantilever,
                                              "  - {type: clamp, first: {element: rod, frame: start}, second: {world: [0, 0, 0]}}\n",
                                              load));
    run_to_end(*to_world);
    // The same through a rigid body clamped to the world: two clamps in series, the body without
    // stiffness of its own (statics: no inertia).
    auto through_body = build_scene(statics_scene(
        "  - name: rod\n" + kCantilever +
            "  - {name: base, type: rigid_body, position: [0, 0, 0], orientation: [0.9238795325, 0, 0, 0.3826834324], "
            "mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n",
        "  - {type: clamp, first: {element: rod, frame: start}, second: {element: base}}\n"
        "  - {type: clamp, first: {element: base}, second: {world: [0, 0, 0]}}\n",
        load));
    run_to_end(*through_body);
    const Vec3 tip = node_position(*fixed, "rod", -1);
    INFO("tip: fixed edge " << tip.transpose() << ", clamped to the world " << node_position(*to_world, "rod", -1).transpose()
                            << ", through a body " << node_position(*through_body, "rod", -1).transpose());
    REQUIRE(tip.z() < -0.08);  // a large deflection
    // The clamp holds node 0 and the first edge's direction and material frame; the fixed rod
    // holds nodes 0 and 1 and theta_0. They differ only by the stretch of edge 0, whose axial
    // force is the load's component along the clamped tangent x: zero. So both are one problem,
    // solved to the Newton tolerance (|F| <= 1e-12 N on forces of 0.03 N with a stiffness
    // ~ EI/dl^3 ~ 1e3 N/m: 1e-14 m); 1e-9 of the deflection is round-off margin.
    CHECK((node_position(*to_world, "rod", -1) - tip).norm() < 1e-9 * std::abs(tip.z()));
    CHECK((node_position(*through_body, "rod", -1) - tip).norm() < 1e-9 * std::abs(tip.z()));
    // The body is held: origin and orientation (hard rows, to the constraint tolerance 1e-10).
    const FrameKinematics base = frame_of(*through_body, "base", 0);
    CHECK(base.origin.norm() < 1e-10);
    CHECK(angle_between(base.rotation, Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitZ()).toRotationMatrix()) < 1e-9);
}

namespace {

/// A rod along the body's x axis clamped into a heavy body spinning freely at \p omega (world).
std::unique_ptr<Simulation> spinning_scene(const Vec3& omega) {
    return build_scene("simulation: {duration: 2}\n"
                       "integrator: {type: implicit_euler, dt: 0.01, newton: {absolute_tolerance: 1.0e-10}}\n"
                       "elements:\n"
                       "  - name: rod\n"
                       "    type: discrete_rod\n"
                       "    geometry: {line: {from: [0, 0, 0], to: [0.3, 0, 0], nodes: 16}}\n"
                       "    cross_section: {circle: {radius: 0.005}}\n"
                       "    material: {density: 1000, youngs_modulus: 1.0e8, poisson_ratio: 0.5}\n"
                       "  - name: hub\n"
                       "    type: rigid_body\n"
                       "    position: [0, 0, 0]\n"
                       "    mass: 10\n"
                       "    inertia: [1, 1, 1, 0, 0, 0]\n"
                       "    angular_velocity: [" + num(omega.x()) + ", " + num(omega.y()) + ", " + num(omega.z()) + "]\n"
                       "constraints:\n"
                       "  - {type: clamp, first: {element: rod, frame: start}, second: {element: hub, frame: body}}\n");
}

}  // namespace

TEST_CASE("clamp: a rod clamped into a spinning body twists with it", "[validation][clamp]") {
    // Spin about the rod's own axis: only the twist is transmitted. The rod's twist inertia
    // (2e-8 kg m^2) is negligible next to the hub's (1 kg m^2), and its torsional mode
    // (~1e3 rad/s, omega h ~ 10) is damped by implicit Euler within a few steps, so the rod turns
    // rigidly with the hub: its end frames are the hub's rotation applied to their initial ones.
    auto sim = spinning_scene(Vec3(3.0, 0.0, 0.0));
    const Mat3 hub0 = frame_of(*sim, "hub", 0).rotation;
    const Mat3 start0 = frame_of(*sim, "rod", 0).rotation, end0 = frame_of(*sim, "rod", 1).rotation;
    double worst_start = 0.0, worst_end = 0.0, turned = 0.0;
    for (int n = 1; n <= 200; ++n) {
        REQUIRE(step_once(*sim, 0.01));
        const Mat3 carried = frame_of(*sim, "hub", 0).rotation * hub0.transpose();
        turned = angle_between(hub0, frame_of(*sim, "hub", 0).rotation);
        worst_start = std::max(worst_start, angle_between(carried * start0, frame_of(*sim, "rod", 0).rotation));
        if (n > 50) worst_end = std::max(worst_end, angle_between(carried * end0, frame_of(*sim, "rod", 1).rotation));
    }
    INFO("hub turned to " << turned << " rad; clamped frame off by " << worst_start << " rad, free end by " << worst_end);
    // 3 rad/s for 2 s about a principal axis (constant spin; the rod's share of the angular
    // momentum is 2e-8): 6 rad, seen as the angle 2 pi - 6.
    CHECK(turned == Approx(2.0 * std::numbers::pi - 6.0).margin(1e-6));
    CHECK(worst_start < 1e-9);   // the hard clamp's rows, to the constraint tolerance
    // The free end lags by the twist needed to accelerate its own small inertia, zero at constant
    // spin; after the transient (n > 50) what remains is the solver tolerance.
    CHECK(worst_end < 1e-6);
}

TEST_CASE("clamp: a rod clamped into a spinning body is swung round with it", "[validation][clamp]") {
    // Spin about z, perpendicular to the rod: the bending moment is transmitted. The rod starts at
    // rest while the hub spins, so its first bending mode (omega_1 = 3.52 sqrt(EI/(rho A L^4))
    // = 31 rad/s) is excited with a tip amplitude ~ omega L / omega_1 = 0.02 m; implicit Euler at
    // omega_1 h = 0.31 shrinks its energy by 1/(1 + 0.096) per step, so after 100 steps the
    // amplitude is below 1e-2 * e^{-4.6} ~ 1e-4 rad of tip direction. Centrifugal force is along
    // the rod and bends nothing; the hub's spin is constant up to the rod's share of the angular
    // momentum (7e-4 of the hub's).
    auto sim = spinning_scene(Vec3(0.0, 0.0, 2.0));
    double worst_tangent = 0.0, worst_tip = 0.0;
    for (int n = 1; n <= 200; ++n) {
        REQUIRE(step_once(*sim, 0.01));
        const FrameKinematics hub = frame_of(*sim, "hub", 0);
        const FrameKinematics start = frame_of(*sim, "rod", 0);
        const Vec3 axis = hub.rotation.col(0);  // the hub's x axis: the rod's direction as built
        worst_tangent = std::max(worst_tangent, direction_angle(axis, start.rotation.col(2)));
        if (n > 100)
            worst_tip = std::max(worst_tip, direction_angle(axis, node_position(*sim, "rod", -1) - hub.origin));
    }
    const Mat3 hub = frame_of(*sim, "hub", 0).rotation;
    INFO("end tangent off the hub's axis by " << worst_tangent << " rad; tip direction by " << worst_tip << " rad");
    // After 2 s at 2 rad/s the hub has turned by about 4 rad (less the rod's share of the momentum).
    CHECK(std::atan2(hub(1, 0), hub(0, 0)) == Approx(4.0 - 2.0 * std::numbers::pi).margin(0.05));
    CHECK(worst_tangent < 1e-9);
    CHECK(worst_tip < 1e-3);
}

TEST_CASE("clamp: a compliant clamp is a torsion spring and a linear spring", "[validation][clamp]") {
    // A body on a clamp to the world, loaded by a couple of two opposite forces F along x at
    // markers (0, +-d, 0) plus a net force p along z. The couple's torque about z is 2 F d cos(phi)
    // at the turned angle phi; the clamp's torque is sin(2 phi)/(2 c) (clamp.hpp), so
    // sin(phi) = 2 F d c: phi = asin(tau c) with tau = 2 F d, not the first-order tau c. The origin
    // moves by p alpha along z.
    const double F = 2.0, d = 0.1, p = 3.0, c = 1.25, alpha = 1e-3;
    const double tau = 2.0 * F * d;  // tau c = 0.5: phi = pi/6, 4.7% more than tau c
    auto sim = build_scene(
        "simulation: {duration: 1}\n"
        "integrator: {type: statics, dt: 0.1, ramp_time: 0.5, newton: {absolute_tolerance: 1.0e-12}}\n"
        "elements:\n"
        "  - {name: body, type: rigid_body, position: [0, 0, 0], mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0],\n"
        "     markers: [{position: [0, " + num(d) + ", 0]}, {position: [0, " + num(-d) + ", 0]}]}\n"
        "constraints:\n"
        "  - {type: clamp, first: {element: body}, second: {world: [0, 0, 0]}, compliance: " + num(alpha) +
        ", rotational_compliance: " + num(c) + "}\n"
        "forces:\n"
        "  - {type: point_load, element: body, nodes: [2], force: [" + num(-F) + ", 0, " + num(p / 2) + "]}\n"
        "  - {type: point_load, element: body, nodes: [3], force: [" + num(F) + ", 0, " + num(p / 2) + "]}\n");
    run_to_end(*sim);
    const FrameKinematics body = frame_of(*sim, "body", 0);
    const double phi = std::atan2(body.rotation(1, 0), body.rotation(0, 0));
    INFO("turned by " << phi << " rad (asin(tau c) = " << std::asin(tau * c) << "), origin at " << body.origin.transpose());
    // Statics to |F| <= 1e-12 on an O(1) stiffness: the angle to ~1e-12; 1e-9 is margin.
    CHECK(phi == Approx(std::asin(tau * c)).margin(1e-9));
    CHECK((body.origin - Vec3(0.0, 0.0, p * alpha)).norm() < 1e-9 * p * alpha);
    CHECK(body.rotation.col(2).z() == Approx(1.0).margin(1e-12));  // the turn is about z only
    // The multipliers are the clamp's force and torque on the body... with the sign of
    // clamp.hpp: the body (frame 1) feels +lambda_x and M_1^T lambda_r = cos(phi) lambda_r,
    // balancing the loads: lambda_x = -(0, 0, p), lambda_r = -(0, 0, tau).
    const VectorX& lambda = sim->constraint_multipliers();
    REQUIRE(lambda.size() == 6);
    CHECK((lambda.head<3>() - Vec3(0.0, 0.0, -p)).norm() < 1e-9 * p);
    CHECK((lambda.tail<3>() - Vec3(0.0, 0.0, -tau)).norm() < 1e-9 * tau);
}

TEST_CASE("clamp: scene errors are located", "[validation][clamp]") {
    const std::string head = "simulation: {duration: 1}\n"
                             "integrator: {type: statics, dt: 0.1}\n"
                             "elements:\n"
                             "  - {name: bead, type: point_mass, position: [0, 0, 0], mass: 1}\n"
                             "  - name: rod\n" + kCantilever;
    CHECK_THROWS_WITH(build_scene(head + "constraints: [{type: clamp, first: {element: bead}, second: {world: [0, 0, 0]}}]\n"),
                      Catch::Contains("test.yaml:10:") && Catch::Contains("first.element") &&
                          Catch::Contains("element 'bead' has no frames"));
    CHECK_THROWS_WITH(build_scene(head + "constraints: [{type: clamp, first: {element: rod, frame: tip}, second: {world: [0, 0, 0]}}]\n"),
                      Catch::Contains("first.frame") && Catch::Contains("no frame 'tip' (its frames: start, end)"));
    CHECK_THROWS_WITH(build_scene(head + "constraints: [{type: clamp, first: {element: rod, frame: end}, second: {world: [0, 0, 0]}}]\n"),
                      Catch::Contains("second") && Catch::Contains("0.5 m apart"));
    CHECK_THROWS_WITH(build_scene(head + "constraints: [{type: clamp, first: {element: rod}, second: {world: [0, 0, 0]}, "
                                         "rotation_offset: {axis: [0, 0, 0], angle_deg: 10}}]\n"),
                      Catch::Contains("rotation_offset.axis"));
}
