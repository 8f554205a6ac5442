#include "type_registry.hpp"

#include "string_distance.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace soma {

void TypeRegistry::set_current_provider(std::string plugin, std::string library) {
    current_plugin_ = std::move(plugin);
    current_library_ = std::move(library);
}

void TypeRegistry::add(TypeKind kind, ParameterSchema schema, decltype(Entry::factory) factory) {
    const std::string name = schema.name();
    if (name.empty()) throw std::runtime_error(fmt::format("plugin '{}' ({}) registered a {} with no name",
                                                           current_plugin_, current_library_, to_string(kind)));
    auto key = std::make_pair(kind, name);
    if (auto it = entries_.find(key); it != entries_.end())
        throw std::runtime_error(fmt::format(
            "duplicate {} type '{}': provided by plugin '{}' ({}) and again by plugin '{}' ({})", to_string(kind), name,
            it->second.plugin, it->second.library, current_plugin_, current_library_));
    add_common_keys(kind, schema);
    entries_.emplace(key, Entry{kind, name, std::move(schema), current_plugin_, current_library_, std::move(factory)});
}

void TypeRegistry::add_element(ParameterSchema s, Factory<Element> f) { add(TypeKind::element, std::move(s), std::move(f)); }
void TypeRegistry::add_force(ParameterSchema s, Factory<Force> f) { add(TypeKind::force, std::move(s), std::move(f)); }
void TypeRegistry::add_integrator(ParameterSchema s, Factory<Integrator> f) { add(TypeKind::integrator, std::move(s), std::move(f)); }
void TypeRegistry::add_linear_solver(ParameterSchema s, Factory<LinearSolver> f) { add(TypeKind::linear_solver, std::move(s), std::move(f)); }
void TypeRegistry::add_observer(ParameterSchema s, Factory<Observer> f) { add(TypeKind::observer, std::move(s), std::move(f)); }
void TypeRegistry::add_controller(ParameterSchema s, Factory<Controller> f) { add(TypeKind::controller, std::move(s), std::move(f)); }
void TypeRegistry::add_constraint(ParameterSchema s, Factory<Constraint> f) { add(TypeKind::constraint, std::move(s), std::move(f)); }
void TypeRegistry::add_importer(ParameterSchema s, SceneImport f) { add(TypeKind::importer, std::move(s), std::move(f)); }

const TypeRegistry::Entry* TypeRegistry::find(TypeKind kind, const std::string& name) const {
    auto it = entries_.find({kind, name});
    return it == entries_.end() ? nullptr : &it->second;
}

std::vector<const TypeRegistry::Entry*> TypeRegistry::entries() const {
    std::vector<const Entry*> out;
    for (const auto& [key, entry] : entries_) out.push_back(&entry);
    return out;
}

const ParameterSchema* TypeRegistry::find_schema(TypeKind kind, const std::string& type) const {
    const Entry* e = find(kind, type);
    return e ? &e->schema : nullptr;
}

std::string TypeRegistry::unknown_type_message(TypeKind kind, const std::string& type) const {
    std::string message = fmt::format("unknown {} type '{}'", to_string(kind), type);
    std::vector<std::string> same_kind;
    for (const auto& [key, e] : entries_)
        if (key.first == kind) same_kind.push_back(e.name);
    // A type of another kind with this exact name: the user put it in the wrong list.
    for (const auto& [key, e] : entries_)
        if (key.second == type && key.first != kind)
            return message + fmt::format(": '{}' is a type of kind '{}' (plugin '{}'), not of kind '{}'", type,
                                         to_string(key.first), e.plugin, to_string(kind));
    const auto close = closest_names(type, same_kind);
    if (!close.empty()) {
        message += "; did you mean ";
        for (std::size_t i = 0; i < close.size(); ++i) {
            const Entry* e = find(kind, close[i]);
            message += fmt::format("{}'{}' (plugin '{}')", i ? ", " : "", close[i], e->plugin);
        }
        message += "?";
    } else if (same_kind.empty()) {
        message += fmt::format("; no {} types are loaded (check the plugin folder, SOMA_PLUGIN_PATH and plugin_paths)",
                               to_string(kind));
    } else {
        message += "; known types: ";
        for (std::size_t i = 0; i < same_kind.size(); ++i) message += (i ? ", " : "") + same_kind[i];
    }
    message += " (`soma plugins` lists every type)";
    return message;
}

