// The discrete_rod Element: MAT-DiSMech §2 (lumped mass), §3.1 (stretching, eq. 9-10), §3.2 (frames,
// bending eq. 11-14, twisting eq. 15-16).
#include "discrete_rod.hpp"

#include "rod_frames.hpp"

#include "soma/checkpoint.hpp"
#include "soma/energy_term.hpp"
#include "soma/lumped_mass.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace soma::rod {
namespace {

void require_positive(const SettingsErrors& errors, double value, const char* key) {
    if (!(value > 0.0) || !std::isfinite(value))
        errors.fail(key, "must be positive and finite, got " + std::to_string(value));
}

// Actuation channel names (discrete_rod.hpp).
const std::string kNaturalCurvature = "natural_curvature";
const std::string kNaturalTwist = "natural_twist";

// 2 tan(x/2)/x, the discrete curvature per physical turning angle x = |kappa| dl of an arc
// (|kb| of MAT-DiSMech eq. 11 is 2 tan(phi/2)); 1 + x^2/12 below 1e-6 (relative error < 1e-24).
double arc_tan_ratio(double x) {
    const double h = 0.5 * x;
    return h < 1e-6 ? 1.0 + h * h / 3.0 : std::tan(h) / h;
}

// 2 atan(b/2)/b, its inverse: the turning angle per discrete curvature magnitude b = |kb|.
double arc_atan_ratio(double b) {
    const double h = 0.5 * b;
    return h < 1e-6 ? 1.0 - h * h / 3.0 : std::atan(h) / h;
}

// Smallest allowed 1 + t_e.t_f at a node: the curvature binormal 2 t_e x t_f / (1 + t_e.t_f) is
// singular when an edge folds back onto the previous one (turning angle 180 degrees).
constexpr double kMinChi = 1e-6;

}  // namespace

