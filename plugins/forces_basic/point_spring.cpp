#include "point_spring.hpp"

#include "soma/nearest_point.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace soma::forces_basic {

PointSpring::PointSpring(PointSpringSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (settings_.points.size() < 2) errors_.fail("points", "a spring needs two points at least (its ends)");
    if (settings_.stiffness == 0.0 && settings_.damping == 0.0)
        errors_.fail("stiffness", "stiffness and damping are both zero: the spring would do nothing");
}

void PointSpring::bind(const SceneView& scene) {
    points_.clear();
    dofs_.clear();
    const VectorX& q = scene.state().q;
    for (std::size_t p = 0; p < settings_.points.size(); ++p) {
        const SpringPoint& given = settings_.points[p];
        const std::string key = "points[" + std::to_string(p) + "]";
        Point point;
        if (given.element.empty()) {
            point.world = given.world;
            points_.push_back(point);
            continue;
        }
        point.element = scene.find_element(given.element);
        if (!point.element) errors_.fail(key + ".element", "no element named '" + given.element + "'");
        const auto count = static_cast<long>(point.element->geometry().point_dofs.size());
        if (given.at) {
            const NearestPoint nearest = nearest_point(*point.element, q, *given.at);
            if (nearest.index < 0) errors_.fail(key + ".at", "element '" + given.element + "' has no points");
            point.index = nearest.index;
            std::ostringstream text;
            text << settings_.where << "." << key << ".at: point " << nearest.index << " of '" << given.element << "', "
                 << nearest.distance << " m from the position given";
            scene.note(text.str());
        } else {
            const long node = given.node.value_or(0);
            const long index = node < 0 ? count + node : node;
            if (index < 0 || index >= count) {
                std::ostringstream text;
                text << "point " << node << " is out of range: '" << given.element << "' has " << count << " points";
                errors_.fail(key + ".node", text.str());
            }
            point.index = index;
        }
        for (const Index dof : point_stencil(*point.element, point.index, q)) {
            auto it = std::find(dofs_.begin(), dofs_.end(), dof);
            if (it == dofs_.end()) it = dofs_.insert(dofs_.end(), dof);
            point.columns.push_back(static_cast<Index>(it - dofs_.begin()));
        }
        points_.push_back(point);
    }
    if (dofs_.empty()) errors_.fail("points", "every point is a world point: the spring would act on nothing");
    const std::size_t m = points_.size();
    kinematics_.assign(m, PointKinematics{});
    position_.assign(m, Vec3::Zero());
    velocity_.assign(m, Vec3::Zero());
    tension_direction_.assign(m, Vec3::Zero());
    direction_.assign(m - 1, Vec3::Zero());
    segment_length_.assign(m - 1, 0.0);
    const auto n = static_cast<Index>(dofs_.size());
    dr_dq_.assign(m, Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, n));
    dr_dv_.assign(m, Eigen::Matrix<double, 3, Eigen::Dynamic>::Zero(3, n));
    residual_.setZero(n);
    jacobian_.setZero(n, n);

    EvalContext context;
    context.q = &q;
    const double length = length_and_rate(context).first;
    for (std::size_t i = 0; i + 1 < m; ++i)
        if (!(segment_length_[i] > 0.0)) {
            std::ostringstream text;
            text << "points " << i << " and " << i + 1 << " coincide in the initial configuration: a segment needs a "
                 << "length to have a direction (to hold two coincident points with a spring, use a ball_joint with a "
                 << "compliance)";
            errors_.fail("points", text.str());
        }
    rest_length_ = settings_.rest_length.value_or(length);
    if (!(rest_length_ >= 0.0)) errors_.fail("rest_length", "must be >= 0 m");
}

void PointSpring::declare_pattern(PatternBuilder& pattern) { stencil_ = pattern.add_stencil(dofs_); }

std::pair<double, double> PointSpring::length_and_rate(const EvalContext& context) const {
    for (std::size_t i = 0; i < points_.size(); ++i) {
        if (!points_[i].element) {
            position_[i] = points_[i].world;
            velocity_[i].setZero();
            continue;
        }
        evaluate_point(*points_[i].element, points_[i].index, context, kinematics_[i]);
        position_[i] = kinematics_[i].position;
        velocity_[i] = context.v ? kinematics_[i].velocity : Vec3::Zero();
    }
    double length = 0.0, rate = 0.0;
    for (std::size_t i = 0; i + 1 < points_.size(); ++i) {
        const Vec3 d = position_[i + 1] - position_[i];
        segment_length_[i] = d.norm();
        direction_[i] = segment_length_[i] > 0.0 ? Vec3(d / segment_length_[i]) : Vec3::Zero();
        length += segment_length_[i];
        rate += (velocity_[i + 1] - velocity_[i]).dot(direction_[i]);
    }
    return {length, rate};
}

