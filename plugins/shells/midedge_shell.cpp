// The midedge_shell Element: MAT-DiSMech §2 (DOFs, lumped mass), eq. 9 (stretching, mid-edge
// stiffness), §3.3.2 (mid-edge normal bending, history-free form of midedge_bending.hpp).
#include "midedge_shell.hpp"

#include "soma/energy_term.hpp"
#include "soma/lumped_mass.hpp"
#include "soma/scene_view.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

namespace soma::shells {
namespace {

void require_positive(const SettingsErrors& errors, double value, const char* key) {
    if (!(value > 0.0) || !std::isfinite(value))
        errors.fail(key, "must be positive and finite, got " + std::to_string(value));
}

}  // namespace

MidedgeShell::MidedgeShell(MidedgeShellDescription d, const SettingsErrors& errors)
    : mesh_(std::move(d.mesh)),
      thickness_(d.thickness),
      material_(d.material),
      initial_velocity_(d.initial_velocity) {
    require_positive(errors, thickness_, "thickness");
    require_positive(errors, material_.density, "material.density");
    require_positive(errors, material_.youngs_modulus, "material.youngs_modulus");
    if (!(material_.poisson_ratio >= 0.0 && material_.poisson_ratio <= 0.5))
        errors.fail("material.poisson_ratio", "must be in [0, 0.5], got " + std::to_string(material_.poisson_ratio));
    // The constants above are checked again inside (nu = 1 would divide by zero in k_b, MAT-DiSMech §3.3.2).
    const double k_b = midedge_bending_stiffness(material_.youngs_modulus, material_.poisson_ratio, thickness_);
    topology_ = build_topology(mesh_);  // throws MeshError

    node_count_ = static_cast<Index>(mesh_.positions.size());
    edge_count_ = static_cast<Index>(topology_.edges.size());
    const std::size_t T = mesh_.triangles.size();
    const auto E = static_cast<std::size_t>(edge_count_);

    // Stretching springs, mid-edge stiffness 2 E h l_bar / (1 - nu^2) (MAT-DiSMech's reference code; §3.1, eq. 9-10).
    springs_.resize(E);
    for (std::size_t e = 0; e < E; ++e) {
        const double l = topology_.edge_lengths[e];
        springs_[e] = EdgeSpring{l, shell_stretching_stiffness(StretchingMode::midedge, material_.youngs_modulus,
                                                               material_.poisson_ratio, thickness_, l)};
    }

    // Lumped mass rho h A_bar / 3 per triangle and node (MAT-DiSMech §2, eq. 3); xi is massless.
    node_mass_.assign(static_cast<std::size_t>(node_count_), 0.0);
    for (std::size_t t = 0; t < T; ++t)
        for (Index node : mesh_.triangles[t])
            node_mass_[static_cast<std::size_t>(node)] += material_.density * thickness_ * topology_.triangle_areas[t] / 3.0;

    // Wing nodes (the neighbour's opposite vertex across each local edge) and the initial edge
    // frames a held edge is measured from.
    wing_node_.assign(T, {-1, -1, -1});
    std::vector<Vec3> face_normal(T);
    for (std::size_t t = 0; t < T; ++t) {
        const auto& tri = mesh_.triangles[t];
        const Vec3& p0 = mesh_.positions[static_cast<std::size_t>(tri[0])];
        face_normal[t] = (mesh_.positions[static_cast<std::size_t>(tri[1])] - p0)
                             .cross(mesh_.positions[static_cast<std::size_t>(tri[2])] - p0)
                             .normalized();
    }
    rest_edge_normal_.resize(E);
    rest_edge_direction_.resize(E);
    for (std::size_t e = 0; e < E; ++e) {
        const MeshEdge& edge = topology_.edges[e];
        const auto& f0 = edge.faces[0];
        Vec3 normal = face_normal[static_cast<std::size_t>(f0.triangle)];
        if (edge.face_count == 2) {
            const auto& f1 = edge.faces[1];
            normal += face_normal[static_cast<std::size_t>(f1.triangle)];
            // Each face's wing across this edge is the other face's opposite vertex.
            wing_node_[static_cast<std::size_t>(f0.triangle)][static_cast<std::size_t>(f0.local_edge)] =
                mesh_.triangles[static_cast<std::size_t>(f1.triangle)][static_cast<std::size_t>(f1.local_edge)];
            wing_node_[static_cast<std::size_t>(f1.triangle)][static_cast<std::size_t>(f1.local_edge)] =
                mesh_.triangles[static_cast<std::size_t>(f0.triangle)][static_cast<std::size_t>(f0.local_edge)];
        }
        rest_edge_normal_[e] = normal.normalized();
        rest_edge_direction_[e] = (mesh_.positions[static_cast<std::size_t>(edge.nodes[1])] -
                                   mesh_.positions[static_cast<std::size_t>(edge.nodes[0])])
                                      .normalized();
    }

    triangles_.resize(T);
    for (std::size_t t = 0; t < T; ++t) {
        MidedgeTriangle& tri = triangles_[t];
        tri.rest_area = topology_.triangle_areas[t];
        for (std::size_t k = 0; k < 3; ++k) {
            const auto e = static_cast<std::size_t>(topology_.triangle_edges[t][k]);
            tri.rest_lengths(static_cast<Eigen::Index>(k)) = topology_.edge_lengths[e];
            tri.signs(static_cast<Eigen::Index>(k)) = topology_.triangle_edge_signs[t][k];
        }
        tri.bending_stiffness = k_b;
        tri.poisson_ratio = material_.poisson_ratio;
    }
    held_.assign(E, 0);
    prepare_bending();
}

void MidedgeShell::prepare_bending() {
    // Natural configuration: the mesh, xi = 0 (a held edge's normal is its initial n_c there).
    VectorX rest(dof_count());
    rest.setZero();
    for (Index i = 0; i < node_count_; ++i) rest.segment<3>(3 * i) = mesh_.positions[static_cast<std::size_t>(i)];
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
        MidedgeTriangle& tri = triangles_[t];
        for (std::size_t k = 0; k < 3; ++k) {
            const auto e = static_cast<std::size_t>(topology_.triangle_edges[t][k]);
            tri.kinds[k] = held_[e]                 ? MidedgeEdgeKind::held
                         : wing_node_[t][k] >= 0    ? MidedgeEdgeKind::interior
                                                    : MidedgeEdgeKind::boundary;
        }
        // A held edge's normal: its initial one, turned by xi about the initial edge direction.
        for (std::size_t k = 0; k < 3; ++k) {
            const auto e = static_cast<std::size_t>(topology_.triangle_edges[t][k]);
            tri.held_normal[k] = rest_edge_normal_[e];
            tri.held_tangent[k] = rest_edge_direction_[e].cross(rest_edge_normal_[e]).normalized();
        }
        // The stencil at rest.
        MidedgeStencil st;
        for (std::size_t k = 0; k < 3; ++k) {
            st.x[k] = mesh_.positions[static_cast<std::size_t>(mesh_.triangles[t][k])];
            if (wing_node_[t][k] >= 0) st.wing[k] = mesh_.positions[static_cast<std::size_t>(wing_node_[t][k])];
        }
        tri.natural_coefficients = midedge_natural_coefficients(tri, st);
    }
}

