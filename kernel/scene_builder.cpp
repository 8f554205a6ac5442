// The scene builder: a Simulation built from a validated scene, in the order the objects depend
// on each other: elements, the DOF map (shared nodes merged), manifold coordinates, the initial
// state, boundary conditions, element connections, constraints, forces, the linear solver and
// integrator, controllers and outputs, then the assembly pattern. Everything a scene can get
// wrong is reported here, located at the input (file:line:col and key).
#include "simulation.hpp"

#include "dof_selection.hpp"
#include "output_files.hpp"
#include "plugin_loader.hpp"
#include "scene_imports.hpp"
#include "scene_validation.hpp"
#include "step_size_floor.hpp"
#include "type_registry.hpp"

#include "soma/input_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace soma {
namespace {

template <class T>
const Factory<T>& factory_of(const TypeRegistry::Entry& entry) {
    return std::get<Factory<T>>(entry.factory);
}

/// A validated block for a typed key absent from the scene (the documented default type).
Parameters default_typed_block(const TypeRegistry& registry, const std::string& key, TypeKind kind,
                               const std::string& type, const std::string& required = "") {
    ParameterSchema wrapper("default", "");
    wrapper.typed(key, "", kind);
    const SceneDocument doc = load_scene_text(key + ": {type: " + type + required + "}", "<default " + key + ">");
    return make_scene_parameters(doc, wrapper, registry).block(key);
}

/// The names, comma-separated, of the registered types of \p kind whose default configuration
/// (built under \p key, with \p required added to the block) satisfies \p has: the types a
/// refusal can recommend, a third-party plugin's included. A type that throws is skipped.
template <typename Object, typename Predicate>
std::string registered_types_where(const TypeRegistry& registry, const std::string& key, TypeKind kind,
                                   const std::string& required, Predicate has) {
    std::string names;
    for (const TypeRegistry::Entry* entry : registry.entries()) {
        if (entry->kind != kind) continue;
        try {
            const Parameters defaults = default_typed_block(registry, key, kind, entry->name, required);
            if (has(*factory_of<Object>(*entry)(defaults))) names += (names.empty() ? "" : ", ") + entry->name;
        } catch (const std::exception&) {
        }
    }
    return names;
}

}  // namespace

