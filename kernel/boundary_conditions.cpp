// Fixed and prescribed DOFs (boundary_conditions.hpp): the claim table that accepts agreeing
// selections and locates conflicting ones, and the exact values imposed on solves and commits.
#include "boundary_conditions.hpp"

#include "dof_selection.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cmath>

namespace soma {

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

void BoundaryConditions::build(const std::vector<std::unique_ptr<Element>>& elements_,
                               const std::vector<Parameters>& element_parameters_, const VectorX& q0,
                               const std::function<bool(Index)>& on_manifold, DofMap& dofs_) {
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
        if (on_manifold(dof))
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
        prescribed_.push_back({dof, q0[dof], expression});
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
            const DofSelection fixed_selection = select_dofs(element, type, fixed, q0);
            for (const SelectedItem& node : fixed_selection.nodes)
                for (int c : fixed_selection.node_components)
                    fix(element, element.group_dof("nodes", node.item, c), node, fixed_path, false);
            for (const auto* edges : {&fixed_selection.listed_edges, &fixed_selection.region_edges})
                for (const SelectedItem& edge : *edges)
                    for (int c = 0; c < find_dof_group(groups, "edges")->dofs_per_item; ++c)
                        fix(element, element.group_dof("edges", edge.item, c), edge, fixed_path,
                            edges == &fixed_selection.region_edges);
            for (const SelectedItem& coordinate : fixed_selection.coordinates)
                fix(element, element.group_dof("coordinates", coordinate.item, 0), coordinate, fixed_path, false);
            for (const SelectedItem& frame : fixed_selection.rotations)
                for (int c = 0; c < find_dof_group(groups, "rotations")->dofs_per_item; ++c)
                    fix(element, element.group_dof("rotations", frame.item, c), frame, fixed_path, false);
        }

        for (const Parameters& item : block.blocks("prescribed")) {
            const std::string path = item.location().path;
            const auto displacement = item.string_list("displacement");
            const DofSelection selection = select_dofs(element, type, item, q0);
            if (!selection.rotations.empty())
                item.fail("rotations", "a rotation moves on a manifold: prescribed motion is defined for vector-space "
                                       "DOFs only; fix it instead (`fixed: {rotations: [...]}`)");
            for (const char* group : {"nodes", "edges", "coordinates"}) {
                const bool of_nodes = std::string(group) == "nodes";
                const auto& items = of_nodes                          ? selection.nodes
                                    : std::string(group) == "edges" ? selection.listed_edges
                                                                    : selection.coordinates;
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

void BoundaryConditions::start(State& state) const {
    for (const Prescribed& p : prescribed_) {
        state.v[p.dof] = rate(p, state.t, 1);
        state.a[p.dof] = rate(p, state.t, 2);
    }
}

void BoundaryConditions::impose(State& next) const {
    // Prescribed DOFs take their exact value, velocity and acceleration at the new time (the
    // integrators' update formulas would give e.g. 2 v_mid - v_n for the midpoint rule).
    for (const Prescribed& p : prescribed_) {
        next.q[p.dof] = value(p, next.t);
        next.v[p.dof] = rate(p, next.t, 1);
        next.a[p.dof] = rate(p, next.t, 2);
    }
    for (Index dof : fixed_) {
        next.v[dof] = 0.0;
        next.a[dof] = 0.0;
    }
}

double BoundaryConditions::value(const Prescribed& p, double t) const {
    return p.initial + expressions_[p.expression](t);
}

double BoundaryConditions::rate(const Prescribed& p, double t, int order) const {
    // Central differences of the expression: truncation O(h^2) times its third (fourth)
    // derivative, round-off O(eps |f| / h^order); h = 1e-4 s resolves the smooth motions
    // scenes prescribe.
    constexpr double h = 1e-4;
    const auto& f = expressions_[p.expression];
    if (order == 1) return (f(t + h) - f(t - h)) / (2.0 * h);
    return (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h);
}

void BoundaryConditions::set_unknowns(const AffineStep& step, const VectorX& committed, VectorX& x) const {
    // x is chosen so that q = q_pred + c_q x hits the constrained value exactly.
    const double c_q = step.coefficients.c_q;
    if (c_q != 0.0) {
        for (Index dof : fixed_) x[dof] = (committed[dof] - step.q_pred[dof]) / c_q;
        for (const Prescribed& p : prescribed_) x[p.dof] = (value(p, step.t_eval) - step.q_pred[p.dof]) / c_q;
        return;
    }
    // An acceleration-only solve (c = (0, 0, c_a), Newmark's initial acceleration): constrained
    // DOFs take their own acceleration: 0 when fixed, the expression's second derivative when
    // prescribed (central difference; 1e-4 s resolves the smooth motions scenes prescribe).
    const double c_a = step.coefficients.c_a;
    for (Index dof : fixed_) x[dof] = -step.a_pred[dof] / c_a;
    for (const Prescribed& p : prescribed_) x[p.dof] = (rate(p, step.t_eval, 2) - step.a_pred[p.dof]) / c_a;
}

}  // namespace soma
