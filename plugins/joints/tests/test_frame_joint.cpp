// The frame joints (frame_joint.hpp) between a rod's start frame and a rigid body, and between a
// body and the world: every type's C, G_q, curvature and G_f against finite differences in the
// middle of a step, rows zero as built, the coordinate's meaning and derivatives, and the
// located errors.
#include "body_and_rod.hpp"
#include "../frame_joint.hpp"

#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace soma;
using namespace soma::joints;
using namespace soma::joints::testing;

namespace {

const JointType kAllTypes[] = {JointType::spherical, JointType::revolute,    JointType::universal, JointType::prismatic,
                               JointType::cylindrical, JointType::planar, JointType::fixed};

std::size_t expected_rows(JointType type) {
    switch (type) {
        case JointType::spherical: return 3;
        case JointType::revolute: return 5;
        case JointType::universal: return 4;
        case JointType::prismatic: return 5;
        case JointType::cylindrical: return 4;
        case JointType::planar: return 3;
        case JointType::fixed: return 6;
    }
    return 0;
}

}  // namespace

TEST_CASE("frame joints: rows zero as built, derivatives against finite differences mid-step", "[joints][frame_joint]") {
    for (const JointType type : kAllTypes) {
        INFO(joint_type_name(type));
        BodyAndRod scene;
        FrameJoint joint(rod_to_body(type), rod_body_joint_parameters());
        joint.bind(scene);
        REQUIRE(static_cast<std::size_t>(joint.row_count()) == expected_rows(type));
        REQUIRE(joint.dofs().size() == 6 + 7);
        ConstraintEvaluation e = sized(joint);
        const double zero[7] = {};
        EvalContext context;
        context.q = &scene.s.q;
        joint.evaluate(context, zero, e);
        CHECK(e.value.cwiseAbs().maxCoeff() < 1e-15);
        const VectorX dofs = mid_step(scene);
        check_derivatives(joint, scene, dofs);
    }
}

TEST_CASE("frame joints: prescribed coordinates add a row with the same derivatives", "[joints][frame_joint]") {
    for (const JointType type : {JointType::revolute, JointType::prismatic}) {
        INFO(joint_type_name(type));
        BodyAndRod scene;
        FrameJointSettings settings = rod_to_body(type);
        settings.coordinate = [](double t) { return 0.1 * t * t; };  // at rest at t = 0, as the joint
        settings.coordinate_text = "0.1*t^2";
        FrameJoint joint(settings, rod_body_joint_parameters());
        joint.bind(scene);
        REQUIRE(static_cast<std::size_t>(joint.row_count()) == expected_rows(type) + 1);
        CHECK(joint.compliance(joint.row_count() - 1) == 0.0);
        const VectorX dofs = mid_step(scene);
        check_derivatives(joint, scene, dofs);
    }
}

TEST_CASE("frame joints: a revolute joint's angle and a prismatic joint's slide", "[joints][frame_joint]") {
    // The body hinged to the world about axis n through p, then turned about that line by 0.8 rad:
    // the coordinate is 0.8, the constraint rows stay zero, and the coordinate's rows match its
    // differences (G_f against the rate of a motion of the body's translation only, where the
    // frame's Jacobian does not depend on q, so the rate's position row is exact too).
    const Vec3 n = Vec3(0.3, -0.2, 0.9).normalized();
    const Vec3 p = kOrigin + Vec3(0.1, 0.05, -0.02);
    for (const JointType type : {JointType::revolute, JointType::prismatic}) {
        INFO(joint_type_name(type));
        BodyAndRod scene;
        FrameJointSettings settings;
        settings.type = type;
        settings.first.element = "body";
        settings.at = p;
        settings.axis = n;
        FrameJoint joint(settings, frame_joint_parameters("{first: {element: body}, at: [0, 0, 0]}"));
        joint.bind(scene);
        REQUIRE(joint.dofs().size() == 6);
        const Quaternion start = scene.start;
        VectorX dofs = scene.s.q.head(kDofs);
        if (type == JointType::revolute) {
            // Turning about the line through p: x -> p + Q (x - p), R -> Q R; the body's rotation
            // DOFs are the body-frame rotation vector d with R = R_start exp([d]).
            const Mat3 Q = Eigen::AngleAxisd(0.8, n).toRotationMatrix();
            dofs.head<3>() = p + Q * (kOrigin - p);
            const Mat3 R0 = start.toRotationMatrix();
            dofs.segment<3>(3) = rotation_log(Quaternion(Mat3(R0.transpose() * Q * R0)));
        } else {
            dofs.head<3>() += 0.05 * n;
        }
        scene.set_dofs(dofs);
        VectorX velocity = VectorX::Zero(kDofs);
        velocity.head<3>() = Vec3(0.4, -0.7, 0.2);
        scene.s.v = velocity;
        JointCoordinate c;
        const Index m = 6;
        c.force_row.setZero(m);
        c.position_row.setZero(m);
        c.rate_position_row.setZero(m);
        c.curvature.setZero(m, m);
        EvalContext context;
        context.q = &scene.s.q;
        context.v = &scene.s.v;
        const double tau = 1.7;
        joint.evaluate_coordinate(context, tau, c);
        CHECK(c.value == Approx(type == JointType::revolute ? 0.8 : 0.05).margin(1e-12));
        ConstraintEvaluation e = sized(joint);
        const double zero[5] = {};
        joint.evaluate(context, zero, e);
        CHECK(e.value.cwiseAbs().maxCoeff() < 1e-12);
        CHECK(c.rate == Approx(c.force_row.head<3>().dot(velocity.head<3>())).margin(1e-14));

        // Differences of the coordinate and its generalised force over the body's DOFs (step 1e-6:
        // truncation ~1e-12, round-off ~1e-10).
        const double h = 1e-6;
        for (Index j = 0; j < m; ++j) {
            VectorX plus = dofs, minus = dofs;
            plus[j] += h;
            minus[j] -= h;
            JointCoordinate cp = c, cm = c;
            scene.set_dofs(plus);
            joint.evaluate_coordinate(context, tau, cp);
            scene.set_dofs(minus);
            joint.evaluate_coordinate(context, tau, cm);
            INFO("DOF " << j);
            CHECK(std::abs((cp.value - cm.value) / (2 * h) - c.position_row[j]) < 1e-7);
            const Eigen::RowVectorXd force_change = tau * (cp.force_row - cm.force_row) / (2 * h);
            CHECK((force_change.transpose() - c.curvature.col(j)).cwiseAbs().maxCoeff() < 1e-6);
            CHECK(std::abs((cp.rate - cm.rate) / (2 * h) - c.rate_position_row[j]) < 1e-7);
        }
        scene.set_dofs(dofs);
    }
}

