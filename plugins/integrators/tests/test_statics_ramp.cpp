// Statics: each step is the equilibrium k q = load_factor f at the step's end time, with
// load_factor = min(1, (t - t0)/ramp_time), t0 the time of the first step (MAT-DiSMech's static
// mode), or 1 when ramp_time is 0.
#include "affine_integrators.hpp"
#include "linear_oscillator_system.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using soma::integrators::Statics;
using soma::integrators::testing::LinearOscillatorSystem;

TEST_CASE("statics ramps the applied load linearly over ramp_time from the first step's time",
          "[integrators][statics]") {
    const double k = 100.0, load = 7.0, t0 = 0.5, ramp = 1.0, h = 0.3;
    // Mass and damping are there to show that statics ignores them (v = a = 0).
    LinearOscillatorSystem system(2.0, 0.5, k, [=](double) { return load; });
    system.set_state(t0, 0.0, 3.0, -4.0);
    Statics integrator(ramp);
    // Steps end at 0.8, 1.1, 1.4, 1.7, 2.0: factors 0.3, 0.6, 0.9, then 1 (capped).
    const double expected_factors[] = {0.3, 0.6, 0.9, 1.0, 1.0};
    for (int n = 0; n < 5; ++n) {
        REQUIRE(integrator.step(system, h).converged);
        const double t = t0 + (n + 1) * h;
        const double factor = std::min(1.0, (t - t0) / ramp);
        CAPTURE(n, t);
        CHECK(factor == Approx(expected_factors[n]).epsilon(1e-14));
        CHECK(system.solves.back().load_factor == Approx(factor).epsilon(1e-14));
        CHECK(system.q() == Approx(factor * load / k).epsilon(1e-14));
        CHECK(system.v() == 0.0);
        CHECK(system.a() == 0.0);
        CHECK(system.state().t == Approx(t).epsilon(1e-14));
    }
}

TEST_CASE("statics with ramp_time 0 applies the full load at the first step", "[integrators][statics]") {
    LinearOscillatorSystem system(1.0, 0.0, 50.0, [](double t) { return 2.0 + t; });
    system.set_state(1.0, 0.0, 0.0, 0.0);
    Statics integrator(0.0);
    REQUIRE(integrator.step(system, 0.25).converged);
    CHECK(system.solves.back().load_factor == 1.0);
    CHECK(system.q() == Approx((2.0 + 1.25) / 50.0).epsilon(1e-14));  // f at the step's end time
}
