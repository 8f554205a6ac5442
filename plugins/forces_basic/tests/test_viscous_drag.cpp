// Viscous drag per unit rod length (MAT-DiSMech §5.3, eq. 27-28).
#include "viscous_drag.hpp"

#include "force_test_support.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

TEST_CASE("viscous drag: F = eta dl_i v_i and J = c_v eta dl_i I", "[viscous_drag]") {
    // Point 2 is a pure-shell point (dl = 0): it gets no drag (reference-code behaviour).
    ParticleCloud rod("rod", {{Vec3(0, 0, 0), 1.0, 0.05}, {Vec3(0.1, 0, 0), 1.0, 0.1}, {Vec3(0.2, 0, 0), 1.0, 0.0}});
    auto scene = soma::testing::TestScene::bound_in_order({&rod});
    const double eta = 2.5;
    ViscousDrag drag(ViscousDragSettings{eta, {}});
    drag.bind(scene);
    DenseForceProbe probe(drag, scene.dof_count());
    const VectorX q = scene.state().q;
    VectorX v(9);
    v << 0.3, -0.2, 1.0, -1.5, 0.25, 0.0, 4.0, 5.0, 6.0;

    SECTION("values; load_factor does not scale drag") {
        const VectorX F = probe.residual(q, v, 0.3);
        CHECK((F.segment<3>(0) - eta * 0.05 * v.segment<3>(0)).norm() < 1e-15);
        CHECK((F.segment<3>(3) - eta * 0.1 * v.segment<3>(3)).norm() < 1e-15);
        CHECK(F.segment<3>(6).isZero(0.0));
        CHECK(probe.energy(q) == 0.0);  // dissipative
    }
    SECTION("dF/dv against central differences") {
        // F is linear in v: central differences are exact up to round-off (~eps |F| / h = 1e-10).
        const Eigen::MatrixXd J = probe.jacobian(q, v, {0.0, 1.0, 0.0});
        CHECK(relative_max_error(J, probe.fd_dv(q, v, 1e-6)) < 1e-8);
        CHECK(J(0, 0) == Approx(eta * 0.05));
        CHECK(J(8, 8) == 0.0);
    }
    SECTION("dF/dq is zero, and c_v scales the Jacobian") {
        CHECK(probe.jacobian(q, v, {1.0, 0.0, 0.0}).isZero(0.0));
        CHECK(probe.fd_dq(q, v, 1e-6).isZero(0.0));
        const Eigen::MatrixXd J1 = probe.jacobian(q, v, {0.0, 1.0, 0.0});
        CHECK((probe.jacobian(q, v, {1.0, 0.01, 1.0}) - 0.01 * J1).norm() < 1e-15);
    }
}

TEST_CASE("viscous drag: settings and selection errors", "[viscous_drag]") {
    ParticleCloud rod("rod", {{Vec3(0, 0, 0), 1.0, 0.05}});
    ParticleCloud sheet("sheet", {{Vec3(0, 0, 0), 1.0, 0.0}});
    auto scene = soma::testing::TestScene::bound_in_order({&rod, &sheet});
    CHECK_THROWS_WITH(ViscousDrag(ViscousDragSettings{0.0, {}}), Contains("viscosity: must be > 0"));
    SECTION("default selection skips shells silently") {
        ViscousDrag drag(ViscousDragSettings{1.0, {}});
        CHECK_NOTHROW(drag.bind(scene));
    }
    SECTION("an explicitly named element without rod length is refused") {
        ViscousDrag drag(ViscousDragSettings{1.0, {"sheet"}});
        CHECK_THROWS_WITH(drag.bind(scene), Contains("elements: element 'sheet' has no rod length"));
    }
    SECTION("unknown element") {
        ViscousDrag drag(ViscousDragSettings{1.0, {"rdo"}});
        CHECK_THROWS_WITH(drag.bind(scene), Contains("no element named 'rdo'; elements are: rod, sheet"));
    }
}
