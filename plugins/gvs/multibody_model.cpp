#include "multibody_model.hpp"

#include <stdexcept>
#include <string>

namespace soma::gvs {

Index MultibodyModel::add_point(Edge edge, Index parent, const Mat6& point_inertia) {
    if (parent < 0 || parent >= point_count())
        throw std::invalid_argument("GVS tree: parent point " + std::to_string(parent) + " does not exist yet");
    if (edge.dof_count < 0 || edge.first_dof < 0 || edge.first_dof + edge.dof_count > dof_count)
        throw std::invalid_argument("GVS tree: the edge's coordinates [" + std::to_string(edge.first_dof) + ", " +
                                    std::to_string(edge.first_dof + edge.dof_count) + ") are not within the model's " +
                                    std::to_string(dof_count));
    if ((edge.kind == EdgeKind::fixed_transform) != (edge.dof_count == 0))
        throw std::invalid_argument("GVS tree: a fixed transform has no coordinates, a joint or soft interval has some");
    if (edge.kind != EdgeKind::fixed_transform && edge.phi_z1.cols() != edge.dof_count)
        throw std::invalid_argument("GVS tree: the edge's basis has " + std::to_string(edge.phi_z1.cols()) +
                                    " columns for " + std::to_string(edge.dof_count) + " coordinates");
    edge.parent = parent;
    edges.push_back(std::move(edge));
    inertia.push_back(point_inertia);
    return point_count() - 1;
}

Index add_soft_rod(MultibodyModel& model, Index parent, const RodDiscretization& rod, Index first_dof) {
    const auto per_interval = static_cast<std::size_t>(rod.collocation_per_interval());
    Index first_point = -1, at = parent;
    for (Index a = 0; a < rod.interval_count(); ++a) {
        const auto i = static_cast<std::size_t>(a);
        Edge edge;
        edge.kind = EdgeKind::soft_interval;
        edge.order = rod.magnus_order;
        edge.h = rod.h[i];
        edge.first_dof = first_dof;
        edge.dof_count = rod.dof_count();
        edge.phi_z1 = rod.collocation_phi[i * per_interval];
        edge.xi_star_z1 = rod.collocation_xi_star[i * per_interval];
        // At second order the midpoint is z1 and z2 is not read.
        edge.phi_z2 = rod.collocation_phi[i * per_interval + per_interval - 1];
        edge.xi_star_z2 = rod.collocation_xi_star[i * per_interval + per_interval - 1];
        at = model.add_point(std::move(edge), at, rod.weight[i + 1] * rod.inertia[i + 1]);
        if (first_point < 0) first_point = at;
    }
    return first_point;
}

MultibodyData::MultibodyData(const MultibodyModel& model) {
    const auto points = static_cast<std::size_t>(model.point_count());
    const std::size_t edges = model.edges.size();
    const Index n = model.dof_count;
    joint.resize(edges);
    r.resize(edges);
    q_block.resize(edges);
    y.resize(edges);
    for (std::size_t e = 0; e < edges; ++e) {
        const Index ne = model.edges[e].dof_count;
        joint[e].resize(ne);
        r[e].setZero(6, ne);
        q_block[e].setZero(6, ne);
        y[e].setZero(6, ne);
    }
    edge_transform.resize(edges);
    eta_plus.assign(edges, Vec6::Zero());
    eta_dot_plus.assign(edges, Vec6::Zero());
    pose.resize(points);
    eta.assign(points, Vec6::Zero());
    eta_dot.assign(points, Vec6::Zero());
    external_wrench.assign(points, Vec6::Zero());
    wrench.assign(points, Vec6::Zero());
    wrench_sum.assign(points, Vec6::Zero());
    n_sum.assign(points, Mat6::Zero());
    m_sum.assign(points, Mat6::Zero());
    for (auto* blocks : {&r_b, &q_b, &s_b, &y_b, &u_sum, &p_sum, &v_sum, &w_sum}) {
        blocks->resize(points);
        for (Matrix6X& block : *blocks) block.setZero(6, n);
    }
    for (auto* block : {&u_edge, &p_edge, &v_edge, &w_edge, &work}) block->setZero(6, n);
    id.setZero(n);
    did_dq.setZero(n, n);
    did_dqdot.setZero(n, n);
    mass.setZero(n, n);
}

}  // namespace soma::gvs
