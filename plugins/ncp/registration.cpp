// Registers the integrator `ncp_newton` and the contact constraint `ncp_contact`.
#include "ncp_contact.hpp"
#include "ncp_newton.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

using namespace soma;
using namespace soma::ncp;

namespace {

template <class Enum>
Enum choice(const Parameters& p, const std::string& key, const std::vector<std::pair<std::string, Enum>>& names) {
    const std::string value = p.string(key);
    for (const auto& [name, e] : names)
        if (name == value) return e;
    p.fail(key, "unknown value '" + value + "'");  // the schema's choices make this unreachable
    return names.front().second;
}

}  // namespace

SOMA_PLUGIN("ncp") {
    const NcpNewtonSettings defaults;
    ParameterSchema s(
        "ncp_newton",
        "Implicit Euler with contact and exact Coulomb friction as complementarity problems, solved by the "
        "non-smooth Newton method of Macklin et al. 2019 (ACM TOG 38(5)): normal contact and a smooth isotropic "
        "friction cone through Fischer-Burmeister or min-map NCP functions with the complementarity scaling of its "
        "section 7, the friction compliance W held fixed in each iteration (eqs. 35-37), and the Schur complement "
        "of its eq. 59 solved by preconditioned conjugate residual or directly. The rest of the scene (elements, "
        "forces, joints) keeps its implicit residual and exact Jacobian. Treats equality constraints (joints) and "
        "contact constraints (ncp_contact). After each update the friction forces are projected onto their "
        "cones (redundant sticking contacts otherwise pass their load back and forth). Its iteration has its own "
        "keys below; the `newton` block, "
        "which configures the kernel's Newton of the other integrators, does not apply to it.");
    s.string("ncp_function", "NCP function of the normal and friction rows (eqs. 23, 18)")
        .one_of_strings({"fischer_burmeister", "minimum"})
        .fallback(std::string("fischer_burmeister"));
    s.string("scaling", "complementarity scaling r (section 7): effective_mass r_n = h^2 [G A^-1 G^T]_ii, r_f = h "
                        "[D A^-1 D^T]_ii from the diagonal of the Jacobian A (eq. 66); step_squared r_n = h^2, r_f = h; "
                        "identity r = 1 (often fails to converge, Fig. 17)")
        .one_of_strings({"effective_mass", "step_squared", "identity"})
        .fallback(std::string("effective_mass"));
    s.string("linear_solver", "solve of the Schur complement (eq. 59): conjugate_residual (preconditioned, Jacobi; one "
                              "solve with the Jacobian's factorization per iteration), gmres (the same, for the "
                              "unsymmetric Schur complement of friction_jacobian: exact; linear_iterations is its "
                              "basis' size) or direct (dense, LU; one solve per contact row)")
        .one_of_strings({"conjugate_residual", "gmres", "direct"})
        .fallback(std::string("conjugate_residual"));
    s.string("friction_jacobian",
             "the friction rows' derivatives: fixed_point (the compliance W held constant in each iteration, eq. "
             "37, the paper's: a symmetric system, but linear convergence, slow where a sliding contact is near "
             "stopping) or exact (W's derivatives in the slip, the friction force and the normal force too: a "
             "Newton step on Coulomb's law; needs linear_solver: gmres or direct, the system being unsymmetric)")
        .one_of_strings({"fixed_point", "exact"})
        .fallback(std::string("fixed_point"));
    s.integer("linear_iterations", "conjugate residual iterations per Newton iteration, at most")
        .fallback(defaults.linear_iterations)
        .range(1, 100000);
    s.real("linear_tolerance", "relative tolerance of the conjugate residual iterations (preconditioned norm)")
        .fallback(defaults.linear_tolerance)
        .positive();
    s.string("start", "first iterate: zero_velocity (v = 0, lambda = 0, the paper's eqs. 67-68) or "
                      "previous_acceleration")
        .one_of_strings({"zero_velocity", "previous_acceleration"})
        .fallback(std::string("zero_velocity"));
    s.string("geometric_stiffness",
             "what stands in for the contacts' geometric stiffness d(G^T lambda)/dq in the Newton matrix (section "
             "8.3): none (left out, a quasi-Newton step) or diagonal (the secant estimate over the last step on the "
             "matrix's diagonal, only where it stiffens: eqs. 71-74, the sign of eq. 73 corrected; on every free "
             "DOF, where the paper uses it on particles only). The solution does not change, only the iteration")
        .one_of_strings({"none", "diagonal"})
        .fallback(std::string("none"));
    s.real("damping", "Newton step length t (eqs. 61-62); the paper uses 0.75 for every example (section 8.1). Full "
                      "steps converge fastest here, where the friction forces are projected onto their cones after "
                      "each update; t < 1 converges linearly, the error falling by about 1 - t an iteration")
        .fallback(defaults.damping)
        .range(0.01, 1.0);
    s.boolean("warm_start",
              "start each contact's forces at those the same contact had at the last step (the same DOFs and "
              "nearly the same normal row; section 8.1 mentions warm starting, the paper starts from zero), when "
              "the last step's contacts were quiet (warm_start_slip): a structure at rest (an arch, a settled "
              "pile) then converges in a few iterations a step or none; a warm-started solve that fails is "
              "solved again from zero forces before the step is retried smaller")
        .fallback(defaults.warm_start);
    s.real("warm_start_slip", "with warm_start, the last step's forces are carried only when every contact "
                              "carrying a normal force slipped slower than this at its end (m/s): steps after "
                              "sliding and impacts start from zero forces, as without warm_start (a carried "
                              "impact force sends the first Newton step far off); a speed no contact reaches "
                              "(1e6) carries them after every step")
        .fallback(defaults.warm_start_slip)
        .unit("m/s")
        .non_negative();
    s.boolean("project_friction", "project each friction force onto its cone after every update (false: the "
                                  "paper's iteration as printed, which lets redundant sticking contacts pass their load "
                                  "back and forth without converging)")
        .fallback(defaults.project_friction);
    s.real("max_depenetration_speed", "the largest speed at which a contact that starts a step penetrated is pushed "
                                      "out (a step closes at most this speed times dt of it; PhysX's maximum "
                                      "depenetration velocity); absent: all of it in one step, as the paper")
        .unit("m/s")
        .positive();
    s.integer("max_contact_looks", "how many times a step's contacts are looked for: at the step's start, then at "
                                   "the end of each solve, solving the step again from its start while a look adds "
                                   "contacts and the step ends through one of them by more than gap_tolerance (a body "
                                   "knocked into another during the step, a plate slammed flat); 1: at the step's "
                                   "start only, as the paper")
        .fallback(defaults.max_contact_looks)
        .range(1, 100);
    s.real("regularization", "epsilon added to the Schur complement's diagonal: redundant contacts (section 8.4)")
        .unit("1/kg")
        .fallback(defaults.regularization)
        .non_negative();
    s.integer("max_iterations", "Newton iterations before the step fails (the time loop then retries it smaller)")
        .fallback(defaults.max_iterations)
        .range(1, 100000);
    s.integer("fixed_iterations", "the paper's mode (its Table 2: 4 to 8 a step): accept each step after this many "
                                  "Newton iterations whatever the residuals (sooner if the tolerances are met); 0: "
                                  "converge to the tolerances or retry the step smaller")
        .fallback(defaults.fixed_iterations)
        .range(0, 100000);
    s.real("force_tolerance", "per free DOF, |residual| <= force_tolerance times the sum of the sizes of its terms "
                              "(inertia, each force, the contact forces)")
        .fallback(defaults.force_tolerance)
        .positive();
    s.real("gap_tolerance", "largest |phi_n| of a contact (the scaled complementarity of gap and normal force)")
        .unit("m")
        .fallback(defaults.gap_tolerance)
        .positive();
    s.real("slip_tolerance", "largest |phi_f| of a sliding or sticking contact (eq. 36); looser than the others "
                             "because where a contact passes from sliding to sticking the fixed-point friction "
                             "compliance can cycle at ~1e-7 m/s")
        .unit("m/s")
        .fallback(defaults.slip_tolerance)
        .positive();
    s.real("constraint_tolerance", "largest |C + alpha lambda| of a joint row")
        .fallback(defaults.constraint_tolerance)
        .positive();
    registry.add_integrator(std::move(s), [](const Parameters& p) {
        NcpNewtonSettings settings;
        settings.function = choice<NcpFunction>(
            p, "ncp_function", {{"fischer_burmeister", NcpFunction::fischer_burmeister}, {"minimum", NcpFunction::minimum}});
        settings.scaling = choice<ComplementarityScaling>(p, "scaling",
                                                          {{"effective_mass", ComplementarityScaling::effective_mass},
                                                           {"step_squared", ComplementarityScaling::step_squared},
                                                           {"identity", ComplementarityScaling::identity}});
        settings.linear_solver = choice<SchurSolver>(
            p, "linear_solver",
            {{"conjugate_residual", SchurSolver::conjugate_residual}, {"gmres", SchurSolver::gmres}, {"direct", SchurSolver::direct}});
        settings.start = choice<StartingIterate>(p, "start",
                                                 {{"zero_velocity", StartingIterate::zero_velocity},
                                                  {"previous_acceleration", StartingIterate::previous_acceleration}});
        settings.geometric_stiffness = choice<GeometricStiffness>(
            p, "geometric_stiffness", {{"none", GeometricStiffness::none}, {"diagonal", GeometricStiffness::diagonal}});
        settings.linear_iterations = static_cast<int>(p.integer("linear_iterations"));
        settings.linear_tolerance = p.real("linear_tolerance");
        settings.damping = p.real("damping");
        settings.project_friction = p.boolean("project_friction");
        settings.warm_start = p.boolean("warm_start");
        settings.warm_start_slip = p.real("warm_start_slip");
        settings.friction_jacobian = choice<FrictionJacobian>(
            p, "friction_jacobian", {{"fixed_point", FrictionJacobian::fixed_point}, {"exact", FrictionJacobian::exact}});
        if (settings.friction_jacobian == FrictionJacobian::exact && settings.linear_solver == SchurSolver::conjugate_residual)
            p.fail("friction_jacobian", "exact makes the Schur complement unsymmetric, which the conjugate residual "
                                        "solve cannot take: write `linear_solver: gmres` (or direct) with it");
        if (p.has("max_depenetration_speed")) settings.max_depenetration_speed = p.real("max_depenetration_speed");
        settings.max_contact_looks = static_cast<int>(p.integer("max_contact_looks"));
        settings.regularization = p.real("regularization");
        settings.max_iterations = static_cast<int>(p.integer("max_iterations"));
        settings.fixed_iterations = static_cast<int>(p.integer("fixed_iterations"));
        if (settings.fixed_iterations > settings.max_iterations)
            p.fail("fixed_iterations", "must not exceed max_iterations (" + std::to_string(settings.max_iterations) + ")");
        settings.force_tolerance = p.real("force_tolerance");
        settings.gap_tolerance = p.real("gap_tolerance");
        settings.slip_tolerance = p.real("slip_tolerance");
        settings.constraint_tolerance = p.real("constraint_tolerance");
        return std::make_unique<NcpNewton>(settings);
    });

    const ContactSettings contact;
    ParameterSchema c("ncp_contact",
                      "Contacts of elements with each other and with a floor as complementarity rows with exact "
                      "Coulomb friction, for the integrator ncp_newton (Macklin et al. 2019, eqs. 9-16): gap >= 0, "
                      "normal force >= 0, one of them zero; the friction force inside the cone mu times the normal "
                      "force, sticking or opposing the slip. Candidates are the surface points of the named elements "
                      "(rod, shell and particle nodes; a rigid body's contact points: box corners, a sphere's centre "
                      "with its radius, a capsule's axis ends); they meet the floor and the solids of the other named "
                      "elements (each closed convex part of a rigid body's mesh, a sphere or a capsule), found at each step's start by "
                      "a sort-and-sweep broad phase. Two convex meshes also touch edge to edge (two bars crossed, one "
                      "lying on the other): each pair of their edges whose Gauss-map arcs intersect (Gregorius 2013) "
                      "and whose closest points lie inside both edges by more than the margin is a candidate (edges shorter than twice the margin give none). A candidate becomes a contact "
                      "when its gap, now or predicted from twice the step's motion, is within `margin`. A sphere or "
                      "capsule touches at its surface, so friction turns it (a ball rolls); a capsule's side meets another "
                      "capsule's side and a convex mesh's edges (a capsule lying across a box). Not found: deformable surfaces as solids "
                      "(imc_contact treats those). Bodies joined by a joint or clamp touch each other unless `exclude` "
                      "lists their pair.");
    c.string_list("elements", "names of the elements in contact; empty: every element").fallback(std::vector<std::string>{});
    ParameterSchema pair("exclude", "two elements that never touch each other");
    pair.string("first", "scene name of one element").require();
    pair.string("second", "scene name of the other").require();
    c.map_list("exclude", "pairs of elements that never touch: bodies held together by a joint or a clamp, whose "
                          "contacts would otherwise fight it",
               std::move(pair));
    ParameterSchema floor("floor", "a plane normal . x = height that the points rest on");
    floor.real("height", "offset of the floor along its normal (the floor height for normal +z)").unit("m").fallback(0.0);
    floor.vec3("normal", "floor normal, pointing out of the floor (normalised)").fallback(Vec3(0, 0, 1));
    c.map("floor", "the floor (absent: none)", std::move(floor));
    c.real("friction", "Coulomb coefficient mu of every contact; 0: frictionless").fallback(contact.friction).non_negative();
    c.real("margin", "a candidate within this gap (now or predicted over the step) becomes a contact; an inactive "
                     "contact costs one row, so err on the large side (a resting point must stay within it; with "
                     "too small a margin it falls through one step before its contact is found)")
        .unit("m")
        .fallback(contact.margin)
        .positive();
    c.boolean("edge_contacts", "edge-edge contacts between convex meshes, at the pairs of edges that cross, and a "
                               "capsule's side against a mesh's edges (false: only the meshes' corners against the "
                               "other solids, for comparison: two bars crossed edge to edge then pass through each "
                               "other; capsules' sides still meet each other)")
        .fallback(contact.edge_contacts);
    c.string("polyhedron_pairs",
             "how two convex meshes touch: `features`, each one's corners against the other's faces, their "
             "crossing edge pairs and face crossings, each by its own rules; `manifold` (an alternative under "
             "evaluation: on the table pile it meets the penetration bound in fewer variants, docs/validation.md "
             "11.6), along one axis per pair from the step's start (the best of their face normals and, by more "
             "than a tenth of the margin, their edge pairs' normals; nearly facing faces taken flat; for a pair "
             "apart and predicted to overlap, the axis that closes last over the motion), at the points of the "
             "incident face clipped by the reference face's sides, or at the closest points of the two edges")
        .fallback(std::string("features"))
        .one_of_strings({"features", "manifold"});
    registry.add_constraint(std::move(c), [](const Parameters& p) {
        ContactSettings settings;
        settings.elements = p.string_list("elements");
        for (const Parameters& pair : p.blocks("exclude"))
            settings.exclude.emplace_back(pair.string("first"), pair.string("second"));
        if (p.has("floor")) {
            const Parameters f = p.block("floor");
            settings.floor = FloorSettings{f.real("height"), f.vec3("normal")};
        }
        settings.friction = p.real("friction");
        settings.margin = p.real("margin");
        settings.edge_contacts = p.boolean("edge_contacts");
        settings.manifold = p.string("polyhedron_pairs") == "manifold";
        return std::make_unique<NcpContact>(std::move(settings), scene_errors(p));
    });
}
