// Accuracy of implicit Euler, implicit midpoint and Newmark on the undamped linear oscillator
// m q'' + k q = 0, m = 1, k = 100 (omega = 10 rad/s), h = 0.01 s (omega h = 0.1), solved exactly
// by the fake System (linear_oscillator_system.hpp), so every number below is the integrator's.
//
// Closed forms. In the coordinates y = (omega q, v) the oscillator is y' = omega S y with
// S = [[0, 1], [-1, 0]], and R(phi) = [[cos phi, sin phi], [-sin phi, cos phi]] is its exact
// flow (a rotation by omega t). With r = omega h:
//  - implicit Euler (backward Euler) gives y1 = (I - r S)^-1 y0 = (I + r S) y0 / (1 + r^2)
//    = rho R(phi) y0 with rho = 1/sqrt(1 + r^2), tan phi = r: the spectral radius is
//    1/sqrt(1.01) = 0.995037190, and the energy (|y|^2 m / 2) shrinks by exactly 1/(1 + r^2) =
//    0.990099 per step, from any state: 1.01^-100 = 0.369711212 after 100 steps;
//  - the implicit midpoint rule and average-acceleration Newmark (beta 1/4, gamma 1/2) are both
//    the trapezoidal rule on a linear problem: y1 = (I - r/2 S)^-1 (I + r/2 S) y0 = R(theta) y0
//    with tan(theta/2) = r/2. |lambda| = 1, the energy is conserved to round-off, and the
//    numerical period 2 pi h/theta exceeds 2 pi/omega by the factor r/theta = (r/2)/atan(r/2)
//    = 1.000832779 (~ 1 + r^2/12).
// From q0 = 1, v0 = 0: q_n = rho^n cos(n phi) (Euler) and q_n = cos(n theta) (trapezoidal).
//
// Tolerances: the closed forms are exact for these maps, so the comparisons allow only the
// round-off of the steps taken (~n eps relative, n <= 1000 steps: 1e-12 is ~50x that).
#include "affine_integrators.hpp"
#include "linear_oscillator_system.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using soma::Integrator;
using soma::integrators::testing::LinearOscillatorSystem;

constexpr double kMass = 1.0;
constexpr double kStiffness = 100.0;
const double kOmega = std::sqrt(kStiffness / kMass);  // 10 rad/s
constexpr double kStep = 0.01;                        // omega h = 0.1

struct NamedIntegrator {
    std::string name;
    std::function<std::unique_ptr<Integrator>()> make;
};

NamedIntegrator implicit_euler() {
    return {"implicit_euler", [] { return std::make_unique<soma::integrators::ImplicitEuler>(); }};
}
NamedIntegrator implicit_midpoint() {
    return {"implicit_midpoint", [] { return std::make_unique<soma::integrators::ImplicitMidpoint>(); }};
}
NamedIntegrator newmark(double beta = 0.25, double gamma = 0.5) {
    return {"newmark", [=] { return std::make_unique<soma::integrators::Newmark>(beta, gamma); }};
}

/// Runs `steps` steps of size h from (q0, v0) at rest acceleration -omega^2 q0 (consistent).
LinearOscillatorSystem run(const NamedIntegrator& integrator, double q0, double v0, double h, long steps) {
    LinearOscillatorSystem system(kMass, 0.0, kStiffness);
    system.set_state(0.0, q0, v0, -kOmega * kOmega * q0);
    const std::unique_ptr<Integrator> stepper = integrator.make();
    for (long n = 0; n < steps; ++n) {
        const soma::StepReport report = stepper->step(system, h);
        REQUIRE(report.converged);
    }
    return system;
}

/// The one-step map (q0, v0) -> (q1, v1), column by column.
Eigen::Matrix2d amplification_matrix(const NamedIntegrator& integrator, double h) {
    Eigen::Matrix2d g;
    const LinearOscillatorSystem from_position = run(integrator, 1.0, 0.0, h, 1);
    const LinearOscillatorSystem from_velocity = run(integrator, 0.0, 1.0, h, 1);
    g << from_position.q(), from_velocity.q(), from_position.v(), from_velocity.v();
    return g;
}

Eigen::Vector2cd eigenvalues(const Eigen::Matrix2d& g) { return Eigen::EigenSolver<Eigen::Matrix2d>(g).eigenvalues(); }

}  // namespace