void MidedgeShell::hold_edges(const std::vector<Index>& edges) {
    held_.assign(static_cast<std::size_t>(edge_count_), 0);
    for (Index e : edges) {
        if (e < 0 || e >= edge_count_)
            throw std::out_of_range("midedge_shell: no edge " + std::to_string(e) + " (the mesh has " +
                                    std::to_string(edge_count_) + ")");
        held_[static_cast<std::size_t>(e)] = 1;
    }
    prepare_bending();
}

void MidedgeShell::connect(const SceneView& scene) {
    std::vector<Index> held;
    for (Index e = 0; e < edge_count_; ++e) {
        if (scene.dof_is_free(xi_global_[static_cast<std::size_t>(e)])) continue;
        for (Index node : topology_.edges[static_cast<std::size_t>(e)].nodes)
            for (Index dof : node_dofs_[static_cast<std::size_t>(node)])
                if (scene.dof_is_free(dof))
                    throw std::invalid_argument(
                        "edge " + std::to_string(e) + " (nodes " + std::to_string(topology_.edges[static_cast<std::size_t>(e)].nodes[0]) +
                        "-" + std::to_string(topology_.edges[static_cast<std::size_t>(e)].nodes[1]) +
                        ") has its xi fixed or prescribed, which holds its mid-edge normal in the world (a clamp), "
                        "but its node " + std::to_string(node) +
                        " is free: fix or prescribe the edge's two nodes as well, or leave its xi free");
        held.push_back(e);
    }
    hold_edges(held);
}

