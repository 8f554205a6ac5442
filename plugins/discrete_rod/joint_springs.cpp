// Joint bend-twist springs: MAT-DiSMech §3.2 (frames; bending and twisting, eq. 11-16; the
// orientation rule of rod networks, Fig. 2(g)), §3.4 (rod-shell joints).
#include "joint_springs.hpp"

#include "discrete_rod.hpp"
#include "rod_frames.hpp"

#include "soma/energy_term.hpp"

#include <Eigen/Geometry>

#include <stdexcept>

namespace soma::rod {
namespace {

Vec3 position(const VectorX& q, const std::array<Index, 3>& d) { return Vec3(q[d[0]], q[d[1]], q[d[2]]); }

// Same fold-back guard as the rod (discrete_rod.cpp): kb = 2 t_e x t_f / (1 + t_e.t_f).
constexpr double kMinChi = 1e-6;

}  // namespace

std::size_t JointSpringSet::add_rod_edge(JointEdge edge) {
    if (edge.rod == nullptr) throw std::logic_error("JointSpringSet::add_rod_edge: the edge has no rod");
    edges_.push_back(std::move(edge));
    owned_director_.push_back(Vec3::Zero());
    owned_tangent_.push_back(Vec3::Zero());
    return edges_.size() - 1;
}

std::size_t JointSpringSet::add_owned_edge(JointEdge edge, const Vec3& a1, const Vec3& t) {
    edge.rod = nullptr;
    edges_.push_back(std::move(edge));
    owned_director_.push_back(a1);
    owned_tangent_.push_back(t);
    return edges_.size() - 1;
}

void JointSpringSet::add_spring(std::size_t i, std::size_t j, const std::array<Index, 3>& center,
                                double bend_stiffness1, double bend_stiffness2, double twist_stiffness) {
    const JointEdge& e = edges_.at(i);
    const JointEdge& f = edges_.at(j);
    JointSpring s;
    s.edge_e = i;
    s.edge_f = j;
    // MAT-DiSMech §3.2 (Fig. 2(g)): e must point into the center, f out of it; a reversed edge gets sign -1.
    std::array<Index, 3> prev{}, next{};
    if (e.node_b == center) s.sign_e = 1.0, prev = e.node_a;
    else if (e.node_a == center) s.sign_e = -1.0, prev = e.node_b;
    else throw std::invalid_argument("joint spring: " + e.label + " does not touch the joint node");
    if (f.node_a == center) s.sign_f = 1.0, next = f.node_b;
    else if (f.node_b == center) s.sign_f = -1.0, next = f.node_a;
    else throw std::invalid_argument("joint spring: " + f.label + " does not touch the joint node");
    s.dofs = {prev[0], prev[1], prev[2], center[0], center[1], center[2], next[0], next[1], next[2],
              e.twist_dof, f.twist_dof};
    // Voronoi length from both edges (MAT-DiSMech after eq. 14, without the reference code's e1 + e1 slip).
    s.spring.voronoi_length = 0.5 * (e.rest_length + f.rest_length);
    s.spring.bend_stiffness1 = bend_stiffness1;
    s.spring.bend_stiffness2 = bend_stiffness2;
    s.spring.twist_stiffness = twist_stiffness;
    springs_.push_back(s);
}

JointSpringSet::EdgeFrame JointSpringSet::edge_frame(const VectorX& q, std::size_t i) const {
    const JointEdge& edge = edges_[i];
    EdgeFrame frame;
    const Vec3 d = position(q, edge.node_b) - position(q, edge.node_a);
    frame.length = d.norm();
    frame.tangent = d / frame.length;
    const auto k = static_cast<std::size_t>(edge.rod_edge);
    const Vec3& a1_committed = edge.rod ? edge.rod->committed_reference_director()[k] : owned_director_[i];
    const Vec3& t_committed = edge.rod ? edge.rod->committed_tangent()[k] : owned_tangent_[i];
    // Time-parallel transport from the committed frame (MAT-DiSMech §3.2), as the rod itself does.
    frame.a1 = time_parallel_transport(a1_committed, t_committed, frame.tangent);
    frame.theta = q[edge.twist_dof];
    frame.source_tangent = t_committed;
    return frame;
}

EdgeKinematics JointSpringSet::oriented(const EdgeFrame& frame, double sign) const {
    // MAT-DiSMech's reference code: t -> sign t, a1 kept, a2 = t x a1 (-> sign a2), theta -> sign theta.
    EdgeKinematics k;
    k.tangent = sign * frame.tangent;
    k.length = frame.length;
    const Vec3 a2 = k.tangent.cross(frame.a1);
    material_frame(frame.a1, a2, sign * frame.theta, k.m1, k.m2);
    return k;
}

double JointSpringSet::spring_energy(const JointSpring& s, const VectorX& q, VecN<11>* gradient,
                                     MatN<11>* hessian, bool symmetric) const {
    const EdgeFrame fe = edge_frame(q, s.edge_e);
    const EdgeFrame ff = edge_frame(q, s.edge_f);
    const EdgeKinematics ke = oriented(fe, s.sign_e);
    const EdgeKinematics kf = oriented(ff, s.sign_f);
    // Reference twist in the spring's orientation, updated from its committed value (MAT-DiSMech eq. 15).
    const double m_ref = reference_twist(fe.a1, ke.tangent, ff.a1, kf.tangent, s.reference_twist);
    const double twist = s.sign_f * ff.theta - s.sign_e * fe.theta + m_ref;
    BendTwistKinematics kin = bend_twist_kinematics(ke, kf, twist);
    // Exact derivatives need the tangents the frames were transported from (bend_twist_spring.hpp),
    // in the spring's orientation.
    kin.s_e = s.sign_e * fe.source_tangent;
    kin.s_f = s.sign_f * ff.source_tangent;
    if (gradient == nullptr) return bend_twist_energy(s.spring, kin);
    double energy = 0.0;
    if (hessian == nullptr) {
        energy = bend_twist_energy_gradient(s.spring, kin, *gradient);
    } else {
        energy = symmetric ? bend_twist_energy_gradient_symmetric_hessian(s.spring, kin, *gradient, *hessian)
                           : bend_twist_energy_gradient_hessian(s.spring, kin, *gradient, *hessian);
        // theta_spring = sign theta_edge: scale the theta rows and columns (MAT-DiSMech §3.2, Fig. 2(g)).
        hessian->row(9) *= s.sign_e;
        hessian->col(9) *= s.sign_e;
        hessian->row(10) *= s.sign_f;
        hessian->col(10) *= s.sign_f;
    }
    (*gradient)[9] *= s.sign_e;
    (*gradient)[10] *= s.sign_f;
    return energy;
}

void JointSpringSet::set_rest_state(const VectorX& q) {
    for (JointSpring& s : springs_) {
        const EdgeFrame fe = edge_frame(q, s.edge_e);
        const EdgeFrame ff = edge_frame(q, s.edge_f);
        const EdgeKinematics ke = oriented(fe, s.sign_e);
        const EdgeKinematics kf = oriented(ff, s.sign_f);
        if (1.0 + ke.tangent.dot(kf.tangent) < kMinChi)
            throw std::invalid_argument("joint spring between " + edges_[s.edge_e].label + " and " +
                                        edges_[s.edge_f].label +
                                        ": the edges fold back onto each other (turning angle 180 degrees)");
        s.reference_twist = reference_twist(fe.a1, ke.tangent, ff.a1, kf.tangent, 0.0);
        const BendTwistKinematics kin =
            bend_twist_kinematics(ke, kf, s.sign_f * ff.theta - s.sign_e * fe.theta + s.reference_twist);
        // Natural curvature and twist of the initial geometry (MAT-DiSMech's reference code, "setkappa").
        s.spring.rest_kappa1 = kin.kappa1;
        s.spring.rest_kappa2 = kin.kappa2;
        s.spring.rest_twist = kin.twist;
    }
}

void JointSpringSet::declare_pattern(PatternBuilder& pattern) {
    for (JointSpring& s : springs_) s.stencil = pattern.add_stencil(s.dofs);
}

double JointSpringSet::evaluate(const VectorX& q, Assembly* assembly, double c_q, bool symmetric) const {
    const EnergyEvaluation evaluation(assembly, c_q);
    double energy = 0.0;
    for (const JointSpring& s : springs_)
        energy += add_energy_term<11>(
            evaluation, s.stencil, [&] { return spring_energy(s, q, nullptr, nullptr, symmetric); },
            [&](VecN<11>& g) { return spring_energy(s, q, &g, nullptr, symmetric); },
            [&](VecN<11>& g, MatN<11>& H) { return spring_energy(s, q, &g, &H, symmetric); });
    return energy;
}

void JointSpringSet::commit(const VectorX& q) {
    // Joint-owned frames first (time-parallel update, MAT-DiSMech §3.2), then the reference twists
    // from the end-state frames (MAT-DiSMech eq. 15).
    for (std::size_t i = 0; i < edges_.size(); ++i) {
        if (edges_[i].rod != nullptr) continue;
        const EdgeFrame frame = edge_frame(q, i);
        owned_director_[i] = frame.a1;
        owned_tangent_[i] = frame.tangent;
    }
    for (JointSpring& s : springs_) {
        const EdgeFrame fe = edge_frame(q, s.edge_e);
        const EdgeFrame ff = edge_frame(q, s.edge_f);
        s.reference_twist = reference_twist(fe.a1, s.sign_e * fe.tangent, ff.a1, s.sign_f * ff.tangent,
                                            s.reference_twist);
    }
}

void JointSpringSet::save_checkpoint(CheckpointWriter& out) const {
    out.vec3s("owned_directors", owned_director_);
    out.vec3s("owned_tangents", owned_tangent_);
    std::vector<double> twists;
    twists.reserve(springs_.size());
    for (const JointSpring& s : springs_) twists.push_back(s.reference_twist);
    out.reals("reference_twists", twists);
}

void JointSpringSet::restore_checkpoint(CheckpointReader& in) {
    in.vec3s("owned_directors", owned_director_);
    in.vec3s("owned_tangents", owned_tangent_);
    std::vector<double> twists(springs_.size());
    in.reals("reference_twists", twists);
    for (std::size_t i = 0; i < springs_.size(); ++i) springs_[i].reference_twist = twists[i];
}

}  // namespace soma::rod
