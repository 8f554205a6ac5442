#include "time_loop.hpp"

#include "progress_bar.hpp"
#include "simulation.hpp"
#include "step_size_floor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>

namespace soma {

namespace {

/// What the loop carries from step to step besides the simulation: its part of a checkpoint.
struct LoopState {
    double dt = 0.0;
    long successes_since_shrink = 0;
};

void save_loop(CheckpointFile& file, const LoopState& loop, const RunSummary& summary) {
    CheckpointWriter out(file.add_section("time_loop"));
    out.real("dt", loop.dt);
    out.integer("successes_since_shrink", loop.successes_since_shrink);
    out.integer("steps", summary.steps);
    out.integer("newton_iterations", summary.newton_iterations);
    out.integer("retries", summary.retries);
    out.integer("error_rejections", summary.error_rejections);
}

void restore_loop(const CheckpointFile& file, LoopState& loop, RunSummary& summary) {
    CheckpointReader in(file.section("time_loop"), "time_loop");
    loop.dt = in.real("dt");
    loop.successes_since_shrink = in.integer("successes_since_shrink");
    summary.steps = in.integer("steps");
    summary.newton_iterations = in.integer("newton_iterations");
    summary.retries = in.integer("retries");
    summary.error_rejections = in.integer("error_rejections");
}

/// The order of a step's error estimate: the step's own, or the integrator's.
int estimate_order(const StepReport& report, const ErrorControlSettings& control) {
    return report.error_order > 0 ? report.error_order : control.order;
}

/// The factor error control scales a step by: 0.9 error^(-1/(order + 1)), within [0.2, largest]
/// (an error of 0 asks for the largest).
double error_step_factor(double error, int order, double largest) {
    const double wanted = error > 0.0 ? 0.9 * std::pow(error, -1.0 / (order + 1)) : largest;
    return std::clamp(wanted, 0.2, largest);
}

/// The outputs continue the files of the checkpointed run.
void resume_observers(Simulation& sim, const CheckpointFile& file, const std::filesystem::path& folder) {
    for (std::size_t i = 0; i < sim.observers().size(); ++i) {
        const std::string section = sim.section_name("output", i);
        CheckpointReader in(file.section(section), section);
        sim.observers()[i]->resume(sim, folder, in);
        if (!in.finished())
            throw CheckpointError(fmt::format("checkpoint section '{}' holds records its output did not read", section));
    }
}

}  // namespace

RunResult run_simulation(Simulation& sim, const RunOptions& options) {
    using Clock = std::chrono::steady_clock;
    RunResult result;
    RunSummary& summary = result.summary;
    const auto run_start = Clock::now();
    const double end = sim.end_time();
    const double nominal = sim.nominal_dt();
    const AdaptiveStepOptions& adaptive = sim.adaptive();
    const std::optional<ErrorControlSettings>& control = sim.error_control();
    const CheckpointSettings& checkpointing = sim.checkpoint_settings();
    LoopState loop;
    loop.dt = nominal;

    std::filesystem::create_directories(options.output_directory);
    if (options.resume) {
        restore_loop(*options.resume, loop, summary);
        resume_observers(sim, *options.resume, options.output_directory);
    } else {
        for (const auto& observer : sim.observers()) observer->begin(sim, options.output_directory);
        StepInfo initial;
        initial.t = sim.state().t;
        for (const auto& observer : sim.observers()) observer->observe(sim, initial);
    }

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
        result.step_start_seconds = t.step_start;
        result.pattern_seconds = t.pattern;
        result.analyses = t.analyses;
        result.pattern_updates = t.pattern_updates;
        result.factorizations = t.factorizations;
        result.chord_steps = t.chord_steps;
        result.terms.clear();
        for (std::size_t i = 0; i < sim.term_labels().size(); ++i) {
            const std::string& label = sim.term_labels()[i];
            auto it = std::find_if(result.terms.begin(), result.terms.end(), [&](const TermTime& x) { return x.label == label; });
            if (it == result.terms.end()) it = result.terms.insert(result.terms.end(), TermTime{label});
            it->assembly_seconds += t.term_assembly[i];
            it->step_start_seconds += t.term_step_start[i];
        }
        std::stable_sort(result.terms.begin(), result.terms.end(), [](const TermTime& a, const TermTime& b) {
            return a.assembly_seconds + a.step_start_seconds > b.assembly_seconds + b.step_start_seconds;
        });
        return result;
    };
    // Writes the checkpoint of the last accepted step; false (with the diagnosis) on failure.
    auto write_checkpoint = [&]() {
        const std::filesystem::path path = options.output_directory / checkpointing.file;
        try {
            CheckpointFile file;
            file.scene = options.scene;
            std::error_code ec;
            file.scene.output_directory = std::filesystem::absolute(options.output_directory, ec).string();
            sim.save_checkpoint(file);
            save_loop(file, loop, summary);
            file.write(path);
        } catch (const std::exception& e) {
            result.diagnosis = fmt::format("at t = {:.9g} s: cannot write the checkpoint {}: {}", sim.state().t,
                                           path.string(), e.what());
            return false;
        }
        result.checkpoint = path;
        return true;
    };

