#include "python_simulation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace soma::python {

namespace {
std::atomic<std::uint64_t> simulations_made{0};
}  // namespace

PythonSimulation::Busy::Busy(std::atomic<bool>& flag) : flag_(flag) {
    if (flag_.exchange(true))
        throw std::logic_error("the simulation is in use by another thread (a Simulation steps in one thread at a "
                               "time; VectorEnv gives each thread its own)");
}

PythonSimulation::PythonSimulation(SceneDocument scene, const std::vector<std::string>& overrides,
                                   const std::optional<std::filesystem::path>& output, bool progress,
                                   std::function<int()> interrupt_requested)
    : scene_(std::move(scene)), loader_(std::make_unique<PluginLoader>(registry_)), id_(++simulations_made) {
    apply_overrides(scene_, overrides);
    load_scene_plugins(scene_, *loader_);
    simulation_ = std::make_unique<Simulation>(scene_, registry_);
    RunOptions options;
    options.progress = progress;
    options.observe = output.has_value();
    options.interrupt_requested = std::move(interrupt_requested);
    if (output) {
        output_ = *output;
        options.output_directory = *output;
        // A checkpoint the run writes rebuilds this scene with `soma run --restart`.
        options.scene.file = scene_.file;
        options.scene.directory = scene_.directory.string();
        options.scene.text = scene_.text;
        options.scene.overrides = overrides;
    }
    loop_ = std::make_unique<TimeLoop>(*simulation_, std::move(options));
}

PythonSimulation::~PythonSimulation() {
    try {
        close();
    } catch (const std::exception& e) {
        // A destructor must not throw: an output that cannot finish says so and is left as it is.
        fmt::print(stderr, "soma: closing the simulation: {}\n", e.what());
    }
}

void PythonSimulation::close() {
    const Busy busy(busy_);
    if (closed_) return;
    closed_ = true;
    loop_->finish(at_end());
}

void PythonSimulation::take_step(double until, long& taken) {
    if (loop_->step(until)) {
        ++taken;
        return;
    }
    if (loop_->checkpoint_failed()) {
        ++taken;
        throw std::runtime_error(loop_->diagnosis() + fmt::format(" (the step to t = {:.9g} s was taken)",
                                                                  simulation_->state().t));
    }
    if (loop_->interrupt_signal())
        throw Interrupted(fmt::format("interrupted at t = {:.9g} s", simulation_->state().t));
    throw StepFailed(loop_->diagnosis(), simulation_->state().t);
}

long PythonSimulation::step(long count) {
    const Busy busy(busy_);
    if (closed_) throw std::logic_error("the simulation was closed: its outputs are finished, it cannot step");
    long taken = 0;
    while (taken < count && !loop_->at_end()) take_step(std::numeric_limits<double>::infinity(), taken);
    return taken;
}

long PythonSimulation::advance(double seconds) {
    const Busy busy(busy_);
    if (closed_) throw std::logic_error("the simulation was closed: its outputs are finished, it cannot step");
    if (!(seconds >= 0.0) || !std::isfinite(seconds))
        throw InputError(fmt::format("advance: the duration must be finite and at least 0 s, got {}", seconds));
    const double stop = simulation_->state().t + seconds;
    long taken = 0;
    while (!loop_->reached(stop)) take_step(stop, taken);
    return taken;
}

StepTotals PythonSimulation::totals() const {
    const RunSummary& summary = loop_->summary();
    StepTotals totals;
    totals.steps = summary.steps;
    totals.newton_iterations = summary.newton_iterations;
    totals.retries = summary.retries;
    totals.linear_iterations = summary.linear_iterations;
    totals.simulated_time = simulation_->state().t - simulation_->start_time();
    return totals;
}

std::string PythonSimulation::summary_text() const {
    std::string text = format_summary(*simulation_, loop_->report(at_end()), output_);
    // format_summary speaks of a run that ended; this one may step on.
    if (!at_end()) text.replace(0, text.find('\n'), fmt::format("run in progress at t = {:.9g} s", simulation_->state().t));
    if (output_.empty()) {
        const std::size_t line = text.find("  outputs    none requested");
        if (line != std::string::npos) text.replace(line, std::string::npos, "  outputs    none written (no output folder given)\n");
    }
    return text;
}

