// Thin-shell throughput (issue 3, docs/performance.md "Shells (issue 3)"):
//   a 1 m x 1 m plate (h = 1 mm, E = 100 MPa, nu = 0.3, rho = 1000) meshed by the `rectangle`
//   generator with near-equilateral triangles (edge length 15.2 mm: 9,956 triangles; 7.6 mm:
//   39,976 triangles), clamped along its straight side y = 0 (the first two rows of nodes, and
//   for the mid-edge model the xi of the edges inside the clamp), hanging under gravity;
//   implicit Euler, dt = 1e-3, a fixed number of steps (kShellSteps).
// Models: hinge_shell, midedge_shell. Linear solvers: eigen_ldlt, cholmod, petsc (cg + icc),
// petsc (cg + gamg, 10k only).
// shell_assembly: the element's add_residual_and_jacobian alone (minimum of 5 repetitions).
// Reported per run: Newton iterations, microseconds per Newton iteration (total, assembly,
// factorization, solve), nanoseconds per Newton iteration per triangle, and the evaluations
// (Jacobian + residual-only trial points) per iteration.
#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"
#include "sparse_assembler.hpp"
#include "time_loop.hpp"
#include "type_registry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <algorithm>
#include <filesystem>
#include <vector>
#include <stdexcept>

namespace {

using namespace soma;

constexpr int kShellSteps = 5;  // dt = 1e-3, so 5 ms of simulated time (~10 Newton iterations)

const TypeRegistry& registry() { return builtin_registry(); }

/// Target edge lengths: a 1 m square meshed with edge a has about 4 / (sqrt(3) a^2) triangles.
double edge_length(long size_index) { return size_index == 0 ? 0.0152 : 0.0076; }

const char* model_name(long model) { return model == 0 ? "hinge_shell" : "midedge_shell"; }

std::string solver_block(long solver) {
    switch (solver) {
        case 0: return "{type: eigen_ldlt}";
        case 1: return "{type: cholmod}";
        case 2: return "{type: petsc, ksp_type: cg, pc_type: icc, rtol: 1.0e-10}";
        case 3: return "{type: petsc, ksp_type: cg, pc_type: gamg, rtol: 1.0e-10}";
    }
    throw std::invalid_argument("unknown solver index");
}

const char* solver_label(long solver) {
    switch (solver) {
        case 0: return "eigen_ldlt";
        case 1: return "cholmod";
        case 2: return "petsc_cg_icc";
        case 3: return "petsc_cg_gamg";
    }
    return "?";
}

std::string plate_scene(long model, long size_index, long solver) {
    const double a = edge_length(size_index);
    // The rows of nodes run along x, so the side y = 0 is straight; the box takes rows 0 and 1
    // (row spacing ~ a sqrt(3)/2), which clamps the plate's rotation about x for both models.
    const double clamp_y = 1.3 * a;
    return fmt::format(R"(
simulation: {{duration: {duration}}}
integrator: {{type: implicit_euler, dt: 1.0e-3, newton: {{absolute_tolerance: 1.0e-8, relative_tolerance: 1.0e-8}},
             adaptive: {{enabled: false}}}}
linear_solver: {solver}
elements:
  - name: plate
    type: {model}
    mesh: {{rectangle: {{size: [1.0, 1.0], edge_length: {a}}}}}
    thickness: 1.0e-3
    material: {{density: 1000, youngs_modulus: 1.0e8, poisson_ratio: 0.3}}
    fixed: {{box: {{min: [-0.1, -0.1, -0.1], max: [1.1, {clamp_y}, 0.1]}}}}
forces:
  - {{type: gravity, acceleration: [0, 0, -9.81]}}
)",
                       fmt::arg("duration", kShellSteps * 1.0e-3), fmt::arg("solver", solver_block(solver)),
                       fmt::arg("model", model_name(model)), fmt::arg("a", a), fmt::arg("clamp_y", clamp_y));
}

std::size_t triangle_count(const Simulation& sim) {
    std::size_t triangles = 0;
    for (const Element* element : sim.elements()) triangles += element->geometry().triangles.size();
    return triangles;
}

void report(benchmark::State& state, const Simulation& sim, const RunResult& result, double cpu_seconds) {
    const double iterations = static_cast<double>(result.summary.newton_iterations);
    const double triangles = static_cast<double>(triangle_count(sim));
    const double us = 1e6 / iterations;
    state.counters["triangles"] = triangles;
    state.counters["dofs"] = static_cast<double>(sim.dof_count());
    state.counters["free_dofs"] = static_cast<double>(sim.free_dof_count());
    state.counters["steps"] = static_cast<double>(result.summary.steps);
    state.counters["newton_its"] = iterations;
    state.counters["evals_per_it"] = static_cast<double>(sim.timings().evaluations) / iterations;
    state.counters["wall_s"] = result.summary.wall_seconds;
    // Process CPU time of the run (all threads): cpu_s / wall_s < 1 means the process waited
    // for a core on a loaded machine, and every wall-clock figure is an upper bound.
    state.counters["cpu_s"] = cpu_seconds;
    state.counters["us_per_it"] = us * result.summary.wall_seconds;
    state.counters["asm_us_per_it"] = us * result.assembly_seconds;
    state.counters["fact_us_per_it"] = us * result.factorization_seconds;
    state.counters["solve_us_per_it"] = us * result.solve_seconds;
    state.counters["ns_per_it_per_tri"] = 1e3 * us * result.summary.wall_seconds / triangles;
    state.counters["asm_ns_per_it_per_tri"] = 1e3 * us * result.assembly_seconds / triangles;
    if (!result.summary.completed) state.SkipWithError(("run stopped: " + result.diagnosis).c_str());
}

