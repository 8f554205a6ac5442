// Aerodynamic drag on surface triangles (MAT-DiSMech §5.4, eq. 29, Appendix B).
#include "aerodynamic_drag.hpp"

#include "force_test_support.hpp"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<ParticleCloud::Point> particles_at(const std::vector<Vec3>& x) {
    std::vector<ParticleCloud::Point> p;
    for (const Vec3& xi : x) p.push_back({xi, 1.0, 0.0, 0.0});
    return p;
}

/// A square plate [0, L]² in z = 0 on a 3×3 grid of nodes, 8 triangles; half of them are wound
/// clockwise (normal -z) so that the tests see both orientations.
ParticleCloud square_plate(double side) {
    std::vector<Vec3> x;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) x.emplace_back(0.5 * side * i, 0.5 * side * j, 0.0);
    std::vector<std::array<Index, 3>> triangles;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            const Index a = 3 * j + i, b = a + 1, c = a + 3, d = a + 4;
            if ((i + j) % 2 == 0) {
                triangles.push_back({a, b, d});  // counter-clockwise: +z
                triangles.push_back({a, d, c});
            } else {
                triangles.push_back({a, c, b});  // clockwise: -z
                triangles.push_back({b, c, d});
            }
        }
    return ParticleCloud("plate", particles_at(x), std::move(triangles));
}

/// Sum of the per-node forces f = -F (3-vectors) of a residual.
Vec3 total_force(const VectorX& F) {
    Vec3 sum = Vec3::Zero();
    for (Index i = 0; i < F.size(); i += 3) sum -= F.segment<3>(i);
    return sum;
}

/// Applies x -> R x + t to every node of q and v -> R v to every node of v.
void transform(const Mat3& R, const Vec3& t, VectorX& q, VectorX& v) {
    for (Index i = 0; i < q.size(); i += 3) {
        q.segment<3>(i) = R * q.segment<3>(i) + t;
        v.segment<3>(i) = R * v.segment<3>(i);
    }
}

constexpr double kRho = 1.2;  // air
constexpr double kCd = 1.3;

}  // namespace

TEST_CASE("aerodynamic drag: flat plate moving along its normal feels 1/2 rho C_D A u^2", "[aerodynamic_drag]") {
    const double side = 0.7, area = side * side;
    ParticleCloud plate = square_plate(side);
    auto scene = soma::testing::TestScene::bound_in_order({&plate});
    AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {}});
    drag.bind(scene);
    REQUIRE(drag.triangle_count() == 8);
    CHECK_FALSE(drag.symmetric_jacobian());
    DenseForceProbe probe(drag, scene.dof_count());
    const VectorX q = scene.state().q;
    const double expected = 0.5 * kRho * kCd * area;  // times u²; MAT-DiSMech eq. 29 summed over a flat plate

    SECTION("along the normal: total force opposite to u, both triangle orientations alike") {
        for (double u : {0.3, 2.0, -1.5}) {
            VectorX v = VectorX::Zero(q.size());
            for (Index i = 2; i < v.size(); i += 3) v[i] = u;
            const Vec3 f = total_force(probe.residual(q, v));
            // Sums of 8 triangles' products: round-off only.
            CHECK(f.z() == Approx(-expected * u * std::abs(u)).epsilon(1e-14));
            CHECK(f.head<2>().isZero(0.0));
            // Each node gets (ρ C_D/6) u² Σ A_k over its triangles: the corner (0,0) is in 2 of area A/8.
            CHECK(-probe.residual(q, v)[2] == Approx(-kRho * kCd / 6.0 * (area / 4.0) * u * std::abs(u)).epsilon(1e-14));
        }
    }
    SECTION("in its own plane: zero force, zero Jacobian") {
        VectorX v = VectorX::Zero(q.size());
        for (Index i = 0; i < v.size(); i += 3) v.segment<3>(i) = Vec3(1.3, -0.4, 0.0);
        CHECK(probe.residual(q, v).isZero(0.0));  // n̂ = ±e_z exactly, so u·n̂ = 0 exactly
        CHECK(probe.jacobian(q, v, {1.0, 1.0, 0.0}).isZero(0.0));
    }
    SECTION("oblique: only the normal component counts, |f| = 1/2 rho C_D A (u cos θ)^2") {
        const double theta = 0.6, u = 1.7;
        VectorX v = VectorX::Zero(q.size());
        for (Index i = 0; i < v.size(); i += 3) v.segment<3>(i) = u * Vec3(std::sin(theta), 0.0, std::cos(theta));
        const Vec3 f = total_force(probe.residual(q, v));
        const double un = u * std::cos(theta);
        CHECK(f.z() == Approx(-expected * un * un).epsilon(1e-14));
        CHECK(f.head<2>().isZero(0.0));
    }
    SECTION("A_k is the undeformed area: stretching the plate does not change the force") {
        VectorX qs = q;
        for (Index i = 0; i < qs.size(); i += 3) qs[i] *= 2.0;  // current area 2A
        VectorX v = VectorX::Zero(q.size());
        for (Index i = 2; i < v.size(); i += 3) v[i] = 1.0;
        CHECK(total_force(probe.residual(qs, v)).z() == Approx(-expected).epsilon(1e-14));
    }
    SECTION("dissipative and not an applied load") {
        VectorX v = VectorX::Zero(q.size());
        for (Index i = 2; i < v.size(); i += 3) v[i] = 1.0;
        CHECK(probe.energy(q) == 0.0);
        CHECK(probe.residual(q, v, 0.25) == probe.residual(q, v, 1.0));
    }
}

