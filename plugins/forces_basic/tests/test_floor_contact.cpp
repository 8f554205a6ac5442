// Smooth floor contact with smoothed Coulomb friction (MAT-DiSMech §5.2, eq. 25-26; eq. 25 is the energy gradient).
#include "floor_contact.hpp"

#include "force_test_support.hpp"
#include "soma/smooth_contact_law.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;
using namespace soma::forces_basic;
using namespace soma::forces_basic::testing;
using Catch::Matchers::Contains;

namespace {

// MAT-DiSMech's rod drop (§7.1, Fig. 7, reference code values): k_c = 20 N/m, r0 = δ = 1 mm (K1 = 15000 /m), floor at z = -0.05 m.
constexpr double kStiffness = 20.0;
constexpr double kRadius = 1e-3;
constexpr double kFloor = -0.05;
constexpr double kK1 = 15.0 / kRadius;
constexpr double kSlip = 1e-3;
constexpr double kK2 = 15.0 / kSlip;

// Gaps probing every regime of the penalty: inside the band, at the contact surface, deep
// penetration (K1 Δ = -75, where e^{-K1 Δ} would already be 4e32), and above the band.
constexpr double kGaps[] = {3e-4, 0.0, -5e-3, 2e-3};

/// Tangential velocities probing every friction regime (plus a normal component that friction
/// must ignore): stick |v_t| = 0.3 v_tol, slip |v_t| = 20 v_tol, and v_t = 0 exactly.
Vec3 tangential_velocity(int regime) {
    switch (regime) {
        case 0: return Vec3(0.3 * kSlip * 0.6, -0.3 * kSlip * 0.8, 0.02);
        case 1: return Vec3(-20 * kSlip * 0.8, 20 * kSlip * 0.6, -0.1);
        default: return Vec3(0.0, 0.0, 0.05);
    }
}

/// Points at every (gap, friction regime) pair, on the floor z = kFloor with normal +z.
ParticleCloud regime_cloud() {
    std::vector<ParticleCloud::Point> particles;
    for (double gap : kGaps)
        for (int regime = 0; regime < 3; ++regime)
            particles.push_back({Vec3(0.01 * regime, -0.02 * gap, kFloor + kRadius + gap), 0.01, 0.0, kRadius});
    return ParticleCloud("rod", particles);
}

VectorX regime_velocities(Index n_points) {
    VectorX v(3 * n_points);
    for (Index i = 0; i < n_points; ++i) v.segment<3>(3 * i) = tangential_velocity(i % 3);
    return v;
}

/// Compares analytic and finite-difference Jacobians 3x3 block by block, each relative to its
/// own size, so that a wrong small block (a point barely in contact) is not hidden by a large
/// one (deep penetration). Off-diagonal blocks must be exactly zero in both (points are
/// independent), and so must a block whose FD is exactly zero (outside the band).
void check_blocks(const Eigen::MatrixXd& J, const Eigen::MatrixXd& fd, double tolerance) {
    const Index n = static_cast<Index>(J.rows()) / 3;
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) {
            const Eigen::Matrix3d a = J.block<3, 3>(3 * i, 3 * j), b = fd.block<3, 3>(3 * i, 3 * j);
            INFO("block (" << i << ", " << j << ")\nanalytic\n" << a << "\nfinite differences\n" << b);
            if (i != j || b.isZero(0.0)) {
                CHECK(a.isZero(0.0));
                CHECK(b.isZero(0.0));
            } else {
                CHECK((a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff() < tolerance);
            }
        }
}

}  // namespace

TEST_CASE("floor contact: normal force values (eq. 25 negated: the physical force)", "[floor_contact]") {
    ParticleCloud rod = regime_cloud();
    auto scene = soma::testing::TestScene::bound_in_order({&rod});
    FloorContactSettings settings;
    settings.height = kFloor;
    settings.stiffness = kStiffness;
    FloorContact floor(settings);
    floor.bind(scene);
    DenseForceProbe probe(floor, scene.dof_count());
    const VectorX& q = scene.state().q;
    const VectorX v = regime_velocities(12);
    const VectorX F = probe.residual(q, v);

    for (int g = 0; g < 4; ++g) {
        const Vec3 f = F.segment<3>(9 * g);  // regime 0 point of gap g; μ = 0 so all regimes agree
        const double a = std::exp(-kK1 * kGaps[g]);
        const double physical = 2.0 * kStiffness * a * std::log1p(a) / (kK1 * (1.0 + a));  // -eq. 25
        INFO("gap " << kGaps[g]);
        CHECK(f.head<2>().isZero(0.0));
        if (kGaps[g] >= kRadius) {
            CHECK(f[2] == 0.0);  // above the band: nothing
        } else {
            CHECK(f[2] < 0.0);   // residual +∇E: the force on the point, -f, pushes it up
            CHECK(-f[2] == Approx(physical).epsilon(1e-12));
        }
    }
    // Rod drop of MAT-DiSMech Fig. 7: at Δ = 0 the normal force is k_c ln2/K1 = 9.24e-4 N.
    CHECK(-F[9 + 2] == Approx(9.24e-4).epsilon(1e-3));
    // Deep penetration: a finite penalty spring, |F_c| -> 2 k_c |Δ|.
    CHECK(-F[18 + 2] == Approx(2.0 * kStiffness * 5e-3).epsilon(1e-12));
    CHECK(floor.symmetric_jacobian());
}

