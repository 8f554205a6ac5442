// Validation: free vibration of a cantilever, first-mode period against Euler-Bernoulli
// (the MAT-DiSMech §7.2 cantilever: omega1 = 1.875^2 sqrt(EI/(m_L L^4))), with the discrete_rod
// element and the three dynamic integrators. Write-up: docs/validation.md §2.3.
//
// Geometry: the wall-clamped cantilever of test_cantilever_static.cpp case (d): 51 nodes, nodes 0
// and 1 (and edge 0 between them) fixed at x_c -/+ dl/2, tip at x_c + L, dl = L/(51 - 1.5). A
// discrete rod clamps at the midpoint of its last fixed edge, so the free length is exactly L and
// the discretization error is O(dl^2) (static case (d): 51 nodes within 0.02% of the continuum).
// Section and material: rectangle b = 0.02 m (along y) x h = 0.001 m (along z, the bending
// plane), rho = 1200, E = 2 GPa, nu = 0.5, L = 0.09 m.
//
// Reference: omega1 = beta1^2 sqrt(EI/(rho A L^4)), beta1 = 1.8751040687 (root of
// cos b cosh b = -1), EI = E b h^3/12, rho A = rho b h: omega1 = 161.7706 rad/s,
// T1 = 2 pi/omega1 = 3.884010e-2 s.
//
// Excitation: a statics scene with gravity (-z) gives the uniform-load static shape (tip deflection
// 5.79e-4 m = 6.4e-3 L: linear regime); the dynamic scene (same elements, so the same DOF
// numbering, no gravity) starts from that shape at rest. Modal content of the uniform-load shape
// at the tip (Euler-Bernoulli modes, computed for this test): mode 1 +101.34% of the tip
// deflection, mode 2 -1.43% (omega2 = 6.267 omega1), mode 3 +0.11%.
//
// Period: dt = T1/200 (omega1 dt = 0.0314), 10 periods; tip z zero crossings by linear
// interpolation, period = 2 (t_last - t_first)/(crossings - 1). Error budget for the 1% check:
//  - space: lumped-mass DER with the midpoint clamp, O(dl^2): < 0.1% at 51 nodes;
//  - time: implicit midpoint and trapezoidal Newmark advance the phase by 2 atan(omega dt/2)
//    per step: period longer by (omega dt)^2/12 = 8.2e-5; backward Euler by atan(omega dt):
//    (omega dt)^2/3 = 3.3e-4;
//  - mode mixing: mode 2 (1.4% of the tip amplitude) shifts an individual crossing by at most
//    0.014/(2 pi) T1 = 0.22% T1 (a half period by up to 0.88%: measured 0.85%); in the mean over
//    19 half periods only the first and last crossing enter: at most 2 x 0.44%/19 = 0.05% of T1;
//  - linear interpolation of a crossing (z'' ~ 0 there): O((omega dt)^3) dt, < 1e-6 T1;
//  - geometric nonlinearity: amplitude/L = 6.4e-3, frequency shift O((A/L)^2) ~ 1e-5.
// Total < 0.2%: 1% (the acceptance the brief asks for) passes with a wide margin; the measured
// error is printed, and a tighter 0.2% check records that the budget above holds.
//
// Numerical damping: backward Euler multiplies a linear mode's amplitude by
// 1/sqrt(1 + (omega dt)^2) per step, i.e. the log amplitude decays at the rate
// sigma = ln(1 + (omega dt)^2)/(2 dt): per period (200 steps) the amplitude factor is
// exp(-100 ln(1 + (omega dt)^2)) = exp(-0.0986) ~ exp(-pi omega dt) = exp(-0.0987).
// Measured from the tip |z| peaks at t ~ T1 and t ~ 5 T1 (parabolic refinement of the sampled
// maximum); higher modes are gone by then (mode 2 loses a factor exp(-3.8) per T1 under backward
// Euler: its residue after T1 is 0.03% of the tip amplitude). The measured log decay over the 4
// periods (predicted 0.394) must be within 5% of the prediction. Error sources: the frequency used
// (EB vs the discrete one, < 0.1% in omega, 0.2% in sigma), mode-2 residue (< 3e-4 in the log of
// the first peak, 0.1% of 0.394), peak refinement (parabola error O((omega dt)^4) relative) and
// nonlinearity (~1e-5): well under 1%. 5% keeps a 5x margin over that budget and is 4x tighter
// than the brief's 20%, which would pass a damping rate off by 20% (e.g. omega off by 10%); a
// wrong damping law (first order in omega dt, or the rate of a dt twice as large) misses by far
// more. Midpoint and Newmark conserve the energy of a linear system: their total energy after 10
// periods must be within 1e-6 of the initial one (the amplitude is not damped away; see the check).
#include "scene_runner.hpp"
#include "wall_clamped_cantilever.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRho = 1200.0, kE = 2e9, kWidth = 0.02, kThickness = 0.001;
constexpr double kClampX = 0.01, kFreeLength = 0.09;
constexpr int kNodes = 51;
constexpr double kBeta1 = 1.8751040687;

