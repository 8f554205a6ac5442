// The open System API (interfaces/soma/system.hpp) on a real scene with constraints: an
// integrator's own iteration over evaluate / factorize / solve_linear reproduces the kernel's
// Newton (newton.hpp); several right-hand sides solve J Y = B (checked against finite
// differences of the residual, not against the same code); the constraint rows' sparse G_q is dC/dq.
#include "scene_runner.hpp"

#include "soma/newton.hpp"
#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

// A rigid bar hanging from the world by a hard ball joint at its top, a bead on a compliant
// joint at the bar's tip marker, gravity: rotations (manifold DOFs), hard and soft rows.
const std::string kScene =
    "simulation: {duration: 1}\n"
    "integrator: {type: implicit_euler, dt: 0.01, newton: {absolute_tolerance: 1.0e-8}}\n"
    "elements:\n"
    "  - name: bar\n"
    "    type: rigid_body\n"
    "    position: [0, 0, 0]\n"
    "    orientation: [0.9238795325112867, 0, 0.3826834323650898, 0]\n"
    "    shape: {box: {size: [0.04, 0.04, 0.5]}}\n"
    "    shape_center: [0, 0, -0.25]\n"
    "    density: 500\n"
    "    angular_velocity: [0.3, 1.0, -0.2]\n"
    "    markers: [{position: [0, 0, -0.5]}]\n"
    "  - {name: bead, type: point_mass, position: [-0.35355339059327373, 0, -0.35355339059327379], mass: 0.2}\n"
    "constraints:\n"
    "  - {type: ball_joint, name: pivot, first: {element: bar, node: 0}, second: {world: [0, 0, 0]}}\n"
    "  - {type: ball_joint, name: tip, first: {element: bead}, second: {element: bar, node: 2}, compliance: 1.0e-4}\n"
    "forces: [{type: gravity}]\n";

/// The implicit Euler step map of integrator.hpp from the committed state: q = q_n + h v_n + h^2 x,
/// v = v_n + h x, a = x.

/// Undamped Newton written against the open API only (what a custom integrator would write).
int own_newton(System& system, const AffineStep& step, VectorX& x) {
    REQUIRE(system.begin_solve(step, x).empty());
    VectorX lambda = system.multipliers(), dx;
    const auto& free = system.free_dofs();
    for (int iteration = 0; iteration < 20; ++iteration) {
        const SystemEvaluation e = system.evaluate(step, x, lambda, true, false);
        if (e.force_norm < 1e-11 && e.constraint_violation < 1e-13) {
            system.multipliers() = lambda;
            return iteration;
        }
        REQUIRE(system.factorize());
        REQUIRE(system.solve_linear(VectorX(-system.residual()), dx));
        for (std::size_t i = 0; i < free.size(); ++i) x[free[i]] += dx[static_cast<Index>(i)];
        lambda += dx.tail(system.constraint_row_count());
    }
    FAIL("the hand-written Newton did not converge");
    return -1;
}

}  // namespace

TEST_CASE("open System: an iteration written over evaluate/factorize/solve_linear matches System::solve",
          "[validation][system]") {
    auto kernel = build_scene(kScene);
    auto own = build_scene(kScene);
    const double h = 0.01;
    // A few steps, so that the bar turns and the rows are nonlinear in the rotation.
    for (int n = 0; n < 5; ++n) {
        const AffineStep step = euler_step(*kernel, h);
        VectorX x_kernel = VectorX::Zero(kernel->dof_count()), x_own = x_kernel;
        const NewtonReport report = kernel->solve(step, x_kernel);
        REQUIRE(report.converged);
        const int iterations = own_newton(*own, step, x_own);
        INFO("step " << n << ": kernel Newton " << report.iterations << " iterations, own " << iterations);
        // Both stop within their tolerances (|F| <= 1e-11 N against the scene's 1e-8 N, on
        // accelerations of order 10 m/s^2 and masses of order 0.1 kg): the accelerations agree to
        // the kernel's tolerance divided by the smallest mass-like Jacobian entry (~0.2 kg): 1e-7.
        CHECK((x_kernel - x_own).cwiseAbs().maxCoeff() < 1e-7);
        // The multipliers (N) agree to the same order as the forces they balance.
        CHECK((kernel->multipliers() - own->multipliers()).cwiseAbs().maxCoeff() < 1e-6);
        // Commit both from the kernel's solution so the next step starts from the same state.
        for (System* system : {static_cast<System*>(kernel.get()), static_cast<System*>(own.get())}) {
            State next;
            next.t = step.t_eval;
            next.v = step.v_pred + h * x_kernel;
            next.a = x_kernel;
            next.q = system->state().q;
            next.q.head(system->dof_count()) = step.q_pred + h * h * x_kernel;
            system->commit(std::move(next));
        }
    }
}

