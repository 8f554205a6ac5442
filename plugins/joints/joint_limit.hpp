#pragma once
/// \file joint_limit.hpp
/// \brief `joint_limit`: the range of a revolute or prismatic joint's coordinate as unilateral
/// rows, for an integrator that treats inequality constraints (`ncp_newton`): a stop the joint
/// cannot pass, which pushes back only as hard as it is pushed (complementarity, no stiffness).
///
/// Each stop near the coordinate at a step's start becomes a contact (contact_constraint.hpp)
/// between a point of the first frame and a point of the second:
///  - a prismatic joint's slide s >= lower: the first joint point o_1 against the point
///    o_2 + lower z_2, along n = z_2 (the axis at the step's start): C = s - lower exactly;
///  - a revolute joint's angle theta >= lower: a point at the lever L = 1 m from the axis along the
///    first frame's x_1, against the point where it stands at theta = lower, along the tangent of
///    its circle there, n = -sin(lower) x_2 + cos(lower) y_2: C = L sin(theta - lower), the angle's
///    distance for small ones, so the normal force (N) is the stop's torque (N m);
///  - the upper stops alike with the normal reversed.
/// The rows measure the coordinate from the configuration as built, the bounds from the joint's
/// zero: with an `initial_coordinate` c, "lower" above stands for lower - c.
/// The normal is fixed for the step, as for every contact: the linearisation error is second
/// order in the step's motion. A stop is listed when the coordinate is within `margin` of it, now
/// or predicted over twice the step from the start's rate and acceleration.
///
/// An angle is followed across its wrap at +-pi (atan2's branch): the limit keeps the turned
/// angle, the sum of each step's change, so the range [lower, upper] may lie anywhere within one
/// turn's width. One stop alone blocks the joint from both sides, as a pin does: with `lower`
/// only, the joint turns up to lower + 2 pi (the stop's back face), and with `upper` only down to
/// upper - 2 pi. The turned angle is part of the checkpoint.

#include "frame_joint.hpp"

#include "soma/checkpoint.hpp"
#include "soma/contact_constraint.hpp"
#include "soma/settings_errors.hpp"

#include <optional>
#include <string>

namespace soma::joints {

struct JointLimitSettings {
    std::string joint;             ///< the scene name of a revolute or prismatic joint (listed before)
    std::optional<double> lower;   ///< rad or m, as the joint counts (initial_coordinate as built)
    std::optional<double> upper;
    double margin = 0.01;          ///< rad or m
};

class JointLimit final : public ContactConstraint {
public:
    JointLimit(JointLimitSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved) override;
    bool has_friction() const override { return false; }
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;

private:
    /// The contact of the stop at \p bound, \p sign +1 for a lower stop, -1 for an upper one.
    UnilateralContact stop(double bound, double sign, const EvalContext& context) const;

    JointLimitSettings settings_;
    SettingsErrors errors_;
    const FrameJoint* joint_ = nullptr;
    JointCoordinate coordinate_;  ///< sized at bind
    double lower_ = 0.0, upper_ = 0.0;  ///< the range, with a lone revolute stop's back face a turn away
    bool has_lower_ = false, has_upper_ = false;
    double turned_ = 0.0;      ///< the angle followed across the wrap (a slide: the coordinate)
    double last_angle_ = 0.0;  ///< the wrapped angle at the last detection
};

}  // namespace soma::joints
