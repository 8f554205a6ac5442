#pragma once
/// \file time_loop.hpp
/// \brief Runs a simulation from its start to its end time: step retries with a smaller dt and
/// growth back, observers, progress, and a run summary.

#include "checkpoint_file.hpp"

#include "soma/observer.hpp"

#include <functional>

#include <filesystem>
#include <string>

namespace soma {

class Simulation;

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

RunResult run_simulation(Simulation& simulation, const RunOptions& options);

/// The human-readable summary printed at the end of `soma run`.
std::string format_summary(const Simulation& simulation, const RunResult& result,
                           const std::filesystem::path& output_directory);

}  // namespace soma