TEST_CASE("frame joints: bad input is refused at its key", "[joints][frame_joint]") {
    BodyAndRod scene;
    FrameJointSettings universal = rod_to_body(JointType::universal);
    universal.second_axis = universal.axis + Vec3(0.1, 0, 0);
    FrameJoint skew_axes(universal, frame_joint_parameters("{first: {element: rod}, at: [0, 0, 0], second_axis: [1, 0, 0]}"));
    CHECK_THROWS_WITH(skew_axes.bind(scene), Catch::Contains("second_axis") && Catch::Contains("perpendicular"));

    FrameJointSettings zero_axis = rod_to_body(JointType::revolute);
    zero_axis.axis = Vec3::Zero();
    FrameJoint no_axis(zero_axis, frame_joint_parameters("{first: {element: rod}, at: [0, 0, 0], axis: [0, 0, 0]}"));
    CHECK_THROWS_WITH(no_axis.bind(scene), Catch::Contains("axis") && Catch::Contains("non-zero"));

    FrameJointSettings late = rod_to_body(JointType::revolute);
    late.coordinate = [](double t) { return 0.5 + t; };
    late.coordinate_text = "0.5 + t";
    FrameJoint late_start(late, frame_joint_parameters("{first: {element: rod}, at: [0, 0, 0], coordinate: '0.5 + t'}"));
    CHECK_THROWS_WITH(late_start.bind(scene), Catch::Contains("coordinate") && Catch::Contains("must start where the joint is"));

    FrameJointSettings moving = rod_to_body(JointType::revolute);
    moving.coordinate = [](double t) { return std::sin(t); };
    moving.coordinate_text = "sin(t)";
    FrameJoint jump(moving, frame_joint_parameters("{first: {element: rod}, at: [0, 0, 0], coordinate: 'sin(t)'}"));
    CHECK_THROWS_WITH(jump.bind(scene), Catch::Contains("coordinate") && Catch::Contains("must also start with the joint's rate"));

    FrameJointSettings same = rod_to_body(JointType::revolute);
    same.second.element = "rod";
    FrameJoint itself(same, frame_joint_parameters("{first: {element: rod}, second: {element: rod}, at: [0, 0, 0]}"));
    CHECK_THROWS_WITH(itself.bind(scene), Catch::Contains("move as one"));
    // Two frames of one rigid body depend on the same DOFs: refused too.
    FrameJointSettings rigid = rod_to_body(JointType::revolute);
    rigid.first.element = "body";
    rigid.first.frame = "center_of_mass";
    FrameJoint body_to_itself(rigid, frame_joint_parameters("{first: {element: body}, second: {element: body}, at: [0, 0, 0]}"));
    CHECK_THROWS_WITH(body_to_itself.bind(scene), Catch::Contains("second") && Catch::Contains("move as one"));
    // Two frames of one rod that depend on different nodes may be joined (a loop).
    FrameJointSettings loop = rod_to_body(JointType::spherical);
    loop.second.element = "rod";
    loop.second.frame = "end";
    FrameJoint rod_loop(loop, frame_joint_parameters("{first: {element: rod}, second: {element: rod}, at: [0, 0, 0]}"));
    CHECK_NOTHROW(rod_loop.bind(scene));

    // Axes written with rounded decimals are accepted and made perpendicular.
    FrameJointSettings rounded = rod_to_body(JointType::universal);
    rounded.second_axis = *rounded.second_axis + 1e-8 * rounded.axis;
    FrameJoint nearly(rounded, frame_joint_parameters("{first: {element: rod}, at: [0, 0, 0], second_axis: [1, 0, 0]}"));
    CHECK_NOTHROW(nearly.bind(scene));

    FrameJointSettings frameless = rod_to_body(JointType::revolute);
    frameless.second.frame = "tip";
    FrameJoint no_frame(frameless, frame_joint_parameters("{first: {element: rod}, second: {element: body, frame: tip}, at: [0, 0, 0]}"));
    CHECK_THROWS_WITH(no_frame.bind(scene), Catch::Contains("no frame 'tip'"));
}