    // Steps end exactly at `end`: a remainder below 1e-9 dt, or below what the clock resolves
    // at `end`, is absorbed into the last step.
    const double snap = std::max(1e-9 * nominal, clock_resolution(end));
    while (sim.state().t < end - snap) {
        if (options.interrupt_requested) {
            if (const int signal = options.interrupt_requested()) {
                result.interrupt_signal = signal;
                result.diagnosis = fmt::format("at t = {:.9g} s: interrupted by signal {} ({})", sim.state().t, signal,
                                               signal == SIGINT ? "Ctrl-C" : signal == SIGTERM ? "SIGTERM" : "signal");
                if (checkpointing.on_interrupt) write_checkpoint();  // a failure replaces the diagnosis
                return finish(false);
            }
        }
        const auto step_start = Clock::now();
        int retries = 0;
        const double t_before = sim.state().t;
        StepReport report;
        double h = 0.0;
        for (;;) {
            h = std::min(loop.dt, end - sim.state().t);
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
            if (report.converged && !(report.error > 1.0)) break;
            sim.reject_attempt();
            summary.newton_iterations += report.newton_iterations;
            if (report.converged) {
                // Solved, but its local error is above the tolerance (not committed): again with
                // the step the error asks for.
                ++summary.error_rejections;
                loop.dt = h * (report.next_step_ratio > 0.0 ? std::clamp(report.next_step_ratio, 0.2, 0.9)
                                                             : error_step_factor(report.error, estimate_order(report, *control), 0.9));
                const double floor = smallest_step(nominal, sim.state().t);
                if (loop.dt < floor) {
                    result.diagnosis = fmt::format(
                        "at t = {:.9g} s: the local error stays above the tolerance (error_control: {:.3g} times it at "
                        "dt = {:.3g} s), and the next step, {:.3g} s, would be below the smallest step {:.3g} s; the "
                        "run cannot make progress (a tolerance below what the model's forces resolve, or a motion "
                        "that is not smooth: contact, a kink in a force law)",
                        sim.state().t, report.error, h, loop.dt, floor);
                    summary.retries += retries;
                    return finish(false);
                }
                continue;
            }
            if (!adaptive.enabled || retries >= adaptive.max_retries) {
                result.diagnosis = report.diagnosis;
                if (adaptive.enabled)
                    result.diagnosis += fmt::format("\n  gave up after {} retries (dt reduced from {:.3g} to {:.3g} s)",
                                                    retries, nominal, h);
                summary.retries += retries;
                return finish(false);
            }
            ++retries;
            loop.dt = h * adaptive.shrink;
            loop.successes_since_shrink = 0;
            const double floor = smallest_step(nominal, sim.state().t);
            if (loop.dt < floor) {
                result.diagnosis = report.diagnosis + fmt::format(
                    "\n  gave up after {} retries: the next step, {:.3g} s, would be below the smallest step {:.3g} s "
                    "at t = {:.9g} s (1e-10 of dt = {:.3g} s, or 1000 units in the last place of t); the run cannot "
                    "make progress",
                    retries, loop.dt, floor, sim.state().t, nominal);
                summary.retries += retries;
                return finish(false);
            }
        }
        if (!(sim.state().t > t_before)) {
            // A guard behind the floor above: a committed step must move the clock.
            result.diagnosis = fmt::format("at t = {:.17g} s: a step of {:.3g} s was accepted but did not advance the time "
                                           "(t + dt == t); the run cannot make progress",
                                           t_before, h);
            summary.retries += retries;
            return finish(false);
        }
        ++summary.steps;
        summary.newton_iterations += report.newton_iterations;
        summary.retries += retries;
        if (control) {
            // The next step from this one's error (none estimated: the same step again).
            if (report.next_step_ratio > 0.0)
                loop.dt = std::min(control->max_step, h * std::clamp(report.next_step_ratio, 0.2, control->largest_growth));
            else if (report.error >= 0.0)
                loop.dt = std::min(control->max_step, h * error_step_factor(report.error, estimate_order(report, *control), control->largest_growth));
        } else if (loop.dt < nominal && ++loop.successes_since_shrink >= adaptive.grow_after) {
            loop.dt = std::min(nominal, loop.dt * std::min(adaptive.grow, sim.integrator().largest_step_ratio()));
            loop.successes_since_shrink = 0;
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
        if (checkpointing.every > 0 && summary.steps % checkpointing.every == 0 && !info.final_step &&
            !write_checkpoint())
            return finish(false);
    }
    return finish(true);
}

std::string format_summary(const Simulation& sim, const RunResult& result, const std::filesystem::path& output_directory) {
    const RunSummary& s = result.summary;
    std::string text = s.completed              ? "run completed\n"
                       : result.interrupt_signal ? "run INTERRUPTED before the end time\n"
                                                 : "run STOPPED before the end time\n";
    text += fmt::format("  simulated  {:.6g} s of {:.6g} s in {} steps\n", s.simulated_time,
                        sim.end_time() - sim.start_time(), s.steps);
    text += fmt::format("  Newton     {} iterations ({:.2f} per step), {} failed attempts retried\n", s.newton_iterations,
                        s.steps ? static_cast<double>(s.newton_iterations) / static_cast<double>(s.steps) : 0.0, s.retries);
    if (sim.error_control())
        text += fmt::format("  error control  {} steps rejected (local error above the tolerance), steps {:.3g} s on "
                            "average\n",
                            s.error_rejections, s.steps ? s.simulated_time / static_cast<double>(s.steps) : 0.0);
    if (result.chord_steps > 0)
        text += fmt::format("             {} chord steps through an earlier factorization (jacobian_reuse), {} "
                            "factorizations\n",
                            result.chord_steps, result.factorizations);
    text += fmt::format("  wall time  {:.3f} s (assembly {:.3f} s, factorization {:.3f} s, solve {:.3f} s)\n",
                        s.wall_seconds, result.assembly_seconds, result.factorization_seconds, result.solve_seconds);
    text += fmt::format("             step starts {:.3f} s (contact broad phase, rod frames), {} pattern updates {:.3f} s, "
                        "{} symbolic analyses\n",
                        result.step_start_seconds, result.pattern_updates, result.pattern_seconds, result.analyses);
    if (!result.terms.empty()) {
        // The costly terms (the six most costly, down to 1 % of the run): what to look at first.
        std::string terms;
        for (std::size_t i = 0; i < result.terms.size() && i < 6; ++i) {
            const TermTime& term = result.terms[i];
            const double total = term.assembly_seconds + term.step_start_seconds;
            if (i > 0 && total < 0.01 * s.wall_seconds) break;
            terms += fmt::format("{}{} {:.3f} s", terms.empty() ? "" : ", ", term.label, term.assembly_seconds);
            if (term.step_start_seconds >= 0.0005) terms += fmt::format(" + {:.3f} s at step starts", term.step_start_seconds);
        }
        text += fmt::format("             by term: {}\n", terms);
    }
    if (s.wall_seconds > 0.0)
        text += fmt::format("  real-time factor {:.3g} (simulated / wall)\n", s.simulated_time / s.wall_seconds);
    text += fmt::format("  DOFs       {} ({} free)\n", sim.dof_count(), sim.free_dof_count());
    bool any = false;
    for (const auto& observer : sim.observers()) {
        // The first file is the one to open (a CSV, or the .pvd collection of VTK frames).
        const WrittenFiles files = observer->written_files();
        if (files.main.empty()) continue;
        if (!any) text += "  outputs\n";
        any = true;
        text += fmt::format("    {}", files.main.string());
        if (files.count > 1) text += fmt::format("  (+{} files)", files.count - 1);
        text += "\n";
    }
    if (!result.checkpoint.empty())
        text += fmt::format("  checkpoint {}{}\n", result.checkpoint.string(),
                            s.completed ? "" : fmt::format("  (continue: soma run --restart {})", result.checkpoint.string()));
    if (!any) text += fmt::format("  outputs    none requested (add an `outputs:` list); folder {}\n", output_directory.string());
    return text;
}

}  // namespace soma
