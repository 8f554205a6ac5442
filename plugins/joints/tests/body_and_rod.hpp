#pragma once
/// \file body_and_rod.hpp
/// \brief The joints' test scene: a rigid body (DOFs 0-5, its quaternion after the DOFs) and a
/// 5-node rod (DOFs 6-24) starting at the body's origin, moved into the middle of a step, and a
/// finite-difference check of a constraint's C, G_q, curvature and G_f there.
#include "../../discrete_rod/discrete_rod.hpp"
#include "../../rigid_body/rigid_body.hpp"
#include "../frame_joint.hpp"

#include "soma/constraint.hpp"
#include "soma/contributor.hpp"
#include "soma/rotation.hpp"
#include "soma/scene_view.hpp"
#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <numeric>

namespace soma::joints::testing {

using soma::testing::finite_difference_jacobian;
using soma::testing::max_relative_error;

constexpr Index kRodNodes = 5;
constexpr Index kRodDofs = 3 * kRodNodes + kRodNodes - 1;  // 19
constexpr Index kDofs = 6 + kRodDofs;                      // body, then rod
inline const Vec3 kOrigin(0.1, 0.2, 0.3);

inline rigid_body::RigidBodyDescription body_description() {
    rigid_body::RigidBodyDescription d;
    d.position = kOrigin;
    d.orientation = Quaternion(0.8, 0.3, -0.2, 0.4).normalized();
    d.mass.mass = 1.0;
    d.mass.inertia = Vec3(0.1, 0.2, 0.25).asDiagonal();
    return d;
}

inline rod::RodDescription rod_description() {
    rod::RodDescription d;
    const Vec3 direction = Vec3(0.6, -0.3, 0.74).normalized();
    for (Index i = 0; i < kRodNodes; ++i) d.positions.push_back(kOrigin + 0.05 * static_cast<double>(i) * direction);
    d.section = rod::circular_cross_section(0.01);
    d.material.density = 1000.0;
    d.material.youngs_modulus = 1e6;
    d.material.poisson_ratio = 0.5;
    return d;
}

/// A body (DOFs 0-5, quaternion after the DOFs) and a rod (DOFs 6-24) whose start is at the body's origin.
struct BodyAndRod : SceneView {
    rigid_body::RigidBody body{body_description()};
    rod::DiscreteRod rod{rod_description()};
    std::vector<Element*> list{&body, &rod};
    std::vector<Contributor*> none;
    State s;
    State committed;  ///< the rod's committed state (mid_step)
    Quaternion start = Quaternion(0.8, 0.3, -0.2, 0.4).normalized();
    BodyAndRod() {
        body.set_name("body");
        rod.set_name("rod");
        body.bind({0, 1, 2, 3, 4, 5}, {kDofs});
        std::vector<Index> rod_dofs(kRodDofs);
        std::iota(rod_dofs.begin(), rod_dofs.end(), 6);
        rod.bind(rod_dofs);
        s.q = VectorX::Zero(kDofs + 4);
        s.v = VectorX::Zero(kDofs);
        s.a = VectorX::Zero(kDofs);
        VectorX q_rod, v_rod;
        rod.initial_state(q_rod, v_rod);
        VectorX dofs(kDofs);
        dofs << kOrigin, Vec3::Zero(), q_rod;
        set_dofs(dofs);
    }
    /// DOF entries, and the quaternion start (+) d as the kernel forms an iterate.
    void set_dofs(const VectorX& dofs) {
        s.q.head(kDofs) = dofs;
        const double c[4] = {start.w(), start.x(), start.y(), start.z()};
        body.integrate_block(0, c, dofs.data() + 3, s.q.data() + kDofs);
    }
    const std::vector<Element*>& elements() const override { return list; }
    Element* find_element(const std::string& name) const override {
        for (Element* e : list)
            if (e->name() == name) return e;
        return nullptr;
    }
    const std::vector<Contributor*>& contributors() const override { return none; }
    const State& state() const override { return s; }
    double kinetic_energy() const override { return 0.0; }
    double potential_energy() const override { return 0.0; }
    double potential_energy(const Contributor&) const override { return 0.0; }
};

inline ConstraintEvaluation sized(const Constraint& c) {
    ConstraintEvaluation e;
    const auto k = static_cast<Index>(c.dofs().size());
    e.value = VectorX::Zero(c.row_count());
    e.force_jacobian = Eigen::MatrixXd::Zero(c.row_count(), k);
    e.position_jacobian = e.force_jacobian;
    e.curvature = Eigen::MatrixXd::Zero(k, k);
    return e;
}

/// The constraint's columns scattered over the scene's DOFs (kDofs columns).
inline Eigen::MatrixXd columns_over_dofs(const Constraint& c, const Eigen::MatrixXd& m) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m.rows(), kDofs);
    for (std::size_t j = 0; j < c.dofs().size(); ++j) out.col(c.dofs()[j]) = m.col(static_cast<Index>(j));
    return out;
}
inline Eigen::MatrixXd square_over_dofs(const Constraint& c, const Eigen::MatrixXd& m) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(kDofs, kDofs);
    for (std::size_t i = 0; i < c.dofs().size(); ++i)
        for (std::size_t j = 0; j < c.dofs().size(); ++j)
            out(c.dofs()[i], c.dofs()[j]) = m(static_cast<Index>(i), static_cast<Index>(j));
    return out;
}

