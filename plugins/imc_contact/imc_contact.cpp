#include "imc_contact.hpp"

#include "soma/element_selection.hpp"
#include "soma/smooth_contact_law.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

namespace soma::imc_contact {

ImcContact::ImcContact(ImcContactSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.stiffness > 0.0)) errors_.fail("stiffness", "must be > 0 N/m, got " + setting_text(settings_.stiffness));
    if (settings_.band && !(*settings_.band > 0.0)) errors_.fail("band", "must be > 0 m, got " + setting_text(*settings_.band));
    if (settings_.margin && !(*settings_.margin > 0.0))
        errors_.fail("margin", "must be > 0 m, got " + setting_text(*settings_.margin));
    if (!(settings_.friction >= 0.0)) errors_.fail("friction", "must be >= 0, got " + setting_text(settings_.friction));
    if (!(settings_.slip_velocity > 0.0))
        errors_.fail("slip_velocity", "must be > 0 m/s, got " + setting_text(settings_.slip_velocity));
    friction_sharpness_ = kContactSmoothingWidth / settings_.slip_velocity;
}

void ImcContact::bind(const SceneView& scene) {
    std::vector<const Element*> elements;
    for (const Element* element : select_elements(scene, settings_.elements, errors_)) {
        const Geometry& g = element->geometry();
        const bool has_edges = !g.edges.empty() || !g.triangles.empty();
        if (!has_edges) {
            if (settings_.elements.empty()) continue;  // every element: those that have edges
            errors_.fail("elements", "element '" + element->name() + "' has no edges or triangles to touch with");
        }
        if (g.mapped_points)
            errors_.fail("elements", "element '" + element->name() +
                                         "' has mapped points (a rigid body): contact with rigid bodies' shapes is not "
                                         "available yet; list the rods and shells in 'elements'");
        elements.push_back(element);
    }
    if (elements.empty()) errors_.fail("elements", "no element of the scene has edges or triangles to touch with");
    collect_edges(elements);

    double thinnest = edges_.front().thickness, thickest = thinnest;
    for (const ContactEdge& e : edges_) {
        thinnest = std::min(thinnest, e.thickness);
        thickest = std::max(thickest, e.thickness);
    }
    band_ = settings_.band ? *settings_.band : kDefaultBandRatio * thinnest;
    sharpness_ = kContactSmoothingWidth / band_;
    margin_ = settings_.margin ? *settings_.margin : 2.0 * thickest;
    // check_solution lets nodes move (margin - band)/2 per step: the margin must exceed the band.
    if (!(margin_ > band_))
        errors_.fail(settings_.margin ? "margin" : "band",
                     "the candidate margin (" + setting_text(margin_) + " m) must exceed the band (" + setting_text(band_) +
                         " m): nodes may move (margin - band)/2 per step before contacts could be missed");
    find_candidates(scene.state().q);
    pattern_changed_ = false;
}

void ImcContact::collect_edges(const std::vector<const Element*>& elements) {
    // Contact nodes: identity points keyed by their global x DOF, so a node two elements share
    // (a joint, a shared node) is one contact node and their edges meet at it.
    std::map<Index, Index> node_of_dof;
    std::map<std::pair<Index, Index>, Index> edge_of_nodes;
    node_dofs_.clear();
    node_origin_.clear();
    edges_.clear();
    for (std::size_t e = 0; e < elements.size(); ++e) {
        const Element& element = *elements[e];
        const Geometry& g = element.geometry();
        const auto node = [&](Index point) {
            const auto& dofs = g.point_dofs[static_cast<std::size_t>(point)];
            const auto [it, added] = node_of_dof.try_emplace(dofs[0], static_cast<Index>(node_dofs_.size()));
            if (added) {
                node_dofs_.push_back(dofs);
                node_origin_.emplace_back(&element, point);
            }
            return it->second;
        };
        const auto radius = [&](Index point) {
            const auto i = static_cast<std::size_t>(point);
            return i < g.point_radius.size() ? g.point_radius[i] : 0.0;
        };
        const auto add_edge = [&](Index p, Index q) {
            const double thickness = 0.5 * (radius(p) + radius(q));
            if (!(thickness > 0.0))
                errors_.fail("elements", "element '" + element.name() + "' has contact radius 0 at points " +
                                             std::to_string(p) + " and " + std::to_string(q) +
                                             ": IMC contact needs a thickness (a rod's radius, a shell's thickness)");
            Index a = node(p), b = node(q);
            if (a > b) std::swap(a, b);
            const auto [it, added] = edge_of_nodes.try_emplace({a, b}, static_cast<Index>(edges_.size()));
            if (added)
                edges_.push_back({{a, b}, thickness, static_cast<Index>(e)});
            else
                edges_[static_cast<std::size_t>(it->second)].thickness =
                    std::max(edges_[static_cast<std::size_t>(it->second)].thickness, thickness);
        };
        for (const auto& edge : g.edges) add_edge(edge[0], edge[1]);
        // A shell touches through the edges of its triangles (MAT-DiSMech §4.5), each once.
        for (const auto& tri : g.triangles)
            for (int k = 0; k < 3; ++k) add_edge(tri[static_cast<std::size_t>(k)], tri[static_cast<std::size_t>((k + 1) % 3)]);
    }

    // Node adjacency (CSR, sorted): the nodes each node shares an edge with.
    const std::size_t nodes = node_dofs_.size();
    std::vector<std::vector<Index>> adjacent(nodes);
    for (const ContactEdge& e : edges_) {
        adjacent[static_cast<std::size_t>(e.nodes[0])].push_back(e.nodes[1]);
        adjacent[static_cast<std::size_t>(e.nodes[1])].push_back(e.nodes[0]);
    }
    neighbour_begin_.assign(1, 0);
    neighbours_.clear();
    for (auto& list : adjacent) {
        std::sort(list.begin(), list.end());
        neighbours_.insert(neighbours_.end(), list.begin(), list.end());
        neighbour_begin_.push_back(static_cast<Index>(neighbours_.size()));
    }
}

