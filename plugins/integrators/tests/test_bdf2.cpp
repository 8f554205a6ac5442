// The variable-step BDF2 (bdf2.hpp) on the undamped linear oscillator q'' = -omega^2 q
// (omega = 10 rad/s), solved exactly by the fake System (linear_oscillator_system.hpp), so every
// number below is the integrator's own.
#include "bdf2.hpp"
#include "checkpoint_continuation.hpp"
#include "linear_oscillator_system.hpp"

#include "soma/checkpoint.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <complex>
#include <utility>
#include <vector>

namespace {

using soma::VectorX;
using soma::integrators::Bdf2;
using soma::integrators::testing::LinearOscillatorSystem;

constexpr double kOmega = 10.0;
constexpr soma::integrators::testing::CosineMotion kExact{kOmega};

/// Gives \p bdf2 the history of a step of size h_prev that ended at t: q_n - q_{n-1}, v_{n-1} and
/// a_{n-1}, through its checkpoint records (the only way in from outside, as a restarted run's).
void give_history(Bdf2& bdf2, double t, double h_prev, double displacement, double velocity, double acceleration) {
    std::vector<soma::CheckpointRecord> section;
    soma::CheckpointWriter out(section);
    out.integer("initialized", 1);
    out.integer("bdf2_have_history", 1);
    out.integer("bdf2_acceleration_history", 1);
    out.real("bdf2_history_time", t);
    out.real("bdf2_previous_step", h_prev);
    out.vector("bdf2_previous_displacement", VectorX::Constant(1, displacement));
    out.vector("bdf2_previous_velocity", VectorX::Constant(1, velocity));
    out.vector("bdf2_previous_acceleration", VectorX::Constant(1, acceleration));
    soma::CheckpointReader in(section, "integrator");
    bdf2.restore_checkpoint(in);
    REQUIRE(in.finished());
}

/// The exact history of the oscillator q = cos(omega t) for a step of h_prev ending at t.
void give_exact_history(Bdf2& bdf2, double t, double h_prev) {
    give_history(bdf2, t, h_prev, kExact.q(t) - kExact.q(t - h_prev), kExact.v(t - h_prev),
                 -kOmega * kOmega * kExact.q(t - h_prev));
}

/// BDF2's one-step map at constant steps h on (q_n, v_n, q_n - q_{n-1}, v_{n-1}), column by column
/// from unit states (the fake system's solve is exact, so the map is linear and exact).
Eigen::Matrix4d one_step_map(double h) {
    Eigen::Matrix4d map;
    for (int k = 0; k < 4; ++k) {
        const Eigen::Vector4d s = Eigen::Vector4d::Unit(k);
        LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
        system.set_state(1.0, s[0], s[1], 0.0);
        Bdf2 bdf2;
        give_history(bdf2, 1.0, h, s[2], s[3], 0.0);
        REQUIRE(bdf2.step(system, h).converged);
        map.col(k) << system.q(), system.v(), system.q() - s[0], s[1];
    }
    return map;
}

/// The moduli of the roots of BDF2's characteristic polynomial (1 - 2/3 z) zeta^2 - 4/3 zeta + 1/3
/// at z = i omega h (BDF2 on y' = i omega y, the oscillator's first-order form), larger first.
std::pair<double, double> root_moduli(double omega_h) {
    const std::complex<double> z(0.0, omega_h);
    const std::complex<double> a = 1.0 - 2.0 / 3.0 * z, b = -4.0 / 3.0, c = 1.0 / 3.0;
    const std::complex<double> d = std::sqrt(b * b - 4.0 * a * c);
    const double m1 = std::abs((-b + d) / (2.0 * a)), m2 = std::abs((-b - d) / (2.0 * a));
    return {std::max(m1, m2), std::min(m1, m2)};
}

/// Runs the step sizes of \p pattern in turn until t reaches \p end (which the pattern divides).
LinearOscillatorSystem run(const std::vector<double>& pattern, double end) {
    LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
    system.set_state(0.0, 1.0, 0.0, -kOmega * kOmega);
    Bdf2 bdf2;
    for (std::size_t i = 0; system.commits.empty() || system.commits.back().t < end - 1e-12; ++i) {
        const soma::StepReport report = bdf2.step(system, pattern[i % pattern.size()]);
        REQUIRE(report.converged);
    }
    CHECK(system.commits.back().t == Approx(end).epsilon(1e-12));
    return system;
}

}  // namespace

