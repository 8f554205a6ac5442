// Validation: the frame joints of plugins/joints (revolute, prismatic, universal, cylindrical,
// planar; prescribed coordinates; joint_drive) on rigid bodies.
//
//  - The double pendulum of test_constraints.cpp with revolute joints instead of ball joints and
//    gravity also across its plane, which the hinges carry: against the same independent
//    integration of its reduced two-angle equations, and planar.
//  - Holding torques: a three-link spatial arm held by revolute joints whose coordinates are
//    prescribed at 0; the coordinate rows' multipliers are the joint torques, which statics gives
//    by the recursive sum tau_i = -sum_{k >= i} ((c_k - p_i) x m_k g) . a_i over the links outboard
//    of joint i (the motors' torques on the outer links are internal to that subtree).
//  - A body on a prismatic joint along a downhill axis: the slide is g.n t^2 / 2, which the
//    implicit midpoint rule integrates exactly (a constant acceleration).
//  - A motor turning a wheel by theta = 2 t^2 past several turns: the wheel's rotation is the
//    prescribed one (the angle row's difference is taken modulo a turn), and the row's multiplier
//    is the torque I alpha = 0.2 N m (implicit Euler's second difference of a quadratic is exact).
//  - A pendulum held by a PD joint_drive at a target angle settles where the spring balances the
//    weight, k (theta* - theta) = m g l sin(theta), and the drive's effort statistic is that torque.
//  - Universal, cylindrical and planar joints leave free exactly what they should: a body on each
//    moves under gravity and spin with the constrained relations holding to Newton's tolerance.
#include "compound_double_pendulum.hpp"
#include "scene_runner.hpp"

#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

std::string vec(const Vec3& v) { return "[" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + "]"; }

std::string quaternion(const Quaternion& q) {
    return "[" + num(q.w()) + ", " + num(q.x()) + ", " + num(q.y()) + ", " + num(q.z()) + "]";
}

Mat3 body_rotation(const Simulation& sim, const std::string& name) {
    const Element* e = sim.find_element(name);
    const double* c = sim.state().q.data() + e->block_coordinate(0);
    return Quaternion(c[0], c[1], c[2], c[3]).toRotationMatrix();
}

const std::string kTightNewton =
    ", newton: {absolute_tolerance: 1.0e-11, relative_tolerance: 0, constraint_tolerance: 1.0e-13}, "
    "adaptive: {enabled: false}";

/// The rest angle of a pendulum (weight's moment m g l) held by a PD drive of stiffness k at
/// \p target: k (target - theta) = m g l sin(theta), by Newton from 0.
double drive_equilibrium(double k, double target, double mgl) {
    double theta = 0.0;
    for (int i = 0; i < 50; ++i) theta -= (k * (target - theta) - mgl * std::sin(theta)) / (-k - mgl * std::cos(theta));
    return theta;
}

}  // namespace

TEST_CASE("multibody joints: a double pendulum on revolute joints matches the reduced equations",
          "[validation][multibody]") {
    const Bar b1{0.5};
    const double phi1 = 0.8;
    const Vec3 tip(-b1.length * std::sin(phi1), 0.0, -b1.length * std::cos(phi1));
    const std::string joints =
        "  - {type: revolute_joint, name: pivot, first: {element: bar1}, at: [0, 0, 0], axis: [0, 1, 0]}\n"
        "  - {type: revolute_joint, name: elbow, first: {element: bar2}, second: {element: bar1}, at: " + vec(tip) +
        ", axis: [0, 1, 0]}\n";
    // Gravity also pulls across the plane (3 m/s^2 along y): the hinges carry it and keep the
    // motion planar, which ball joints would not.
    const ReducedComparison run = compare_with_reduced("implicit_midpoint", joints, 3.0);
    INFO("largest angle error " << run.worst_angle << " rad, largest end-of-step joint gap " << run.worst_joint << " m");
    // The same bounds as the ball-joint pendulum (test_constraints.cpp): the midpoint rule's phase
    // error after 2 s at h = 1 ms is below 1e-4 rad; the joint holds at the step's midpoints, so
    // its end-of-step gap is O(h^2) and bounded.
    CHECK(run.worst_angle < 1e-3);
    CHECK(run.worst_joint < 1e-5);
    // The hinges keep both bars turning about y only.
    for (const char* bar : {"bar1", "bar2"}) CHECK((body_rotation(*run.sim, bar).col(1) - Vec3::UnitY()).norm() < 1e-9);
}