DiscreteRod::DiscreteRod(RodDescription d, const SettingsErrors& errors)
    : initial_positions_(std::move(d.positions)),
      initial_velocity_(d.initial_velocity),
      section_(d.section),
      material_(d.material),
      symmetric_jacobian_(d.symmetric_jacobian),
      planar_axis_(d.planar_axis) {
    const auto& x = initial_positions_;
    if (x.size() < 3)
        errors.fail("geometry", "a discrete rod needs at least 3 nodes, got " + std::to_string(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!x[i].allFinite()) errors.fail("geometry", "node " + std::to_string(i) + " has a non-finite coordinate");
    require_positive(errors, material_.density, "material.density");
    require_positive(errors, material_.youngs_modulus, "material.youngs_modulus");
    if (!(material_.poisson_ratio >= 0.0 && material_.poisson_ratio <= 0.5))
        errors.fail("material.poisson_ratio", "must be in [0, 0.5], got " + std::to_string(material_.poisson_ratio));
    require_positive(errors, material_.shear(), "material.shear_modulus");
    // The section's constants come from its dimensions (cross_section.hpp): a bad one is a bad dimension.
    require_positive(errors, section_.area, "cross_section");
    require_positive(errors, section_.second_moment1, "cross_section");
    require_positive(errors, section_.second_moment2, "cross_section");
    require_positive(errors, section_.torsion_constant, "cross_section");

    node_count_ = static_cast<Index>(x.size());
    edge_count_ = node_count_ - 1;
    const auto N = static_cast<std::size_t>(node_count_);
    const auto E = static_cast<std::size_t>(edge_count_);

    // Edges, rest lengths and tangents.
    std::vector<double> rest_length(E);
    tangent_.resize(E);
    for (std::size_t e = 0; e < E; ++e) {
        const Vec3 edge = x[e + 1] - x[e];
        rest_length[e] = edge.norm();
        if (!(rest_length[e] > 0.0))
            errors.fail("geometry", "nodes " + std::to_string(e) + " and " + std::to_string(e + 1) +
                                        " coincide (zero-length edge)");
        tangent_[e] = edge / rest_length[e];
    }
    for (std::size_t e = 0; e + 1 < E; ++e)
        if (1.0 + tangent_[e].dot(tangent_[e + 1]) < kMinChi)
            errors.fail("geometry", "the rod folds back onto itself at node " + std::to_string(e + 1));

    // Stiffnesses (MAT-DiSMech §3.1-3.3).
    const double EA = material_.youngs_modulus * section_.area;
    const double EI1 = material_.youngs_modulus * section_.second_moment1;
    const double EI2 = material_.youngs_modulus * section_.second_moment2;
    const double GJ = material_.shear() * section_.torsion_constant;

    // Voronoi lengths and lumped masses (MAT-DiSMech §2; lumping of its reference code).
    voronoi_length_.assign(N, 0.0);
    for (std::size_t e = 0; e < E; ++e) {
        voronoi_length_[e] += 0.5 * rest_length[e];
        voronoi_length_[e + 1] += 0.5 * rest_length[e];
    }
    node_mass_.resize(N);
    for (std::size_t i = 0; i < N; ++i) node_mass_[i] = material_.density * section_.area * voronoi_length_[i];
    edge_inertia_.resize(E);
    for (std::size_t e = 0; e < E; ++e)
        edge_inertia_[e] = material_.density * section_.polar_moment() * rest_length[e];

    stretching_.resize(E);
    for (std::size_t e = 0; e < E; ++e) stretching_[e] = StretchingSpring{rest_length[e], EA};

    // Space-parallel reference frames at t = 0 and the initial reference twist (MAT-DiSMech §3.2,
    // eq. 15). Space-parallel frames give zero reference twist up to round-off; it is computed
    // anyway so that any initial frame would be valid.
    director_.resize(E);
    if (d.first_director) {
        const Vec3& m1 = *d.first_director;
        if (!m1.allFinite() || (m1 - m1.dot(tangent_[0]) * tangent_[0]).norm() < 1e-6 * m1.norm() || m1.norm() == 0.0)
            errors.fail("geometry", "the first material director must be finite and not parallel to the first edge");
        space_parallel_frames(tangent_, director_, m1);
    } else {
        space_parallel_frames(tangent_, director_);
    }
    reference_twist_.resize(E - 1);
    for (std::size_t k = 0; k + 1 < E; ++k)
        reference_twist_[k] = reference_twist(director_[k], tangent_[k], director_[k + 1], tangent_[k + 1], 0.0);

    // Bend-twist springs with natural curvature and twist of the initial geometry and initial
    // material frames, theta = 0 (MAT-DiSMech's reference code, "setkappa", "undef_refTwist").
    bend_twist_.resize(E - 1);
    for (std::size_t k = 0; k + 1 < E; ++k) {
        BendTwistSpring& s = bend_twist_[k];
        // Voronoi length from BOTH edges, 1/2 (|e_bar| + |f_bar|): the reference code uses the
        // first edge twice (a bug in MAT-DiSMech's reference code; eq. 14 uses both), which matters on non-uniform meshes.
        s.voronoi_length = 0.5 * (rest_length[k] + rest_length[k + 1]);
        s.bend_stiffness1 = EI1;
        s.bend_stiffness2 = EI2;
        s.twist_stiffness = GJ;
        BendTwistConfiguration c;
        c.x_prev = x[k];
        c.x_center = x[k + 1];
        c.x_next = x[k + 2];
        c.a1_e = director_[k];
        c.a2_e = tangent_[k].cross(director_[k]);
        c.a1_f = director_[k + 1];
        c.a2_f = tangent_[k + 1].cross(director_[k + 1]);
        c.reference_twist = reference_twist_[k];
        const BendTwistKinematics kin = bend_twist_kinematics(c);
        s.rest_kappa1 = kin.kappa1;
        s.rest_kappa2 = kin.kappa2;
        s.rest_twist = kin.twist;
    }
    initial_rest_twist_.resize(E - 1);
    for (std::size_t k = 0; k + 1 < E; ++k) initial_rest_twist_[k] = bend_twist_[k].rest_twist;

    // Bending directions of the natural_curvature components (theta = 0: m = a).
    bend_directions_.resize(E - 1);
    for (std::size_t k = 0; k + 1 < E; ++k) {
        const Vec3 t = (tangent_[k] + tangent_[k + 1]).normalized();
        const Vec3 m1 = 0.5 * (director_[k] + director_[k + 1]);
        const Vec3 m2 = 0.5 * (tangent_[k].cross(director_[k]) + tangent_[k + 1].cross(director_[k + 1]));
        bend_directions_[k] = {m2.cross(t), t.cross(m1)};
    }
}

void DiscreteRod::initial_state(VectorX& q, VectorX& v) const {
    q.setZero(dof_count());
    v.setZero(dof_count());
    for (Index i = 0; i < node_count_; ++i) {
        q.segment<3>(3 * i) = initial_positions_[static_cast<std::size_t>(i)];
        v.segment<3>(3 * i) = initial_velocity_;
    }
}

std::vector<DofGroup> DiscreteRod::dof_groups() const {
    return {DofGroup{"nodes", 3, node_count_, {"x", "y", "z"}},
            DofGroup{"edges", 1, edge_count_, {"twist"}}};
}

Index DiscreteRod::group_dof(const std::string& group, Index item, int component) const {
    if (group == "nodes") {
        if (item < 0 || item >= node_count_ || component < 0 || component > 2)
            throw std::out_of_range("discrete_rod: no node " + std::to_string(item) + " component " + std::to_string(component));
        return 3 * item + component;
    }
    if (group == "edges") {
        if (item < 0 || item >= edge_count_ || component != 0)
            throw std::out_of_range("discrete_rod: no edge " + std::to_string(item) + " component " + std::to_string(component));
        return twist_dof(item);
    }
    throw std::out_of_range("discrete_rod: no DOF group '" + group + "' (groups: nodes, edges)");
}

HeldDofs DiscreteRod::held_dofs() const {
    HeldDofs held;
    if (!planar_axis_) return held;
    held.key = "planar";
    for (Index i = 0; i < node_count_; ++i) held.local.push_back(3 * i + *planar_axis_);
    for (Index e = 0; e < edge_count_; ++e) held.local.push_back(twist_dof(e));
    return held;
}

std::vector<Index> DiscreteRod::item_nodes(const std::string& group, Index item) const {
    if (group != "edges") return {};
    if (item < 0 || item >= edge_count_) throw std::out_of_range("discrete_rod: no edge " + std::to_string(item));
    return {item, item + 1};
}

std::string DiscreteRod::describe_dof(Index local) const {
    static const char* axes[] = {"x", "y", "z"};
    if (local >= 0 && local < 3 * node_count_)
        return "node " + std::to_string(local / 3) + " " + axes[local % 3];
    if (local >= 3 * node_count_ && local < dof_count())
        return "edge " + std::to_string(local - 3 * node_count_) + " twist";
    return "invalid local DOF " + std::to_string(local);
}

void DiscreteRod::on_bind() {
    if (static_cast<Index>(global_dofs().size()) != dof_count())
        throw std::logic_error("discrete_rod: bind() got " + std::to_string(global_dofs().size()) +
                               " DOFs, expected " + std::to_string(dof_count()));
    const auto N = static_cast<std::size_t>(node_count_);
    const auto E = static_cast<std::size_t>(edge_count_);
    node_dofs_.resize(N);
    for (Index i = 0; i < node_count_; ++i)
        node_dofs_[static_cast<std::size_t>(i)] = {global_dof(3 * i), global_dof(3 * i + 1), global_dof(3 * i + 2)};
    edge_dof_.resize(E);
    for (Index e = 0; e < edge_count_; ++e) edge_dof_[static_cast<std::size_t>(e)] = global_dof(twist_dof(e));

    geometry_ = Geometry{};
    geometry_.point_dofs = node_dofs_;
    geometry_.point_mass = node_mass_;
    geometry_.point_length = voronoi_length_;
    geometry_.edges.resize(E);
    for (Index e = 0; e < edge_count_; ++e) geometry_.edges[static_cast<std::size_t>(e)] = {e, e + 1};
    geometry_.point_radius.assign(N, section_.contact_radius);
    geometry_.density = material_.density;
}

void DiscreteRod::declare_pattern(PatternBuilder& pattern) {
    const auto N = static_cast<std::size_t>(node_count_);
    const auto E = static_cast<std::size_t>(edge_count_);
    stretch_stencil_.resize(E);
    for (std::size_t e = 0; e < E; ++e) {
        const auto& a = node_dofs_[e];
        const auto& b = node_dofs_[e + 1];
        const std::array<Index, 6> dofs{a[0], a[1], a[2], b[0], b[1], b[2]};
        stretch_stencil_[e] = pattern.add_stencil(dofs);
    }
    bend_twist_stencil_.resize(E - 1);
    for (std::size_t k = 0; k + 1 < E; ++k) {
        const auto& p = node_dofs_[k];
        const auto& c = node_dofs_[k + 1];
        const auto& n = node_dofs_[k + 2];
        const std::array<Index, 11> dofs{p[0], p[1], p[2], c[0], c[1], c[2], n[0], n[1], n[2],
                                         edge_dof_[k], edge_dof_[k + 1]};
        bend_twist_stencil_[k] = pattern.add_stencil(dofs);
    }
    node_mass_stencil_.resize(N);
    for (std::size_t i = 0; i < N; ++i) node_mass_stencil_[i] = pattern.add_stencil(node_dofs_[i]);
    edge_mass_stencil_.resize(E);
    for (std::size_t e = 0; e < E; ++e)
        edge_mass_stencil_[e] = pattern.add_stencil(std::span<const Index>(&edge_dof_[e], 1));
}

double DiscreteRod::evaluate(const VectorX& q, Assembly* assembly, double c_q) const {
    const EnergyEvaluation evaluation(assembly, c_q);
    double energy = 0.0;

    // One sweep along the rod. Each edge's tangent, length and frames are computed once and
    // kept for the bend-twist spring at the node after it (no buffers, no allocation). Without
    // a Jacobian to assemble (energy, or a Newton trial point) no Hessian is computed.
    Vec3 x_a = node_position(q, 0);
    EdgeKinematics prev;
    Vec3 a1_prev = Vec3::Zero();
    double theta_prev = 0.0;
    for (Index e = 0; e < edge_count_; ++e) {
        const auto ue = static_cast<std::size_t>(e);
        const Vec3 x_b = node_position(q, e + 1);
        EdgeKinematics edge;
        const Vec3 edge_vector = x_b - x_a;
        edge.length = edge_vector.norm();
        edge.tangent = edge_vector / edge.length;
        // Time-parallel transport from the committed tangent (MAT-DiSMech §3.2).
        const Vec3 a1 = time_parallel_transport(director_[ue], tangent_[ue], edge.tangent);
        const Vec3 a2 = edge.tangent.cross(a1);
        const double theta = q[edge_dof_[ue]];
        material_frame(a1, a2, theta, edge.m1, edge.m2);

        const StretchingSpring& stretching = stretching_[ue];
        energy += add_energy_term<6>(
            evaluation, stretch_stencil_[ue], [&] { return stretching_energy(stretching, x_a, x_b); },
            [&](VecN<6>& g) { return stretching_energy_gradient(stretching, x_a, x_b, g); },
            [&](VecN<6>& g, MatN<6>& H) { return stretching_energy_gradient_hessian(stretching, x_a, x_b, g, H); });

        if (e > 0) {
            const auto k = ue - 1;
            // Reference twist updated from its committed value (MAT-DiSMech eq. 15; incremental as in its reference code).
            const double m_ref = reference_twist(a1_prev, prev.tangent, a1, edge.tangent, reference_twist_[k]);
            BendTwistKinematics kin = bend_twist_kinematics(prev, edge, theta - theta_prev + m_ref);
            // The frames were transported from the committed tangents: exact derivatives need them.
            kin.s_e = tangent_[k];
            kin.s_f = tangent_[ue];
            const BendTwistSpring& spring = bend_twist_[k];
            energy += add_energy_term<11>(
                evaluation, bend_twist_stencil_[k], [&] { return bend_twist_energy(spring, kin); },
                [&](VecN<11>& g) { return bend_twist_energy_gradient(spring, kin, g); },
                [&](VecN<11>& g, MatN<11>& H) {
                    return symmetric_jacobian_ ? bend_twist_energy_gradient_symmetric_hessian(spring, kin, g, H)
                                               : bend_twist_energy_gradient_hessian(spring, kin, g, H);
                });
        }
        x_a = x_b;
        prev = edge;
        a1_prev = a1;
        theta_prev = theta;
    }
    return energy;
}

void DiscreteRod::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    const JacobianCoefficients& w = context.coefficients;
    evaluate(*context.q, &assembly, w.c_q);
    // Lumped inertia M a and c_a M of the nodes and the edges' twist angles (MAT-DiSMech's
    // diagonal mass matrix, §2).
    add_lumped_inertia(context, assembly, node_mass_stencil_, node_mass_);
    add_lumped_inertia(context, assembly, edge_mass_stencil_, edge_inertia_);
}

