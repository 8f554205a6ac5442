// Runs always end (issue 8, item 1): a dt the clock cannot resolve is refused when the scene is
// built, and retries that shrink the step below the smallest useful step stop the run with a
// diagnosis instead of repeating the same state forever.
#include "scene_runner.hpp"

#include "soma/parameters.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::validation;
using Catch::Matchers::Contains;

namespace {

std::string cantilever(const std::string& simulation, const std::string& integrator) {
    return "simulation: " + simulation + "\nintegrator: " + integrator + R"(
elements:
  - name: beam
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 11}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}
    fixed: {nodes: [0, 1], edges: [0]}
forces:
  - {type: gravity, acceleration: [0, 0, -9.81]}
)";
}

}  // namespace

TEST_CASE("a dt that cannot advance the start time is refused at its key", "[termination]") {
    // At t = 1e6 s a double resolves about 1.2e-10 s: t + 1e-11 == t, so the run would repeat its
    // first state forever. 1000 ulp(1e6) = 1.16e-7 s is the smallest step allowed there.
    const std::string scene = cantilever("{start_time: 1.0e6, duration: 1.0e-3}", "{type: implicit_euler, dt: 1.0e-11}");
    CHECK_THROWS_WITH(build_scene(scene),
                      Contains("test.yaml:2:") && Contains("integrator.dt") && Contains("cannot advance the clock"));
    // The same dt near t = 0 is a valid (if small) step, and 1e-6 s is resolved at t = 1e6 s.
    CHECK_NOTHROW(build_scene(cantilever("{duration: 1.0e-9}", "{type: implicit_euler, dt: 1.0e-11}")));
    CHECK_NOTHROW(build_scene(cantilever("{start_time: 1.0e6, duration: 1.0e-5}", "{type: implicit_euler, dt: 1.0e-6}")));
}

TEST_CASE("retries that shrink dt below the smallest step stop the run with the diagnosis", "[termination]") {
    // One Newton iteration can never meet the tolerance of this nonlinear static problem, and
    // statics does not get easier with a smaller step: every attempt fails. With shrink 0.02 the
    // sixth retry would ask for 0.02^6 = 6.4e-11 of dt, below the floor of 1e-10 dt (the fifth,
    // 3.2e-9, is above it), long before max_retries (50).
    const std::string scene = cantilever(
        "{duration: 1.0}", "{type: statics, dt: 0.5, newton: {max_iterations: 1, balance_tolerance: 1.0e-14}, "
                           "adaptive: {shrink: 0.02, max_retries: 50}}");
    auto simulation = build_scene(scene);
    RunOptions options;
    options.progress = false;
    options.output_directory = std::filesystem::temp_directory_path() / "soma_termination_test";
    const RunResult result = run_simulation(*simulation, options);
    CHECK_FALSE(result.summary.completed);
    CHECK(result.summary.steps == 0);
    CHECK(result.summary.retries == 6);
    CHECK_THAT(result.diagnosis, Contains("below the smallest step") && Contains("cannot make progress"));
}

TEST_CASE("an explicit step above its stability limit stops with the limit in the diagnosis", "[termination][explicit]") {
    // The cantilever's highest bending mode (11 nodes, 1 cm segments, E = 2 MPa) has omega_max of
    // order 1e4 rad/s: dt = 1 ms is far above 2/omega_max, the state grows without bound, and the
    // run stops once it is no longer finite, saying why. 1e-6 s is below the limit and runs.
    for (const std::string integrator : {"symplectic_euler", "bridson_marino"}) {
        INFO(integrator);
        auto simulation = build_scene(cantilever("{duration: 0.2}", "{type: " + integrator + ", dt: 1.0e-3}"));
        RunOptions options;
        options.progress = false;
        options.output_directory = std::filesystem::temp_directory_path() / "soma_termination_test";
        const RunResult result = run_simulation(*simulation, options);
        CHECK_FALSE(result.summary.completed);
        CHECK_THAT(result.diagnosis, Contains("not finite") && Contains("stable only for dt < 2/omega_max"));
        auto stable = build_scene(cantilever("{duration: 1.0e-3}", "{type: " + integrator + ", dt: 1.0e-6}"));
        CHECK(run_simulation(*stable, options).summary.completed);
    }
}