TEST_CASE("multibody joints: prescribed coordinates hold a spatial arm with the recursive holding torques",
          "[validation][multibody]") {
    struct Link {
        double mass;
        Vec3 center, joint, axis;
        Quaternion orientation;
    };
    const Link links[3] = {
        {2.0, Vec3(0.1, 0.05, 0.3), Vec3(0, 0, 0), Vec3(0.3, 1, 0.2), Quaternion(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()))},
        {1.5, Vec3(0.35, 0.1, 0.55), Vec3(0.15, 0.05, 0.5), Vec3(0, 1, 0.2), Quaternion(Eigen::AngleAxisd(-0.6, Vec3(0, 1, 1).normalized()))},
        {0.7, Vec3(0.6, 0.3, 0.5), Vec3(0.5, 0.15, 0.6), Vec3(1, 0.3, -0.4), Quaternion(Eigen::AngleAxisd(1.1, Vec3(1, 0, 1).normalized()))},
    };
    std::string scene = "simulation: {duration: 0.02}\n"
                        "integrator: {type: implicit_euler, dt: 0.01" + kTightNewton + "}\n"
                        "elements:\n";
    for (int k = 0; k < 3; ++k)
        scene += "  - {name: link" + std::to_string(k) + ", type: rigid_body, position: " + vec(links[k].center) +
                 ", orientation: " + quaternion(links[k].orientation) + ", mass: " + num(links[k].mass) +
                 ", inertia: [0.01, 0.02, 0.015, 0.001, 0, 0.002]}\n";
    scene += "constraints:\n";
    for (int k = 0; k < 3; ++k)
        scene += "  - {type: revolute_joint, name: joint" + std::to_string(k) + ", first: {element: link" +
                 std::to_string(k) + "}" + (k > 0 ? ", second: {element: link" + std::to_string(k - 1) + "}" : "") +
                 ", at: " + vec(links[k].joint) + ", axis: " + vec(links[k].axis) + ", coordinate: '0'}\n";
    scene += "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto sim = build_scene(scene);
    REQUIRE(step_once(*sim, 0.01));
    REQUIRE(step_once(*sim, 0.01));
    const VectorX& lambda = sim->constraint_multipliers();
    REQUIRE(lambda.size() == 18);
    const Vec3 g(0, 0, -9.81);
    for (int i = 0; i < 3; ++i) {
        double expected = 0.0;
        for (int k = i; k < 3; ++k)
            expected -= (links[k].center - links[i].joint).cross(links[k].mass * g).dot(links[i].axis.normalized());
        INFO("joint " << i);
        // Newton's tolerance 1e-11 on forces of ~20 N: the multipliers to ~1e-10 relative.
        CHECK(lambda[6 * i + 5] == Approx(expected).epsilon(1e-9));
        CHECK(std::abs(expected) > 0.1);  // a load worth checking
    }
    // Held: nothing moved.
    for (int k = 0; k < 3; ++k) CHECK((node_position(*sim, "link" + std::to_string(k), 0) - links[k].center).norm() < 1e-12);
}

TEST_CASE("multibody joints: a body slides down a prismatic joint as g.n t^2 / 2", "[validation][multibody]") {
    const Vec3 n = Vec3(1, 0.5, -1).normalized();
    const Quaternion start(Eigen::AngleAxisd(0.4, Vec3(0, 1, 1).normalized()));
    const std::string scene =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: implicit_midpoint, dt: 0.01" + kTightNewton + "}\n"
        "elements:\n"
        "  - {name: slider, type: rigid_body, position: [0.1, 0.2, 0.3], orientation: " + quaternion(start) +
        ", mass: 1.5, inertia: [0.01, 0.02, 0.03, 0, 0, 0]}\n"
        "constraints:\n"
        "  - {type: prismatic_joint, first: {element: slider}, at: [0.3, 0.2, 0.3], axis: " + vec(n) + "}\n"
        "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto sim = build_scene(scene);
    for (int s = 0; s < 100; ++s) REQUIRE(step_once(*sim, 0.01));
    const double slide = 0.5 * Vec3(0, 0, -9.81).dot(n) * 1.0;
    // The midpoint rule is exact for a constant acceleration: the error is Newton's (1e-11 N on 1.5 kg).
    CHECK((node_position(*sim, "slider", 0) - (Vec3(0.1, 0.2, 0.3) + slide * n)).norm() < 1e-10);
    CHECK((body_rotation(*sim, "slider") - start.toRotationMatrix()).norm() < 1e-10);
}

namespace {

/// A wheel on a revolute joint about z whose angle is prescribed as 2 t^2, under gravity.
std::string motor_wheel_scene(const std::string& integrator, double dt, double duration) {
    return "simulation: {duration: " + num(duration) + "}\n"
           "integrator: {type: " + integrator + ", dt: " + num(dt) + kTightNewton + "}\n"
           "elements:\n"
           "  - {name: wheel, type: rigid_body, position: [0, 0, 1], mass: 3, inertia: [0.02, 0.03, 0.05, 0, 0, 0]}\n"
           "constraints:\n"
           "  - {type: revolute_joint, name: motor, first: {element: wheel}, at: [0, 0, 1], axis: [0, 0, 1], "
           "coordinate: '2*t^2'}\n"
           "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
}

/// The angle (rad) between the wheel's orientation and the prescribed turn 2 t^2 about z.
double wheel_angle_error(const Simulation& sim, double t) {
    const Mat3 expected = Eigen::AngleAxisd(2 * t * t, Vec3::UnitZ()).toRotationMatrix();
    return rotation_log(Quaternion(Mat3(body_rotation(sim, "wheel").transpose() * expected))).norm();
}

}  // namespace

TEST_CASE("multibody joints: a motor turns a wheel by 2 t^2 through several turns", "[validation][multibody]") {
    auto sim = build_scene(motor_wheel_scene("implicit_euler", 0.01, 2.0));
    for (int s = 1; s <= 200; ++s) {
        REQUIRE(step_once(*sim, 0.01));
        const double t = 0.01 * s;
        INFO("t = " << t);
        REQUIRE(wheel_angle_error(*sim, t) < 1e-9);
        // From the second step on, implicit Euler's acceleration is the exact second difference 4 rad/s^2.
        if (s >= 2) REQUIRE(sim->constraint_multipliers()[5] == Approx(0.05 * 4.0).epsilon(1e-8));
    }
}