MidedgeStencil MidedgeShell::bending_stencil(const VectorX& q, std::size_t t) const {
    MidedgeStencil st;
    const auto& tri = mesh_.triangles[t];
    for (std::size_t k = 0; k < 3; ++k) st.x[k] = node_position(q, tri[k]);
    for (std::size_t k = 0; k < 3; ++k) {
        const auto e = static_cast<std::size_t>(topology_.triangle_edges[t][k]);
        st.xi(static_cast<Eigen::Index>(k)) = q[xi_global_[e]];
        if (triangles_[t].kinds[k] == MidedgeEdgeKind::interior) st.wing[k] = node_position(q, wing_node_[t][k]);
        if (triangles_[t].kinds[k] == MidedgeEdgeKind::held && !(std::abs(q[xi_global_[e]]) < 1.0)) {
            const auto& nodes = topology_.edges[e].nodes;
            throw std::domain_error("midedge_shell: edge " + std::to_string(e) + " (nodes " + std::to_string(nodes[0]) + "-" +
                                    std::to_string(nodes[1]) + ") is held with xi = " + std::to_string(q[xi_global_[e]]) +
                                    ": a prescribed xi must stay in (-1, 1), the component of its unit mid-edge normal");
        }
    }
    return st;
}

void MidedgeShell::initial_state(VectorX& q, VectorX& v) const {
    q.setZero(dof_count());
    v.setZero(dof_count());
    for (Index i = 0; i < node_count_; ++i) {
        q.segment<3>(3 * i) = mesh_.positions[static_cast<std::size_t>(i)];
        v.segment<3>(3 * i) = initial_velocity_;
    }
    // xi = 0 (MAT-DiSMech §2 and §3.3.2): the mid-edge normals start along n_avg.
}

std::vector<DofGroup> MidedgeShell::dof_groups() const {
    return {DofGroup{"nodes", 3, node_count_, {"x", "y", "z"}}, DofGroup{"edges", 1, edge_count_, {"xi"}}};
}

Index MidedgeShell::group_dof(const std::string& group, Index item, int component) const {
    if (group == "nodes") {
        if (item < 0 || item >= node_count_ || component < 0 || component > 2)
            throw std::out_of_range("midedge_shell: no node " + std::to_string(item) + " component " +
                                    std::to_string(component));
        return 3 * item + component;
    }
    if (group == "edges") {
        if (item < 0 || item >= edge_count_ || component != 0)
            throw std::out_of_range("midedge_shell: no edge " + std::to_string(item) + " component " +
                                    std::to_string(component));
        return xi_dof(item);
    }
    throw std::out_of_range("midedge_shell: no DOF group '" + group + "' (groups: nodes, edges)");
}

