// The recursive inverse dynamics of a GVS tree and its analytical derivatives (Mathew et al.,
// sections 4 and 5) against central finite differences of ID, against Kane's form of M and F,
// and against a pendulum solved by hand. The tree mixes every edge kind: fixed transforms, a
// revolute and a spherical joint carrying a rigid body, and two soft rods (4th- and 2nd-order
// Magnus) branching from the body, so the forward (B) and backward (C, S) sums cross joints,
// bodies and branches.
#include "gvs_test_trees.hpp"
#include "inverse_dynamics.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <random>

using namespace soma;
using namespace soma::gvs;
using namespace soma::gvs::testing;

TEST_CASE("GVS inverse dynamics: dID/dq, dID/dqdot and M equal central differences of ID", "[gvs][rnea]") {
    std::mt19937 rng(7);
    const HybridTree tree(rng);
    const Index n = tree.n;
    MultibodyData data(tree.model), probe(tree.model);
    for (const bool gravity_on : {false, true}) {
        for (const double q_scale : {0.0, 0.5}) {
            INFO("gravity " << gravity_on << ", |q| ~ " << q_scale);
            const Vec3 gravity = gravity_on ? Vec3(0.0, 0.0, -9.81) : Vec3::Zero();
            const VectorX q = random_vector(n, rng, q_scale), qdot = random_vector(n, rng, 1.0),
                          qddot = random_vector(n, rng, 1.0);
            inverse_dynamics_derivatives(tree.model, data, q, qdot, qddot, gravity);
            // The plain RNEA gives the same ID.
            inverse_dynamics(tree.model, probe, q, qdot, qddot, gravity);
            CHECK((probe.id - data.id).norm() <= 1e-13 * data.id.norm());

            const double step = 1e-6;
            Eigen::MatrixXd fd_q(n, n), fd_qdot(n, n), fd_qddot(n, n);
            for (Index j = 0; j < n; ++j) {
                const auto column = [&](const VectorX& qp, const VectorX& qm, const VectorX& vp, const VectorX& vm,
                                        const VectorX& ap, const VectorX& am) {
                    inverse_dynamics(tree.model, probe, qp, vp, ap, gravity);
                    const VectorX plus = probe.id;
                    inverse_dynamics(tree.model, probe, qm, vm, am, gravity);
                    return VectorX((plus - probe.id) / (2.0 * step));
                };
                VectorX e = VectorX::Zero(n);
                e[j] = step;
                fd_q.col(j) = column(q + e, q - e, qdot, qdot, qddot, qddot);
                fd_qdot.col(j) = column(q, q, qdot + e, qdot - e, qddot, qddot);
                fd_qddot.col(j) = column(q, q, qdot, qdot, qddot + e, qddot - e);
            }
            // Central differences: truncation ~ step^2 |ID'''| ~ 1e-12 and round-off
            // ~ 1e-16 |ID| / step ~ 1e-10, relative; a wrong term (the gravity sign of eq. D12, ad*
            // for ad) is an O(1) relative error. 1e-7 sits between them.
            CHECK(relative_error(data.did_dq, fd_q) < 1e-7);
            CHECK(relative_error(data.did_dqdot, fd_qdot) < 1e-7);
            CHECK(relative_error(data.mass, fd_qddot) < 1e-7);
            CHECK(data.rate_derivatives_valid);
            // The position-only pass (geometric stiffness, loop curvature) gives the same ID and
            // dID/dq, term for term, and says that it left the rate derivatives out.
            inverse_dynamics_derivatives(tree.model, probe, q, qdot, qddot, gravity, nullptr, DerivativeSet::position);
            CHECK(probe.id == data.id);
            CHECK(probe.did_dq == data.did_dq);
            CHECK(probe.derivatives_valid);
            CHECK_FALSE(probe.rate_derivatives_valid);
        }
    }
}

TEST_CASE("GVS inverse dynamics: M is symmetric positive definite and M and F equal Kane's form", "[gvs][rnea]") {
    std::mt19937 rng(11);
    const HybridTree tree(rng);
    const Index n = tree.n;
    MultibodyData data(tree.model);
    const Vec3 gravity(0.3, -0.2, -9.81);
    const VectorX q = random_vector(n, rng, 0.5), qdot = random_vector(n, rng, 1.0), qddot = random_vector(n, rng, 1.0);
    inverse_dynamics_derivatives(tree.model, data, q, qdot, qddot, gravity);
    // Kane: M = sum_k J_k^T 𝓜_k J_k, F = -sum_k J_k^T (𝓜_k Jdot_k qdot + ad*_eta 𝓜_k eta - 𝓜_k Ad^-1_g G)
    // with J_k = S^B_k and Jdot_k = Y^B_k - R^B_k (eqs. 28a, 28b).
    Eigen::MatrixXd kane_mass = Eigen::MatrixXd::Zero(n, n);
    VectorX kane_force = VectorX::Zero(n);
    Vec6 G = Vec6::Zero();
    G.tail<3>() = gravity;
    for (Index k = 0; k < tree.model.point_count(); ++k) {
        const auto i = static_cast<std::size_t>(k);
        const Mat6& m = tree.model.inertia[i];
        const Matrix6X& J = data.s_b[i];
        kane_mass += J.transpose() * m * J;
        const Vec6 eta = J * qdot;
        CHECK((eta - data.eta[i]).norm() <= 1e-12 * (1.0 + eta.norm()));
        const Vec6 jdot_qdot = (data.y_b[i] - data.r_b[i]) * qdot;
        kane_force -= J.transpose() * (m * jdot_qdot + coad(eta) * m * eta - m * (Ad_inverse(data.pose[i]) * G));
    }
    // Round-off: sums of O(1) products over 30-odd points, 1e-12 relative.
    CHECK(relative_error(data.mass, kane_mass) < 1e-12);
    CHECK(relative_error(data.mass.transpose(), data.mass) < 1e-12);
    CHECK(Eigen::LLT<Eigen::MatrixXd>(data.mass).info() == Eigen::Success);
    const VectorX force = data.mass * qddot - data.id;
    CHECK((force - kane_force).norm() < 1e-11 * kane_force.norm());
}