TEST_CASE("multibody joints: the explicit integrators follow a motor's prescribed angle at its end time",
          "[validation][multibody][explicit]") {
    // The wheel's angle is prescribed (a time-dependent row). symplectic_euler and bridson_marino
    // hold the rows where the step ends, at t + dt (its target there), linearised; the rows are
    // linear in a turn about the fixed axis, so what is left is round-off (as implicit Euler's
    // 1e-9 above). Held at the step's start time instead, the angle would lag by h omega, up to
    // 4e-3 rad at omega = 4 t, h = 1 ms.
    for (const std::string integrator : {"symplectic_euler", "bridson_marino"}) {
        INFO(integrator);
        auto sim = build_scene(motor_wheel_scene(integrator, 1e-3, 1.0));
        double worst = 0.0;
        for (int s = 1; s <= 1000; ++s) {
            REQUIRE(step_once(*sim, 1e-3));
            worst = std::max(worst, wheel_angle_error(*sim, 1e-3 * s));
        }
        INFO("largest angle error " << worst << " rad");
        CHECK(worst < 1e-9);
    }
}

TEST_CASE("multibody joints: a PD drive holds a pendulum where its spring balances the weight", "[validation][multibody]") {
    const double k = 5.0, d = 0.5, target = 0.3, m = 1.0, l = 0.2, g = 9.81;
    const std::string scene =
        "simulation: {duration: 10.0}\n"
        "integrator: {type: implicit_euler, dt: 0.01" + kTightNewton + "}\n"
        "elements:\n"
        "  - {name: bob, type: rigid_body, position: [0, 0, -0.2], mass: 1, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0]}\n"
        "constraints:\n"
        "  - {type: revolute_joint, name: hinge, first: {element: bob}, at: [0, 0, 0], axis: [1, 0, 0]}\n"
        "forces:\n"
        "  - {type: gravity, acceleration: [0, 0, -9.81]}\n"
        "  - {type: joint_drive, name: servo, joint: hinge, stiffness: " + num(k) + ", damping: " + num(d) +
        ", target: '" + num(target) + "'}\n";
    auto sim = build_scene(scene);
    run_to_end(*sim);
    // theta from the bob's position; the equilibrium by Newton on k (target - theta) = m g l sin(theta).
    const Vec3 bob = node_position(*sim, "bob", 0);
    const double theta = std::atan2(bob.y(), -bob.z());
    const double equilibrium = drive_equilibrium(k, target, m * g * l);
    // Damped at rate ~5/s over 10 s (e^-50), then Newton's tolerance: 1e-9 rad is generous.
    CHECK(theta == Approx(equilibrium).margin(1e-9));
    CHECK(equilibrium > 0.1);
    // The drive's statistics at the committed state.
    const Contributor* servo = nullptr;
    for (const Contributor* c : sim->contributors())
        if (c->name() == "servo") servo = c;
    REQUIRE(servo);
    EvalContext context;
    context.t = sim->state().t;
    context.q = &sim->state().q;
    context.v = &sim->state().v;
    CHECK(servo->statistic(0, context) == Approx(theta).margin(1e-12));
    CHECK(servo->statistic(2, context) == Approx(m * g * l * std::sin(theta)).epsilon(1e-8));
}

