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

TimeLoop::TimeLoop(Simulation& sim, RunOptions options)
    : sim_(sim), options_(std::move(options)), dt_(sim.nominal_dt()), start_(std::chrono::steady_clock::now()) {
    if (options_.resume) restore(*options_.resume);
    if (options_.observe) {
        std::filesystem::create_directories(options_.output_directory);
        if (options_.resume) {
            resume_observers(sim_, *options_.resume, options_.output_directory);
        } else {
            for (const auto& observer : sim_.observers()) observer->begin(sim_, options_.output_directory);
            StepInfo initial;
            initial.t = sim_.state().t;
            for (const auto& observer : sim_.observers()) observer->observe(sim_, initial);
        }
    }
    progress_ = std::make_unique<ProgressBar>(sim_.start_time(), sim_.end_time(), options_.progress);
}

TimeLoop::~TimeLoop() = default;

namespace {

/// Steps end exactly at a stop time (the end time, or where the caller stops): a remainder below
/// 1e-9 dt, or below what the clock resolves at that time, is absorbed into the last step.
double stop_snap(const Simulation& sim, double stop) {
    return std::max(1e-9 * sim.nominal_dt(), clock_resolution(stop));
}

}  // namespace

bool TimeLoop::reached(double time) const {
    const double stop = std::min(time, sim_.end_time());
    return !(sim_.state().t < stop - stop_snap(sim_, stop));
}

void TimeLoop::save(CheckpointFile& file) const {
    CheckpointWriter out(file.add_section("time_loop"));
    const RunSummary& summary = result_.summary;
    out.real("dt", dt_);
    out.integer("successes_since_shrink", successes_since_shrink_);
    out.integer("steps", summary.steps);
    out.integer("newton_iterations", summary.newton_iterations);
    out.integer("retries", summary.retries);
    out.integer("error_rejections", summary.error_rejections);
    out.integer("linear_iterations", summary.linear_iterations);
}

void TimeLoop::restore(const CheckpointFile& file) {
    CheckpointReader in(file.section("time_loop"), "time_loop");
    RunSummary& summary = result_.summary;
    dt_ = in.real("dt");
    successes_since_shrink_ = in.integer("successes_since_shrink");
    summary.steps = in.integer("steps");
    summary.newton_iterations = in.integer("newton_iterations");
    summary.retries = in.integer("retries");
    summary.error_rejections = in.integer("error_rejections");
    summary.linear_iterations = in.integer("linear_iterations");
}

bool TimeLoop::write_checkpoint() {
    const std::filesystem::path path = options_.output_directory / sim_.checkpoint_settings().file;
    try {
        CheckpointFile file;
        file.scene = options_.scene;
        std::error_code ec;
        file.scene.output_directory = std::filesystem::absolute(options_.output_directory, ec).string();
        sim_.save_checkpoint(file);
        save(file);
        file.write(path);
    } catch (const std::exception& e) {
        result_.diagnosis = fmt::format("at t = {:.9g} s: cannot write the checkpoint {}: {}", sim_.state().t,
                                        path.string(), e.what());
        return false;
    }
    result_.checkpoint = path;
    return true;
}

