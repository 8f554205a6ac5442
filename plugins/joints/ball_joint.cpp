#include "ball_joint.hpp"

#include "soma/nearest_point.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>
#include <sstream>

namespace soma::joints {

BallJoint::BallJoint(BallJointSettings settings, Parameters parameters)
    : settings_(std::move(settings)), parameters_(std::move(parameters)) {}

BallJoint::End BallJoint::resolve(const SceneView& scene, const JointEnd& end, const std::string& key) {
    End out;
    if (end.element.empty()) {
        out.world = end.world;
        return out;
    }
    const Parameters block = parameters_.block(key);
    out.element = scene.find_element(end.element);
    if (!out.element) block.fail("element", "no element named '" + end.element + "'");
    const VectorX& q = scene.state().q;
    const auto count = static_cast<long>(out.element->geometry().point_dofs.size());
    if (end.at) {
        const NearestPoint nearest = nearest_point(*out.element, q, *end.at);
        if (nearest.index < 0) block.fail("at", "element '" + end.element + "' has no points");
        out.point = nearest.index;
        scene.note(block.location().str() + ": " + describe_nearest_point(end.element, *end.at, nearest));
    } else {
        const long node = end.node.value_or(0);
        const long index = node < 0 ? node + count : node;
        if (index < 0 || index >= count)
            block.fail("node", "node " + std::to_string(node) + " is out of range: element '" + end.element + "' has " +
                                   std::to_string(count) + " points (0.." + std::to_string(count - 1) + ")");
        out.point = static_cast<Index>(index);
    }
    for (const Index dof : point_stencil(*out.element, out.point, q)) {
        auto it = std::find(dofs_.begin(), dofs_.end(), dof);  // the two ends may share DOFs
        if (it == dofs_.end()) it = dofs_.insert(dofs_.end(), dof);
        out.columns.push_back(static_cast<Index>(it - dofs_.begin()));
    }
    return out;
}

EliminableColumns BallJoint::eliminable_columns() const {
    // A hard joint whose end is a node (its position is its three DOFs: G = +-I there) fixes that
    // node from the other end: the first such end, unless the ends share a DOF; the second end's
    // node is the alternative where both are nodes (the first may be held by another joint).
    using Elimination = BallJointSettings::Elimination;
    if (settings_.eliminate == Elimination::never) return {};
    for (Index row = 0; row < 3; ++row)
        if (compliance(row) != 0.0) return {};
    const auto shares_columns = [](const End& a, const End& b) {
        return std::any_of(a.columns.begin(), a.columns.end(),
                           [&](Index c) { return std::find(b.columns.begin(), b.columns.end(), c) != b.columns.end(); });
    };
    if (shares_columns(first_, second_)) return {};
    const auto is_node = [](const End& end) {
        return end.element && !end.element->geometry().mapped_points && end.columns.size() == 3;
    };
    EliminableColumns out;
    out.always = settings_.eliminate == Elimination::always;
    if (is_node(first_)) {
        out.columns = first_.columns;
        if (is_node(second_)) out.alternative = second_.columns;
    } else if (is_node(second_)) {
        out.columns = second_.columns;
    }
    return out;
}

void BallJoint::bind(const SceneView& scene) {
    dofs_.clear();
    first_ = resolve(scene, settings_.first, "first");
    second_ = resolve(scene, settings_.second, "second");
    EvalContext context;
    context.q = &scene.state().q;
    const Vec3 x1 = position(first_, context), x2 = position(second_, context);
    // A joint holds coincident points: starting apart would snap them together in the first step.
    const double scale = std::max({1.0, x1.cwiseAbs().maxCoeff(), x2.cwiseAbs().maxCoeff()});
    if ((x1 - x2).norm() > 1e-9 * scale) {
        std::ostringstream text;
        text << "the joint's two points are " << (x1 - x2).norm() << " m apart in the initial configuration (["
             << x1.transpose() << "] and [" << x2.transpose() << "]): a ball joint holds coincident points";
        parameters_.fail("second", text.str());
    }
    if (settings_.eliminate == BallJointSettings::Elimination::always && eliminable_columns().columns.empty())
        parameters_.fail("eliminate", "is true, but only a hard joint (no compliance) with a rod, shell or particle node "
                                      "at an end (its position is its DOFs), the two ends sharing no DOF, can be "
                                      "eliminated");
}

Vec3 BallJoint::position(const End& end, const EvalContext& context) const {
    return end.element ? point_position(*end.element, end.point, *context.q) : end.world;
}

void BallJoint::evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const {
    out.force_jacobian.setZero();
    out.position_jacobian.setZero();
    out.curvature.setZero();
    out.value.setZero();
    const Vec3 l(lambda[0], lambda[1], lambda[2]);
    PointKinematics& k = kinematics_;
    PointStiffness stiffness;
    for (const End* end : {&first_, &second_}) {
        const double sign = end == &first_ ? 1.0 : -1.0;  // C = x_1 - x_2
        if (!end->element) {
            out.value += sign * end->world;
            continue;
        }
        evaluate_point(*end->element, end->point, context, k);
        out.value += sign * k.position;
        const auto force_jacobian = k.jacobian_columns();
        const auto position_jacobian = k.position_jacobian_columns();
        for (int c = 0; c < k.dof_count; ++c) {
            const Index column = end->columns[static_cast<std::size_t>(c)];
            out.force_jacobian.col(column) += sign * force_jacobian.col(c);
            out.position_jacobian.col(column) += sign * position_jacobian.col(c);
        }
        const auto add_curvature = [&](const auto& block) {
            for (int r = 0; r < k.dof_count; ++r)
                for (int c = 0; c < k.dof_count; ++c)
                    out.curvature(end->columns[static_cast<std::size_t>(r)],
                                  end->columns[static_cast<std::size_t>(c)]) += block(r, c);
        };
        if (k.is_wide()) {  // a GVS rod point (point_kinematics.hpp)
            end->element->wide_point_geometric_stiffness(end->point, context, sign * l, k.wide_stiffness);
            add_curvature(k.wide_stiffness);
            continue;
        }
        stiffness.setZero();
        end->element->add_point_geometric_stiffness(end->point, context, sign * l, stiffness);
        add_curvature(stiffness);
    }
}

}  // namespace soma::joints