TEST_CASE("BDF2's local error estimate is the error of the step it took, at step ratios 1/2, 1 and 2",
          "[integrators][bdf2][error]") {
    // From the exact state and exact history at t = pi/50 (phase pi/5: a and a' well away from
    // zero), one step of h = 1e-3 (omega h = 0.01) after a step of h / ratio. The true local error
    // is C(ratio) h^3 q''' (bdf2.hpp: C = 2/9 at ratio 1, 0.375 at 1/2, 0.15 at 2); the estimate
    // C h^2 (a_{n+1} - a_n) takes q''' half a step early and a_{n+1} with the method's O(h^2)
    // error: both O(omega h) relative, and 3 % is a few times that.
    const double t = M_PI / 50.0, h = 1e-3;
    for (const double ratio : {0.5, 1.0, 2.0}) {
        INFO("ratio " << ratio);
        LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
        system.set_state(t, kExact.q(t), kExact.v(t), -kOmega * kOmega * kExact.q(t));
        Bdf2 bdf2;
        give_exact_history(bdf2, t, h / ratio);
        soma::ErrorControl unit;  // tolerance 1, absolute: StepReport::error is |e| itself
        unit.absolute = 1.0;
        unit.relative = 0.0;
        bdf2.set_error_control(unit);
        const soma::StepReport report = bdf2.step(system, h);
        REQUIRE(report.converged);
        const double true_error = std::abs(system.q() - kExact.q(t + h));
        const double constant = (1 + ratio) * (1 + ratio) / (6 * ratio * (1 + 2 * ratio));
        const double third_derivative = std::pow(kOmega, 3) * std::sin(kOmega * (t + h));
        CHECK(true_error == Approx(constant * h * h * h * std::abs(third_derivative)).epsilon(0.03));
        CHECK(report.error == Approx(true_error).epsilon(0.03));
    }
}

TEST_CASE("BDF2 is second order at constant and at varying steps", "[integrators][bdf2][convergence]") {
    // The error of q at T = 0.6 s (omega T = 6 rad) against cos(omega T) for three step sizes, each
    // half the one before: at constant steps, and alternating h and 2h (ratios 2 and 1/2, the
    // variable-step coefficients at work). Wrong coefficients at ratio != 1 would make the
    // alternating run first order or worse. The first step is implicit Euler, an O(h^2) local
    // error once: the global error stays O(h^2). The observed orders approach 2 as O(omega h):
    // 2.056 and 2.033 at constant steps, 2.070 and 2.039 alternating (the same recursion in an
    // independent script); 0.1 bounds that at these h (omega h <= 0.13).
    const double end = 0.6;
    for (const std::vector<double>& unit : {std::vector<double>{1.0}, std::vector<double>{1.0, 2.0}}) {
        INFO((unit.size() == 1 ? "constant steps" : "steps alternating h, 2h"));
        std::vector<double> errors;
        for (const double h : {0.01, 0.005, 0.0025}) {
            std::vector<double> pattern;
            for (const double u : unit) pattern.push_back(u * h * (unit.size() == 1 ? 1.0 : 2.0 / 3.0));
            const LinearOscillatorSystem system = run(pattern, end);
            errors.push_back(std::abs(system.q() - kExact.q(end)));
        }
        for (std::size_t i = 0; i + 1 < errors.size(); ++i) {
            CAPTURE(i, errors[i], errors[i + 1]);
            CHECK(std::log2(errors[i] / errors[i + 1]) == Approx(2.0).margin(0.1));
        }
    }
}

TEST_CASE("BDF2 damps the modes a step does not resolve, and a resolved one far less than implicit Euler",
          "[integrators][bdf2]") {
    // The eigenvalues of the one-step map on (q_n, v_n, q_n - q_{n-1}, v_{n-1}) are the roots of
    // the characteristic polynomial at z = +-i omega h, each modulus twice (round-off: 1e-10).
    // At omega h = 1000 both have |zeta| ~ sqrt(1/(2 |z|)) = 0.022 (L-stable: they tend to 0; the
    // trapezoidal rule's stay at 1); at omega h = 0.1 the principal root is 0.99998, the parasitic
    // one near 1/3.
    for (const double omega_h : {1000.0, 0.1}) {
        INFO("omega h = " << omega_h);
        const Eigen::Vector4cd lambda = Eigen::EigenSolver<Eigen::Matrix4d>(one_step_map(omega_h / kOmega)).eigenvalues();
        std::vector<double> moduli;
        for (int k = 0; k < 4; ++k) moduli.push_back(std::abs(lambda[k]));
        std::sort(moduli.begin(), moduli.end());
        const auto [larger, smaller] = root_moduli(omega_h);
        CHECK(moduli[3] == Approx(larger).epsilon(1e-10));
        CHECK(moduli[2] == Approx(larger).epsilon(1e-10));
        CHECK(moduli[1] == Approx(smaller).epsilon(1e-10));
        CHECK(moduli[0] == Approx(smaller).epsilon(1e-10));
        if (omega_h > 1.0) CHECK(larger < 0.03);
    }
    CHECK(Bdf2().damps_unresolved_modes());

    // At omega h = 0.1 the principal root's radius per step, from the polynomial, is 0.9999756
    // (numerical damping of fourth order in omega h; implicit Euler's is second order,
    // 1/sqrt(1 + (omega h)^2) = 0.995). Once the parasitic root (|zeta| ~ 1/3) started by the Euler
    // step has died out, the energy falls by exactly radius^200 over 100 steps: steps 100 to 200
    // against the polynomial to 1e-9 (round-off of 200 steps; measured 1e-14 in an independent
    // script), 0.99513 against implicit Euler's 1.01^-100 = 0.370.
    const double radius = root_moduli(kOmega * 0.01).first;
    const double ratio = run({0.01}, 2.0).energy() / run({0.01}, 1.0).energy();
    CAPTURE(radius, ratio);
    CHECK(radius < 1.0);
    CHECK(ratio == Approx(std::pow(radius, 200)).epsilon(1e-9));
    CHECK(ratio > 0.99);
}

