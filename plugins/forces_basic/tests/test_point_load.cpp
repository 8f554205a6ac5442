// Point loads (digest 000 §5.5: the code's constant point force).
#include "point_load.hpp"

#include "force_test_support.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<ParticleCloud::Particle> line(int n) {
    std::vector<ParticleCloud::Particle> p;
    for (int i = 0; i < n; ++i) p.push_back({Vec3(0.1 * i, 0.02 * i * i, -0.3 + 0.05 * i), 1.0, 0.1, 1e-3});
    return p;
}

}  // namespace

TEST_CASE("point load: F = -load_factor f on the chosen nodes", "[point_load]") {
    ParticleCloud other("other", line(2)), rod("rod", line(5));
    FakeScene scene({&other, &rod});
    const Vec3 f(1.0, -2.0, 3.5);
    PointLoad load(PointLoadSettings{"rod", {0, -1, 2}, f});
    load.bind(scene);
    REQUIRE(load.points() == std::vector<Index>{0, 4, 2});
    DenseForceProbe probe(load, scene.dof_count());
    const VectorX& q = scene.state().q;
    const VectorX& v = scene.state().v;
    const Index rod_start = 6;  // `other` holds global DOFs 0..5

    SECTION("values, with negative indices counted from the end") {
        const VectorX F = probe.residual(q, v);
        VectorX expected = VectorX::Zero(scene.dof_count());
        for (Index node : {0, 2, 4}) expected.segment<3>(rod_start + 3 * node) = -f;
        CHECK((F - expected).isZero(0.0));
    }
    SECTION("load_factor scales the load and the energy") {
        const VectorX F = probe.residual(q, v, 0.4);
        CHECK(F.segment<3>(rod_start + 12).isApprox(-0.4 * f, 1e-15));
        CHECK(probe.energy(q, 0.4) == Approx(0.4 * probe.energy(q)).epsilon(1e-14));
    }
    SECTION("potential energy -f.x summed; its gradient is the residual") {
        double expected = 0.0;
        for (Index node : {0, 2, 4}) expected -= f.dot(q.segment<3>(rod_start + 3 * node));
        CHECK(probe.energy(q) == Approx(expected).epsilon(1e-14));
        // E is linear in q: central differences are exact up to round-off (~eps |E| / h = 1e-10).
        const double h = 1e-5;
        const VectorX F = probe.residual(q, v);
        for (Index j = 0; j < scene.dof_count(); ++j) {
            VectorX qp = q, qm = q;
            qp[j] += h;
            qm[j] -= h;
            CHECK((probe.energy(qp) - probe.energy(qm)) / (2 * h) == Approx(F[j]).margin(1e-9));
        }
    }
    SECTION("no Jacobian") { CHECK(probe.jacobian(q, v, {1.0, 1.0, 1.0}).isZero(0.0)); }
}

TEST_CASE("point load: errors name the key and the valid range", "[point_load]") {
    ParticleCloud rod("rod", line(5)), sheet("sheet", line(3));
    FakeScene scene({&rod, &sheet});
    SECTION("unknown element") {
        PointLoad load(PointLoadSettings{"rood", {0}, Vec3(0, 0, 1)});
        CHECK_THROWS_WITH(load.bind(scene), Contains("element: no element named 'rood'; elements are: rod, sheet"));
    }
    SECTION("index past the end") {
        PointLoad load(PointLoadSettings{"rod", {1, 5}, Vec3(0, 0, 1)});
        CHECK_THROWS_WITH(load.bind(scene),
                          Contains("nodes: node 5 is out of range: element 'rod' has 5 nodes (valid indices -5 .. 4)"));
    }
    SECTION("negative index before the start") {
        PointLoad load(PointLoadSettings{"sheet", {-4}, Vec3(0, 0, 1)});
        CHECK_THROWS_WITH(load.bind(scene), Contains("nodes: node -4 is out of range: element 'sheet' has 3 nodes"));
    }
    SECTION("the same node twice") {
        PointLoad load(PointLoadSettings{"rod", {4, -1}, Vec3(0, 0, 1)});
        CHECK_THROWS_WITH(load.bind(scene), Contains("nodes: node -1 names node 4 a second time"));
    }
    SECTION("settings") {
        CHECK_THROWS_WITH(PointLoad(PointLoadSettings{"", {0}, Vec3(0, 0, 1)}), Contains("element: must name an element"));
        CHECK_THROWS_WITH(PointLoad(PointLoadSettings{"rod", {}, Vec3(0, 0, 1)}), Contains("nodes: must list at least one node"));
        CHECK_THROWS_WITH(PointLoad(PointLoadSettings{"rod", {0}, Vec3(0, 0, NAN)}), Contains("force: must be finite"));
    }
}
