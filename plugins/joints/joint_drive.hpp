#pragma once
/// \file joint_drive.hpp
/// \brief A PD drive on the coordinate of a revolute or prismatic joint (frame_joint.hpp): the
/// joint's actuator as a force, tau = -k (theta - theta*(t)) - d (theta' - theta*'(t)), applied
/// along the coordinate (a torque about the axis on the first frame and its reaction on the
/// second, or a force along the axis).
///
/// With the coordinate's gradients (force row g_f over the joint's DOFs, position row g_q), the
/// residual gets g_f^T e_tau, e_tau = k e + d e' (e = theta - theta*, wrapped into (-pi, pi] for
/// an angle), and the Jacobian
///
///     dF/dq = k g_f^T g_q + e_tau d(g_f^T)/dq + d g_f^T d(theta')/dq,   dF/dv = d g_f^T g_f,
///
/// where d(theta')/dq is the rate's change with the joint axes at fixed frame velocities. The
/// change of a frame's velocity with its DOFs at fixed v (a rigid body's world angular velocity
/// R omega_body turns with R) is not included: dF/dq misses d times that term, which slows
/// Newton's convergence on fast-turning driven joints but not the converged answer.

#include "frame_joint.hpp"

#include "soma/force.hpp"
#include "soma/settings_errors.hpp"
#include "soma/time_function.hpp"

#include <optional>
#include <string>

namespace soma::joints {

struct JointDriveSettings {
    std::string joint;       ///< the scene name of a revolute or prismatic joint
    double stiffness = 0.0;  ///< N m/rad or N/m
    double damping = 0.0;    ///< N m s/rad or N s/m
    TimeFunction target;     ///< theta*(t)
    std::optional<TimeFunction> target_velocity;  ///< theta*'(t); absent: 0
};

class JointDrive final : public Force {
public:
    JointDrive(JointDriveSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return false; }
    std::vector<TermStatistic> statistics() const override;
    double statistic(std::size_t index, const EvalContext& context) const override;

private:
    /// The coordinate's error e and the effort k e + d e' at \p context (fills coordinate_).
    std::pair<double, double> error_and_effort(const EvalContext& context) const;

    JointDriveSettings settings_;
    SettingsErrors errors_;
    const FrameJoint* joint_ = nullptr;
    StencilId stencil_ = -1;
    mutable JointCoordinate coordinate_;  ///< sized to the joint's DOFs at bind
    VectorX residual_;
    Eigen::MatrixXd jacobian_;
};

}  // namespace soma::joints
