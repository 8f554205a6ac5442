// The kernel contract is general: an element whose mass depends on its configuration is
// integrated by the same integrators and Newton solver as the rods, and matches the analytic
// pendulum period with the expected order of accuracy.
#include "kernel_test_support.hpp"
#include "pendulum_on_wire.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;
using soma::testing::PendulumOnWire;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kLength = 1.0, kGravity = 9.81, kMass = 0.3, kAmplitude = 0.1;

void register_pendulum(TypeRegistry& registry) {
    ParameterSchema schema("test_pendulum_on_wire", "test-only bead on a circular wire");
    schema.real("initial_angle", "initial angle").fallback(kAmplitude);
    registry.set_current_provider("test", "");
    registry.add_element(std::move(schema), [](const Parameters& p) {
        return std::make_unique<PendulumOnWire>(kMass, kLength, kGravity, p.real("initial_angle"));
    });
}

/// Period of a pendulum of amplitude theta0 (series in theta0; error O(theta0^6) ~ 1e-9 here).
double exact_period(double theta0) {
    const double t2 = theta0 * theta0;
    return 2.0 * kPi * std::sqrt(kLength / kGravity) * (1.0 + t2 / 16.0 + 11.0 * t2 * t2 / 3072.0);
}

struct Trajectory {
    double period = 0.0;        ///< mean time between downward zero crossings
    double max_energy_error = 0.0;  ///< max |E(t) - E(0)| / (m g L theta0^2 / 2)
    double final_energy_error = 0.0;
};

Trajectory integrate(const std::string& integrator, double dt, double duration, double amplitude = kAmplitude) {
    TypeRegistry registry;
    PluginLoader loader(registry);
    loader.load_defaults();
    register_pendulum(registry);
    const std::string text = "simulation: {duration: " + std::to_string(duration) + "}\n" +
                             "integrator: {type: " + integrator + ", dt: " + std::to_string(dt) +
                             ", newton: {absolute_tolerance: 1.0e-13}}\n"
                             "elements: [{name: bead, type: test_pendulum_on_wire, initial_angle: " +
                             std::to_string(amplitude) + "}]\n";
    Simulation sim(load_scene_text(text, "pendulum.yaml"), registry);
    const double energy_scale = 0.5 * kMass * kGravity * kLength * amplitude * amplitude;
    const double e0 = sim.kinetic_energy() + sim.potential_energy();
    Trajectory out;
    std::vector<double> crossings;
    double previous_x = sim.state().q[0], previous_t = sim.state().t;
    // The scene's dt as the kernel read it (the text above rounds dt to 6 digits), so that the
    // steps land on the kernel's time grid as in a run (Simulation::commit snaps t to it).
    const double h = sim.nominal_dt();
    while (sim.state().t < duration - 1e-12) {
        sim.begin_attempt();
        const StepReport report = sim.integrator().step(sim, h);
        REQUIRE(report.converged);
        const double x = sim.state().q[0], t = sim.state().t;
        if (previous_x > 0.0 && x <= 0.0) crossings.push_back(previous_t + (t - previous_t) * previous_x / (previous_x - x));
        previous_x = x;
        previous_t = t;
        const double error = std::abs(sim.kinetic_energy() + sim.potential_energy() - e0) / energy_scale;
        out.max_energy_error = std::max(out.max_energy_error, error);
        out.final_energy_error = error;
    }
    REQUIRE(crossings.size() >= 3);
    out.period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    return out;
}

}  // namespace

TEST_CASE("pendulum on a wire: element Jacobian matches finite differences of its residual", "[contract]") {
    PendulumOnWire bead(kMass, kLength, kGravity, kAmplitude);
    bead.bind({0});
    soma::testing::DenseAssembly dense(1);
    bead.declare_pattern(dense.pattern());
    VectorX q(1), v(1), a(1);
    q << 0.37;
    v << -1.3;
    a << 2.1;
    auto residual_at = [&](const VectorX& qq, const VectorX& vv, const VectorX& aa) {
        EvalContext c;
        c.q = &qq;
        c.v = &vv;
        c.a = &aa;
        return dense.evaluate(bead, c, false).first;
    };
    const double h = 1e-6;
    // Each partial derivative separately: coefficients (1,0,0), (0,1,0), (0,0,1).
    for (int which = 0; which < 3; ++which) {
        EvalContext c;
        c.q = &q;
        c.v = &v;
        c.a = &a;
        c.coefficients = {which == 0 ? 1.0 : 0.0, which == 1 ? 1.0 : 0.0, which == 2 ? 1.0 : 0.0};
        const double analytic = dense.evaluate(bead, c).second(0, 0);
        VectorX p = which == 0 ? q : which == 1 ? v : a;
        auto f = [&](const VectorX& y) {
            return which == 0 ? residual_at(y, v, a) : which == 1 ? residual_at(q, y, a) : residual_at(q, v, y);
        };
        const double fd = soma::testing::finite_difference_jacobian(f, p, h)(0, 0);
        // Central differences: truncation O(h^2 f''') ~ 1e-12 relative, round-off ~ 1e-16/h ~ 1e-10.
        CHECK(analytic == Approx(fd).epsilon(1e-7));
    }
}

