// Rigid body element: residual Jacobians against central finite differences, point kinematics
// and geometric stiffness, and the orientation manifold's integrate/difference.
#include "rigid_body_fixture.hpp"

#include "soma/point_map.hpp"
#include "soma/testing/frame_differences.hpp"
#include "soma/rotation.hpp"
#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace soma;
using namespace soma::rigid_body;
using soma::testing::DenseAssembly;
using soma::testing::finite_difference_jacobian;
using soma::testing::max_relative_error;
using namespace soma::rigid_body::testing;

TEST_CASE("rigid body: the Jacobian is c_q dF/dd + c_v dF/dv + c_a dF/da", "[rigid_body]") {
    Fixture f;
    DenseAssembly dense(6);
    f.body.declare_pattern(dense.pattern());
    const JacobianCoefficients c{0.3, 0.7, 1.1};
    const auto [F, J] = dense.evaluate(f.body, f.it.context(c));
    Iterate probe = f.it;
    const VectorX dofs = f.it.q.head<6>();
    const auto residual_of_q = [&](const VectorX& x) {
        probe.set_dofs(x);
        return dense.evaluate(f.body, probe.context(), false).first;
    };
    const Eigen::MatrixXd dF_dq = finite_difference_jacobian(residual_of_q, dofs, 1e-6);
    probe = f.it;
    const auto residual_of_v = [&](const VectorX& x) {
        probe.v = x;
        return dense.evaluate(f.body, probe.context(), false).first;
    };
    const Eigen::MatrixXd dF_dv = finite_difference_jacobian(residual_of_v, f.it.v, 1e-6);
    probe = f.it;
    const auto residual_of_a = [&](const VectorX& x) {
        probe.a = x;
        return dense.evaluate(f.body, probe.context(), false).first;
    };
    const Eigen::MatrixXd dF_da = finite_difference_jacobian(residual_of_a, f.it.a, 1e-6);
    // Central differences with h = 1e-6 on O(1) quantities: truncation ~1e-12, round-off ~1e-10.
    CHECK(max_relative_error(J, c.c_q * dF_dq + c.c_v * dF_dv + c.c_a * dF_da) < 1e-7);
    // Each part on its own, so that a wrong term cannot hide behind a large one.
    CHECK(max_relative_error(dense.evaluate(f.body, f.it.context({1, 0, 0})).second, dF_dq) < 1e-7);
    CHECK(max_relative_error(dense.evaluate(f.body, f.it.context({0, 1, 0})).second, dF_dv) < 1e-7);
    CHECK(max_relative_error(dense.evaluate(f.body, f.it.context({0, 0, 1})).second, dF_da) < 1e-7);
    // The a-Jacobian is the spatial inertia: symmetric positive definite.
    const Eigen::MatrixXd M = dense.evaluate(f.body, f.it.context({0, 0, 1})).second;
    CHECK((M - M.transpose()).norm() < 1e-14 * M.norm());
    CHECK(Eigen::LLT<Eigen::MatrixXd>(M).info() == Eigen::Success);
}

TEST_CASE("rigid body: kinetic energy is 1/2 v^T M v and torque-free spin about a principal axis has no residual",
          "[rigid_body]") {
    Fixture f;
    DenseAssembly dense(6);
    f.body.declare_pattern(dense.pattern());
    const Eigen::MatrixXd M = dense.evaluate(f.body, f.it.context({0, 0, 1})).second;
    CHECK(f.body.kinetic_energy(f.it.context()) == Approx(0.5 * f.it.v.dot(M * f.it.v)).epsilon(1e-13));

    RigidBodyDescription d;
    d.mass.mass = 1.0;
    d.mass.inertia = Vec3(1.0, 2.0, 3.0).asDiagonal();
    RigidBody spinning(d);
    spinning.bind({0, 1, 2, 3, 4, 5}, {kCoordinate});
    Iterate it{&spinning, Quaternion::Identity()};
    it.set_dofs(VectorX::Zero(6));
    it.v << 0, 0, 0, 0, 5.0, 0;  // steady rotation about a principal axis: omega x J omega = 0
    DenseAssembly d2(6);
    spinning.declare_pattern(d2.pattern());
    CHECK(d2.evaluate(spinning, it.context(), false).first.norm() < 1e-14);
    it.v << 0, 0, 0, 1.0, 2.0, 0;  // not principal: Euler's equations give (I3 - I2) w2 w3 ... = (0, 0, (I2 - I1) w1 w2)
    const VectorX F = d2.evaluate(spinning, it.context(), false).first;
    CHECK(F.tail<3>().isApprox(Vec3(0, 0, (2.0 - 1.0) * 1.0 * 2.0), 1e-14));
}

