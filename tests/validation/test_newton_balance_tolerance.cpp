// Validation: Newton's balance test (kernel/newton_convergence.hpp), the default convergence test.
//
// The balance test stops when |F_free| <= balance_tolerance |S|, S_i the sum of |terms| in row i
// (inertia, each element's and force's part): the residual is small against the forces that
// cancel in it, whatever their units and size. Three properties:
// (a) Scale: a micro-cantilever (100 um, weight 2.4e-11 N) in statics. Its whole residual is far
//     below an absolute 1e-8 N, so a scene with absolute_tolerance 1e-8 alone accepts the
//     undeflected rod (0 iterations): the absolute test written for metre-sized rods is meaningless
//     here. The balance test iterates and lands on the discrete Euler-Bernoulli deflection,
//     delta_EB (1 + 1/n)^2 with n free edges (test_cantilever_static.cpp derives it), to 1e-6
//     relative (the linear regime: delta/L = 1.3e-4, so geometric nonlinearity is ~2e-8; the
//     tolerance 3e-8 of the forces bounds the error of the deflection by about the same relative
//     amount times the conditioning of the clamped beam, well below 1e-6 for 51 nodes).
// (b) Where the absolute test keeps iterating: the hanging helix of issue 7 (101 nodes, rod
//     radius 5 mm, E = 10 MPa, undamped, dt = 5 ms; test_second_order_convergence.cpp) over 4 s.
//     With default settings: every solve ends with |F| <= 3e-8 |S|, at most 3 Newton iterations
//     per step on average, no retry; the free end's trajectory agrees with a tightly converged
//     run (absolute 1e-10 N alone) to 1e-6 m at every step, while the time discretization error
//     (dt against dt/2, measured ~4e-3 m) is more than 1000x larger: the iterations the
//     absolute 1e-8 N test adds change nothing the step size resolves.
// (c) Backward compatibility: a scene that writes absolute_tolerance alone keeps the absolute
//     test alone (the balance test off); with both written, either converges.
#include "recording_system.hpp"
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

// Micro-cantilever: the static cantilever of test_cantilever_static.cpp scaled by 1e-3 in
// length (0.1 mm, clamp x <= 0.01 mm, section 20 um x 1 um), a polymer (E = 100 MPa), rho = 1200.
constexpr double kRho = 1200.0, kG = 9.81, kE = 1e8, kWidth = 2e-5, kThickness = 1e-6;
constexpr double kLength = 1e-4, kFreeLength = 0.9 * kLength;
constexpr int kNodes = 51;  // 50 edges, 5 in the clamp: n = 45 free edges

std::string micro_cantilever(const std::string& newton) {
    std::string fixed_nodes = "0, 1, 2, 3, 4, 5", fixed_edges = "0, 1, 2, 3, 4";
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: statics, dt: 0.2, ramp_time: 1.0" + newton + "}\n"
           "linear_solver: {type: eigen_ldlt}\n"
           "elements:\n"
           "  - name: beam\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0, 0, 0], to: [" + num(kLength) + ", 0, 0], nodes: " + std::to_string(kNodes) + "}}\n"
           "    cross_section: {rectangle: {width: " + num(kWidth) + ", height: " + num(kThickness) + "}}\n"
           "    material: {density: " + num(kRho) + ", youngs_modulus: " + num(kE) + ", poisson_ratio: 0.5}\n"
           "    fixed: {nodes: [" + fixed_nodes + "], edges: [" + fixed_edges + "]}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, " + num(-kG) + "]}\n";
}

}  // namespace

TEST_CASE("balance test (a): a micro-cantilever converges where an absolute 1e-8 N accepts the unloaded rod",
          "[validation][newton]") {
    const double q = kRho * kG * kWidth * kThickness;          // N/m
    const double EI = kE * kWidth * std::pow(kThickness, 3) / 12.0;
    const double n = 45.0;
    const double expected = q * std::pow(kFreeLength, 4) / (8.0 * EI) * (1.0 + 1.0 / n) * (1.0 + 1.0 / n);

    auto balance = build_scene(micro_cantilever(""));
    const RunResult balanced = run_to_end(*balance);
    const double deflection = -node_position(*balance, "beam", -1).z();
    INFO("deflection " << deflection << " m, discrete Euler-Bernoulli " << expected << " m");
    CHECK(balanced.summary.newton_iterations > 0);
    CHECK(deflection == Approx(expected).epsilon(1e-6));

    auto absolute = build_scene(micro_cantilever(", newton: {absolute_tolerance: 1.0e-8}"));
    const RunResult absolute_run = run_to_end(*absolute);
    CHECK(absolute_run.summary.newton_iterations == 0);
    CHECK(node_position(*absolute, "beam", -1).z() == 0.0);  // never moved
}