Simulation::Simulation(const SceneDocument& as_written, const TypeRegistry& registry) {
    const ParameterSchema schema = scene_schema();
    // Imports first: what they write is validated with the rest of the scene.
    const SceneDocument scene = expand_imports(as_written, registry, &imported_);
    const Parameters root = make_scene_parameters(scene, schema, registry);
    // The scene's own constraints, before those its imports appended (build_constraints).
    std::size_t own_constraints = 0;
    if (as_written.root.IsMap())
        if (const YAML::Node listed = as_written.root["constraints"]; listed && listed.IsSequence())
            own_constraints = listed.size();

    const Parameters sim = root.block("simulation");
    start_time_ = sim.real("start_time");
    end_time_ = start_time_ + sim.real("duration");
    // Before any element is built: a run of more steps than anyone can wait for is a typo
    // (`dt: 1e-300`, `duration: 1e9` with a millisecond step).
    if (const Parameters integrator = root.block("integrator"); integrator.has("dt")) {
        const double steps = sim.real("duration") / integrator.real("dt");
        if (steps > kMaxTimeSteps)
            integrator.fail("dt", fmt::format("dt = {} over a duration of {} s asks for {:.3g} time steps, above the "
                                              "maximum of {:.0e} steps per run (docs/reliability.md, Input limits): "
                                              "use a larger dt or a shorter duration",
                                              integrator.real("dt"), sim.real("duration"), steps, kMaxTimeSteps));
    }
    output_directory_ = root.block("output").string("directory");
    const Parameters checkpoint = root.block("checkpoint");
    checkpoint_.every = checkpoint.integer("every");
    checkpoint_.file = checkpoint.string("file");
    checkpoint_.on_interrupt = checkpoint.boolean("on_interrupt");
    // A bare file name: a checkpoint lives in its run's output folder, never outside it.
    if (checkpoint_.file.empty() || std::filesystem::path(checkpoint_.file).filename() != checkpoint_.file ||
        checkpoint_.file == "." || checkpoint_.file == "..")
        checkpoint.fail("file", fmt::format("'{}' is not a plain file name: the checkpoint is written in the output "
                                            "folder, so give a name without folders, such as 'checkpoint.soma'",
                                            checkpoint_.file));

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
    manifold_.place(elements_, dofs_);

    // Initial state; shared DOFs must start at the same value in every element.
    state_.t = start_time_;
    state_.q = VectorX::Zero(manifold_.configuration_size());
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

    std::vector<char> shared(written.size());
    for (std::size_t g = 0; g < written.size(); ++g) shared[g] = written[g] > 1;
    manifold_.initialize(state_.q, shared);

    boundary_.build(elements_, element_parameters_, state_.q, [this](Index g) { return manifold_.contains(g); }, dofs_);
    boundary_.start(state_);  // prescribed DOFs start with their motion's velocity and acceleration
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
    build_constraints(root, registry, own_constraints);
    build_forces(root, registry);
    build_solver_and_integrator(root, registry);

    for (const Parameters& block : root.blocks("controllers")) {
        const auto* entry = registry.find(TypeKind::controller, block.type_name());
        controllers_.push_back(factory_of<Controller>(*entry)(block));
        controllers_.back()->bind(*this);
    }
    const std::vector<Parameters> output_blocks = root.blocks("outputs");
    for (const Parameters& block : output_blocks) {
        const auto* entry = registry.find(TypeKind::observer, block.type_name());
        observers_.push_back(factory_of<Observer>(*entry)(block));
        observers_.back()->bind(*this);
    }
    check_planned_files(observers_, output_blocks);

    // Newton work buffers.
    q_ = state_.q;
    v_ = state_.v;
    a_ = state_.a;
    // The Newton unknowns: the free DOFs, then one multiplier per constraint row.
    free_index_ = dofs_.free_index();
    free_dofs_ = dofs_.free_dofs();
    const Index constraint_rows = constraints_.row_count();
    for (Index r = 0; r < constraint_rows; ++r) {
        free_index_.push_back(dofs_.free_count() + r);
        free_dofs_.push_back(n + r);
    }
    const Index unknowns = dofs_.free_count() + constraint_rows;
    residual_ = VectorX::Zero(n + constraint_rows);
    residual_free_ = VectorX::Zero(unknowns);
    residual_scale_ = VectorX::Zero(n + constraint_rows);
    force_scale_free_ = VectorX::Zero(dofs_.free_count());
    column_rhs_ = VectorX::Zero(unknowns);
    column_solution_ = VectorX::Zero(unknowns);
    lambda_ = VectorX::Zero(constraint_rows);
    constraints_.finalize(n);
    pattern_changed_.reserve(contributors_.size());
    timings_.term_assembly.assign(contributors_.size(), 0.0);
    timings_.term_step_start.assign(contributors_.size(), 0.0);
    for (std::size_t e = 0; e < elements_.size(); ++e) term_labels_.push_back(element_parameters_[e].type_name());
    for (std::size_t i = elements_.size(); i < contributors_.size(); ++i) term_labels_.push_back(contributors_[i]->name());
    rebuild_pattern();
    analyze_pattern();  // with the scene's other allocations, not in the first step
    newton_work_ = std::make_unique<NewtonWorkspace>(*this);

    // Elements see the initial state as committed (reference frames etc.).
    for (Contributor* c : contributors_) c->commit_step(state_);
    if (integrator_->solves_with_mass_alone()) refuse_massless_free_dofs(root.block("integrator"));
}