TEST_CASE("aerodynamic drag: Jacobian against central differences on a curved mesh", "[aerodynamic_drag]") {
    // Five nodes, four non-planar triangles around node 0 (a bent fan), plus a separate element
    // with one triangle: nodes 1 and 3 share no triangle, so their blocks must be exactly zero.
    std::mt19937 rng(20240917);
    std::uniform_real_distribution<double> jitter(-0.2, 0.2);
    std::vector<Vec3> x = {Vec3(0, 0, 0.3), Vec3(1, 0, 0), Vec3(0, 1, 0.1), Vec3(-1, 0, -0.2), Vec3(0, -1, 0.25)};
    for (Vec3& xi : x) xi += Vec3(jitter(rng), jitter(rng), jitter(rng));
    ParticleCloud fan("fan", particles_at(x), {{0, 1, 2}, {0, 2, 3}, {3, 0, 4}, {0, 4, 1}});
    ParticleCloud flap("flap", particles_at({Vec3(2, 0, 0), Vec3(2.5, 0.3, 0.4), Vec3(2.1, 0.8, -0.1)}), {{0, 1, 2}});
    auto scene = soma::testing::TestScene::bound_in_order({&fan, &flap});
    AerodynamicDrag drag(AerodynamicDragSettings{1000.0, 0.5, {}});  // water, the manta ray's C_D (MAT-DiSMech Fig. 5)
    drag.bind(scene);
    REQUIRE(drag.triangle_count() == 5);
    DenseForceProbe probe(drag, scene.dof_count());
    const Index n = scene.dof_count();
    const VectorX q = scene.state().q;

    for (int trial = 0; trial < 3; ++trial) {
        // Velocities O(1) m/s of random direction: u_i·n̂ takes both signs across nodes and triangles,
        // and stays far (≫ h) from 0, where w|w| is only C¹.
        std::uniform_real_distribution<double> speed(-1.5, 1.5);
        VectorX v(n);
        for (Index i = 0; i < n; ++i) v[i] = speed(rng);
        INFO("trial " << trial);

        // F is smooth in q and v here; central differences with h = 1e-6 have truncation error
        // ~h² |F'''|/6 ~ 1e-12 |J| and round-off ~eps |F|/h ~ 2e-10 |F| with |F| ~ |J| (lengths and
        // speeds O(1)): ~1e-10 relative to the largest entry (measured: 2e-10 at worst). 1e-8 leaves
        // a factor 50; a wrong cyclic edge or a missing factor 2 in dF/dv gives O(1) errors.
        const double h = 1e-6, tol = 1e-8;
        const Eigen::MatrixXd Jq = probe.jacobian(q, v, {1.0, 0.0, 0.0});
        const Eigen::MatrixXd Jv = probe.jacobian(q, v, {0.0, 1.0, 0.0});
        const Eigen::MatrixXd FDq = probe.fd_dq(q, v, h);
        const Eigen::MatrixXd FDv = probe.fd_dv(q, v, h);
        const double scale_q = FDq.cwiseAbs().maxCoeff(), scale_v = FDv.cwiseAbs().maxCoeff();
        REQUIRE(scale_q > 1.0);
        REQUIRE(scale_v > 1.0);
        double worst_q = 0.0, worst_v = 0.0;
        for (Index i = 0; i < n / 3; ++i)
            for (Index m = 0; m < n / 3; ++m) {
                INFO("block (" << i << ", " << m << ")");
                const auto jq = Jq.block<3, 3>(3 * i, 3 * m), fq = FDq.block<3, 3>(3 * i, 3 * m);
                const auto jv = Jv.block<3, 3>(3 * i, 3 * m), fv = FDv.block<3, 3>(3 * i, 3 * m);
                const double eq = (jq - fq).cwiseAbs().maxCoeff() / scale_q;
                const double ev = (jv - fv).cwiseAbs().maxCoeff() / scale_v;
                CHECK(eq < tol);
                CHECK(ev < tol);
                worst_q = std::max(worst_q, eq);
                worst_v = std::max(worst_v, ev);
                if (fq.isZero(0.0)) CHECK(jq.isZero(0.0));  // no shared triangle: exactly no coupling
                if (i != m) CHECK(jv.isZero(0.0));          // F_i depends on v_i only
            }
        // Nodes 1 and 3 of the fan share no triangle; the fan and the flap share no node.
        CHECK(Jq.block<3, 3>(3, 9).isZero(0.0));
        CHECK(Jq.block<3, 3>(0, 15).isZero(0.0));
        CHECK(FDq.block<3, 3>(3, 9).isZero(0.0));
        WARN("worst block error / max|J|: dq " << worst_q << ", dv " << worst_v);

        // The weights combine linearly, and the residual is the same with or without the Jacobian.
        const Eigen::MatrixXd J = probe.jacobian(q, v, {0.7, 3.0, 5.0});
        CHECK((J - (0.7 * Jq + 3.0 * Jv)).cwiseAbs().maxCoeff() < 1e-13 * (Jq.cwiseAbs().maxCoeff() + 3.0 * scale_v));
        CHECK(probe.residual_with_jacobian(q, v, {1.0, 1.0, 0.0}) == probe.residual(q, v));
    }
}