double DiscreteRod::potential_energy(const EvalContext& context) const {
    return evaluate(*context.q, nullptr, 0.0);
}

double DiscreteRod::kinetic_energy(const EvalContext& context) const {
    if (context.v == nullptr || context.v->size() == 0) return 0.0;
    const VectorX& v = *context.v;
    double twice = 0.0;
    for (Index i = 0; i < node_count_; ++i)
        twice += node_mass_[static_cast<std::size_t>(i)] * node_position(v, i).squaredNorm();
    for (Index e = 0; e < edge_count_; ++e) {
        const double w = v[edge_dof_[static_cast<std::size_t>(e)]];
        twice += edge_inertia_[static_cast<std::size_t>(e)] * w * w;
    }
    return 0.5 * twice;
}

std::vector<Vec3> DiscreteRod::reference_directors(const VectorX& q) const {
    std::vector<Vec3> a1(static_cast<std::size_t>(edge_count_));
    for (Index e = 0; e < edge_count_; ++e) {
        const auto ue = static_cast<std::size_t>(e);
        const Vec3 t = (node_position(q, e + 1) - node_position(q, e)).normalized();
        a1[ue] = time_parallel_transport(director_[ue], tangent_[ue], t);
    }
    return a1;
}

std::vector<ActuationChannel> DiscreteRod::actuation_channels() const {
    const Index springs = edge_count_ - 1;
    return {
        ActuationChannel{kNaturalCurvature, springs, {"kappa1", "kappa2"}, "1/m",
                         "natural (physical) curvature of bend-twist spring k at node k+1, in the material "
                         "frame (kappa1: bending in the (t, m1) plane); stored as the discrete curvature of a "
                         "circular arc over the Voronoi length dl: kappa_bar = kappa 2 tan(|kappa| dl/2)/|kappa| "
                         "(|kappa| dl < pi). Initial value: the curvature of the initial geometry"},
        ActuationChannel{kNaturalTwist, springs, {"tau"}, "rad/m",
                         "natural twist rate of bend-twist spring k at node k+1 relative to the initial "
                         "(twist-free) material frames: tau_bar = tau_bar_0 + tau dl. Initial value 0"}};
}

