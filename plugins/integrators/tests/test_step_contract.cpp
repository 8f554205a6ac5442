// How each integrator drives the System (interfaces/soma/integrator.hpp): one solve per step at
// the documented evaluation time with the documented affine map, one commit of the state at
// t + h, and nothing committed when the solve fails.
#include "affine_integrators.hpp"
#include "linear_oscillator_system.hpp"

#include "soma/newton.hpp"

#include <catch2/catch.hpp>

#include <memory>

using Catch::Matchers::Contains;
using soma::integrators::ImplicitEuler;
using soma::integrators::ImplicitMidpoint;
using soma::integrators::Newmark;
using soma::integrators::Statics;
using soma::integrators::testing::LinearOscillatorSystem;

namespace {

constexpr double kStart = 0.3, kStep = 0.01;

/// The weights (c_q, c_v, c_a) and evaluation time of each integrator (affine_integrators.hpp).
struct Expected {
    double c_q, c_v, c_a, t_eval;
};

/// One step from the fresh integrator; `solves` is 2 for Newmark's first step (initial acceleration).
void check_single_step(soma::Integrator& integrator, LinearOscillatorSystem& system, const Expected& expected,
                       std::size_t solves = 1) {
    const std::size_t solves_before = system.solves.size();
    const soma::StepReport report = integrator.step(system, kStep);
    REQUIRE(report.converged);
    CHECK(report.newton_iterations == 1);
    REQUIRE(system.solves.size() == solves_before + solves);
    const soma::AffineStep& step = system.solves.back();
    CHECK(step.dt == kStep);
    CHECK(step.t_eval == Approx(expected.t_eval).epsilon(1e-15));
    CHECK(step.coefficients.c_q == Approx(expected.c_q).epsilon(1e-15));
    CHECK(step.coefficients.c_v == Approx(expected.c_v).epsilon(1e-15));
    CHECK(step.coefficients.c_a == Approx(expected.c_a).epsilon(1e-15));
    CHECK(step.q_pred.size() == 1);
    CHECK(step.v_pred.size() == 1);
    CHECK(step.a_pred.size() == 1);
    REQUIRE_FALSE(system.commits.empty());
    CHECK(system.commits.back().t == Approx(kStart + kStep).epsilon(1e-15));
}

}  // namespace

TEST_CASE("each integrator solves once per step at its evaluation time and commits t + h", "[integrators]") {
    const double h = kStep;
    LinearOscillatorSystem system(1.0, 0.2, 100.0, [](double t) { return 3.0 * t; });
    system.set_state(kStart, 0.5, -1.0, -50.0);

    SECTION("implicit Euler: (h^2, h, 1) at t + h") {
        ImplicitEuler integrator;
        check_single_step(integrator, system, {h * h, h, 1.0, kStart + h});
        CHECK(system.commits.size() == 1);
        CHECK(system.solves.back().load_factor == 1.0);
    }
    SECTION("implicit midpoint: (h^2/4, h/2, 1) at t + h/2") {
        ImplicitMidpoint integrator;
        check_single_step(integrator, system, {0.25 * h * h, 0.5 * h, 1.0, kStart + 0.5 * h});
        CHECK(system.commits.size() == 1);
    }
    SECTION("Newmark: (beta h^2, gamma h, 1) at t + h, after one initial-acceleration solve") {
        Newmark integrator(0.3, 0.55);
        check_single_step(integrator, system, {0.3 * h * h, 0.55 * h, 1.0, kStart + h}, 2);
        CHECK(system.solves.size() == 2);   // M a0 = f, then the step
        CHECK(system.commits.size() == 2);  // the consistent a0 at t0, then the step
        // Later steps do not recompute the initial acceleration.
        REQUIRE(integrator.step(system, h).converged);
        CHECK(system.solves.size() == 3);
        CHECK(system.commits.size() == 3);
    }
    SECTION("statics: x = q, (1, 0, 0) at t + h, zero velocity and acceleration") {
        Statics integrator(0.0);
        check_single_step(integrator, system, {1.0, 0.0, 0.0, kStart + h});
        CHECK(system.commits.size() == 1);
        CHECK(integrator.is_static());
        CHECK(system.solves.back().v_pred[0] == 0.0);
        CHECK(system.solves.back().a_pred[0] == 0.0);
        CHECK(system.v() == 0.0);
        CHECK(system.a() == 0.0);
        // Equilibrium k q = f(t + h) (no ramp).
        CHECK(system.q() == Approx(3.0 * (kStart + h) / 100.0).epsilon(1e-14));
    }
}

TEST_CASE("a failed solve commits nothing and passes the diagnosis on", "[integrators]") {
    LinearOscillatorSystem system(1.0, 0.0, 100.0);
    system.set_state(0.0, 1.0, 0.0, -100.0);
    system.fail_solves = true;
    std::unique_ptr<soma::Integrator> integrators[] = {
        std::make_unique<ImplicitEuler>(), std::make_unique<ImplicitMidpoint>(), std::make_unique<Statics>(1.0)};
    for (auto& integrator : integrators) {
        const soma::StepReport report = integrator->step(system, kStep);
        CHECK_FALSE(report.converged);
        CHECK(report.newton_iterations == 1);
        CHECK_THAT(report.diagnosis, Contains("the fake system was told to fail"));
    }
    CHECK(system.commits.empty());
    CHECK(system.state().t == 0.0);
    CHECK(system.q() == 1.0);

    // The retry (the kernel's time loop calls step again, with a smaller h) succeeds and commits.
    system.fail_solves = false;
    for (auto& integrator : integrators) REQUIRE(integrator->step(system, 0.5 * kStep).converged);
    CHECK(system.commits.size() == 3);
}

TEST_CASE("the kernel's newton_solve over the open System API solves a linear system in one iteration",
          "[integrators][newton]") {
    // F is linear in x: one Newton step from any guess lands on the closed-form solution, and the
    // second evaluation confirms it (|F| at round-off).
    LinearOscillatorSystem system(2.0, 0.5, 40.0, [](double t) { return 3.0 * t; });
    system.set_state(kStart, 0.1, -0.2, 0.0);
    soma::AffineStep step;
    const double h = kStep;
    step.t_eval = kStart + h;
    step.dt = h;
    step.q_pred = soma::VectorX::Constant(1, 0.1 - 0.2 * h);
    step.v_pred = soma::VectorX::Constant(1, -0.2);
    step.a_pred = soma::VectorX::Zero(1);
    step.coefficients = {h * h, h, 1.0};
    soma::VectorX exact = soma::VectorX::Constant(1, 5.0);
    REQUIRE(system.solve(step, exact).converged);  // the fake's closed form
    soma::NewtonWorkspace work(system);
    soma::VectorX x = soma::VectorX::Constant(1, -7.0);
    const soma::NewtonReport report = soma::newton_solve(system, step, soma::NewtonOptions{}, work, x);
    REQUIRE(report.converged);
    CHECK(report.iterations == 1);
    CHECK(system.evaluations == 2);
    CHECK(x[0] == Approx(exact[0]).epsilon(1e-14));
    CHECK(report.residual < 1e-12);

    // A singular Jacobian (every weight zero) fails with the System's diagnosis, not a NaN step.
    step.coefficients = {0.0, 0.0, 0.0};
    x[0] = 0.0;
    const soma::NewtonReport singular = soma::newton_solve(system, step, soma::NewtonOptions{}, work, x);
    CHECK_FALSE(singular.converged);
    CHECK_THAT(singular.diagnosis, Contains("failed to factorize"));
}