void Simulation::refuse_massless_free_dofs(const Parameters& integrator_block) {
    // With c = (0, 0, 1) the Jacobian is dF/da = M. A free DOF with a zero diagonal there has no
    // mass (M is positive semi-definite, so its whole row is zero): M a = f is singular on it.
    const Index n = dofs_.global_count();
    AffineStep step;
    step.t_eval = state_.t;
    step.q_pred = state_.q.head(n);
    step.v_pred = state_.v;
    step.a_pred = VectorX::Zero(n);
    step.coefficients = {0.0, 0.0, 1.0};
    const Timings timings = timings_;  // a check, not part of the run's work
    evaluate(step, VectorX::Zero(n), lambda_, true, false);
    timings_ = timings;
    const SparseMatrix& mass = assembler_.jacobian();
    std::vector<Index> massless;
    for (Index i = 0; i < dofs_.free_count(); ++i)
        if (mass.coeff(i, i) == 0.0) massless.push_back(free_dofs_[static_cast<std::size_t>(i)]);
    if (massless.empty()) return;
    // An integrator that solves with M alone only under error control (the midpoint rule's
    // consistent start): the choice to undo is error_control, not the integrator.
    if (mass_alone_for_error_control_)
        integrator_block.fail(
            "error_control",
            fmt::format("with error control, integrator '{}' starts from the consistent acceleration, M a0 = f, but {} "
                        "free DOF{} ha{} no mass ({}{}): M is singular there. Fix or prescribe them (a midedge_shell's "
                        "xi: `fixed: {{edges: [...]}}` or a region), or use error control with implicit_euler or bdf2",
                        integrator_block.type_name(), massless.size(), massless.size() == 1 ? "" : "s",
                        massless.size() == 1 ? "s" : "ve", describe_global_dof(massless.front()),
                        massless.size() > 1 ? ", ..." : ""));
    integrator_block.fail(
        "type", fmt::format("integrator '{}' solves M a = f with the mass matrix alone (its initial acceleration), but "
                            "{} free DOF{} ha{} no mass ({}{}): M is singular there. Fix or prescribe them (a "
                            "midedge_shell's xi: `fixed: {{edges: [...]}}` or a region), or choose implicit_euler, bdf2, "
                            "statics, or implicit_midpoint without error control, which do not solve with M alone",
                            integrator_block.type_name(), massless.size(), massless.size() == 1 ? "" : "s",
                            massless.size() == 1 ? "s" : "ve", describe_global_dof(massless.front()),
                            massless.size() > 1 ? ", ..." : ""));
}

void Simulation::build_constraints(const Parameters& root, const TypeRegistry& registry, std::size_t own_count) {
    const std::vector<Parameters> blocks = root.blocks("constraints");
    std::vector<std::unique_ptr<Constraint>> built;
    for (const Parameters& block : blocks) {
        const auto* entry = registry.find(TypeKind::constraint, block.type_name());
        built.push_back(factory_of<Constraint>(*entry)(block));
        built.back()->set_name(block.has("name") ? block.string("name") : block.type_name());
    }
    // Equality constraints bind first, then contacts, so a contact that names a joint
    // (joint_limit) finds it wherever it is listed. Among the equality constraints, those the
    // imports wrote (appended after the scene's own \p own_count) bind first: a constraint the
    // scene writes may name an imported joint (a joint_coupling of two URDF joints), and an
    // import's blocks name only their own. Each group in list order.
    const auto bind_equality = [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            if (built[i] && built[i]->kind() == ConstraintKind::equality) add_constraint(std::move(built[i]), blocks[i]);
    };
    own_count = std::min(own_count, built.size());
    bind_equality(own_count, built.size());
    bind_equality(0, own_count);
    for (std::size_t i = 0; i < built.size(); ++i)
        if (built[i] && built[i]->kind() == ConstraintKind::inequality) add_constraint(std::move(built[i]), blocks[i]);
}

