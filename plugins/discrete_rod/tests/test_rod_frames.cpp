// Rod frames (MAT-DiSMech §3.2, eq. 15): parallel transport, signed angle, rotation, space-parallel
// frames, reference twist. Tolerances are a few hundred ulps: every quantity is O(1) and is
// computed by a handful of products.
#include "rod_frames.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <numbers>
#include <vector>

using namespace soma;
using namespace soma::rod;

namespace {
constexpr double kTol = 1e-13;
}

TEST_CASE("parallel transport maps t1 to t2 and preserves lengths and angles", "[discrete_rod][frames]") {
    const Vec3 t1 = Vec3(1.0, 0.2, -0.3).normalized();
    const Vec3 t2 = Vec3(-0.2, 1.0, 0.4).normalized();
    CHECK((parallel_transport(t1, t1, t2) - t2).norm() < kTol);
    const Vec3 u(0.3, -0.7, 0.2), w(-1.0, 0.1, 0.5);
    const Vec3 Pu = parallel_transport(u, t1, t2), Pw = parallel_transport(w, t1, t2);
    CHECK(Pu.dot(Pw) == Approx(u.dot(w)).epsilon(kTol));
    CHECK(Pu.norm() == Approx(u.norm()).epsilon(kTol));
    // The binormal t1 x t2 is left in place.
    const Vec3 b = t1.cross(t2);
    CHECK((parallel_transport(b, t1, t2) - b).norm() < kTol);
    // Parallel tangents: identity.
    CHECK((parallel_transport(u, t1, t1) - u).norm() < kTol);
}

TEST_CASE("signed angle and rotation about an axis are inverse", "[discrete_rod][frames]") {
    const Vec3 n = Vec3(0.2, -0.4, 1.0).normalized();
    const Vec3 u = n.cross(Vec3(1.0, 0.0, 0.0)).normalized();
    for (double phi : {-3.0, -1.0, -0.1, 0.0, 0.4, 2.5, 3.1}) {
        const Vec3 v = rotate_about_axis(u, n, phi);
        CHECK(v.norm() == Approx(1.0).epsilon(kTol));
        CHECK(signed_angle(u, v, n) == Approx(phi).margin(kTol));
    }
}

TEST_CASE("space-parallel frames are orthonormal and adapted; reference twist is zero", "[discrete_rod][frames]") {
    std::vector<Vec3> t;
    for (int i = 0; i < 8; ++i) t.push_back(Vec3(std::cos(0.4 * i), std::sin(0.4 * i), 0.3 * i - 1.0).normalized());
    t.push_back(Vec3(0.0, 1.0, 0.0));  // also exercises the first-edge fallback when alone
    std::vector<Vec3> a1(t.size());
    space_parallel_frames(t, a1);
    for (std::size_t i = 0; i < t.size(); ++i) {
        CHECK(a1[i].norm() == Approx(1.0).epsilon(kTol));
        CHECK(std::abs(a1[i].dot(t[i])) < kTol);
    }
    for (std::size_t i = 0; i + 1 < t.size(); ++i)
        CHECK(std::abs(reference_twist(a1[i], t[i], a1[i + 1], t[i + 1], 0.0)) < kTol);

    std::vector<Vec3> single{Vec3(0.0, 1.0, 0.0)}, single_a1(1);
    space_parallel_frames(single, single_a1);
    CHECK(single_a1[0].norm() == Approx(1.0).epsilon(kTol));
    CHECK(std::abs(single_a1[0].dot(single[0])) < kTol);
}

TEST_CASE("the default first director and a given one", "[discrete_rod][frames]") {
    // The documented rule: unit(t0 x y), or unit(t0 x (-z)) along y.
    CHECK((default_first_director(Vec3::UnitX()) - Vec3::UnitZ()).norm() < kTol);
    CHECK((default_first_director(Vec3::UnitY()) + Vec3::UnitX()).norm() < kTol);
    CHECK((default_first_director(-Vec3::UnitY()) - Vec3::UnitX()).norm() < kTol);
    CHECK((default_first_director(Vec3::UnitZ()) + Vec3::UnitX()).norm() < kTol);
    // A given first director is projected orthogonal to t0, normalised, and transported.
    const std::vector<Vec3> t{Vec3::UnitX(), Vec3(0.8, 0.6, 0.0)};
    std::vector<Vec3> a1(2);
    space_parallel_frames(t, a1, Vec3(3.0, 0.0, -2.0));
    CHECK((a1[0] + Vec3::UnitZ()).norm() < kTol);
    CHECK((a1[1] + Vec3::UnitZ()).norm() < kTol);  // transport about z keeps -z
}

TEST_CASE("reference twist continues past pi from its previous value", "[discrete_rod][frames]") {
    const Vec3 te = Vec3(1.0, 0.0, 0.0), tf = Vec3(0.6, 0.8, 0.0);
    const Vec3 a1e = Vec3(0.0, 0.0, 1.0);
    // a1_f turned by 3.0 + 0.5 rad from the transported a1_e: with the previous twist 3.0 the
    // result is 3.5 (not 3.5 - 2 pi).
    const Vec3 a1f = rotate_about_axis(parallel_transport(a1e, te, tf), tf, 3.5);
    CHECK(reference_twist(a1e, te, a1f, tf, 3.0) == Approx(3.5).epsilon(kTol));
    CHECK(reference_twist(a1e, te, a1f, tf, 0.0) == Approx(3.5 - 2.0 * std::numbers::pi).epsilon(kTol));
}

TEST_CASE("material frame turns the reference frame by theta about t", "[discrete_rod][frames]") {
    const Vec3 t(0.0, 0.0, 1.0), a1(1.0, 0.0, 0.0), a2 = t.cross(a1);
    Vec3 m1, m2;
    material_frame(a1, a2, 0.3, m1, m2);
    CHECK(signed_angle(a1, m1, t) == Approx(0.3).epsilon(kTol));
    CHECK((m1.cross(m2) - t).norm() < kTol);
}
