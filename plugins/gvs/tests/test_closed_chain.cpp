// Loop-closure constraints (closed_chain.hpp, Mathew et al., section 5.2): e, A, de/dq, Adot qdot
// the constraint wrenches' derivative and the Baumgarte row's dC/dq, dC/dqdot against central
// differences on the hybrid tree (a weld, a revolute and a spherical loop joint between its
// branches and the world), A qddot + Adot qdot against d^2e/dt^2 where g_BA = I, and a
// clamped-clamped steel rod against Euler-Bernoulli beam theory.
#include "closed_chain.hpp"
#include "gvs_test_trees.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <utility>

using namespace soma;
using namespace soma::gvs;
using namespace soma::gvs::testing;

namespace {

/// The hybrid tree with three loop joints closed at q0 (e(q0) = 0): a weld from rod a's tip (10)
/// to body 2 (5), a revolute joint from rod b's tip (15) to the world (root 0) and a spherical
/// joint between points 8 (rod a) and 13 (rod b), each with random offsets on both sides.
struct ClosedTree {
    HybridTree tree;
    ClosedChainModel chains;
    VectorX q0;
    ClosedTree(std::mt19937& rng) : tree(rng), q0(random_vector(tree.n, rng, 0.3)) {
        MultibodyData data(tree.model);
        const VectorX zero = VectorX::Zero(tree.n);
        inverse_dynamics(tree.model, data, q0, zero, zero, Vec3::Zero());
        const auto close = [&](Index a, Index b, Matrix6X directions) {
            LoopJoint joint;
            joint.point_a = a;
            joint.point_b = b;
            joint.offset_a = random_pose(rng, 0.05);
            // frame b = frame a at q0
            joint.offset_b = compose(inverse(data.pose[static_cast<std::size_t>(b)]),
                                     compose(data.pose[static_cast<std::size_t>(a)], joint.offset_a));
            joint.constrained = std::move(directions);
            add_loop_joint(chains, tree.model, joint);
        };
        close(10, 5, weld_directions());
        close(15, 0, revolute_directions(Vec3(0.3, -0.5, 0.8)));
        close(8, 13, spherical_directions());
    }
};

struct Evaluator {
    const ClosedTree& t;
    MultibodyData data;
    ClosedChainData chain;
    explicit Evaluator(const ClosedTree& closed) : t(closed), data(closed.tree.model), chain(closed.tree.model, closed.chains) {}
    void at(const VectorX& q, const VectorX& qdot) {
        const VectorX zero = VectorX::Zero(t.tree.n);
        inverse_dynamics_derivatives(t.tree.model, data, q, qdot, zero, Vec3::Zero());
        closed_chain_constraints(data, t.chains, qdot, chain);
    }
};

constexpr double kStep = 1e-6;

}  // namespace

TEST_CASE("GVS closed chain: Phi_perp of the standard loop joints is orthonormal", "[gvs]") {
    for (const Matrix6X& phi : {weld_directions(), revolute_directions(Vec3(0.3, -0.5, 0.8)), spherical_directions()}) {
        const Eigen::MatrixXd gram = phi.transpose() * phi;
        CHECK((gram - Eigen::MatrixXd::Identity(phi.cols(), phi.cols())).norm() < 1e-15);
    }
    Vec6 free_rotation = Vec6::Zero();
    free_rotation.head<3>() = Vec3(0.3, -0.5, 0.8).normalized();
    CHECK((revolute_directions(Vec3(0.3, -0.5, 0.8)).transpose() * free_rotation).norm() < 1e-15);
}

