#pragma once
/// \file joint_stop.hpp
/// \brief The range of a revolute or prismatic joint's coordinate held by a penalty: past a stop
/// the joint meets a spring-damper, tau = -(k e + d |e| theta') with e the penetration past the
/// stop (theta - upper > 0, or theta - lower < 0) and theta' the coordinate's rate (Hunt and
/// Crossley's damping, continuous where the stop engages; a stop pushes and never pulls, so the
/// effort is 0 where the damper would outweigh the spring on the way out); within the range
/// nothing. A revolute angle is read within the turn centred on the range. The energy
/// k e^2 / 2 is continuous with its force, so every integrator takes it
/// (joint_limit holds the range exactly, as complementarity rows, for ncp_newton only). The
/// force, its Jacobian and their sign follow joint_drive's (coordinate_effort.hpp).

#include "frame_joint.hpp"

#include "soma/force.hpp"
#include "soma/settings_errors.hpp"

#include <string>

namespace soma::joints {

struct JointStopSettings {
    std::string joint;       ///< the scene name of a revolute or prismatic joint
    double lower = 0.0;      ///< rad or m
    double upper = 0.0;
    double stiffness = 0.0;  ///< N m/rad or N/m
    double damping = 0.0;    ///< d (N m s/rad^2 or N s/m^2): the damper d |e| grows with the penetration
};

class JointStop final : public Force {
public:
    JointStop(JointStopSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return false; }
    std::vector<TermStatistic> statistics() const override;
    double statistic(std::size_t index, const EvalContext& context) const override;

private:
    /// The penetration e past a stop (0 within the range) at \p context (fills coordinate_).
    double penetration(const EvalContext& context) const;

    JointStopSettings settings_;
    SettingsErrors errors_;
    const FrameJoint* joint_ = nullptr;
    StencilId stencil_ = -1;
    mutable JointCoordinate coordinate_;  ///< sized to the joint's DOFs at bind
    VectorX residual_;
    Eigen::MatrixXd jacobian_;
};

}  // namespace soma::joints