bool ImcContact::excluded(const ContactEdge& a, const ContactEdge& b) const {
    for (Index m : a.nodes)
        for (Index n : b.nodes) {
            if (m == n) return true;
            const Index* begin = neighbours_.data() + neighbour_begin_[static_cast<std::size_t>(m)];
            const Index* end = neighbours_.data() + neighbour_begin_[static_cast<std::size_t>(m) + 1];
            if (std::binary_search(begin, end, n)) return true;
        }
    return false;
}

void ImcContact::find_candidates(const VectorX& q) {
    boxes_.resize(edges_.size());
    for (std::size_t i = 0; i < edges_.size(); ++i) {
        const ContactEdge& e = edges_[i];
        const Vec3 a = node_position(e.nodes[0], q), b = node_position(e.nodes[1], q);
        // Two edges can be within h_i + h_j + margin only if their boxes grown by h + margin/2 overlap.
        const double grow = e.thickness + 0.5 * margin_;
        boxes_[i] = {a.cwiseMin(b).array() - grow, a.cwiseMax(b).array() + grow};
    }
    grid_.overlapping_pairs(boxes_, overlapping_);
    candidates_.clear();
    for (const auto& [i, j] : overlapping_) {
        const ContactEdge& a = edges_[static_cast<std::size_t>(i)];
        const ContactEdge& b = edges_[static_cast<std::size_t>(j)];
        if (!settings_.self_contact && a.element == b.element) continue;
        if (excluded(a, b)) continue;
        const ClosestPoints c = closest_points(node_position(a.nodes[0], q), node_position(a.nodes[1], q),
                                               node_position(b.nodes[0], q), node_position(b.nodes[1], q));
        if (c.distance < a.thickness + b.thickness + margin_) candidates_.emplace_back(i, j);
    }
}

void ImcContact::declare_pattern(PatternBuilder& pattern) {
    declared_ = candidates_;
    declared_stencils_.clear();
    std::array<Index, 12> dofs{};
    for (const auto& [i, j] : declared_) {
        const ContactEdge& a = edges_[static_cast<std::size_t>(i)];
        const ContactEdge& b = edges_[static_cast<std::size_t>(j)];
        const Index nodes[4] = {a.nodes[0], a.nodes[1], b.nodes[0], b.nodes[1]};
        for (int k = 0; k < 4; ++k)
            for (int c = 0; c < 3; ++c) dofs[static_cast<std::size_t>(3 * k + c)] = node_dofs_[static_cast<std::size_t>(nodes[k])][c];
        declared_stencils_.push_back(pattern.add_stencil(dofs));
    }
    candidate_stencils_ = declared_stencils_;
    pattern_changed_ = false;
}

