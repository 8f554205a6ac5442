#pragma once
/// \file time_loop.hpp
/// \brief Runs a simulation from its start to its end time: step retries with a smaller dt and
/// growth back, observers, progress, and a run summary.

#include "checkpoint_file.hpp"

#include "soma/observer.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>

namespace soma {

class Simulation;
class ProgressBar;

struct RunOptions {
    std::filesystem::path output_directory;  ///< created if missing
    bool progress = true;                    ///< progress bar / lines on stderr
    /// Polled between steps: a nonzero signal number ends the run cleanly (the step in progress
    /// finishes, a checkpoint is written when the scene asks for one on interrupt, the outputs
    /// are closed). The CLI passes InterruptHandler::signal_received (interrupt.hpp).
    std::function<int()> interrupt_requested;
    /// The scene stored in every checkpoint the run writes (`soma run --restart` rebuilds it).
    CheckpointScene scene;
    /// Continue from this checkpoint: the simulation was restored from it
    /// (Simulation::restore_checkpoint); the loop restores its counters and step size, and the
    /// outputs continue their files instead of starting them.
    const CheckpointFile* resume = nullptr;
    /// False: no observer runs and no folder is made (a Python simulation without an output folder).
    bool observe = true;
};

/// Result of a run. When `summary.completed` is false, `diagnosis` says why it stopped; the
/// outputs written so far stay complete and readable.
/// One scene term's share of the run (RunResult::terms): elements by type, forces by name.
struct TermTime {
    std::string label;
    double assembly_seconds = 0.0;    ///< its residual and Jacobian, every evaluation
    double step_start_seconds = 0.0;  ///< its begin_step (contact's broad phase, rod frames)
};

struct RunResult {
    RunSummary summary;
    std::string diagnosis;
    int interrupt_signal = 0;               ///< the signal that ended the run early, or 0
    std::filesystem::path checkpoint;       ///< the last checkpoint written, empty if none
    double assembly_seconds = 0.0, factorization_seconds = 0.0, solve_seconds = 0.0;
    double step_start_seconds = 0.0;  ///< contributors' begin_step: contact broad phase, rod frames
    double pattern_seconds = 0.0;     ///< stencils declared again and placed, pattern growth
    long analyses = 0;                ///< symbolic analyses of the Jacobian's pattern
    long pattern_updates = 0;         ///< stencil placements: construction and every change
    long factorizations = 0;          ///< numeric factorizations of the Jacobian
    long chord_steps = 0;             ///< Newton iterations through an earlier factorization
    std::vector<TermTime> terms;      ///< per term label, the most costly first
};

/// \brief Steps a simulation one accepted step at a time: what `soma run` loops over and what the
/// Python module's `Simulation.step` calls, so both take the same steps bit for bit.
///
/// A step retries failed attempts with a smaller dt (integrator.adaptive) and grows it back;
/// the observers see every accepted step; checkpoints are written as the scene asks. A step
/// that fails after its retries leaves the simulation at its last accepted state: the loop may
/// go on stepping (the Python module does, after the user changed something), or finish.
class TimeLoop {
public:
    /// Starts the run, or continues it from options.resume: creates the output folder, begins
    /// (or resumes) the observers and shows them the initial state. With options.observe false,
    /// no observer runs and nothing is written.
    TimeLoop(Simulation& simulation, RunOptions options);
    ~TimeLoop();
    TimeLoop(const TimeLoop&) = delete;
    TimeLoop& operator=(const TimeLoop&) = delete;

    /// True once the simulation's time reached the scene's end time (within the snap of a step).
    bool at_end() const { return reached(std::numeric_limits<double>::infinity()); }
    /// True once the simulation's time reached \p time or the end time, whichever comes first
    /// (within 1e-9 dt, or what the clock resolves there).
    bool reached(double time) const;
    /// \brief Takes one accepted step, ending at \p until at the latest (the end time when it is
    /// later). False when it could not: diagnosis() says why (a step that failed after its
    /// retries, a value refused during the run, an interrupt, a checkpoint that could not be
    /// written, a time already reached); the simulation then holds its last accepted state, and
    /// the next step starts again from the scene's dt.
    bool step(double until = std::numeric_limits<double>::infinity());
    /// Why the last step() returned false.
    const std::string& diagnosis() const { return result_.diagnosis; }
    /// True when the last step() was accepted but its checkpoint could not be written (the
    /// simulation moved on; diagnosis() says why the run should stop).
    bool checkpoint_failed() const { return checkpoint_failed_; }
    /// The signal that interrupted the last step() (options.interrupt_requested), or 0.
    int interrupt_signal() const { return result_.interrupt_signal; }
    /// The totals so far (steps, Newton iterations, retries).
    const RunSummary& summary() const { return result_.summary; }
    /// \brief Ends the run: the observers' end hooks (once: a second call only refreshes the
    /// totals) and the time split. \p completed goes into the summary the observers see.
    RunResult finish(bool completed);
    /// The run's totals and time split so far, as finish() would report them, ending nothing.
    RunResult report(bool completed) const;

    /// The loop's own part of a checkpoint (section "time_loop": dt, counters) and its restore,
    /// for snapshots of a running simulation.
    void save(CheckpointFile& file) const;
    void restore(const CheckpointFile& file);

private:
    /// Writes the checkpoint of the last accepted step; false (with the diagnosis) on failure.
    bool write_checkpoint();

    Simulation& sim_;
    RunOptions options_;
    RunResult result_;
    double dt_ = 0.0;                   ///< the next step's size
    long successes_since_shrink_ = 0;   ///< accepted steps since the last retry (growth back)
    std::chrono::steady_clock::time_point start_;
    std::unique_ptr<ProgressBar> progress_;
    bool finished_ = false;
    bool checkpoint_failed_ = false;
};

/// Runs from the simulation's time to its end time (a TimeLoop stepped to the end, or until a
/// step fails), then finishes.
RunResult run_simulation(Simulation& simulation, const RunOptions& options);

/// The human-readable summary printed at the end of `soma run`.
std::string format_summary(const Simulation& simulation, const RunResult& result,
                           const std::filesystem::path& output_directory);

}  // namespace soma