std::shared_ptr<const Snapshot> PythonSimulation::snapshot() const {
    auto snapshot = std::make_shared<Snapshot>();
    snapshot->owner = id_;
    simulation_->save_checkpoint(snapshot->checkpoint);
    loop_->save(snapshot->checkpoint);
    snapshot->state = simulation_->state();
    snapshot->actuation = actuation_;
    return snapshot;
}

void PythonSimulation::restore(const Snapshot& snapshot, const State* edited) {
    const Busy busy(busy_);
    if (closed_) throw std::logic_error("the simulation was closed: it cannot take a state");
    // Another simulation's state may fit this one's sizes and still describe another scene.
    if (snapshot.owner != id_)
        throw InputError("set_state: the state was taken from another simulation; a state goes back to the "
                         "simulation that took it");
    const Index n = simulation_->dof_count();
    const Index nq = simulation_->configuration_size();
    if (edited) {
        const auto size_error = [](const char* name, Index got, Index expected) {
            return InputError(fmt::format("set_state: {} has {} entries, expected {}", name, got, expected));
        };
        if (edited->q.size() != nq) throw size_error("q", edited->q.size(), nq);
        if (edited->v.size() != n) throw size_error("v", edited->v.size(), n);
        if (edited->a.size() != n) throw size_error("a", edited->a.size(), n);
        if (!edited->q.allFinite() || !edited->v.allFinite() || !edited->a.allFinite())
            throw InputError("set_state: q, v and a must be finite");
        // Orientation coordinates (after the DOFs) follow from the DOFs: a body turns by a
        // rotation vector written into its tangent DOFs, which the commit folds in.
        if (nq > n && edited->q.tail(nq - n) != snapshot.state.q.tail(nq - n))
            throw InputError(fmt::format(
                "set_state: q[{}:] holds orientation coordinates (unit quaternions of rigid bodies), which follow from "
                "the DOFs; turn a body by writing a rotation vector (rad) into its three rotation DOFs in q[:{}]",
                n, n));
        // Fixed and prescribed DOFs take their values from the scene: an edit there would be
        // ignored by some integrators and fought by others.
        for (Index i = 0; i < n; ++i) {
            if (simulation_->dof_is_free(i)) continue;
            const char* which = edited->q[i] != snapshot.state.q[i]   ? "q"
                                : edited->v[i] != snapshot.state.v[i] ? "v"
                                : edited->a[i] != snapshot.state.a[i] ? "a"
                                                                      : nullptr;
            if (!which) continue;
            const auto [element, local] = simulation_->dof_map().owner(i);
            const Element& owner = *simulation_->elements()[static_cast<std::size_t>(element)];
            throw InputError(fmt::format("set_state: {}[{}] is {} {}, which the scene fixes or prescribes; edit "
                                         "free DOFs only",
                                         which, i, owner.name(), owner.describe_dof(local)));
        }
    }
    simulation_->restore_checkpoint(snapshot.checkpoint);
    loop_->restore(snapshot.checkpoint);
    // Every channel Python has set takes the snapshot's values, or, if it was set only after
    // the snapshot, its values from before Python first set it.
    for (const auto& [key, before] : untouched_) {
        const auto it = snapshot.actuation.find(key);
        Element& element = mutable_element(key.first);
        apply_actuation(element, channel_of(element, key.second), it != snapshot.actuation.end() ? it->second : before);
    }
    actuation_ = snapshot.actuation;
    if (edited && (edited->q != snapshot.state.q || edited->v != snapshot.state.v || edited->a != snapshot.state.a)) {
        State next = *edited;
        next.t = snapshot.state.t;
        simulation_->commit(std::move(next));
    }
}

const Element& PythonSimulation::element(const std::string& name) const {
    if (const Element* found = simulation_->find_element(name)) return *found;
    std::string names;
    for (const Element* e : simulation_->elements()) names += (names.empty() ? "'" : ", '") + e->name() + "'";
    throw InputError(fmt::format("no element named '{}' in the scene (elements: {})", name, names.empty() ? "none" : names));
}

