#pragma once
/// \file rod_joint.hpp
/// \brief The `rod_joint` element: bending and twisting across a node where discrete rods meet
/// (rod networks, MAT-DiSMech §3.2, Fig. 2(g)).
///
/// The rods' junction nodes are merged into one node by the scene's `shared_nodes` (the kernel's
/// shared DOFs); the joint only adds the bend-twist springs that make the junction stiff. Without
/// it the shared node is a ball joint (the rods keep stretching continuity only).
///
/// Springs: every rod listed contributes the edges touching its junction node (one at a rod end,
/// two at an interior node). One bend-twist spring (MAT-DiSMech eq. 11-16) couples every PAIR of these
/// edges that belong to different entries (the two edges of one rod at an interior node are
/// already coupled by that rod's own spring), with the orientation rule of MAT-DiSMech §3.2
/// (joint_springs.hpp): C(n, 2) springs for n edges from n rod ends.
///
///  - Stiffness: for two edges a, b of rods with stiffness k_a, k_b (each of EI1, EI2, GJ) the
///    spring covers half of each edge, Voronoi length dl = 1/2 (l_a + l_b); the two halves act in
///    series, so k = dl / (l_a/(2 k_a) + l_b/(2 k_b)), the length-weighted harmonic mean. It is
///    k_a for equal rods (a rod split in two with a joint is the unsplit rod exactly) and is
///    governed by the softer rod when they differ, as a junction of two beams in series is. For
///    anisotropic sections EI1 of one rod is paired with EI1 of the other although the two rods'
///    material frames need not be aligned: use isotropic sections (circles) at junctions of
///    differently oriented rods when the difference matters.
///  - Natural curvature and twist from the initial geometry and frames (the initial network is
///    stress-free, MAT-DiSMech's reference code "setkappa"); reference twist updated from its committed value.
///  - Frames are the rods' own (committed director and tangent, transported to the current
///    tangent); the joint owns no DOFs and no mass: dof_count 0, no DOF groups, kinetic energy 0.
///    Its potential energy is its springs' energy; commit_step stores its reference twists.

#include "joint_springs.hpp"

#include "soma/element.hpp"
#include "soma/settings_errors.hpp"

#include <string>
#include <vector>

namespace soma::rod {

/// What a rod_joint needs from the scene.
struct RodJointDescription {
    std::vector<std::string> elements;  ///< rod names, at least 2 (a rod may appear twice: a loop)
    std::vector<long> nodes;            ///< junction node of each rod (negative: from the end)
    bool symmetric_jacobian = true;     ///< assemble the symmetric part of the spring Hessians
};

class RodJoint final : public Element {
public:
    /// Fails through \p errors (settings_errors.hpp) for fewer than 2 entries or mismatched list sizes.
    explicit RodJoint(RodJointDescription description, SettingsErrors errors = SettingsErrors("rod_joint"));

    // ---- Element ----
    Index dof_count() const override { return 0; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override { return {}; }
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    /// \brief Finds the rods, checks that the listed nodes are one global node, builds the springs
    /// and their natural state from the scene's initial state.
    void connect(const SceneView& scene) override;

    // ---- Contributor ----
    void declare_pattern(PatternBuilder& pattern) override { springs_.declare_pattern(pattern); }
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return description_.symmetric_jacobian; }
    void commit_step(const State& end) override { springs_.commit(end.q); }
    void save_checkpoint(CheckpointWriter& out) const override { springs_.save_checkpoint(out); }
    void restore_checkpoint(CheckpointReader& in) override { springs_.restore_checkpoint(in); }
    void reject_step() override {}

    /// \brief Builds the springs from rods already bound (connect() without a scene; tests).
    void connect_rods(const std::vector<const DiscreteRod*>& rods, const VectorX& q);

    const JointSpringSet& springs() const { return springs_; }

protected:
    void on_bind() override;

private:
    [[noreturn]] void fail(const std::string& key, const std::string& message) const { errors_.fail(key, message); }

    RodJointDescription description_;
    SettingsErrors errors_;
    JointSpringSet springs_;
    Geometry geometry_;
};

}  // namespace soma::rod