std::vector<Vec3> DiscreteRod::actuation_directions(const std::string& channel, Index item) const {
    if (channel != kNaturalCurvature) {
        actuation_spring(channel, item, 0);  // throws for an unknown channel or item
        return {};
    }
    const auto& d = bend_directions_[actuation_spring(channel, item, 0)];
    return {d[0], d[1]};
}

std::size_t DiscreteRod::actuation_spring(const std::string& channel, Index item, int component) const {
    const Index springs = edge_count_ - 1;
    int components = 0;
    if (channel == kNaturalCurvature) components = 2;
    else if (channel == kNaturalTwist) components = 1;
    else
        throw std::out_of_range("discrete_rod: no actuation channel '" + channel +
                                "' (channels: natural_curvature, natural_twist)");
    if (item < 0 || item >= springs || component < 0 || component >= components)
        throw std::out_of_range("discrete_rod: channel '" + channel + "' has no item " + std::to_string(item) +
                                " component " + std::to_string(component) + " (" + std::to_string(springs) +
                                " items, " + std::to_string(components) + " components)");
    return static_cast<std::size_t>(item);
}

double DiscreteRod::actuation(const std::string& channel, Index item, int component) const {
    const std::size_t k = actuation_spring(channel, item, component);
    const BendTwistSpring& s = bend_twist_[k];
    if (channel == kNaturalTwist) return (s.rest_twist - initial_rest_twist_[k]) / s.voronoi_length;
    // kappa_i = kappa_bar_i 2 atan(|kappa_bar|/2) / (|kappa_bar| dl)   (inverse of the arc map)
    const double magnitude = std::hypot(s.rest_kappa1, s.rest_kappa2);
    const double kappa_bar = component == 0 ? s.rest_kappa1 : s.rest_kappa2;
    return kappa_bar * arc_atan_ratio(magnitude) / s.voronoi_length;
}

