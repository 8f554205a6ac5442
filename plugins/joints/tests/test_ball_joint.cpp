// Ball joint between two rigid bodies (and a body and the world): C, G_q and the curvature
// against central finite differences; G_f against the point velocities; the located errors.
#include "../ball_joint.hpp"
#include "../../rigid_body/rigid_body.hpp"

#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"
#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using soma::testing::finite_difference_jacobian;
using soma::testing::max_relative_error;

namespace {

rigid_body::RigidBodyDescription body(const Vec3& position, const Quaternion& orientation, std::vector<Vec3> markers) {
    rigid_body::RigidBodyDescription d;
    d.position = position;
    d.orientation = orientation;
    d.mass.mass = 1.0;
    d.mass.inertia = Vec3(0.1, 0.2, 0.25).asDiagonal();
    d.markers = std::move(markers);
    return d;
}

/// Two bodies: DOFs 0-5 and 6-11, quaternions at 12 and 16.
struct TwoBodies final : SceneView {
    rigid_body::RigidBody a, b;
    std::vector<Element*> list;
    std::vector<Contributor*> none;
    State s;
    Quaternion qa = Quaternion(0.8, 0.3, -0.2, 0.4).normalized(), qb = Quaternion(0.5, -0.5, 0.6, 0.1).normalized();
    TwoBodies()
        : a(body(Vec3(0.1, 0.2, 0.3), Quaternion(0.8, 0.3, -0.2, 0.4).normalized(), {Vec3(0.3, -0.1, 0.2)})),
          b(body(Vec3::Zero(), Quaternion(0.5, -0.5, 0.6, 0.1).normalized(), {})) {
        a.set_name("a");
        b.set_name("b");
        a.bind({0, 1, 2, 3, 4, 5}, {12});
        b.bind({6, 7, 8, 9, 10, 11}, {16});
        list = {&a, &b};
        s.q = VectorX::Zero(20);
        s.v = VectorX::Zero(12);
        s.a = VectorX::Zero(12);
        set_dofs(VectorX::Zero(12));
        // b's origin at a's marker.
        const Vec3 marker = point_position(a, 2, s.q);
        s.q.segment<3>(6) = marker;
    }
    /// DOF entries and the quaternions start (+) d, as the kernel forms an iterate.
    void set_dofs(const VectorX& dofs) {
        const Vec3 pb = s.q.segment<3>(6);
        s.q.head(12) = dofs;
        if (dofs.segment<3>(6).isZero()) s.q.segment<3>(6) = pb;
        const double ca[4] = {qa.w(), qa.x(), qa.y(), qa.z()}, cb[4] = {qb.w(), qb.x(), qb.y(), qb.z()};
        a.integrate_block(0, ca, dofs.data() + 3, s.q.data() + 12);
        b.integrate_block(0, cb, dofs.data() + 9, s.q.data() + 16);
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
    s.integer("node", "");
    s.vec3("world", "");
    return s;
}

Parameters joint_parameters(const std::string& yaml) {
    ParameterSchema schema("ball_joint", "");
    schema.map("first", "", end_schema("first"));
    schema.map("second", "", end_schema("second"));
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

}  // namespace

TEST_CASE("ball joint between two rigid bodies: derivatives against finite differences", "[joints]") {
    TwoBodies scene;
    joints::BallJointSettings settings;
    settings.first.element = "a";
    settings.first.node = 2;
    settings.second.element = "b";
    settings.second.node = 0;
    joints::BallJoint joint(settings, joint_parameters("{first: {element: a, node: 2}, second: {element: b, node: 0}}"));
    joint.bind(scene);
    REQUIRE(joint.dofs().size() == 12);
    ConstraintEvaluation e = sized(joint);
    const double lambda[3] = {0.7, -1.3, 2.1};
    EvalContext context;
    context.q = &scene.s.q;
    joint.evaluate(context, lambda, e);
    CHECK(e.value.norm() < 1e-15);  // coincident initially

    // An iterate in the middle of a step: finite displacements d, so Jr(d) != I.
    VectorX dofs = scene.s.q.head(12);
    dofs.segment<3>(3) = Vec3(0.2, -0.3, 0.25);
    dofs.segment<3>(9) = Vec3(-0.15, 0.1, 0.3);
    dofs.head<3>() += Vec3(0.01, 0.02, -0.03);
    scene.set_dofs(dofs);
    joint.evaluate(context, lambda, e);
    TwoBodies probe;
    auto value_of = [&](const VectorX& x) {
        probe.set_dofs(x);
        EvalContext c;
        c.q = &probe.s.q;
        ConstraintEvaluation pe = sized(joint);
        joint.evaluate(c, lambda, pe);
        return VectorX(pe.value);
    };
    // The joint's columns follow its DOF list; here the DOFs are 0..11 in order.
    CHECK(max_relative_error(e.position_jacobian, finite_difference_jacobian(value_of, dofs, 1e-6)) < 1e-8);
    auto generalized_of = [&](const VectorX& x) {
        probe.set_dofs(x);
        EvalContext c;
        c.q = &probe.s.q;
        ConstraintEvaluation pe = sized(joint);
        joint.evaluate(c, lambda, pe);
        return VectorX(pe.force_jacobian.transpose() * Eigen::Map<const Vec3>(lambda));
    };
    CHECK(max_relative_error(e.curvature, finite_difference_jacobian(generalized_of, dofs, 1e-6)) < 1e-7);
    // G_f maps DOF velocities to the velocity of the separation x_1 - x_2.
    VectorX v(12);
    v << 0.3, -0.2, 0.1, 1.0, -2.0, 0.5, -0.4, 0.6, 0.2, 0.7, 0.3, -1.1;
    scene.s.v = v;
    context.v = &scene.s.v;
    const Vec3 separation_rate = point_velocity(scene.a, 2, scene.s.q, v) - point_velocity(scene.b, 0, scene.s.q, v);
    CHECK((e.force_jacobian * v - separation_rate).norm() < 1e-13);
}

TEST_CASE("ball joint: a world end and the located errors", "[joints]") {
    TwoBodies scene;  // body a's origin is at the world origin (its DOF entries are 0)
    joints::BallJointSettings settings;
    settings.first.element = "a";
    settings.first.node = 0;
    settings.second.world = Vec3(0.0, 0.0, 0.0);
    joints::BallJoint pinned(settings, joint_parameters("{first: {element: a, node: 0}, second: {world: [0, 0, 0]}}"));
    pinned.bind(scene);
    CHECK(pinned.dofs().size() == 6);

    settings.second.world = Vec3(0.0, 0.0, 0.1);
    joints::BallJoint apart(settings, joint_parameters("{first: {element: a, node: 0}, second: {world: [0, 0, 0.1]}}"));
    CHECK_THROWS_WITH(apart.bind(scene), Catch::Contains("second") && Catch::Contains("0.1 m apart"));

    settings.second.world = Vec3(0.0, 0.0, 0.0);
    settings.first.node = 9;
    joints::BallJoint out_of_range(settings, joint_parameters("{first: {element: a, node: 9}, second: {world: [0, 0, 0]}}"));
    CHECK_THROWS_WITH(out_of_range.bind(scene), Catch::Contains("first.node") && Catch::Contains("out of range"));

    settings.first.element = "c";
    joints::BallJoint unknown(settings, joint_parameters("{first: {element: c}, second: {world: [0, 0, 0]}}"));
    CHECK_THROWS_WITH(unknown.bind(scene), Catch::Contains("no element named 'c'"));
}