TEST_CASE("open System: several right-hand sides solve J Y = B (checked by finite differences of F)",
          "[validation][system]") {
    auto sim = build_scene(kScene);
    const AffineStep step = euler_step(*sim, 0.01);
    VectorX x = VectorX::Zero(sim->dof_count());
    REQUIRE(sim->begin_solve(step, x).empty());
    const VectorX lambda = VectorX::Constant(sim->constraint_row_count(), 0.7);
    sim->evaluate(step, x, lambda, true, false);
    const VectorX f0 = sim->residual();
    REQUIRE(sim->factorize());
    const Index m = sim->unknown_count();
    Eigen::MatrixXd b(m, 3), y;
    b.col(0) = VectorX::Unit(m, 0);
    b.col(1) = VectorX::LinSpaced(m, -1.0, 1.0);
    b.col(2) = f0;
    REQUIRE(sim->solve_linear(b, y));
    REQUIRE(y.rows() == m);
    REQUIRE(y.cols() == 3);
    const auto& free = sim->free_dofs();
    const Index rows = sim->constraint_row_count();
    for (Index j = 0; j < 3; ++j) {
        // J y_j is the directional derivative of F along y_j: central differences in x and lambda,
        // with a step that moves q by 1e-6 (m or rad): the constraint rows are C / c_q, so a
        // smaller step would drown dC in the round-off of positions of order 1 m.
        const double c_q = step.coefficients.c_q;
        const double eps = 1e-6 / (c_q * std::max(1.0, y.col(j).cwiseAbs().maxCoeff()));
        VectorX xp = x, xm = x;
        for (std::size_t i = 0; i < free.size(); ++i) {
            xp[free[i]] += eps * y(static_cast<Index>(i), j);
            xm[free[i]] -= eps * y(static_cast<Index>(i), j);
        }
        const VectorX lp = lambda + eps * y.col(j).tail(rows), lm = lambda - eps * y.col(j).tail(rows);
        sim->evaluate(step, xp, lp, false, false);
        const VectorX fp = sim->residual();
        sim->evaluate(step, xm, lm, false, false);
        const VectorX fm = sim->residual();
        const VectorX jy = (fp - fm) / (2 * eps);
        INFO("column " << j << ": |J y - b| = " << (jy - b.col(j)).norm() << ", |b| = " << b.col(j).norm());
        // Central differences: truncation O(1e-12) relative (q moves by 1e-6), round-off
        // O(1e-16 / 1e-6) = 1e-10 relative; 1e-6 of |b| leaves room for both.
        CHECK((jy - b.col(j)).norm() <= 1e-6 * b.col(j).norm());
        // And the column equals a single-vector solve.
        VectorX single;
        REQUIRE(sim->solve_linear(VectorX(b.col(j)), single));
        CHECK((single - y.col(j)).cwiseAbs().maxCoeff() <= 1e-14 * std::max(1.0, single.cwiseAbs().maxCoeff()));
    }
}