void Simulation::add_constraint(std::unique_ptr<Constraint> constraint, const Parameters& block) {
    try {
        constraint->bind(*this);
    } catch (const std::invalid_argument& error) {
        block.fail("", error.what());
    }
    if (constraint->kind() == ConstraintKind::inequality) {
        // Contacts are rows the integrator adds itself (contact_set.hpp), not KKT rows.
        if (!dynamic_cast<ContactConstraint*>(constraint.get()))
            throw std::logic_error(fmt::format("constraint type '{}' is of kind inequality but does not derive "
                                               "from soma::ContactConstraint (contact_constraint.hpp)",
                                               block.type_name()));
        contacts_.add(std::unique_ptr<ContactConstraint>(static_cast<ContactConstraint*>(constraint.release())), block);
        return;
    }
    constraints_.add(std::move(constraint), block);
}

void Simulation::eliminate_attachments(std::vector<EliminatedBlock> blocks) {
    // An attachment that asked to be eliminated always and could not be (its DOFs are determined
    // by another eliminated attachment, or a loop) is said, not dropped silently.
    for (std::size_t i = 0; i < constraints_.constraints().size(); ++i) {
        const Constraint& c = *constraints_.constraints()[i];
        if (!c.eliminable_columns().always) continue;
        if (std::none_of(blocks.begin(), blocks.end(), [&](const EliminatedBlock& b) { return b.constraint == i; }))
            notes_.push_back(fmt::format("'{}' keeps its multiplier rows despite `eliminate: true`: the DOFs it "
                                         "determines are not free (fixed or prescribed), another eliminated attachment "
                                         "determines them, or eliminating it would close a loop of attachments",
                                         c.name()));
    }
    if (!blocks.empty()) {
        std::string names;
        std::size_t dofs = 0;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            if (b < 4) names += (b > 0 ? ", '" : "'") + blocks[b].name + "'";
            dofs += blocks[b].slaves.size();
        }
        if (blocks.size() > 4) names += fmt::format(" and {} more", blocks.size() - 4);
        notes_.push_back(fmt::format("attachments eliminated from each linear solve (null-space reduction): {} ({} "
                                     "DOFs and as many multiplier rows fewer; a ball joint's `eliminate: false` keeps its rows)",
                                     names, dofs));
    }
    elimination_.set_blocks(std::move(blocks), dofs_.free_count() + constraints_.row_count());
}