TEST_CASE("floor contact: the residual is the gradient of the contact energy", "[floor_contact]") {
    ParticleCloud rod = regime_cloud();
    auto scene = soma::testing::TestScene::bound_in_order({&rod});
    FloorContactSettings settings;
    settings.height = kFloor;
    settings.stiffness = kStiffness;
    FloorContact floor(settings);
    floor.bind(scene);
    DenseForceProbe probe(floor, scene.dof_count());
    const VectorX& q = scene.state().q;
    const VectorX v = regime_velocities(12);
    const VectorX F = probe.residual(q, v);
    // E varies on the scale 1/K1; h = 1e-3/K1 gives O((K1 h)²) = 1e-6 truncation, and the
    // round-off eps |E| / h stays below 1e-8 of |F|: tolerance 1e-5 relative per DOF.
    const double h = 1e-3 / kK1;
    for (Index j = 0; j < scene.dof_count(); ++j) {
        VectorX qp = q, qm = q;
        qp[j] += h;
        qm[j] -= h;
        const double dE = (probe.energy(qp) - probe.energy(qm)) / (2 * h);
        INFO("dof " << j);
        if (F[j] == 0.0)
            CHECK(dE == 0.0);
        else
            CHECK(dE == Approx(F[j]).epsilon(1e-5));
    }
    // The energy at Δ = 0: k_c (ln2/K1)².
    CHECK(probe.energy(q) > 0.0);
    const double e0 = kStiffness * std::pow(std::log(2.0) / kK1, 2);
    CHECK(penalty_energy(0.0, kStiffness, kK1).energy == Approx(e0).epsilon(1e-14));
}

TEST_CASE("floor contact: Jacobian against central differences in every regime", "[floor_contact]") {
    const double mu = GENERATE(0.0, 0.4);
    INFO("friction " << mu);
    ParticleCloud rod = regime_cloud();
    auto scene = soma::testing::TestScene::bound_in_order({&rod});
    FloorContactSettings settings;
    settings.height = kFloor;
    settings.stiffness = kStiffness;
    settings.friction = mu;
    settings.slip_velocity = kSlip;
    FloorContact floor(settings);
    floor.bind(scene);
    CHECK(floor.symmetric_jacobian() == (mu == 0.0));
    DenseForceProbe probe(floor, scene.dof_count());
    const VectorX& q = scene.state().q;
    const VectorX v = regime_velocities(12);

    // Step sizes 1e-3 of the smoothing scales 1/K1 (position) and 1/K2 (velocity): the O(h²)
    // truncation error is ~(1e-3)² = 1e-6 relative (the smoothed functions vary on exactly those
    // scales), round-off eps |F| / h is < 1e-8 relative. Tolerance 1e-5 relative per block.
    SECTION("dF/dq (c_q = 1, c_v = 0)") {
        check_blocks(probe.jacobian(q, v, {1.0, 0.0, 0.0}), probe.fd_dq(q, v, 1e-3 / kK1), 1e-5);
    }
    SECTION("dF/dv (c_q = 0, c_v = 1)") {
        check_blocks(probe.jacobian(q, v, {0.0, 1.0, 0.0}), probe.fd_dv(q, v, 1e-3 / kK2), 1e-5);
    }
    SECTION("the combined Jacobian is c_q dF/dq + c_v dF/dv; the residual does not depend on it") {
        const Eigen::MatrixXd Jq = probe.jacobian(q, v, {1.0, 0.0, 0.0});
        const Eigen::MatrixXd Jv = probe.jacobian(q, v, {0.0, 1.0, 0.0});
        const Eigen::MatrixXd J = probe.jacobian(q, v, {1e-8, 1e-4, 1.0});
        CHECK((J - (1e-8 * Jq + 1e-4 * Jv)).cwiseAbs().maxCoeff() <= 1e-15 * J.cwiseAbs().maxCoeff());
        CHECK((probe.residual_with_jacobian(q, v, {1e-8, 1e-4, 1.0}) - probe.residual(q, v)).isZero(0.0));
    }
}