TEST_CASE("open System: the constraint rows' G_q is dC/dq on its fixed sparse pattern", "[validation][system]") {
    auto sim = build_scene(kScene);
    const double h = 0.01;
    const AffineStep step = euler_step(*sim, h);
    VectorX x = VectorX::Constant(sim->dof_count(), 0.3);  // away from the committed state
    REQUIRE(sim->begin_solve(step, x).empty());
    const VectorX lambda = VectorX::Zero(sim->constraint_row_count());
    sim->evaluate(step, x, lambda, false, false);
    const ConstraintRows rows = sim->constraint_rows();
    REQUIRE(rows.value.size() == 6);
    CHECK(rows.compliance.head<3>().isZero());
    CHECK(rows.compliance.tail<3>().isApproxToConstant(1e-4));
    REQUIRE(rows.position_jacobian.rows() == 6);
    REQUIRE(rows.position_jacobian.cols() == sim->dof_count());
    const Eigen::MatrixXd g_q = rows.position_jacobian, g_f = rows.force_jacobian;
    // The pivot row block depends on the bar only; the tip rows on the bar and the bead.
    const Index nnz = static_cast<Index>(rows.position_jacobian.nonZeros());
    CHECK(nnz == 3 * 6 + 3 * 9);
    // x moves q by c_q x, so dC/dq = dC/dx / c_q: central differences of C in x.
    const double c_q = h * h, eps = 1e-4;
    double worst = 0.0;
    for (Index dof = 0; dof < sim->dof_count(); ++dof) {
        VectorX xp = x, xm = x;
        xp[dof] += eps;
        xm[dof] -= eps;
        sim->evaluate(step, xp, lambda, false, false);
        const VectorX cp = sim->constraint_rows().value;
        sim->evaluate(step, xm, lambda, false, false);
        const VectorX cm = sim->constraint_rows().value;
        const VectorX fd = (cp - cm) / (2 * eps * c_q);
        worst = std::max(worst, (fd - g_q.col(dof)).cwiseAbs().maxCoeff());
    }
    INFO("largest |G_q - FD| = " << worst);
    // Steps in q of c_q eps = 1e-8 (m or rad): truncation ~1e-16, round-off ~1e-16 / 1e-8 = 1e-8.
    CHECK(worst < 1e-6);
    // The bead's columns (vector DOFs) of G_f and G_q agree; the bar's rotation columns differ by
    // the right Jacobian of the step rotation (x != 0 rotates the bar).
    const Element* bead = sim->find_element("bead");
    for (Index k = 0; k < 3; ++k) CHECK((g_f.col(bead->global_dof(k)) - g_q.col(bead->global_dof(k))).norm() == 0.0);
}

