// joint_coupling (joint_coupling.hpp): its row is follower - multiplier x leader, its C, G_q,
// curvature and G_f match finite differences in the middle of a step (a revolute joint between a
// rod's start frame and a rigid body leading a prismatic joint between the body and the world, and
// the reverse), and bad references are refused at their keys.
#include "body_and_rod.hpp"
#include "../frame_joint.hpp"
#include "../joint_coupling.hpp"

#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::joints;
using namespace soma::joints::testing;

namespace {

/// A revolute joint between the rod's start frame and the body.
FrameJointSettings hinge() { return rod_to_body(JointType::revolute); }

/// A prismatic joint between the body and the world.
FrameJointSettings slider() {
    FrameJointSettings s;
    s.type = JointType::prismatic;
    s.first.element = "body";
    s.at = kOrigin;
    s.axis = Vec3(0.5, -0.3, 0.8);
    return s;
}

JointCouplingSettings coupling(const std::string& leader, const std::string& follower, double multiplier) {
    JointCouplingSettings s;
    s.leader = leader;
    s.follower = follower;
    s.multiplier = multiplier;
    return s;
}

JointCoordinate sized_coordinate(const FrameJoint& joint) {
    JointCoordinate c;
    size_coordinate(joint, c);
    return c;
}

}  // namespace

TEST_CASE("joint_coupling: the row is follower - m leader, its derivatives match finite differences",
          "[joints][joint_coupling]") {
    for (const bool hinge_leads : {true, false}) {
        INFO("the hinge leads: " << hinge_leads);
        SceneWithJoints scene;
        FrameJoint hinge_joint(hinge(), rod_body_joint_parameters());
        hinge_joint.set_name("hinge");
        hinge_joint.bind(scene);
        FrameJoint slider_joint(slider(), rod_body_joint_parameters());
        slider_joint.set_name("slider");
        slider_joint.bind(scene);
        scene.joints = {&hinge_joint, &slider_joint};
        const double m = hinge_leads ? -0.35 : 2.5;  // m per rad, rad per m
        JointCoupling coupled(hinge_leads ? coupling("hinge", "slider", m) : coupling("slider", "hinge", m),
                              SettingsErrors("joint_coupling"));
        coupled.bind(scene);
        // The union of the joints' DOFs: the body's 6 and the rod start frame's 7.
        REQUIRE(coupled.dofs().size() == 13);
        ConstraintEvaluation e = sized(coupled);
        const double lambda[1] = {0.7};
        EvalContext context;
        context.q = &scene.s.q;
        coupled.evaluate(context, lambda, e);
        CHECK(std::abs(e.value[0]) < 1e-15);  // both coordinates are 0 as built

        const VectorX dofs = mid_step(scene);
        coupled.evaluate(context, lambda, e);
        JointCoordinate h = sized_coordinate(hinge_joint), s = sized_coordinate(slider_joint);
        hinge_joint.evaluate_coordinate(context, 0.0, h);
        slider_joint.evaluate_coordinate(context, 0.0, s);
        const double expected = hinge_leads ? s.value - m * h.value : h.value - m * s.value;
        CHECK(std::abs(h.value) > 0.01);  // both joints moved: the row is not trivially zero
        CHECK(std::abs(s.value) > 0.01);
        CHECK(e.value[0] == Approx(expected).margin(1e-15));
        check_derivatives(coupled, scene, dofs);
    }
}

TEST_CASE("joint_coupling: bad references are refused at their keys", "[joints][joint_coupling]") {
    SceneWithJoints scene;
    FrameJoint hinge_joint(hinge(), rod_body_joint_parameters());
    hinge_joint.set_name("hinge");
    hinge_joint.bind(scene);
    FrameJointSettings ball = hinge();
    ball.type = JointType::spherical;
    FrameJoint ball_joint(ball, rod_body_joint_parameters());
    ball_joint.set_name("ball");
    ball_joint.bind(scene);
    FrameJointSettings driven = slider();
    driven.coordinate = [](double t) { return t * t; };
    driven.coordinate_text = "t^2";
    FrameJoint motor(driven, rod_body_joint_parameters());
    motor.set_name("motor");
    motor.bind(scene);
    scene.joints = {&hinge_joint, &ball_joint, &motor};
    const auto bind_error = [&](const JointCouplingSettings& s) {
        JointCoupling c(s, SettingsErrors("joint_coupling"));
        try {
            c.bind(scene);
        } catch (const std::exception& error) {
            return std::string(error.what());
        }
        return std::string();
    };
    CHECK_THAT(bind_error(coupling("elbow", "hinge", 1.0)),
               Catch::Contains("leader") && Catch::Contains("no constraint named 'elbow'"));
    CHECK_THAT(bind_error(coupling("hinge", "ball", 1.0)),
               Catch::Contains("follower") && Catch::Contains("not a revolute_joint or prismatic_joint"));
    CHECK_THAT(bind_error(coupling("hinge", "motor", 1.0)), Catch::Contains("prescribes its coordinate"));
    CHECK(bind_error(coupling("motor", "hinge", 1.0)).empty());  // a prescribed leader drives the follower
    // A second leader for one follower, and two joints following each other.
    FrameJoint slider_joint(slider(), rod_body_joint_parameters());
    slider_joint.set_name("slider");
    slider_joint.bind(scene);
    JointCoupling first(coupling("hinge", "slider", 2.0), SettingsErrors("joint_coupling"));
    first.set_name("gear");
    scene.joints = {&hinge_joint, &ball_joint, &motor, &slider_joint};
    first.bind(scene);
    scene.joints.push_back(&first);
    CHECK_THAT(bind_error(coupling("motor", "slider", 1.0)),
               Catch::Contains("follower") && Catch::Contains("already follows a joint (coupling 'gear')"));
    CHECK_THAT(bind_error(coupling("slider", "hinge", 0.5)),
               Catch::Contains("leader") && Catch::Contains("two joints cannot follow each other"));
    CHECK_THROWS_WITH(JointCoupling(coupling("hinge", "hinge", 1.0), SettingsErrors("joint_coupling")),
                      Catch::Contains("cannot follow itself"));
    CHECK_THROWS_WITH(JointCoupling(coupling("hinge", "motor", 0.0), SettingsErrors("joint_coupling")),
                      Catch::Contains("multiplier"));
}