TEST_CASE("balance test (b): the helix stops at 3e-8 of its forces, with the trajectory of a tight run",
          "[validation][newton][integrators]") {
    const std::string integrator = GENERATE(std::string("implicit_midpoint"), std::string("newmark"));
    INFO(integrator);
    constexpr double kDt = 5e-3;
    constexpr int kSteps = 800;  // 4 s
    auto loose = build_scene(hanging_helix_scene(integrator, 4.0, "5.0e-3", ""));
    auto tight = build_scene(hanging_helix_scene(integrator, 4.0, "5.0e-3", ", newton: {absolute_tolerance: 1.0e-10, relative_tolerance: 0}"));
    auto fine = build_scene(hanging_helix_scene(integrator, 4.0, "2.5e-3", ", newton: {absolute_tolerance: 1.0e-10, relative_tolerance: 0}"));
    REQUIRE(loose->newton_options().balance_tolerance == 3e-8);
    REQUIRE(loose->newton_options().absolute_tolerance == 0.0);
    RecordingSystem recorder(*loose, loose->newton_options());
    int iterations = 0;
    double newton_error = 0.0, discretization_error = 0.0, worst_balance = 0.0;
    for (int step = 0; step < kSteps; ++step) {
        loose->begin_attempt();
        recorder.solves.clear();
        const StepReport report = loose->integrator().step(recorder, kDt);
        REQUIRE(report.converged);  // no retry needed
        iterations += report.newton_iterations;
        for (const auto& solve : recorder.solves) worst_balance = std::max(worst_balance, solve.back().normwise);
        REQUIRE(step_once(*tight, kDt));
        REQUIRE(step_once(*fine, kDt / 2));
        REQUIRE(step_once(*fine, kDt / 2));
        const Vec3 reference = node_position(*tight, "helix", 0);
        newton_error = std::max(newton_error, (node_position(*loose, "helix", 0) - reference).norm());
        discretization_error = std::max(discretization_error, (node_position(*fine, "helix", 0) - reference).norm());
    }
    const double mean = static_cast<double>(iterations) / kSteps;
    INFO("mean " << mean << ", largest |F|/|S| at a solution " << worst_balance << ", Newton error " << newton_error
                 << " m, discretization error " << discretization_error << " m");
    CHECK(worst_balance <= 3e-8);
    CHECK(mean <= 3.0);
    CHECK(newton_error < 1e-6);
    CHECK(discretization_error > 1000.0 * newton_error);
}

TEST_CASE("balance test (c): absolute_tolerance alone keeps the absolute test; both written, both apply",
          "[validation][newton]") {
    const auto options = [](const std::string& newton) {
        return build_scene(micro_cantilever(newton))->newton_options();
    };
    const NewtonOptions defaults = options("");
    CHECK(defaults.absolute_tolerance == 0.0);
    CHECK(defaults.balance_tolerance == 3e-8);
    const NewtonOptions absolute = options(", newton: {absolute_tolerance: 1.0e-8}");
    CHECK(absolute.absolute_tolerance == 1e-8);
    CHECK(absolute.balance_tolerance == 0.0);
    const NewtonOptions both = options(", newton: {absolute_tolerance: 1.0e-8, balance_tolerance: 1.0e-6}");
    CHECK(both.absolute_tolerance == 1e-8);
    CHECK(both.balance_tolerance == 1e-6);
    const NewtonOptions balance = options(", newton: {balance_tolerance: 1.0e-6}");
    CHECK(balance.absolute_tolerance == 0.0);
    CHECK(balance.balance_tolerance == 1e-6);

    // Behaviour, on the helix's first 0.5 s: the scene's absolute-only options end every solve
    // at |F| <= 1e-8 N (or the round-off test), and the default ones at |F| <= 3e-8 |S|.
    for (const bool written : {true, false}) {
        auto sim = build_scene(hanging_helix_scene("implicit_midpoint", 4.0, "5.0e-3", written ? ", newton: {absolute_tolerance: 1.0e-8}" : ""));
        RecordingSystem recorder(*sim, sim->newton_options());
        double largest_force = 0.0, largest_balance = 0.0;
        for (int step = 0; step < 100; ++step) {
            sim->begin_attempt();
            recorder.solves.clear();
            REQUIRE(sim->integrator().step(recorder, 5e-3).converged);
            for (const auto& solve : recorder.solves) {
                largest_force = std::max(largest_force, solve.back().force_norm);
                largest_balance = std::max(largest_balance, solve.back().normwise);
            }
        }
        INFO((written ? "absolute_tolerance 1e-8 written: " : "defaults: ") << "largest |F| " << largest_force
                                                                              << " N, largest |F|/|S| " << largest_balance);
        if (written) {
            CHECK(largest_force <= 1e-8);
        } else {
            CHECK(largest_balance <= 3e-8);
            CHECK(largest_force > 1e-8);  // some solve stopped where the absolute test would go on
        }
    }
}
