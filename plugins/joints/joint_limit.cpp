#include "joint_limit.hpp"

#include "soma/scene_view.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

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
    const Constraint* found = nullptr;
    for (const Constraint* c : scene.constraint_terms())
        if (c->name() == settings_.joint) found = c;
    if (!found)
        errors_.fail("joint", "no constraint named '" + settings_.joint +
                                  "' before this one (list the joint before its limit)");
    joint_ = dynamic_cast<const FrameJoint*>(found);
    if (!joint_ || !has_single_coordinate(joint_->type()))
        errors_.fail("joint", "'" + settings_.joint + "' is not a revolute_joint or prismatic_joint: a limit bounds a "
                                                    "joint's single coordinate");
    if (joint_->has_prescribed_coordinate())
        errors_.fail("joint", "joint '" + settings_.joint + "' prescribes its coordinate: a limit on it would fight its motion");
    const bool angle = joint_->type() == JointType::revolute;
    const char* unit = angle ? " rad" : " m";
    // Both stops within a half turn: the stop's row L sin(theta - bound) is monotonic there.
    for (const auto& [key, bound] : {std::pair{"lower", settings_.lower}, std::pair{"upper", settings_.upper}}) {
        if (!bound) continue;
        if (angle && !(std::abs(*bound) < std::numbers::pi))
            errors_.fail(key, "a revolute joint's stops lie within a half turn of the configuration as built (|bound| < pi)");
    }
    // The joint starts at 0: inside the range.
    if ((settings_.lower && *settings_.lower > 0.0) || (settings_.upper && *settings_.upper < 0.0)) {
        std::ostringstream text;
        text << "the joint's coordinate is 0 as built, outside [" << (settings_.lower ? *settings_.lower : -INFINITY)
             << ", " << (settings_.upper ? *settings_.upper : INFINITY) << "]" << unit
             << ": build the scene inside its limits";
        errors_.fail(settings_.lower && *settings_.lower > 0.0 ? "lower" : "upper", text.str());
    }
    const auto n = static_cast<Index>(joint_->dofs().size());
    coordinate_.force_row.setZero(n);
    coordinate_.position_row.setZero(n);
    coordinate_.rate_position_row.setZero(n);
    coordinate_.curvature.setZero(n, n);
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

void JointLimit::detect(const SceneView& scene, double dt) {
    contacts_.clear();
    EvalContext context;
    context.t = scene.state().t;
    context.q = &scene.state().q;
    context.v = &scene.state().v;
    joint_->evaluate_coordinate(context, 0.0, coordinate_);
    const double now = coordinate_.value;
    const double later = now + 2.0 * dt * coordinate_.rate;
    const double reach = settings_.margin;
    if (settings_.lower && std::min(now, later) - *settings_.lower <= reach) contacts_.push_back(stop(*settings_.lower, 1.0, context));
    if (settings_.upper && *settings_.upper - std::max(now, later) <= reach)
        contacts_.push_back(stop(*settings_.upper, -1.0, context));
}

}  // namespace soma::joints
