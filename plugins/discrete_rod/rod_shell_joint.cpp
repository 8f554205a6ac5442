// The rod_shell_joint element (MAT-DiSMech §3.4).
#include "rod_shell_joint.hpp"

#include "discrete_rod.hpp"
#include "rod_frames.hpp"

#include "soma/lumped_mass.hpp"
#include "soma/scene_view.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace soma::rod {

RodShellJoint::RodShellJoint(RodShellJointDescription description, SettingsErrors errors)
    : description_(std::move(description)), errors_(std::move(errors)) {
    if (description_.edge_slots < 1) this->fail("edge_slots", "must be at least 1");
    const auto slots = static_cast<std::size_t>(description_.edge_slots);
    inertia_.assign(slots, 0.0);
    slot_stiffness_.assign(slots, 0.0);
}

void RodShellJoint::initial_state(VectorX& q, VectorX& v) const {
    q.setZero(dof_count());  // theta = 0 (MAT-DiSMech §6.1, initial values)
    v.setZero(dof_count());
}

std::vector<DofGroup> RodShellJoint::dof_groups() const {
    return {DofGroup{"edges", 1, description_.edge_slots, {"twist"}}};
}

Index RodShellJoint::group_dof(const std::string& group, Index item, int component) const {
    if (group != "edges") throw std::out_of_range("rod_shell_joint: no DOF group '" + group + "' (groups: edges)");
    if (item < 0 || item >= description_.edge_slots || component != 0)
        throw std::out_of_range("rod_shell_joint: no edge " + std::to_string(item) + " component " +
                                std::to_string(component));
    return item;
}

std::string RodShellJoint::describe_dof(Index local) const {
    if (local < 0 || local >= dof_count()) return "invalid local DOF " + std::to_string(local);
    const auto i = static_cast<std::size_t>(local);
    if (i < shell_edges_.size())
        return "joint shell edge (" + std::to_string(shell_edges_[i][0]) + ", " + std::to_string(shell_edges_[i][1]) +
               ") twist";
    return "unused joint edge slot " + std::to_string(local) + " twist";
}

void RodShellJoint::on_bind() {
    if (static_cast<Index>(global_dofs().size()) != dof_count())
        throw std::logic_error("rod_shell_joint: bind() got the wrong number of DOFs");
}

void RodShellJoint::connect(const SceneView& scene) {
    const Element* rod_element = scene.find_element(description_.rod);
    if (rod_element == nullptr) fail("rod", "no element named '" + description_.rod + "'");
    const auto* rod = dynamic_cast<const DiscreteRod*>(rod_element);
    if (rod == nullptr) fail("rod", "element '" + description_.rod + "' is not a discrete_rod");
    const Element* shell = scene.find_element(description_.shell);
    if (shell == nullptr) fail("shell", "no element named '" + description_.shell + "'");
    if (dynamic_cast<const DiscreteRod*>(shell) != nullptr || shell->geometry().triangles.empty())
        fail("shell", "element '" + description_.shell + "' has no triangles: name a hinge_shell or midedge_shell");
    connect_to(*rod, *shell, scene.state().q);
}

