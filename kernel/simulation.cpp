// Building a Simulation from a validated scene, and its SceneView side.
// The System calls (evaluation, solves, commit) are in simulation_system.cpp; Newton in newton.cpp.
#include "simulation.hpp"

#include "dof_selection.hpp"
#include "plugin_loader.hpp"
#include "scene_validation.hpp"
#include "type_registry.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <set>

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
    s.typed("integrator", "time integrator (implicit_euler, implicit_midpoint, newmark, statics, ...)",
            TypeKind::integrator)
        .require();
    s.typed("linear_solver", "sparse linear solver for the Newton steps (default: eigen_ldlt)",
            TypeKind::linear_solver);
    s.typed_list("elements", "bodies: rods, shells, ...", TypeKind::element).require();
    ParameterSchema shared("shared_nodes", "Nodes of different elements that are one node (same DOFs).");
    shared.string_list("elements", "element names, one per shared node").require();
    shared.integer_list("nodes", "node index in each element (negative counts from the end)").require();
    s.map_list("shared_nodes", "nodes merged across elements (joints of rod networks)", std::move(shared));
    s.typed_list("forces", "external and interaction forces", TypeKind::force);
    s.typed_list("constraints", "joints and attachments solved with Lagrange multipliers (ball_joint, ...)",
                 TypeKind::constraint);
    s.typed_list("controllers", "time-varying actuation (natural curvature, hinge angles, ...)", TypeKind::controller);
    s.typed_list("outputs", "CSV series, VTK frames, ...", TypeKind::observer);
    return s;
}

