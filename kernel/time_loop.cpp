#include "time_loop.hpp"

#include "progress_bar.hpp"
#include "simulation.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

namespace soma {

RunResult run_simulation(Simulation& sim, const RunOptions& options) {
    using Clock = std::chrono::steady_clock;
    RunResult result;
    RunSummary& summary = result.summary;
    const auto run_start = Clock::now();
    std::filesystem::create_directories(options.output_directory);
    for (const auto& observer : sim.observers()) observer->begin(sim, options.output_directory);
    StepInfo initial;
    initial.t = sim.state().t;
    for (const auto& observer : sim.observers()) observer->observe(sim, initial);

    ProgressBar progress(sim.start_time(), sim.end_time(), options.progress);
    // Ends the run (completed or stopped): totals, observers' end hooks, time split.
    auto finish = [&](bool completed) {
        progress.finish();
        summary.completed = completed;
        summary.simulated_time = sim.state().t - sim.start_time();
        summary.wall_seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
        for (const auto& observer : sim.observers()) observer->end(sim, summary);
        const auto& t = sim.timings();
        result.assembly_seconds = t.assembly;
        result.factorization_seconds = t.factorization;
        result.solve_seconds = t.solve;
        return result;
    };
    const double end = sim.end_time();
    const double nominal = sim.nominal_dt();
    const AdaptiveStepOptions& adaptive = sim.adaptive();
    // Steps end exactly at `end`: a remainder below 1e-9 dt is absorbed into the last step.
    const double snap = 1e-9 * nominal;
    double dt = nominal;
    int successes_since_shrink = 0;
    while (sim.state().t < end - snap) {
        const auto step_start = Clock::now();
        int retries = 0;
        StepReport report;
        double h = 0.0;
        for (;;) {
            h = std::min(dt, end - sim.state().t);
            if (end - sim.state().t - h < snap) h = end - sim.state().t;
            try {
                sim.begin_attempt();
                report = sim.integrator().step(sim, h);
            } catch (const InputError& e) {
                // A value refused during the run (an actuation beyond its element's limit): a
                // smaller step would not help. The run stops with the outputs written so far.
                result.diagnosis = fmt::format("at t = {} s: {}", sim.state().t, e.what());
                summary.retries += retries;
                return finish(false);
            }
            if (report.converged) break;
            sim.reject_attempt();
            summary.newton_iterations += report.newton_iterations;
            if (!adaptive.enabled || retries >= adaptive.max_retries) {
                result.diagnosis = report.diagnosis;
                if (adaptive.enabled)
                    result.diagnosis += fmt::format("\n  gave up after {} retries (dt reduced from {:.3g} to {:.3g} s)",
                                                    retries, nominal, h);
                summary.retries += retries;
                return finish(false);
            }
            ++retries;
            dt = h * adaptive.shrink;
            successes_since_shrink = 0;
        }
        ++summary.steps;
        summary.newton_iterations += report.newton_iterations;
        summary.retries += retries;
        if (dt < nominal && ++successes_since_shrink >= adaptive.grow_after) {
            dt = std::min(nominal, dt * adaptive.grow);
            successes_since_shrink = 0;
        }
        StepInfo info;
        info.step = summary.steps;
        info.t = sim.state().t;
        info.dt = h;
        info.newton_iterations = report.newton_iterations;
        info.retries = retries;
        info.wall_seconds = std::chrono::duration<double>(Clock::now() - step_start).count();
        info.final_step = sim.state().t >= end - snap;
        for (const auto& observer : sim.observers()) observer->observe(sim, info);
        progress.update(info.t, h, summary.steps, summary.newton_iterations, summary.retries);
    }
    return finish(true);
}

std::string format_summary(const Simulation& sim, const RunResult& result, const std::filesystem::path& output_directory) {
    const RunSummary& s = result.summary;
    std::string text = s.completed ? "run completed\n" : "run STOPPED before the end time\n";
    text += fmt::format("  simulated  {:.6g} s of {:.6g} s in {} steps\n", s.simulated_time,
                        sim.end_time() - sim.start_time(), s.steps);
    text += fmt::format("  Newton     {} iterations ({:.2f} per step), {} failed attempts retried\n", s.newton_iterations,
                        s.steps ? static_cast<double>(s.newton_iterations) / static_cast<double>(s.steps) : 0.0, s.retries);
    text += fmt::format("  wall time  {:.3f} s (assembly {:.3f} s, factorization {:.3f} s, solve {:.3f} s)\n",
                        s.wall_seconds, result.assembly_seconds, result.factorization_seconds, result.solve_seconds);
    if (s.wall_seconds > 0.0)
        text += fmt::format("  real-time factor {:.3g} (simulated / wall)\n", s.simulated_time / s.wall_seconds);
    text += fmt::format("  DOFs       {} ({} free)\n", sim.dof_count(), sim.free_dof_count());
    bool any = false;
    for (const auto& observer : sim.observers()) {
        // The first file is the one to open (a CSV, or the .pvd collection of VTK frames).
        const auto files = observer->files();
        if (files.empty()) continue;
        if (!any) text += "  outputs\n";
        any = true;
        text += fmt::format("    {}", files.front().string());
        if (files.size() > 1) text += fmt::format("  (+{} files)", files.size() - 1);
        text += "\n";
    }
    if (!any) text += fmt::format("  outputs    none requested (add an `outputs:` list); folder {}\n", output_directory.string());
    return text;
}

}  // namespace soma
