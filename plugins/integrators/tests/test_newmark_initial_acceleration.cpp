// Newmark's first step starts from the consistent initial acceleration: it solves
// M a0 = f(t0) - c v0 - k q0 (F(t0, q0, v0, a0) = 0) before stepping, whatever the state's a holds.
#include "affine_integrators.hpp"
#include "linear_oscillator_system.hpp"

#include <catch2/catch.hpp>

using Catch::Matchers::Contains;
using soma::integrators::Newmark;
using soma::integrators::testing::LinearOscillatorSystem;

TEST_CASE("Newmark computes the consistent initial acceleration before its first step", "[integrators][newmark]") {
    // m = 2, c = 0.3, k = 100, f = 5 + 40 t; from t0 = 0.2, q0 = 0.1, v0 = -0.4 and a stale a = 123:
    // a0 = (f(t0) - c v0 - k q0)/m = (13 + 0.12 - 10)/2 = 1.56.
    const double m = 2.0, c = 0.3, k = 100.0, t0 = 0.2, q0 = 0.1, v0 = -0.4, h = 0.01;
    auto force = [](double t) { return 5.0 + 40.0 * t; };
    LinearOscillatorSystem system(m, c, k, force);
    system.set_state(t0, q0, v0, 123.0);
    const double a0 = (force(t0) - c * v0 - k * q0) / m;
    REQUIRE(a0 == Approx(1.56).epsilon(1e-14));

    const double beta = 0.25, gamma = 0.5;
    Newmark integrator(beta, gamma);
    REQUIRE(integrator.step(system, h).converged);

    // The initial solve: F(t0, q0, v0, a) = 0 for a alone, weights (0, 0, 1) at t0.
    REQUIRE(system.solves.size() == 2);
    const soma::AffineStep& initial = system.solves.front();
    CHECK(initial.t_eval == t0);
    CHECK(initial.coefficients.c_q == 0.0);
    CHECK(initial.coefficients.c_v == 0.0);
    CHECK(initial.coefficients.c_a == 1.0);
    CHECK(initial.q_pred[0] == q0);
    CHECK(initial.v_pred[0] == v0);
    CHECK(initial.a_pred[0] == 0.0);

    // Committed at t0 with only the acceleration changed.
    REQUIRE(system.commits.size() == 2);
    const soma::State& consistent = system.commits.front();
    CHECK(consistent.t == t0);
    CHECK(consistent.q[0] == q0);
    CHECK(consistent.v[0] == v0);
    CHECK(consistent.a[0] == Approx(a0).epsilon(1e-14));

    // The step then uses a0 in its predictors, q_pred = q0 + h v0 + (1/2 - beta) h^2 a0 and
    // v_pred = v0 + (1 - gamma) h a0, and its end state satisfies F(t0 + h) = 0.
    const soma::AffineStep& first = system.solves.back();
    CHECK(first.q_pred[0] == Approx(q0 + h * v0 + (0.5 - beta) * h * h * a0).epsilon(1e-14));
    CHECK(first.v_pred[0] == Approx(v0 + (1.0 - gamma) * h * a0).epsilon(1e-14));
    const soma::State& end = system.commits.back();
    CHECK(end.t == Approx(t0 + h).epsilon(1e-15));
    CHECK(m * end.a[0] + c * end.v[0] + k * end.q[0] == Approx(force(t0 + h)).epsilon(1e-13));
    CHECK(end.q[0] == Approx(first.q_pred[0] + beta * h * h * end.a[0]).epsilon(1e-14));
    CHECK(end.v[0] == Approx(first.v_pred[0] + gamma * h * end.a[0]).epsilon(1e-14));
}

TEST_CASE("Newmark refuses a singular mass matrix at its initial acceleration and commits nothing",
          "[integrators][newmark]") {
    // A massless DOF: M a0 = f has no solution (the fake reports a singular Jacobian).
    LinearOscillatorSystem system(0.0, 0.0, 100.0);
    system.set_state(0.0, 1.0, 0.0, 0.0);
    Newmark integrator(0.25, 0.5);
    const soma::StepReport report = integrator.step(system, 0.01);
    CHECK_FALSE(report.converged);
    CHECK_THAT(report.diagnosis, Contains("Newmark could not compute the initial acceleration from M a0 = f"));
    CHECK_THAT(report.diagnosis, Contains("singular Jacobian"));  // the solver's own diagnosis follows
    CHECK(system.solves.size() == 1);
    CHECK(system.commits.empty());
}