void PointSpring::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const auto [length, rate] = length_and_rate(context);
    double tension = settings_.stiffness * (length - rest_length_) + settings_.damping * rate;
    double by_length = settings_.stiffness, by_rate = settings_.damping;
    if (settings_.tension_only && tension < 0.0) tension = by_length = by_rate = 0.0;
    const std::size_t m = points_.size();
    const std::size_t segments = m - 1;
    // v_i: u_0, u_i - u_{i-1}, -u_{n-1}; each point feels f_i = F v_i, the residual r_i = -f_i.
    for (std::size_t i = 0; i < m; ++i)
        tension_direction_[i] = (i < segments ? direction_[i] : Vec3::Zero()) - (i > 0 ? direction_[i - 1] : Vec3::Zero());
    residual_.setZero();
    for (std::size_t i = 0; i < m; ++i) {
        if (!points_[i].element) continue;
        const Vec3 r = -tension * tension_direction_[i];
        const auto J = kinematics_[i].jacobian_columns();
        for (int c = 0; c < kinematics_[i].dof_count; ++c)
            residual_[points_[i].columns[static_cast<std::size_t>(c)]] += J.col(c).dot(r);
    }
    assembly.add_residual(stencil_, residual_);
    if (!assembly.wants_jacobian()) return;

    const double c_q = context.coefficients.c_q;
    const double c_v = context.coefficients.c_v;
    // A segment collapsed to a point has no direction: its turning terms are left out (a finite
    // Jacobian where the exact one does not exist) rather than divided by zero.
    const auto turning = [&](std::size_t s) { return segment_length_[s] > 0.0 ? 1.0 / segment_length_[s] : 0.0; };
    const auto projector = [&](std::size_t s) { return Mat3(Mat3::Identity() - direction_[s] * direction_[s].transpose()); };
    // y_s = (d / l_s) (xdot_{s+1} - xdot_s)^T P_s: how the rate turns with the segment.
    const auto rate_turn = [&](std::size_t s) {
        return Vec3(by_rate * turning(s) * (projector(s) * (velocity_[s + 1] - velocity_[s])));
    };
    for (std::size_t i = 0; i < m; ++i) {
        dr_dq_[i].setZero();
        dr_dv_[i].setZero();
    }
    for (std::size_t j = 0; j < m; ++j) {
        if (!points_[j].element) continue;
        // dF/dx_j = -k v_j^T + y_{j-1} - y_j.
        Vec3 tension_gradient = -by_length * tension_direction_[j];
        if (j > 0) tension_gradient += rate_turn(j - 1);
        if (j < segments) tension_gradient -= rate_turn(j);
        const PointKinematics& kj = kinematics_[j];
        const auto J = kj.jacobian_columns();
        const auto J_q = kj.position_jacobian_columns();
        const auto J_v = kj.velocity_jacobian_columns();
        for (std::size_t i = 0; i < m; ++i) {
            if (!points_[i].element) continue;
            // dr_i/dx_j = -v_i dF/dx_j^T - F (du_i/dx_j - du_{i-1}/dx_j);  dr_i/dxdot_j = d v_i v_j^T.
            Mat3 by_position = -tension_direction_[i] * tension_gradient.transpose();
            if (i < segments && (j == i || j == i + 1))
                by_position -= tension * (j == i ? -1.0 : 1.0) * turning(i) * projector(i);
            if (i > 0 && (j == i - 1 || j == i))
                by_position += tension * (j == i - 1 ? -1.0 : 1.0) * turning(i - 1) * projector(i - 1);
            const Mat3 by_velocity = by_rate * tension_direction_[i] * tension_direction_[j].transpose();
            for (int c = 0; c < kj.dof_count; ++c) {
                const Index column = points_[j].columns[static_cast<std::size_t>(c)];
                dr_dq_[i].col(column) += by_position * J_q.col(c) + by_velocity * J_v.col(c);
                dr_dv_[i].col(column) += by_velocity * J.col(c);
            }
        }
    }
    jacobian_.setZero();
    for (std::size_t i = 0; i < m; ++i) {
        if (!points_[i].element) continue;
        PointKinematics& k = kinematics_[i];
        const auto J = k.jacobian_columns();
        const std::vector<Index>& rows = points_[i].columns;
        for (Index c = 0; c < jacobian_.cols(); ++c)
            for (int r = 0; r < k.dof_count; ++r)
                jacobian_(rows[static_cast<std::size_t>(r)], c) +=
                    J.col(r).dot(c_q * dr_dq_[i].col(c) + c_v * dr_dv_[i].col(c));
        // The point map's own curvature at its force (a rigid body's point turning with it).
        const Element& element = *points_[i].element;
        if (!element.geometry().mapped_points) continue;
        const Vec3 r = -tension * tension_direction_[i];
        if (k.is_wide()) {
            element.wide_point_geometric_stiffness(points_[i].index, context, r, k.wide_stiffness);
            for (int a = 0; a < k.dof_count; ++a)
                for (int b = 0; b < k.dof_count; ++b)
                    jacobian_(rows[static_cast<std::size_t>(a)], rows[static_cast<std::size_t>(b)]) += c_q * k.wide_stiffness(a, b);
        } else {
            PointStiffness stiffness = PointStiffness::Zero();
            element.add_point_geometric_stiffness(points_[i].index, context, r, stiffness);
            for (int a = 0; a < k.dof_count; ++a)
                for (int b = 0; b < k.dof_count; ++b)
                    jacobian_(rows[static_cast<std::size_t>(a)], rows[static_cast<std::size_t>(b)]) += c_q * stiffness(a, b);
        }
    }
    assembly.add_jacobian(stencil_, jacobian_, 1.0);
}

double PointSpring::potential_energy(const EvalContext& context) const {
    EvalContext positions = context;
    positions.v = nullptr;
    const double stretch = length_and_rate(positions).first - rest_length_;
    if (settings_.tension_only && stretch < 0.0) return 0.0;
    return 0.5 * settings_.stiffness * stretch * stretch;
}

std::vector<TermStatistic> PointSpring::statistics() const {
    return {{"length", "m", "the spring's length through its points"},
            {"tension", "N", "k (length - rest_length) + d rate (0 when a cable is slack)"}};
}

double PointSpring::statistic(std::size_t index, const EvalContext& context) const {
    const auto [length, rate] = length_and_rate(context);
    if (index == 0) return length;
    const double tension = settings_.stiffness * (length - rest_length_) + settings_.damping * rate;
    return settings_.tension_only ? std::max(0.0, tension) : tension;
}

}  // namespace soma::forces_basic
