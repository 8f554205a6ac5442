// spring (point_spring.hpp): an axial spring-damper and a multi-point spring over via points
// (ArtiSynth technical notes, sections 0.12 and 0.14): the tension along each segment, the
// energy, and the Jacobian's dF/dq and dF/dv against central differences, taut and slack.
// (Points on rigid bodies, whose maps add the unsymmetric terms of section 0.23, are checked
// through a scene's whole Jacobian in tests/validation/test_springs.cpp.)
#include "point_spring.hpp"

#include "force_test_support.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

namespace {

SpringPoint node(long index) {
    SpringPoint p;
    p.element = "cloud";
    p.node = index;
    return p;
}

SpringPoint world(const Vec3& x) {
    SpringPoint p;
    p.world = x;
    return p;
}

}  // namespace

TEST_CASE("spring: an axial spring-damper's force and Jacobian", "[spring]") {
    ParticleCloud cloud("cloud", {{Vec3(0, 0, 0), 1.0, 0.0}, {Vec3(0.3, 0.1, -0.2), 1.0, 0.0}});
    auto scene = soma::testing::TestScene::bound_in_order({&cloud});
    PointSpringSettings settings;
    settings.points = {node(0), node(1)};
    settings.stiffness = 40.0;
    settings.damping = 1.5;
    settings.rest_length = 0.25;
    PointSpring spring(settings, SettingsErrors("spring"));
    spring.bind(scene);
    DenseForceProbe probe(spring, scene.dof_count());
    VectorX q = scene.state().q;
    VectorX v(6);
    v << 0.3, -0.2, 0.5, -0.4, 0.7, 0.1;
    const Vec3 d = q.segment<3>(3) - q.segment<3>(0);
    const double l = d.norm();
    const Vec3 u = d / l;
    const double tension = 40.0 * (l - 0.25) + 1.5 * (v.segment<3>(3) - v.segment<3>(0)).dot(u);
    // f_1 = F u on the first point: the residual holds -f.
    const VectorX F = probe.residual(q, v);
    CHECK((F.segment<3>(0) + tension * u).norm() < 1e-14);
    CHECK((F.segment<3>(3) - tension * u).norm() < 1e-14);
    CHECK(probe.energy(q) == Approx(0.5 * 40.0 * (l - 0.25) * (l - 0.25)).epsilon(1e-14));
    // Step 1e-6 on O(0.1-1) coordinates: truncation ~1e-12, round-off ~1e-10 relative.
    CHECK(relative_max_error(probe.jacobian(q, v, {1.0, 0.0, 0.0}), probe.fd_dq(q, v, 1e-6)) < 1e-7);
    CHECK(relative_max_error(probe.jacobian(q, v, {0.0, 1.0, 0.0}), probe.fd_dv(q, v, 1e-6)) < 1e-8);
}

TEST_CASE("spring: a multi-point spring over via points, taut and slack", "[spring]") {
    // A tendon from particle 0 over a world via point and particle 1 to particle 2.
    ParticleCloud cloud("cloud", {{Vec3(0, 0, 0), 1.0, 0.0}, {Vec3(0.4, 0.2, 0.1), 1.0, 0.0}, {Vec3(0.5, -0.3, 0.4), 1.0, 0.0}});
    auto scene = soma::testing::TestScene::bound_in_order({&cloud});
    PointSpringSettings settings;
    settings.points = {node(0), world(Vec3(0.2, 0.3, -0.1)), node(1), node(2)};
    settings.stiffness = 25.0;
    settings.damping = 0.8;
    VectorX v(9);
    v << 0.3, -0.2, 0.5, -0.4, 0.7, 0.1, 0.2, 0.2, -0.6;
    for (const bool slack : {false, true}) {
        INFO((slack ? "slack cable" : "taut"));
        settings.tension_only = slack;
        settings.rest_length = slack ? 5.0 : 0.6;
        PointSpring spring(settings, SettingsErrors("spring"));
        spring.bind(scene);
        DenseForceProbe probe(spring, scene.dof_count());
        const VectorX q = scene.state().q;
        // The tension is uniform: each end pulls along its segment with F; a via point feels the
        // sum of its two segments' pulls.
        std::vector<Vec3> x = {q.segment<3>(0), Vec3(0.2, 0.3, -0.1), q.segment<3>(3), q.segment<3>(6)};
        std::vector<Vec3> xdot = {v.segment<3>(0), Vec3::Zero(), v.segment<3>(3), v.segment<3>(6)};
        double length = 0.0, rate = 0.0;
        std::vector<Vec3> u;
        for (int i = 0; i < 3; ++i) {
            u.push_back((x[i + 1] - x[i]).normalized());
            length += (x[i + 1] - x[i]).norm();
            rate += (xdot[i + 1] - xdot[i]).dot(u.back());
        }
        const double tension = slack ? 0.0 : 25.0 * (length - 0.6) + 0.8 * rate;
        const VectorX F = probe.residual(q, v);
        CHECK((F.segment<3>(0) + tension * u[0]).norm() < 1e-13);
        CHECK((F.segment<3>(3) + tension * (u[2] - u[1])).norm() < 1e-13);
        CHECK((F.segment<3>(6) - tension * u[2]).norm() < 1e-13);
        if (slack) {
            CHECK(F.isZero(0.0));
            CHECK(probe.jacobian(q, v, {1.0, 1.0, 0.0}).isZero(0.0));
            CHECK(probe.energy(q) == 0.0);
            continue;
        }
        CHECK(relative_max_error(probe.jacobian(q, v, {1.0, 0.0, 0.0}), probe.fd_dq(q, v, 1e-6)) < 1e-7);
        CHECK(relative_max_error(probe.jacobian(q, v, {0.0, 1.0, 0.0}), probe.fd_dv(q, v, 1e-6)) < 1e-8);
    }
}

