// Rigid-body throughput (issue 7, docs/performance.md): 100 boxes (10 x 10 grid, small random
// tilts, fixed seed) dropped from 5 to 10 cm onto a floor with friction, implicit Euler,
// dt = 1e-3, 1 s (the drop, the impacts and the settling), with the friction law's slip velocity
// 1e-3 and 1e-4 m/s (the benchmark's argument k: 10^-k). Reported: milliseconds per step, Newton
// iterations per step, and the split between assembly, factorization and solve.
#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"
#include "time_loop.hpp"
#include "type_registry.hpp"

#include "soma/rotation.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <random>

namespace {

using namespace soma;

/// The scene: `count` x `count` boxes of 10 x 8 x 6 cm at 1000 kg/m^3 on a 0.25 m grid.
std::string box_grid_scene(int count, double duration, double slip_velocity) {
    std::mt19937 random(7);
    std::uniform_real_distribution<double> tilt(-0.3, 0.3);
    std::uniform_real_distribution<double> drop(0.05, 0.1);
    std::string elements;
    for (int i = 0; i < count; ++i)
        for (int j = 0; j < count; ++j) {
            const double a = tilt(random), b = tilt(random), c = tilt(random);
            const Quaternion q = rotation_exp(Vec3(a, b, c));
            elements += fmt::format(
                "  - {{name: box_{}_{}, type: rigid_body, position: [{}, {}, {}], orientation: [{:.17g}, {:.17g}, "
                "{:.17g}, {:.17g}], shape: {{box: {{size: [0.1, 0.08, 0.06]}}}}, density: 1000}}\n",
                i, j, 0.25 * i, 0.25 * j, 0.06 + drop(random), q.w(), q.x(), q.y(), q.z());
        }
    return fmt::format(R"(
simulation: {{duration: {}}}
integrator: {{type: implicit_euler, dt: 1.0e-3, newton: {{absolute_tolerance: 1.0e-8}}}}
elements:
{}forces:
  - {{type: gravity}}
  - {{type: floor_contact, height: 0, stiffness: 1.0e5, band: 1.0e-3, friction: 0.5, slip_velocity: {}}}
)",
                       duration, elements, slip_velocity);
}

void boxes_on_floor(benchmark::State& state) {
    const std::string scene = box_grid_scene(10, 1.0, std::pow(10.0, -static_cast<double>(state.range(0))));
    for (auto _ : state) {
        state.PauseTiming();
        Simulation sim(load_scene_text(scene, "bench.yaml"), builtin_registry());
        RunOptions options;
        options.output_directory = std::filesystem::temp_directory_path() / "soma-bench";
        options.progress = false;
        state.ResumeTiming();
        const RunResult result = run_simulation(sim, options);
        state.PauseTiming();
        const auto steps = static_cast<double>(result.summary.steps);
        state.counters["steps"] = steps;
        state.counters["retries"] = static_cast<double>(result.summary.retries);
        state.counters["ms_per_step"] = 1e3 * result.summary.wall_seconds / steps;
        state.counters["newton_per_step"] = static_cast<double>(result.summary.newton_iterations) / steps;
        state.counters["assembly_s"] = result.assembly_seconds;
        state.counters["factorization_s"] = result.factorization_seconds;
        state.counters["solve_s"] = result.solve_seconds;
        state.counters["dofs"] = static_cast<double>(sim.dof_count());
        state.ResumeTiming();
    }
}

}  // namespace

BENCHMARK(boxes_on_floor)->Arg(3)->Arg(4)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_MAIN();
