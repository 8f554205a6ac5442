// The rod_joint element: bend-twist springs across a junction of rods (MAT-DiSMech §3.2, Fig. 2(g)).
#include "rod_joint.hpp"

#include "discrete_rod.hpp"

#include "soma/scene_view.hpp"

#include <Eigen/Geometry>

#include <stdexcept>

namespace soma::rod {

RodJoint::RodJoint(RodJointDescription description, SettingsErrors errors)
    : description_(std::move(description)), errors_(std::move(errors)) {
    if (description_.elements.size() != description_.nodes.size())
        this->fail("nodes", "needs one node per element: " + std::to_string(description_.elements.size()) +
                                " elements but " + std::to_string(description_.nodes.size()) + " nodes");
    if (description_.elements.size() < 2) this->fail("elements", "a rod joint joins at least two rods");
}

void RodJoint::initial_state(VectorX& q, VectorX& v) const {
    q.resize(0);
    v.resize(0);
}

Index RodJoint::group_dof(const std::string& group, Index, int) const {
    throw std::out_of_range("rod_joint: no DOF group '" + group + "' (a rod joint owns no DOFs)");
}

std::string RodJoint::describe_dof(Index local) const {
    return "invalid local DOF " + std::to_string(local) + " (a rod joint owns no DOFs)";
}

void RodJoint::on_bind() {
    if (!global_dofs().empty()) throw std::logic_error("rod_joint: bind() got DOFs, expected none");
}

void RodJoint::connect(const SceneView& scene) {
    std::vector<const DiscreteRod*> rods;
    for (const std::string& name : description_.elements) {
        const Element* element = scene.find_element(name);
        if (element == nullptr) fail("elements", "no element named '" + name + "'");
        const auto* rod = dynamic_cast<const DiscreteRod*>(element);
        if (rod == nullptr) fail("elements", "element '" + name + "' is not a discrete_rod");
        rods.push_back(rod);
    }
    connect_rods(rods, scene.state().q);
}

void RodJoint::connect_rods(const std::vector<const DiscreteRod*>& rods, const VectorX& q) {
    const auto& names = description_.elements;
    struct Entry {
        const DiscreteRod* rod;
        Index node;
    };
    std::vector<Entry> entries;
    for (std::size_t i = 0; i < rods.size(); ++i) {
        const Index count = rods[i]->node_count();
        const long raw = description_.nodes[i];
        const long node = raw < 0 ? raw + count : raw;
        if (node < 0 || node >= count)
            fail("nodes", "node " + std::to_string(raw) + " of rod '" + names[i] + "' is out of range (" +
                              std::to_string(count) + " nodes; negative indices count from the end)");
        for (std::size_t k = 0; k < entries.size(); ++k)
            if (entries[k].rod == rods[i] && entries[k].node == node)
                fail("nodes", "node " + std::to_string(node) + " of rod '" + names[i] + "' is listed twice");
        entries.push_back({rods[i], static_cast<Index>(node)});
    }
    // The junction must be ONE node: the scene's shared_nodes merged the listed nodes.
    const std::array<Index, 3>& center = entries[0].rod->node_global_dofs(entries[0].node);
    for (std::size_t i = 1; i < entries.size(); ++i)
        if (entries[i].rod->node_global_dofs(entries[i].node) != center)
            fail("nodes", "node " + std::to_string(entries[i].node) + " of '" + names[i] + "' and node " +
                              std::to_string(entries[0].node) + " of '" + names[0] +
                              "' are different nodes: list the same elements and nodes in shared_nodes so that "
                              "the junction is one node");

    // The edges at the junction: edge node-1 (node a -> node b = junction) and edge node.
    std::vector<std::size_t> entry_of;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const DiscreteRod& rod = *entries[i].rod;
        const Index n = entries[i].node;
        for (Index e : {n - 1, n}) {
            if (e < 0 || e >= rod.edge_count()) continue;
            JointEdge edge;
            edge.node_a = rod.node_global_dofs(e);
            edge.node_b = rod.node_global_dofs(e + 1);
            edge.twist_dof = rod.twist_global_dof(e);
            edge.rest_length = rod.rest_length(e);
            edge.rod = &rod;
            edge.rod_edge = e;
            edge.label = "edge " + std::to_string(e) + " of rod '" + names[i] + "'";
            springs_.add_rod_edge(std::move(edge));
            entry_of.push_back(i);
        }
    }
    // One spring per pair of edges from different entries (MAT-DiSMech §3.2, Fig. 2(g)), series stiffness.
    const auto& edges = springs_.edges();
    auto stiffness = [](const DiscreteRod& rod) {
        const double E = rod.material().youngs_modulus, G = rod.material().shear();
        return std::array<double, 3>{E * rod.section().second_moment1, E * rod.section().second_moment2,
                                     G * rod.section().torsion_constant};
    };
    for (std::size_t a = 0; a < edges.size(); ++a)
        for (std::size_t b = a + 1; b < edges.size(); ++b) {
            if (entry_of[a] == entry_of[b]) continue;
            const auto ka = stiffness(*edges[a].rod), kb = stiffness(*edges[b].rod);
            const double la = edges[a].rest_length, lb = edges[b].rest_length;
            const double dl = 0.5 * (la + lb);
            std::array<double, 3> k{};
            for (int c = 0; c < 3; ++c) k[c] = dl / (0.5 * la / ka[c] + 0.5 * lb / kb[c]);
            try {
                springs_.add_spring(a, b, center, k[0], k[1], k[2]);
            } catch (const std::invalid_argument& error) {
                fail("nodes", error.what());
            }
        }
    try {
        springs_.set_rest_state(q);
    } catch (const std::invalid_argument& error) {
        fail("nodes", error.what());
    }
}

void RodJoint::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    springs_.evaluate(*context.q, &assembly, context.coefficients.c_q, description_.symmetric_jacobian);
}

double RodJoint::potential_energy(const EvalContext& context) const {
    return springs_.evaluate(*context.q, nullptr, 0.0, description_.symmetric_jacobian);
}

}  // namespace soma::rod
