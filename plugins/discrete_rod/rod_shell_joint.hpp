#pragma once
/// \file rod_shell_joint.hpp
/// \brief The `rod_shell_joint` element: a rod end clamped into a shell (MAT-DiSMech §3.4,
/// Fig. 2(f)-(g)).
///
/// The rod node and the shell node are one node through the scene's `shared_nodes`; without this
/// element that node is a ball joint. The joint makes every shell edge of the triangles around the
/// node "rod-like" (MAT-DiSMech §3.4): it OWNS one twist angle theta per such edge (DOF group "edges",
/// component "twist", initial value 0) with a reference frame (space-parallel per edge at t = 0,
/// time-parallel transported and committed at each step, MAT-DiSMech §3.2), and couples every pair of
/// rod-like edges meeting at a node, among the rod edge(s) at the joint and these shell edges,
/// with a bend-twist spring (MAT-DiSMech eq. 11-16, orientation rule in joint_springs.hpp). For one
/// triangle (x_l, x_m, x_n) and the rod edge e^k at x_m this gives the 5 springs of Fig. 2(g);
/// for a fan of T triangles around an interior node, C(T+1, 2) at the joint node and 3 at each
/// fan vertex. The rod's own pair of edges (an interior rod node) is not repeated.
///
///  - Stiffness: the rod's EI1, EI2 and GJ for every joint spring, as the reference code gives
///    joint edges the rod's material and section (MAT-DiSMech §3.4, as its reference code does): the joint is as stiff in
///    bending as the rod, not as the shell.
///  - Natural curvature and twist from the initial geometry: the initial structure is stress-free.
///  - Twist inertia of each owned theta: rho (I1 + I2) l_bar with the rod's density and section
///    and the shell edge's rest length (MAT-DiSMech's reference code, rod-like edges). The joint adds no node mass
///    (the rod and the shell already lump theirs on the shared node).
///
/// DOF count: the kernel numbers DOFs before elements connect, so the joint cannot know the shell's
/// mesh when it declares its DOFs. It reserves `edge_slots` twist DOFs; connect() uses the first
/// n (n = number of shell edges around the node; it fails when n > edge_slots, naming n), and the
/// unused slots are decoupled DOFs held at 0 by their own equation k theta = 0 (k = GJ / l_rod,
/// inertia that of the rod's edge: the same scale as the used ones), which never influences the
/// physics. (SDK note: an Element hook called after all elements are constructed and before DOF
/// numbering would remove the slots.)

#include "joint_springs.hpp"
#include "rod_joint.hpp"

#include "soma/element.hpp"

#include <string>
#include <vector>

namespace soma::rod {

/// What a rod_shell_joint needs from the scene.
struct RodShellJointDescription {
    std::string rod;                ///< name of the discrete_rod
    long rod_node = -1;             ///< rod node at the joint (negative: from the end)
    std::string shell;              ///< name of the shell element (any element with triangles)
    long shell_node = 0;            ///< shell node at the joint (negative: from the end)
    Index edge_slots = 24;          ///< twist DOFs reserved for the shell edges around the node
    bool symmetric_jacobian = true; ///< assemble the symmetric part of the spring Hessians
};

class RodShellJoint final : public Element {
public:
    explicit RodShellJoint(RodShellJointDescription description, SettingsErrors errors = SettingsErrors("rod_shell_joint"));

    // ---- Element ----
    Index dof_count() const override { return description_.edge_slots; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;
    void connect(const SceneView& scene) override;

    // ---- Contributor ----
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return description_.symmetric_jacobian; }
    void commit_step(const State& end) override { springs_.commit(end.q); }
    void save_checkpoint(CheckpointWriter& out) const override { springs_.save_checkpoint(out); }
    void restore_checkpoint(CheckpointReader& in) override { springs_.restore_checkpoint(in); }
    void reject_step() override {}

    /// \brief connect() with the elements given (tests): `shell` must expose triangles and point DOFs.
    void connect_to(const DiscreteRod& rod, const Element& shell, const VectorX& q);

    /// Number of shell edges made rod-like (the used edge slots), after connect().
    Index joint_edge_count() const { return static_cast<Index>(shell_edges_.size()); }
    /// Shell point indices (a, b) of used slot i, a < b: the edge's own orientation a -> b.
    const std::array<Index, 2>& joint_edge(Index i) const { return shell_edges_[static_cast<std::size_t>(i)]; }
    const std::vector<double>& edge_inertias() const { return inertia_; }
    const JointSpringSet& springs() const { return springs_; }

protected:
    void on_bind() override;

private:
    [[noreturn]] void fail(const std::string& key, const std::string& message) const { errors_.fail(key, message); }

    RodShellJointDescription description_;
    SettingsErrors errors_;
    JointSpringSet springs_;
    std::vector<std::array<Index, 2>> shell_edges_;
    std::vector<double> inertia_;         ///< per slot (used and unused)
    std::vector<double> slot_stiffness_;  ///< per slot: 0 for used slots, k for unused ones
    std::vector<StencilId> slot_stencil_;
    Geometry geometry_;
};

}  // namespace soma::rod