TEST_CASE("aerodynamic drag: at u·n = 0 the Jacobian is continuous (d(w|w|)/dw = 2|w| = 0)", "[aerodynamic_drag]") {
    ParticleCloud sheet("sheet", particles_at({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}), {{0, 1, 2}});
    auto scene = soma::testing::TestScene::bound_in_order({&sheet});
    AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {}});
    drag.bind(scene);
    DenseForceProbe probe(drag, scene.dof_count());
    const VectorX q = scene.state().q;
    VectorX v = VectorX::Zero(9);
    v.segment<3>(0) = Vec3(0.5, 0.2, 0.0);  // in plane: w = 0 exactly at node 0
    v.segment<3>(3) = Vec3(0.0, 0.0, 1.0);  // w = 1 at node 1
    // Across w = 0 the FD of w|w| is (h|h| + h|h|)/(2h) = h instead of 0: an error of β h per entry
    // with β = ρ C_D A/6 ≈ 0.13, i.e. ~1e-7 for h = 1e-6 against J entries ~0.26.
    const double h = 1e-6;
    const Eigen::MatrixXd Jv = probe.jacobian(q, v, {0.0, 1.0, 0.0});
    const Eigen::MatrixXd Jq = probe.jacobian(q, v, {1.0, 0.0, 0.0});
    CHECK(Jv.block<3, 3>(0, 0).isZero(0.0));
    CHECK(Jq.block<3, 9>(0, 0).isZero(0.0));
    CHECK((Jv - probe.fd_dv(q, v, h)).cwiseAbs().maxCoeff() < 2.0 * h);
    CHECK((Jq - probe.fd_dq(q, v, h)).cwiseAbs().maxCoeff() < 2.0 * h);
}