void RodShellJoint::connect_to(const DiscreteRod& rod, const Element& shell, const VectorX& q) {
    const Geometry& mesh = shell.geometry();
    const Index rod_nodes = rod.node_count();
    const long rod_raw = description_.rod_node;
    const long rod_node = rod_raw < 0 ? rod_raw + rod_nodes : rod_raw;
    if (rod_node < 0 || rod_node >= rod_nodes)
        fail("rod_node", "node " + std::to_string(rod_raw) + " is out of range (" + std::to_string(rod_nodes) + " nodes)");
    const auto points = static_cast<long>(mesh.point_dofs.size());
    const long shell_raw = description_.shell_node;
    const long shell_node = shell_raw < 0 ? shell_raw + points : shell_raw;
    if (shell_node < 0 || shell_node >= points)
        fail("shell_node", "node " + std::to_string(shell_raw) + " is out of range (" + std::to_string(points) + " nodes)");
    const std::array<Index, 3>& center = rod.node_global_dofs(rod_node);
    if (mesh.point_dofs[static_cast<std::size_t>(shell_node)] != center)
        fail("shell_node", "node " + std::to_string(rod_node) + " of rod '" + description_.rod + "' and node " +
                               std::to_string(shell_node) + " of shell '" + description_.shell +
                               "' are different nodes: add shared_nodes: {elements: [" + description_.rod + ", " +
                               description_.shell + "], nodes: [" + std::to_string(rod_node) + ", " +
                               std::to_string(shell_node) + "]}");

    // Shell edges of the triangles around the node (MAT-DiSMech §3.4), oriented from the lower to the
    // higher point index.
    for (const auto& tri : mesh.triangles) {
        if (std::find(tri.begin(), tri.end(), static_cast<Index>(shell_node)) == tri.end()) continue;
        for (int k = 0; k < 3; ++k) {
            const Index a = std::min(tri[k], tri[(k + 1) % 3]), b = std::max(tri[k], tri[(k + 1) % 3]);
            const std::array<Index, 2> edge{a, b};
            if (std::find(shell_edges_.begin(), shell_edges_.end(), edge) == shell_edges_.end())
                shell_edges_.push_back(edge);
        }
    }
    if (shell_edges_.empty())
        fail("shell_node", "node " + std::to_string(shell_node) + " of shell '" + description_.shell +
                               "' belongs to no triangle");
    if (static_cast<Index>(shell_edges_.size()) > description_.edge_slots)
        fail("edge_slots", "the triangles around shell node " + std::to_string(shell_node) + " have " +
                               std::to_string(shell_edges_.size()) + " edges, more than edge_slots = " +
                               std::to_string(description_.edge_slots) + ": set edge_slots: " +
                               std::to_string(shell_edges_.size()) + " or more");

    const CrossSection& section = rod.section();
    const RodMaterial& material = rod.material();
    const double EI1 = material.youngs_modulus * section.second_moment1;
    const double EI2 = material.youngs_modulus * section.second_moment2;
    const double GJ = material.shear() * section.torsion_constant;

    // Rod edges at the joint (1 at a rod end, 2 at an interior node), then the shell edges.
    auto position = [&q](const std::array<Index, 3>& d) { return Vec3(q[d[0]], q[d[1]], q[d[2]]); };
    std::vector<std::size_t> rod_edges;
    for (Index e : {static_cast<Index>(rod_node) - 1, static_cast<Index>(rod_node)}) {
        if (e < 0 || e >= rod.edge_count()) continue;
        JointEdge edge;
        edge.node_a = rod.node_global_dofs(e);
        edge.node_b = rod.node_global_dofs(e + 1);
        edge.twist_dof = rod.twist_global_dof(e);
        edge.rest_length = rod.rest_length(e);
        edge.rod = &rod;
        edge.rod_edge = e;
        edge.label = "edge " + std::to_string(e) + " of rod '" + description_.rod + "'";
        rod_edges.push_back(springs_.add_rod_edge(std::move(edge)));
    }
    for (std::size_t i = 0; i < shell_edges_.size(); ++i) {
        JointEdge edge;
        edge.node_a = mesh.point_dofs[static_cast<std::size_t>(shell_edges_[i][0])];
        edge.node_b = mesh.point_dofs[static_cast<std::size_t>(shell_edges_[i][1])];
        edge.twist_dof = global_dof(static_cast<Index>(i));
        const Vec3 d = position(edge.node_b) - position(edge.node_a);
        edge.rest_length = d.norm();
        if (!(edge.rest_length > 0.0)) fail("shell", "a shell edge at the joint has zero length");
        edge.label = "shell edge (" + std::to_string(shell_edges_[i][0]) + ", " + std::to_string(shell_edges_[i][1]) + ")";
        // Space-parallel reference frame per edge (MAT-DiSMech §3.2): a1 = unit(t x y), or t x (0,0,-1).
        const Vec3 t = d / edge.rest_length;
        Vec3 a1;
        space_parallel_frames(std::span<const Vec3>(&t, 1), std::span<Vec3>(&a1, 1));
        inertia_[i] = material.density * section.polar_moment() * edge.rest_length;
        springs_.add_owned_edge(std::move(edge), a1, t);
    }
    // Unused slots: decoupled, held at 0, on the scale of the rod's edge at the joint.
    const double rod_length = rod.rest_length(springs_.edges()[rod_edges.front()].rod_edge);
    for (std::size_t i = shell_edges_.size(); i < inertia_.size(); ++i) {
        inertia_[i] = material.density * section.polar_moment() * rod_length;
        slot_stiffness_[i] = GJ / rod_length;
    }

    // Every pair of rod-like edges meeting at a node (MAT-DiSMech §3.4, as its reference code does), except the rod's own pair.
    const auto& edges = springs_.edges();
    std::map<Index, std::vector<std::size_t>> at_node;  // keyed by the node's x DOF
    std::map<Index, std::array<Index, 3>> node_dofs;
    for (std::size_t i = 0; i < edges.size(); ++i)
        for (const auto& n : {edges[i].node_a, edges[i].node_b}) {
            at_node[n[0]].push_back(i);
            node_dofs[n[0]] = n;
        }
    for (const auto& [key, incident] : at_node)
        for (std::size_t a = 0; a < incident.size(); ++a)
            for (std::size_t b = a + 1; b < incident.size(); ++b) {
                if (edges[incident[a]].rod != nullptr && edges[incident[b]].rod != nullptr) continue;
                springs_.add_spring(incident[a], incident[b], node_dofs[key], EI1, EI2, GJ);
            }
    try {
        springs_.set_rest_state(q);
    } catch (const std::invalid_argument& error) {
        fail("shell_node", error.what());
    }
}

