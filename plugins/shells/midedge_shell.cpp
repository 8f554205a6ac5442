// The midedge_shell Element: digest 000 §1.2 (DOFs), §1.3 (lumped mass), §2.1 (stretching, mid-edge
// stiffness), §2.7 (mid-edge normal bending).
#include "midedge_shell.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace soma::shells {
namespace {

void require_positive(double value, const char* what) {
    if (!(value > 0.0) || !std::isfinite(value))
        throw std::invalid_argument(std::string(what) + " must be positive and finite, got " + std::to_string(value));
}

}  // namespace

MidedgeShell::MidedgeShell(MidedgeShellDescription d)
    : mesh_(std::move(d.mesh)),
      thickness_(d.thickness),
      material_(d.material),
      initial_velocity_(d.initial_velocity) {
    require_positive(thickness_, "thickness");
    require_positive(material_.density, "density");
    // Checks E > 0, h > 0 and nu in [0, 0.5] (nu = 1 would divide by zero, digest §2.7).
    const double k_b = midedge_bending_stiffness(material_.youngs_modulus, material_.poisson_ratio, thickness_);
    topology_ = build_topology(mesh_);  // throws MeshError

    node_count_ = static_cast<Index>(mesh_.positions.size());
    edge_count_ = static_cast<Index>(topology_.edges.size());
    const std::size_t T = mesh_.triangles.size();
    const auto E = static_cast<std::size_t>(edge_count_);

    // Stretching springs, mid-edge stiffness 2 E h l_bar / (1 - nu^2) (digest §2.0, §2.1).
    springs_.resize(E);
    for (std::size_t e = 0; e < E; ++e) {
        const double l = topology_.edge_lengths[e];
        springs_[e] = EdgeSpring{l, shell_stretching_stiffness(StretchingMode::midedge, material_.youngs_modulus,
                                                               material_.poisson_ratio, thickness_, l)};
    }

    // Lumped mass rho h A_bar / 3 per triangle and node (digest §1.3); xi is massless.
    node_mass_.assign(static_cast<std::size_t>(node_count_), 0.0);
    for (std::size_t t = 0; t < T; ++t)
        for (Index node : mesh_.triangles[t])
            node_mass_[static_cast<std::size_t>(node)] += material_.density * thickness_ * topology_.triangle_areas[t] / 3.0;

    // tau^{e,0} of the initial configuration, then the natural coefficients a_bar^k with xi_bar = 0.
    face_normal_.resize(T);
    edge_tau_.resize(E);
    refresh_edge_tau([this](Index node) { return mesh_.positions[static_cast<std::size_t>(node)]; });
    triangles_.resize(T);
    for (std::size_t t = 0; t < T; ++t) {
        MidedgeTriangle& tri = triangles_[t];
        tri.rest_area = topology_.triangle_areas[t];
        std::array<Vec3, 3> x, face_tau;
        for (std::size_t k = 0; k < 3; ++k) {
            const auto e = static_cast<std::size_t>(topology_.triangle_edges[t][k]);
            const int sign = topology_.triangle_edge_signs[t][k];
            x[k] = mesh_.positions[static_cast<std::size_t>(mesh_.triangles[t][k])];
            tri.rest_lengths(static_cast<Eigen::Index>(k)) = topology_.edge_lengths[e];
            tri.signs(static_cast<Eigen::Index>(k)) = sign;
            face_tau[k] = sign * edge_tau_[e];
        }
        tri.bending_stiffness = k_b;
        tri.poisson_ratio = material_.poisson_ratio;
        tri.natural_coefficients = midedge_natural_coefficients(tri.rest_area, tri.rest_lengths, x, face_tau);
    }
}

template <class Position>
void MidedgeShell::refresh_edge_tau(const Position& position) {
    // tau^{e,0} = unit(e_hat x n_avg), n_avg from the adjacent faces' unit normals (digest §2.7).
    for (std::size_t t = 0; t < mesh_.triangles.size(); ++t) {
        const auto& tri = mesh_.triangles[t];
        face_normal_[t] = midedge_unit_normal({position(tri[0]), position(tri[1]), position(tri[2])});
    }
    for (std::size_t e = 0; e < edge_tau_.size(); ++e) {
        const MeshEdge& edge = topology_.edges[e];
        const Vec3& n_a = face_normal_[static_cast<std::size_t>(edge.faces[0].triangle)];
        const Vec3& n_b = edge.face_count == 2 ? face_normal_[static_cast<std::size_t>(edge.faces[1].triangle)] : n_a;
        edge_tau_[e] = midedge_edge_tau(position(edge.nodes[0]), position(edge.nodes[1]), n_a, n_b);
    }
}