void add_node_selectors(ParameterSchema& schema, const std::string& edges_in_regions) {
    ParameterSchema box("box", "Nodes whose initial position lies in an axis-aligned box (bounds included).");
    box.vec3("min", "lower corner").unit("m").require();
    box.vec3("max", "upper corner").unit("m").require();
    schema.map("box", "also select the nodes inside this box", box);
    schema.map_list("boxes", "also select the nodes inside any of these boxes (a union, with `box` and the planes)",
                    box);
    ParameterSchema plane("plane", "Nodes whose initial position lies on a plane.");
    plane.vec3("point", "a point of the plane").unit("m").require();
    plane.vec3("normal", "the plane's normal (need not be unit length)").require();
    plane.real("tolerance", "largest distance from the plane").unit("m").fallback(1e-9).non_negative();
    schema.map("plane", "also select the nodes on this plane", plane);
    schema.map_list("planes", "also select the nodes on any of these planes (a union, with `plane` and the boxes)",
                    plane);
    schema.boolean("include_edges",
                   "true: the regions of this entry (box, boxes, plane, planes), taken together, also select every edge whose two "
                   "nodes they hold, i.e. its edge DOF (see `edges`), so a region is a clamp; false: nodes only. "
                   "Nodes listed under `nodes` select no edge. " + edges_in_regions)
        .fallback(true);
}

ParameterSchema newton_schema() {
    ParameterSchema s("newton", "Newton-Raphson iteration shared by all implicit integrators (MAT-DiSMech Algorithm 1).");
    s.real("absolute_tolerance", "converged when the 2-norm of the free residual is at most this; absent: off. "
                                 "Written without balance_tolerance, it replaces the balance test (the meaning it had "
                                 "before that test existed); written with it, either test converges")
        .unit("N").positive();
    s.real("balance_tolerance", "converged when the 2-norm of the free residual is at most this times the 2-norm of "
                                "the force scale, whose entry for each DOF is the sum of the absolute values of the "
                                "terms assembled into its row (inertia, each element's and force's part): the residual "
                                "is small against the forces that cancel in it, whatever the units and stiffness. The "
                                "default, about 2 sqrt(machine epsilon), is far above round-off and one quadratic Newton "
                                "step from it. Off when absolute_tolerance is written and this is not")
        .fallback(3e-8).positive();
    s.real("relative_tolerance", "converged when the residual norm has dropped by this factor from the first "
                                 "iterate of the step (0 disables)").fallback(1e-10).non_negative();
    s.real("increment_tolerance", "converged when the largest change of any DOF in one undamped Newton step, "
                                  "divided by dt (by 1 in statics), is at most this; 0 disables (the reference code's dtol)")
        .fallback(0.0).non_negative();
    s.real("constraint_tolerance", "with constraints: converged only when every constraint row also satisfies "
                                   "|C + compliance lambda| <= this (m for a position row)")
        .unit("m").fallback(1e-10).positive();
    s.integer("max_iterations", "iterations before the step is declared failed").fallback(25L).range(1, 10000);
    s.string("globalization", "how an iteration makes progress where the full Newton step does not lower |F|: "
                              "line_search (backtracking along the Newton step, from line_search_start on) or "
                              "trust_region (Powell's dogleg between the steepest descent of |F|^2 and the Newton "
                              "step, in a region of the Jacobian-column-scaled norm that grows and shrinks with how "
                              "well the linear model predicts |F|: an alternative where the line search stalls far "
                              "from a solution; on discrete rods and stiff contact it converges more slowly than the "
                              "line search, whose first full Newton steps (line_search_start) tolerate the rise of "
                              "|F| a rod's large rotations bring; docs/architecture.md, Trust region)")
        .one_of_strings({"line_search", "trust_region"})
        .fallback(std::string("line_search"));
    s.real("initial_trust_radius", "trust_region: the first radius of each solve, as a multiple of its first Newton "
                                   "step's scaled length (1: the first step is the full Newton step)")
        .fallback(1.0).positive();
    s.boolean("line_search", "backtracking line search on 1/2 |F|^2 (Armijo)").fallback(true);
    s.integer("line_search_steps", "most step halvings per iteration").fallback(10L).range(1, 60);
    s.integer("line_search_start", "iterations taken as full Newton steps before the line search starts "
                                   "(a non-finite residual is backtracked always)")
        .fallback(4L).range(0, 10000);
    s.integer("jacobian_reuse", "chord (modified Newton) steps allowed per step: an iteration first solves with "
                                "the factorization in hand, of an earlier iterate or step, and keeps the step if "
                                "it at least halves |F|; otherwise, or after this many, the Jacobian is assembled "
                                "and factorized. 0: Newton steps only. The tests on |F| decide convergence either way")
        .fallback(0L).range(0, 100);
    return s;
}

