// frame_spring (frame_spring.hpp): zero as built; its residual's Jacobian (the c_q and c_v parts)
// against central differences between a rod's start frame and a rigid body in the middle of a
// step, the body translating (so that the frames' world velocities do not depend on q at fixed
// v, the one term the damping leaves out) and turned far from the built pose (the log map's
// Jacobians matter); the energy's gradient is the residual; and a torsion's torque is k_r angle.
#include "body_and_rod.hpp"
#include "../frame_spring.hpp"

#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::joints;
using namespace soma::joints::testing;

namespace {

Parameters spring_parameters() {
    ParameterSchema end("end", "");
    end.string("element", "");
    end.string("frame", "");
    ParameterSchema schema("frame_spring", "");
    schema.map("first", "", end);
    schema.map("second", "", end);
    return soma::testing::parameters_from_yaml(TypeKind::force, schema, "{first: {element: rod}, second: {element: body}}");
}

FrameSpringSettings rod_to_body() {
    FrameSpringSettings s;
    s.first.element = "rod";
    s.first.frame = "start";
    s.second.element = "body";
    s.at = kOrigin + Vec3(0.03, -0.02, 0.05);
    s.stiffness = 40.0;
    s.rotational_stiffness = 3.0;
    s.damping = 0.6;
    s.rotational_damping = 0.2;
    return s;
}

}  // namespace

TEST_CASE("frame_spring: residual and Jacobian against finite differences", "[joints][frame_spring]") {
    BodyAndRod scene;
    FrameSpring spring(rod_to_body(), spring_parameters());
    spring.bind(scene);
    soma::testing::DenseAssembly dense(kDofs);
    spring.declare_pattern(dense.pattern());
    EvalContext context;
    context.q = &scene.s.q;
    VectorX v = VectorX::Zero(kDofs);
    context.v = &v;
    context.coefficients = {1.0, 0.0, 0.0};
    CHECK(dense.evaluate(spring, context, false).first.cwiseAbs().maxCoeff() < 1e-14);  // at rest as built

    const VectorX dofs = mid_step(scene);
    v.head<3>() = Vec3(0.3, -0.5, 0.2);  // the body translates; the rod is at rest
    REQUIRE(dense.evaluate(spring, context, false).first.norm() > 0.1);
    check_force_jacobian(spring, dense, scene, dofs, v);
    // Without velocities the residual is the energy's gradient: F . w is the energy's rate along a
    // motion of DOF velocities w (the body's rotation coordinates move by Jr(d)^-1 omega).
    EvalContext still = context;
    still.v = nullptr;
    const VectorX gradient = dense.evaluate(spring, still, false).first;
    VectorX w(kDofs);
    for (Index i = 0; i < kDofs; ++i) w[i] = std::sin(0.7 * static_cast<double>(i) + 0.3);
    VectorX direction = w;
    direction.segment<3>(3) = right_jacobian_inverse(dofs.segment<3>(3)) * w.segment<3>(3);
    const auto energy_along = [&](double h) {
        scene.set_dofs(dofs + h * direction);
        EvalContext c;
        c.q = &scene.s.q;
        const double e = spring.potential_energy(c);
        scene.set_dofs(dofs);
        return e;
    };
    const double rate = (energy_along(1e-6) - energy_along(-1e-6)) / 2e-6;
    CHECK(gradient.dot(w) == Approx(rate).epsilon(1e-6));
}

TEST_CASE("frame_spring: a body twisted about the world by an angle feels k_r times it", "[joints][frame_spring]") {
    BodyAndRod scene;
    FrameSpringSettings s;
    s.first.element = "body";
    s.rotational_stiffness = 2.5;
    FrameSpring spring(s, spring_parameters());
    spring.bind(scene);
    soma::testing::DenseAssembly dense(kDofs);
    spring.declare_pattern(dense.pattern());
    // Turn the body by 1.2 rad about its body x axis (its rotation DOFs are body-frame).
    VectorX dofs = scene.s.q.head(kDofs);
    dofs.segment<3>(3) = Vec3(1.2, 0, 0);
    scene.set_dofs(dofs);
    EvalContext context;
    context.q = &scene.s.q;
    const VectorX F = dense.evaluate(spring, context, false).first;
    // The generalised torque on the body's body-frame rotation DOFs is J_w^T tau with
    // tau = 2.5 * 1.2 about the turned axis: its size is 3 N m (J_w keeps the norm on that axis).
    CHECK(F.segment<3>(3).norm() == Approx(2.5 * 1.2).epsilon(1e-12));
    CHECK(spring.potential_energy(context) == Approx(0.5 * 2.5 * 1.2 * 1.2).epsilon(1e-12));
}

TEST_CASE("frame_spring: two frames of one rigid body are refused", "[joints][frame_spring]") {
    BodyAndRod scene;
    FrameSpringSettings s;
    s.first.element = "body";
    s.second.element = "body";
    s.second.frame = "center_of_mass";
    s.stiffness = 1.0;
    FrameSpring spring(s, spring_parameters());
    CHECK_THROWS_WITH(spring.bind(scene), Catch::Contains("second") && Catch::Contains("move as one"));
}
