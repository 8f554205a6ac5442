// Point loads (MAT-DiSMech §5.5: the reference code's constant point force).
#include "point_load.hpp"

#include "force_test_support.hpp"

#include "soma/nearest_point.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<ParticleCloud::Point> line(int n) {
    std::vector<ParticleCloud::Point> p;
    for (int i = 0; i < n; ++i) p.push_back({Vec3(0.1 * i, 0.02 * i * i, -0.3 + 0.05 * i), 1.0, 0.1, 1e-3});
    return p;
}

}  // namespace

TEST_CASE("point load: F = -load_factor f on the chosen nodes", "[point_load]") {
    ParticleCloud other("other", line(2)), rod("rod", line(5));
    auto scene = soma::testing::TestScene::bound_in_order({&other, &rod});
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
    auto scene = soma::testing::TestScene::bound_in_order({&rod, &sheet});
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

TEST_CASE("point load at a position: the nearest node in the initial configuration", "[point_load]") {
    ParticleCloud other("other", line(2)), rod("rod", line(5));
    auto scene = soma::testing::TestScene::bound_in_order({&other, &rod});
    const Vec3 f(0.0, 0.0, -2.0);
    const Index rod_start = 6;  // `other` holds global DOFs 0..5
    // line(5): node i at (0.1 i, 0.02 i^2, -0.3 + 0.05 i); node 3 at (0.3, 0.18, -0.15).
    const Vec3 node3(0.3, 0.18, -0.15);

    SECTION("a position near node 3 loads node 3 and reports it with its distance") {
        PointLoadSettings settings{"rod", {}, f, node3 + Vec3(0.0, 0.0, 0.01)};
        settings.where = "scene.yaml:9:5: forces[0].at";
        PointLoad load(settings);
        load.bind(scene);
        REQUIRE(load.points() == std::vector<Index>{3});
        DenseForceProbe probe(load, scene.dof_count());
        VectorX expected = VectorX::Zero(scene.dof_count());
        expected.segment<3>(rod_start + 9) = -f;
        CHECK((probe.residual(scene.state().q, scene.state().v) - expected).isZero(0.0));
        REQUIRE(scene.notes.size() == 1);
        CHECK(scene.notes[0] ==
              "scene.yaml:9:5: forces[0].at: at [0.3, 0.18, -0.14] is node 3 of 'rod' at [0.3, 0.18, -0.15] "
              "(distance 0.01 m)");
    }
    SECTION("the choice is made once, in the initial configuration, and the load follows that node") {
        PointLoad load(PointLoadSettings{"rod", {}, f, node3});
        load.bind(scene);
        REQUIRE(load.points() == std::vector<Index>{3});
        // Move every node far away: the load stays on node 3 (no search during evaluation).
        DenseForceProbe probe(load, scene.dof_count());
        const VectorX moved = scene.state().q + VectorX::Constant(scene.dof_count(), 5.0);
        CHECK(probe.residual(moved, scene.state().v).segment<3>(rod_start + 9) == -f);
        CHECK(probe.energy(moved) == Approx(-f.dot(node3 + Vec3::Constant(5.0))).epsilon(1e-14));
    }
    SECTION("without a name or location, the note names the force") {
        PointLoad load(PointLoadSettings{"rod", {}, f, Vec3(-1.0, 0.0, -0.3)});
        load.set_name("tip_load");
        load.bind(scene);
        CHECK(load.points() == std::vector<Index>{0});
        REQUIRE(scene.notes.size() == 1);
        CHECK(scene.notes[0] == "point_load 'tip_load': at [-1, 0, -0.3] is node 0 of 'rod' at [0, 0, -0.3] (distance 1 m)");
    }
}

TEST_CASE("nearest_point: the lowest index among points at equal distance", "[point_load][nearest_point]") {
    // Nodes at x = 0, 1, 2 (exact in binary): (1.5, 0.5, 0) is exactly as far from nodes 1 and 2.
    ParticleCloud row("row", {{Vec3(0, 0, 0)}, {Vec3(1, 0, 0)}, {Vec3(2, 0, 0)}});
    auto scene = soma::testing::TestScene::bound_in_order({&row});
    const NearestPoint tie = nearest_point(row.geometry(), scene.state().q, Vec3(1.5, 0.5, 0.0));
    CHECK(tie.index == 1);
    CHECK(tie.distance == std::sqrt(0.5));
    CHECK(tie.position == Vec3(1, 0, 0));
    CHECK(nearest_point(row.geometry(), scene.state().q, Vec3(1.5 + 1e-9, 0.5, 0.0)).index == 2);
    CHECK(nearest_point(row.geometry(), scene.state().q, Vec3(-7.0, 3.0, 1.0)).index == 0);
    // A position so far away that every squared distance overflows still picks a point.
    CHECK(nearest_point(row.geometry(), scene.state().q, Vec3(1e308, 1e308, 0.0)).index == 0);
    // An element without points: index -1, infinite distance.
    ParticleCloud empty("empty", {});
    auto none = soma::testing::TestScene::bound_in_order({&empty});
    const NearestPoint nothing = nearest_point(empty.geometry(), none.state().q, Vec3::Zero());
    CHECK(nothing.index == -1);
    CHECK(std::isinf(nothing.distance));
}

TEST_CASE("point load at a position: errors", "[point_load]") {
    ParticleCloud rod("rod", line(5)), empty("empty", {});
    auto scene = soma::testing::TestScene::bound_in_order({&rod, &empty});
    SECTION("both nodes and at") {
        CHECK_THROWS_WITH(PointLoad(PointLoadSettings{"rod", {1}, Vec3(0, 0, 1), Vec3(0, 0, 0)}),
                          Contains("at: give either `nodes` (indices) or `at` (a position), not both"));
    }
    SECTION("neither") {
        CHECK_THROWS_WITH(PointLoad(PointLoadSettings{"rod", {}, Vec3(0, 0, 1)}),
                          Contains("nodes: must list at least one node (or give `at: [x, y, z]`"));
    }
    SECTION("a position that is not finite") {
        CHECK_THROWS_WITH(PointLoad(PointLoadSettings{"rod", {}, Vec3(0, 0, 1), Vec3(0, INFINITY, 0)}),
                          Contains("at: must be finite"));
    }
    SECTION("an element without nodes") {
        PointLoad load(PointLoadSettings{"empty", {}, Vec3(0, 0, 1), Vec3(0, 0, 0)});
        CHECK_THROWS_WITH(load.bind(scene), Contains("at: element 'empty' has no nodes"));
        CHECK(scene.notes.empty());
    }
}
