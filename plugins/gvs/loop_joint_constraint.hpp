#pragma once
/// \file loop_joint_constraint.hpp
/// \brief Closed chains of a GVS robot as one kernel Constraint: loop joints between pairs of frames
/// of one `gvs` element (Mathew et al., section 5.2, eqs. 46-52, index-3 form of eq. 52).
///
/// Rows of each joint, with frames a and b fixed to two points of the robot's tree (closed_chain.hpp):
///
///     C    = e = Phi_perp^T log(g_BA)^vee                 (eq. 47c)
///     G_q  = de/dq = Phi_perp^T T^{-1}(log g_BA) (Ad_{g_BA} J_a - J_b)    (D80)
///     G_f  = A = Phi_perp^T (Ad_{g_BA} J_a - J_b)         (eq. 47a): the constraint force A^T lambda
///     d(A^T lambda)/dq at fixed lambda                    (D69 and the wrenches' transport)
///
/// The curvature comes from the inverse dynamics of the robot's bare tree (no loads) at rest and
/// without gravity, with the loop's wrenches as its only load: that ID is exactly -A^T lambda, and
/// its dID/dq the curvature's negative. One derivative pass per evaluation for all the joints (so a
/// robot's loops belong in one constraint: `gvs_loop_joints`); nothing allocates.
///
/// Validity (closed_chain.hpp): e jumps where the relative rotation of frames a and b reaches pi
/// (measured from aligned frames): bind() refuses frames that start more than a quarter turn apart,
/// rows that no coordinate can move (rank of A at the initial configuration) and an open loop.

#include "closed_chain.hpp"
#include "gvs_element.hpp"

#include "soma/constraint.hpp"
#include "soma/parameters.hpp"

#include <string>

namespace soma::gvs {

/// \brief One end of a loop joint as a scene names it.
struct LoopJointEnd {
    std::string link;   ///< a link's name, or "base" (the robot's base frame, fixed)
    bool at_end = false;  ///< the link's end frame (else its frame)
    Pose offset;        ///< the joint's frame in that frame
};

/// \brief One loop joint as a scene describes it.
struct LoopJointSettings {
    std::string joint = "weld";  ///< weld, revolute, spherical
    Vec3 axis = Vec3::UnitZ();   ///< revolute: the free axis, in frame b
    bool planar = false;         ///< hold only the directions in frame b's xy-plane (a planar model)
    LoopJointEnd a, b;
    Parameters parameters;       ///< the joint's validated block, for located errors at bind()
};

class LoopJointConstraint final : public Constraint {
public:
    /// \p element: the gvs element's name; \p parameters: the constraint's block (its `element` key).
    LoopJointConstraint(std::string element, std::vector<LoopJointSettings> joints, Parameters parameters);

    void bind(const SceneView& scene) override;
    Index row_count() const override { return chains_.row_count; }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const override;

private:
    /// The point of the tree and the offset an end names.
    std::pair<Index, Pose> resolve(const LoopJointSettings& joint, const std::string& key) const;
    /// Phi_perp of a joint as its settings say.
    Matrix6X constrained_directions(const LoopJointSettings& joint) const;
    /// The checks of bind() at the initial configuration (rows filled there); \p free_columns:
    /// the robot's coordinates that are neither fixed nor prescribed.
    void check_initial_configuration(const std::vector<Index>& free_columns) const;
    /// Fills the bare tree's kinematics and the rows at global q (the loop's wrenches with lambda).
    void rows_at(const VectorX& q, const double* lambda) const;

    std::string element_name_;
    std::vector<LoopJointSettings> joints_;
    Parameters parameters_;
    const GvsElement* element_ = nullptr;
    MultibodyModel bare_;  // the robot's tree without its loads
    ClosedChainModel chains_;
    std::vector<Index> dofs_;
    mutable std::optional<MultibodyData> data_;
    mutable std::optional<ClosedChainData> chain_data_;
    mutable VectorX q_, zero_;
};

}  // namespace soma::gvs
