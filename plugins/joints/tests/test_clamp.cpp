// Clamp between a rigid body's frame and a rod's end frame, and between a rod end and the world:
// C, G_q and the curvature against central finite differences, G_f against differences along a
// velocity, the value of the rotation rows, and the located errors.
#include "body_and_rod.hpp"
#include "../clamp.hpp"

#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::joints::testing;

namespace {


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

    // Per-row compliances: an offset about the world x axis loads only the x rotation row, so
    // it holds as built when that row is compliant and the others hard, and is refused, naming
    // the row, when the x row is the hard one.
    const double turn = 0.3;
    settings.rotation_offset = Eigen::AngleAxisd(-turn, Vec3::UnitX()).toRotationMatrix() * k.rotation;
    settings.row_compliance = {0, 0, 0, 1e-3, 0, 0};
    joints::Clamp soft_x(settings, clamp_parameters("{first: {element: rod, frame: end}, second: {world: [0, 0, 0]}}"));
    CHECK_NOTHROW(soft_x.bind(fresh));
    settings.row_compliance = {0, 0, 0, 0, 1e-3, 1e-3};
    joints::Clamp hard_x(settings, clamp_parameters("{first: {element: rod, frame: end}, second: {world: [0, 0, 0]}, "
                                                    "rotation_offset: {axis: [1, 0, 0], angle_deg: 40}}"));
    CHECK_THROWS_WITH(hard_x.bind(fresh), Catch::Contains("rotation_offset") && Catch::Contains("rotation row x") &&
                                              Catch::Contains(std::to_string(std::sin(turn)).substr(0, 6)));
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