TEST_CASE("aerodynamic drag: odd in u and frame invariant", "[aerodynamic_drag]") {
    std::vector<Vec3> x = {Vec3(0, 0, 0), Vec3(0.4, 0, 0.05), Vec3(0.1, 0.5, -0.1), Vec3(0.6, 0.45, 0.2)};
    ParticleCloud sheet("sheet", particles_at(x), {{0, 1, 2}, {1, 3, 2}});
    auto scene = soma::testing::TestScene::bound_in_order({&sheet});
    AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {}});
    drag.bind(scene);
    DenseForceProbe probe(drag, scene.dof_count());
    const VectorX q = scene.state().q;
    VectorX v(12);
    v << 0.3, -0.2, 1.0, -1.5, 0.25, 0.4, 0.7, 0.1, -0.9, 0.0, 0.3, 2.0;
    const VectorX F = probe.residual(q, v);
    REQUIRE(F.norm() > 0.1);

    SECTION("reversing every velocity reverses the force exactly") {
        CHECK(probe.residual(q, -v) == -F);  // w|w| is odd and negation is exact in floating point
    }
    SECTION("rotating and translating the configuration rotates the force and the Jacobian") {
        // The undeformed areas are fixed at bind() and are themselves invariant; F' = R F and
        // J' = R J Rᵀ blockwise, to round-off (1e-13 relative).
        const Mat3 R = Eigen::AngleAxisd(1.1, Vec3(0.3, -0.8, 0.5).normalized()).toRotationMatrix();
        VectorX qr = q, vr = v;
        transform(R, Vec3(5.0, -3.0, 2.0), qr, vr);
        const VectorX Fr = probe.residual(qr, vr);
        const Eigen::MatrixXd J = probe.jacobian(q, v, {1.0, 1.0, 0.0});
        const Eigen::MatrixXd Jr = probe.jacobian(qr, vr, {1.0, 1.0, 0.0});
        for (Index i = 0; i < 4; ++i) {
            CHECK((Fr.segment<3>(3 * i) - R * F.segment<3>(3 * i)).norm() < 1e-13 * F.norm());
            for (Index m = 0; m < 4; ++m)
                CHECK((Jr.block<3, 3>(3 * i, 3 * m) - R * J.block<3, 3>(3 * i, 3 * m) * R.transpose()).norm() <
                      1e-13 * J.norm());
        }
    }
}

TEST_CASE("aerodynamic drag: settings and selection errors", "[aerodynamic_drag]") {
    ParticleCloud rod("rod", {{Vec3(0, 0, 0), 1.0, 0.05}, {Vec3(1, 0, 0), 1.0, 0.05}});
    ParticleCloud sheet("sheet", particles_at({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}), {{0, 1, 2}});
    ParticleCloud sliver("sliver", particles_at({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)}), {{0, 1, 2}});
    CHECK_THROWS_WITH(AerodynamicDrag(AerodynamicDragSettings{0.0, 1.0, {}}), Contains("medium_density: must be"));
    CHECK_THROWS_WITH(AerodynamicDrag(AerodynamicDragSettings{1.2, -1.0, {}}), Contains("drag_coefficient: must be"));
    SECTION("default selection: every element with triangles, rods skipped") {
        auto scene = soma::testing::TestScene::bound_in_order({&rod, &sheet});
        AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {}});
        CHECK_NOTHROW(drag.bind(scene));
        CHECK(drag.triangle_count() == 1);
    }
    SECTION("a scene without triangles is refused") {
        auto scene = soma::testing::TestScene::bound_in_order({&rod});
        AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {}});
        CHECK_THROWS_WITH(drag.bind(scene), Contains("elements: no element of the scene has triangles"));
    }
    SECTION("an explicitly named element without triangles is refused") {
        auto scene = soma::testing::TestScene::bound_in_order({&rod, &sheet});
        AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {"sheet", "rod"}});
        CHECK_THROWS_WITH(drag.bind(scene), Contains("elements: element 'rod' has no triangles"));
    }
    SECTION("unknown element") {
        auto scene = soma::testing::TestScene::bound_in_order({&rod, &sheet});
        AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {"shet"}});
        CHECK_THROWS_WITH(drag.bind(scene), Contains("no element named 'shet'; elements are: rod, sheet"));
    }
    SECTION("a triangle of zero undeformed area is refused") {
        auto scene = soma::testing::TestScene::bound_in_order({&sliver});
        AerodynamicDrag drag(AerodynamicDragSettings{kRho, kCd, {}});
        CHECK_THROWS_WITH(drag.bind(scene), Contains("triangle 0 of element 'sliver' has zero undeformed area"));
    }
}
