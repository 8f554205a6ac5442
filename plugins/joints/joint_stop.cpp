// The penalty stops of a joint's range (joint_stop.hpp).
#include "joint_stop.hpp"

#include "coordinate_effort.hpp"

#include "soma/scene_view.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

namespace soma::joints {

JointStop::JointStop(JointStopSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.lower < settings_.upper)) errors_.fail("upper", "must be above lower: the range would be empty");
}

void JointStop::bind(const SceneView& scene) {
    joint_ = &coordinate_joint(scene, settings_.joint, errors_, "a stop bounds");
    const double built = joint_->initial_coordinate();
    if (settings_.lower > built || settings_.upper < built) {
        std::ostringstream text;
        text << "the joint's coordinate is " << built << " as built, outside the range: build the scene inside it";
        errors_.fail(settings_.lower > built ? "lower" : "upper", text.str());
    }
    // The angle is read within a turn centred on the range (penetration()): a range of a turn or
    // more has no room for the wrap.
    if (joint_->type() == JointType::revolute && settings_.upper - settings_.lower >= 2.0 * std::numbers::pi)
        errors_.fail("upper", "a revolute joint's range must be narrower than a turn (upper - lower < 2 pi); for a "
                              "joint that turns freely give no stop");
    size_coordinate(*joint_, coordinate_);
    const auto n = static_cast<Index>(joint_->dofs().size());
    residual_.setZero(n);
    jacobian_.setZero(n, n);
}

void JointStop::declare_pattern(PatternBuilder& pattern) { stencil_ = pattern.add_stencil(joint_->dofs()); }

double JointStop::penetration(const EvalContext& context) const {
    joint_->evaluate_coordinate(context, 1.0, coordinate_);
    double theta = coordinate_.value;
    if (joint_->type() == JointType::revolute) {
        // The angle comes in (-pi, pi]; read it within the turn centred on the range instead, so
        // that its jump by 2 pi lies half a turn from the range's middle, as far from both stops
        // as it can be (a joint past a stop near pi would otherwise read as past the other one).
        const double middle = 0.5 * (settings_.lower + settings_.upper);
        theta = middle + std::remainder(theta - middle, 2.0 * std::numbers::pi);
    }
    if (theta > settings_.upper) return theta - settings_.upper;
    if (theta < settings_.lower) return theta - settings_.lower;
    return 0.0;
}

void JointStop::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const double e = penetration(context);
    // tau = k e + d |e| theta' (Hunt and Crossley): the damper grows with the penetration, so the
    // force is continuous where the stop engages; a damper that switched on at e = 0 would be a
    // jump in the residual there, which Newton cannot converge across. Its derivatives are those
    // of k' e + d' theta' with k' = k + d sign(e) theta' and d' = d |e| (coordinate_effort.hpp).
    const double rate = coordinate_.rate;
    double effort = settings_.stiffness * e + settings_.damping * std::abs(e) * rate;
    const double sign = e > 0.0 ? 1.0 : e < 0.0 ? -1.0 : 0.0;
    double k = e != 0.0 ? settings_.stiffness + settings_.damping * sign * rate : 0.0;
    double d = settings_.damping * std::abs(e);
    // A stop pushes, never pulls: leaving it faster than k/d the damper would outweigh the
    // spring. The effort is then 0 (continuous: both vanish where k e + d |e| theta' does).
    if (effort * sign < 0.0) effort = k = d = 0.0;
    const bool with_jacobian = assembly.wants_jacobian();
    add_coordinate_effort(coordinate_, effort, k, d, context.coefficients, residual_, with_jacobian ? &jacobian_ : nullptr);
    assembly.add_residual(stencil_, residual_);
    if (with_jacobian) assembly.add_jacobian(stencil_, jacobian_, 1.0);
}

double JointStop::potential_energy(const EvalContext& context) const {
    EvalContext at_rest = context;
    at_rest.v = nullptr;
    const double e = penetration(at_rest);
    return 0.5 * settings_.stiffness * e * e;
}

std::vector<TermStatistic> JointStop::statistics() const {
    const bool angle = joint_ && joint_->type() == JointType::revolute;
    return {{"coordinate", angle ? "rad" : "m", "the joint's coordinate (angle or slide; its initial_coordinate as built)"},
            {"penetration", angle ? "rad" : "m", "how far the coordinate is past a stop (0 within the range)"},
            {"effort", angle ? "N m" : "N", "the stop's torque or force on the first frame along the coordinate"}};
}

double JointStop::statistic(std::size_t index, const EvalContext& context) const {
    const double e = penetration(context);
    if (index == 0) return coordinate_.value;
    if (index == 1) return e;
    const double effort = settings_.stiffness * e + settings_.damping * std::abs(e) * coordinate_.rate;
    return effort * e > 0.0 ? -effort : 0.0;
}

}  // namespace soma::joints