void DiscreteRod::set_actuation(const std::string& channel, Index item, int component, double value) {
    const std::size_t k = actuation_spring(channel, item, component);
    BendTwistSpring& s = bend_twist_[k];
    if (!std::isfinite(value))
        throw std::domain_error("discrete_rod: channel '" + channel + "' item " + std::to_string(item) +
                                ": value is not finite");
    if (channel == kNaturalTwist) {
        s.rest_twist = initial_rest_twist_[k] + value * s.voronoi_length;
        return;
    }
    // The other component keeps its physical value; both discrete values change with |kappa|.
    double kappa[2] = {actuation(channel, item, 0), actuation(channel, item, 1)};
    kappa[component] = value;
    const double turning = std::hypot(kappa[0], kappa[1]) * s.voronoi_length;
    if (!(turning < std::numbers::pi))
        throw std::domain_error("discrete_rod: natural curvature of spring " + std::to_string(item) + " (|kappa| = " +
                                std::to_string(turning / s.voronoi_length) + " 1/m) turns the rod by " +
                                std::to_string(turning) + " rad over dl = " + std::to_string(s.voronoi_length) +
                                " m: the turning angle must stay below pi");
    const double scale = s.voronoi_length * arc_tan_ratio(turning);
    s.rest_kappa1 = kappa[0] * scale;
    s.rest_kappa2 = kappa[1] * scale;
}

