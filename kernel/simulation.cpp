// The scene schema, plugin loading for a scene, and the Simulation's SceneView side (queries
// of the built scene and energies of the committed state). Building is in scene_builder.cpp;
// the System calls (evaluation, solves, commit) in simulation_system.cpp; Newton in newton.cpp.
#include "simulation.hpp"

#include "plugin_loader.hpp"
#include "scene_validation.hpp"
#include "type_registry.hpp"

#include <fmt/format.h>

namespace soma {

ParameterSchema scene_schema() {
    ParameterSchema s("scene", "A Soma scene file: what to simulate, how, and what to write.");
    ParameterSchema simulation("simulation", "Time span of the run.");
    simulation.real("duration", "simulated time span").unit("s").require().positive();
    simulation.real("start_time", "time of the initial state").unit("s").fallback(0.0);
    s.map("simulation", "time span", std::move(simulation)).require();
    s.string_list("plugin_paths", "extra plugin libraries or folders, relative to the scene file")
        .fallback(std::vector<std::string>{});
    ParameterSchema output("output", "Where results go.");
    output.string("directory", "output folder, relative to the working directory "
                               "(default out/<scene file name>; `soma run --output` overrides)")
        .fallback(std::string{});
    s.map("output", "output settings", std::move(output));
    ParameterSchema checkpoint("checkpoint", "Checkpoints for `soma run --restart` (docs/reliability.md).");
    checkpoint.integer("every", "write a checkpoint every N accepted steps (0: only when the run is interrupted)")
        .fallback(0L)
        .non_negative();
    checkpoint.string("file", "checkpoint file name in the output folder (replaced by each new checkpoint)")
        .fallback(std::string("checkpoint.soma"));
    checkpoint.boolean("on_interrupt", "write a checkpoint when Ctrl-C (SIGINT) or SIGTERM stops the run")
        .fallback(true);
    s.map("checkpoint", "checkpoint settings", std::move(checkpoint));
    s.typed("integrator", "time integrator (implicit_euler, implicit_midpoint, newmark, bdf2, bdf, statics, ...)",
            TypeKind::integrator)
        .require();
    s.typed("linear_solver", "sparse linear solver for the Newton steps (default: eigen_ldlt)",
            TypeKind::linear_solver);
    s.typed_list("elements", "bodies: rods, shells, ...", TypeKind::element).require().non_empty();
    ParameterSchema shared("shared_nodes", "Nodes of different elements that are one node (same DOFs).");
    shared.string_list("elements", "element names, one per shared node").require();
    shared.integer_list("nodes", "node index in each element (negative counts from the end)").require();
    s.map_list("shared_nodes", "nodes merged across elements (joints of rod networks)", std::move(shared));
    s.typed_list("forces", "external and interaction forces", TypeKind::force);
    s.typed_list("constraints", "joints and attachments solved with Lagrange multipliers (ball_joint, ...)",
                 TypeKind::constraint);
    s.typed_list("controllers", "time-varying actuation (natural curvature, hinge angles, ...)", TypeKind::controller);
    s.typed_list("outputs", "CSV series, VTK frames, ...", TypeKind::observer);
    s.typed_list("imports",
                 "blocks written by an importer (a URDF robot, ...), appended to the lists above before the scene is "
                 "validated; `soma imports SCENE` prints what each writes",
                 TypeKind::importer);
    return s;
}

void load_scene_plugins(const SceneDocument& scene, PluginLoader& loader) {
    loader.load_defaults();
    const YAML::Node paths = scene.root["plugin_paths"];
    if (!paths) return;
    if (!paths.IsSequence())
        throw InputError(locate(scene.file, scene.overrides, paths.Mark(), "plugin_paths"),
                         "expected a list of plugin files or folders");
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const YAML::Node item = paths[i];
        const SourceLocation where = locate(scene.file, scene.overrides, item.Mark(), fmt::format("plugin_paths[{}]", i));
        if (!item.IsScalar()) throw InputError(where, "expected a path string");
        std::filesystem::path p = item.as<std::string>();
        if (p.is_relative()) p = scene.directory / p;
        try {
            loader.load_path(p, "the scene's plugin_paths");
        } catch (const std::exception& e) {
            throw InputError(where, e.what());
        }
    }
}

Simulation::~Simulation() = default;

std::vector<const Constraint*> Simulation::constraint_terms() const {
    std::vector<const Constraint*> terms;
    for (const auto& c : constraints_.constraints()) terms.push_back(c.get());
    for (const auto& c : contacts_.constraints()) terms.push_back(c.get());
    return terms;
}

Element* Simulation::find_element(const std::string& name) const {
    for (Element* e : element_views_)
        if (e->name() == name) return e;
    return nullptr;
}

EvalContext Simulation::committed_context() const {
    EvalContext ctx = context_;
    ctx.t = state_.t;
    ctx.q = &state_.q;
    ctx.v = &state_.v;
    ctx.a = &state_.a;
    ctx.step_start = &state_;
    return ctx;
}

double Simulation::kinetic_energy() const {
    const EvalContext ctx = committed_context();
    double sum = 0.0;
    for (const Element* e : element_views_) sum += e->kinetic_energy(ctx);
    return sum;
}

double Simulation::potential_energy(const Contributor& term) const {
    return term.potential_energy(committed_context());
}

double Simulation::potential_energy() const {
    double sum = 0.0;
    for (const Contributor* c : contributors_) sum += potential_energy(*c);
    return sum;
}

std::string Simulation::element_type_name(const Element& element) const {
    for (std::size_t e = 0; e < elements_.size(); ++e)
        if (elements_[e].get() == &element) return element_parameters_[e].type_name();
    return "?";
}

}  // namespace soma