TEST_CASE("pendulum on a wire: second-order integrators match the period and conserve energy to O(dt^2)",
          "[contract][validation]") {
    const double period = exact_period(kAmplitude);
    for (const std::string integrator : {"implicit_midpoint", "newmark"}) {
        INFO(integrator);
        const Trajectory coarse = integrate(integrator, period / 100.0, 5.0 * period);
        const Trajectory fine = integrate(integrator, period / 200.0, 5.0 * period);
        // The period error of these schemes is (omega dt)^2 / 12 relative: 3.3e-4 at T/100.
        CHECK(std::abs(coarse.period / period - 1.0) < 5e-4);
        CHECK(std::abs(fine.period / period - 1.0) < 1.3e-4);
        // Second order: halving dt divides the energy error by ~4 (3 to 5 allows for the
        // nonlinear terms and the sampling of the maximum).
        const double ratio = coarse.max_energy_error / fine.max_energy_error;
        CHECK(ratio > 3.0);
        CHECK(ratio < 5.0);
        CHECK(coarse.max_energy_error < 1e-2);
    }
}

TEST_CASE("pendulum on a wire: BDF2 at fixed steps is second order in the period", "[contract][validation]") {
    // BDF2's history must survive the kernel's snap of t to the nominal grid at commit: a step
    // that lost it would be implicit Euler's, and the period error would fall at first order.
    // Its phase error is (omega dt)^2 times 2/9 relative (its error constant), so halving dt
    // divides the period error by 4 (3 to 5 allows for the sampling of the period).
    const double period = exact_period(kAmplitude);
    const Trajectory coarse = integrate("bdf2", period / 100.0, 5.0 * period);
    const Trajectory fine = integrate("bdf2", period / 200.0, 5.0 * period);
    const double coarse_error = std::abs(coarse.period / period - 1.0), fine_error = std::abs(fine.period / period - 1.0);
    CAPTURE(coarse_error, fine_error, coarse.max_energy_error, fine.max_energy_error);
    CHECK(coarse_error / fine_error > 3.0);
    CHECK(coarse_error / fine_error < 5.0);
    CHECK(coarse_error < 2e-3);
}

TEST_CASE("pendulum on a wire: implicit Euler matches the period and dissipates energy at first order",
          "[contract][validation]") {
    // A small amplitude (0.02 rad) so that the amplitude-dependence of the period (theta^2/16 =
    // 2.5e-5) stays negligible while backward Euler damps the swing.
    const double amplitude = 0.02;
    const double period = exact_period(amplitude);
    const Trajectory coarse = integrate("implicit_euler", period / 400.0, 3.0 * period, amplitude);
    const Trajectory fine = integrate("implicit_euler", period / 800.0, 3.0 * period, amplitude);
    // Backward Euler's frequency is atan(omega dt)/dt = omega (1 - (omega dt)^2/3): period
    // error 8.2e-5 at T/400 and 2.1e-5 at T/800.
    CHECK(std::abs(coarse.period / period - 1.0) < 1e-4);
    CHECK(std::abs(fine.period / period - 1.0) < 3e-5);
    // Energy decays as exp(-omega^2 dt t): first order, so halving dt halves the loss.
    const double ratio = coarse.final_energy_error / fine.final_energy_error;
    CHECK(ratio > 1.8);
    CHECK(ratio < 2.2);
    // Magnitude: the amplitude decays as exp(-omega^2 dt t / 2), the energy as
    // exp(-omega^2 dt t): after 3T at T/400, 1 - exp(-12 pi^2 / 400) = 0.26.
    const double omega = 2.0 * kPi / period;
    const double expected = 1.0 - std::exp(-omega * omega * (period / 400.0) * 3.0 * period);
    CHECK(coarse.final_energy_error == Approx(expected).epsilon(0.05));
}