TEST_CASE("rigid body: point kinematics and geometric stiffness against finite differences", "[rigid_body]") {
    Fixture f;
    const VectorX dofs = f.it.q.head<6>();
    Iterate probe = f.it;
    for (Index point : {0, 3, 8}) {
        PointKinematics k;
        f.body.point_kinematics(point, f.it.context(), k);
        REQUIRE(k.dof_count == 6);
        const auto position_of = [&](const VectorX& x) {
            probe.set_dofs(x);
            return VectorX(point_position(f.body, point, probe.q));
        };
        const Eigen::MatrixXd dx_dq = finite_difference_jacobian(position_of, dofs, 1e-6);
        CHECK(max_relative_error(k.position_jacobian, dx_dq) < 1e-8);
        // J maps DOF velocities to the point's velocity.
        CHECK((k.velocity - k.jacobian * f.it.v).norm() < 1e-14 * k.velocity.norm());
        probe = f.it;
        const auto velocity_of = [&](const VectorX& x) {
            probe.set_dofs(x);
            return VectorX(point_velocity(f.body, point, probe.q, probe.v));
        };
        CHECK(max_relative_error(k.velocity_jacobian, finite_difference_jacobian(velocity_of, dofs, 1e-6)) < 1e-8);
        // d(J^T f)/dq at fixed f.
        const Vec3 force(1.5, -2.0, 0.7);
        PointStiffness K = PointStiffness::Zero();
        f.body.add_point_geometric_stiffness(point, f.it.context(), force, K);
        probe = f.it;
        const auto generalized_of = [&](const VectorX& x) {
            probe.set_dofs(x);
            PointKinematics kp;
            f.body.point_kinematics(point, probe.context(), kp);
            return VectorX(kp.jacobian.transpose() * force);
        };
        const Eigen::MatrixXd numeric = finite_difference_jacobian(generalized_of, dofs, 1e-6);
        CHECK(max_relative_error(Eigen::MatrixXd(K), numeric) < 1e-8);
    }
}

TEST_CASE("rigid body: frame kinematics and geometric stiffness against finite differences", "[rigid_body][frames]") {
    // Body frame, centre of mass and a marker-less body's shape point are frames 0, 1; the
    // lopsided body has no markers, so frame_count is 2.
    Fixture f;
    REQUIRE(f.body.frame_count() == 2);
    CHECK(f.body.frame_name(0) == "body");
    CHECK(f.body.frame_name(1) == "center_of_mass");
    CHECK_THROWS_AS(f.body.frame_point(2), std::out_of_range);
    const VectorX dofs = f.it.q.head<6>();
    Iterate probe = f.it;
    for (Index frame : {0, 1}) {
        INFO("frame " << frame);
        FrameKinematics k;
        f.body.frame_kinematics(frame, f.it.context(), k);
        REQUIRE(k.dof_count == 6);
        // The frame sits on its point and turns with the body.
        CHECK((k.origin - point_position(f.body, f.body.frame_point(frame), f.it.q)).norm() < 1e-15);
        CHECK((k.rotation - f.body.orientation(f.it.context()).toRotationMatrix()).norm() < 1e-15);
        const auto frame_of = [&](const VectorX& x) {
            probe.set_dofs(x);
            FrameKinematics kp;
            f.body.frame_kinematics(frame, probe.context(), kp);
            return std::make_pair(kp.origin, kp.rotation);
        };
        // Truncation O(h^2) ~ 1e-12 and round-off O(eps/h) ~ 1e-10 relative: 1e-8 leaves margin.
        CHECK(max_relative_error(Eigen::MatrixXd(k.position_jacobian.leftCols(6)),
                                 soma::testing::finite_difference_frame_jacobian(frame_of, dofs, 1e-6)) < 1e-8);
        // J maps DOF velocities to the origin's velocity and the world angular velocity R omega_body.
        VecN<6> rates;
        rates << k.velocity, k.angular_velocity;
        CHECK((rates - k.jacobian.leftCols(6) * f.it.v).norm() < 1e-14 * rates.norm());
        CHECK((k.angular_velocity - k.rotation * f.it.v.tail<3>()).norm() < 1e-14 * k.angular_velocity.norm());
        // d(J^T [f; tau])/dq at fixed world force and torque.
        const Vec3 force(1.5, -2.0, 0.7), torque(-0.4, 0.9, 1.3);
        FrameStiffness K = FrameStiffness::Zero();
        f.body.add_frame_geometric_stiffness(frame, f.it.context(), force, torque, K);
        probe = f.it;
        const auto generalized_of = [&](const VectorX& x) {
            probe.set_dofs(x);
            FrameKinematics kp;
            f.body.frame_kinematics(frame, probe.context(), kp);
            VecN<6> wrench;
            wrench << force, torque;
            return VectorX(kp.jacobian.leftCols(6).transpose() * wrench);
        };
        const Eigen::MatrixXd numeric = finite_difference_jacobian(generalized_of, dofs, 1e-6);
        CHECK(max_relative_error(Eigen::MatrixXd(K.topLeftCorner(6, 6)), numeric) < 1e-8);
    }
}

