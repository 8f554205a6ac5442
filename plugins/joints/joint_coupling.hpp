#pragma once
/// \file joint_coupling.hpp
/// \brief A coupling between the coordinates of two revolute or prismatic joints (a URDF mimic
/// joint, a gear, a linkage that moves two fingers as one): one constraint row
///
///     C = theta_f - m theta_l = 0,
///
/// theta_f the follower's coordinate, theta_l the leader's (frame_joint.hpp: the angle or the
/// slide, initial_coordinate as built; the row must hold there, which bind checks) and m the
/// multiplier. With the joints'
/// coordinate rows (JointCoordinate) the row's derivatives are
///
///     G_f = g_f,f - m g_f,l,   G_q = g_q,f - m g_q,l,
///     d(G_f^T lambda)/dq = K_f(lambda) + K_l(-m lambda)   (each joint's curvature at that effort),
///
/// over the union of the two joints' DOFs. The multiplier lambda is the follower's effort (a
/// torque or force along its coordinate); the leader carries -m lambda, so the coupling does no
/// work (as a gear train). An angle is measured in (-pi, pi]: for a revolute follower C is taken
/// modulo a turn, which is exact across either angle's wrap for an integer m; for other
/// multipliers the coupling holds while the leader's angle stays within (-pi, pi).

#include "frame_joint.hpp"

#include "soma/constraint.hpp"
#include "soma/settings_errors.hpp"

#include <string>
#include <vector>

namespace soma::joints {

struct JointCouplingSettings {
    std::string leader;       ///< scene name of the joint whose coordinate is followed
    std::string follower;     ///< scene name of the joint that follows it
    double multiplier = 1.0;  ///< m (rad/rad, m/m, rad/m or m/rad)
    double compliance = 0.0;  ///< of the row (the follower's unit per unit effort)
};

class JointCoupling final : public Constraint {
public:
    JointCoupling(JointCouplingSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    Index row_count() const override { return 1; }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const override;
    double compliance(Index row) const override {
        (void)row;
        return settings_.compliance;
    }

    const FrameJoint* leader() const { return leader_; }
    const FrameJoint* follower() const { return follower_; }

private:
    const FrameJoint* find_joint(const SceneView& scene, const std::string& name, const char* key);

    JointCouplingSettings settings_;
    SettingsErrors errors_;
    const FrameJoint* leader_ = nullptr;
    const FrameJoint* follower_ = nullptr;
    std::vector<Index> dofs_;
    std::vector<Index> leader_columns_, follower_columns_;  ///< each joint's DOFs' columns in dofs_
    mutable JointCoordinate leader_coordinate_, follower_coordinate_;
};

}  // namespace soma::joints