/// Moves the scene into the middle of a step: the rod committed at a bent, twisted state and
/// moved on from it (the transport's spin matters), the body at a finite rotation displacement.
inline VectorX mid_step(BodyAndRod& scene) {
    VectorX dofs = scene.s.q.head(kDofs);
    for (Index i = 0; i < kRodDofs; ++i) dofs[6 + i] += 0.004 * std::sin(1.7 * static_cast<double>(i) + 0.3);
    for (Index e = 0; e < kRodNodes - 1; ++e) dofs[6 + 3 * kRodNodes + e] = 0.2 * static_cast<double>(e) - 0.1;
    scene.set_dofs(dofs);
    scene.committed = scene.s;
    scene.rod.commit_step(scene.committed);
    for (Index i = 0; i < kRodDofs; ++i) dofs[6 + i] += 0.003 * std::cos(2.3 * static_cast<double>(i));
    dofs.segment<3>(3) = Vec3(0.2, -0.3, 0.25);
    dofs.head<3>() += Vec3(0.01, 0.02, -0.03);
    scene.set_dofs(dofs);
    return dofs;
}

/// C, G_q, the curvature and G_f of \p clamp against finite differences at the scene's iterate,
/// with the multipliers 0.7, -1.3, 2.1, 0.4, -0.9, 0.6, 0.8 (the first row_count()).
inline void check_derivatives(const Constraint& clamp, BodyAndRod& scene, const VectorX& dofs) {
    const double multipliers[7] = {0.7, -1.3, 2.1, 0.4, -0.9, 0.6, 0.8};
    const double* lambda = multipliers;
    const Eigen::Map<const VectorX> lambda_vector(lambda, clamp.row_count());
    ConstraintEvaluation e = sized(clamp);
    EvalContext context;
    context.q = &scene.s.q;
    clamp.evaluate(context, lambda, e);
    BodyAndRod probe;
    probe.rod.commit_step(scene.committed);  // same committed frames as the scene's rod
    const auto evaluation_at = [&](const VectorX& x) {
        probe.set_dofs(x);
        EvalContext c;
        c.q = &probe.s.q;
        ConstraintEvaluation pe = sized(clamp);
        clamp.evaluate(c, lambda, pe);
        return pe;
    };
    // Step 1e-6 on O(0.1-1) coordinates: truncation ~1e-12, round-off ~1e-10 relative; the maps'
    // second derivatives scale with 1/|edge|^2 = 400, so 1e-6 relative leaves margin.
    const auto value_of = [&](const VectorX& x) { return VectorX(evaluation_at(x).value); };
    CHECK(max_relative_error(columns_over_dofs(clamp, e.position_jacobian), finite_difference_jacobian(value_of, dofs, 1e-6)) <
          1e-6);
    const auto generalized_of = [&](const VectorX& x) {
        const ConstraintEvaluation pe = evaluation_at(x);
        return VectorX(columns_over_dofs(clamp, pe.force_jacobian).transpose() * lambda_vector);
    };
    CHECK(max_relative_error(square_over_dofs(clamp, e.curvature), finite_difference_jacobian(generalized_of, dofs, 1e-6)) <
          1e-6);
    // G_f v is the rate of C along the motion with velocity v: the body's rotation coordinate
    // moves by Jr(d)^{-1} omega (R = R_start exp([d]), dR/dt = R [omega]).
    VectorX v(kDofs);
    for (Index i = 0; i < kDofs; ++i) v[i] = std::sin(0.9 * static_cast<double>(i) + 0.2);
    VectorX direction = v;
    direction.segment<3>(3) = right_jacobian_inverse(dofs.segment<3>(3)) * v.segment<3>(3);
    const auto along = [&](const VectorX& h) { return value_of(dofs + h[0] * direction); };
    const VectorX rate = finite_difference_jacobian(along, VectorX::Zero(1), 1e-6);
    CHECK((columns_over_dofs(clamp, e.force_jacobian) * v - rate).norm() < 1e-7 * rate.norm());
}

