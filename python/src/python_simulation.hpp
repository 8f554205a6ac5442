#pragma once
/// \file python_simulation.hpp
/// \brief The simulation the Python module drives: a scene built as `soma run` builds it, stepped
/// by the same TimeLoop (so Python and the CLI take the same steps bit for bit), with snapshots
/// of everything a step depends on and actuation set between steps.
///
/// Nothing here knows Python: module.cpp binds it. The numbers cross as Eigen vectors.

#include "checkpoint_file.hpp"
#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"
#include "time_loop.hpp"
#include "type_registry.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace soma::python {

/// A step that failed after its retries (Simulation.step raises soma.StepFailed with it). The
/// simulation holds its last accepted state.
class StepFailed : public std::runtime_error {
public:
    StepFailed(const std::string& diagnosis, double time) : std::runtime_error(diagnosis), time_(time) {}
    double time() const { return time_; }

private:
    double time_;
};

/// Ctrl-C during a step (the simulation holds its last accepted state); the module raises
/// KeyboardInterrupt.
class Interrupted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Values of one actuation channel of one element set from Python: items x components.
using ActuationKey = std::pair<std::string, std::string>;  ///< element, channel
using ActuationValues = std::map<ActuationKey, std::vector<double>>;

/// Everything a step depends on at one committed state: the checkpoint of the simulation and
/// of its time loop (in memory), and the actuation set from Python.
struct Snapshot {
    std::uint64_t owner = 0;  ///< the simulation that took it (PythonSimulation::id): others refuse it
    CheckpointFile checkpoint;
    State state;
    ActuationValues actuation;
};

/// Totals of the steps so far.
struct StepTotals {
    long steps = 0, newton_iterations = 0, retries = 0, linear_iterations = 0;
    double simulated_time = 0.0, wall_seconds = 0.0;
};

class PythonSimulation {
public:
    /// \brief Builds the scene (plugins from the built-in folder, SOMA_PLUGIN_PATH and the
    /// scene's plugin_paths) after applying `--set`-style \p overrides. With an \p output folder,
    /// the scene's outputs write there as `soma run --output` writes them; without one, nothing
    /// is written. Throws InputError as `soma check` reports it.
    /// \p interrupt_requested is polled between steps: a signal number ends the step with Interrupted.
    PythonSimulation(SceneDocument scene, const std::vector<std::string>& overrides,
                     const std::optional<std::filesystem::path>& output, bool progress,
                     std::function<int()> interrupt_requested = {});
    ~PythonSimulation();
    PythonSimulation(const PythonSimulation&) = delete;
    PythonSimulation& operator=(const PythonSimulation&) = delete;

    /// \brief Takes up to \p count accepted steps, fewer when the end time comes first; returns
    /// how many it took. Throws StepFailed when one fails (the state is the last accepted one).
    long step(long count);
    /// \brief Steps until \p seconds of simulated time have passed (or the end time came), the
    /// last step shortened to land on the time; returns the steps taken. Throws StepFailed.
    long advance(double seconds);
    /// Steps to the end time.
    long run() { return step(std::numeric_limits<long>::max()); }
    bool at_end() const { return loop_->at_end(); }
    /// Ends the run: the outputs' end hooks (closes the .pvd). Idempotent; stepping after it is refused.
    void close();
    bool closed() const { return closed_; }

    const Simulation& simulation() const { return *simulation_; }
    Simulation& simulation() { return *simulation_; }
    const SceneDocument& scene() const { return scene_; }
    StepTotals totals() const;
    /// `soma run`'s summary text.
    std::string summary_text() const;

    /// Everything the next step depends on (allocates: a copy of the state and of each
    /// contributor's, controller's and integrator's own state).
    std::shared_ptr<const Snapshot> snapshot() const;
    /// \brief Back to \p snapshot, then, when \p edited holds a state other than the snapshot's,
    /// that state committed (boundary conditions imposed, contributors' reference frames moved
    /// on), with the time and multipliers of the snapshot. Outputs already written stay.
    void restore(const Snapshot& snapshot, const State* edited);

    /// The element named \p name, or InputError listing the elements.
    const Element& element(const std::string& name) const;
    /// Positions (or velocities) of an element's points: rows x, y, z (mapped points through their map).
    Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> point_positions(const std::string& element,
                                                                                bool velocities) const;
    /// \brief Sets an actuation channel of an element: \p values items x components (row-major),
    /// for the listed \p items (all items when empty). Refuses an unknown element or channel,
    /// a shape that does not fit, items out of range, and a value the element refuses (the
    /// element keeps its previous value then).
    void set_actuation(const std::string& element, const std::string& channel, const std::vector<Index>& items,
                       const std::vector<double>& values);
    /// The values a channel holds (items x components, row-major): as last set from Python, else
    /// as the element reports them (the last a scene controller set, or its initial values).
    std::vector<double> actuation(const std::string& element, const std::string& channel) const;

private:
    /// Held by every call that changes the simulation: a second thread using the same
    /// simulation at once is refused (std::logic_error) instead of corrupting it.
    class Busy {
    public:
        explicit Busy(std::atomic<bool>& flag);
        ~Busy() { flag_ = false; }
        Busy(const Busy&) = delete;
        Busy& operator=(const Busy&) = delete;

    private:
        std::atomic<bool>& flag_;
    };
    /// One step of the loop; throws StepFailed, Interrupted, or runtime_error (a checkpoint
    /// that could not be written, after an accepted step, which \p taken then counts).
    void take_step(double until, long& taken);
    Element& mutable_element(const std::string& name);
    ActuationChannel channel_of(const Element& element, const std::string& channel) const;
    /// The channel's values now (Element::actuation).
    std::vector<double> current_actuation(const Element& element, const ActuationChannel& channel) const;
    void apply_actuation(Element& element, const ActuationChannel& channel, const std::vector<double>& values);

    SceneDocument scene_;
    TypeRegistry registry_;
    std::unique_ptr<PluginLoader> loader_;
    std::unique_ptr<Simulation> simulation_;
    std::unique_ptr<TimeLoop> loop_;
    std::filesystem::path output_;
    ActuationValues actuation_;  ///< every channel set from Python so far: its current values
    ActuationValues untouched_;  ///< every channel set from Python so far: its values before the first set
    bool closed_ = false;
    std::uint64_t id_ = 0;              ///< unique in the process: what snapshots are tagged with
    std::atomic<bool> busy_{false};
};

}  // namespace soma::python