TEST_CASE("GVS closed chain: a planar loop joint holds the joint's directions in frame b's xy-plane", "[gvs]") {
    // The in-plane directions are x, y and the rotation about z: rows 3, 4 and 2 of a twist.
    const auto spans = [](const Matrix6X& phi, std::vector<int> axes) {
        Matrix6X expected = Matrix6X::Zero(6, static_cast<Index>(axes.size()));
        for (std::size_t k = 0; k < axes.size(); ++k) expected(axes[k], static_cast<Index>(k)) = 1.0;
        // Same column count, orthonormal, and each column of one in the span of the other.
        const Eigen::MatrixXd gram = phi.transpose() * phi;
        return phi.cols() == expected.cols() &&
               (gram - Eigen::MatrixXd::Identity(phi.cols(), phi.cols())).norm() < 1e-14 &&
               (expected - phi * (phi.transpose() * expected)).norm() < 1e-14;
    };
    CHECK(spans(in_plane_directions(weld_directions()), {2, 3, 4}));
    CHECK(spans(in_plane_directions(revolute_directions(Vec3(0, 0, 3))), {3, 4}));
    CHECK(spans(in_plane_directions(spherical_directions()), {3, 4}));
    // A hinge about an in-plane axis leaves the rotation about z held too.
    CHECK(spans(in_plane_directions(revolute_directions(Vec3(1, 0, 0))), {2, 3, 4}));
    // Directions all out of the plane leave nothing to hold.
    Matrix6X out_of_plane = Matrix6X::Zero(6, 2);
    out_of_plane(0, 0) = out_of_plane(5, 1) = 1.0;
    CHECK_THROWS_WITH(in_plane_directions(out_of_plane), Catch::Contains("none of its constrained directions"));
}

TEST_CASE("GVS closed chain: e = 0 on the closed tree and A qdot is the error's rate", "[gvs]") {
    std::mt19937 rng(11);
    const ClosedTree closed(rng);
    Evaluator ev(closed);
    const VectorX qdot = random_vector(closed.tree.n, rng, 1.0);
    ev.at(closed.q0, qdot);
    CHECK(closed.chains.row_count == 14);
    INFO("e at q0: " << ev.chain.e.transpose());
    CHECK(ev.chain.e.norm() < 1e-14);
    const VectorX a_qdot = ev.chain.A * qdot;
    // At e = 0 (g_BA = I) d/dt e(q + t qdot) = Phi^T T^{-1}(0) (Ad J_a - J_b) qdot = A qdot. Central
    // differences with h = 1e-6: truncation ~h^2, round-off ~1e-16 / h = 1e-10 relative.
    Evaluator plus(closed), minus(closed);
    plus.at(closed.q0 + kStep * qdot, qdot);
    minus.at(closed.q0 - kStep * qdot, qdot);
    const VectorX fd = (plus.chain.e - minus.chain.e) / (2.0 * kStep);
    const double error = relative_error(a_qdot, fd);
    INFO("A qdot against d/dt e: relative " << error);
    CHECK(error < 1e-7);
}

TEST_CASE("GVS closed chain: de/dq against central differences away from e = 0, and de/dq != A there", "[gvs]") {
    std::mt19937 rng(12);
    const ClosedTree closed(rng);
    Evaluator ev(closed), plus(closed), minus(closed);
    const Index n = closed.tree.n;
    const VectorX q = closed.q0 + random_vector(n, rng, 0.5);
    const VectorX zero = VectorX::Zero(n);
    ev.at(q, zero);
    INFO("e " << ev.chain.e.transpose());
    REQUIRE(ev.chain.e.norm() > 0.05);  // far from closed: theta of g_BA ~ 0.1-1
    Eigen::MatrixXd fd(closed.chains.row_count, n);
    for (Index i = 0; i < n; ++i) {
        VectorX dq = VectorX::Zero(n);
        dq[i] = kStep;
        plus.at(q + dq, zero);
        minus.at(q - dq, zero);
        fd.col(i) = (plus.chain.e - minus.chain.e) / (2.0 * kStep);
    }
    const double error = relative_error(ev.chain.de_dq, fd);
    const double a_error = relative_error(ev.chain.A, fd);
    INFO("de/dq: relative " << error << "; A in place of de/dq (erratum E5): " << a_error);
    CHECK(error < 1e-7);
    CHECK(a_error > 1e-2);  // A is the Jacobian of e only at e = 0
}