TEST_CASE("rigid body: markers are frames after the centre of mass", "[rigid_body][frames]") {
    RigidBodyDescription d = lopsided_body();
    d.markers = {Vec3(0.3, 0.0, 0.0), Vec3(0.0, -0.2, 0.1)};
    const RigidBody body(d);
    REQUIRE(body.frame_count() == 4);
    CHECK(body.frame_name(2) == "marker_0");
    CHECK(body.frame_name(3) == "marker_1");
    CHECK(body.frame_point(3) == 3);
}

namespace {

/// A velocity-dependent world force at one point, applied through point_map.hpp:
/// f = -k (x - x0) - b xdot.
struct SpringDamperAtPoint final : Contributor {
    const RigidBody& body;
    Index point;
    Vec3 anchor{0.2, 0.1, -0.3};
    double k = 40.0, b = 3.0;
    StencilId stencil = 0;
    SpringDamperAtPoint(const RigidBody& body, Index point) : body(body), point(point) {}
    void declare_pattern(PatternBuilder& p) override {
        VectorX identity = VectorX::Zero(10);
        identity[kCoordinate] = 1.0;  // unit quaternion (1, 0, 0, 0)
        const auto dofs = point_stencil(body, point, identity);
        stencil = p.add_stencil(dofs);
    }
    void add_residual_and_jacobian(const EvalContext& c, Assembly& assembly) override {
        PointKinematics kin;
        evaluate_point(body, point, c, kin);
        const Vec3 r = k * (kin.position - anchor) + b * kin.velocity;  // r = -f
        const Mat3 dx = k * Mat3::Identity(), dv = b * Mat3::Identity();
        add_point_residual(assembly, stencil, body, point, c, kin, r, {&dx, &dv});
    }
};

}  // namespace

TEST_CASE("rigid body: a point force through the map has the exact Jacobian", "[rigid_body][point_map]") {
    Fixture f;
    SpringDamperAtPoint force(f.body, 5);
    DenseAssembly dense(6);
    force.declare_pattern(dense.pattern());
    const JacobianCoefficients c{0.3, 0.7, 1.1};
    const Eigen::MatrixXd J = dense.evaluate(force, f.it.context(c)).second;
    const auto [dF_dq, dF_dv] = finite_difference_derivatives(force, dense, f.it);
    CHECK(max_relative_error(J, c.c_q * dF_dq + c.c_v * dF_dv) < 1e-7);
}

TEST_CASE("rigid body: integrate and difference on the orientation are inverse", "[rigid_body]") {
    const RigidBody body(lopsided_body());
    std::mt19937 random(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int trial = 0; trial < 20; ++trial) {
        const Quaternion q0 = Quaternion(u(random), u(random), u(random), u(random)).normalized();
        const Vec3 d(2.0 * u(random), 2.0 * u(random), 2.0 * u(random));  // up to 3.5 rad: < pi is not needed for q1
        double c0[4] = {q0.w(), q0.x(), q0.y(), q0.z()}, c1[4], back[3];
        body.integrate_block(0, c0, d.data(), c1);
        body.difference_block(0, c1, c0, back);
        // difference returns the shortest rotation: d itself when |d| < pi.
        if (d.norm() < 3.1) CHECK((Vec3(back[0], back[1], back[2]) - d).norm() < 1e-12);
        double again[4];
        body.integrate_block(0, c0, back, again);
        const Quaternion q_back(again[0], again[1], again[2], again[3]), q1(c1[0], c1[1], c1[2], c1[3]);
        CHECK(std::abs(std::abs(q_back.dot(q1)) - 1.0) < 1e-14);  // the same rotation (q and -q)
    }
}

TEST_CASE("rotation: exp, log and the right Jacobian", "[rotation]") {
    std::mt19937 random(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (double scale : {1e-9, 1e-5, 0.3, 2.5}) {  // both sides of the series switches
        const Vec3 phi = scale * Vec3(u(random), u(random), u(random));
        CHECK((rotation_log(rotation_exp(phi)) - phi).norm() <= 1e-15 + 1e-13 * phi.norm());
        CHECK(rotation_exp(phi).toRotationMatrix().isApprox(Eigen::AngleAxisd(phi.norm(), phi.normalized()).toRotationMatrix(), 1e-14));
        // exp(phi + h e_k) = exp(phi) exp(h Jr e_k) + O(h^2): compare the body rotation vectors.
        const Mat3 Jr = right_jacobian(phi);
        Mat3 numeric;
        const double h = 1e-6;
        for (int k = 0; k < 3; ++k) {
            const Vec3 e = Vec3::Unit(k);
            numeric.col(k) = (rotation_log(rotation_exp(phi).conjugate() * rotation_exp(phi + h * e)) -
                              rotation_log(rotation_exp(phi).conjugate() * rotation_exp(phi - h * e))) / (2.0 * h);
        }
        CHECK((Jr - numeric).norm() < 1e-8);
        CHECK((right_jacobian_inverse(phi) * Jr - Mat3::Identity()).norm() < 1e-13);
    }
}