TEST_CASE("spring: bad settings are refused at their keys", "[spring]") {
    ParticleCloud cloud("cloud", {{Vec3(0, 0, 0), 1.0, 0.0}, {Vec3(0.3, 0, 0), 1.0, 0.0}});
    auto scene = soma::testing::TestScene::bound_in_order({&cloud});
    PointSpringSettings one;
    one.points = {node(0)};
    one.stiffness = 1.0;
    CHECK_THROWS_WITH(PointSpring(one, SettingsErrors("spring")), Contains("points") && Contains("two points"));
    PointSpringSettings idle;
    idle.points = {node(0), node(1)};
    CHECK_THROWS_WITH(PointSpring(idle, SettingsErrors("spring")), Contains("would do nothing"));
    PointSpringSettings coincident;
    coincident.points = {node(0), world(Vec3::Zero())};
    coincident.stiffness = 1.0;
    PointSpring at_once(coincident, SettingsErrors("spring"));
    CHECK_THROWS_WITH(at_once.bind(scene), Contains("points 0 and 1 coincide"));
    PointSpringSettings nowhere;
    nowhere.points = {world(Vec3::Zero()), world(Vec3::UnitX())};
    nowhere.stiffness = 1.0;
    PointSpring on_nothing(nowhere, SettingsErrors("spring"));
    CHECK_THROWS_WITH(on_nothing.bind(scene), Contains("act on nothing"));
    PointSpringSettings far;
    far.points = {node(0), node(7)};
    far.stiffness = 1.0;
    PointSpring out_of_range(far, SettingsErrors("spring"));
    CHECK_THROWS_WITH(out_of_range.bind(scene), Contains("points[1].node") && Contains("out of range"));
}

TEST_CASE("spring: a segment collapsed during a run leaves a finite Jacobian", "[spring]") {
    ParticleCloud cloud("cloud", {{Vec3(0, 0, 0), 1.0, 0.0}, {Vec3(0.3, 0, 0), 1.0, 0.0}, {Vec3(0.6, 0.1, 0), 1.0, 0.0}});
    auto scene = soma::testing::TestScene::bound_in_order({&cloud});
    PointSpringSettings settings;
    settings.points = {node(0), node(1), node(2)};
    settings.stiffness = 10.0;
    settings.damping = 0.5;
    PointSpring spring(settings, SettingsErrors("spring"));
    spring.bind(scene);
    DenseForceProbe probe(spring, scene.dof_count());
    VectorX q = scene.state().q;
    q.segment<3>(3) = q.segment<3>(0);  // point 1 onto point 0: the first segment has no direction
    const VectorX v = VectorX::Constant(9, 0.2);
    CHECK(probe.residual(q, v).allFinite());
    CHECK(probe.jacobian(q, v, {1.0, 1.0, 0.0}).allFinite());
}