void ImcContact::begin_step(const State& start) {
    find_candidates(start.q);
    // Each candidate's stencil among the declared pairs (both lists sorted). A candidate without
    // one asks for a new pattern; so does a declared list grown far past the candidates (pairs
    // that have separated), to keep the evaluation loop's tables short.
    candidate_stencils_.resize(candidates_.size());
    std::size_t d = 0;
    bool all_declared = true;
    for (std::size_t c = 0; c < candidates_.size() && all_declared; ++c) {
        while (d < declared_.size() && declared_[d] < candidates_[c]) ++d;
        if (d == declared_.size() || declared_[d] != candidates_[c])
            all_declared = false;
        else
            candidate_stencils_[c] = declared_stencils_[d];
    }
    pattern_changed_ = !all_declared || declared_.size() > 2 * candidates_.size() + 64;
}

void ImcContact::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(context.q && candidate_stencils_.size() == candidates_.size());
    const VectorX& q = *context.q;
    const bool with_jacobian = assembly.wants_jacobian();
    // Friction needs velocities; a solve without them (statics) has v = 0 and so no friction.
    const bool with_friction = settings_.friction > 0.0 && context.v != nullptr;
    EdgePairDistance d;
    MatN<12> jacobian;
    for (std::size_t p = 0; p < candidates_.size(); ++p) {
        const ContactEdge& a = edges_[static_cast<std::size_t>(candidates_[p].first)];
        const ContactEdge& b = edges_[static_cast<std::size_t>(candidates_[p].second)];
        const Vec3 x1 = node_position(a.nodes[0], q), x2 = node_position(a.nodes[1], q);
        const Vec3 x3 = node_position(b.nodes[0], q), x4 = node_position(b.nodes[1], q);
        const ClosestPoints c = closest_points(x1, x2, x3, x4);
        const double thickness = a.thickness + b.thickness;
        // Outside the band E' < 3e-13 of contact values (header); at Δ = 0 the axes cross and
        // the contact normal is undefined (a pass-through the penalty failed to prevent).
        if (c.distance - thickness >= band_ || c.distance == 0.0) continue;
        edge_pair_distance(x1, x2, x3, x4, c.contact_class, with_jacobian, d);
        const PenaltyEnergy e = penalty_energy(d.distance - thickness, settings_.stiffness, sharpness_);
        const StencilId stencil = candidate_stencils_[p];
        assembly.add_residual(stencil, e.gradient * d.gradient);
        if (with_jacobian) {
            jacobian.noalias() = (context.coefficients.c_q * e.curvature) * d.gradient * d.gradient.transpose();
            jacobian.noalias() += (context.coefficients.c_q * e.gradient) * d.hessian;
        }
        if (with_friction)
            add_friction(context, a, b, d, -e.gradient, -e.curvature, assembly, stencil, with_jacobian ? &jacobian : nullptr);
        if (with_jacobian) assembly.add_jacobian(stencil, jacobian, 1.0);
    }
}