void MidedgeShell::begin_step(const State& start) {
    // Digest §2.7: tau^{e,0} from the configuration at the start of the step; xi not re-projected.
    refresh_edge_tau([this, &start](Index node) { return node_position(start.q, node); });
}

void MidedgeShell::initial_state(VectorX& q, VectorX& v) const {
    q.setZero(dof_count());
    v.setZero(dof_count());
    for (Index i = 0; i < node_count_; ++i) {
        q.segment<3>(3 * i) = mesh_.positions[static_cast<std::size_t>(i)];
        v.segment<3>(3 * i) = initial_velocity_;
    }
    // xi = 0 (digest §1.2): the mid-edge normals start along n_avg.
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
    bend_stencil_.resize(triangles_.size());
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
        std::array<Index, 12> dofs{};
        for (std::size_t k = 0; k < 3; ++k) {
            const auto& d = node_dofs_[static_cast<std::size_t>(mesh_.triangles[t][k])];
            for (std::size_t c = 0; c < 3; ++c) dofs[3 * k + c] = d[c];
            dofs[9 + k] = xi_global_[static_cast<std::size_t>(topology_.triangle_edges[t][k])];
        }
        bend_stencil_[t] = pattern.add_stencil(dofs);
    }
    // Node masses only: xi is massless (digest §1.3), so it gets no mass stencil.
    mass_stencil_.resize(node_dofs_.size());
    for (std::size_t i = 0; i < node_dofs_.size(); ++i) mass_stencil_[i] = pattern.add_stencil(node_dofs_[i]);
}

double MidedgeShell::evaluate(const VectorX& q, Assembly* assembly, double c_q, int parts) const {
    const bool want_hessian = assembly != nullptr && assembly->wants_jacobian() && c_q != 0.0;
    double energy = 0.0;
    if (parts & 1)
        energy += assemble_edge_springs(
            springs_, topology_.edges, stretch_stencil_, [&](Index n) { return node_position(q, n); }, assembly, c_q);
    if (parts & 2) {
        VecN<12> g12;
        MatN<12> H12;
        for (std::size_t t = 0; t < triangles_.size(); ++t) {
            std::array<Vec3, 3> x, face_tau;
            Vec3 xi;
            for (std::size_t k = 0; k < 3; ++k) {
                const auto e = static_cast<std::size_t>(topology_.triangle_edges[t][k]);
                x[k] = node_position(q, mesh_.triangles[t][k]);
                xi(static_cast<Eigen::Index>(k)) = q[xi_global_[e]];
                face_tau[k] = static_cast<double>(topology_.triangle_edge_signs[t][k]) * edge_tau_[e];
            }
            if (assembly == nullptr) {
                energy += midedge_energy(triangles_[t], x, xi, face_tau);
            } else if (want_hessian) {
                energy += midedge_energy_gradient_hessian(triangles_[t], x, xi, face_tau, g12, H12);
                assembly->add_residual(bend_stencil_[t], g12);
                assembly->add_jacobian(bend_stencil_[t], H12, c_q);
            } else {
                energy += midedge_energy_gradient(triangles_[t], x, xi, face_tau, g12);
                assembly->add_residual(bend_stencil_[t], g12);
            }
        }
    }
    return energy;
}

void MidedgeShell::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const JacobianCoefficients& w = context.coefficients;
    evaluate(*context.q, &assembly, w.c_q);
    // Lumped inertia of the nodes, M a and c_a M (digest §1.3); statics may pass no acceleration.
    if (context.a != nullptr && context.a->size() > 0) {
        for (Index i = 0; i < node_count_; ++i) {
            const auto ui = static_cast<std::size_t>(i);
            assembly.add_residual(mass_stencil_[ui], node_mass_[ui] * node_position(*context.a, i));
        }
    }
    if (assembly.wants_jacobian() && w.c_a != 0.0)
        for (std::size_t i = 0; i < mass_stencil_.size(); ++i)
            assembly.add_jacobian_diagonal(mass_stencil_[i], w.c_a * node_mass_[i]);
}

double MidedgeShell::potential_energy(const EvalContext& context) const { return evaluate(*context.q, nullptr, 0.0); }

double MidedgeShell::bending_energy(const VectorX& q) const { return evaluate(q, nullptr, 0.0, 2); }

double MidedgeShell::stretching_energy(const VectorX& q) const { return evaluate(q, nullptr, 0.0, 1); }

double MidedgeShell::kinetic_energy(const EvalContext& context) const {
    if (context.v == nullptr || context.v->size() == 0) return 0.0;
    double twice = 0.0;
    for (Index i = 0; i < node_count_; ++i)
        twice += node_mass_[static_cast<std::size_t>(i)] * node_position(*context.v, i).squaredNorm();
    return 0.5 * twice;
}

}  // namespace soma::shells
