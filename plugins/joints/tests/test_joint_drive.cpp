// joint_drive (joint_drive.hpp): its residual is the PD effort along the joint's coordinate, and
// its Jacobian (the c_q and c_v parts) matches central differences of that residual, on a
// revolute and a prismatic joint between a rod's start frame and a rigid body in the middle of a
// step, the body moving. The body's velocity is a translation, so that the frames' world
// velocities do not depend on q at fixed v (the one term the drive leaves out, joint_drive.hpp)
// and the check is exact. Then the located errors of bind.
#include "body_and_rod.hpp"
#include "../frame_joint.hpp"
#include "../joint_drive.hpp"

#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

#include <numbers>

using namespace soma;
using namespace soma::joints;
using namespace soma::joints::testing;

namespace {

JointDriveSettings drive_settings(const std::string& joint) {
    JointDriveSettings d;
    d.joint = joint;
    d.stiffness = 3.0;
    d.damping = 0.7;
    d.target = [](double t) { return 0.2 + 0.1 * t; };
    d.target_velocity = [](double) { return 0.1; };
    return d;
}

}  // namespace

TEST_CASE("joint_drive: residual and Jacobian against finite differences", "[joints][joint_drive]") {
    for (const JointType type : {JointType::revolute, JointType::prismatic}) {
        INFO(joint_type_name(type));
        SceneWithJoints scene;
        FrameJoint joint(rod_to_body(type), rod_body_joint_parameters());
        joint.set_name("hinge");
        joint.bind(scene);
        scene.joints = {&joint};
        JointDrive drive(drive_settings("hinge"), SettingsErrors("joint_drive"));
        drive.bind(scene);
        soma::testing::DenseAssembly dense(kDofs);
        drive.declare_pattern(dense.pattern());

        const VectorX dofs = mid_step(scene);
        VectorX v = VectorX::Zero(kDofs);
        v.head<3>() = Vec3(0.3, -0.5, 0.2);  // the body translates; the rod is at rest
        EvalContext context;
        context.t = 0.4;
        context.q = &scene.s.q;
        context.v = &v;

        // The residual is g_f^T (k e + d e') with the coordinate's own rows.
        JointCoordinate c;
        size_coordinate(joint, c);
        joint.evaluate_coordinate(context, 1.0, c);
        double error = c.value - 0.24;
        if (type == JointType::revolute) error = std::remainder(error, 2 * std::numbers::pi);
        const double effort = 3.0 * error + 0.7 * (c.rate - 0.1);
        context.coefficients = {1.0, 0.0, 0.0};
        const auto [F, K] = dense.evaluate(drive, context);
        for (std::size_t j = 0; j < joint.dofs().size(); ++j)
            CHECK(F[joint.dofs()[j]] == Approx(effort * c.force_row[static_cast<Index>(j)]).margin(1e-14));
        CHECK(std::abs(error) > 0.01);  // a loaded drive

        check_force_jacobian(drive, dense, scene, dofs, v, context.t);
        // The energy is the spring's.
        CHECK(drive.potential_energy(context) == Approx(0.5 * 3.0 * error * error).epsilon(1e-12));
    }
}

TEST_CASE("joint_drive: bad references are refused at `joint`", "[joints][joint_drive]") {
    SceneWithJoints scene;
    FrameJoint spherical(rod_to_body(JointType::spherical), rod_body_joint_parameters());
    spherical.set_name("ball");
    spherical.bind(scene);
    FrameJointSettings held = rod_to_body(JointType::revolute);
    held.coordinate = [](double t) { return t * t; };
    held.coordinate_text = "t^2";
    FrameJoint motor(held, rod_body_joint_parameters());
    motor.set_name("motor");
    motor.bind(scene);
    scene.joints = {&spherical, &motor};
    JointDrive unknown(drive_settings("elbow"), SettingsErrors("joint_drive"));
    CHECK_THROWS_WITH(unknown.bind(scene), Catch::Contains("joint") && Catch::Contains("no constraint named 'elbow'"));
    JointDrive on_ball(drive_settings("ball"), SettingsErrors("joint_drive"));
    CHECK_THROWS_WITH(on_ball.bind(scene), Catch::Contains("not a revolute_joint or prismatic_joint"));
    JointDrive on_motor(drive_settings("motor"), SettingsErrors("joint_drive"));
    CHECK_THROWS_WITH(on_motor.bind(scene), Catch::Contains("prescribes its coordinate"));
    JointDriveSettings idle = drive_settings("motor");
    idle.stiffness = idle.damping = 0.0;
    CHECK_THROWS_WITH(JointDrive(idle, SettingsErrors("joint_drive")), Catch::Contains("would do nothing"));
}