void Simulation::build_solver_and_integrator(const Parameters& root, const TypeRegistry& registry) {
    // Default: LDLT, which reads one triangle; a scene whose Jacobian is unsymmetric by nature
    // (rigid bodies' gyroscopic terms) gets LU, so that Newton stays exact.
    const Contributor* unsymmetric = nullptr;
    for (const Contributor* c : contributors_)
        if (!unsymmetric && !c->symmetric_jacobian() && dynamic_cast<const Element*>(c)) unsymmetric = c;
    const auto make_solver = [&](const Parameters& block) {
        const auto* entry = registry.find(TypeKind::linear_solver, block.type_name());
        if (!entry) throw InputError(block.location(), registry.unknown_type_message(TypeKind::linear_solver, block.type_name()));
        return factory_of<LinearSolver>(*entry)(block);
    };
    const bool named = root.has("linear_solver");
    if (named) solver_ = make_solver(root.block("linear_solver"));
    // Attachments are eliminated where that lets a symmetric factorization solve the scene: under
    // a named solver that cannot factor a saddle point, or under the default when the Jacobian is
    // symmetric (the default then stays eigen_ldlt). With LU the multiplier rows cost as much
    // (performance.md); attachments marked `always` are eliminated in any case.
    // "Symmetric" counts every contributor here: an unsymmetric force (drag) would make the
    // default eigen_ldlt's steps quasi-Newton, where the joints' rows keep eigen_lu exact.
    const bool symmetric = std::all_of(contributors_.begin(), contributors_.end(),
                                       [](const Contributor* c) { return c->symmetric_jacobian(); });
    const bool where_offered = named ? !solver_->capabilities().saddle_point : symmetric;
    const auto choose = [&](bool offered) {
        return choose_eliminated_blocks(constraints_, dofs_.free_index(), dofs_.free_count(), !offered);
    };
    // Hard constraints make the KKT matrix a saddle point (zero diagonal on the multiplier rows),
    // which LDLT without pivoting meets as a zero pivot: LU as well, and a named solver without
    // the saddle_point capability is refused below. Eliminated attachments leave no such rows.
    const auto first_hard_row = [&](const std::vector<EliminatedBlock>& blocks) {
        std::vector<std::size_t> eliminated;
        for (const EliminatedBlock& block : blocks) eliminated.push_back(block.constraint);
        return constraints_.first_hard(eliminated);
    };
    std::vector<EliminatedBlock> blocks = choose(where_offered);
    const Constraint* hard = first_hard_row(blocks);
    // Under the default solver, a hard constraint left as rows makes it eigen_lu, for which the
    // eliminations would not pay: those rows stay too (but for `eliminate: true`).
    if (!named && hard && where_offered) {
        blocks = choose(false);
        hard = first_hard_row(blocks);
    }
    eliminate_attachments(std::move(blocks));
    const char* default_solver = unsymmetric || hard ? "eigen_lu" : "eigen_ldlt";
    if (!named && unsymmetric)
        notes_.push_back(fmt::format("linear solver: eigen_lu (the default for scenes whose elements have an "
                                     "unsymmetric Jacobian, here '{}'); name one under `linear_solver` to choose",
                                     unsymmetric->name()));
    else if (!named && hard)
        notes_.push_back(fmt::format("linear solver: eigen_lu (the default for scenes with hard constraints, here "
                                     "'{}': their KKT matrix is indefinite); name one under `linear_solver` to choose",
                                     hard->name()));
    const Parameters solver_block = named ? root.block("linear_solver")
                                          : default_typed_block(registry, "linear_solver", TypeKind::linear_solver, default_solver);
    if (!named) solver_ = make_solver(solver_block);
    const LinearSolverCapabilities caps = solver_->capabilities();
    if (hard && !caps.saddle_point) refuse_saddle_point_solver(solver_block, *hard, registry);
    if (!caps.unsymmetric)
        for (const Contributor* c : contributors_)
            if (!c->symmetric_jacobian())
                notes_.push_back(fmt::format(
                    "'{}' makes the Jacobian unsymmetric, but linear solver '{}' assumes a symmetric matrix (it reads "
                    "one triangle, or treats the two as transposes): "
                    "Newton then takes quasi-Newton steps and may need more iterations; choose eigen_lu (or petsc "
                    "with ksp_type gmres and pc_type ilu) for exact Newton steps",
                    c->name(), solver_block.type_name()));

    const Parameters integrator_block = root.block("integrator");
    const auto* integrator_entry = registry.find(TypeKind::integrator, integrator_block.type_name());
    integrator_ = factory_of<Integrator>(*integrator_entry)(integrator_block);
    const auto refuse_unsupported = [&](const Parameters& block, ConstraintKind kind, const char* what) {
        if (integrator_->supports(kind)) return;
        const std::string working = registered_types_where<Integrator>(
            registry, "integrator", TypeKind::integrator, ", dt: 1",
            [kind](const Integrator& integrator) { return integrator.supports(kind); });
        block.fail("type", fmt::format("integrator '{}' does not treat {}; {}", integrator_block.type_name(), what,
                                       working.empty() ? "no loaded integrator does" : working + " do"));
    };
    for (std::size_t i = 0; i < constraints_.constraints().size(); ++i)
        refuse_unsupported(constraints_.parameters(i), constraints_.constraints()[i]->kind(), "constraints of this kind");
    for (std::size_t i = 0; i < contacts_.constraints().size(); ++i) {
        refuse_unsupported(contacts_.parameters(i), ConstraintKind::inequality, "contact (inequality) constraints");
        if (contacts_.constraints()[i]->has_friction())
            refuse_unsupported(contacts_.parameters(i), ConstraintKind::friction, "friction on contact constraints");
    }
    nominal_dt_ = integrator_block.real("dt");
    note_penalty_contact_pairing(integrator_block);
    if (nominal_dt_ > end_time_ - start_time_)
        integrator_block.fail("dt", fmt::format("dt = {} is longer than the simulated duration {}", nominal_dt_,
                                                end_time_ - start_time_));
    // A dt the clock cannot resolve at the start or the end time would leave t unchanged.
    const double clock = std::max(clock_resolution(start_time_), clock_resolution(end_time_));
    if (nominal_dt_ < clock)
        integrator_block.fail("dt", fmt::format("dt = {:.3g} s cannot advance the clock: between start_time {:.9g} s and "
                                                "end time {:.9g} s a step must be at least {:.3g} s (1000 units in the last "
                                                "place of t) to be resolved; increase dt or start nearer t = 0",
                                                nominal_dt_, start_time_, end_time_, clock));
    if (!integrator_->uses_newton_options() && integrator_block.has("newton"))
        integrator_block.fail("newton", fmt::format("integrator '{0}' runs its own iteration and does not read the kernel's "
                                                    "Newton options; remove `newton` and set its own keys (`soma describe {0}`)",
                                                    integrator_block.type_name()));
    const Parameters newton = integrator_block.block("newton");
    // The balance test is the default; a scene that writes absolute_tolerance alone keeps the
    // absolute test alone (its meaning before the balance test existed).
    newton_.absolute_tolerance = newton.has("absolute_tolerance") ? newton.real("absolute_tolerance") : 0.0;
    newton_.balance_tolerance = newton.has("balance_tolerance") || !newton.has("absolute_tolerance")
                                    ? newton.real("balance_tolerance")
                                    : 0.0;
    newton_.relative_tolerance = newton.real("relative_tolerance");
    newton_.increment_tolerance = newton.real("increment_tolerance");
    newton_.max_iterations = static_cast<int>(newton.integer("max_iterations"));
    newton_.constraint_tolerance = newton.real("constraint_tolerance");
    newton_.globalization = newton.string("globalization") == "trust_region" ? NewtonGlobalization::trust_region
                                                                             : NewtonGlobalization::line_search;
    newton_.initial_trust_radius = newton.real("initial_trust_radius");
    // Each globalization's own keys, written for the other, would be silently ignored.
    if (newton_.globalization == NewtonGlobalization::trust_region) {
        for (const char* key : {"line_search", "line_search_steps", "line_search_start"})
            if (newton.has(key))
                newton.fail(key, fmt::format("'{}' applies to globalization: line_search, and this block chose "
                                             "trust_region; remove it", key));
        if (newton.has("jacobian_reuse"))
            newton.fail("jacobian_reuse", "chord steps reuse an earlier iterate's Jacobian, and the trust region's "
                                          "steps need the Jacobian at each iterate: jacobian_reuse applies to "
                                          "globalization: line_search only; remove it");
    } else if (newton.has("initial_trust_radius")) {
        newton.fail("initial_trust_radius", "'initial_trust_radius' applies to globalization: trust_region; "
                                            "write globalization: trust_region or remove it");
    }
    newton_.line_search = newton.boolean("line_search");
    newton_.line_search_steps = static_cast<int>(newton.integer("line_search_steps"));
    newton_.line_search_start = static_cast<int>(newton.integer("line_search_start"));
    newton_.jacobian_reuse = static_cast<int>(newton.integer("jacobian_reuse"));
    const Parameters adaptive = integrator_block.block("adaptive");
    adaptive_.enabled = adaptive.boolean("enabled");
    adaptive_.max_retries = static_cast<int>(adaptive.integer("max_retries"));
    adaptive_.shrink = adaptive.real("shrink");
    adaptive_.grow = adaptive.real("grow");
    adaptive_.grow_after = static_cast<int>(adaptive.integer("grow_after"));
    // A growth the scene asks for and the fixed-step loop would use (not under error control,
    // which sizes steps itself): refused above the integrator's stable ratio. The default is
    // clamped to it in the time loop instead.
    if (adaptive.has("grow") && adaptive_.enabled && !integrator_block.has("error_control") &&
        adaptive_.grow > integrator_->largest_step_ratio())
        adaptive.fail("grow", fmt::format("integrator '{}' is stable only while a step is at most {:.3g} times the one "
                                          "before it; choose grow <= {:.3g}",
                                          integrator_block.type_name(), integrator_->largest_step_ratio(),
                                          integrator_->largest_step_ratio()));
    if (integrator_block.has("error_control")) {
        const Parameters control = integrator_block.block("error_control");
        const int order = integrator_->error_order();
        if (order <= 0)
            integrator_block.fail("error_control",
                                  fmt::format("integrator '{}' has no estimate of its local error; error control works "
                                              "with implicit_euler, implicit_midpoint, newmark (gamma = 1/2), bdf2 and bdf",
                                              integrator_block.type_name()));
        ErrorControlSettings settings;
        settings.tolerance.relative = control.real("relative");
        settings.tolerance.absolute = control.real("absolute");
        settings.max_step = control.has("max_step") ? control.real("max_step") : end_time_ - start_time_;
        settings.order = order;
        settings.largest_growth = std::min(settings.largest_growth, integrator_->largest_step_ratio());
        if (const Constraint* hard = constraints_.first_hard();
            hard && !integrator_->estimates_error_with_hard_constraints())
            integrator_block.fail(
                "error_control",
                fmt::format("integrator '{}' holds hard constraints (here '{}') away from the step's end, so its end "
                            "state drifts off them; the next step's correction of that drift enters the acceleration "
                            "as drift / dt^2, which no smaller step reduces, and the error estimate stalls: use "
                            "implicit_euler or newmark (they hold the constraints at the step's end) with error control",
                            integrator_block.type_name(), hard->name()));
        if (settings.max_step < nominal_dt_)
            control.fail("max_step", fmt::format("max_step = {} is shorter than the first step, dt = {}",
                                                 settings.max_step, nominal_dt_));
        const bool mass_alone_before = integrator_->solves_with_mass_alone();
        integrator_->set_error_control(settings.tolerance);
        error_control_ = settings;
        mass_alone_for_error_control_ = !mass_alone_before && integrator_->solves_with_mass_alone();
    }
}