std::vector<Index> MidedgeShell::item_nodes(const std::string& group, Index item) const {
    if (group != "edges") return {};
    if (item < 0 || item >= edge_count_) throw std::out_of_range("midedge_shell: no edge " + std::to_string(item));
    const auto& n = topology_.edges[static_cast<std::size_t>(item)].nodes;
    return {n[0], n[1]};
}

std::string MidedgeShell::describe_dof(Index local) const {
    static const char* axes[] = {"x", "y", "z"};
    if (local >= 0 && local < 3 * node_count_) return "node " + std::to_string(local / 3) + " " + axes[local % 3];
    if (local >= 3 * node_count_ && local < dof_count()) {
        const Index e = local - 3 * node_count_;
        const auto& n = topology_.edges[static_cast<std::size_t>(e)].nodes;
        return "edge " + std::to_string(e) + " (nodes " + std::to_string(n[0]) + "-" + std::to_string(n[1]) + ") xi";
    }
    return "invalid local DOF " + std::to_string(local);
}

void MidedgeShell::on_bind() {
    if (static_cast<Index>(global_dofs().size()) != dof_count())
        throw std::logic_error("midedge_shell: bind() got " + std::to_string(global_dofs().size()) +
                               " DOFs, expected " + std::to_string(dof_count()));
    const auto N = static_cast<std::size_t>(node_count_);
    node_dofs_.resize(N);
    for (Index i = 0; i < node_count_; ++i)
        node_dofs_[static_cast<std::size_t>(i)] = {global_dof(3 * i), global_dof(3 * i + 1), global_dof(3 * i + 2)};
    xi_global_.resize(static_cast<std::size_t>(edge_count_));
    for (Index e = 0; e < edge_count_; ++e) xi_global_[static_cast<std::size_t>(e)] = global_dof(xi_dof(e));

    geometry_ = Geometry{};
    geometry_.point_dofs = node_dofs_;
    geometry_.point_mass = node_mass_;
    geometry_.point_length.assign(N, 0.0);  // pure shell points
    geometry_.edges.resize(topology_.edges.size());
    for (std::size_t e = 0; e < topology_.edges.size(); ++e) geometry_.edges[e] = topology_.edges[e].nodes;
    geometry_.triangles = mesh_.triangles;
    geometry_.point_radius.assign(N, 0.5 * thickness_);
    geometry_.density = material_.density;
}

void MidedgeShell::declare_pattern(PatternBuilder& pattern) {
    stretch_stencil_.resize(topology_.edges.size());
    for (std::size_t e = 0; e < topology_.edges.size(); ++e) {
        const auto& a = node_dofs_[static_cast<std::size_t>(topology_.edges[e].nodes[0])];
        const auto& b = node_dofs_[static_cast<std::size_t>(topology_.edges[e].nodes[1])];
        const std::array<Index, 6> dofs{a[0], a[1], a[2], b[0], b[1], b[2]};
        stretch_stencil_[e] = pattern.add_stencil(dofs);
    }
    // Bending: [x_0, x_1, x_2, xi^0, xi^1, xi^2] then the wings of the interior edges (the
    // neighbours' opposite vertices), in local-edge order (midedge_bending.hpp's order with the
    // wings that are not DOFs left out).
    bend_stencil_.resize(triangles_.size());
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
        std::array<Index, 21> dofs{};
        std::size_t n = 0;
        for (std::size_t k = 0; k < 3; ++k)
            for (std::size_t c = 0; c < 3; ++c) dofs[n++] = node_dofs_[static_cast<std::size_t>(mesh_.triangles[t][k])][c];
        for (std::size_t k = 0; k < 3; ++k) dofs[n++] = xi_global_[static_cast<std::size_t>(topology_.triangle_edges[t][k])];
        for (std::size_t k = 0; k < 3; ++k)
            if (triangles_[t].kinds[k] == MidedgeEdgeKind::interior)
                for (std::size_t c = 0; c < 3; ++c) dofs[n++] = node_dofs_[static_cast<std::size_t>(wing_node_[t][k])][c];
        bend_stencil_[t] = pattern.add_stencil(std::span<const Index>(dofs.data(), n));
    }
    // Node masses only: xi is massless (MAT-DiSMech's reference code), so it gets no mass stencil.
    mass_stencil_.resize(node_dofs_.size());
    for (std::size_t i = 0; i < node_dofs_.size(); ++i) mass_stencil_[i] = pattern.add_stencil(node_dofs_[i]);
}