void RodShellJoint::declare_pattern(PatternBuilder& pattern) {
    springs_.declare_pattern(pattern);
    slot_stencil_.resize(inertia_.size());
    for (std::size_t i = 0; i < inertia_.size(); ++i) {
        const Index d = global_dof(static_cast<Index>(i));
        slot_stencil_[i] = pattern.add_stencil(std::span<const Index>(&d, 1));
    }
}

void RodShellJoint::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const JacobianCoefficients& w = context.coefficients;
    const VectorX& q = *context.q;
    springs_.evaluate(q, &assembly, w.c_q, description_.symmetric_jacobian);
    // Twist inertia M a and c_a M of every slot (MAT-DiSMech's diagonal mass matrix,
    // §2), and the unused slots' spring k theta, c_q k that holds them at zero.
    add_lumped_inertia(context, assembly, slot_stencil_, inertia_);
    for (std::size_t i = 0; i < inertia_.size(); ++i) {
        if (slot_stiffness_[i] == 0.0) continue;
        const Index d = global_dof(static_cast<Index>(i));
        assembly.add_residual(slot_stencil_[i], VecN<1>(slot_stiffness_[i] * q[d]));
        assembly.add_jacobian_diagonal(slot_stencil_[i], w.c_q * slot_stiffness_[i]);
    }
}

double RodShellJoint::potential_energy(const EvalContext& context) const {
    const VectorX& q = *context.q;
    double energy = springs_.evaluate(q, nullptr, 0.0, description_.symmetric_jacobian);
    for (std::size_t i = 0; i < inertia_.size(); ++i) {
        const double theta = q[global_dof(static_cast<Index>(i))];
        energy += 0.5 * slot_stiffness_[i] * theta * theta;
    }
    return energy;
}

double RodShellJoint::kinetic_energy(const EvalContext& context) const {
    if (context.v == nullptr || context.v->size() == 0) return 0.0;
    double twice = 0.0;
    for (std::size_t i = 0; i < inertia_.size(); ++i) {
        const double w = (*context.v)[global_dof(static_cast<Index>(i))];
        twice += inertia_[i] * w * w;
    }
    return 0.5 * twice;
}

}  // namespace soma::rod
