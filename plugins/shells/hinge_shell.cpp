// The hinge_shell Element: MAT-DiSMech §2 (lumped mass), §3.1 (edge stretching, eq. 9-10), §3.3.1
// (hinge bending, eq. 17), with the reference code's stiffness values (twice the paper's).
#include "hinge_shell.hpp"

#include "soma/energy_term.hpp"
#include "soma/lumped_mass.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace soma::shells {
namespace {

void require_positive(const SettingsErrors& errors, double value, const char* key) {
    if (!(value > 0.0) || !std::isfinite(value))
        errors.fail(key, "must be positive and finite, got " + std::to_string(value));
}

}  // namespace

HingeShell::HingeShell(HingeShellDescription d, const SettingsErrors& errors)
    : positions_(std::move(d.mesh.positions)),
      triangles_(std::move(d.mesh.triangles)),
      thickness_(d.thickness),
      material_(d.material),
      initial_velocity_(d.initial_velocity) {
    require_positive(errors, thickness_, "thickness");
    require_positive(errors, material_.density, "material.density");
    require_positive(errors, material_.youngs_modulus, "material.youngs_modulus");
    topology_ = build_topology(TriangleMesh{positions_, triangles_});

    const double E = material_.youngs_modulus;
    const double h = thickness_;

    // Edge stretching springs (MAT-DiSMech §3.1, eq. 9-10, hinge-mode stiffness).
    edge_springs_.resize(topology_.edges.size());
    for (std::size_t e = 0; e < edge_springs_.size(); ++e) {
        const double l = topology_.edge_lengths[e];
        edge_springs_[e] = EdgeSpring{l, shell_stretching_stiffness(StretchingMode::hinge, E, material_.poisson_ratio, h, l)};
    }

    // Hinge springs with natural angles from the initial geometry (MAT-DiSMech's reference code, "setThetaBar").
    const double kb = hinge_bending_stiffness(E, h);
    hinge_springs_.resize(topology_.hinges.size());
    for (std::size_t i = 0; i < hinge_springs_.size(); ++i) {
        const auto& n = topology_.hinges[i].nodes;
        hinge_springs_[i].stiffness = kb;
        hinge_springs_[i].natural_angle =
            hinge_angle(positions_[static_cast<std::size_t>(n[0])], positions_[static_cast<std::size_t>(n[1])],
                        positions_[static_cast<std::size_t>(n[2])], positions_[static_cast<std::size_t>(n[3])]);
    }

    // Lumped mass rho h A_bar / 3 per triangle corner (MAT-DiSMech §2).
    node_mass_.assign(positions_.size(), 0.0);
    for (std::size_t t = 0; t < triangles_.size(); ++t) {
        const double m = material_.density * h * topology_.triangle_areas[t] / 3.0;
        for (Index v : triangles_[t]) node_mass_[static_cast<std::size_t>(v)] += m;
    }
}

void HingeShell::initial_state(VectorX& q, VectorX& v) const {
    q.resize(dof_count());
    v.resize(dof_count());
    for (Index i = 0; i < node_count(); ++i) {
        q.segment<3>(3 * i) = positions_[static_cast<std::size_t>(i)];
        v.segment<3>(3 * i) = initial_velocity_;
    }
}

std::vector<DofGroup> HingeShell::dof_groups() const {
    return {DofGroup{"nodes", 3, node_count(), {"x", "y", "z"}}};
}

Index HingeShell::group_dof(const std::string& group, Index item, int component) const {
    if (group != "nodes") throw std::out_of_range("hinge_shell: no DOF group '" + group + "' (groups: nodes)");
    if (item < 0 || item >= node_count() || component < 0 || component > 2)
        throw std::out_of_range("hinge_shell: no node " + std::to_string(item) + " component " + std::to_string(component));
    return 3 * item + component;
}

std::string HingeShell::describe_dof(Index local) const {
    static const char* axes[] = {"x", "y", "z"};
    if (local >= 0 && local < dof_count()) return "node " + std::to_string(local / 3) + " " + axes[local % 3];
    return "invalid local DOF " + std::to_string(local);
}

void HingeShell::on_bind() {
    if (static_cast<Index>(global_dofs().size()) != dof_count())
        throw std::logic_error("hinge_shell: bind() got " + std::to_string(global_dofs().size()) +
                               " DOFs, expected " + std::to_string(dof_count()));
    const auto N = positions_.size();
    node_dofs_.resize(N);
    for (Index i = 0; i < node_count(); ++i)
        node_dofs_[static_cast<std::size_t>(i)] = {global_dof(3 * i), global_dof(3 * i + 1), global_dof(3 * i + 2)};

    // Pure shell points (point_length 0, so viscous rod drag skips them as in MAT-DiSMech §5.3).
    geometry_ = Geometry{};
    geometry_.point_dofs = node_dofs_;
    geometry_.point_mass = node_mass_;
    geometry_.point_length.assign(N, 0.0);
    geometry_.triangles = triangles_;
    geometry_.edges.reserve(topology_.edges.size());
    for (const MeshEdge& e : topology_.edges) geometry_.edges.push_back(e.nodes);
    geometry_.point_radius.assign(N, 0.5 * thickness_);
    geometry_.density = material_.density;
}

