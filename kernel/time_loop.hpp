#pragma once
/// \file time_loop.hpp
/// \brief Runs a simulation from its start to its end time: step retries with a smaller dt and
/// growth back, observers, progress, and a run summary.

#include "soma/observer.hpp"

#include <filesystem>
#include <string>

namespace soma {

class Simulation;

struct RunOptions {
    std::filesystem::path output_directory;  ///< created if missing
    bool progress = true;                    ///< progress bar / lines on stderr
};

/// Result of a run. When `summary.completed` is false, `diagnosis` says why it stopped; the
/// outputs written so far stay complete and readable.
struct RunResult {
    RunSummary summary;
    std::string diagnosis;
    double assembly_seconds = 0.0, factorization_seconds = 0.0, solve_seconds = 0.0;
};

RunResult run_simulation(Simulation& simulation, const RunOptions& options);

/// The human-readable summary printed at the end of `soma run`.
std::string format_summary(const Simulation& simulation, const RunResult& result,
                           const std::filesystem::path& output_directory);

}  // namespace soma
