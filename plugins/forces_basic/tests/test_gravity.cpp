// Gravity and buoyancy (MAT-DiSMech §5.1).
#include "gravity.hpp"

#include "force_test_support.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

namespace {

ParticleCloud make_rod(const std::string& name, double density) {
    return ParticleCloud(name,
                         {{Vec3(0, 0, 1), 0.2, 0.1, 1e-3}, {Vec3(0.1, 0, 1.2), 0.4, 0.1, 1e-3},
                          {Vec3(0.2, 0.3, 0.7), 0.3, 0.05, 1e-3}},
                         density);
}

}  // namespace

TEST_CASE("gravity: F = -load_factor m_i g on every point", "[gravity]") {
    ParticleCloud a = make_rod("a", 1500.0), b = make_rod("b", 800.0);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    const Vec3 g(0.5, -1.0, -9.81);
    Gravity gravity(GravitySettings{g, 0.0, {}});
    gravity.bind(scene);
    DenseForceProbe probe(gravity, scene.dof_count());
    const VectorX& q = scene.state().q;
    const VectorX& v = scene.state().v;

    const double masses[] = {0.2, 0.4, 0.3, 0.2, 0.4, 0.3};
    SECTION("values") {
        const VectorX F = probe.residual(q, v);
        for (int i = 0; i < 6; ++i) CHECK((F.segment<3>(3 * i) + masses[i] * g).norm() < 1e-15);
    }
    SECTION("load_factor scales the load linearly (statics ramp)") {
        const VectorX F = probe.residual(q, v, 0.25);
        for (int i = 0; i < 6; ++i) CHECK((F.segment<3>(3 * i) + 0.25 * masses[i] * g).norm() < 1e-15);
        CHECK(probe.energy(q, 0.25) == Approx(0.25 * probe.energy(q)).epsilon(1e-14));
    }
    SECTION("Jacobian is zero for any coefficients") {
        CHECK(probe.jacobian(q, v, {1.0, 1.0, 1.0}).isZero(0.0));
        CHECK((probe.residual_with_jacobian(q, v, {1.0, 1.0, 1.0}) - probe.residual(q, v)).isZero(0.0));
    }
    SECTION("potential energy -sum m g.x, and its gradient is the residual") {
        double expected = 0.0;
        for (int i = 0; i < 6; ++i) expected -= masses[i] * g.dot(q.segment<3>(3 * i));
        CHECK(probe.energy(q) == Approx(expected).epsilon(1e-14));
        // E is linear in q: central differences are exact up to round-off (eps |E| / h ~ 1e-10).
        const double h = 1e-5;
        for (Index j = 0; j < scene.dof_count(); ++j) {
            VectorX qp = q, qm = q;
            qp[j] += h;
            qm[j] -= h;
            CHECK((probe.energy(qp) - probe.energy(qm)) / (2 * h) == Approx(probe.residual(q, v)[j]).margin(1e-9));
        }
    }
}

TEST_CASE("gravity: buoyancy factor (rho - rho_med)/rho per element", "[gravity]") {
    CHECK(Gravity::buoyancy_factor(1500.0, 1000.0) == Approx(1.0 / 3.0).epsilon(1e-15));
    CHECK(Gravity::buoyancy_factor(800.0, 1000.0) == Approx(-0.25).epsilon(1e-15));  // floats up
    CHECK(Gravity::buoyancy_factor(0.0, 0.0) == 1.0);                                // no medium: no density needed

    ParticleCloud a = make_rod("a", 1500.0), b = make_rod("b", 800.0);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    const Vec3 g(0, 0, -9.81);
    Gravity gravity(GravitySettings{g, 1000.0, {}});
    gravity.bind(scene);
    DenseForceProbe probe(gravity, scene.dof_count());
    const VectorX F = probe.residual(scene.state().q, scene.state().v);
    CHECK(F[2] == Approx(0.2 * 9.81 / 3.0).epsilon(1e-14));    // a: point 0, heavier than water
    CHECK(F[9 + 5] == Approx(-0.4 * 9.81 * 0.25).epsilon(1e-14));  // b: point 1, lighter: pushed up
}

TEST_CASE("gravity: element selection and its errors", "[gravity]") {
    ParticleCloud a = make_rod("a", 1500.0), b = make_rod("b", 0.0);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    SECTION("only the named elements are loaded") {
        Gravity gravity(GravitySettings{Vec3(0, 0, -10), 0.0, {"b"}});
        gravity.bind(scene);
        DenseForceProbe probe(gravity, scene.dof_count());
        const VectorX F = probe.residual(scene.state().q, scene.state().v);
        CHECK(F.head(9).isZero(0.0));
        CHECK(F[9 + 2] == Approx(2.0));
    }
    SECTION("unknown element names the known ones") {
        Gravity gravity(GravitySettings{Vec3(0, 0, -10), 0.0, {"a", "rod"}});
        CHECK_THROWS_WITH(gravity.bind(scene), Contains("elements: no element named 'rod'; elements are: a, b"));
    }
    SECTION("an element listed twice") {
        Gravity gravity(GravitySettings{Vec3(0, 0, -10), 0.0, {"a", "a"}});
        CHECK_THROWS_WITH(gravity.bind(scene), Contains("element 'a' is listed twice"));
    }
    SECTION("buoyancy on an element without density") {
        Gravity gravity(GravitySettings{Vec3(0, 0, -10), 1000.0, {}});
        CHECK_THROWS_WITH(gravity.bind(scene), Contains("medium_density: buoyancy needs the density of element 'b'"));
    }
    SECTION("negative medium density") {
        CHECK_THROWS_WITH(Gravity(GravitySettings{Vec3(0, 0, -10), -1.0, {}}), Contains("medium_density: must be >= 0"));
    }
    SECTION("errors go through the installed handler (the scene's Parameters::fail)") {
        std::string seen;
        SettingsErrors errors("gravity", [&](const std::string& key, const std::string& message) {
            seen = key;
            throw InputError("scene.yaml:3:5: forces[0]." + key + ": " + message);
        });
        Gravity gravity(GravitySettings{Vec3(0, 0, -10), 0.0, {"c"}}, errors);
        CHECK_THROWS_WITH(gravity.bind(scene), Contains("scene.yaml:3:5: forces[0].elements: no element named 'c'"));
        CHECK(seen == "elements");
    }
}
