#pragma once
/// \file observer.hpp
/// \brief Outputs and probes: CSV time series, VTK frames, checkpoints.

#include "soma/api.hpp"
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace soma {

class SceneView;
class CheckpointWriter;
class CheckpointReader;

/// What happened in one accepted step.
struct StepInfo {
    long step = 0;               ///< accepted steps so far (0 for the initial state)
    double t = 0.0;
    double dt = 0.0;             ///< size of the step just taken
    int newton_iterations = 0;   ///< of the accepted attempt
    int retries = 0;             ///< rejected attempts before it
    /// Krylov iterations of the accepted attempt: the linear solver's (an iterative one; a
    /// direct solver has none) and an integrator's own (ncp_newton's Schur complement).
    int linear_iterations = 0;
    double wall_seconds = 0.0;   ///< wall time of the step, retries included
    bool final_step = false;     ///< the step that reached the end time: write it whatever `every` says
};

/// Totals of a run.
struct RunSummary {
    long steps = 0;
    long newton_iterations = 0;
    long retries = 0;
    long linear_iterations = 0;  ///< Krylov iterations (StepInfo::linear_iterations), failed attempts included
    long error_rejections = 0;   ///< solved steps not committed, their local error above tolerance
    double simulated_time = 0.0;
    double wall_seconds = 0.0;
    bool completed = false;      ///< false when the run stopped early (divergence)
};

/// A file an observer will write, declared before the run (Observer::planned_files) so that the
/// kernel can refuse, at `soma check`, two outputs that would write the same file and a file
/// outside the output folder.
/// Files an observer has written (Observer::written_files).
struct WrittenFiles {
    std::filesystem::path main;  ///< the one to open: a CSV, a `.pvd` collection; empty: none yet
    std::size_t count = 0;       ///< every file written, `main` included
};

struct PlannedFile {
    std::filesystem::path path;  ///< relative to the output folder, as the scene wrote it
    /// The observer's scene key that chose this name ("file", "prefix"): errors point at it.
    /// Empty: the observer's block.
    std::string key;
    /// A numbered series (one file per frame): `path` is its first member, and every file whose
    /// name differs from it only in its last run of digits belongs to it (frames_000000.vtu,
    /// frames_000001.vtu, ...).
    bool numbered = false;
};

/// Writes output. Every observe() leaves complete, readable files behind, so a run that stops
/// early keeps everything written so far.
class SOMA_API Observer {
public:
    virtual ~Observer();
    /// Resolves references to elements and terms (called while the scene is built, so
    /// `soma check` reports them). Report errors with soma::InputError at the scene key.
    virtual void bind(const SceneView& scene);
    /// Creates the output files (the run starts).
    virtual void begin(const SceneView& scene, const std::filesystem::path& output_dir) = 0;
    /// Called for the initial state (step 0) and after every accepted step.
    virtual void observe(const SceneView& scene, const StepInfo& info) = 0;
    virtual void end(const SceneView& scene, const RunSummary& summary);
    /// What the observer has written, for the run summary: the file to open and a count, not a
    /// list (a long run writes millions of frames; listing their paths at the end took 40 s and
    /// 630 MB after a 1.7-million-step run whose own footprint was 33 MB).
    virtual WrittenFiles written_files() const { return {}; }
    /// The files the run will write, relative to the output folder; known after bind(). The
    /// kernel refuses (at the entry's key) two observers planning the same file, and a path that
    /// is absolute or leaves the output folder (`a/../../x`). Empty: the observer writes no file
    /// (or does not say; then nothing is checked).
    virtual std::vector<PlannedFile> planned_files() const { return {}; }
    /// An estimate of the bytes the run writes for `steps` accepted steps (rows or frames as
    /// `every` selects them, the initial and final states included), for the output-size estimate
    /// of `soma check`; known after bind(). 0: no estimate.
    virtual std::uintmax_t estimated_bytes(long steps) const {
        (void)steps;
        return 0;
    }

    /// Checkpoint hooks (checkpoint.hpp). save_checkpoint records where this output's files
    /// stand after the last observe() (rows and frames written, byte offsets). resume() replaces
    /// begin() on `soma run --restart`: it reopens the files of the interrupted run, drops what
    /// was written after the checkpoint, and continues them, so the continued run's files equal
    /// an uninterrupted run's. The default save writes nothing and the default resume refuses
    /// (throws CheckpointError): an output that cannot continue its files must not silently
    /// start them again.
    virtual void save_checkpoint(CheckpointWriter& out) const;
    virtual void resume(const SceneView& scene, const std::filesystem::path& output_dir, CheckpointReader& in);
};

}  // namespace soma
