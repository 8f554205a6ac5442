// Symplectic Euler and Bridson-Marino (explicit_integrators.hpp) on the linear oscillator
// m q'' + c q' + k q = 0 solved exactly by the fake System (linear_oscillator_system.hpp).
//
// ArtiSynth's technical notes (section III, test I3: m = 1, k = 100, h = 0.01, from q = 1 at rest)
// give each scheme's energy after 100 steps, E/E0: symplectic Euler 0.9556 (its energy oscillates,
// the map keeping a modified energy), Bridson-Marino without damping (velocity Verlet) 0.999251.
// Iterating the two maps in double precision gives 0.9556293525528414 and 0.9992505643750941;
// the one-step maps are those maps exactly, so the comparison allows only round-off (1e-12).
#include "explicit_integrators.hpp"
#include "linear_oscillator_system.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>

namespace {

using soma::Integrator;
using soma::integrators::BridsonMarino;
using soma::integrators::SymplecticEuler;
using soma::integrators::testing::LinearOscillatorSystem;

/// The energy ratio E/E0 after \p steps steps of size h from q = 1 at rest.
template <class Scheme>
double energy_ratio(double mass, double stiffness, double h, int steps) {
    LinearOscillatorSystem system(mass, 0.0, stiffness);
    system.set_state(0.0, 1.0, 0.0, -stiffness / mass);
    const double e0 = system.energy();
    Scheme scheme;
    for (int n = 0; n < steps; ++n) REQUIRE(scheme.step(system, h).converged);
    return system.energy() / e0;
}

/// The one-step map of (q, v), column by column, from the unit states (consistent accelerations).
template <class Scheme>
Eigen::Matrix2d one_step_map(double mass, double damping, double stiffness, double h) {
    Eigen::Matrix2d map;
    for (int column = 0; column < 2; ++column) {
        LinearOscillatorSystem system(mass, damping, stiffness);
        const double q = column == 0 ? 1.0 : 0.0, v = column == 1 ? 1.0 : 0.0;
        system.set_state(0.0, q, v, -(damping * v + stiffness * q) / mass);
        Scheme scheme;
        REQUIRE(scheme.step(system, h).converged);
        map.col(column) << system.q(), system.v();
    }
    return map;
}

/// q(t) of m q'' + c q' + k q = 0 from q = 1 at rest (underdamped).
double damped_motion(double mass, double damping, double stiffness, double t) {
    const double decay = damping / (2.0 * mass), omega = std::sqrt(stiffness / mass - decay * decay);
    return std::exp(-decay * t) * (std::cos(omega * t) + decay / omega * std::sin(omega * t));
}

/// |q_N - q(1 s)| after integrating to t = 1 s at step h.
template <class Scheme>
double error_at_one_second(double mass, double damping, double stiffness, double h) {
    LinearOscillatorSystem system(mass, damping, stiffness);
    system.set_state(0.0, 1.0, 0.0, -stiffness / mass);
    Scheme scheme;
    const int steps = static_cast<int>(std::lround(1.0 / h));
    for (int n = 0; n < steps; ++n) REQUIRE(scheme.step(system, h).converged);
    return std::abs(system.q() - damped_motion(mass, damping, stiffness, 1.0));
}

}  // namespace

TEST_CASE("explicit integrators: ArtiSynth's oscillator table (energy after 100 steps, radius 1)", "[integrators][explicit]") {
    CHECK(energy_ratio<SymplecticEuler>(1.0, 100.0, 0.01, 100) == Approx(0.9556293525528414).epsilon(1e-12));
    CHECK(energy_ratio<BridsonMarino>(1.0, 100.0, 0.01, 100) == Approx(0.9992505643750941).epsilon(1e-12));
    // Both maps are symplectic: determinant 1, and for omega h < 2 a complex pair on the unit circle.
    for (const Eigen::Matrix2d& map : {one_step_map<SymplecticEuler>(1.0, 0.0, 100.0, 0.01),
                                       one_step_map<BridsonMarino>(1.0, 0.0, 100.0, 0.01)}) {
        CHECK(map.determinant() == Approx(1.0).epsilon(1e-14));
        const Eigen::Vector2cd eigenvalues = map.eigenvalues();
        CHECK(std::abs(eigenvalues[0]) == Approx(1.0).epsilon(1e-14));
        CHECK(std::abs(eigenvalues[1]) == Approx(1.0).epsilon(1e-14));
        CHECK(std::abs(eigenvalues[0].imag()) > 0.05);  // a rotation, not two real roots
    }
}