ParameterSchema adaptive_step_schema() {
    ParameterSchema s("adaptive", "Retry of failed steps with a smaller dt, and growth back to the nominal dt.");
    s.boolean("enabled", "retry failed steps with a smaller dt").fallback(true);
    s.integer("max_retries", "consecutive failed attempts before the run stops with a diagnosis")
        .fallback(8L).range(0, 100);
    s.real("shrink", "factor applied to dt after a failed attempt").fallback(0.5).range(0.01, 0.99);
    s.real("grow", "factor applied to dt after `grow_after` successful steps, up to the nominal dt")
        .fallback(2.0).range(1.0, 10.0);
    s.integer("grow_after", "successful steps at a reduced dt before it grows").fallback(4L).range(1, 100000);
    return s;
}

ParameterSchema error_control_schema() {
    ParameterSchema s("error_control",
                      "Steps sized by the integrator's estimate of its local error (implicit_euler: order 1; "
                      "implicit_midpoint, newmark and bdf2: order 2; bdf: 1 to 5, chosen per step): a step whose error, "
                      "the root mean square over the free DOFs of e_i / (absolute + relative |q_i|), exceeds 1 is "
                      "solved again with a smaller dt; after each accepted step dt becomes dt min(5, max(0.2, "
                      "0.9 error^(-1/(order + 1)))), up to max_step (bdf2 and bdf: growth at most 2, their stable "
                      "step ratio; bdf chooses its order and step together from its own estimates, and grows the step or changes the "
                      "order only after order + 1 steps at the current ones). "
                      "The integrator's `dt` is the first step. Outputs written every N steps then come at uneven "
                      "times (their files carry each row's time).");
    s.real("relative", "relative tolerance of a DOF's error (times |q_i|)").fallback(1e-3).range(0.0, 1.0);
    s.real("absolute", "absolute tolerance of a DOF's error (m, rad or the DOF's unit)").fallback(1e-6).positive();
    s.real("max_step", "the largest step (default: no bound but the run's end)").unit("s").positive();
    return s;
}