TEST_CASE("GVS closed chain: the constraint wrenches' generalised force is A^T lambda, their derivative exact",
          "[gvs]") {
    std::mt19937 rng(13);
    const ClosedTree closed(rng);
    const Index n = closed.tree.n;
    const VectorX q = closed.q0 + random_vector(n, rng, 0.5);
    const VectorX zero = VectorX::Zero(n);
    Evaluator ev(closed);
    ev.chain.lambda = random_vector(closed.chains.row_count, rng, 1.0);
    const ConstraintWrenches wrenches(closed.chains, ev.chain);

    // With qdot = qddot = 0 and no gravity, ID is the applied wrenches' generalised force with a
    // minus sign (inertial minus external): ID = -A^T lambda.
    ev.at(q, zero);
    const VectorX a_t_lambda = ev.chain.A.transpose() * ev.chain.lambda;
    inverse_dynamics(closed.tree.model, ev.data, q, zero, zero, Vec3::Zero(), &wrenches);
    const double static_error = relative_error(-ev.data.id, a_t_lambda);
    INFO("ID + A^T lambda: relative " << static_error);
    CHECK(static_error < 1e-13);

    // In any state and gravity: dID/dq with the wrenches (D69 and the transport) against central
    // differences of ID(q) at fixed lambda; dID/dqdot and M unchanged.
    const VectorX qdot = random_vector(n, rng, 1.0), qddot = random_vector(n, rng, 1.0);
    const Vec3 gravity(0.3, -9.81, 1.2);
    MultibodyData plain(closed.tree.model), with(closed.tree.model), step(closed.tree.model);
    inverse_dynamics_derivatives(closed.tree.model, plain, q, qdot, qddot, gravity);
    inverse_dynamics_derivatives(closed.tree.model, with, q, qdot, qddot, gravity, &wrenches);
    const double id_error = relative_error(plain.id - with.id, a_t_lambda);
    INFO("ID without minus ID with the wrenches against A^T lambda: " << id_error);
    CHECK(id_error < 1e-13);
    CHECK(with.did_dqdot == plain.did_dqdot);
    CHECK(with.mass == plain.mass);
    Eigen::MatrixXd fd(n, n);
    for (Index i = 0; i < n; ++i) {
        VectorX dq = VectorX::Zero(n);
        dq[i] = kStep;
        inverse_dynamics(closed.tree.model, step, q + dq, qdot, qddot, gravity, &wrenches);
        fd.col(i) = step.id;
        inverse_dynamics(closed.tree.model, step, q - dq, qdot, qddot, gravity, &wrenches);
        fd.col(i) -= step.id;
        fd.col(i) /= 2.0 * kStep;
    }
    const double error = relative_error(with.did_dq, fd);
    // The constraint part alone, d(-A^T lambda)/dq, so that it is not hidden by the inertial terms.
    const double part_error = relative_error(with.did_dq - plain.did_dq, fd - plain.did_dq);
    INFO("dID/dq with the wrenches: relative " << error << ", its constraint part " << part_error);
    CHECK(error < 1e-7);
    CHECK(part_error < 1e-7);
}