TEST_CASE("explicit integrators: stable below omega h = 2 and growing beyond", "[integrators][explicit]") {
    // omega = 10 rad/s, r = omega h, y = (omega q, v). Below r = 2 each map keeps a quadratic form
    // and the energy |y|^2 / 2 stays on its ellipse: symplectic Euler keeps |y|^2 - r y1 y2, so from
    // rest at q = 1 the energy reaches at most 1/(1 - r/2) E0 (20 at r = 1.9); velocity Verlet keeps
    // (1 - r^2/4) y1^2 + y2^2, so from rest it never exceeds E0. At r = 2.1 an eigenvalue leaves the
    // unit circle (|lambda| = 1.55 for both) and 100 steps multiply the energy by ~1e38.
    const auto largest_energy_ratio = [](auto scheme, double h, int steps) {
        LinearOscillatorSystem system(1.0, 0.0, 100.0);
        system.set_state(0.0, 1.0, 0.0, -100.0);
        const double e0 = system.energy();
        double largest = 0.0;
        for (int n = 0; n < steps; ++n) {
            REQUIRE(scheme.step(system, h).converged);
            largest = std::max(largest, system.energy() / e0);
        }
        return largest;
    };
    const double se = largest_energy_ratio(SymplecticEuler{}, 0.019 * 10.0, 1000);
    const double bm = largest_energy_ratio(BridsonMarino{}, 0.019 * 10.0, 1000);
    INFO("largest E/E0 over 1000 steps at omega h = 1.9: symplectic Euler " << se << ", Bridson-Marino " << bm);
    CHECK(se <= 20.0 * (1.0 + 1e-12));
    CHECK(se > 15.0);  // the orbit comes near the bound
    CHECK(bm <= 1.0 + 1e-12);
    CHECK(energy_ratio<SymplecticEuler>(1.0, 100.0, 0.21, 100) > 1e30);
    CHECK(energy_ratio<BridsonMarino>(1.0, 100.0, 0.21, 100) > 1e30);
}

TEST_CASE("explicit integrators: symplectic Euler is first order, Bridson-Marino second order with damping",
          "[integrators][explicit]") {
    // m = 1, c = 0.4, k = 100 (10 rad/s, damping ratio 0.02): the global error at t = 1 s halves
    // (first order) or quarters (second order) with h. The margins leave room for the next term of
    // the error's expansion at omega h = 0.1 and 0.05 (a relative (omega h) ~ 5-10% of the ratio).
    const double se_coarse = error_at_one_second<SymplecticEuler>(1.0, 0.4, 100.0, 0.01);
    const double se_fine = error_at_one_second<SymplecticEuler>(1.0, 0.4, 100.0, 0.005);
    const double bm_coarse = error_at_one_second<BridsonMarino>(1.0, 0.4, 100.0, 0.01);
    const double bm_fine = error_at_one_second<BridsonMarino>(1.0, 0.4, 100.0, 0.005);
    INFO("symplectic Euler " << se_coarse << " -> " << se_fine << "; Bridson-Marino " << bm_coarse << " -> " << bm_fine);
    CHECK(se_coarse / se_fine == Approx(2.0).margin(0.2));
    CHECK(bm_coarse / bm_fine == Approx(4.0).margin(0.4));
}

