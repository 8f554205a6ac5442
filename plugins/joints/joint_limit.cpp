#include "joint_limit.hpp"

#include "soma/scene_view.hpp"

#include <cmath>
#include <numbers>
#include <sstream>
#include <utility>

namespace soma::joints {

namespace {
constexpr double kLever = 1.0;  ///< m: a revolute stop's normal force is its torque
}

JointLimit::JointLimit(JointLimitSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!settings_.lower && !settings_.upper) errors_.fail("lower", "give `lower`, `upper` or both");
    if (settings_.lower && settings_.upper && !(*settings_.lower < *settings_.upper))
        errors_.fail("upper", "must be above `lower`");
}

void JointLimit::bind(const SceneView& scene) {
    joint_ = &coordinate_joint(scene, settings_.joint, errors_, "a limit bounds");
    const bool angle = joint_->type() == JointType::revolute;
    const char* unit = angle ? " rad" : " m";
    // An angle's stops are the faces of pins on one circle: a range at most a turn wide, and a
    // lone stop's back face a turn from its front.
    const double turn = 2.0 * std::numbers::pi;
    if (angle && settings_.lower && settings_.upper && *settings_.upper - *settings_.lower > turn)
        errors_.fail("upper", "a revolute joint's range is at most one turn wide (upper - lower <= 2 pi)");
    has_lower_ = settings_.lower.has_value() || (angle && settings_.upper.has_value());
    has_upper_ = settings_.upper.has_value() || (angle && settings_.lower.has_value());
    lower_ = settings_.lower ? *settings_.lower : (angle && settings_.upper ? *settings_.upper - turn : 0.0);
    upper_ = settings_.upper ? *settings_.upper : (angle && settings_.lower ? *settings_.lower + turn : 0.0);
    // The joint starts at its initial coordinate: inside the range (a lone angle stop's back face
    // included).
    const double built = joint_->initial_coordinate();
    if ((has_lower_ && lower_ > built) || (has_upper_ && upper_ < built)) {
        std::ostringstream text;
        text << "the joint's coordinate is " << built << " as built, outside [" << (has_lower_ ? lower_ : -INFINITY)
             << ", " << (has_upper_ ? upper_ : INFINITY) << "]" << unit << ": build the scene inside its limits";
        errors_.fail(has_lower_ && lower_ > built ? (settings_.lower ? "lower" : "upper") : (settings_.upper ? "upper" : "lower"),
                     text.str());
    }
    // The angle followed across turns from where it is built (evaluate_coordinate wraps it).
    turned_ = built;
    last_angle_ = angle ? std::remainder(built, turn) : built;
    size_coordinate(*joint_, coordinate_);
}

UnilateralContact JointLimit::stop(double bound, double sign, const EvalContext& context) const {
    // The two ends' element frames at the step's start.
    FrameKinematics k[2];
    for (int i = 0; i < 2; ++i) end_kinematics(joint_->frames().ends[static_cast<std::size_t>(i)], context, k[i]);
    const FramePair& pair = joint_->frames();
    const auto local_arm = [&](int i) { return pair.local_arm[static_cast<std::size_t>(i)]; };
    const auto local_axes = [&](int i) { return pair.local_axes[static_cast<std::size_t>(i)]; };
    const Mat3 axes2 = k[1].rotation * local_axes(1);  // joint frame 2 in the world
    UnilateralContact c;
    const auto end_at = [&](int i, const Vec3& local_offset) {
        const BoundFrame& end = joint_->frames().ends[static_cast<std::size_t>(i)];
        if (!end.element) return ContactEnd::at_world(k[i].origin + k[i].rotation * local_offset);
        ContactEnd e;
        e.element = end.element;
        e.frame = end.frame;
        e.offset = local_offset;
        return e;
    };
    // The rows measure the coordinate from the configuration as built; the bounds count from the
    // joint's zero, initial_coordinate there.
    bound -= joint_->initial_coordinate();
    if (joint_->type() == JointType::prismatic) {
        c.a = end_at(0, local_arm(0));
        c.b = end_at(1, local_arm(1) + bound * local_axes(1).col(2));
        c.normal = sign * axes2.col(2);
    } else {
        c.a = end_at(0, local_arm(0) + kLever * local_axes(0).col(0));
        const Vec3 at_bound = std::cos(bound) * local_axes(1).col(0) + std::sin(bound) * local_axes(1).col(1);
        c.b = end_at(1, local_arm(1) + kLever * at_bound);
        c.normal = sign * (-std::sin(bound) * axes2.col(0) + std::cos(bound) * axes2.col(1));
    }
    return c;
}

void JointLimit::detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved) {
    contacts_.clear();
    EvalContext context;
    context.t = scene.state().t;
    context.q = &scene.state().q;
    context.v = &scene.state().v;
    joint_->evaluate_coordinate(context, 0.0, coordinate_);
    const double rate = coordinate_.rate;
    // The coordinate's acceleration, to first order: its rows applied to the DOF accelerations.
    EvalContext accelerations = context;
    accelerations.v = &scene.state().a;
    joint_->evaluate_coordinate(accelerations, 0.0, coordinate_);
    const double acceleration = coordinate_.rate;
    if (joint_->type() == JointType::revolute) {
        // Each detection sees a committed state; a step turns the joint by less than half a turn.
        turned_ += std::remainder(coordinate_.value - last_angle_, 2.0 * std::numbers::pi);
        last_angle_ = coordinate_.value;
    } else {
        turned_ = coordinate_.value;
    }
    double later = turned_ + 2.0 * dt * rate + 2.0 * dt * dt * acceleration;
    double lowest = std::min(turned_, later), highest = std::max(turned_, later);
    for (const SolvedStep& end : solved) {  // another look: also where each solve's rate takes the joint
        EvalContext at_solved_rate = context;
        at_solved_rate.v = end.v;
        joint_->evaluate_coordinate(at_solved_rate, 0.0, coordinate_);
        later = turned_ + 2.0 * dt * coordinate_.rate;
        lowest = std::min(lowest, later);
        highest = std::max(highest, later);
    }
    const double reach = settings_.margin;
    if (has_lower_ && lowest - lower_ <= reach) contacts_.push_back(stop(lower_, 1.0, context));
    if (has_upper_ && upper_ - highest <= reach) contacts_.push_back(stop(upper_, -1.0, context));
}

void JointLimit::save_checkpoint(CheckpointWriter& out) const {
    out.real("turned", turned_);
    out.real("last_angle", last_angle_);
}

void JointLimit::restore_checkpoint(CheckpointReader& in) {
    turned_ = in.real("turned");
    last_angle_ = in.real("last_angle");
}

}  // namespace soma::joints