TEST_CASE("multibody joints: a pendulum built at an angle (initial_coordinate) counts from its zero", "[validation][multibody]") {
    // The PD-held pendulum above, built at 0.5 rad instead of hanging: with initial_coordinate 0.5
    // the joint reads 0.5 there, so the drive pulls it to the same equilibrium as the pendulum built
    // hanging, and its statistic reads the angle from the hanging position.
    const double k = 5.0, d = 0.5, target = 0.3, m = 1.0, l = 0.2, g = 9.81, built = 0.5;
    // The drive is left out with a prescribed angle (nothing else may act on it).
    const auto scene = [&](const std::string& joint_extra, const std::string& more, const std::string& more_forces = "") {
        const bool prescribed = joint_extra.find("coordinate: '") != std::string::npos;
        return "simulation: {duration: 10.0}\n"
               "integrator: {type: implicit_euler, dt: 0.01" + kTightNewton + "}\n"
               "elements:\n"
               "  - {name: bob, type: rigid_body, position: [0, " + num(l * std::sin(built)) + ", " + num(-l * std::cos(built)) +
               "], mass: 1, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0]}\n"
               "constraints:\n"
               "  - {type: revolute_joint, name: hinge, first: {element: bob}, at: [0, 0, 0], axis: [1, 0, 0]" + joint_extra + "}\n" +
               more +
               "forces:\n"
               "  - {type: gravity, acceleration: [0, 0, -9.81]}\n" +
               (prescribed ? std::string()
                           : "  - {type: joint_drive, name: servo, joint: hinge, stiffness: " + num(k) + ", damping: " +
                                 num(d) + ", target: '" + num(target) + "'}\n") +
               more_forces;
    };
    auto sim = build_scene(scene(", initial_coordinate: " + num(built), ""));
    const Contributor* servo = nullptr;
    for (const Contributor* c : sim->contributors())
        if (c->name() == "servo") servo = c;
    REQUIRE(servo);
    const auto statistic = [&](std::size_t index) {
        EvalContext context;
        context.t = sim->state().t;
        context.q = &sim->state().q;
        context.v = &sim->state().v;
        return servo->statistic(index, context);
    };
    CHECK(statistic(0) == Approx(built).margin(1e-12));  // the angle as built
    run_to_end(*sim);
    const Vec3 bob = node_position(*sim, "bob", 0);
    const double theta = std::atan2(bob.y(), -bob.z());
    const double equilibrium = drive_equilibrium(k, target, m * g * l);
    CHECK(theta == Approx(equilibrium).margin(1e-9));  // as the pendulum built hanging
    CHECK(statistic(0) == Approx(theta).margin(1e-12));
    // Without it the joint counts from the pose as built, and the drive holds the bob 0.5 rad further.
    auto uncounted = build_scene(scene("", ""));
    run_to_end(*uncounted);
    const Vec3 far = node_position(*uncounted, "bob", 0);
    CHECK(std::atan2(far.y(), -far.z()) > equilibrium + 0.3);

    // What must hold as built is checked against it: a prescribed angle starts there, a range
    // holds it, a coupling holds between two joints' built coordinates.
    const auto error_of = [&](const std::string& joint_extra, const std::string& more,
                              const std::string& more_forces = "") -> std::string {
        try {
            build_scene(scene(joint_extra, more, more_forces));
        } catch (const InputError& error) {
            return error.what();
        }
        return "accepted";
    };
    CHECK_THAT(error_of(", initial_coordinate: 0.5, coordinate: '0'", ""),
               Catch::Matchers::Contains("coordinate is 0.5 as built") && Catch::Matchers::Contains("start the expression at 0.5"));
    CHECK(error_of(", initial_coordinate: 0.5, coordinate: '0.5 + t^2'", "") == "accepted");
    CHECK_THAT(error_of(", initial_coordinate: 0.5", "", "  - {type: joint_stop, joint: hinge, lower: -1, upper: 0.4, stiffness: 100}\n"),
               Catch::Matchers::Contains("coordinate is 0.5 as built, outside the range"));
    CHECK(error_of(", initial_coordinate: 0.5", "", "  - {type: joint_stop, joint: hinge, lower: 0.4, upper: 1, stiffness: 100}\n") ==
          "accepted");
    CHECK_THAT(error_of(", initial_coordinate: 0.5",
                        "  - {type: revolute_joint, name: other, first: {element: bob}, at: [0, 0, 0], axis: [0, 1, 0], "
                        "initial_coordinate: 0.2}\n"
                        "  - {type: joint_coupling, leader: hinge, follower: other, multiplier: 2}\n"),
               Catch::Matchers::Contains("build the follower at 1"));
    // A leader built past half a turn is read in (-pi, pi]: 2 = 0.5 x 4 holds, but not as the
    // coupling reads it (0.5 x (4 - 2 pi)).
    CHECK_THAT(error_of(", initial_coordinate: 2",
                        "  - {type: revolute_joint, name: leader, first: {element: bob}, at: [0, 0, 0], axis: [0, 1, 0], "
                        "initial_coordinate: 4}\n"
                        "  - {type: joint_coupling, leader: leader, follower: hinge, multiplier: 0.5}\n"),
               Catch::Matchers::Contains("build the leader within (-pi, pi]"));

    // A range counts from the joint's zero too: the horizontal pendulum of the limits case below,
    // built 0.2 rad down with initial_coordinate 0.2, falls onto the same stop at 0.5 rad from
    // horizontal (ncp_newton; the stop to the gap tolerance, 1e-9 m at its 1 m lever).
    const std::string limited =
        "simulation: {duration: 1.5}\n"
        "integrator: {type: ncp_newton, dt: 0.005}\n"
        "elements:\n"
        "  - {name: bob, type: rigid_body, position: [" + num(0.2 * std::cos(0.2)) + ", 0, " + num(-0.2 * std::sin(0.2)) +
        "], mass: 1, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0]}\n"
        "constraints:\n"
        "  - {type: revolute_joint, name: hinge, first: {element: bob}, at: [0, 0, 0], axis: [0, 1, 0], initial_coordinate: 0.2}\n"
        "  - {type: joint_limit, name: swing, joint: hinge, lower: -1, upper: 0.5}\n"
        "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto stopped = build_scene(limited);
    run_to_end(*stopped);
    const Vec3 rested = node_position(*stopped, "bob", 0);
    CHECK(std::atan2(-rested.z(), rested.x()) == Approx(0.5).margin(1e-8));
    // A lone stop's back face is a turn from its front: a joint built beyond it is refused.
    std::string beyond = limited;
    beyond.replace(beyond.find("lower: -1, upper: 0.5"), std::string("lower: -1, upper: 0.5").size(), "lower: -6");
    beyond.replace(beyond.find("initial_coordinate: 0.2"), std::string("initial_coordinate: 0.2").size(), "initial_coordinate: 0.5");
    try {
        build_scene(beyond);
        FAIL("accepted");
    } catch (const InputError& error) {
        CHECK_THAT(error.what(), Catch::Matchers::Contains("0.5 as built, outside [-6, 0.28"));
    }
}

