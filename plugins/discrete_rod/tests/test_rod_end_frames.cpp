// The rod's end frames as maps (rod_end_frames.hpp): origin and material frame, J_q against
// central finite differences of the origin and of the world rotation vector, J v against the
// angular velocity, and the geometric stiffness d(J^T [f; tau])/dq against differences of
// J^T [f; tau]. Checked away from the committed state (the committed tangents differ from the
// current ones), where the transport's spin term matters.
//
// Tolerance: step h = 1e-6 on O(0.1) coordinates; truncation O(h^2) relative to the O(1/|e|^2)
// curvature of the map over edges of 5-10 cm is ~1e-9, round-off O(eps/h) ~ 1e-10: 1e-6 relative
// (the element tests' tolerance) leaves margin, while dropping the spin term changes J by
// O(angle(s, t)) ~ 1e-2.
#include "discrete_rod.hpp"
#include "rod_geometry.hpp"

#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/frame_differences.hpp"

#include <catch2/catch.hpp>

#include <numeric>
#include <random>

using namespace soma;
using namespace soma::rod;
using soma::testing::finite_difference_frame_jacobian;
using soma::testing::finite_difference_jacobian;
using soma::testing::max_relative_error;

namespace {

RodDescription curved_rod() {
    RodDescription d;
    d.positions = {Vec3(0.0, 0.0, 0.0),    Vec3(0.05, 0.01, 0.0),  Vec3(0.12, 0.03, 0.01), Vec3(0.16, 0.08, 0.03),
                   Vec3(0.18, 0.15, 0.06), Vec3(0.17, 0.21, 0.1),  Vec3(0.13, 0.25, 0.13)};
    d.section = circular_cross_section(0.02);
    d.material.density = 1200.0;
    d.material.youngs_modulus = 1e5;
    d.material.poisson_ratio = 0.5;
    return d;
}

/// The frame's Jacobian (6 x frame DOFs) scattered into the rod's DOF columns.
Eigen::MatrixXd scatter(const Eigen::Matrix<double, 6, kMaxFrameDofs>& J, const FrameKinematics& k, Index n) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(6, n);
    for (int c = 0; c < k.dof_count; ++c) out.col(k.dofs[static_cast<std::size_t>(c)]) += J.col(c);
    return out;
}

}  // namespace

TEST_CASE("rod end frames: material frames of the end edges at the end nodes", "[discrete_rod][frames]") {
    DiscreteRod rod(curved_rod());
    const Index n = rod.dof_count();
    std::vector<Index> map(static_cast<std::size_t>(n));
    std::iota(map.begin(), map.end(), 0);
    rod.bind(map);
    REQUIRE(rod.frame_count() == 2);
    CHECK(rod.frame_name(0) == "start");
    CHECK(rod.frame_name(1) == "end");
    CHECK(rod.frame_point(0) == 0);
    CHECK(rod.frame_point(1) == rod.node_count() - 1);
    CHECK_THROWS_AS(rod.frame_point(2), std::out_of_range);

    VectorX q, v;
    rod.initial_state(q, v);
    const double theta = 0.3;
    q[rod.twist_dof(0)] = theta;
    EvalContext context;
    context.q = &q;
    FrameKinematics k;
    rod.frame_kinematics(0, context, k);
    const std::vector<Vec3> a1 = rod.reference_directors(q);
    const Vec3 t = (q.segment<3>(3) - q.segment<3>(0)).normalized();
    CHECK((k.origin - q.segment<3>(0)).norm() == 0.0);
    CHECK((k.rotation.col(2) - t).norm() < 1e-15);
    // m1 = cos(theta) a1 + sin(theta) a2, a2 = t x a1.
    CHECK((k.rotation.col(0) - (std::cos(theta) * a1[0] + std::sin(theta) * t.cross(a1[0]))).norm() < 1e-15);
    CHECK((k.rotation.transpose() * k.rotation - Mat3::Identity()).norm() < 1e-14);
    CHECK(k.rotation.determinant() == Approx(1.0).epsilon(1e-14));
    rod.frame_kinematics(1, context, k);
    CHECK((k.origin - q.segment<3>(3 * (rod.node_count() - 1))).norm() == 0.0);
}

TEST_CASE("rod end frames: J, J v and the geometric stiffness against finite differences", "[discrete_rod][frames][derivatives]") {
    DiscreteRod rod(curved_rod());
    const Index n = rod.dof_count();
    std::vector<Index> map(static_cast<std::size_t>(n));
    std::iota(map.begin(), map.end(), 0);
    rod.bind(map);
    VectorX q0, v;
    rod.initial_state(q0, v);
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    // Commit a deformed, twisted state, then move away from it within the "step".
    VectorX committed = q0;
    for (Index i = 0; i < 3 * rod.node_count(); ++i) committed(i) += 0.01 * u(rng);
    for (Index e = 0; e < rod.edge_count(); ++e) committed(rod.twist_dof(e)) = 0.5 * u(rng);
    State end;
    end.q = committed;
    end.v = v;
    end.a = v;
    rod.commit_step(end);
    VectorX q = committed;
    for (Index i = 0; i < 3 * rod.node_count(); ++i) q(i) += 0.005 * u(rng);
    for (Index e = 0; e < rod.edge_count(); ++e) q(rod.twist_dof(e)) += 0.1 * u(rng);
    for (Index i = 0; i < n; ++i) v(i) = u(rng);

    for (Index frame : {0, 1}) {
        INFO("frame " << rod.frame_name(frame));
        EvalContext context;
        context.q = &q;
        context.v = &v;
        FrameKinematics k;
        rod.frame_kinematics(frame, context, k);
        REQUIRE(k.dof_count == 7);
        const auto frame_of = [&](const VectorX& x) {
            EvalContext c;
            c.q = &x;
            FrameKinematics kp;
            rod.frame_kinematics(frame, c, kp);
            return std::make_pair(kp.origin, kp.rotation);
        };
        const Eigen::MatrixXd J = scatter(k.position_jacobian, k, n);
        CHECK(max_relative_error(J, finite_difference_frame_jacobian(frame_of, q, 1e-6)) < 1e-6);
        CHECK((k.jacobian - k.position_jacobian).norm() == 0.0);  // vector-space DOFs
        VecN<6> rates;
        rates << k.velocity, k.angular_velocity;
        CHECK((rates - J * v).norm() < 1e-14 * rates.norm());

        const Vec3 force(1.5, -2.0, 0.7), torque(-0.4, 0.9, 1.3);
        FrameStiffness K = FrameStiffness::Zero();
        rod.add_frame_geometric_stiffness(frame, context, force, torque, K);
        Eigen::MatrixXd K_full = Eigen::MatrixXd::Zero(n, n);
        for (int r = 0; r < k.dof_count; ++r)
            for (int c = 0; c < k.dof_count; ++c) K_full(k.dofs[r], k.dofs[c]) += K(r, c);
        const auto generalized_of = [&](const VectorX& x) {
            EvalContext c;
            c.q = &x;
            FrameKinematics kp;
            rod.frame_kinematics(frame, c, kp);
            VecN<6> wrench;
            wrench << force, torque;
            return VectorX(scatter(kp.jacobian, kp, n).transpose() * wrench);
        };
        CHECK(max_relative_error(K_full, finite_difference_jacobian(generalized_of, q, 1e-6)) < 1e-6);
    }
}