double bending_stiffness() { return kE * kWidth * kThickness * kThickness * kThickness / 12.0; }
double mass_per_length() { return kRho * kWidth * kThickness; }
double omega_eb() {
    return kBeta1 * kBeta1 * std::sqrt(bending_stiffness() / (mass_per_length() * std::pow(kFreeLength, 4)));
}
double period_eb() { return 2.0 * kPi / omega_eb(); }

/// The wall-clamped cantilever (test_cantilever_static.cpp case (d)) with the given integrator
/// block; gravity only in the statics scene.
std::string scene(const std::string& integrator, double duration, bool gravity) {
    WallClampedCantilever beam;
    beam.youngs_modulus = kE, beam.nodes = kNodes, beam.density = kRho, beam.width = kWidth;
    beam.thickness = kThickness, beam.clamp_x = kClampX, beam.free_length = kFreeLength;
    return wall_clamped_cantilever_scene(beam, integrator, duration,
                                         gravity ? "forces:\n  - {type: gravity, acceleration: [0, 0, -9.81]}\n" : "");
}

struct StaticShape {
    VectorX q;
    double deflection;  // -z of the tip
};

/// The static shape under gravity (5 load steps; Newton to 1e-12 N or round-off).
StaticShape static_shape() {
    auto sim = build_scene(scene("{type: statics, dt: 0.2, ramp_time: 1.0,\n"
                                 "             newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 1.0e-12}}",
                                 1.0, true));
    run_to_end(*sim);
    REQUIRE(sim->state().t == Approx(1.0));
    return {sim->state().q, -node_position(*sim, "beam", -1).z()};
}

struct Sample {
    double t, z;
};

struct Run {
    std::vector<Sample> tip;    // (t, tip z) at t = 0 and after every step
    double energy_start = 0.0;  // kinetic + elastic energy at t = 0 (after the commit)
    double energy_end = 0.0;
    double seconds = 0.0;
};