TEST_CASE("multibody joints: universal, cylindrical and planar joints free what they should", "[validation][multibody]") {
    // The midpoint rule holds the rows at each step's midpoint, so the end of a curved motion is
    // off them by O(h^2) (test_constraints.cpp); implicit Euler holds them at the end. The straight
    // and uniformly turning motions below are exact under the midpoint rule.
    const auto run = [](const std::string& body, const std::string& joint, const std::string& gravity,
                        const std::string& integrator = "implicit_midpoint") {
        auto sim = build_scene("simulation: {duration: 1.0}\n"
                               "integrator: {type: " + integrator + ", dt: 0.005" + kTightNewton + "}\n"
                               "elements:\n  - " + body + "\nconstraints:\n  - " + joint +
                               "\nforces: [{type: gravity, acceleration: " + gravity + "}]\n");
        for (int s = 0; s < 200; ++s) REQUIRE(step_once(*sim, 0.005));
        return sim;
    };
    SECTION("universal: the body's axis stays perpendicular to the world's, and the pivot holds") {
        // A bar hung at its top from the world, set swinging about a horizontal axis between the
        // joint's two: the Cardan joint lets it swing both ways but not twist about its length.
        auto sim = run("{name: bar, type: rigid_body, position: [0, 0, -0.3], mass: 1, inertia: [0.03, 0.03, 0.002, 0, 0, 0], "
                       "velocity: [-0.3, -0.2, 0], angular_velocity: [-0.6666666666666666, 1.0, 0]}",
                       "{type: universal_joint, first: {element: bar}, at: [0, 0, 0], axis: [1, 0, 0], second_axis: [0, 1, 0]}",
                       "[0, 0, -9.81]", "implicit_euler");
        const Mat3 R = body_rotation(*sim, "bar");
        CHECK(std::abs(R.col(0).dot(Vec3::UnitY())) < 1e-9);
        CHECK((node_position(*sim, "bar", 0) + R * Vec3(0, 0, 0.3)).norm() < 1e-9);  // the pivot
        CHECK((R - Mat3::Identity()).norm() > 0.05);                                  // it did swing
    }
    SECTION("cylindrical: the body stays on the axis, turning about it only") {
        auto sim = run("{name: sleeve, type: rigid_body, position: [0, 0, 0], mass: 1, inertia: [0.02, 0.02, 0.01, 0, 0, 0], "
                       "angular_velocity: [0, 0, 3]}",
                       "{type: cylindrical_joint, first: {element: sleeve}, at: [0, 0, 0], axis: [0, 0, 1]}", "[0.5, 0.3, -9.81]");
        const Vec3 x = node_position(*sim, "sleeve", 0);
        CHECK(Vec3(x.x(), x.y(), 0).norm() < 1e-10);
        CHECK(x.z() == Approx(-0.5 * 9.81).epsilon(1e-9));  // midpoint: exact for a constant acceleration
        const Mat3 R = body_rotation(*sim, "sleeve");
        CHECK((R.col(2) - Vec3::UnitZ()).norm() < 1e-10);
        CHECK(std::atan2(R(1, 0), R(0, 0)) == Approx(3.0).margin(1e-8));
    }
    SECTION("planar: the body stays in its plane, turning about the normal only") {
        auto sim = run("{name: puck, type: rigid_body, position: [0, 0, 0], mass: 1, inertia: [0.02, 0.02, 0.01, 0, 0, 0], "
                       "velocity: [0.5, 0.2, 0], angular_velocity: [0, 0, 2]}",
                       "{type: planar_joint, first: {element: puck}, at: [0, 0, 0], axis: [0, 0, 1]}", "[1, 0, -9.81]");
        const Vec3 x = node_position(*sim, "puck", 0);
        CHECK(std::abs(x.z()) < 1e-10);
        CHECK(x.x() == Approx(0.5 + 0.5).epsilon(1e-9));  // x = v t + a t^2 / 2 with a = 1
        CHECK(x.y() == Approx(0.2).epsilon(1e-9));
        const Mat3 R = body_rotation(*sim, "puck");
        CHECK((R.col(2) - Vec3::UnitZ()).norm() < 1e-10);
        CHECK(std::atan2(R(1, 0), R(0, 0)) == Approx(2.0).margin(1e-8));
    }
}

TEST_CASE("multibody joints: joint limits stop a falling pendulum and a slider, carrying the load",
          "[validation][multibody]") {
    // Under ncp_newton (inelastic stops): a pendulum built horizontal (l = 0.2 m, 1 kg) falls about
    // y onto its upper stop at 0.5 rad and rests there, the stop carrying the weight's torque
    // m g l cos(0.5) (its normal force, lever 1 m); a 0.8 kg slider on a vertical rail falls onto its
    // lower stop 0.1 m below and rests there on m g.
    const std::string scene =
        "simulation: {duration: 1.5}\n"
        "integrator: {type: ncp_newton, dt: 0.005}\n"
        "elements:\n"
        "  - {name: bob, type: rigid_body, position: [0.2, 0, 0], mass: 1, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0]}\n"
        "  - {name: slider, type: rigid_body, position: [1, 0, 0], mass: 0.8, inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0]}\n"
        "constraints:\n"
        "  - {type: revolute_joint, name: hinge, first: {element: bob}, at: [0, 0, 0], axis: [0, 1, 0]}\n"
        "  - {type: joint_limit, name: swing, joint: hinge, lower: -1, upper: 0.5}\n"
        "  - {type: prismatic_joint, name: rail, first: {element: slider}, at: [1, 0, 0], axis: [0, 0, 1]}\n"
        "  - {type: joint_limit, name: stop, joint: rail, lower: -0.1}\n"
        "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto sim = build_scene(scene);
    run_to_end(*sim);
    const Vec3 bob = node_position(*sim, "bob", 0);
    const double theta = std::atan2(-bob.z(), bob.x());
    // The stop holds to the gap tolerance (1e-9 m at a 1 m lever); its force balances the weight
    // to the force tolerance.
    CHECK(theta == Approx(0.5).margin(1e-8));
    CHECK(node_position(*sim, "slider", 0).z() == Approx(-0.1).margin(1e-9));
    const std::vector<const Constraint*> terms = sim->constraint_terms();
    const auto statistic_of = [&](const std::string& name, std::size_t index) {
        for (const Constraint* c : terms)
            if (c->name() == name) return c->statistic(index);
        FAIL("no constraint " << name);
        return 0.0;
    };
    CHECK(statistic_of("swing", 0) == 1.0);  // only the upper stop is near
    CHECK(statistic_of("swing", 2) == Approx(9.81 * 0.2 * std::cos(0.5)).epsilon(1e-6));
    CHECK(statistic_of("stop", 2) == Approx(0.8 * 9.81).epsilon(1e-6));
}