void TypeRegistry::add_common_keys(TypeKind kind, ParameterSchema& schema) {
    switch (kind) {
        case TypeKind::element: {
            schema.string("name", "unique name of this element, used by forces, outputs and --set").require();
            const std::string edge_dof =
                "edge indices (negative counts from the end): the DOF each edge owns, as the element type defines "
                "it (discrete_rod: the edge's twist angle, rad; midedge_shell: the edge's xi, the mid-edge normal's "
                "component along the edge's in-plane perpendicular; rod_shell_joint: the twist of a shell edge at "
                "the joint; types without edge DOFs, such as hinge_shell, refuse this key)";
            const std::string components_doc =
                "the components of the selected nodes this entry constrains, by name (x, y, z); absent: all three. "
                "Rollers and symmetry planes: `components: [y, z]` leaves x free. An entry with `components` selects "
                "no edge DOF: listing `edges` in it is an error, and its regions hold no edges (include_edges does "
                "not apply; writing include_edges: true beside components is an error)";
            ParameterSchema fixed("fixed",
                                  "DOFs held at their initial value (eliminated from the solve). One entry (a map) "
                                  "or a list of entries, e.g. a pin and a roller: "
                                  "`[{nodes: [0]}, {nodes: [-1], components: [y, z]}]`. A DOF selected "
                                  "twice (two entries, two regions, an index and a region, or the same node of two "
                                  "elements joined by shared_nodes) is fixed once; a DOF both fixed and prescribed "
                                  "is an error.");
            fixed.integer_list("nodes", "node indices (negative counts from the end): their position DOFs (all 3, "
                                        "or those named in `components`)")
                .fallback(std::vector<long>{});
            fixed.integer_list("edges", edge_dof).fallback(std::vector<long>{});
            fixed.integer_list("rotations",
                               "frame indices (negative counts from the end) whose rotation is held: a rigid body's "
                               "orientation (index 0, its only frame), all three rotation DOFs; types without "
                               "rotation DOFs refuse this key. A rotation can be fixed, not prescribed")
                .fallback(std::vector<long>{});
            const std::string coordinate_doc =
                "generalised coordinates by index (negative counts from the end), for element types whose DOFs are "
                "coordinates rather than node positions (gvs: the joints' and rods' coordinates, link by link; "
                "`soma inspect` names each); other types refuse this key";
            fixed.integer_list("coordinates", coordinate_doc).fallback(std::vector<long>{});
            fixed.string_list("components", components_doc).fallback(std::vector<std::string>{});
            add_node_selectors(fixed, "The selected edge DOFs are fixed.");
            schema.map_list("fixed",
                            "fixed DOFs, held at their initial value: one entry (a map) or a list of entries, e.g. a "
                            "pin and a roller `[{nodes: [0]}, {nodes: [-1], components: [y, z]}]`",
                            std::move(fixed))
                .or_single_map();
            ParameterSchema prescribed(
                "prescribed",
                "DOFs that follow a time function: value = initial value + displacement(t). One DOF may be "
                "prescribed by several entries only with the same expression; a DOF both fixed and prescribed is an "
                "error.");
            prescribed.integer_list("nodes", "node indices (negative counts from the end)").fallback(std::vector<long>{});
            prescribed.integer_list("edges", edge_dof).fallback(std::vector<long>{});
            prescribed.integer_list("coordinates", coordinate_doc + " (one expression each: a joint's angle in rad "
                                                                    "or its displacement in m)")
                .fallback(std::vector<long>{});
            prescribed.integer_list("rotations", "refused: a rotation moves on a manifold, so it can be fixed "
                                                 "(`fixed: {rotations: [...]}`), not prescribed")
                .fallback(std::vector<long>{});
            prescribed.string_list("components", components_doc + "; `displacement` then gives one expression per "
                                                                  "listed component, in the listed order")
                .fallback(std::vector<std::string>{});
            add_node_selectors(
                prescribed,
                "Edge DOFs so selected are held at their initial value while the nodes move. A rod's clamp then "
                "translates or turns about an axis across the rod exactly (the twist is measured from a frame that "
                "follows the edge without turning about it); to turn a rod clamp about the rod's own axis, set false "
                "and prescribe the edges' twist in another entry. A mid-edge shell's clamp holds its mid-edge normals "
                "fixed in the world: exact for a clamp that translates; to turn the normals, set false and prescribe "
                "the edges' xi in another entry (xi = sin of the turn about the initial edge direction).");
            prescribed.string_list("displacement",
                                   "expressions of t (muparser syntax: sin, cos, exp, min, max, ...), one per "
                                   "component of the selected items: 3 for nodes (x, y, z), or one per name in "
                                   "`components`; 1 for edges listed under `edges` (their edge DOF: twist in rad, or "
                                   "xi) and for `coordinates`; an entry selects one of nodes, listed edges and "
                                   "coordinates")
                .require();
            schema.map_list("prescribed",
                            "prescribed motion: a list of entries, each following its expressions of t (per "
                            "component with `components`)",
                            std::move(prescribed));
            break;
        }
        case TypeKind::force:
        case TypeKind::observer:
        case TypeKind::controller:
        case TypeKind::constraint:
            schema.string("name", "name used in outputs and messages (default: the type)");
            break;
        case TypeKind::importer:
            schema.string("name", "the import's name: it begins the name of every block it writes (`NAME/...`)")
                .require();
            break;
        case TypeKind::integrator:
            schema.real("dt", "nominal time step").unit("s").require().positive();
            schema.map("newton", "Newton iteration settings", newton_schema());
            schema.map("adaptive", "step retry and growth", adaptive_step_schema());
            schema.map("error_control", "steps sized by the local error (absent: fixed steps)", error_control_schema());
            break;
        default:
            break;
    }
}

}  // namespace soma