TEST_CASE("explicit integrators: the steps are ArtiSynth's printed equations on a linear system", "[integrators][explicit]") {
    // Section 0.9.1: M v+ = M v + h f, x+ = x + h v+. Section 0.9.4, with D = -c:
    // (M - h/2 D) v' = (M - h/2 D) v + h/2 f, x+ = x + h v', f' = f(x+, v),
    // (M - h/2 D) v+ = (M - h/2 D) v + h/2 (f + f'). The kernel-driven steps solve M a = f exactly
    // instead; on forces linear in v the two agree to round-off.
    const double m = 2.0, c = 3.0, k = 150.0, h = 0.004;
    const auto force = [&](double x, double v) { return -k * x - c * v; };
    LinearOscillatorSystem se_system(m, c, k), bm_system(m, c, k);
    se_system.set_state(0.0, 0.3, -1.2, force(0.3, -1.2) / m);
    bm_system.set_state(0.0, 0.3, -1.2, force(0.3, -1.2) / m);
    SymplecticEuler se;
    BridsonMarino bm;
    double se_x = 0.3, se_v = -1.2, bm_x = 0.3, bm_v = -1.2;
    const double m_hat = m + 0.5 * h * c;  // M - h/2 D
    for (int n = 0; n < 200; ++n) {
        REQUIRE(se.step(se_system, h).converged);
        se_v += h * force(se_x, se_v) / m;
        se_x += h * se_v;
        REQUIRE(bm.step(bm_system, h).converged);
        const double f = force(bm_x, bm_v);
        const double v_half = bm_v + 0.5 * h * f / m_hat;
        const double x_next = bm_x + h * v_half;
        const double f_next = force(x_next, bm_v);
        bm_v += 0.5 * h * (f + f_next) / m_hat;
        bm_x = x_next;
    }
    CHECK(se_system.q() == Approx(se_x).epsilon(1e-12));
    CHECK(se_system.v() == Approx(se_v).epsilon(1e-12));
    CHECK(bm_system.q() == Approx(bm_x).epsilon(1e-12));
    CHECK(bm_system.v() == Approx(bm_v).epsilon(1e-12));
}

TEST_CASE("explicit integrators: Bridson-Marino starts from M a0 = f; a failed solve commits nothing",
          "[integrators][explicit]") {
    // The second half step uses the start's acceleration, so the first step solves it (one solve
    // with c = (0, 0, 1)) rather than trust the state's a, here deliberately wrong.
    LinearOscillatorSystem system(1.0, 0.0, 100.0);
    system.set_state(0.0, 1.0, 0.0, 0.0);
    BridsonMarino bm;
    REQUIRE(bm.step(system, 0.01).converged);
    REQUIRE(system.solves.size() == 3);
    CHECK(system.solves[0].coefficients.c_q == 0.0);
    CHECK(system.solves[0].coefficients.c_v == 0.0);
    CHECK(system.solves[0].coefficients.c_a == 1.0);
    CHECK(system.commits[0].a[0] == Approx(-100.0));
    // Velocity Verlet's step from q = 1 at rest: q+ = 1 - (omega h)^2 / 2, v+ = -omega^2 h (1 - (omega h)^2 / 4).
    CHECK(system.q() == Approx(1.0 - 0.005).epsilon(1e-14));
    CHECK(system.v() == Approx(-100.0 * 0.01 * (1.0 - 0.0025)).epsilon(1e-14));

    for (int scheme = 0; scheme < 2; ++scheme) {
        LinearOscillatorSystem failing(1.0, 0.0, 100.0);
        failing.set_state(0.0, 1.0, 0.0, -100.0);
        failing.fail_solves = true;
        std::unique_ptr<Integrator> integrator;
        if (scheme == 0) integrator = std::make_unique<SymplecticEuler>();
        else integrator = std::make_unique<BridsonMarino>();
        const soma::StepReport report = integrator->step(failing, 0.01);
        CHECK_FALSE(report.converged);
        CHECK(report.diagnosis.find("the fake system was told to fail") != std::string::npos);
        CHECK(failing.commits.empty());
    }
}
