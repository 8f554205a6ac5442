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

namespace {

void check_point(const MultibodyModel& model, Index point, const char* what) {
    if (point < 0 || point >= model.point_count())
        throw std::invalid_argument(std::string("GVS tree: ") + what + " at point " + std::to_string(point) +
                                    ", which does not exist (" + std::to_string(model.point_count()) + " points)");
}

}  // namespace

Index add_world_wrench(MultibodyModel& model, Index point) {
    check_point(model, point, "a world-frame wrench");
    model.world_wrench_points.push_back(point);
    return static_cast<Index>(model.world_wrench_points.size()) - 1;
}

void add_wall_contact(MultibodyModel& model, Index point, double sphere_radius) {
    check_point(model, point, "a wall contact");
    const CylinderWall& wall = model.wall;
    if (!(sphere_radius > 0.0) || !(sphere_radius < wall.radius))
        throw std::invalid_argument("GVS tree: a contact sphere's radius must be in (0, r_cyl = " +
                                    std::to_string(wall.radius) + "), got " + std::to_string(sphere_radius) +
                                    " (set model.wall first)");
    if (!(wall.stiffness >= 0.0) || !(wall.exponent >= 1.0))
        throw std::invalid_argument("GVS tree: the wall's k_c must be >= 0 and its Hertz exponent p >= 1, got k_c = " +
                                    std::to_string(wall.stiffness) + ", p = " + std::to_string(wall.exponent));
    model.wall_contacts.push_back(WallContact{point, sphere_radius});
}

void add_hydrodynamics(MultibodyModel& model, Index point, const Mat6& drag, const Mat6& added_mass,
                       double density_ratio) {
    check_point(model, point, "hydrodynamics");
    for (const PointHydrodynamics& h : model.hydrodynamics)
        if (h.point == point)
            throw std::invalid_argument("GVS tree: point " + std::to_string(point) + " already has hydrodynamics");
    if (!(density_ratio >= 0.0))
        throw std::invalid_argument("GVS tree: the density ratio rho_w / rho_b must be >= 0, got " +
                                    std::to_string(density_ratio));
    Mat6& inertia = model.inertia[static_cast<std::size_t>(point)];
    PointHydrodynamics h;
    h.point = point;
    h.drag = drag;
    h.gravity_correction = added_mass + density_ratio * inertia;
    model.hydrodynamics.push_back(h);
    inertia += added_mass;
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
    world_wrench.assign(model.world_wrench_points.size(), Vec6::Zero());
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