/// Builds the dynamic scene (no gravity), starts it from `q0` at rest and takes `steps` steps of dt.
Run vibrate(const std::string& type, const VectorX& q0, double dt, int steps) {
    const auto start = std::chrono::steady_clock::now();
    char integrator[400];
    // Newton: |F| <= 1e-10 N (nodal inertia forces are ~1e-3 N; the kernel's round-off test ends
    // the iteration earlier if the floating-point floor is reached). Plain fixed steps: step_once
    // does not retry, a failed step fails the test.
    std::snprintf(integrator, sizeof integrator,
                  "{type: %s, dt: %.17g,\n"
                  "             newton: {absolute_tolerance: 1.0e-10, relative_tolerance: 1.0e-12}}",
                  type.c_str(), dt);
    auto sim = build_scene(scene(integrator, dt * steps, false));
    State initial = sim->state();
    REQUIRE(initial.q.size() == q0.size());
    initial.t = 0.0;
    initial.q = q0;
    initial.v.setZero();
    initial.a.setZero();
    sim->commit(initial);

    Run run;
    run.tip.reserve(static_cast<std::size_t>(steps) + 1);
    run.tip.push_back({0.0, node_position(*sim, "beam", -1).z()});
    run.energy_start = sim->kinetic_energy() + sim->potential_energy();
    for (int k = 0; k < steps; ++k) {
        INFO(type << ": step " << k + 1 << " at t = " << sim->state().t);
        REQUIRE(step_once(*sim, dt));
        run.tip.push_back({sim->state().t, node_position(*sim, "beam", -1).z()});
        // Planar problem: nothing leaves the x-z plane.
        if (k % 100 == 0) CHECK(std::abs(node_position(*sim, "beam", -1).y()) <= 1e-12);
    }
    run.energy_end = sim->kinetic_energy() + sim->potential_energy();
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

/// Times of the tip's zero crossings (linear interpolation between samples).
std::vector<double> zero_crossings(const std::vector<Sample>& s) {
    std::vector<double> t;
    for (std::size_t k = 1; k < s.size(); ++k) {
        const double a = s[k - 1].z, b = s[k].z;
        if ((a < 0.0 && b >= 0.0) || (a > 0.0 && b <= 0.0))
            t.push_back(s[k - 1].t + (s[k].t - s[k - 1].t) * a / (a - b));
    }
    return t;
}

/// Period from the crossings: 2 (t_last - t_first)/(n - 1).
double mean_period(const std::vector<double>& crossings) {
    REQUIRE(crossings.size() >= 3);
    return 2.0 * (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
}

struct Peak {
    double t, amplitude;  // |z| at the refined maximum
};

/// The largest |z| between two consecutive crossings, refined by the parabola through the largest
/// sample and its neighbours.
Peak peak_between(const std::vector<Sample>& s, double t0, double t1) {
    std::size_t best = 0;
    for (std::size_t k = 1; k + 1 < s.size(); ++k)
        if (s[k].t > t0 && s[k].t < t1 && (best == 0 || std::abs(s[k].z) > std::abs(s[best].z))) best = k;
    REQUIRE(best > 0);
    const double ym = std::abs(s[best - 1].z), y0 = std::abs(s[best].z), yp = std::abs(s[best + 1].z);
    const double h = s[best + 1].t - s[best].t;
    const double curvature = ym - 2.0 * y0 + yp;
    const double offset = curvature != 0.0 ? 0.5 * (ym - yp) / curvature : 0.0;  // in steps
    return {s[best].t + offset * h, y0 - 0.25 * (ym - yp) * offset};
}

}  // namespace

TEST_CASE("dynamic cantilever: first-mode period against Euler-Bernoulli, numerical damping",
          "[validation][rod]") {
    const double omega = omega_eb(), period = period_eb();
    REQUIRE(omega == Approx(161.77055864595).epsilon(1e-9));  // independent evaluation (Python)
    const double dt = period / 200.0;
    const double omega_dt = omega * dt;

    const StaticShape shape = static_shape();
    const VectorX& q0 = shape.q;
    {
        // Linear regime: the tip deflection is the uniform-load Euler-Bernoulli value to O(dl^2)
        // (static case (d): -0.02%), 6.4e-3 of L.
        const double eb = 1.5 * kRho * 9.81 * std::pow(kFreeLength, 4) / (kE * kThickness * kThickness);
        const double delta = shape.deflection;
        std::printf("dynamic cantilever: E = %.3g Pa, %d nodes, omega1_EB = %.9g rad/s, T1_EB = %.9e s, dt = T1/200 = %.6e s "
                    "(omega dt = %.5f); initial tip deflection %.6e m (EB static %.6e m, %.4f of L)\n",
                    kE, kNodes, omega, period, dt, omega_dt, delta, eb, delta / kFreeLength);
        CHECK(delta == Approx(eb).epsilon(1e-3));
        CHECK(delta / kFreeLength < 1e-2);
    }

    // ---- period with the non-dissipative integrators, 10 periods ----
    for (const char* type : {"implicit_midpoint", "newmark"}) {
        const Run run = vibrate(type, q0, dt, 2000);
        const std::vector<double> crossings = zero_crossings(run.tip);
        const double measured = mean_period(crossings);
        const double error = measured / period - 1.0;
        double spread = 0.0;  // largest deviation of a half period from the mean half period
        for (std::size_t k = 1; k < crossings.size(); ++k)
            spread = std::max(spread, std::abs(2.0 * (crossings[k] - crossings[k - 1]) / measured - 1.0));
        const double energy_ratio = run.energy_end / run.energy_start;
        std::printf("dynamic cantilever %-17s: %zu crossings, T1 = %.9e s, (T1 - T1_EB)/T1_EB = %+.4f%%, "
                    "largest half-period deviation %.3f%%, energy after 10 T1 / initial - 1 = %+.2e, "
                    "%ld steps in %.3f s\n",
                    type, crossings.size(), measured, 100.0 * error, 100.0 * spread, energy_ratio - 1.0,
                    static_cast<long>(run.tip.size() - 1), run.seconds);
        INFO(type << ": T1 = " << measured << ", EB " << period << ", energy ratio " << energy_ratio);
        CHECK(crossings.size() == 20);
        CHECK(std::abs(error) <= 0.01);   // the acceptance (header)
        CHECK(std::abs(error) <= 2e-3);   // the error budget (header: < 0.2%)
        // Not damped away: both conserve a linear system's energy exactly (trapezoidal Newmark
        // and the midpoint rule coincide for linear systems). What is left is the midpoint rule's
        // error on the nonlinear part of the energy, relative (A/L)^2 (omega dt)^2 ~ 4e-8, and the
        // Newton residual (1e-10 N against ~1e-3 N forces): 1e-6 bounds both (measured ~4e-10);
        // backward Euler loses 70% of it over 6 periods.
        CHECK(std::abs(energy_ratio - 1.0) <= 1e-6);
    }

    // ---- backward Euler: period and numerical damping ----
    {
        const Run run = vibrate("implicit_euler", q0, dt, 1200);  // 6 periods
        const std::vector<double> crossings = zero_crossings(run.tip);
        const double measured = mean_period(crossings);
        const double error = measured / period - 1.0;
        // Peaks at t ~ T1 (between crossings 1 and 2) and t ~ 5 T1 (crossings 9 and 10).
        REQUIRE(crossings.size() >= 11);
        const Peak first = peak_between(run.tip, crossings[1], crossings[2]);
        const Peak last = peak_between(run.tip, crossings[9], crossings[10]);
        const double sigma = std::log(1.0 + omega_dt * omega_dt) / (2.0 * dt);  // log amplitude decay rate
        const double predicted = sigma * (last.t - first.t);
        const double measured_decay = std::log(first.amplitude / last.amplitude);
        const double per_period = measured_decay * period / (last.t - first.t);
        std::printf("dynamic cantilever implicit_euler   : T1 = %.9e s, (T1 - T1_EB)/T1_EB = %+.4f%% "
                    "(predicted +(omega dt)^2/3 = %+.4f%%); peaks |z| = %.6e m at t = %.6e s, %.6e m at t = %.6e s; "
                    "log decay %.6f measured, %.6f predicted (ratio %.5f); per period %.6f "
                    "(ln(1+(omega dt)^2)/2 x 200 = %.6f, pi omega dt = %.6f); energy after 6 T1 / initial = %.5f (mode 1 alone: exp(-2 sigma 6 T1) = %.5f); "
                    "%ld steps in %.3f s\n",
                    measured, 100.0 * error, 100.0 * omega_dt * omega_dt / 3.0, first.amplitude, first.t,
                    last.amplitude, last.t, measured_decay, predicted, measured_decay / predicted, per_period,
                    100.0 * std::log(1.0 + omega_dt * omega_dt), kPi * omega_dt, run.energy_end / run.energy_start,
                    std::exp(-2.0 * sigma * 6.0 * period),
                    static_cast<long>(run.tip.size() - 1), run.seconds);
        INFO("log decay measured " << measured_decay << ", predicted " << predicted);
        CHECK(std::abs(error) <= 0.01);
        CHECK(last.t - first.t == Approx(4.0 * period).epsilon(0.01));
        CHECK(std::abs(measured_decay / predicted - 1.0) <= 0.05);
    }
}