double MidedgeShell::evaluate(const VectorX& q, Assembly* assembly, double c_q, int parts) const {
    const EnergyEvaluation evaluation(assembly, c_q);
    double energy = 0.0;
    if (parts & 1)
        energy += assemble_edge_springs(
            springs_, topology_.edges, stretch_stencil_, [&](Index n) { return node_position(q, n); }, evaluation);
    if (parts & 2) {
        VecN<21> g;
        MatN<21> H;
        for (std::size_t t = 0; t < triangles_.size(); ++t) {
            const MidedgeTriangle& tri = triangles_[t];
            const MidedgeStencil st = bending_stencil(q, t);
            if (!evaluation.gradient()) {
                energy += midedge_energy(tri, st);
                continue;
            }
            energy += evaluation.hessian ? midedge_energy_gradient_hessian(tri, st, g, H)
                                         : midedge_energy_gradient(tri, st, g);
            // Leave out the wing slots that are not DOFs (boundary and held edges), keeping the
            // order of the declared stencil.
            std::array<int, 21> slot{};
            int n = 12;
            for (int i = 0; i < 12; ++i) slot[static_cast<std::size_t>(i)] = i;
            for (std::size_t k = 0; k < 3; ++k)
                if (tri.kinds[k] == MidedgeEdgeKind::interior)
                    for (int c = 0; c < 3; ++c) slot[static_cast<std::size_t>(n++)] = 12 + 3 * static_cast<int>(k) + c;
            if (n < 21) {
                for (int i = 12; i < n; ++i) g(i) = g(slot[static_cast<std::size_t>(i)]);
                if (evaluation.hessian)
                    for (int j = 0; j < n; ++j)
                        for (int i = 0; i < n; ++i) H(i, j) = H(slot[static_cast<std::size_t>(i)], slot[static_cast<std::size_t>(j)]);
            }
            add_energy_derivatives(evaluation, bend_stencil_[t], g.head(n), H.topLeftCorner(n, n));
        }
    }
    return energy;
}

void MidedgeShell::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const JacobianCoefficients& w = context.coefficients;
    evaluate(*context.q, &assembly, w.c_q);
    // Lumped inertia of the nodes, M a and c_a M (MAT-DiSMech's diagonal lumped
    // mass matrix, §2); the xi DOFs are massless.
    add_lumped_inertia(context, assembly, mass_stencil_, node_mass_);
}

double MidedgeShell::potential_energy(const EvalContext& context) const { return evaluate(*context.q, nullptr, 0.0); }

double MidedgeShell::bending_energy(const VectorX& q) const { return evaluate(q, nullptr, 0.0, 2); }

double MidedgeShell::bending_energy(const VectorX& q, Index triangle) const {
    const auto t = static_cast<std::size_t>(triangle);
    return midedge_energy(triangles_[t], bending_stencil(q, t));
}

double MidedgeShell::stretching_energy(const VectorX& q) const { return evaluate(q, nullptr, 0.0, 1); }

double MidedgeShell::kinetic_energy(const EvalContext& context) const {
    if (context.v == nullptr || context.v->size() == 0) return 0.0;
    double twice = 0.0;
    for (Index i = 0; i < node_count_; ++i)
        twice += node_mass_[static_cast<std::size_t>(i)] * node_position(*context.v, i).squaredNorm();
    return 0.5 * twice;
}

}  // namespace soma::shells