TEST_CASE("multibody joints: penalty stops (joint_stop) hold a falling pendulum and a slider under implicit Euler and "
          "BDF2, penetrated by load over stiffness",
          "[validation][multibody]") {
    // The pendulum and slider of the joint_limit case above, with joint_stop's spring-dampers in
    // place of the complementarity stops, under integrators without complementarity. At rest the
    // pendulum sits past its stop where k_a e = m g l cos(0.5 + e), the slider where
    // k_s e = m g; the dampers (d |e|: 2.6 N m s/rad and 39 N s/m at those penetrations) and the
    // integrators' own settle the bounces within 3 s.
    const double k_angle = 200.0, k_slide = 2.0e4;
    for (const std::string integrator : {"implicit_euler", "bdf2"}) {
        INFO(integrator);
        const std::string scene =
            "simulation: {duration: 3.0}\n"
            "integrator: {type: " + integrator + ", dt: 0.002" + kTightNewton + "}\n"
            "elements:\n"
            "  - {name: bob, type: rigid_body, position: [0.2, 0, 0], mass: 1, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0]}\n"
            "  - {name: slider, type: rigid_body, position: [1, 0, 0], mass: 0.8, inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0]}\n"
            "constraints:\n"
            "  - {type: revolute_joint, name: hinge, first: {element: bob}, at: [0, 0, 0], axis: [0, 1, 0]}\n"
            "  - {type: prismatic_joint, name: rail, first: {element: slider}, at: [1, 0, 0], axis: [0, 0, 1]}\n"
            "forces:\n"
            "  - {type: gravity, acceleration: [0, 0, -9.81]}\n"
            "  - {type: joint_stop, name: swing, joint: hinge, lower: -1, upper: 0.5, stiffness: " + num(k_angle) +
            ", damping: 300}\n"
            "  - {type: joint_stop, name: stop, joint: rail, lower: -0.1, upper: 0.1, stiffness: " + num(k_slide) +
            ", damping: 1.0e5}\n";
        auto sim = build_scene(scene);
        run_to_end(*sim);
        const Vec3 bob = node_position(*sim, "bob", 0);
        const double theta = std::atan2(-bob.z(), bob.x());
        double e = 0.0;  // k e = m g l cos(0.5 + e), by Newton
        for (int i = 0; i < 50; ++i)
            e -= (k_angle * e - 9.81 * 0.2 * std::cos(0.5 + e)) / (k_angle + 9.81 * 0.2 * std::sin(0.5 + e));
        INFO("penetration " << e << " rad, theta " << theta);
        CHECK(e > 1e-3);  // a visible overshoot: 8.6 mrad
        // At rest to the Newton tolerance: 1e-7 rad (and m) leaves room for the last bounce's
        // remainder, which decays with the damping at ~10/s over the last second (e^-10 of mrad).
        CHECK(theta == Approx(0.5 + e).margin(1e-7));
        CHECK(node_position(*sim, "slider", 0).z() == Approx(-0.1 - 0.8 * 9.81 / k_slide).margin(1e-7));
        const Contributor* swing = nullptr;
        for (const Contributor* c : sim->contributors())
            if (c->name() == "swing") swing = c;
        REQUIRE(swing);
        EvalContext context;
        context.t = sim->state().t;
        context.q = &sim->state().q;
        context.v = &sim->state().v;
        CHECK(swing->statistic(1, context) == Approx(e).epsilon(1e-4));
    }
}

TEST_CASE("multibody joints: joint limits refuse what they cannot hold", "[validation][multibody]") {
    const auto scene = [](const std::string& integrator, const std::string& constraints) {
        return "simulation: {duration: 0.1}\n"
               "integrator: {type: " + integrator + ", dt: 0.01}\n"
               "elements:\n"
               "  - {name: bob, type: rigid_body, position: [0.2, 0, 0], mass: 1, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0]}\n"
               "constraints:\n" + constraints;
    };
    const std::string hinge = "  - {type: revolute_joint, name: hinge, first: {element: bob}, at: [0, 0, 0], axis: [0, 1, 0]}\n";
    const std::string ball = "  - {type: spherical_joint, name: ball, first: {element: bob}, at: [0, 0, 0]}\n";
    const auto refused = [&](const std::string& text, const std::string& what) {
        INFO(text);
        CHECK_THROWS_WITH(build_scene(text), Catch::Contains(what));
    };
    refused(scene("implicit_euler", hinge + "  - {type: joint_limit, joint: hinge, upper: 0.5}\n"), "ncp_newton");
    refused(scene("ncp_newton", hinge + "  - {type: joint_limit, joint: hinged, upper: 0.5}\n"), "no constraint named 'hinged'");
    // A limit may be listed before its joint (a joint an import writes comes after the scene's blocks).
    CHECK_NOTHROW(build_scene(scene("ncp_newton", "  - {type: joint_limit, joint: hinge, upper: 0.5}\n" + hinge)));
    refused(scene("ncp_newton", hinge + "  - {type: joint_limit, joint: hinge, lower: 0.1, upper: 0.5}\n"), "outside");
    refused(scene("ncp_newton", hinge + "  - {type: joint_limit, joint: hinge, lower: 0.5, upper: 0.1}\n"), "above `lower`");
    refused(scene("ncp_newton", hinge + "  - {type: joint_limit, joint: hinge, lower: -3.5, upper: 3}\n"), "one turn wide");
    refused(scene("ncp_newton", ball + "  - {type: joint_limit, joint: ball, upper: 0.5}\n"), "not a revolute_joint");
    refused(scene("ncp_newton", hinge + "  - {type: joint_limit, joint: hinge}\n"), "give `lower`, `upper` or both");
}

