// Clamp between a rigid body's frame and a rod's end frame, and between a rod end and the world:
// C, G_q and the curvature against central finite differences, G_f against differences along a
// velocity, the value of the rotation rows, and the located errors.
#include "../clamp.hpp"
#include "../../discrete_rod/discrete_rod.hpp"
#include "../../rigid_body/rigid_body.hpp"

#include "soma/scene_view.hpp"
#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <numeric>

using namespace soma;
using soma::testing::finite_difference_jacobian;
using soma::testing::max_relative_error;

namespace {

constexpr Index kRodNodes = 5;
constexpr Index kRodDofs = 3 * kRodNodes + kRodNodes - 1;  // 19
constexpr Index kDofs = 6 + kRodDofs;                      // body, then rod
const Vec3 kOrigin(0.1, 0.2, 0.3);

rigid_body::RigidBodyDescription body_description() {
    rigid_body::RigidBodyDescription d;
    d.position = kOrigin;
    d.orientation = Quaternion(0.8, 0.3, -0.2, 0.4).normalized();
    d.mass.mass = 1.0;
    d.mass.inertia = Vec3(0.1, 0.2, 0.25).asDiagonal();
    return d;
}

rod::RodDescription rod_description() {
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
struct BodyAndRod final : SceneView {
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

ParameterSchema end_schema(const std::string& name) {
    ParameterSchema s(name, "");
    s.string("element", "");
    s.string("frame", "");
    s.vec3("world", "");
    return s;
}

Parameters clamp_parameters(const std::string& yaml) {
    ParameterSchema schema("clamp", "");
    schema.map("first", "", end_schema("first"));
    schema.map("second", "", end_schema("second"));
    ParameterSchema offset("rotation_offset", "");
    offset.vec3("axis", "");
    offset.real("angle_deg", "");
    schema.map("rotation_offset", "", offset);
    return soma::testing::parameters_from_yaml(TypeKind::constraint, schema, yaml);
}

ConstraintEvaluation sized(const Constraint& c) {
    ConstraintEvaluation e;
    const auto k = static_cast<Index>(c.dofs().size());
    e.value = VectorX::Zero(c.row_count());
    e.force_jacobian = Eigen::MatrixXd::Zero(c.row_count(), k);
    e.position_jacobian = e.force_jacobian;
    e.curvature = Eigen::MatrixXd::Zero(k, k);
    return e;
}

/// The constraint's columns scattered over the scene's DOFs (kDofs columns).
Eigen::MatrixXd columns_over_dofs(const Constraint& c, const Eigen::MatrixXd& m) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(m.rows(), kDofs);
    for (std::size_t j = 0; j < c.dofs().size(); ++j) out.col(c.dofs()[j]) = m.col(static_cast<Index>(j));
    return out;
}
Eigen::MatrixXd square_over_dofs(const Constraint& c, const Eigen::MatrixXd& m) {
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(kDofs, kDofs);
    for (std::size_t i = 0; i < c.dofs().size(); ++i)
        for (std::size_t j = 0; j < c.dofs().size(); ++j)
            out(c.dofs()[i], c.dofs()[j]) = m(static_cast<Index>(i), static_cast<Index>(j));
    return out;
}

/// Moves the scene into the middle of a step: the rod committed at a bent, twisted state and
/// moved on from it (the transport's spin matters), the body at a finite rotation displacement.
VectorX mid_step(BodyAndRod& scene) {
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

/// C, G_q, the curvature and G_f of \p clamp against finite differences at the scene's iterate.
void check_derivatives(joints::Clamp& clamp, BodyAndRod& scene, const VectorX& dofs) {
    const double lambda[6] = {0.7, -1.3, 2.1, 0.4, -0.9, 0.6};
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
        return VectorX(columns_over_dofs(clamp, pe.force_jacobian).transpose() * Eigen::Map<const VecN<6>>(lambda));
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

}  // namespace

TEST_CASE("clamp: a rod's start clamped into a rigid body; derivatives against finite differences", "[joints][clamp]") {
    BodyAndRod scene;
    joints::ClampSettings settings;
    settings.first.element = "rod";
    settings.first.frame = "start";
    settings.second.element = "body";
    joints::Clamp clamp(settings, clamp_parameters("{first: {element: rod, frame: start}, second: {element: body}}"));
    clamp.bind(scene);
    REQUIRE(clamp.dofs().size() == 6 + 7);
    ConstraintEvaluation e = sized(clamp);
    const double lambda[6] = {0, 0, 0, 0, 0, 0};
    EvalContext context;
    context.q = &scene.s.q;
    clamp.evaluate(context, lambda, e);
    CHECK(e.value.norm() < 1e-15);  // held as built: the default offset is the initial relative rotation
    const VectorX dofs = mid_step(scene);
    check_derivatives(clamp, scene, dofs);
}

TEST_CASE("clamp: a rod's end clamped to the world; the rotation rows are sin(angle) times the axis", "[joints][clamp]") {
    BodyAndRod scene;
    const Vec3 tip = scene.s.q.segment<3>(6 + 3 * (kRodNodes - 1));
    joints::ClampSettings settings;
    settings.first.element = "rod";
    settings.first.frame = "end";
    settings.second.world = tip;
    joints::Clamp clamp(settings, clamp_parameters("{first: {element: rod, frame: end}, second: {world: [0, 0, 0]}}"));
    clamp.bind(scene);
    REQUIRE(clamp.dofs().size() == 7);
    const VectorX dofs = mid_step(scene);
    check_derivatives(clamp, scene, dofs);

    // A compliant clamp holding the end turned by phi about n from its initial orientation R_1:
    // with R_2 = I, Q = R_1 R_o^T, so R_o = exp(-phi [n]) R_1 gives Q = exp(phi [n]) and
    // C_r = 1/2 vee(Q - Q^T) = sin(phi) n.
    BodyAndRod fresh;
    EvalContext context;
    context.q = &fresh.s.q;
    FrameKinematics k;
    fresh.rod.frame_kinematics(1, context, k);
    const double phi = 0.7;
    const Vec3 n = Vec3(0.3, -0.5, 0.8).normalized();
    settings.rotation_offset = Eigen::AngleAxisd(-phi, n).toRotationMatrix() * k.rotation;
    settings.rotational_compliance = 1e-3;
    joints::Clamp preloaded(settings, clamp_parameters("{first: {element: rod, frame: end}, second: {world: [0, 0, 0]}}"));
    preloaded.bind(fresh);
    ConstraintEvaluation e = sized(preloaded);
    const double lambda[6] = {0, 0, 0, 0, 0, 0};
    preloaded.evaluate(context, lambda, e);
    CHECK((e.value.tail<3>() - std::sin(phi) * n).norm() < 1e-14);
    CHECK(e.value.head<3>().norm() < 1e-15);

    // The same offset on a hard clamp does not hold as built: refused.
    settings.rotational_compliance = 0.0;
    joints::Clamp hard(settings, clamp_parameters("{first: {element: rod, frame: end}, second: {world: [0, 0, 0]}, "
                                                  "rotation_offset: {axis: [1, 0, 0], angle_deg: 40}}"));
    CHECK_THROWS_WITH(hard.bind(fresh), Catch::Contains("rotation_offset") && Catch::Contains("0.7 rad"));
}

TEST_CASE("clamp: located errors", "[joints][clamp]") {
    BodyAndRod scene;
    joints::ClampSettings settings;
    settings.first.element = "rod";
    settings.first.frame = "middle";
    settings.second.element = "body";
    joints::Clamp unknown_frame(settings, clamp_parameters("{first: {element: rod, frame: middle}, second: {element: body}}"));
    CHECK_THROWS_WITH(unknown_frame.bind(scene), Catch::Contains("first.frame") && Catch::Contains("no frame 'middle'") &&
                                                     Catch::Contains("start, end"));
    settings.first.frame = "end";  // the rod's end is 0.2 m from the body's origin
    joints::Clamp apart(settings, clamp_parameters("{first: {element: rod, frame: end}, second: {element: body}}"));
    CHECK_THROWS_WITH(apart.bind(scene), Catch::Contains("second") && Catch::Contains("0.2 m apart"));
    settings.first.element = "wing";
    joints::Clamp missing(settings, clamp_parameters("{first: {element: wing}, second: {element: body}}"));
    CHECK_THROWS_WITH(missing.bind(scene), Catch::Contains("first.element") && Catch::Contains("no element named 'wing'"));
    // No frame named: the element's first (the rod's start, here at the body's origin).
    settings.first.element = "rod";
    settings.first.frame.reset();
    joints::Clamp first_frame(settings, clamp_parameters("{first: {element: rod}, second: {element: body}}"));
    CHECK_NOTHROW(first_frame.bind(scene));
}