void ImcContact::add_friction(const EvalContext& context, const ContactEdge& a, const ContactEdge& b,
                              const EdgePairDistance& d, double normal_force, double normal_force_slope,
                              Assembly& assembly, StencilId stencil, MatN<12>* jacobian) const {
    // The friction of eq. 23-24 at the contact points (header); f_n = -E'(g), df_n/dΔ = -E''(g).
    const VectorX& v = *context.v;
    const Index nodes[4] = {a.nodes[0], a.nodes[1], b.nodes[0], b.nodes[1]};
    Vec3 velocity[4];
    for (int k = 0; k < 4; ++k) velocity[k] = node_position(nodes[k], v);
    const double alpha[4] = {1.0 - d.t, d.t, -(1.0 - d.u), -d.u};
    Vec3 v_rel = Vec3::Zero();
    for (int k = 0; k < 4; ++k) v_rel += alpha[k] * velocity[k];
    const Vec3& n = d.normal;
    const Mat3 tangent_projector = Mat3::Identity() - n * n.transpose();
    const Vec3 v_t = tangent_projector * v_rel;
    const FrictionShape shape = friction_shape(v_t.norm(), friction_sharpness_);
    const double mu = settings_.friction;
    const Vec3 h = shape.phi * v_t;  // γ(w) v̂_t
    VecN<12> residual;
    for (int k = 0; k < 4; ++k) residual.segment<3>(3 * k) = (mu * normal_force * alpha[k]) * h;
    assembly.add_residual(stencil, residual);
    if (!jacobian) return;

    const double c_q = context.coefficients.c_q, c_v = context.coefficients.c_v;
    // d(φ v_t)/dv_t, and v_t's own derivatives: dv_t/dv_j = α_j P (fixed q), and at fixed v
    //   dv_t/dq = P dv_rel/dq - ((n̂·v_rel) I + n̂ v_relᵀ) dn̂/dq,
    //   dv_rel/dq = (v2 - v1) dt/dqᵀ + (v3 - v4) du/dqᵀ,   dn̂/dq = P dr/dq / Δ,
    //   dr/dq = α ⊗ I + e1 dt/dqᵀ - e2 du/dqᵀ.
    const Mat3 shape_jacobian = shape.phi * Mat3::Identity() + shape.psi * v_t * v_t.transpose();
    const Mat3 velocity_block = (mu * normal_force) * shape_jacobian * tangent_projector;
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 4; ++j) jacobian->block<3, 3>(3 * k, 3 * j) += (c_v * alpha[k] * alpha[j]) * velocity_block;

    const Vec3 e1 = node_position(nodes[1], *context.q) - node_position(nodes[0], *context.q);
    const Vec3 e2 = node_position(nodes[3], *context.q) - node_position(nodes[2], *context.q);
    Eigen::Matrix<double, 3, 12> dr_dq = e1 * d.t_gradient.transpose() - e2 * d.u_gradient.transpose();
    for (int k = 0; k < 4; ++k) dr_dq.block<3, 3>(0, 3 * k).diagonal().array() += alpha[k];
    const Eigen::Matrix<double, 3, 12> dn_dq = tangent_projector * dr_dq / d.distance;
    const Eigen::Matrix<double, 3, 12> dvrel_dq =
        (velocity[1] - velocity[0]) * d.t_gradient.transpose() + (velocity[2] - velocity[3]) * d.u_gradient.transpose();
    const Mat3 normal_turn = n.dot(v_rel) * Mat3::Identity() + n * v_rel.transpose();
    const Eigen::Matrix<double, 3, 12> dvt_dq = tangent_projector * dvrel_dq - normal_turn * dn_dq;
    const Eigen::Matrix<double, 3, 12> dh_dq = shape_jacobian * dvt_dq;
    const VecN<12> dfn_dq = normal_force_slope * d.gradient;
    // dα/dq: α = (1-t, t, -(1-u), -u).
    const VecN<12> dalpha_dq[4] = {-d.t_gradient, d.t_gradient, d.u_gradient, -d.u_gradient};
    for (int k = 0; k < 4; ++k)
        jacobian->block<3, 12>(3 * k, 0) +=
            (c_q * mu) * (alpha[k] * h * dfn_dq.transpose() + normal_force * h * dalpha_dq[k].transpose() +
                          (normal_force * alpha[k]) * dh_dq);
}

double ImcContact::potential_energy(const EvalContext& context) const {
    assert(context.q);
    const VectorX& q = *context.q;
    double energy = 0.0;
    for (const auto& [i, j] : candidates_) {
        const ContactEdge& a = edges_[static_cast<std::size_t>(i)];
        const ContactEdge& b = edges_[static_cast<std::size_t>(j)];
        const ClosestPoints c = closest_points(node_position(a.nodes[0], q), node_position(a.nodes[1], q),
                                               node_position(b.nodes[0], q), node_position(b.nodes[1], q));
        const double gap = c.distance - (a.thickness + b.thickness);
        if (gap < band_) energy += penalty_energy(gap, settings_.stiffness, sharpness_).energy;
    }
    return energy;
}

}  // namespace soma::imc_contact

namespace soma::imc_contact {

std::string ImcContact::check_solution(const EvalContext& context) const {
    assert(context.q && context.step_start);
    const VectorX& q = *context.q;
    const VectorX& q_start = context.step_start->q;
    const double limit = 0.5 * (margin_ - band_);
    double largest = 0.0;
    Index worst = 0;
    for (Index n = 0; n < static_cast<Index>(node_dofs_.size()); ++n) {
        const double moved = (node_position(n, q) - node_position(n, q_start)).squaredNorm();
        if (moved > largest) {
            largest = moved;
            worst = n;
        }
    }
    largest = std::sqrt(largest);
    if (largest <= limit) return {};
    const auto& [element, point] = node_origin_[static_cast<std::size_t>(worst)];
    return "imc_contact: node " + std::to_string(point) + " of '" + element->name() + "' moved " + setting_text(largest) +
           " m in this step, more than (margin - band)/2 = " + setting_text(limit) +
           " m: edges that were not candidate pairs at the step's start could have touched or passed through "
           "each other (a smaller step, or a larger `margin`, keeps them tracked)";
}

}  // namespace soma::imc_contact