TEST_CASE("GVS inverse dynamics at rest: static_loads gives the position set's dID/dq and refuses motion or gravity",
          "[gvs]") {
    std::mt19937 rng(17);
    const ClosedTree closed(rng);
    const Index n = closed.tree.n;
    // The loop wrenches of the three loop joints (a cross-branch one among them), a world wrench
    // and wall contacts on rod a, whose spheres touch the wall at this state (checked below).
    MultibodyModel model = closed.tree.model;
    const Index slot = add_world_wrench(model, HybridTree::link_point);
    model.wall = CylinderWall{0.05, 1e4, 1.5};
    for (Index k = HybridTree::rod_a_first; k < HybridTree::rod_a_first + 5; ++k) add_wall_contact(model, k, 0.04);
    const VectorX q = closed.q0 + random_vector(n, rng, 0.5), zero = VectorX::Zero(n);
    ClosedChainData chain(model, closed.chains);
    chain.lambda = random_vector(closed.chains.row_count, rng, 1.0);
    const ConstraintWrenches wrenches(closed.chains, chain);
    MultibodyData position(model), rest(model), no_wall(closed.tree.model);
    for (MultibodyData* data : {&position, &rest}) data->world_wrench[static_cast<std::size_t>(slot)] << 0.1, -0.3, 0.2, 1.0, 2.0, -0.5;

    inverse_dynamics_derivatives(model, position, q, zero, zero, Vec3::Zero(), &wrenches, DerivativeSet::position);
    inverse_dynamics_derivatives(model, rest, q, zero, zero, Vec3::Zero(), &wrenches, DerivativeSet::static_loads);
    inverse_dynamics_derivatives(closed.tree.model, no_wall, q, zero, zero, Vec3::Zero(), &wrenches,
                                 DerivativeSet::static_loads);
    // The loads do act (else their terms would go untested here): some sphere presses on the wall.
    CHECK(relative_error(no_wall.did_dq, rest.did_dq) > 1e-3);
    bool touching = false;
    for (const WallContact& contact : model.wall_contacts)
        touching |= !cylinder_wall_force(model.wall, contact.sphere_radius, rest.pose[static_cast<std::size_t>(contact.point)].p,
                                         nullptr)
                         .isZero(0.0);
    CHECK(touching);
    // The same sums in another order at most: round-off.
    const double error = relative_error(rest.did_dq, position.did_dq);
    INFO("static_loads against position: relative " << error);
    CHECK(error < 1e-13);
    CHECK(relative_error(rest.id, position.id) < 1e-14);
    for (Index k = 0; k < model.point_count(); ++k) {
        const auto i = static_cast<std::size_t>(k);
        CHECK(rest.s_b[i] == position.s_b[i]);
        CHECK(rest.r_b[i].isZero(0.0));  // R^B = Q^B = 0 at rest
        CHECK(rest.q_b[i].isZero(0.0));
    }

    const VectorX moving = random_vector(n, rng, 0.1);
    CHECK_THROWS_AS(inverse_dynamics_derivatives(model, rest, q, moving, zero, Vec3::Zero(), &wrenches,
                                                 DerivativeSet::static_loads),
                    std::invalid_argument);
    CHECK_THROWS_AS(inverse_dynamics_derivatives(model, rest, q, zero, moving, Vec3::Zero(), &wrenches,
                                                 DerivativeSet::static_loads),
                    std::invalid_argument);
    CHECK_THROWS_AS(inverse_dynamics_derivatives(model, rest, q, zero, zero, Vec3(0.0, 0.0, -9.81), &wrenches,
                                                 DerivativeSet::static_loads),
                    std::invalid_argument);
}

TEST_CASE("GVS closed chain: Adot qdot against central differences of A qdot along q + t qdot", "[gvs]") {
    std::mt19937 rng(14);
    const ClosedTree closed(rng);
    const Index n = closed.tree.n;
    const VectorX q = closed.q0 + random_vector(n, rng, 0.5);
    const VectorX qdot = random_vector(n, rng, 1.0);
    Evaluator ev(closed), plus(closed), minus(closed);
    ev.at(q, qdot);
    plus.at(q + kStep * qdot, qdot);
    minus.at(q - kStep * qdot, qdot);
    const VectorX fd = (plus.chain.A * qdot - minus.chain.A * qdot) / (2.0 * kStep);
    const double error = relative_error(ev.chain.adot_qdot, fd);
    INFO("Adot qdot: relative " << error);
    CHECK(error < 1e-7);
}

namespace {

/// The Baumgarte row (eq. 46b) at (q, qdot, qddot) with gravity on in the inverse dynamics.
struct BaumgarteEvaluator {
    const ClosedTree& t;
    Vec3 gravity;
    double time_constant;
    MultibodyData data;
    ClosedChainData chain;
    BaumgarteEvaluator(const ClosedTree& closed, const Vec3& g, double T)
        : t(closed), gravity(g), time_constant(T), data(closed.tree.model), chain(closed.tree.model, closed.chains) {}
    const VectorX& at(const VectorX& q, const VectorX& qdot, const VectorX& qddot) {
        inverse_dynamics_derivatives(t.tree.model, data, q, qdot, qddot, gravity);
        baumgarte_rows(data, t.chains, qdot, qddot, gravity, time_constant, chain);
        return chain.c;
    }
};

}  // namespace

