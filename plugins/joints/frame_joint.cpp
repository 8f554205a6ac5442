#include "frame_joint.hpp"

#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

namespace soma::joints {

const char* joint_type_name(JointType type) {
    switch (type) {
        case JointType::spherical: return "spherical";
        case JointType::revolute: return "revolute";
        case JointType::universal: return "universal";
        case JointType::prismatic: return "prismatic";
        case JointType::cylindrical: return "cylindrical";
        case JointType::planar: return "planar";
        case JointType::fixed: return "fixed";
    }
    return "?";
}

bool has_single_coordinate(JointType type) { return type == JointType::revolute || type == JointType::prismatic; }

namespace {

/// A unit vector perpendicular to the unit \p z (the joint frame's x when the scene gives none).
Vec3 perpendicular(const Vec3& z) {
    const Vec3 helper = std::abs(z.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
    return (helper - z * z.dot(helper)).normalized();
}

}  // namespace

FrameJoint::FrameJoint(FrameJointSettings settings, Parameters parameters)
    : settings_(std::move(settings)), parameters_(std::move(parameters)) {}

void FrameJoint::bind(const SceneView& scene) {
    dofs_.clear();
    const std::string kind = std::string("a ") + joint_type_name(settings_.type) + " joint";
    pair_.ends[0] = bind_frame_end(scene, settings_.first, parameters_.block("first"), kind, dofs_);
    pair_.ends[1] = BoundFrame{};
    if (!settings_.second.element.empty())
        pair_.ends[1] = bind_frame_end(scene, settings_.second, parameters_.block("second"), kind, dofs_);
    if (frames_move_as_one(pair_.ends[0], pair_.ends[1], dofs_))
        parameters_.fail("second", "both ends are frames of '" + settings_.first.element +
                                       "' that move as one (they depend on the same DOFs): the joint would hold "
                                       "nothing");

    // The joint frame as built (world): z along the axis, x along the second axis or perpendicular.
    const double axis_norm = settings_.axis.norm();
    if (!(axis_norm > 0.0) || !std::isfinite(axis_norm)) parameters_.fail("axis", "the axis must be a finite, non-zero vector");
    const Vec3 z = settings_.axis / axis_norm;
    Vec3 x = perpendicular(z);
    if (settings_.second_axis) {
        const double norm = settings_.second_axis->norm();
        if (!(norm > 0.0) || !std::isfinite(norm))
            parameters_.fail("second_axis", "the second axis must be a finite, non-zero vector");
        x = *settings_.second_axis / norm;
        // Axes written with rounded decimals are made exactly perpendicular; more is a mistake.
        if (std::abs(x.dot(z)) > 1e-6) {
            std::ostringstream text;
            text << "a universal joint's two axes must be perpendicular as built; the angle between them is "
                 << std::acos(std::clamp(x.dot(z), -1.0, 1.0)) * 180.0 / std::numbers::pi << " deg";
            parameters_.fail("second_axis", text.str());
        }
        x = (x - z * z.dot(x)).normalized();
    }
    Mat3 axes;
    axes << x, z.cross(x), z;

    pair_.place(scene.state().q, settings_.at, axes);
    EvalContext context;
    context.q = &scene.state().q;

    rows_.clear();
    const auto world = [&](int k) { rows_.push_back({RowKind::world_offset, k, 0, false, false}); };
    const auto along = [&](int k) { rows_.push_back({RowKind::axis_offset, k, 0, false, false}); };
    const auto product = [&](int a, int b) { rows_.push_back({RowKind::axis_product, a, b, true, false}); };
    switch (settings_.type) {
        case JointType::spherical: world(0), world(1), world(2); break;
        case JointType::revolute: world(0), world(1), world(2), product(2, 0), product(2, 1); break;
        case JointType::universal: world(0), world(1), world(2), product(2, 0); break;
        case JointType::prismatic: along(0), along(1), product(2, 0), product(2, 1), product(0, 1); break;
        case JointType::cylindrical: along(0), along(1), product(2, 0), product(2, 1); break;
        case JointType::planar: along(2), product(2, 0), product(2, 1); break;
        case JointType::fixed: world(0), world(1), world(2), product(2, 0), product(2, 1), product(0, 1); break;
    }
    if (settings_.coordinate) {
        if (!has_single_coordinate(settings_.type))
            parameters_.fail("coordinate", std::string("a ") + joint_type_name(settings_.type) +
                                               " joint has no single coordinate to prescribe (revolute and prismatic do)");
        const bool angle = settings_.type == JointType::revolute;
        rows_.push_back({angle ? RowKind::angle : RowKind::slide, 0, 0, angle, true});
        // A hard row must hold as built, where the coordinate is initial_coordinate.
        const double t0 = scene.state().t;
        const double target = settings_.coordinate(t0);
        if (!std::isfinite(target) || std::abs(target - settings_.initial_coordinate) > 1e-9) {
            std::ostringstream text;
            text << "the joint's coordinate is " << settings_.initial_coordinate
                 << " as built (the scene's configuration, `initial_coordinate`) but '" << settings_.coordinate_text
                 << "' is " << target << " at t = " << t0
                 << ": a prescribed coordinate must start where the joint is; build the scene at the target or start "
                    "the expression at " << settings_.initial_coordinate;
            parameters_.fail("coordinate", text.str());
        }
        // ... and move as the joint does: a rate jump would be an impulse, whose alternation the
        // midpoint rule and Newmark keep for the whole run. The target's rate by second-order
        // forward differences (step 1e-5 s: truncation ~1e-10 times the third derivative,
        // round-off ~1e-11 times the value).
        const double h = 1e-5;
        const double target_rate =
            (-3.0 * target + 4.0 * settings_.coordinate(t0 + h) - settings_.coordinate(t0 + 2.0 * h)) / (2.0 * h);
        JointCoordinate start;
        const auto n = static_cast<Index>(dofs_.size());
        start.force_row.setZero(n);
        start.position_row.setZero(n);
        start.rate_position_row.setZero(n);
        start.curvature.setZero(n, n);
        context.v = &scene.state().v;
        evaluate_coordinate(context, 0.0, start);
        if (std::abs(target_rate - start.rate) > 1e-6 * (1.0 + std::abs(start.rate))) {
            const char* unit = settings_.type == JointType::revolute ? " rad/s" : " m/s";
            std::ostringstream text;
            text << "'" << settings_.coordinate_text << "' moves at " << target_rate << unit << " at t = " << t0
                 << " but the joint starts at " << start.rate << unit
                 << ": a prescribed coordinate must also start with the joint's rate (a jump is an impulse that the "
                    "midpoint rule and Newmark keep alternating); e.g. 0.8*(1 - cos(t)) instead of 0.8*sin(t)";
            parameters_.fail("coordinate", text.str());
        }
    }
}

double FrameJoint::compliance(Index row) const {
    const RowSpec& spec = rows_[static_cast<std::size_t>(row)];
    if (spec.prescribed) return 0.0;
    if (!settings_.row_compliance.empty()) return settings_.row_compliance[static_cast<std::size_t>(row)];
    return spec.rotational ? settings_.rotational_compliance : settings_.compliance;
}

void FrameJoint::row_at(const RowSpec& spec, JointRow& row) const {
    switch (spec.kind) {
        case RowKind::world_offset: offset_row(pair_.frames, Vec3::Unit(spec.first_axis), false, row); return;
        case RowKind::axis_offset: offset_row(pair_.frames, pair_.frames.axis(1, spec.first_axis), true, row); return;
        case RowKind::axis_product:
            axis_product_row(pair_.frames.axis(0, spec.first_axis), pair_.frames.axis(1, spec.second_axis), row);
            return;
        case RowKind::angle: angle_row(pair_.frames, row, angle_scratch_); return;
        case RowKind::slide: offset_row(pair_.frames, pair_.frames.axis(1, 2), true, row); return;
    }
}

void FrameJoint::evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const {
    out.force_jacobian.setZero();
    out.position_jacobian.setZero();
    out.curvature.setZero();
    pair_.evaluate(context);
    wrench_.setZero();
    hessian_.setZero();
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const RowSpec& spec = rows_[r];
        row_at(spec, row_);
        double value = row_.value;
        if (spec.prescribed) {
            value += settings_.initial_coordinate - settings_.coordinate(context.t);
            if (spec.kind == RowKind::angle) value = std::remainder(value, 2.0 * std::numbers::pi);
        }
        const auto row = static_cast<Index>(r);
        out.value[row] = value;
        pair_.scatter(row_.gradient, out.force_jacobian.row(row), out.position_jacobian.row(row));
        wrench_ += lambda[r] * row_.gradient;
        hessian_ += lambda[r] * row_.hessian;
    }
    pair_.add_curvature(context, wrench_, hessian_, out.curvature);
}

void FrameJoint::evaluate_coordinate(const EvalContext& context, double tau, JointCoordinate& out) const {
    out.force_row.setZero();
    out.position_row.setZero();
    out.curvature.setZero();
    out.rate_position_row.setZero();
    pair_.evaluate(context);
    const bool angle = settings_.type == JointType::revolute;
    row_at({angle ? RowKind::angle : RowKind::slide, 0, 0, angle, false}, row_);
    out.value = row_.value + settings_.initial_coordinate;
    if (angle) out.value = std::remainder(out.value, 2.0 * std::numbers::pi);
    pair_.scatter(row_.gradient, out.force_row, out.position_row);
    wrench_ = tau * row_.gradient;
    hessian_ = tau * row_.hessian;
    pair_.add_curvature(context, wrench_, hessian_, out.curvature);
    out.rate = 0.0;
    if (!context.v) return;
    // rate = g . xi with xi the frames' velocities; at fixed xi it changes as g does: xi^T H.
    const RowGradient velocity = pair_.velocities();
    out.rate = row_.gradient.dot(velocity);
    const RowGradient rate_change = row_.hessian.transpose() * velocity;
    for (std::size_t j = 0; j < 2; ++j) {
        const BoundFrame& end = pair_.ends[j];
        if (!end.element) continue;
        const auto J_q = pair_.kinematics[j].position_jacobian_columns();
        for (int c = 0; c < pair_.kinematics[j].dof_count; ++c)
            out.rate_position_row(end.columns[static_cast<std::size_t>(c)]) +=
                rate_change.segment<6>(6 * static_cast<Index>(j)).dot(J_q.col(c));
    }
}

const FrameJoint& coordinate_joint(const SceneView& scene, const std::string& name, const SettingsErrors& errors,
                                   const std::string& role) {
    const Constraint* found = nullptr;
    for (const Constraint* c : scene.constraint_terms())
        if (c->name() == name) found = c;
    if (!found) errors.fail("joint", "no constraint named '" + name + "'");
    const auto* joint = dynamic_cast<const FrameJoint*>(found);
    if (!joint || !has_single_coordinate(joint->type()))
        errors.fail("joint", "'" + name + "' is not a revolute_joint or prismatic_joint: " + role + " a joint's single coordinate");
    if (joint->has_prescribed_coordinate())
        errors.fail("joint", "joint '" + name + "' prescribes its coordinate (`coordinate`): its motion is given, so "
                             "nothing else may act on it; remove one of the two");
    if (joint->dofs().empty()) errors.fail("joint", "joint '" + name + "' moves no DOF");
    return *joint;
}

void size_coordinate(const FrameJoint& joint, JointCoordinate& coordinate) {
    const auto n = static_cast<Index>(joint.dofs().size());
    coordinate.force_row.setZero(n);
    coordinate.position_row.setZero(n);
    coordinate.rate_position_row.setZero(n);
    coordinate.curvature.setZero(n, n);
}

}  // namespace soma::joints
