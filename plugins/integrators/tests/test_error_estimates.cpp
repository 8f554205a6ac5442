// Local error estimates of implicit Euler, implicit midpoint and Newmark (error control,
// interfaces/soma/integrator.hpp) on the undamped linear oscillator q'' = -omega^2 q
// (omega = 10 rad/s), solved exactly by the fake System (linear_oscillator_system.hpp).
//
// The true local error of a step is its q minus the exact flow from the step's own start,
// q(h) = q0 cos(omega h) + v0/omega sin(omega h). Leading terms (a' = da/dt):
//  - implicit Euler: q1 = q0 + h v0 + h^2 a1, exact q0 + h v0 + h^2/2 a0 + ...: h^2/2 a;
//  - Newmark (beta, 1/2): q1 = q0 + h v0 + h^2 ((1/2 - beta) a0 + beta a1): (beta - 1/6) h^3 a';
//  - implicit midpoint: q1 = q0 + h v0 + h^2/2 a(t + h/2): h^3/12 a'.
// Each estimate equals that leading term up to its own next order, O(omega h) relative: at
// omega h = 0.01 the tolerance 3 % is a few times that.
#include "affine_integrators.hpp"
#include "linear_oscillator_system.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

namespace {

using soma::integrators::testing::LinearOscillatorSystem;

constexpr double kOmega = 10.0;

/// The exact position after h from (q0, v0).
double exact_position(double q0, double v0, double h) {
    return q0 * std::cos(kOmega * h) + v0 / kOmega * std::sin(kOmega * h);
}

/// Error control with tolerance 1 in absolute terms: StepReport::error is |e| itself (one DOF).
soma::ErrorControl unit_tolerance() {
    soma::ErrorControl control;
    control.absolute = 1.0;
    control.relative = 0.0;
    return control;
}

struct Case {
    std::string name;
    std::function<std::unique_ptr<soma::Integrator>()> make;
    int order;
    int warm_up_steps;  // steps before the one measured
};

}  // namespace

TEST_CASE("each integrator's local error estimate is the error of the step it took", "[integrators][error]") {
    const Case cases[] = {
        {"implicit_euler", [] { return std::make_unique<soma::integrators::ImplicitEuler>(); }, 1, 0},
        // The first step measures from the consistent a0, h/2 before its midpoint; later ones from
        // the previous midpoint's acceleration, h before.
        {"implicit_midpoint, first step", [] { return std::make_unique<soma::integrators::ImplicitMidpoint>(); }, 2, 0},
        {"implicit_midpoint, second step", [] { return std::make_unique<soma::integrators::ImplicitMidpoint>(); }, 2, 1},
        {"newmark", [] { return std::make_unique<soma::integrators::Newmark>(0.25, 0.5); }, 2, 0},
    };
    const double h = 1e-3;  // omega h = 0.01
    for (const Case& c : cases) {
        INFO(c.name);
        // From the exact state at phase pi/5 (a and a' both well away from zero), its acceleration
        // left at 0: Newmark and the midpoint rule under error control compute the consistent one.
        const double phase = M_PI / 5.0;
        LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
        system.set_state(0.0, std::cos(phase), -kOmega * std::sin(phase), 0.0);
        const std::unique_ptr<soma::Integrator> integrator = c.make();
        CHECK(integrator->error_order() == c.order);
        integrator->set_error_control(unit_tolerance());
        for (int i = 0; i < c.warm_up_steps; ++i) {
            const soma::StepReport earlier = integrator->step(system, h);
            REQUIRE(earlier.converged);
            CHECK(earlier.error > 0.0);
        }
        const double q0 = system.q(), v0 = system.v();
        const soma::StepReport report = integrator->step(system, h);
        REQUIRE(report.converged);
        const double true_error = std::abs(system.q() - exact_position(q0, v0, h));
        CHECK(true_error > 0.0);
        CHECK(report.error == Approx(true_error).epsilon(0.03));
    }
}

TEST_CASE("a step whose error is above the tolerance is solved but not committed", "[integrators][error]") {
    LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
    system.set_state(0.0, 1.0, 0.0, -kOmega * kOmega);
    soma::integrators::ImplicitEuler integrator;
    soma::ErrorControl control;
    control.absolute = 1e-6;
    control.relative = 1e-4;
    integrator.set_error_control(control);
    // h = 0.01: e = h^2/2 |a| ~ 5e-3 against a tolerance of 1e-4: about 50 times it.
    const soma::StepReport rejected = integrator.step(system, 0.01);
    CHECK(rejected.converged);
    CHECK(rejected.error > 1.0);
    CHECK(system.commits.empty());
    CHECK(system.q() == 1.0);
    // A step error^(-1/2) smaller, with a margin, is within the tolerance and committed.
    const soma::StepReport accepted = integrator.step(system, 0.01 * 0.8 / std::sqrt(rejected.error));
    CHECK(accepted.converged);
    CHECK(accepted.error <= 1.0);
    CHECK(accepted.error > 0.1);
    CHECK(system.commits.size() == 1);
}

TEST_CASE("without error control a step reports no estimate and always commits", "[integrators][error]") {
    LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
    system.set_state(0.0, 1.0, 0.0, -kOmega * kOmega);
    soma::integrators::Newmark integrator(0.25, 0.5);
    const soma::StepReport report = integrator.step(system, 0.1);  // far outside any tolerance
    CHECK(report.converged);
    CHECK(report.error < 0.0);
    CHECK(system.commits.size() == 2);  // the consistent initial acceleration, then the step
    // No estimate, so the kernel refuses error control: statics, and Newmark with gamma > 1/2,
    // whose velocities are first order (the position estimate would not see their error).
    soma::integrators::Statics statics(0.0);
    CHECK(statics.error_order() == 0);
    CHECK(soma::integrators::Newmark(0.3025, 0.6).error_order() == 0);
}