TEST_CASE("implicit Euler: spectral radius 1/sqrt(1 + (omega h)^2), energy 1/(1 + (omega h)^2) per step",
          "[integrators][implicit_euler]") {
    const double r = kOmega * kStep;
    const double rho = 1.0 / std::sqrt(1.0 + r * r);
    CHECK(rho == Approx(0.9950371902).epsilon(1e-9));  // the brief's number, from the closed form

    const Eigen::Vector2cd lambda = eigenvalues(amplification_matrix(implicit_euler(), kStep));
    CHECK(std::abs(lambda[0]) == Approx(rho).epsilon(1e-12));
    CHECK(std::abs(lambda[1]) == Approx(rho).epsilon(1e-12));
    // A complex pair: the oscillation is kept (turned by phi per step), only damped.
    CHECK(std::abs(std::arg(lambda[0])) == Approx(std::atan(r)).epsilon(1e-12));

    const LinearOscillatorSystem system = run(implicit_euler(), 1.0, 0.0, kStep, 100);
    const double initial_energy = 0.5 * kStiffness;
    CHECK(system.energy() / initial_energy == Approx(std::pow(1.0 + r * r, -100.0)).epsilon(1e-12));
    CHECK(system.energy() / initial_energy == Approx(0.369711212329119).epsilon(1e-12));
    CHECK(system.q() == Approx(std::pow(rho, 100) * std::cos(100 * std::atan(r))).epsilon(1e-12));
}

TEST_CASE("implicit midpoint and Newmark (1/4, 1/2): the trapezoidal rule, energy-conserving, "
          "tan(omega' h/2) = omega h/2",
          "[integrators][implicit_midpoint][newmark]") {
    const double r = kOmega * kStep;
    const double theta = 2.0 * std::atan(0.5 * r);  // turn per step: omega' h
    CHECK(r / theta == Approx(1.000832779).epsilon(1e-9));  // period ratio ~ 1 + r^2/12

    for (const NamedIntegrator& integrator : {implicit_midpoint(), newmark()}) {
        DYNAMIC_SECTION(integrator.name) {
            const Eigen::Vector2cd lambda = eigenvalues(amplification_matrix(integrator, kStep));
            CHECK(std::abs(lambda[0]) == Approx(1.0).epsilon(1e-14));
            CHECK(std::abs(lambda[1]) == Approx(1.0).epsilon(1e-14));
            const double turn = std::abs(std::arg(lambda[0]));
            CHECK(std::tan(0.5 * turn) == Approx(0.5 * r).epsilon(1e-12));
            // Numerical period 2 pi h / turn against the exact 2 pi / omega.
            CHECK((2.0 * M_PI * kStep / turn) / (2.0 * M_PI / kOmega) == Approx(r / theta).epsilon(1e-12));

            // 1000 steps (~16 periods): no energy lost or gained beyond round-off, and the
            // trajectory is the rotation by theta per step.
            const long steps = 1000;
            const LinearOscillatorSystem system = run(integrator, 1.0, 0.0, kStep, steps);
            CHECK(std::abs(system.energy() / (0.5 * kStiffness) - 1.0) < 1e-12);
            CHECK(system.q() == Approx(std::cos(steps * theta)).margin(1e-12));
            CHECK(system.v() == Approx(-kOmega * std::sin(steps * theta)).margin(1e-11));  // |v| <= omega
        }
    }
}

TEST_CASE("position error: second order for midpoint and Newmark, first order for implicit Euler",
          "[integrators][convergence]") {
    // Error of q at T = 0.5 s (omega T = 5 rad, away from zeros of sin and cos) against cos(omega T),
    // for h = 0.01, 0.005, 0.0025. Observed order log2(e(h)/e(h/2)) = p + O(omega h): from the
    // closed forms it is 1.024 and 1.023 for implicit Euler (its amplitude error rho^n dominates)
    // and 1.9990, 1.9998 for the trapezoidal rule; 0.05 bounds the departure from p at these h.
    const double end = 0.5;
    struct Case {
        NamedIntegrator integrator;
        int order;
        std::function<double(double h, long n)> closed_form;  // q_n from q0 = 1, v0 = 0
    };
    const std::vector<Case> cases = {
        {implicit_euler(), 1,
         [](double h, long n) {
             const double r = kOmega * h;
             return std::pow(1.0 + r * r, -0.5 * n) * std::cos(n * std::atan(r));
         }},
        {implicit_midpoint(), 2, [](double h, long n) { return std::cos(n * 2.0 * std::atan(0.5 * kOmega * h)); }},
        {newmark(), 2, [](double h, long n) { return std::cos(n * 2.0 * std::atan(0.5 * kOmega * h)); }},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.integrator.name) {
            std::vector<double> errors;
            for (const double h : {kStep, kStep / 2, kStep / 4}) {
                const long steps = std::lround(end / h);
                const LinearOscillatorSystem system = run(c.integrator, 1.0, 0.0, h, steps);
                CHECK(system.q() == Approx(c.closed_form(h, steps)).margin(1e-12));
                errors.push_back(std::abs(system.q() - std::cos(kOmega * end)));
            }
            for (std::size_t i = 0; i + 1 < errors.size(); ++i) {
                const double observed = std::log2(errors[i] / errors[i + 1]);
                CAPTURE(i, errors[i], errors[i + 1]);
                CHECK(observed == Approx(c.order).margin(0.05));
            }
        }
    }
}

