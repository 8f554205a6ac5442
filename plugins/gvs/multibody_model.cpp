#include "multibody_model.hpp"

#include <algorithm>
#include <cmath>
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
    if (edge.kind == EdgeKind::soft_interval) {
        if (!(edge.h > 0.0) || !std::isfinite(edge.h))
            throw std::invalid_argument("GVS tree: a soft interval needs a finite length h > 0, got " + std::to_string(edge.h));
        if (edge.order == MagnusOrder::fourth && edge.phi_z2.cols() != edge.dof_count)
            throw std::invalid_argument("GVS tree: a 4th-order soft interval needs the basis at both Zanna points (" +
                                        std::to_string(edge.phi_z2.cols()) + " columns at z2 for " +
                                        std::to_string(edge.dof_count) + " coordinates)");
    }
    if (!edge.phi_z1.allFinite() || !edge.phi_z2.allFinite() || !edge.xi_star_z1.allFinite() ||
        !edge.xi_star_z2.allFinite())
        throw std::invalid_argument("GVS tree: the edge's basis or reference strain is not finite");
    // A fixed transform's R must be a rotation: Ad and the poses assume R^T R = I.
    if (!edge.transform.p.allFinite() ||
        !((edge.transform.R.transpose() * edge.transform.R - Mat3::Identity()).cwiseAbs().maxCoeff() <= 1e-10) ||
        !(edge.transform.R.determinant() > 0.0))
        throw std::invalid_argument("GVS tree: the edge's transform is not a finite rigid transform (R^T R = I, det R = 1)");
    if (!point_inertia.allFinite() || !((point_inertia - point_inertia.transpose()).cwiseAbs().maxCoeff() <=
                                        1e-12 * point_inertia.cwiseAbs().maxCoeff()))
        throw std::invalid_argument("GVS tree: a point's inertia must be finite and symmetric");
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
    if (!(density_ratio >= 0.0))
        throw std::invalid_argument("GVS tree: the density ratio rho_w / rho_b must be >= 0, got " +
                                    std::to_string(density_ratio));
    add_point_hydrodynamics(model, point, drag, added_mass, density_ratio * model.inertia[static_cast<std::size_t>(point)]);
}

void add_point_hydrodynamics(MultibodyModel& model, Index point, const Mat6& drag, const Mat6& added_mass,
                             const Mat6& displaced) {
    check_point(model, point, "hydrodynamics");
    for (const PointHydrodynamics& h : model.hydrodynamics)
        if (h.point == point)
            throw std::invalid_argument("GVS tree: point " + std::to_string(point) + " already has hydrodynamics");
    if (!drag.allFinite() || !added_mass.allFinite() || !displaced.allFinite())
        throw std::invalid_argument("GVS tree: the drag, added mass and displaced inertia must be finite");
    PointHydrodynamics h;
    h.point = point;
    h.drag = drag;
    h.gravity_correction = added_mass + displaced;
    model.hydrodynamics.push_back(h);
    model.inertia[static_cast<std::size_t>(point)] += added_mass;
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

void check_dof_layout(const MultibodyModel& model) {
    // Each edge's coordinates are a range of q: the intervals of one rod share the rod's range,
    // different bodies and joints own disjoint ones, and every coordinate belongs to some edge
    // (an unowned one would leave a zero row in M).
    std::vector<int> owner(static_cast<std::size_t>(model.dof_count), -1);
    for (std::size_t e = 0; e < model.edges.size(); ++e) {
        const Edge& edge = model.edges[e];
        for (Index i = edge.first_dof; i < edge.first_dof + edge.dof_count; ++i) {
            int& o = owner[static_cast<std::size_t>(i)];
            if (o >= 0) {
                const Edge& other = model.edges[static_cast<std::size_t>(o)];
                const bool same_rod = edge.kind == EdgeKind::soft_interval && other.kind == EdgeKind::soft_interval &&
                                      edge.first_dof == other.first_dof && edge.dof_count == other.dof_count;
                if (!same_rod)
                    throw std::invalid_argument("GVS tree: coordinate " + std::to_string(i) + " belongs to edges " +
                                                std::to_string(o) + " and " + std::to_string(e) +
                                                ", which are not intervals of one rod");
            } else {
                o = static_cast<int>(e);
            }
        }
    }
    for (std::size_t i = 0; i < owner.size(); ++i)
        if (owner[i] < 0)
            throw std::invalid_argument("GVS tree: coordinate " + std::to_string(i) + " of " +
                                        std::to_string(model.dof_count) + " belongs to no joint or rod");
}

MultibodyData::MultibodyData(const MultibodyModel& model) {
    check_dof_layout(model);
    dof_count = model.dof_count;
    edge_count = static_cast<Index>(model.edges.size());
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
    for (auto* blocks : {&r_b, &q_b, &s_b, &y_b, &u_sum, &v_sum, &w_sum}) {
        blocks->resize(points);
        for (Matrix6X& block : *blocks) block.setZero(6, n);
    }
    for (auto* block : {&u_edge, &v_edge, &w_edge, &work}) block->setZero(6, n);

    // The column sets. Points are in topological order (a parent before its children).
    parent_point.assign(points, -1);
    edge_columns.resize(edges);
    path_columns.assign(points, ColumnRanges{});
    subtree_columns.assign(points, ColumnRanges{});
    for (std::size_t e = 0; e < edges; ++e) {
        const Edge& edge = model.edges[e];
        const auto c = e + 1, p = static_cast<std::size_t>(edge.parent);
        parent_point[c] = edge.parent;
        edge_columns[e] = ColumnRange{edge.first_dof, edge.dof_count};
        path_columns[c] = path_columns[p];
        path_columns[c].add(edge.first_dof, edge.dof_count);
    }
    for (std::size_t e = edges; e-- > 0;) {
        const auto c = e + 1, p = static_cast<std::size_t>(model.edges[e].parent);
        subtree_columns[c].add(edge_columns[e].first, edge_columns[e].count);
        subtree_columns[p].add(subtree_columns[c]);
    }
    subtree_columns[0].add(0, n);
    // A union of path columns has at most one range per coordinate group (a rod's or a joint's).
    std::vector<Index> group_starts;
    for (const Edge& edge : model.edges)
        if (edge.dof_count > 0) group_starts.push_back(edge.first_dof);
    std::sort(group_starts.begin(), group_starts.end());
    const auto groups = static_cast<std::size_t>(std::unique(group_starts.begin(), group_starts.end()) - group_starts.begin());
    load_columns = subtree_columns;
    for (ColumnRanges& columns : load_columns) columns.reserve(groups);
    scratch_columns.reserve(groups);
    for (const Index k : model.world_wrench_points) include_load_columns(k, k);
    for (const WallContact& contact : model.wall_contacts) include_load_columns(contact.point, contact.point);
    for (const PointHydrodynamics& fluid : model.hydrodynamics) include_load_columns(fluid.point, fluid.point);
    id.setZero(n);
    did_dq.setZero(n, n);
    did_dqdot.setZero(n, n);
    mass.setZero(n, n);
}

void MultibodyData::include_load_columns(Index point, Index depends_on) {
    const ColumnRanges& needed = path_columns[static_cast<std::size_t>(depends_on)];
    // A parent's set contains its children's: stop at the first ancestor that has them all.
    for (Index k = point; k >= 0; k = parent_point[static_cast<std::size_t>(k)]) {
        ColumnRanges& columns = load_columns[static_cast<std::size_t>(k)];
        if (columns.contains(needed)) break;
        columns.add(needed);
    }
}

}  // namespace soma::gvs
