// Discrete-rod throughput (issue 2, docs/performance.md):
//   - a straight rod clamped at one end under gravity, implicit Euler, dt = 1e-3, 500 steps,
//     at 51, 201, 801 and 3201 nodes;
//   - a helix of ~100 nodes hanging under gravity for 10 s at dt = 5e-3;
//   - the thicker, undamped helix of issue 7 under implicit Euler, implicit midpoint and Newmark,
//     with the default (balance) and the former (absolute 1e-8 N) Newton test (Newton iterations
//     per step and retries).
// Reported per run: wall time, Newton iterations, microseconds per Newton iteration per node,
// and the split between assembly, factorization and solve.
#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"
#include "time_loop.hpp"
#include "type_registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <filesystem>

namespace {

using namespace soma;

const TypeRegistry& registry() { return builtin_registry(); }

void report(benchmark::State& state, const Simulation& sim, const RunResult& result, double nodes) {
    const double iterations = static_cast<double>(result.summary.newton_iterations);
    state.counters["newton_iterations"] = iterations;
    state.counters["wall_s"] = result.summary.wall_seconds;
    state.counters["us_per_iter_per_node"] = 1e6 * result.summary.wall_seconds / (iterations * nodes);
    state.counters["assembly_s"] = result.assembly_seconds;
    state.counters["factorization_s"] = result.factorization_seconds;
    state.counters["solve_s"] = result.solve_seconds;
    state.counters["dofs"] = static_cast<double>(sim.dof_count());
}

RunResult run(Simulation& sim) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-bench";
    options.progress = false;
    return run_simulation(sim, options);
}

/// Builds the scene outside the timed region, runs it to its end inside.
void run_scene(benchmark::State& state, const std::string& scene, double nodes) {
    for (auto _ : state) {
        state.PauseTiming();
        Simulation sim(load_scene_text(scene, "bench.yaml"), registry());
        state.ResumeTiming();
        const RunResult result = run(sim);
        state.PauseTiming();
        report(state, sim, result, nodes);
        state.ResumeTiming();
    }
}

void straight_rod(benchmark::State& state) {
    const long nodes = state.range(0);
    const std::string solver = state.range(1) == 0 ? "eigen_ldlt" : "cholmod";
    const std::string scene = fmt::format(R"(
simulation: {{duration: 0.5}}
integrator: {{type: implicit_euler, dt: 1.0e-3, newton: {{absolute_tolerance: 1.0e-8, relative_tolerance: 1.0e-10}}}}
linear_solver: {{type: {}}}
elements:
  - name: rod
    type: discrete_rod
    geometry: {{line: {{from: [0, 0, 0], to: [1.0, 0, 0], nodes: {}}}}}
    cross_section: {{circle: {{radius: 1.0e-2}}}}
    material: {{density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.5}}
    fixed: {{nodes: [0, 1], edges: [0]}}
forces:
  - {{type: gravity, acceleration: [0, 0, -9.81]}}
)", solver, nodes);
    run_scene(state, scene, static_cast<double>(nodes));
}

void hanging_helix(benchmark::State& state) {
    const std::string scene = R"(
simulation: {duration: 10.0}
integrator: {type: implicit_euler, dt: 5.0e-3, newton: {absolute_tolerance: 1.0e-8, relative_tolerance: 1.0e-10}}
elements:
  - name: helix
    type: discrete_rod
    geometry: {helix: {radius: 0.02, pitch: 0.01, turns: 4, nodes: 101}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 1.0e7, poisson_ratio: 0.5}
    fixed: {nodes: [-1, -2], edges: [-1]}
forces:
  - {type: gravity, acceleration: [0, 0, -9.81]}
  - {type: viscous_drag, viscosity: 0.01}
)";
    run_scene(state, scene, 101.0);
}

/// The helix of issue 7: rod radius 5 mm, undamped, one run per integrator (first argument:
/// 0 implicit_euler, 1 implicit_midpoint, 2 newmark) and Newton convergence test (second: 0 the
/// default balance test, 1 absolute_tolerance 1e-8 N alone, the former default); reports
/// iterations per step.
void hanging_helix_integrators(benchmark::State& state) {
    static const char* names[] = {"implicit_euler", "implicit_midpoint", "newmark"};
    const bool absolute = state.range(1) == 1;
    const std::string scene = fmt::format(R"(
simulation: {{duration: 10.0}}
integrator: {{type: {}, dt: 5.0e-3{}}}
elements:
  - name: helix
    type: discrete_rod
    geometry: {{helix: {{radius: 0.02, pitch: 0.01, turns: 4, nodes: 101}}}}
    cross_section: {{circle: {{radius: 5.0e-3}}}}
    material: {{density: 1200, youngs_modulus: 1.0e7, poisson_ratio: 0.5}}
    fixed: {{nodes: [-1, -2], edges: [-1]}}
forces:
  - {{type: gravity, acceleration: [0, 0, -9.81]}}
)", names[state.range(0)], absolute ? ", newton: {absolute_tolerance: 1.0e-8}" : "");
    for (auto _ : state) {
        state.PauseTiming();
        Simulation sim(load_scene_text(scene, "bench.yaml"), registry());
        state.ResumeTiming();
        const RunResult result = run(sim);
        state.PauseTiming();
        report(state, sim, result, 101.0);
        state.counters["iterations_per_step"] = static_cast<double>(result.summary.newton_iterations) /
                                                static_cast<double>(result.summary.steps);
        state.counters["retries"] = static_cast<double>(result.summary.retries);
        state.ResumeTiming();
    }
    state.SetLabel(fmt::format("{}, {}", names[state.range(0)], absolute ? "absolute 1e-8 N" : "balance 3e-8"));
}

}  // namespace

BENCHMARK(hanging_helix_integrators)->ArgsProduct({{0, 1, 2}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(straight_rod)->ArgsProduct({{51, 201, 801, 3201}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(hanging_helix)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
