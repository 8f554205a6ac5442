#include "joint_drive.hpp"

#include "soma/scene_view.hpp"

#include <cmath>
#include <numbers>

namespace soma::joints {

JointDrive::JointDrive(JointDriveSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (settings_.stiffness == 0.0 && settings_.damping == 0.0)
        errors_.fail("stiffness", "stiffness and damping are both zero: the drive would do nothing");
}

void JointDrive::bind(const SceneView& scene) {
    const Constraint* found = nullptr;
    for (const Constraint* c : scene.constraint_terms())
        if (c->name() == settings_.joint) found = c;
    if (!found) errors_.fail("joint", "no constraint named '" + settings_.joint + "'");
    joint_ = dynamic_cast<const FrameJoint*>(found);
    if (!joint_ || !has_single_coordinate(joint_->type()))
        errors_.fail("joint", "'" + settings_.joint + "' is not a revolute_joint or prismatic_joint: a drive acts on a "
                                                    "joint's single coordinate");
    if (joint_->has_prescribed_coordinate())
        errors_.fail("joint", "joint '" + settings_.joint +
                                  "' prescribes its coordinate (`coordinate`): its motion is given, so a drive on it "
                                  "would do nothing; remove one of the two");
    const auto n = static_cast<Index>(joint_->dofs().size());
    if (n == 0) errors_.fail("joint", "joint '" + settings_.joint + "' moves no DOF");
    coordinate_.force_row.setZero(n);
    coordinate_.position_row.setZero(n);
    coordinate_.rate_position_row.setZero(n);
    coordinate_.curvature.setZero(n, n);
    residual_.setZero(n);
    jacobian_.setZero(n, n);
}

void JointDrive::declare_pattern(PatternBuilder& pattern) { stencil_ = pattern.add_stencil(joint_->dofs()); }

std::pair<double, double> JointDrive::error_and_effort(const EvalContext& context) const {
    joint_->evaluate_coordinate(context, 1.0, coordinate_);
    double error = coordinate_.value - settings_.target(context.t);
    if (joint_->type() == JointType::revolute) error = std::remainder(error, 2.0 * std::numbers::pi);
    const double rate_error = coordinate_.rate - (settings_.target_velocity ? (*settings_.target_velocity)(context.t) : 0.0);
    return {error, settings_.stiffness * error + settings_.damping * rate_error};
}

void JointDrive::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const auto [error, effort] = error_and_effort(context);
    (void)error;
    residual_.noalias() = effort * coordinate_.force_row.transpose();
    assembly.add_residual(stencil_, residual_);
    if (!assembly.wants_jacobian()) return;
    const double k = settings_.stiffness;
    const double d = settings_.damping;
    const JacobianCoefficients& w = context.coefficients;
    // curvature was evaluated at tau = 1: it is linear in tau.
    jacobian_.noalias() = w.c_q * effort * coordinate_.curvature;
    const Index n = jacobian_.cols();
    for (Index c = 0; c < n; ++c) {  // the outer product, column by column (no temporaries)
        const double column = w.c_q * (k * coordinate_.position_row[c] + d * coordinate_.rate_position_row[c]) +
                              w.c_v * d * coordinate_.force_row[c];
        for (Index r = 0; r < n; ++r) jacobian_(r, c) += coordinate_.force_row[r] * column;
    }
    assembly.add_jacobian(stencil_, jacobian_, 1.0);
}

double JointDrive::potential_energy(const EvalContext& context) const {
    EvalContext at_rest = context;
    at_rest.v = nullptr;  // the spring's energy needs no rate
    const double error = error_and_effort(at_rest).first;
    return 0.5 * settings_.stiffness * error * error;
}

std::vector<TermStatistic> JointDrive::statistics() const {
    const bool angle = joint_ && joint_->type() == JointType::revolute;
    return {{"coordinate", angle ? "rad" : "m", "the joint's coordinate (angle from the configuration as built, or slide)"},
            {"error", angle ? "rad" : "m", "coordinate - target(t)"},
            {"effort", angle ? "N m" : "N",
             "the drive's torque or force on the first frame along the coordinate, -(k error + d rate error)"}};
}

double JointDrive::statistic(std::size_t index, const EvalContext& context) const {
    const auto [error, effort] = error_and_effort(context);
    if (index == 0) return coordinate_.value;
    if (index == 1) return error;
    return -effort;
}

}  // namespace soma::joints