Vec3 DiscreteRod::actuation_point(const std::string& channel, Index item) const {
    return initial_positions_[actuation_spring(channel, item, 0) + 1];
}

void DiscreteRod::commit_step(const State& end) {
    // New tangents and directors first, then the reference twists from the new directors
    // (MAT-DiSMech §3.2 time-parallel update, incremental reference twist of eq. 15).
    const auto E = static_cast<std::size_t>(edge_count_);
    for (std::size_t e = 0; e < E; ++e) {
        const Vec3 t = (node_position(end.q, static_cast<Index>(e) + 1) - node_position(end.q, static_cast<Index>(e))).normalized();
        director_[e] = time_parallel_transport(director_[e], tangent_[e], t);
        tangent_[e] = t;
    }
    for (std::size_t k = 0; k + 1 < E; ++k)
        reference_twist_[k] = reference_twist(director_[k], tangent_[k], director_[k + 1], tangent_[k + 1], reference_twist_[k]);
}

void DiscreteRod::save_checkpoint(CheckpointWriter& out) const {
    out.vec3s("tangents", tangent_);
    out.vec3s("reference_directors", director_);
    out.reals("reference_twists", reference_twist_);
}

void DiscreteRod::restore_checkpoint(CheckpointReader& in) {
    in.vec3s("tangents", tangent_);
    in.vec3s("reference_directors", director_);
    in.reals("reference_twists", reference_twist_);
}

}  // namespace soma::rod