TEST_CASE("BDF2 restarts as implicit Euler from a state it did not commit, and a checkpoint continues it bit for bit",
          "[integrators][bdf2]") {
    const double h = 0.01;
    LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
    system.set_state(0.0, 1.0, 0.0, -kOmega * kOmega);
    Bdf2 bdf2;
    for (int i = 0; i < 5; ++i) REQUIRE(bdf2.step(system, h).converged);
    // Implicit Euler's weights c = (h^2, h, 1) on the first step, BDF2's (4/9 h^2, 2/3 h, 1) after.
    CHECK(system.solves[0].coefficients.c_q == Approx(h * h).epsilon(1e-15));
    CHECK(system.solves[4].coefficients.c_q == Approx(4.0 / 9.0 * h * h).epsilon(1e-15));
    CHECK(system.solves[4].coefficients.c_v == Approx(2.0 / 3.0 * h).epsilon(1e-15));

    // A checkpoint taken now continues in a fresh integrator exactly as this one does.
    Bdf2 restored;
    soma::integrators::testing::check_checkpoint_continues(bdf2, restored, system, h, 5);

    // A state set from outside (another time) has no history: the step is implicit Euler's.
    system.set_state(2.0, 0.5, 1.0, 0.0);
    REQUIRE(bdf2.step(system, h).converged);
    CHECK(system.solves.back().coefficients.c_q == Approx(h * h).epsilon(1e-15));
    CHECK(system.solves.back().q_pred[0] == Approx(0.5 + h * 1.0).epsilon(1e-15));
    CHECK(bdf2.error_order() == 2);
    CHECK(bdf2.largest_step_ratio() == 2.0);
}

TEST_CASE("BDF2 falls back to implicit Euler after five rejected attempts from one state", "[integrators][bdf2][error]") {
    // Where the motion is not smooth the two-step estimate does not fall as a rejected step
    // shrinks (bdf2.hpp): after five rejections from one state the attempts are implicit Euler's,
    // and the first committed step restores BDF2.
    const double h = 0.01;
    LinearOscillatorSystem system(1.0, 0.0, kOmega * kOmega);
    system.set_state(0.0, 1.0, 0.0, -kOmega * kOmega);
    Bdf2 bdf2;
    REQUIRE(bdf2.step(system, h).converged);  // history from here on
    soma::ErrorControl strict;
    strict.absolute = 1e-300;  // every step rejected
    strict.relative = 0.0;
    bdf2.set_error_control(strict);
    for (int attempt = 1; attempt <= 7; ++attempt) {
        const double step = h * std::pow(0.5, attempt);
        const soma::StepReport report = bdf2.step(system, step);
        CHECK(report.error > 1.0);
        const bool euler = system.solves.back().coefficients.c_q == Approx(step * step).epsilon(1e-15);
        CAPTURE(attempt);
        CHECK(euler == (attempt > 5));
        CHECK(report.error_order == (euler ? 1 : 0));  // 0: the integrator's order, 2
    }
    CHECK(system.commits.size() == 1);
    CHECK(bdf2.step(system, h / 4).error_order == 1);  // Euler's estimate: the time loop scales by error^(-1/2)
    soma::ErrorControl loose;
    loose.absolute = 1e300;
    bdf2.set_error_control(loose);
    REQUIRE(bdf2.step(system, h).converged);  // Euler, committed
    REQUIRE(bdf2.step(system, h).converged);
    CHECK(system.solves.back().coefficients.c_q == Approx(4.0 / 9.0 * h * h).epsilon(1e-15));
}