TEST_CASE("floor contact: friction in stick, slip and at rest", "[floor_contact]") {
    const double mu = 0.25;  // MAT-DiSMech §7.1, Fig. 7
    ParticleCloud rod = regime_cloud();
    auto scene = soma::testing::TestScene::bound_in_order({&rod});
    FloorContactSettings settings;
    settings.height = kFloor;
    settings.stiffness = kStiffness;
    settings.friction = mu;
    settings.slip_velocity = kSlip;
    FloorContact floor(settings);
    floor.bind(scene);
    DenseForceProbe probe(floor, scene.dof_count());
    const VectorX& q = scene.state().q;
    const VectorX v = regime_velocities(12);
    const VectorX F = probe.residual(q, v);

    for (int g = 0; g < 3; ++g) {  // the three gaps in contact
        const double normal = -F[9 * g + 2];
        INFO("gap " << kGaps[g]);
        REQUIRE(normal > 0.0);
        for (int regime = 0; regime < 3; ++regime) {
            const Vec3 f = F.segment<3>(9 * g + 3 * regime);
            const Vec3 vt(tangential_velocity(regime).x(), tangential_velocity(regime).y(), 0.0);
            const Vec3 friction_force(-f.x(), -f.y(), 0.0);  // force on the point = -residual
            CHECK(f.z() == Approx(-normal).epsilon(1e-14));  // friction does not change the normal force
            if (regime == 2) {
                CHECK(friction_force.isZero(0.0));  // at rest: no friction, and no NaN
            } else {
                const double w = vt.norm();
                const double gamma = 2.0 / (1.0 + std::exp(-kK2 * w)) - 1.0;  // eq. 23's smoothing
                CHECK(friction_force.norm() == Approx(mu * gamma * normal).epsilon(1e-12));
                CHECK(friction_force.normalized().dot(-vt.normalized()) == Approx(1.0).epsilon(1e-14));
                if (regime == 1) CHECK(friction_force.norm() == Approx(mu * normal).epsilon(1e-12));  // Coulomb
                if (regime == 0) CHECK(friction_force.norm() < 0.98 * mu * normal);  // smoothed stick
            }
        }
    }
    SECTION("at rest the friction is linear viscous with coefficient mu |F_c| K2/2") {
        const Eigen::MatrixXd J = probe.jacobian(q, v, {0.0, 1.0, 0.0});
        const double normal = -F[9 + 2];
        const Eigen::Matrix3d block = J.block<3, 3>(9 + 6, 9 + 6);  // gap 0, v_t = 0
        CHECK(block(0, 0) == Approx(mu * normal * kK2 / 2).epsilon(1e-14));
        CHECK(block(1, 1) == Approx(mu * normal * kK2 / 2).epsilon(1e-14));
        CHECK(block(2, 2) == 0.0);
    }
    SECTION("contact and friction do not scale with the statics load factor") {
        CHECK((probe.residual(q, v, 0.1) - F).isZero(0.0));
    }
}

TEST_CASE("floor contact: arbitrary floor normal", "[floor_contact]") {
    const Vec3 n = Vec3(1.0, -0.5, 2.0).normalized();
    const double offset = 0.3;  // the floor n.x = 0.3
    std::vector<ParticleCloud::Point> particles;
    const Vec3 tangent = n.cross(Vec3::UnitX()).normalized();
    for (double gap : {3e-4, 0.0, -5e-3, 2e-3})
        particles.push_back({(offset + kRadius + gap) * n + 0.07 * tangent, 0.01, 0.0, kRadius});
    ParticleCloud body("body", particles);
    auto scene = soma::testing::TestScene::bound_in_order({&body});
    FloorContactSettings settings;
    settings.height = offset;
    settings.normal = Vec3(2.0, -1.0, 4.0);  // not unit: normalised at construction
    settings.stiffness = kStiffness;
    settings.friction = 0.3;
    settings.slip_velocity = kSlip;
    FloorContact floor(settings);
    CHECK((floor.normal() - n).norm() < 1e-15);
    floor.bind(scene);
    DenseForceProbe probe(floor, scene.dof_count());
    const VectorX& q = scene.state().q;
    VectorX v(12);
    v << 3e-4, 1e-4, -2e-4, -0.01, 0.02, 0.005, 0.0, 0.0, 0.0, 0.1, 0.1, 0.1;
    v.segment<3>(6) = 0.05 * n;  // purely normal velocity: v_t = 0 exactly

    const VectorX F0 = probe.residual(q, VectorX::Zero(12));
    SECTION("normal force along n, magnitude -E'(gap)") {
        const double a = 1.0;  // gap 0 at point 1
        const double physical = 2.0 * kStiffness * a * std::log1p(a) / (kK1 * (1.0 + a));
        CHECK((F0.segment<3>(3) + physical * n).norm() < 1e-15);
        CHECK(F0.segment<3>(9).isZero(0.0));  // above the band
    }
    SECTION("friction is tangential: the normal component of v gives none") {
        const VectorX F = probe.residual(q, v);
        // Point 2 moves along n: v_t = v - n (n.v) is zero up to round-off (~eps |v|), and the
        // friction it leaves is mu |F_c| (K2/2) eps |v| ~ 1e-13 mu |F_c|.
        const double coulomb = 0.3 * F0.segment<3>(6).norm();
        CHECK((F.segment<3>(6) - F0.segment<3>(6)).norm() < 1e-11 * coulomb);
        // Point 1 slides: its friction is orthogonal to n up to round-off of |F| ~ 1e-3 N.
        const Vec3 friction = F.segment<3>(3) - F0.segment<3>(3);
        CHECK(friction.norm() > 0.0);
        CHECK(std::abs(n.dot(friction)) < 1e-14 * F.segment<3>(3).norm());
    }
    // Same steps and tolerance as the +z case (see above).
    SECTION("dF/dq") { check_blocks(probe.jacobian(q, v, {1.0, 0.0, 0.0}), probe.fd_dq(q, v, 1e-3 / kK1), 1e-5); }
    SECTION("dF/dv") { check_blocks(probe.jacobian(q, v, {0.0, 1.0, 0.0}), probe.fd_dv(q, v, 1e-3 / kK2), 1e-5); }
}

