#include "scene_runner.hpp"

#include <sstream>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

namespace soma::validation {

const TypeRegistry& plugin_registry() { return builtin_registry(); }

std::string hanging_helix_scene(const std::string& integrator, double duration, const std::string& dt,
                                const std::string& newton) {
    return "simulation: {duration: " + num(duration) + "}\n"
           "integrator: {type: " + integrator + ", dt: " + dt + newton + "}\n"
           "elements:\n"
           "  - name: helix\n"
           "    type: discrete_rod\n"
           "    geometry: {helix: {radius: 0.02, pitch: 0.01, turns: 4, nodes: 101}}\n"
           "    cross_section: {circle: {radius: 5.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: 1.0e7, poisson_ratio: 0.5}\n"
           "    fixed: {nodes: [-1, -2], edges: [-1]}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, -9.81]}\n";
}

std::unique_ptr<Simulation> build_scene(const std::string& yaml, const std::string& name) {
    return std::make_unique<Simulation>(load_scene_text(yaml, name), plugin_registry());
}

std::vector<double> csv_column(const std::string& name, const std::string& column) {
    std::ifstream csv(std::filesystem::temp_directory_path() / "soma-validation" / (name + ".csv"));
    REQUIRE(csv);
    const auto fields = [](const std::string& line) {
        std::vector<std::string> out;
        std::istringstream row(line);
        for (std::string field; std::getline(row, field, ',');) out.push_back(field);
        return out;
    };
    std::string line;
    std::getline(csv, line);
    const std::vector<std::string> header = fields(line);
    const auto at = std::find(header.begin(), header.end(), column);
    INFO("columns: " << line);
    REQUIRE(at != header.end());
    const auto index = static_cast<std::size_t>(at - header.begin());
    std::vector<double> values;
    while (std::getline(csv, line)) values.push_back(std::stod(fields(line).at(index)));
    return values;
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
    Vec3 x, xdot;
    e->point_state(index, simulation.state().q, simulation.state().v, x, xdot);
    return x;
}

Vec3 node_velocity(const Simulation& simulation, const std::string& element, long node) {
    const auto [e, index] = point(simulation, element, node);
    Vec3 x, xdot;
    e->point_state(index, simulation.state().q, simulation.state().v, x, xdot);
    return xdot;
}

AffineStep euler_step(const System& system, double h) {
    const State& s = system.state();
    const Index n = system.dof_count();
    AffineStep step;
    step.t_eval = s.t + h;
    step.dt = h;
    step.q_pred = s.q.head(n) + h * s.v;
    step.v_pred = s.v;
    step.a_pred = VectorX::Zero(n);
    step.coefficients = {h * h, h, 1.0};
    return step;
}

}  // namespace soma::validation
