// joint_stop (joint_stop.hpp): past a stop its residual is g_f^T (k e + d e'), and its Jacobian
// matches central differences, on a revolute and a prismatic joint between a rod's start frame
// and a rigid body in the middle of a step (the body translating, so the check is exact as
// joint_drive's); within the range it adds nothing; bad ranges are refused.
#include "body_and_rod.hpp"
#include "../joint_stop.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::joints;
using namespace soma::joints::testing;

TEST_CASE("joint_stop: past a stop, residual and Jacobian against finite differences; within the range, nothing",
          "[joints][joint_stop]") {
    // Each type with its axis both ways: the coordinate changes sign, so both stops are met.
    for (const JointType type : {JointType::revolute, JointType::prismatic})
    for (const double axis_sign : {1.0, -1.0}) {
        INFO(joint_type_name(type) << ", axis sign " << axis_sign);
        SceneWithJoints scene;
        FrameJointSettings joint_settings = rod_to_body(type);
        joint_settings.axis *= axis_sign;
        FrameJoint joint(joint_settings, rod_body_joint_parameters());
        joint.set_name("hinge");
        joint.bind(scene);
        scene.joints = {&joint};
        const VectorX dofs = mid_step(scene);
        VectorX v = VectorX::Zero(kDofs);
        v.head<3>() = Vec3(0.3, -0.5, 0.2);  // the body translates; the rod is at rest
        EvalContext context;
        context.q = &scene.s.q;
        context.v = &v;
        JointCoordinate c;
        size_coordinate(joint, c);
        joint.evaluate_coordinate(context, 1.0, c);
        REQUIRE(std::abs(c.value) > 0.005);  // the joint moved (mid_step: 9 mm, 0.1 rad)
        // A stop halfway to the coordinate on its side: penetrated by half of it.
        JointStopSettings settings;
        settings.joint = "hinge";
        settings.lower = c.value < 0.0 ? 0.5 * c.value : -1.0;
        settings.upper = c.value > 0.0 ? 0.5 * c.value : 1.0;
        settings.stiffness = 40.0;
        // d |e| = 0.3 on the slide's 4.6 mm (only the body translates, so the hinge's rate is 0 and
        // the slide exercises the damper's terms).
        settings.damping = 60.0;
        JointStop stop(settings, SettingsErrors("joint_stop"));
        stop.bind(scene);
        soma::testing::DenseAssembly dense(kDofs);
        stop.declare_pattern(dense.pattern());
        context.coefficients = {1.0, 0.0, 0.0};
        const auto [F, K] = dense.evaluate(stop, context);
        const double effort = 40.0 * 0.5 * c.value + 60.0 * std::abs(0.5 * c.value) * c.rate;
        for (std::size_t j = 0; j < joint.dofs().size(); ++j)
            CHECK(F[joint.dofs()[j]] == Approx(effort * c.force_row[static_cast<Index>(j)]).margin(1e-14));
        CHECK(std::abs(effort) > 0.01);  // a loaded stop
        check_force_jacobian(stop, dense, scene, dofs, v);
        CHECK(stop.potential_energy(context) == Approx(0.5 * 40.0 * 0.25 * c.value * c.value).epsilon(1e-12));
        CHECK(stop.statistic(1, context) == Approx(0.5 * c.value).epsilon(1e-12));

        // A stop left faster than k/d: the damper would pull, so nothing acts (the effort clamps
        // at 0, where the spring and the damper balance). Only the slide has a rate.
        if (type == JointType::prismatic) {
            const double e = 0.5 * c.value;
            REQUIRE(std::abs(c.rate) > 1e-3);  // the body's translation moves the slide
            JointStopSettings leaving = settings;
            leaving.damping = 4.0 * settings.stiffness / std::abs(c.rate);  // d |rate| = 4 k
            JointStop stop_left(leaving, SettingsErrors("joint_stop"));
            stop_left.bind(scene);
            soma::testing::DenseAssembly left(kDofs);
            stop_left.declare_pattern(left.pattern());
            // Leaving: the rate away from the stop (the sign of -e); else the damper adds to the spring.
            VectorX away = v;
            if (c.rate * e > 0.0) away = -v;
            context.v = &away;
            const auto [Fl, Kl] = left.evaluate(stop_left, context);
            CHECK(Fl.norm() == 0.0);
            CHECK(Kl.norm() == 0.0);
            CHECK(stop_left.statistic(2, context) == 0.0);
            context.v = &v;
        }

        // The same stop beyond the coordinate: nothing.
        settings.lower = -2.0 * std::abs(c.value);
        settings.upper = 2.0 * std::abs(c.value);
        JointStop clear(settings, SettingsErrors("joint_stop"));
        clear.bind(scene);
        soma::testing::DenseAssembly idle(kDofs);
        clear.declare_pattern(idle.pattern());
        const auto [F0, K0] = idle.evaluate(clear, context);
        CHECK(F0.norm() == 0.0);
        CHECK(K0.norm() == 0.0);
        CHECK(clear.potential_energy(context) == 0.0);
    }
}

TEST_CASE("joint_stop: bad ranges and references are refused at their keys", "[joints][joint_stop]") {
    JointStopSettings s;
    s.joint = "hinge";
    s.stiffness = 1.0;
    s.lower = 0.2;
    s.upper = 0.1;
    CHECK_THROWS_WITH(JointStop(s, SettingsErrors("joint_stop")), Catch::Contains("upper") && Catch::Contains("empty"));
    SceneWithJoints scene;
    FrameJoint joint(rod_to_body(JointType::revolute), rod_body_joint_parameters());
    joint.set_name("hinge");
    joint.bind(scene);
    scene.joints = {&joint};
    s.lower = 0.1;  // the joint is at 0 as built (its initial_coordinate)
    s.upper = 0.5;
    JointStop above(s, SettingsErrors("joint_stop"));
    CHECK_THROWS_WITH(above.bind(scene), Catch::Contains("lower") && Catch::Contains("0 as built, outside the range"));
    s.lower = -3.0;
    s.upper = 3.5;  // a turn and more
    JointStop wide(s, SettingsErrors("joint_stop"));
    CHECK_THROWS_WITH(wide.bind(scene), Catch::Contains("upper") && Catch::Contains("narrower than a turn"));
    s.upper = 1.0;
    s.joint = "elbow";
    JointStop unknown(s, SettingsErrors("joint_stop"));
    CHECK_THROWS_WITH(unknown.bind(scene), Catch::Contains("no constraint named 'elbow'"));
}