bool TimeLoop::step(double until) {
    using Clock = std::chrono::steady_clock;
    RunSummary& summary = result_.summary;
    const double end = std::min(until, sim_.end_time());
    const double snap = stop_snap(sim_, end);
    const double nominal = sim_.nominal_dt();
    const AdaptiveStepOptions& adaptive = sim_.adaptive();
    const std::optional<ErrorControlSettings>& control = sim_.error_control();
    const CheckpointSettings& checkpointing = sim_.checkpoint_settings();
    result_.diagnosis.clear();
    result_.interrupt_signal = 0;
    checkpoint_failed_ = false;
    // A failed step leaves the simulation where it was; the next one starts from the scene's dt.
    const auto fail = [&](int retries) {
        summary.retries += retries;
        dt_ = nominal;
        successes_since_shrink_ = 0;
        return false;
    };
    if (reached(end)) {
        result_.diagnosis = fmt::format("at t = {:.9g} s: the run is at its {} time {:.9g} s", sim_.state().t,
                                        end < sim_.end_time() ? "stop" : "end", end);
        return false;
    }
    if (options_.interrupt_requested) {
        if (const int signal = options_.interrupt_requested()) {
            result_.interrupt_signal = signal;
            result_.diagnosis = fmt::format("at t = {:.9g} s: interrupted by signal {} ({})", sim_.state().t, signal,
                                            signal == SIGINT ? "Ctrl-C" : signal == SIGTERM ? "SIGTERM" : "signal");
            if (checkpointing.on_interrupt && options_.observe) write_checkpoint();  // a failure replaces the diagnosis
            return false;
        }
    }
    const auto step_start = Clock::now();
    int retries = 0;
    const double t_before = sim_.state().t;
    StepReport report;
    double h = 0.0;
    for (;;) {
        h = std::min(dt_, end - sim_.state().t);
        if (end - sim_.state().t - h < snap) h = end - sim_.state().t;
        const long solver_iterations_before = sim_.timings().linear_solver_iterations;
        try {
            sim_.begin_attempt();
            report = sim_.integrator().step(sim_, h);
            report.linear_iterations += static_cast<int>(sim_.timings().linear_solver_iterations - solver_iterations_before);
        } catch (const InputError& e) {
            // A value refused during the run (an actuation beyond its element's limit): a
            // smaller step would not help.
            sim_.reject_attempt();
            result_.diagnosis = fmt::format("at t = {} s: {}", sim_.state().t, e.what());
            return fail(retries);
        }
        if (report.converged && !(report.error > 1.0)) break;
        sim_.reject_attempt();
        summary.newton_iterations += report.newton_iterations;
        summary.linear_iterations += report.linear_iterations;
        if (report.converged) {
            // Solved, but its local error is above the tolerance (not committed): again with
            // the step the error asks for.
            ++summary.error_rejections;
            dt_ = h * (report.next_step_ratio > 0.0 ? std::clamp(report.next_step_ratio, 0.2, 0.9)
                                                     : error_step_factor(report.error, estimate_order(report, *control), 0.9));
            const double floor = smallest_step(nominal, sim_.state().t);
            if (dt_ < floor) {
                result_.diagnosis = fmt::format(
                    "at t = {:.9g} s: the local error stays above the tolerance (error_control: {:.3g} times it at "
                    "dt = {:.3g} s), and the next step, {:.3g} s, would be below the smallest step {:.3g} s; the "
                    "run cannot make progress (a tolerance below what the model's forces resolve, or a motion "
                    "that is not smooth: contact, a kink in a force law)",
                    sim_.state().t, report.error, h, dt_, floor);
                return fail(retries);
            }
            continue;
        }
        if (!adaptive.enabled || retries >= adaptive.max_retries) {
            result_.diagnosis = report.diagnosis;
            if (adaptive.enabled)
                result_.diagnosis += fmt::format("\n  gave up after {} retries (dt reduced from {:.3g} to {:.3g} s)",
                                                 retries, nominal, h);
            return fail(retries);
        }
        ++retries;
        dt_ = h * adaptive.shrink;
        successes_since_shrink_ = 0;
        const double floor = smallest_step(nominal, sim_.state().t);
        if (dt_ < floor) {
            result_.diagnosis = report.diagnosis + fmt::format(
                "\n  gave up after {} retries: the next step, {:.3g} s, would be below the smallest step {:.3g} s "
                "at t = {:.9g} s (1e-10 of dt = {:.3g} s, or 1000 units in the last place of t); the run cannot "
                "make progress",
                retries, dt_, floor, sim_.state().t, nominal);
            return fail(retries);
        }
    }
    if (!(sim_.state().t > t_before)) {
        // A guard behind the floor above: a committed step must move the clock.
        result_.diagnosis = fmt::format("at t = {:.17g} s: a step of {:.3g} s was accepted but did not advance the time "
                                        "(t + dt == t); the run cannot make progress",
                                        t_before, h);
        return fail(retries);
    }
    ++summary.steps;
    summary.newton_iterations += report.newton_iterations;
    summary.linear_iterations += report.linear_iterations;
    summary.retries += retries;
    if (control) {
        // The next step from this one's error (none estimated: the same step again).
        const double step_wanted = dt_;
        if (report.next_step_ratio > 0.0)
            dt_ = std::min(control->max_step, h * std::clamp(report.next_step_ratio, 0.2, control->largest_growth));
        else if (report.error >= 0.0)
            dt_ = std::min(control->max_step, h * error_step_factor(report.error, estimate_order(report, *control), control->largest_growth));
        // A step shortened to land on a stop time (Simulation.advance) says little about the
        // next: its error may ask for the step wanted before it, beyond the growth limit.
        if (h < step_wanted && end < sim_.end_time()) {
            const double ratio = report.next_step_ratio > 0.0 ? report.next_step_ratio
                                 : report.error >= 0.0
                                     ? error_step_factor(report.error, estimate_order(report, *control),
                                                         std::numeric_limits<double>::infinity())
                                     : 1.0;
            dt_ = std::max(dt_, std::min(step_wanted, h * ratio));
        }
    } else if (dt_ < nominal && ++successes_since_shrink_ >= adaptive.grow_after) {
        dt_ = std::min(nominal, dt_ * std::min(adaptive.grow, sim_.integrator().largest_step_ratio()));
        successes_since_shrink_ = 0;
    }
    StepInfo info;
    info.step = summary.steps;
    info.t = sim_.state().t;
    info.dt = h;
    info.newton_iterations = report.newton_iterations;
    info.linear_iterations = report.linear_iterations;
    info.retries = retries;
    info.wall_seconds = std::chrono::duration<double>(Clock::now() - step_start).count();
    info.final_step = at_end();
    if (options_.observe)
        for (const auto& observer : sim_.observers()) observer->observe(sim_, info);
    progress_->update(info.t, h, summary.steps, summary.newton_iterations, summary.retries);
    if (options_.observe && checkpointing.every > 0 && summary.steps % checkpointing.every == 0 && !info.final_step &&
        !write_checkpoint()) {
        checkpoint_failed_ = true;  // the step itself was accepted
        return false;
    }
    return true;
}