void HingeShell::declare_pattern(PatternBuilder& pattern) {
    edge_stencil_.resize(topology_.edges.size());
    for (std::size_t e = 0; e < edge_stencil_.size(); ++e) {
        const auto& a = node_dofs_[static_cast<std::size_t>(topology_.edges[e].nodes[0])];
        const auto& b = node_dofs_[static_cast<std::size_t>(topology_.edges[e].nodes[1])];
        const std::array<Index, 6> dofs{a[0], a[1], a[2], b[0], b[1], b[2]};
        edge_stencil_[e] = pattern.add_stencil(dofs);
    }
    hinge_stencil_.resize(topology_.hinges.size());
    for (std::size_t h = 0; h < hinge_stencil_.size(); ++h) {
        std::array<Index, 12> dofs{};
        for (std::size_t k = 0; k < 4; ++k)
            for (std::size_t c = 0; c < 3; ++c)
                dofs[3 * k + c] = node_dofs_[static_cast<std::size_t>(topology_.hinges[h].nodes[k])][c];
        hinge_stencil_[h] = pattern.add_stencil(dofs);
    }
    mass_stencil_.resize(node_dofs_.size());
    for (std::size_t i = 0; i < node_dofs_.size(); ++i) mass_stencil_[i] = pattern.add_stencil(node_dofs_[i]);
}

double HingeShell::evaluate(const VectorX& q, Assembly* assembly, double c_q) const {
    const EnergyEvaluation evaluation(assembly, c_q);
    double energy = assemble_edge_springs(
        edge_springs_, topology_.edges, edge_stencil_, [&](Index n) { return node_position(q, n); }, evaluation);
    for (std::size_t h = 0; h < hinge_springs_.size(); ++h) {
        const HingeSpring& spring = hinge_springs_[h];
        const auto& n = topology_.hinges[h].nodes;
        const Vec3 x0 = node_position(q, n[0]), x1 = node_position(q, n[1]);
        const Vec3 x2 = node_position(q, n[2]), x3 = node_position(q, n[3]);
        energy += add_energy_term<12>(
            evaluation, hinge_stencil_[h], [&] { return hinge_energy(spring, x0, x1, x2, x3); },
            [&](VecN<12>& g) { return hinge_energy_gradient(spring, x0, x1, x2, x3, g); },
            [&](VecN<12>& g, MatN<12>& H) { return hinge_energy_gradient_hessian(spring, x0, x1, x2, x3, g, H); });
    }
    return energy;
}

void HingeShell::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const JacobianCoefficients& w = context.coefficients;
    evaluate(*context.q, &assembly, w.c_q);
    // Lumped inertia M a and c_a M (MAT-DiSMech's diagonal lumped mass matrix, §2).
    add_lumped_inertia(context, assembly, mass_stencil_, node_mass_);
}

double HingeShell::potential_energy(const EvalContext& context) const { return evaluate(*context.q, nullptr, 0.0); }

double HingeShell::kinetic_energy(const EvalContext& context) const {
    if (context.v == nullptr || context.v->size() == 0) return 0.0;
    double twice = 0.0;
    for (Index i = 0; i < node_count(); ++i)
        twice += node_mass_[static_cast<std::size_t>(i)] * node_position(*context.v, i).squaredNorm();
    return 0.5 * twice;
}

// ---- actuation: natural hinge angles (MAT-DiSMech §3.3.1 and §7.1, Fig. 5) ----

std::vector<ActuationChannel> HingeShell::actuation_channels() const {
    return {ActuationChannel{kNaturalHingeAngle, static_cast<Index>(hinge_springs_.size()), {"phi"}, "rad",
                             "natural hinge angle phi_bar of each hinge (interior mesh edge); 0 is flat, the "
                             "initial value is the angle of the initial geometry"}};
}

void HingeShell::check_channel(const std::string& channel, Index item, int component) const {
    if (channel != kNaturalHingeAngle)
        throw std::out_of_range("hinge_shell '" + name() + "': no actuation channel '" + channel +
                                "' (channels: natural_hinge_angle)");
    if (item < 0 || item >= static_cast<Index>(hinge_springs_.size()) || component != 0)
        throw std::out_of_range("hinge_shell '" + name() + "': no hinge " + std::to_string(item) + " component " +
                                std::to_string(component) + " (" + std::to_string(hinge_springs_.size()) +
                                " hinges, component 0 = phi)");
}

double HingeShell::actuation(const std::string& channel, Index item, int component) const {
    check_channel(channel, item, component);
    return hinge_springs_[static_cast<std::size_t>(item)].natural_angle;
}

void HingeShell::set_actuation(const std::string& channel, Index item, int component, double value) {
    check_channel(channel, item, component);
    // The hinge angle is measured in (-pi, pi] (MAT-DiSMech eq. 17, a signed angle between face
    // normals): a natural angle outside it could never be reached and would make the energy jump.
    if (!(std::abs(value) < 3.14159265358979323846))
        throw std::domain_error("natural_hinge_angle " + std::to_string(value) + " of hinge " + std::to_string(item) +
                                " is outside (-pi, pi): hinge angles are signed angles between face normals");
    hinge_springs_[static_cast<std::size_t>(item)].natural_angle = value;
}

Vec3 HingeShell::actuation_point(const std::string& channel, Index item) const {
    check_channel(channel, item, 0);
    const auto& n = topology_.hinges[static_cast<std::size_t>(item)].nodes;
    return 0.5 * (positions_[static_cast<std::size_t>(n[0])] + positions_[static_cast<std::size_t>(n[1])]);
}

}  // namespace soma::shells