void load_scene_plugins(const SceneDocument& scene, PluginLoader& loader) {
    loader.load_defaults();
    const YAML::Node paths = scene.root["plugin_paths"];
    if (!paths) return;
    if (!paths.IsSequence())
        throw InputError(SourceLocation{scene.file, paths.Mark().line + 1, paths.Mark().column + 1, "plugin_paths"},
                         "expected a list of plugin files or folders");
    for (std::size_t i = 0; i < paths.size(); ++i) {
        const YAML::Node item = paths[i];
        SourceLocation where{scene.file, item.Mark().line + 1, item.Mark().column + 1, fmt::format("plugin_paths[{}]", i)};
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

namespace {

template <class T>
const Factory<T>& factory_of(const TypeRegistry::Entry& entry) {
    return std::get<Factory<T>>(entry.factory);
}

/// A validated block for a typed key absent from the scene (the documented default type).
Parameters default_typed_block(const TypeRegistry& registry, const std::string& key, TypeKind kind,
                               const std::string& type) {
    ParameterSchema wrapper("default", "");
    wrapper.typed(key, "", kind);
    const SceneDocument doc = load_scene_text(key + ": {type: " + type + "}", "<default " + key + ">");
    return make_scene_parameters(doc, wrapper, registry).block(key);
}

}  // namespace

Simulation::Simulation(const SceneDocument& scene, const TypeRegistry& registry) {
    const ParameterSchema schema = scene_schema();
    const Parameters root = make_scene_parameters(scene, schema, registry);

    const Parameters sim = root.block("simulation");
    start_time_ = sim.real("start_time");
    end_time_ = start_time_ + sim.real("duration");
    output_directory_ = root.block("output").string("directory");

    // Elements: construct, then number DOFs (shared nodes merge), then bind.
    std::set<std::string> names;
    for (const Parameters& block : root.blocks("elements")) {
        const auto* entry = registry.find(TypeKind::element, block.type_name());
        const std::string name = block.string("name");
        if (!names.insert(name).second)
            block.fail("name", fmt::format("duplicate element name '{}': element names must be unique", name));
        std::unique_ptr<Element> element = factory_of<Element>(*entry)(block);
        element->set_name(name);
        element_views_.push_back(element.get());
        elements_.push_back(std::move(element));
        element_parameters_.push_back(block);
    }
    std::vector<Index> counts;
    for (const auto& e : elements_) counts.push_back(e->dof_count());
    dofs_ = DofMap(counts);
    build_shared_nodes(root);
    dofs_.finalize();
    // Manifold blocks' coordinates go after the velocity DOFs in q (element.hpp, ManifoldBlock).
    const Index n = dofs_.global_count();
    Index next_coordinate = n;
    for (std::size_t e = 0; e < elements_.size(); ++e) {
        Element& element = *elements_[e];
        const auto blocks = element.manifold_blocks();
        std::vector<Index> coordinates;
        const auto& map = dofs_.element_map(static_cast<Index>(e));
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            const ManifoldBlock& block = blocks[b];
            if (block.tangent_size < 1 || block.tangent_size > kMaxManifoldTangent || block.coordinate_count < 1 ||
                block.first_dof < 0 || block.first_dof + block.tangent_size > element.dof_count())
                throw std::logic_error(fmt::format("element '{}' declares an invalid manifold block {} ('{}')",
                                                   element.name(), b, block.name));
            ManifoldSlot slot;
            slot.element = &element;
            slot.block = static_cast<Index>(b);
            slot.coordinate = next_coordinate;
            slot.tangent_size = block.tangent_size;
            slot.coordinate_count = block.coordinate_count;
            for (int k = 0; k < block.tangent_size; ++k) slot.tangent[k] = map[static_cast<std::size_t>(block.first_dof + k)];
            manifold_.push_back(slot);
            coordinates.push_back(next_coordinate);
            next_coordinate += block.coordinate_count;
        }
        element.bind(map, std::move(coordinates));
    }

    // Initial state; shared DOFs must start at the same value in every element.
    state_.t = start_time_;
    state_.q = VectorX::Zero(next_coordinate);
    state_.v = VectorX::Zero(n);
    state_.a = VectorX::Zero(n);
    std::vector<char> written(static_cast<std::size_t>(n), 0);
    for (std::size_t e = 0; e < elements_.size(); ++e) {
        VectorX q_local(elements_[e]->dof_count()), v_local(elements_[e]->dof_count());
        elements_[e]->initial_state(q_local, v_local);
        for (Index l = 0; l < q_local.size(); ++l) {
            const Index g = elements_[e]->global_dof(l);
            if (written[g]) {
                const double scale = std::max({1.0, std::abs(state_.q[g]), std::abs(q_local[l])});
                const double v_scale = std::max({1.0, std::abs(state_.v[g]), std::abs(v_local[l])});
                if (std::abs(state_.v[g] - v_local[l]) > 1e-9 * v_scale)
                    element_parameters_[e].fail(
                        "name", fmt::format("shared DOF '{}' starts with velocity {} in this element but {} in '{}': "
                                            "shared nodes must move together initially",
                                            elements_[e]->describe_dof(l), v_local[l], state_.v[g],
                                            elements_[dofs_.owner(g).first]->name()));
                if (std::abs(state_.q[g] - q_local[l]) > 1e-9 * scale)
                    element_parameters_[e].fail(
                        "name", fmt::format("shared DOF '{}' starts at {} in this element but at {} in '{}': shared "
                                            "nodes must coincide initially",
                                            elements_[e]->describe_dof(l), q_local[l], state_.q[g],
                                            elements_[dofs_.owner(g).first]->name()));
                written[g] = 2;
                continue;
            }
            written[g] = 1;
            state_.q[g] = q_local[l];
            state_.v[g] = v_local[l];
        }
    }

    for (const ManifoldSlot& slot : manifold_)
        slot.element->initial_block_configuration(slot.block, state_.q.data() + slot.coordinate);
    for (const ManifoldSlot& slot : manifold_)
        for (int k = 0; k < slot.tangent_size; ++k)
            if (written[slot.tangent[k]] > 1)
                throw std::logic_error(fmt::format("element '{}': a DOF of manifold block {} is shared with another "
                                                   "element; only vector-space DOFs can be shared",
                                                   slot.element->name(), slot.block));

    build_boundary_conditions();
    // Prescribed DOFs start with their motion's velocity and acceleration.
    for (const Prescribed& p : prescribed_) {
        state_.v[p.dof] = prescribed_rate(p, start_time_, 1);
        state_.a[p.dof] = prescribed_rate(p, start_time_, 2);
    }
    for (const auto& e : elements_) contributors_.push_back(e.get());
    // An element's connect() reports what it cannot build at the element (its own checks of
    // boundary conditions or references); located errors (Parameters::fail) pass through.
    for (std::size_t e = 0; e < elements_.size(); ++e) {
        try {
            elements_[e]->connect(*this);
        } catch (const std::invalid_argument& error) {
            element_parameters_[e].fail("", error.what());
        } catch (const std::out_of_range& error) {
            element_parameters_[e].fail("", error.what());
        }
    }
    build_constraints(root, registry);
    build_forces(root, registry);
    build_solver_and_integrator(root, registry);

    for (const Parameters& block : root.blocks("controllers")) {
        const auto* entry = registry.find(TypeKind::controller, block.type_name());
        controllers_.push_back(factory_of<Controller>(*entry)(block));
        controllers_.back()->bind(*this);
    }
    for (const Parameters& block : root.blocks("outputs")) {
        const auto* entry = registry.find(TypeKind::observer, block.type_name());
        observers_.push_back(factory_of<Observer>(*entry)(block));
        observers_.back()->bind(*this);
    }

    // Newton work buffers.
    q_ = state_.q;
    v_ = state_.v;
    a_ = state_.a;
    // The Newton unknowns: the free DOFs, then one multiplier per constraint row.
    free_index_ = dofs_.free_index();
    free_dofs_ = dofs_.free_dofs();
    for (Index r = 0; r < constraint_rows_; ++r) {
        free_index_.push_back(dofs_.free_count() + r);
        free_dofs_.push_back(n + r);
    }
    const Index unknowns = dofs_.free_count() + constraint_rows_;
    residual_ = VectorX::Zero(n + constraint_rows_);
    residual_free_ = VectorX::Zero(unknowns);
    column_rhs_ = VectorX::Zero(unknowns);
    column_solution_ = VectorX::Zero(unknowns);
    lambda_ = VectorX::Zero(constraint_rows_);
    build_constraint_rows();
    pattern_changed_.reserve(contributors_.size());
    rebuild_pattern();
    newton_work_ = std::make_unique<NewtonWorkspace>(*this);

    // Elements see the initial state as committed (reference frames etc.).
    for (Contributor* c : contributors_) c->commit_step(state_);
}

void Simulation::build_constraints(const Parameters& root, const TypeRegistry& registry) {
    for (const Parameters& block : root.blocks("constraints")) {
        const auto* entry = registry.find(TypeKind::constraint, block.type_name());
        std::unique_ptr<Constraint> constraint = factory_of<Constraint>(*entry)(block);
        constraint->set_name(block.has("name") ? block.string("name") : block.type_name());
        constraint->bind(*this);
        const Index rows = constraint->row_count();
        const auto k = static_cast<Index>(constraint->dofs().size());
        ConstraintEvaluation work;
        work.value = VectorX::Zero(rows);
        work.force_jacobian = Eigen::MatrixXd::Zero(rows, k);
        work.position_jacobian = Eigen::MatrixXd::Zero(rows, k);
        work.curvature = Eigen::MatrixXd::Zero(k, k);
        constraint_work_.push_back(std::move(work));
        constraint_residual_work_.push_back(VectorX::Zero(k + rows));
        constraint_block_work_.push_back(Eigen::MatrixXd::Zero(k + rows, k + rows));
        constraint_first_row_.push_back(constraint_rows_);
        constraint_rows_ += rows;
        constraints_.push_back(std::move(constraint));
        constraint_parameters_.push_back(block);
    }
}

void Simulation::build_solver_and_integrator(const Parameters& root, const TypeRegistry& registry) {
    // Default: LDLT, which reads one triangle; a scene whose Jacobian is unsymmetric by nature
    // (rigid bodies' gyroscopic terms) gets LU, so that Newton stays exact.
    const Contributor* unsymmetric = nullptr;
    for (const Contributor* c : contributors_)
        if (!unsymmetric && !c->symmetric_jacobian() && dynamic_cast<const Element*>(c)) unsymmetric = c;
    // Hard constraints make the KKT matrix indefinite with zero pivots, which LDLT without
    // pivoting may meet: LU as well.
    const Constraint* hard = nullptr;
    for (std::size_t i = 0; i < constraints_.size() && !hard; ++i)
        for (Index r = 0; r < constraints_[i]->row_count(); ++r)
            if (constraints_[i]->compliance(r) == 0.0) hard = constraints_[i].get();
    const char* default_solver = unsymmetric || hard ? "eigen_lu" : "eigen_ldlt";
    if (!root.has("linear_solver") && unsymmetric)
        notes_.push_back(fmt::format("linear solver: eigen_lu (the default for scenes whose elements have an "
                                     "unsymmetric Jacobian, here '{}'); name one under `linear_solver` to choose",
                                     unsymmetric->name()));
    else if (!root.has("linear_solver") && hard)
        notes_.push_back(fmt::format("linear solver: eigen_lu (the default for scenes with hard constraints, here "
                                     "'{}': their KKT matrix is indefinite); name one under `linear_solver` to choose",
                                     hard->name()));
    const Parameters solver_block = root.has("linear_solver")
                                        ? root.block("linear_solver")
                                        : default_typed_block(registry, "linear_solver", TypeKind::linear_solver, default_solver);
    const auto* solver_entry = registry.find(TypeKind::linear_solver, solver_block.type_name());
    if (!solver_entry)
        throw InputError(solver_block.location(), registry.unknown_type_message(TypeKind::linear_solver, solver_block.type_name()));
    solver_ = factory_of<LinearSolver>(*solver_entry)(solver_block);
    const LinearSolverCapabilities caps = solver_->capabilities();
    if (!caps.unsymmetric)
        for (const Contributor* c : contributors_)
            if (!c->symmetric_jacobian())
                notes_.push_back(fmt::format(
                    "'{}' makes the Jacobian unsymmetric, but linear solver '{}' reads only one triangle: "
                    "Newton then takes quasi-Newton steps and may need more iterations; choose eigen_lu (or petsc "
                    "with ksp_type gmres and pc_type ilu) for exact Newton steps",
                    c->name(), solver_block.type_name()));

    const Parameters integrator_block = root.block("integrator");
    const auto* integrator_entry = registry.find(TypeKind::integrator, integrator_block.type_name());
    integrator_ = factory_of<Integrator>(*integrator_entry)(integrator_block);
    for (std::size_t i = 0; i < constraints_.size(); ++i)
        if (!integrator_->supports(constraints_[i]->kind()))
            constraint_parameters_[i].fail("type", fmt::format("integrator '{}' does not treat constraints of this kind; "
                                                               "implicit_euler, implicit_midpoint and statics do",
                                                               integrator_block.type_name()));
    nominal_dt_ = integrator_block.real("dt");
    note_penalty_contact_pairing(integrator_block);
    if (nominal_dt_ > end_time_ - start_time_)
        integrator_block.fail("dt", fmt::format("dt = {} is longer than the simulated duration {}", nominal_dt_,
                                                end_time_ - start_time_));
    const Parameters newton = integrator_block.block("newton");
    newton_.absolute_tolerance = newton.real("absolute_tolerance");
    newton_.relative_tolerance = newton.real("relative_tolerance");
    newton_.increment_tolerance = newton.real("increment_tolerance");
    newton_.max_iterations = static_cast<int>(newton.integer("max_iterations"));
    newton_.constraint_tolerance = newton.real("constraint_tolerance");
    newton_.line_search = newton.boolean("line_search");
    newton_.line_search_steps = static_cast<int>(newton.integer("line_search_steps"));
    newton_.line_search_start = static_cast<int>(newton.integer("line_search_start"));
    const Parameters adaptive = integrator_block.block("adaptive");
    adaptive_.enabled = adaptive.boolean("enabled");
    adaptive_.max_retries = static_cast<int>(adaptive.integer("max_retries"));
    adaptive_.shrink = adaptive.real("shrink");
    adaptive_.grow = adaptive.real("grow");
    adaptive_.grow_after = static_cast<int>(adaptive.integer("grow_after"));
}

void Simulation::note_penalty_contact_pairing(const Parameters& integrator_block) {
    // A stiff penalty's contact vibration is usually unresolved (omega h >> 1). An integrator
    // that does not damp such modes keeps it bouncing, and the penalty's strong nonlinearity
    // lets it gain energy (tests/validation/test_stiff_contact.cpp).
    if (integrator_->is_static() || integrator_->damps_unresolved_modes()) return;
    for (const Contributor* c : contributors_)
        if (c->is_penalty_contact())
            notes_.push_back(fmt::format(
                "{}: integrator '{}' does not damp vibrations the time step cannot resolve, and '{}' is a penalty "
                "contact: a stiff one (contact frequency omega with omega dt >> 1) keeps bouncing and may gain "
                "energy; for stiff contact choose implicit_euler, or newmark with gamma > 1/2 "
                "(docs/architecture.md, \"Choosing an integrator\")",
                integrator_block.location("type").str(), integrator_block.type_name(), c->name()));
}

Simulation::~Simulation() = default;

void Simulation::build_shared_nodes(const Parameters& root) {
    for (const Parameters& block : root.blocks("shared_nodes")) {
        const auto element_names = block.string_list("elements");
        const auto nodes = block.integer_list("nodes");
        if (element_names.size() != nodes.size())
            block.fail("nodes", fmt::format("needs one node per element: {} elements but {} nodes",
                                            element_names.size(), nodes.size()));
        if (element_names.size() < 2) block.fail("elements", "a shared node joins at least two elements");
        Index first_element = -1, first_node = -1;
        for (std::size_t i = 0; i < element_names.size(); ++i) {
            Index e = -1;
            for (std::size_t k = 0; k < elements_.size(); ++k)
                if (elements_[k]->name() == element_names[i]) e = static_cast<Index>(k);
            if (e < 0) block.fail("elements", fmt::format("no element named '{}'", element_names[i]));
            const auto groups = elements_[e]->dof_groups();
            const DofGroup* g = find_dof_group(groups, "nodes");
            if (!g) block.fail("elements", fmt::format("element '{}' has no nodes to share", element_names[i]));
            const Index node = resolve_item_index(nodes[i], g->count, block, "nodes", "node");
            if (i == 0) {
                first_element = e;
                first_node = node;
                continue;
            }
            for (int c = 0; c < g->dofs_per_item; ++c)
                dofs_.share(first_element, elements_[first_element]->group_dof("nodes", first_node, c), e,
                            elements_[e]->group_dof("nodes", node, c));
        }
    }
}

namespace {

/// What constrains a global DOF, and which entry constrained it first (for messages about a
/// second selection of the same DOF).
struct DofClaim {
    enum class Kind { free, fixed, prescribed } kind = Kind::free;
    std::string by;          ///< key path of the entry, e.g. "elements[0].prescribed[1]"
    std::string expression;  ///< prescribed: the displacement expression, spaces removed
    bool held_by_region = false;  ///< fixed as an edge the entry's regions hold (include_edges)
};

std::string without_spaces(std::string text) {
    std::erase_if(text, [](unsigned char c) { return std::isspace(c) != 0; });
    return text;
}

std::string claimed_by(const DofClaim& claim) {
    if (claim.kind == DofClaim::Kind::prescribed)
        return fmt::format("prescribed by {} (displacement '{}')", claim.by, claim.expression);
    if (claim.held_by_region)
        return fmt::format("held fixed by the regions of {} (include_edges: false there leaves it free to prescribe)",
                           claim.by);
    return "fixed by " + claim.by;
}

}  // namespace

void Simulation::build_boundary_conditions() {
    // A DOF may be selected several times when the selections agree: fixed twice, or prescribed
    // twice with the same expression. Fixed and prescribed, or two different motions, are errors.
    std::vector<DofClaim> claims(static_cast<std::size_t>(dofs_.global_count()));
    auto fix = [&](const Element& element, Index local, const SelectedItem& at, const std::string& entry,
                   bool held_by_region) {
        const Index dof = element.global_dof(local);
        DofClaim& claim = claims[static_cast<std::size_t>(dof)];
        if (claim.kind == DofClaim::Kind::fixed) return;  // fixed twice: they agree
        if (claim.kind == DofClaim::Kind::prescribed)
            at.at.fail(at.key, fmt::format("{}{} is already {}: a DOF is either fixed or prescribed{}",
                                           element.describe_dof(local),
                                           held_by_region ? ", held fixed by this entry's regions," : "",
                                           claimed_by(claim),
                                           held_by_region ? " (include_edges: false here leaves it to that prescription)"
                                                          : ""));
        claim = DofClaim{DofClaim::Kind::fixed, entry, {}, held_by_region};
        dofs_.fix(dof);
        fixed_.push_back(dof);
    };
    auto prescribe = [&](const Element& element, Index local, const SelectedItem& at, const std::string& entry,
                         const std::string& text, std::size_t expression) {
        const Index dof = element.global_dof(local);
        if (is_manifold_dof(dof))
            at.at.fail(at.key, fmt::format("{} moves on a manifold (a rotation): prescribed motion is defined for "
                                           "vector-space DOFs only; fix it instead",
                                           element.describe_dof(local)));
        DofClaim& claim = claims[static_cast<std::size_t>(dof)];
        const std::string normalized = without_spaces(text);
        if (claim.kind == DofClaim::Kind::prescribed && claim.expression == normalized) return;  // they agree
        if (claim.kind == DofClaim::Kind::prescribed)
            at.at.fail(at.key, fmt::format("{} is already {}, here '{}': two prescriptions of one DOF must be the "
                                           "same expression",
                                           element.describe_dof(local), claimed_by(claim), normalized));
        if (claim.kind == DofClaim::Kind::fixed)
            at.at.fail(at.key, fmt::format("{} is already {}: a DOF is either fixed or prescribed",
                                           element.describe_dof(local), claimed_by(claim)));
        claim = DofClaim{DofClaim::Kind::prescribed, entry, normalized, false};
        dofs_.prescribe(dof);
        prescribed_.push_back({dof, state_.q[dof], expression});
    };

    for (std::size_t e = 0; e < elements_.size(); ++e) {
        Element& element = *elements_[e];
        const Parameters& block = element_parameters_[e];
        const std::string type = block.type_name();
        const auto groups = element.dof_groups();
        // The element's own holds first (a planar rod), so that a prescription of one of them is
        // reported at the prescription.
        const HeldDofs held = element.held_dofs();
        for (Index local : held.local)
            fix(element, local, SelectedItem{0, block, held.key}, block.location(held.key).path, false);

        for (const Parameters& fixed : block.blocks("fixed")) {
            const std::string fixed_path = fixed.location().path;
            const DofSelection fixed_selection = select_dofs(element, type, fixed, state_.q);
            for (const SelectedItem& node : fixed_selection.nodes)
                for (int c : fixed_selection.node_components)
                    fix(element, element.group_dof("nodes", node.item, c), node, fixed_path, false);
            for (const auto* edges : {&fixed_selection.listed_edges, &fixed_selection.region_edges})
                for (const SelectedItem& edge : *edges)
                    for (int c = 0; c < find_dof_group(groups, "edges")->dofs_per_item; ++c)
                        fix(element, element.group_dof("edges", edge.item, c), edge, fixed_path,
                            edges == &fixed_selection.region_edges);
        }

        for (const Parameters& item : block.blocks("prescribed")) {
            const std::string path = item.location().path;
            const auto displacement = item.string_list("displacement");
            const DofSelection selection = select_dofs(element, type, item, state_.q);
            for (const char* group : {"nodes", "edges"}) {
                const bool of_nodes = std::string(group) == "nodes";
                const auto& items = of_nodes ? selection.nodes : selection.listed_edges;
                if (items.empty()) continue;
                const DofGroup* g = find_dof_group(groups, group);
                // The components this entry moves: for nodes those it lists (all by default), for
                // edges every DOF of the edge. Expression k drives components[k].
                std::vector<int> components = selection.node_components;
                if (!of_nodes) {
                    components.clear();
                    for (int c = 0; c < g->dofs_per_item; ++c) components.push_back(c);
                }
                if (displacement.size() != components.size()) {
                    if (of_nodes && item.has("components"))
                        item.fail("displacement", fmt::format("`components` lists {} component(s), but {} expressions "
                                                              "are given: one per listed component",
                                                              components.size(), displacement.size()));
                    item.fail("displacement", fmt::format("{} have {} components ({}), but {} expressions are given",
                                                          group, g->dofs_per_item, fmt::join(g->component_names, ", "),
                                                          displacement.size()));
                }
                const std::size_t first_expression = expressions_.size();
                for (const auto& text : displacement) expressions_.emplace_back(text, item.location("displacement"));
                for (const SelectedItem& it : items)
                    for (std::size_t k = 0; k < components.size(); ++k)
                        prescribe(element, element.group_dof(group, it.item, components[k]), it, path, displacement[k],
                                  first_expression + k);
            }
            // Edges inside a moving clamp keep their initial value (the schema's include_edges doc says why).
            for (const SelectedItem& edge : selection.region_edges)
                for (int c = 0; c < find_dof_group(groups, "edges")->dofs_per_item; ++c)
                    fix(element, element.group_dof("edges", edge.item, c), edge, path, true);
        }
    }
    dofs_.number_free();
}

void Simulation::build_forces(const Parameters& root, const TypeRegistry& registry) {
    for (const Parameters& block : root.blocks("forces")) {
        const auto* entry = registry.find(TypeKind::force, block.type_name());
        std::unique_ptr<Force> force = factory_of<Force>(*entry)(block);
        force->set_name(block.has("name") ? block.string("name") : block.type_name());
        force->bind(*this);
        contributors_.push_back(force.get());
        forces_.push_back(std::move(force));
    }
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