/// \brief dF/dq and dF/dv of the force \p term (its pattern declared on \p dense) at the scene's
/// iterate \p dofs and velocities \p v against central differences (step 1e-6 on O(0.1-1)
/// coordinates: truncation ~1e-12, round-off ~1e-10 relative; 1e-6 and, F being linear in v, 1e-8).
inline void check_force_jacobian(Contributor& term, soma::testing::DenseAssembly& dense, BodyAndRod& scene,
                                 const VectorX& dofs, const VectorX& v, double t = 0.0) {
    EvalContext context;
    context.t = t;
    context.q = &scene.s.q;
    context.v = &v;
    context.coefficients = {1.0, 0.0, 0.0};
    const Eigen::MatrixXd K = dense.evaluate(term, context).second;
    const auto residual_at = [&](const VectorX& x) {
        scene.set_dofs(x);
        VectorX r = dense.evaluate(term, context, false).first;
        scene.set_dofs(dofs);
        return r;
    };
    CHECK(max_relative_error(K, finite_difference_jacobian(residual_at, dofs, 1e-6)) < 1e-6);
    context.coefficients = {0.0, 1.0, 0.0};
    const Eigen::MatrixXd C = dense.evaluate(term, context).second;
    const auto residual_of_v = [&](const VectorX& w) {
        EvalContext at = context;
        at.v = &w;
        return VectorX(dense.evaluate(term, at, false).first);
    };
    CHECK(max_relative_error(C, finite_difference_jacobian(residual_of_v, v, 1e-6)) < 1e-8);
}

/// The fixture with the joints a drive, limit or coupling finds by name (constraint_terms()).
struct SceneWithJoints : BodyAndRod {
    std::vector<const Constraint*> joints;
    std::vector<const Constraint*> constraint_terms() const override { return joints; }
};

/// A frame joint's validated block from \p yaml, for its located errors.
inline Parameters frame_joint_parameters(const std::string& yaml) {
    ParameterSchema end("end", "");
    end.string("element", "");
    end.string("frame", "");
    ParameterSchema schema("joint", "");
    schema.map("first", "", end);
    schema.map("second", "", end);
    schema.vec3("at", "");
    schema.vec3("axis", "");
    schema.vec3("second_axis", "");
    schema.string("coordinate", "");
    return soma::testing::parameters_from_yaml(TypeKind::constraint, schema, yaml);
}

/// A joint of \p type between the rod's start and the body, at a point off both frames' origins.
inline FrameJointSettings rod_to_body(JointType type) {
    FrameJointSettings s;
    s.type = type;
    s.first.element = "rod";
    s.first.frame = "start";
    s.second.element = "body";
    s.at = kOrigin + Vec3(0.03, -0.02, 0.05);
    s.axis = Vec3(0.2, 0.9, -0.4);
    if (type == JointType::universal) s.second_axis = Vec3(0.2, 0.9, -0.4).cross(Vec3(1, 0, 0));
    return s;
}

/// The block of a joint between the rod and the body.
inline const Parameters& rod_body_joint_parameters() {
    static const Parameters p = frame_joint_parameters("{first: {element: rod}, second: {element: body}, at: [0, 0, 0]}");
    return p;
}

}  // namespace soma::joints::testing
