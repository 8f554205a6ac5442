#include "scene_runner.hpp"

#include <sstream>

#include <catch2/catch.hpp>

#include <filesystem>

namespace soma::validation {

const TypeRegistry& plugin_registry() { return builtin_registry(); }

std::unique_ptr<Simulation> build_scene(const std::string& yaml, const std::string& name) {
    return std::make_unique<Simulation>(load_scene_text(yaml, name), plugin_registry());
}

RunResult run_to_end(Simulation& simulation) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-validation";
    options.progress = false;
    RunResult result = run_simulation(simulation, options);
    INFO(result.diagnosis);
    REQUIRE(result.summary.completed);
    return result;
}

std::string num(double x) {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

bool step_once(Simulation& simulation, double dt) {
    simulation.begin_attempt();
    const StepReport report = simulation.integrator().step(simulation, dt);
    if (!report.converged) simulation.reject_attempt();
    return report.converged;
}

namespace {
/// The element and the point index `node` (negative counts from the end) names.
std::pair<const Element*, Index> point(const Simulation& simulation, const std::string& element, long node) {
    const Element* e = simulation.find_element(element);
    REQUIRE(e != nullptr);
    const long count = static_cast<long>(e->geometry().point_dofs.size());
    const long index = node < 0 ? node + count : node;
    REQUIRE(index >= 0);
    REQUIRE(index < count);
    return {e, static_cast<Index>(index)};
}
}  // namespace

Vec3 node_position(const Simulation& simulation, const std::string& element, long node) {
    const auto [e, index] = point(simulation, element, node);
    return point_position(*e, index, simulation.state().q);
}

Vec3 node_velocity(const Simulation& simulation, const std::string& element, long node) {
    const auto [e, index] = point(simulation, element, node);
    return point_velocity(*e, index, simulation.state().q, simulation.state().v);
}

}  // namespace soma::validation