TEST_CASE("GVS closed chain: the Baumgarte row's dC/dq and dC/dqdot against central differences", "[gvs]") {
    // At e != 0 (where de/dq != A), random qdot and qddot, gravity on in the inverse dynamics (so
    // that Q^B's gravity term must be taken out, L^B), for a time constant where the three terms of
    // eq. 46b weigh alike (T = 0.5) and one where e's term dominates (T = 0.05). Central
    // differences with h = 1e-6: truncation ~h^2 |C'''| ~ 1e-12, round-off ~1e-16 |C| / h ~ 1e-10
    // relative, so 1e-7 leaves room and still catches any missing term (each is O(1) here).
    std::mt19937 rng(15);
    const ClosedTree closed(rng);
    const Index n = closed.tree.n, rows = closed.chains.row_count;
    const VectorX q = closed.q0 + random_vector(n, rng, 0.5);
    const VectorX qdot = random_vector(n, rng, 1.0), qddot = random_vector(n, rng, 1.0);
    const Vec3 gravity(0.3, -9.81, 1.2);
    for (const double time_constant : {0.5, 0.05}) {
        BaumgarteEvaluator ev(closed, gravity, time_constant), step(closed, gravity, time_constant);
        const VectorX c = ev.at(q, qdot, qddot);
        INFO("T_B = " << time_constant << ", e " << ev.chain.e.transpose());
        REQUIRE(ev.chain.e.norm() > 0.05);
        // C as eq. 46b spells it, from the pieces closed_chain_constraints returns
        const VectorX spelled = ev.chain.A * qddot + ev.chain.adot_qdot + (2.0 / time_constant) * (ev.chain.A * qdot) +
                                ev.chain.e / (time_constant * time_constant);
        CHECK(relative_error(c, spelled) < 1e-14);
        Eigen::MatrixXd fd_q(rows, n), fd_qdot(rows, n);
        for (Index i = 0; i < n; ++i) {
            VectorX d = VectorX::Zero(n);
            d[i] = kStep;
            fd_q.col(i) = step.at(q + d, qdot, qddot);
            fd_q.col(i) -= step.at(q - d, qdot, qddot);
            fd_qdot.col(i) = step.at(q, qdot + d, qddot);
            fd_qdot.col(i) -= step.at(q, qdot - d, qddot);
        }
        fd_q /= 2.0 * kStep;
        fd_qdot /= 2.0 * kStep;
        const double q_error = relative_error(ev.chain.dc_dq, fd_q);
        const double qdot_error = relative_error(ev.chain.dc_dqdot, fd_qdot);
        INFO("dC/dq: relative " << q_error << "; dC/dqdot: relative " << qdot_error);
        CHECK(q_error < 1e-7);
        CHECK(qdot_error < 1e-7);
        // C does not depend on gravity: with zero gravity in the inverse dynamics, the same rows.
        BaumgarteEvaluator weightless(closed, Vec3::Zero(), time_constant);
        weightless.at(q, qdot, qddot);
        const double gravity_error = relative_error(weightless.chain.dc_dq, ev.chain.dc_dq);
        INFO("dC/dq with and without gravity in the inverse dynamics: relative " << gravity_error);
        CHECK(gravity_error < 1e-13);
        CHECK(weightless.chain.c == ev.chain.c);
    }
}