TEST_CASE("multibody joints: a lower stop between two turned bodies carries the outer link's weight",
          "[validation][multibody]") {
    // An upper link held by a motor at angle 0 and a forearm hinged to it about a tilted axis,
    // both bodies turned away from the world's axes; the forearm falls onto its lower stop at
    // -0.4 rad and rests there. The stop torque is minus gravity's torque about the axis at the
    // forearm's rest pose, from the simulated positions.
    const Quaternion upper(Eigen::AngleAxisd(0.7, Vec3(1, 1, 0).normalized()));
    const Quaternion fore(Eigen::AngleAxisd(-0.5, Vec3(0, 1, 2).normalized()));
    const Vec3 axis = Vec3(-0.2, -1, -0.3).normalized(), elbow(0.3, 0, 0.5);
    const std::string scene =
        "simulation: {duration: 2.0}\n"
        "integrator: {type: ncp_newton, dt: 0.005}\n"
        "elements:\n"
        "  - {name: upper, type: rigid_body, position: [0.15, 0, 0.5], orientation: " + quaternion(upper) +
        ", mass: 2, inertia: [0.02, 0.03, 0.025, 0, 0, 0]}\n"
        "  - {name: fore, type: rigid_body, position: [0.55, 0.02, 0.5], orientation: " + quaternion(fore) +
        ", mass: 0.8, inertia: [0.01, 0.02, 0.015, 0, 0, 0]}\n"
        "constraints:\n"
        "  - {type: revolute_joint, name: shoulder, first: {element: upper}, at: [0, 0, 0.5], axis: [0, 1, 0], coordinate: '0'}\n"
        "  - {type: revolute_joint, name: elbow, first: {element: fore}, second: {element: upper}, at: " + vec(elbow) +
        ", axis: " + vec(axis) + "}\n"
        "  - {type: joint_limit, name: stop, joint: elbow, lower: -0.4, upper: 1.0}\n"
        "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto sim = build_scene(scene);
    run_to_end(*sim);
    // The forearm turned by -0.4 about the axis through the elbow (its rotation relative to the
    // upper link, which the motor holds in place).
    const Mat3 turned = body_rotation(*sim, "fore") * fore.toRotationMatrix().transpose();
    const Vec3 rotation = rotation_log(Quaternion(turned));
    CHECK((rotation - (-0.4) * axis).norm() < 1e-8);
    const Vec3 center = node_position(*sim, "fore", 0);
    const double gravity_torque = (center - elbow).cross(Vec3(0, 0, -9.81 * 0.8)).dot(axis);
    REQUIRE(gravity_torque < -0.1);  // it pushes the forearm onto its lower stop
    for (const Constraint* c : sim->constraint_terms())
        if (c->name() == "stop") {
            CHECK(c->statistic(0) == 1.0);
            CHECK(c->statistic(2) == Approx(-gravity_torque).epsilon(1e-6));
        }
}

TEST_CASE("multibody joints: a lone revolute stop blocks from both sides, across the angle's wrap",
          "[validation][multibody]") {
    // A wheel spun at 10 rad/s about its axis with only `lower: -1`: it turns freely past pi (atan2
    // wraps to -pi there) and meets the stop's back face at -1 + 2 pi = 5.283 rad, where the
    // inelastic stop holds it.
    const std::string scene =
        "simulation: {duration: 0.8}\n"
        "integrator: {type: ncp_newton, dt: 0.002}\n"
        "elements:\n"
        "  - {name: wheel, type: rigid_body, position: [0, 0, 0], angular_velocity: [0, 0, 10], mass: 1,\n"
        "     inertia: [0.02, 0.02, 0.04, 0, 0, 0]}\n"
        "constraints:\n"
        "  - {type: revolute_joint, name: axle, first: {element: wheel}, at: [0, 0, 0], axis: [0, 0, 1]}\n"
        "  - {type: joint_limit, joint: axle, lower: -1}\n";
    auto sim = build_scene(scene);
    double turned = 0.0, last = 0.0;
    for (int s = 1; s <= 400; ++s) {
        REQUIRE(step_once(*sim, 0.002));
        const Mat3 R = body_rotation(*sim, "wheel");
        const double angle = std::atan2(R(1, 0), R(0, 0));
        turned += std::remainder(angle - last, 2 * 3.141592653589793);
        last = angle;
        if (s == 250) {  // t = 0.5 s, 5 rad: past the wrap, before the back face; the spin untouched
            CHECK(turned == Approx(5.0).margin(1e-9));
            CHECK(sim->state().v[5] == Approx(10.0).margin(1e-9));
        }
    }
    CHECK(turned == Approx(-1.0 + 2 * 3.141592653589793).margin(1e-8));
    CHECK(std::abs(sim->state().v[5]) < 1e-8);
}