RunResult run(Simulation& sim) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-bench";
    options.progress = false;
    return run_simulation(sim, options);
}

/// range(0): 0 = hinge_shell, 1 = midedge_shell; range(1): 0 = ~10k, 1 = ~40k triangles;
/// range(2): solver (solver_block). The scene is built outside the timed region.
void shell_plate(benchmark::State& state) {
    const long model = state.range(0), size_index = state.range(1), solver = state.range(2);
    state.SetLabel(fmt::format("{} {}", model_name(model), solver_label(solver)));
    const std::string scene = plate_scene(model, size_index, solver);
    for (auto _ : state) {
        state.PauseTiming();
        Simulation sim(load_scene_text(scene, "bench.yaml"), registry());
        state.ResumeTiming();
        const std::clock_t cpu_start = std::clock();
        const RunResult result = run(sim);
        const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        state.PauseTiming();
        report(state, sim, result, cpu_seconds);
        state.ResumeTiming();
    }
}

/// Assembly alone, free of the loaded machine's noise (report the minimum over repetitions):
/// the plate element's add_residual_and_jacobian into a private SparseAssembler holding only its
/// stencils (all DOFs free), at a gently curved state (z = 1 cm sin(pi x) sin(pi y), so that
/// no bending term is at its flat-plate special case), with implicit Euler's coefficients.
/// range(0): model; range(1): size; range(2): 1 = residual + Jacobian, 0 = residual only.
void shell_assembly(benchmark::State& state) {
    const long model = state.range(0), size_index = state.range(1);
    const bool with_jacobian = state.range(2) != 0;
    state.SetLabel(fmt::format("{} {}", model_name(model), with_jacobian ? "residual+jacobian" : "residual"));
    Simulation sim(load_scene_text(plate_scene(model, size_index, 0), "bench.yaml"), registry());
    Element* plate = sim.find_element("plate");
    const auto triangles = static_cast<double>(plate->geometry().triangles.size());

    SparseAssembler assembler;
    plate->declare_pattern(assembler);  // re-numbers the element's stencils into `assembler`
    const Index n = sim.dof_count();
    std::vector<Index> free_index(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) free_index[static_cast<std::size_t>(i)] = i;
    assembler.build(free_index, n);

    State start = sim.state();
    const double pi = 3.14159265358979323846;
    for (const auto& dofs : plate->geometry().point_dofs) {
        const double x = start.q[dofs[0]], y = start.q[dofs[1]];
        start.q[dofs[2]] += 0.01 * std::sin(pi * x) * std::sin(pi * y);
    }
    plate->begin_step(start);
    const VectorX q = start.q, v = VectorX::Zero(n), a = VectorX::Zero(n);
    VectorX residual = VectorX::Zero(n);
    EvalContext context;
    context.dt = 1.0e-3;
    context.q = &q;
    context.v = &v;
    context.a = &a;
    context.step_start = &start;
    context.coefficients = JacobianCoefficients{1.0e-6, 1.0e-3, 1.0};  // implicit Euler on a
    SparseMatrix& jacobian = assembler.jacobian();
    for (auto _ : state) {
        residual.setZero();
        if (with_jacobian) std::fill(jacobian.valuePtr(), jacobian.valuePtr() + jacobian.nonZeros(), 0.0);
        Assembly assembly = assembler.assembly(residual, with_jacobian);
        plate->add_residual_and_jacobian(context, assembly);
        benchmark::DoNotOptimize(residual.data());
        benchmark::ClobberMemory();
    }
    state.counters["triangles"] = triangles;
    state.counters["jacobian_nnz"] = static_cast<double>(jacobian.nonZeros());
    // Time per evaluation per triangle (seconds; printed with its unit).
    state.counters["per_triangle"] =
        benchmark::Counter(triangles, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

double minimum(const std::vector<double>& values) { return *std::min_element(values.begin(), values.end()); }

}  // namespace

BENCHMARK(shell_assembly)
    ->ArgNames({"model", "size", "jacobian"})
    ->ArgsProduct({{0, 1}, {0, 1}, {1, 0}})
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5)
    ->Repetitions(5)
    ->ComputeStatistics("min", minimum)
    ->ReportAggregatesOnly(true);
BENCHMARK(shell_plate)
    ->ArgNames({"model", "size", "solver"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// CG + GAMG (default smoothed aggregation, no near-null space given) needs 100+ CG iterations
// per Newton iteration here, like ICC(0), at several times ICC's cost per CG iteration: 10k only.
BENCHMARK(shell_plate)
    ->ArgNames({"model", "size", "solver"})
    ->ArgsProduct({{0, 1}, {0}, {3}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_MAIN();