TEST_CASE("GVS closed chain: A qddot + Adot qdot is the second time derivative of e where g_BA = I", "[gvs]") {
    // Along q(t) = q0 + t qdot + t^2/2 qddot. At g_BA = I (every loop joint of the test tree at q0):
    // de/dt = Phi^T T^{-1}(eps) V with V = (Ad J_a - J_b) qdot, and d/dt T^{-1}(eps) = -ad_{epsdot}/2
    // at eps = 0, so d^2e/dt^2 = Phi^T (Vdot - ad_V V / 2) = Phi^T Vdot = A qddot + Adot qdot. Away
    // from g_BA = I, T^{-1}(eps) != I and the two differ (Mathew et al., erratum E5 of de/dq).
    // Five-point second differences with h = 1e-3: truncation ~h^4 |e^(6)| / 90 ~ 1e-13, round-off
    // ~ 16/3 1e-16 / h^2 ~ 5e-10 relative.
    std::mt19937 rng(16);
    const ClosedTree closed(rng);
    const Index n = closed.tree.n;
    const VectorX qdot = random_vector(n, rng, 1.0), qddot = random_vector(n, rng, 1.0);
    Evaluator ev(closed), probe(closed);
    constexpr double h = 1e-3;
    const auto second_derivative = [&](const VectorX& q0) {
        VectorX sum = VectorX::Zero(closed.chains.row_count);
        for (const auto& [k, weight] : {std::pair{-2, -1.0}, {-1, 16.0}, {0, -30.0}, {1, 16.0}, {2, -1.0}}) {
            const double t = k * h;
            probe.at(q0 + t * qdot + 0.5 * t * t * qddot, qdot);
            sum += weight * probe.chain.e;
        }
        return VectorX(sum / (12.0 * h * h));
    };
    ev.at(closed.q0, qdot);
    REQUIRE(ev.chain.e.norm() < 1e-14);
    const VectorX closed_rate = ev.chain.A * qddot + ev.chain.adot_qdot;
    const double error = relative_error(closed_rate, second_derivative(closed.q0));
    INFO("at e = 0: A qddot + Adot qdot against d^2e/dt^2: relative " << error);
    CHECK(error < 1e-6);
    const VectorX q = closed.q0 + random_vector(n, rng, 0.5);
    ev.at(q, qdot);
    const double away = relative_error(ev.chain.A * qddot + ev.chain.adot_qdot, second_derivative(q));
    INFO("at e != 0 (|e| = " << ev.chain.e.norm() << "): relative " << away);
    CHECK(away > 1e-2);
}

TEST_CASE("GVS closed chain: a clamped-clamped rod under a uniform load, Euler-Bernoulli", "[gvs][physics]") {
    // A steel Kirchhoff rod (no shear) clamped at the world origin and, by a weld loop joint, at
    // (L, 0, 0), under its own weight at g / 10. Euler-Bernoulli: midspan deflection
    // q L^4 / (384 E I), end reactions q L / 2 and moments q L^2 / 12. The bending moment is
    // quadratic in X, so order-2 curvatures hold it. What separates the model from the linear
    // beam: the membrane (stretching) stiffening, O((w/r_g)^2) ~ 4e-5 of the deflection times a
    // small factor (w = 1.6e-5 m, radius of gyration r/2), and the Magnus integration of 9 points.
    constexpr double length = 1.0, radius = 0.005, young = 2.0e11, density = 7800.0, g = 0.981;
    const RodDescription description{StrainBasis(BasisFamily::legendre, StrainModeSelection::kirchhoff(2), length),
                                     CircularProfile{[](double) { return radius; }},
                                     RodMaterial{young, 0.3, density, 0.0},
                                     9,
                                     MagnusOrder::fourth,
                                     {}};
    const RodDiscretization rod(description);
    MultibodyModel model;
    model.dof_count = rod.dof_count();
    const Index first = add_soft_rod(model, 0, rod, 0);
    const Index tip = first + rod.point_count() - 2, middle = first + (rod.point_count() - 1) / 2 - 1;
    REQUIRE(rod.X[static_cast<std::size_t>((rod.point_count() - 1) / 2)] == Approx(0.5 * length).margin(1e-15));
    ClosedChainModel chains;
    LoopJoint weld;
    weld.point_a = tip;
    weld.point_b = 0;
    weld.offset_b.p = Vec3(length, 0.0, 0.0);
    weld.constrained = weld_directions();
    add_loop_joint(chains, model, weld);

    const Index n = model.dof_count, rows = chains.row_count;
    MultibodyData data(model);
    ClosedChainData chain(model, chains);
    const ConstraintWrenches wrenches(chains, chain);
    VectorX q = VectorX::Zero(n);
    const VectorX zero = VectorX::Zero(n);
    const Vec3 gravity(0.0, 0.0, -g);
    // Newton on the index-3 statics (Mathew et al., eq. 52): [ID + K q - A^T lambda; e] = 0 with
    // the Jacobian [[dID/dq + K, -A^T], [de/dq, 0]] (dID/dq includes D69 at fixed lambda).
    Eigen::MatrixXd jacobian(n + rows, n + rows);
    VectorX residual(n + rows);
    int iterations = 0;
    // Converged when the residual is at round-off: the weight's generalised forces are ~1e-1,
    // e ~ 1e-5; the step itself stalls at ~1e-9 in the axial multiplier (E A = 1.6e7 N).
    for (;; ++iterations) {
        inverse_dynamics_derivatives(model, data, q, zero, zero, gravity, &wrenches);
        closed_chain_constraints(data, chains, zero, chain);
        residual << data.id + rod.K * q, chain.e;
        if (residual.norm() <= 1e-14 || iterations == 20) break;
        jacobian.setZero();
        jacobian.topLeftCorner(n, n) = data.did_dq + rod.K;
        jacobian.topRightCorner(n, rows) = -chain.A.transpose();
        jacobian.bottomLeftCorner(rows, n) = chain.de_dq;
        const VectorX step = jacobian.partialPivLu().solve(residual);
        q -= step.head(n);
        chain.lambda -= step.tail(rows);
    }
    CHECK(iterations <= 5);
    inverse_dynamics(model, data, q, zero, zero, gravity, &wrenches);
    const double area = M_PI * radius * radius, ei = young * M_PI * std::pow(radius, 4) / 4.0;
    const double load = density * area * g;
    const double deflection = load * std::pow(length, 4) / (384.0 * ei);
    const Pose mid = data.pose[static_cast<std::size_t>(middle)];
    const Pose end = data.pose[static_cast<std::size_t>(tip)];
    INFO("midspan deflection " << -mid.p.z() << " against " << deflection << " (relative "
                               << -mid.p.z() / deflection - 1.0 << "); lambda " << chain.lambda.transpose()
                               << " against q L / 2 = " << load * length / 2.0 << ", q L^2 / 12 = "
                               << load * length * length / 12.0 << "; " << iterations << " iterations");
    CHECK(mid.p.z() == Approx(-deflection).epsilon(2e-5));  // measured 2.3e-6
    CHECK(mid.p.x() == Approx(0.5 * length).margin(1e-12));
    CHECK((end.p - Vec3(length, 0.0, 0.0)).norm() < 1e-14);
    CHECK((end.R - Mat3::Identity()).norm() < 1e-14);
    // lambda = [m; f]: the wrench of the world on the rod's tip, in frame b (world axes): the
    // reaction q L / 2 upwards and the clamp's moment q L^2 / 12 about +y (hogging).
    CHECK(chain.lambda[5] == Approx(load * length / 2.0).epsilon(1e-12));  // the weight's half, exactly
    CHECK(chain.lambda[1] == Approx(load * length * length / 12.0).epsilon(2e-5));  // measured 1.6e-6
    CHECK(std::abs(chain.lambda[0]) + std::abs(chain.lambda[2]) + std::abs(chain.lambda[4]) < 1e-10 * load);
}