TEST_CASE("Newmark with gamma > 1/2 damps the oscillator", "[integrators][newmark]") {
    // gamma > 1/2 adds numerical damping (the schema's doc); beta = (gamma + 1/2)^2 / 4 keeps it
    // unconditionally stable. Newmark's characteristic polynomial on the undamped oscillator
    // (Hughes, The Finite Element Method, §9.1) is lambda^2 - 2 A1 lambda + A2 = 0 with
    // A2 = 1 - r^2 (gamma - 1/2)/(1 + beta r^2), r = omega h; for the complex pair of these
    // parameters |lambda| = sqrt(A2) = 0.99950 (and 1 for gamma = 1/2, as above).
    const double gamma = 0.6, beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
    const double r = kOmega * kStep;
    const double rho = std::sqrt(1.0 - r * r * (gamma - 0.5) / (1.0 + beta * r * r));
    const Eigen::Vector2cd lambda = eigenvalues(amplification_matrix(newmark(beta, gamma), kStep));
    CHECK(std::abs(lambda[0]) == Approx(rho).epsilon(1e-12));
    CHECK(std::abs(lambda[1]) == Approx(rho).epsilon(1e-12));
    CHECK(rho < 1.0 - 1e-4);

    const LinearOscillatorSystem system = run(newmark(beta, gamma), 1.0, 0.0, kStep, 100);
    CHECK(system.energy() < 0.95 * 0.5 * kStiffness);  // 0.909 of the initial energy after 100 steps

    // The damping costs an order: the position error at T = 0.5 s against cos(omega T) falls
    // like h. The observed order approaches 1 as O(h) (the phase error of beta != 1/4 is second
    // order): 1.18 for h = 0.01 -> 0.005 and 1.10 for 0.005 -> 0.0025 (same recursion evaluated
    // independently); 0.15 at the finer pair separates it from 1 and clearly from 2.
    std::vector<double> errors;
    for (const double h : {kStep, kStep / 2, kStep / 4}) {
        const LinearOscillatorSystem damped = run(newmark(beta, gamma), 1.0, 0.0, h, std::lround(0.5 / h));
        errors.push_back(std::abs(damped.q() - std::cos(kOmega * 0.5)));
    }
    CHECK(std::log2(errors[0] / errors[1]) == Approx(1.183).margin(0.01));
    CHECK(std::log2(errors[1] / errors[2]) == Approx(1.0).margin(0.15));
}

TEST_CASE("damps_unresolved_modes() says what the spectral radius at omega h = 1000 shows", "[integrators]") {
    // The kernel notes scenes that pair penalty contact with an integrator that does not damp
    // unresolved modes (Integrator::damps_unresolved_modes). Radii at r = 1000 from the closed
    // forms: implicit Euler 1/sqrt(1 + r^2) = 1e-3; the trapezoidal rule 1; Newmark (0.3025, 0.6)
    // sqrt(1 - (gamma - 1/2)/beta) -> 0.818 (its eigenvalues stay a complex pair because
    // beta = (gamma + 1/2)^2/4). 0.99 separates damping from none with a wide margin.
    const double h = 1000.0 / kOmega;
    const double gamma = 0.6, beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
    for (const NamedIntegrator& integrator : {implicit_euler(), implicit_midpoint(), newmark(), newmark(beta, gamma)}) {
        const Eigen::Vector2cd lambda = eigenvalues(amplification_matrix(integrator, h));
        const double radius = std::max(std::abs(lambda[0]), std::abs(lambda[1]));
        INFO(integrator.name << ": spectral radius " << radius);
        CHECK(integrator.make()->damps_unresolved_modes() == (radius < 0.99));
        if (integrator.make()->damps_unresolved_modes()) CHECK(radius < 0.82);
        else CHECK(radius == Approx(1.0).epsilon(1e-10));
    }
}
