#include "joint_drive.hpp"

#include "coordinate_effort.hpp"

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
    joint_ = &coordinate_joint(scene, settings_.joint, errors_, "a drive acts on");
    size_coordinate(*joint_, coordinate_);
    const auto n = static_cast<Index>(joint_->dofs().size());
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
    const bool with_jacobian = assembly.wants_jacobian();
    add_coordinate_effort(coordinate_, effort, settings_.stiffness, settings_.damping, context.coefficients, residual_,
                          with_jacobian ? &jacobian_ : nullptr);
    assembly.add_residual(stencil_, residual_);
    if (with_jacobian) assembly.add_jacobian(stencil_, jacobian_, 1.0);
}

double JointDrive::potential_energy(const EvalContext& context) const {
    EvalContext at_rest = context;
    at_rest.v = nullptr;  // the spring's energy needs no rate
    const double error = error_and_effort(at_rest).first;
    return 0.5 * settings_.stiffness * error * error;
}

std::vector<TermStatistic> JointDrive::statistics() const {
    const bool angle = joint_ && joint_->type() == JointType::revolute;
    return {{"coordinate", angle ? "rad" : "m", "the joint's coordinate (angle or slide; its initial_coordinate as built)"},
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