TEST_CASE("floor contact: band, shared points and settings errors", "[floor_contact]") {
    SECTION("an explicit band sets K1 = 15/band") {
        ParticleCloud rod("rod", {{Vec3(0, 0, kRadius), 1.0, 0.0, kRadius}});
        auto scene = soma::testing::TestScene::bound_in_order({&rod});
        FloorContactSettings settings;
        settings.band = 5e-4;
        FloorContact floor(settings);
        floor.bind(scene);
        DenseForceProbe probe(floor, scene.dof_count());
        const VectorX F = probe.residual(scene.state().q, scene.state().v);
        CHECK(-F[2] == Approx(settings.stiffness * std::log(2.0) * 5e-4 / 15.0).epsilon(1e-13));
    }
    SECTION("a point shared by two elements touches the floor once, with the larger radius") {
        ParticleCloud a("a", {{Vec3(0, 0, 2e-3), 1.0, 0.0, 2e-3}});
        ParticleCloud b("b", {{Vec3(0, 0, 2e-3), 1.0, 0.0, 1e-3}});
        auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
        b.bind_from(0);  // b's point is a's point
        FloorContact floor(FloorContactSettings{});
        floor.bind(scene);
        DenseForceProbe probe(floor, scene.dof_count());
        const VectorX F = probe.residual(scene.state().q, scene.state().v);
        // radius 2 mm: gap 0, band 2 mm, K1 = 7500
        CHECK(-F[2] == Approx(20.0 * std::log(2.0) / 7500.0).epsilon(1e-13));
        CHECK(F.tail(3).isZero(0.0));
    }
    SECTION("points of radius 0 need an explicit band") {
        ParticleCloud sheet("sheet", {{Vec3(0, 0, 0), 1.0, 0.0, 0.0}});
        auto scene = soma::testing::TestScene::bound_in_order({&sheet});
        FloorContact floor(FloorContactSettings{});
        CHECK_THROWS_WITH(floor.bind(scene), Contains("band: point 0 of element 'sheet' has contact radius 0"));
    }
    SECTION("unknown element") {
        ParticleCloud rod("rod", {{Vec3(0, 0, 0), 1.0, 0.0, 1e-3}});
        auto scene = soma::testing::TestScene::bound_in_order({&rod});
        FloorContactSettings settings;
        settings.elements = {"shell"};
        FloorContact floor(settings);
        CHECK_THROWS_WITH(floor.bind(scene), Contains("floor_contact: elements: no element named 'shell'; elements are: rod"));
    }
    SECTION("invalid settings") {
        FloorContactSettings s;
        s.stiffness = 0.0;
        CHECK_THROWS_WITH(FloorContact(s), Contains("stiffness: must be > 0"));
        s = {};
        s.band = -1.0;
        CHECK_THROWS_WITH(FloorContact(s), Contains("band: must be > 0"));
        s = {};
        s.friction = -0.1;
        CHECK_THROWS_WITH(FloorContact(s), Contains("friction: must be >= 0"));
        s = {};
        s.slip_velocity = 0.0;
        CHECK_THROWS_WITH(FloorContact(s), Contains("slip_velocity: must be > 0"));
        s = {};
        s.normal = Vec3::Zero();
        CHECK_THROWS_WITH(FloorContact(s), Contains("normal: must be a nonzero finite vector"));
    }
}
