// The coupling of two joints' coordinates (joint_coupling.hpp).
#include "joint_coupling.hpp"

#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

namespace soma::joints {

JointCoupling::JointCoupling(JointCouplingSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (settings_.multiplier == 0.0)
        errors_.fail("multiplier", "is 0: the follower would be held at the offset, which a joint's prescribed "
                                   "`coordinate` does");
    if (settings_.leader == settings_.follower)
        errors_.fail("follower", "is the leader ('" + settings_.leader + "'): a joint cannot follow itself");
}

const FrameJoint* JointCoupling::find_joint(const SceneView& scene, const std::string& name, const char* key) {
    const Constraint* found = nullptr;
    for (const Constraint* c : scene.constraint_terms())
        if (c->name() == name) found = c;
    if (!found) errors_.fail(key, "no constraint named '" + name + "' (list the joints before the coupling, or name an imported joint)");
    const auto* joint = dynamic_cast<const FrameJoint*>(found);
    if (!joint || !has_single_coordinate(joint->type()))
        errors_.fail(key, "'" + name + "' is not a revolute_joint or prismatic_joint: a coupling relates two joints' "
                                       "single coordinates");
    return joint;
}

void JointCoupling::bind(const SceneView& scene) {
    leader_ = find_joint(scene, settings_.leader, "leader");
    follower_ = find_joint(scene, settings_.follower, "follower");
    if (follower_->has_prescribed_coordinate())
        errors_.fail("follower", "joint '" + settings_.follower +
                                     "' prescribes its coordinate (`coordinate`): its motion is given, so it cannot "
                                     "also follow '" + settings_.leader + "'");
    // A follower follows one leader, and two couplings do not follow each other (both would
    // leave the rows dependent: a singular KKT matrix).
    for (const Constraint* c : scene.constraint_terms()) {
        const auto* other = dynamic_cast<const JointCoupling*>(c);
        if (!other || other == this) continue;
        if (other->follower() == follower_)
            errors_.fail("follower", "joint '" + settings_.follower + "' already follows a joint (coupling '" +
                                         other->name() + "'): a joint follows one leader");
        if (other->follower() == leader_ && other->leader() == follower_)
            errors_.fail("leader", "joint '" + settings_.leader + "' already follows '" + settings_.follower +
                                       "' (coupling '" + other->name() + "'): two joints cannot follow each other");
    }
    // The union of the two joints' DOFs, each joint's columns into it.
    dofs_ = leader_->dofs();
    for (Index dof : follower_->dofs())
        if (std::find(dofs_.begin(), dofs_.end(), dof) == dofs_.end()) dofs_.push_back(dof);
    if (dofs_.empty()) errors_.fail("follower", "the two joints move no DOF");
    const auto columns_of = [&](const FrameJoint& joint, std::vector<Index>& columns) {
        columns.clear();
        for (Index dof : joint.dofs())
            columns.push_back(static_cast<Index>(std::find(dofs_.begin(), dofs_.end(), dof) - dofs_.begin()));
    };
    columns_of(*leader_, leader_columns_);
    columns_of(*follower_, follower_columns_);
    size_coordinate(*leader_, leader_coordinate_);
    size_coordinate(*follower_, follower_coordinate_);
    // The row holds as built (a hard row that does not would jump the follower in the first step),
    // evaluated as evaluate() does: each angle read in (-pi, pi], the difference modulo a turn.
    const double turn = 2.0 * std::numbers::pi;
    const auto read = [&](const FrameJoint& joint) {
        const double c = joint.initial_coordinate();
        return joint.type() == JointType::revolute ? std::remainder(c, turn) : c;
    };
    double built = read(*follower_) - settings_.multiplier * read(*leader_);
    if (follower_->type() == JointType::revolute) built = std::remainder(built, turn);
    if (!(std::abs(built) <= 1e-9)) {
        std::ostringstream text;
        double raw = follower_->initial_coordinate() - settings_.multiplier * leader_->initial_coordinate();
        if (follower_->type() == JointType::revolute) raw = std::remainder(raw, turn);
        if (std::abs(raw) <= 1e-9) {
            // Consistent, but the leader's angle is read in (-pi, pi]: a non-integer multiple of
            // the angle so read is not the multiple of the angle built.
            text << "leader '" << settings_.leader << "' is built at " << leader_->initial_coordinate()
                 << " rad, which the coupling reads in (-pi, pi] as " << read(*leader_) << ": with multiplier "
                 << settings_.multiplier << " it would not hold as built; build the leader within (-pi, pi]";
            errors_.fail("leader", text.str());
        }
        text << "as built, follower '" << settings_.follower << "' is at " << follower_->initial_coordinate() << " and leader '"
             << settings_.leader << "' at " << leader_->initial_coordinate() << " (their `initial_coordinate`), but the "
             << "coupling holds follower = " << settings_.multiplier << " x leader: build the follower at "
             << settings_.multiplier * leader_->initial_coordinate();
        errors_.fail("follower", text.str());
    }
}

void JointCoupling::evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const {
    const double m = settings_.multiplier;
    follower_->evaluate_coordinate(context, lambda[0], follower_coordinate_);
    leader_->evaluate_coordinate(context, -m * lambda[0], leader_coordinate_);
    double value = follower_coordinate_.value - m * leader_coordinate_.value;
    if (follower_->type() == JointType::revolute) value = std::remainder(value, 2.0 * std::numbers::pi);
    out.value[0] = value;
    out.force_jacobian.setZero();
    out.position_jacobian.setZero();
    out.curvature.setZero();
    const auto add = [&](const JointCoordinate& c, const std::vector<Index>& columns, double weight) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const auto local = static_cast<Index>(i);
            out.force_jacobian(0, columns[i]) += weight * c.force_row[local];
            out.position_jacobian(0, columns[i]) += weight * c.position_row[local];
            // The curvature was evaluated at this joint's effort (lambda or -m lambda).
            for (std::size_t j = 0; j < columns.size(); ++j)
                out.curvature(columns[i], columns[j]) += c.curvature(local, static_cast<Index>(j));
        }
    };
    add(follower_coordinate_, follower_columns_, 1.0);
    add(leader_coordinate_, leader_columns_, -m);
}

}  // namespace soma::joints