void Simulation::refuse_saddle_point_solver(const Parameters& solver_block, const Constraint& hard,
                                            const TypeRegistry& registry) const {
    // The solvers that would work: every registered type whose default configuration has the flag.
    const std::string working = registered_types_where<LinearSolver>(
        registry, "linear_solver", TypeKind::linear_solver, "",
        [](const LinearSolver& solver) { return solver.capabilities().saddle_point; });
    const bool petsc = registry.find(TypeKind::linear_solver, "petsc") != nullptr;
    solver_block.fail(
        "type",
        fmt::format("linear solver '{}' cannot solve the saddle-point (KKT) system of hard constraints (here '{}', "
                    "compliance 0): the multiplier rows have a zero diagonal, which a factorization without "
                    "pivoting may divide by (docs/architecture.md, \"Constraints and linear solvers\"). Choose a "
                    "solver with the saddle_point capability ({}{}), or give the constraints a compliance > 0 "
                    "(the matrix is then quasi-definite, and eigen_ldlt works)",
                    solver_block.type_name(), hard.name(), working.empty() ? std::string("eigen_lu") : working,
                    petsc ? "; petsc with ksp_type gmres and pc_type none or jacobi" : ""));
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

void Simulation::build_forces(const Parameters& root, const TypeRegistry& registry) {
    for (const Parameters& block : root.blocks("forces")) {
        const auto* entry = registry.find(TypeKind::force, block.type_name());
        std::unique_ptr<Force> force = factory_of<Force>(*entry)(block);
        force->set_name(block.has("name") ? block.string("name") : block.type_name());
        // What a force cannot do with the scene's elements (an element whose points it cannot
        // reach) is reported at the force; located errors (Parameters::fail) pass through.
        try {
            force->bind(*this);
        } catch (const std::invalid_argument& error) {
            block.fail("", error.what());
        }
        contributors_.push_back(force.get());
        forces_.push_back(std::move(force));
    }
}

}  // namespace soma