RunResult TimeLoop::finish(bool completed) {
    progress_->finish();
    result_ = report(completed);
    if (options_.observe && !finished_)
        for (const auto& observer : sim_.observers()) observer->end(sim_, result_.summary);
    finished_ = true;
    return result_;
}

RunResult TimeLoop::report(bool completed) const {
    RunResult result = result_;
    RunSummary& summary = result.summary;
    summary.completed = completed;
    summary.simulated_time = sim_.state().t - sim_.start_time();
    summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const auto& t = sim_.timings();
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
    for (std::size_t i = 0; i < sim_.term_labels().size(); ++i) {
        const std::string& label = sim_.term_labels()[i];
        auto it = std::find_if(result.terms.begin(), result.terms.end(), [&](const TermTime& x) { return x.label == label; });
        if (it == result.terms.end()) it = result.terms.insert(result.terms.end(), TermTime{label});
        it->assembly_seconds += t.term_assembly[i];
        it->step_start_seconds += t.term_step_start[i];
    }
    std::stable_sort(result.terms.begin(), result.terms.end(), [](const TermTime& a, const TermTime& b) {
        return a.assembly_seconds + a.step_start_seconds > b.assembly_seconds + b.step_start_seconds;
    });
    return result;
}

RunResult run_simulation(Simulation& sim, const RunOptions& options) {
    TimeLoop loop(sim, options);
    while (!loop.at_end())
        if (!loop.step()) return loop.finish(false);
    return loop.finish(true);
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
    if (s.linear_iterations > 0)
        text += fmt::format("  linear     {} Krylov iterations ({:.1f} per Newton iteration; the linear solver's and the "
                            "integrator's own)\n",
                            s.linear_iterations,
                            s.newton_iterations ? static_cast<double>(s.linear_iterations) / static_cast<double>(s.newton_iterations)
                                                : 0.0);
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