TEST_CASE("GVS inverse dynamics: a rigid pendulum on a revolute joint, by hand", "[gvs][rnea]") {
    // A point-like body of mass m and inertia I_c about its centre, at distance l from a
    // revolute joint about the world x axis, gravity -z. With the arm along -z at theta = 0:
    //   ID = (I_c + m l^2) theta'' + m g l sin(theta).
    const double m = 2.0, l = 0.5, Ic = 0.01, g = 9.81;
    const Pendulum pendulum(m, l, Ic);
    const MultibodyModel& model = pendulum.model;
    MultibodyData data(model);
    for (const double theta : {0.0, 0.3, -1.2}) {
        const double theta_dot = 0.7, theta_ddot = -1.3;
        inverse_dynamics_derivatives(model, data, VectorX::Constant(1, theta), VectorX::Constant(1, theta_dot),
                                     VectorX::Constant(1, theta_ddot), Vec3(0.0, 0.0, -g));
        const double expected = (Ic + m * l * l) * theta_ddot + m * g * l * std::sin(theta);
        CHECK(data.id[0] == Approx(expected).epsilon(1e-13).margin(1e-13));
        CHECK(data.mass(0, 0) == Approx(Ic + m * l * l).epsilon(1e-13));
        CHECK(data.did_dq(0, 0) == Approx(m * g * l * std::cos(theta)).epsilon(1e-13).margin(1e-13));
        CHECK(std::abs(data.did_dqdot(0, 0)) < 1e-13);
    }
}

TEST_CASE("GVS inverse dynamics: wrong sizes, a stale data struct and bad layouts are refused", "[gvs][rnea]") {
    std::mt19937 rng(3);
    HybridTree tree(rng);
    MultibodyData data(tree.model);
    const Index n = tree.n;
    const VectorX zero = VectorX::Zero(n), short_vector = VectorX::Zero(n - 1);
    CHECK_THROWS_WITH(inverse_dynamics(tree.model, data, short_vector, zero, zero, Vec3::Zero()),
                      Catch::Contains("entries for a model of " + std::to_string(n) + " coordinates"));
    // The model grew after the data was built: no out-of-bounds read, a clear error.
    Edge extra;
    tree.model.add_point(extra, 0, Mat6::Zero());
    CHECK_THROWS_WITH(inverse_dynamics(tree.model, data, zero, zero, zero, Vec3::Zero()),
                      Catch::Contains("the data was built for another model"));

    // Layouts: a coordinate no edge owns (M would have a zero row), and two joints sharing one.
    MultibodyModel orphan;
    orphan.dof_count = 2;
    Edge hinge;
    hinge.kind = EdgeKind::rigid_joint;
    hinge.dof_count = 1;
    hinge.phi_z1 = Matrix6X::Zero(6, 1);
    hinge.phi_z1(0, 0) = 1.0;
    orphan.add_point(hinge, 0, Mat6::Identity());
    CHECK_THROWS_WITH(MultibodyData(orphan), Catch::Contains("coordinate 1 of 2 belongs to no joint or rod"));
    MultibodyModel shared;
    shared.dof_count = 1;
    shared.add_point(hinge, 0, Mat6::Identity());
    shared.add_point(hinge, 1, Mat6::Identity());
    CHECK_THROWS_WITH(MultibodyData(shared), Catch::Contains("which are not intervals of one rod"));

    // Edges that cannot be evaluated are refused when added.
    Edge skewed;
    skewed.transform.R = 2.0 * Mat3::Identity();
    CHECK_THROWS_WITH(shared.add_point(skewed, 0, Mat6::Zero()), Catch::Contains("not a finite rigid transform"));
    Edge flat;
    flat.kind = EdgeKind::soft_interval;
    flat.dof_count = 1;
    flat.phi_z1 = flat.phi_z2 = Matrix6X::Zero(6, 1);
    flat.h = 0.0;
    CHECK_THROWS_WITH(shared.add_point(flat, 0, Mat6::Zero()), Catch::Contains("finite length h > 0"));
    Mat6 lopsided = Mat6::Identity();
    lopsided(0, 1) = 1.0;
    CHECK_THROWS_WITH(shared.add_point(Edge{}, 0, lopsided), Catch::Contains("finite and symmetric"));
}