TEST_CASE("open System: a solve that does not move q holds hard constraints at the acceleration level",
          "[validation][system]") {
    // The bar hangs from the world by its tip marker and swings about y at 1 rad/s; the origin's
    // velocity (0.354, 0, -0.354) m/s = -omega x R r keeps the marker still, so the initial state
    // is consistent (G v = 0). The marker's acceleration is centripetal (|omega|^2 |r| = 0.5 m/s^2)
    // plus what gravity adds, so the bias term (dG/dt) v is not zero.
    const std::string scene =
        "simulation: {duration: 1}\n"
        "integrator: {type: implicit_euler, dt: 0.01, newton: {absolute_tolerance: 1.0e-10}}\n"
        "elements:\n"
        "  - name: bar\n"
        "    type: rigid_body\n"
        "    position: [0, 0, 0]\n"
        "    orientation: [0.9238795325112867, 0, 0.3826834323650898, 0]\n"
        "    shape: {box: {size: [0.04, 0.04, 0.5]}}\n"
        "    shape_center: [0, 0, -0.25]\n"
        "    density: 500\n"
        "    velocity: [0.35355339059327373, 0, -0.35355339059327379]\n"
        "    angular_velocity: [0, 1.0, 0]\n"
        "    markers: [{position: [0, 0, -0.5]}]\n"
        "constraints:\n"
        "  - {type: ball_joint, name: pivot, first: {element: bar, node: 2}, second: {world: [-0.35355339059327373, 0, -0.35355339059327379]}}\n"
        "forces: [{type: gravity}]\n";
    auto sim = build_scene(scene);
    const State s = sim->state();
    const Index n = sim->dof_count();
    AffineStep step;  // Newmark's initial solve: F(t0, q0, v0, a) = 0 for a
    step.t_eval = s.t;
    step.q_pred = s.q.head(n);
    step.v_pred = s.v;
    step.a_pred = VectorX::Zero(n);
    step.coefficients = {0.0, 0.0, 1.0};
    VectorX a = VectorX::Zero(n);
    const NewtonReport report = sim->solve(step, a);
    REQUIRE(report.converged);

    // |C| along q(t) = q0 (+) (t v + t^2/2 a): with the consistent a, C, C' and C'' vanish at 0,
    // so |C| is third order in t (halving t divides it by 8); an acceleration that ignores the
    // bias term leaves C'' != 0 (a factor 4).
    auto violation = [&](const VectorX& acceleration, double t) {
        AffineStep at = step;
        at.q_pred = s.q.head(n) + t * s.v + 0.5 * t * t * acceleration;
        at.coefficients = {1.0, 0.0, 0.0};
        VectorX zero = VectorX::Zero(n);
        REQUIRE(sim->begin_solve(at, zero).empty());
        sim->evaluate(at, zero, sim->multipliers(), false, false);
        return sim->constraint_rows().value.norm();
    };
    const double ratio = violation(a, 2e-3) / violation(a, 1e-3);
    INFO("consistent: |C(2 ms)| / |C(1 ms)| = " << ratio);
    CHECK(ratio > 7.5);
    CHECK(ratio < 8.5);
    // a = 0 leaves C'' = (dG/dt) v, the centripetal term: the check tells the two apart.
    const double wrong = violation(VectorX::Zero(n), 2e-3) / violation(VectorX::Zero(n), 1e-3);
    INFO("a = 0: ratio " << wrong);
    CHECK(std::abs(wrong - 4.0) < 0.5);
}

TEST_CASE("open System: chart_rate is the velocity on vector DOFs and J_r^-1(d) omega on a rotation",
          "[validation][system]") {
    // The bar's orientation is a manifold block (R exp(d) with the body angular velocity omega):
    // the rate of its chart coordinates d = log(R0^T R) is J_r^-1(d) omega (rotation.hpp), which
    // the kernel forms by central differences of the block's integrate and difference. The
    // difference's truncation and round-off are ~1e-10 of |omega| (manifold_coordinates.hpp); the
    // correction it measures, J_r^-1(d) omega - omega, is ~|d| |omega| / 2 = 0.3 here.
    auto sim = build_scene(kScene);
    const Index n = sim->dof_count();
    const Element& bar = *sim->find_element("bar");
    VectorX d = VectorX::Zero(n), v = VectorX::LinSpaced(n, -1.0, 2.0), rate;
    const Vec3 turn(0.4, -0.3, 0.5), omega(v[bar.global_dof(3)], v[bar.global_dof(4)], v[bar.global_dof(5)]);
    for (int k = 0; k < 3; ++k) d[bar.global_dof(3 + k)] = turn[k];
    d[bar.global_dof(0)] = 0.7;  // a vector DOF's displacement changes nothing
    sim->chart_rate(sim->state().q, d, v, rate);
    REQUIRE(rate.size() == n);
    const Vec3 expected = right_jacobian_inverse(turn) * omega;
    for (Index i = 0; i < n; ++i) {
        const bool rotation = i == bar.global_dof(3) || i == bar.global_dof(4) || i == bar.global_dof(5);
        if (!rotation) CHECK(rate[i] == v[i]);  // exactly: copied
    }
    const Vec3 measured(rate[bar.global_dof(3)], rate[bar.global_dof(4)], rate[bar.global_dof(5)]);
    CAPTURE(measured.transpose(), expected.transpose(), omega.transpose());
    CHECK((measured - expected).norm() < 1e-9 * omega.norm());
    CHECK((expected - omega).norm() > 0.1);  // the check is not vacuous
}