Element& PythonSimulation::mutable_element(const std::string& name) {
    return const_cast<Element&>(element(name));  // the simulation owns its elements mutably
}

Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> PythonSimulation::point_positions(const std::string& name,
                                                                                             bool velocities) const {
    const Element& e = element(name);
    const Geometry& geometry = e.geometry();
    const State& state = simulation_->state();
    const std::size_t count = geometry.point_dofs.size();
    Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> out(static_cast<Index>(count), 3);
    if (geometry.mapped_points) {
        std::vector<Vec3> x(count), xdot(count);
        e.point_states(state.q, state.v, x, xdot);
        for (std::size_t p = 0; p < count; ++p) out.row(static_cast<Index>(p)) = (velocities ? xdot[p] : x[p]).transpose();
        return out;
    }
    const VectorX& source = velocities ? state.v : state.q;
    for (std::size_t p = 0; p < count; ++p)
        for (int k = 0; k < 3; ++k) out(static_cast<Index>(p), k) = source[geometry.point_dofs[p][static_cast<std::size_t>(k)]];
    return out;
}

ActuationChannel PythonSimulation::channel_of(const Element& element, const std::string& channel) const {
    const std::vector<ActuationChannel> channels = element.actuation_channels();
    for (const ActuationChannel& c : channels)
        if (c.name == channel) return c;
    std::string names;
    for (const ActuationChannel& c : channels) names += (names.empty() ? "'" : ", '") + c.name + "'";
    throw InputError(fmt::format("element '{}' has no actuation channel '{}' (its channels: {})", element.name(), channel,
                                 names.empty() ? "none" : names));
}

std::vector<double> PythonSimulation::current_actuation(const Element& element, const ActuationChannel& channel) const {
    const std::size_t components = channel.component_names.size();
    std::vector<double> values(static_cast<std::size_t>(channel.count) * components);
    for (Index item = 0; item < channel.count; ++item)
        for (std::size_t c = 0; c < components; ++c)
            values[static_cast<std::size_t>(item) * components + c] = element.actuation(channel.name, item, static_cast<int>(c));
    return values;
}

void PythonSimulation::apply_actuation(Element& element, const ActuationChannel& channel,
                                       const std::vector<double>& values) {
    const std::size_t components = channel.component_names.size();
    for (Index item = 0; item < channel.count; ++item)
        for (std::size_t c = 0; c < components; ++c)
            element.set_actuation(channel.name, item, static_cast<int>(c), values[static_cast<std::size_t>(item) * components + c]);
}

void PythonSimulation::set_actuation(const std::string& name, const std::string& channel_name,
                                     const std::vector<Index>& items, const std::vector<double>& values) {
    const Busy busy(busy_);
    Element& e = mutable_element(name);
    const ActuationChannel channel = channel_of(e, channel_name);
    const std::size_t components = channel.component_names.size();
    const std::size_t selected = items.empty() ? static_cast<std::size_t>(channel.count) : items.size();
    if (values.size() != selected * components)
        throw InputError(fmt::format("set_actuation('{}', '{}'): {} values for {} item(s) of {} component(s) ({}), "
                                     "expected {}",
                                     name, channel_name, values.size(), selected, components,
                                     fmt::join(channel.component_names, ", "), selected * components));
    for (const Index item : items)
        if (item < 0 || item >= channel.count)
            throw InputError(fmt::format("set_actuation('{}', '{}'): item {} is out of range (the channel has {} items)",
                                         name, channel_name, item, channel.count));
    for (const double value : values)
        if (!std::isfinite(value))
            throw InputError(fmt::format("set_actuation('{}', '{}'): values must be finite", name, channel_name));
    const ActuationKey key{name, channel_name};
    const auto set_before = actuation_.find(key);
    std::vector<double> next = set_before != actuation_.end() ? set_before->second : current_actuation(e, channel);
    const std::vector<double> previous = next;
    for (std::size_t k = 0; k < selected; ++k) {
        const std::size_t item = items.empty() ? k : static_cast<std::size_t>(items[k]);
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(k * components), components,
                    next.begin() + static_cast<std::ptrdiff_t>(item * components));
    }
    try {
        apply_actuation(e, channel, next);
    } catch (const std::exception& refused) {
        apply_actuation(e, channel, previous);  // all or nothing
        throw InputError(fmt::format("set_actuation('{}', '{}'): {}", name, channel_name, refused.what()));
    }
    untouched_.emplace(key, previous);  // the first time only: what a state from before goes back to
    actuation_[key] = std::move(next);
}

std::vector<double> PythonSimulation::actuation(const std::string& name, const std::string& channel_name) const {
    // The values as set (an element may store them transformed: a rod its discrete curvature).
    if (const auto it = actuation_.find({name, channel_name}); it != actuation_.end()) return it->second;
    const Element& e = element(name);
    return current_actuation(e, channel_of(e, channel_name));
}

}  // namespace soma::python