TEST_CASE("multibody joints: per-row compliances are springs along their own rows (statics)", "[validation][multibody]") {
    // Two bodies, each held at its origin to the world by a fixed_joint and by a clamp, and a
    // particle by a ball_joint, each with one compliance per row (row_compliance; hard rows among
    // them). Each carries a force F through its origin, and each body a couple of +G at a marker
    // 0.1 m along its y axis and -G at its origin, G = (g, 0, 0). Exact equilibria, at any load:
    //  - a translation row is d_i = alpha_i F_i (rows along the world axes, linear in d);
    //  - the fixed joint's row x_1.y_2 and the clamp's z row are sin(theta) for a turn theta about
    //    z, with the torque lambda cos(theta) on the body, and the couple's moment -0.1 g cos(theta):
    //    sin(theta) / alpha_6 = -0.1 g, theta = -asin(0.1 g alpha_6). Hard rows hold the rest.
    const double alpha[6] = {1e-4, 2e-4, 4e-4, 0.0, 0.0, 2e-2};
    const Vec3 force(3, -5, 7);
    const double g = 100.0;
    const auto body = [](const std::string& name, const Vec3& at) {
        return "  - {name: " + name + ", type: rigid_body, position: " + vec(at) +
               ", mass: 2, inertia: [0.01, 0.02, 0.03, 0, 0, 0], markers: [{position: [0, 0.1, 0]}]}\n";
    };
    const auto loads = [&](const std::string& name) {
        return "  - {type: point_load, element: " + name + ", nodes: [0], force: " + vec(force - Vec3(g, 0, 0)) + "}\n" +
               "  - {type: point_load, element: " + name + ", nodes: [2], force: " + vec(Vec3(g, 0, 0)) + "}\n";
    };
    const std::string rows = "[1.0e-4, 2.0e-4, 4.0e-4, 0, 0, 2.0e-2]";
    const std::string scene =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: statics, dt: 1.0, newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 0, "
        "constraint_tolerance: 1.0e-14}}\n"
        "elements:\n" +
        body("welded", Vec3(0, 0, 0)) + body("clamped", Vec3(1, 0, 0)) +
        "  - {name: balled, type: point_mass, position: [2, 0, 0], mass: 1}\n"
        "constraints:\n"
        "  - {type: fixed_joint, first: {element: welded}, at: [0, 0, 0], row_compliance: " + rows + "}\n"
        "  - {type: clamp, first: {element: clamped}, second: {world: [1, 0, 0]}, row_compliance: " + rows + "}\n"
        "  - {type: ball_joint, first: {element: balled, node: 0}, second: {world: [2, 0, 0]}, "
        "row_compliance: [1.0e-4, 2.0e-4, 4.0e-4]}\n"
        "forces:\n" + loads("welded") + loads("clamped") +
        "  - {type: point_load, element: balled, nodes: [0], force: " + vec(force) + "}\n";
    auto sim = build_scene(scene);
    REQUIRE(step_once(*sim, 1.0));
    const Vec3 stretch(alpha[0] * force.x(), alpha[1] * force.y(), alpha[2] * force.z());
    const double theta = -std::asin(0.1 * g * alpha[5]);
    const Mat3 turned = Eigen::AngleAxisd(theta, Vec3::UnitZ()).toRotationMatrix();
    // Newton's tolerance 1e-12 N over stiffnesses >= 200 N/m: 1e-14 m; 1e-12 leaves round-off room.
    CHECK((node_position(*sim, "welded", 0) - stretch).norm() < 1e-12);
    CHECK((node_position(*sim, "clamped", 0) - (Vec3(1, 0, 0) + stretch)).norm() < 1e-12);
    CHECK((node_position(*sim, "balled", 0) - (Vec3(2, 0, 0) + stretch)).norm() < 1e-12);
    CHECK((body_rotation(*sim, "welded") - turned).norm() < 1e-10);
    CHECK((body_rotation(*sim, "clamped") - turned).norm() < 1e-10);
    // A finite turn: the small-angle answer -0.1 g alpha_6 = -0.2 rad is 1.4e-3 rad off.
    CHECK(std::abs(theta + 0.2) > 1e-3);
}

TEST_CASE("multibody joints: row_compliance is refused beside the per-kind compliances and at a wrong length",
          "[validation][multibody]") {
    const auto scene = [](const std::string& joint_keys) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_euler, dt: 0.01}\n"
               "elements:\n"
               "  - {name: b, type: rigid_body, position: [0, 0, 0], mass: 1, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "constraints:\n"
               "  - {type: revolute_joint, first: {element: b}, at: [0, 0, 0], axis: [0, 0, 1], " + joint_keys + "}\n";
    };
    CHECK_THROWS_WITH(build_scene(scene("row_compliance: [0, 0, 0, 1.0e-3, 1.0e-3], rotational_compliance: 1.0e-3")),
                      Catch::Contains("test.yaml:6") && Catch::Contains("row_compliance") &&
                          Catch::Contains("not both"));
    CHECK_THROWS_WITH(build_scene(scene("row_compliance: [0, 0, 1.0e-3]")),
                      Catch::Contains("row_compliance") && Catch::Contains("5"));
    CHECK_THROWS_WITH(build_scene(scene("row_compliance: [0, 0, 0, -1.0e-3, 0]")), Catch::Contains("row_compliance"));
    CHECK_THROWS_WITH(build_scene(scene("row_compliance: [0, 0, 0, 1.0e+7, 0]")), Catch::Contains("row_compliance"));
}