TEST_CASE("loop joints: degenerate directions and stale Jacobians are refused", "[gvs]") {
    CHECK_THROWS_WITH(revolute_directions(Vec3::Zero()), Catch::Contains("finite, non-zero vector"));
    std::mt19937 rng(5);
    const HybridTree tree(rng);
    ClosedChainModel chains;
    LoopJoint repeated;
    repeated.point_a = 5;
    repeated.point_b = 0;
    repeated.constrained = Matrix6X::Zero(6, 2);
    repeated.constrained(3, 0) = repeated.constrained(3, 1) = 1.0;  // the same direction twice
    CHECK_THROWS_WITH(add_loop_joint(chains, tree.model, repeated), Catch::Contains("finite and independent"));
    LoopJoint weld;
    weld.point_a = 5;
    weld.point_b = 0;
    weld.constrained = weld_directions();
    add_loop_joint(chains, tree.model, weld);
    MultibodyData data(tree.model);
    ClosedChainData out(tree.model, chains);
    const VectorX zero = VectorX::Zero(tree.n);
    inverse_dynamics(tree.model, data, zero, zero, zero, Vec3::Zero());
    CHECK_THROWS_WITH(closed_chain_constraints(data, chains, zero, out),
                      Catch::Contains("call inverse_dynamics_derivatives first"));
    inverse_dynamics_derivatives(tree.model, data, zero, zero, zero, Vec3::Zero());
    CHECK_NOTHROW(closed_chain_constraints(data, chains, zero, out));
}
