// Screw-theory operators of the GVS plugin (Mathew et al., Appendices A and B): the identities
// B1-B14 on random inputs, exp and log of SE(3) against the matrix exponential series, and the
// tangent operator, its coefficients (both branches, across the switch), its time derivative and
// its inverse against finite differences and exact identities.
#include "../screw_theory.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace soma;
using namespace soma::gvs;

namespace {

Vec6 random_twist(std::mt19937& gen, double scale = 1.0) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Vec6 v;
    for (Index i = 0; i < 6; ++i) v[i] = scale * u(gen);
    return v;
}

/// A twist whose rotation angle is exactly \p theta.
Vec6 twist_with_angle(std::mt19937& gen, double theta) {
    Vec6 v = random_twist(gen);
    v.head<3>() *= theta / v.head<3>().norm();
    return v;
}

Pose random_pose(std::mt19937& gen) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Quaternion q = Quaternion(u(gen), u(gen), u(gen), u(gen)).normalized();
    return Pose{q.toRotationMatrix(), Vec3(u(gen), u(gen), u(gen))};
}

/// The matrix exponential by its Taylor series: 30 terms leave a truncation of
/// |A|^30/30! < 1e-15 for |A| <= 4 (the twists below have |Omega^| < 4).
Eigen::Matrix4d exp_series(const Eigen::Matrix4d& a) {
    Eigen::Matrix4d sum = Eigen::Matrix4d::Identity(), term = Eigen::Matrix4d::Identity();
    for (int k = 1; k < 30; ++k) {
        term = term * a / static_cast<double>(k);
        sum += term;
    }
    return sum;
}

/// The inverse of hat: [w; v] of an se(3) matrix.
Vec6 vee(const Eigen::Matrix4d& m) {
    Vec6 v;
    v << m(2, 1), m(0, 2), m(1, 0), m(0, 3), m(1, 3), m(2, 3);
    return v;
}

template <class A, class B>
double relative_error(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
    return (a - b).norm() / b.norm();
}

}  // namespace

TEST_CASE("ad, ad* and adbar* match their definitions and identities B1-B3", "[gvs]") {
    std::mt19937 gen(1);
    for (int trial = 0; trial < 20; ++trial) {
        const Vec6 a = random_twist(gen), b = random_twist(gen);
        // Round-off of a few 6 x 6 products of O(1) entries: 1e-14 is 50 ulps.
        const Eigen::Matrix4d bracket = hat(a) * hat(b) - hat(b) * hat(a);
        CHECK((hat(ad(a) * b) - bracket).norm() < 1e-14);             // Lie bracket
        CHECK((coad(a) + ad(a).transpose()).norm() == 0.0);           // B1, exact
        CHECK((ad(a) * b + ad(b) * a).norm() < 1e-14);                // B2
        CHECK((coad(a) * b - coad_bar(b) * a).norm() < 1e-14);        // B3
        CHECK((coad_bar(a) + coad_bar(a).transpose()).norm() == 0.0); // antisymmetric
        CHECK((ad(a) * a).norm() < 1e-15);
    }
}

TEST_CASE("Poses, Ad and coAd and their inverses are consistent", "[gvs]") {
    std::mt19937 gen(2);
    for (int trial = 0; trial < 20; ++trial) {
        const Pose g = random_pose(gen), k = random_pose(gen);
        const Vec6 V = random_twist(gen);
        const Eigen::Matrix4d G = to_matrix(g);
        // Products of O(1) rotation matrices: 1e-14.
        CHECK((to_matrix(compose(g, k)) - G * to_matrix(k)).norm() < 1e-14);
        CHECK((to_matrix(inverse(g)) - G.inverse()).norm() < 1e-13);
        CHECK((hat(Ad(g) * V) - G * hat(V) * G.inverse()).norm() < 1e-13);  // Ad_g V = (g V^ g^-1)^v
        CHECK((Ad(compose(g, k)) - Ad(g) * Ad(k)).norm() < 1e-13);
        CHECK((Ad_inverse(g) - Ad(inverse(g))).norm() < 1e-14);
        CHECK((Ad_inverse(g) * Ad(g) - Mat6::Identity()).norm() < 1e-14);
        CHECK((coAd(g) - Ad(g).inverse().transpose()).norm() < 1e-13);  // Ad* = Ad^{-T}
        CHECK((coAd_inverse(g) - Ad(g).transpose()).norm() < 1e-14);     // Ad^{-*} = Ad^T
        CHECK((coAd_inverse(g) * coAd(g) - Mat6::Identity()).norm() < 1e-14);
    }
}

TEST_CASE("Identities B4-B9 hold on random poses and twists", "[gvs]") {
    std::mt19937 gen(3);
    for (int trial = 0; trial < 20; ++trial) {
        const Pose g = random_pose(gen);
        const Vec6 V = random_twist(gen);
        // Products of three 6 x 6 matrices with entries up to ~3: 1e-13 absolute.
        CHECK((Ad(g) * ad(V) - ad(Ad(g) * V) * Ad(g)).norm() < 1e-13);                          // B4
        CHECK((ad(V) * Ad(g) - Ad(g) * ad(Ad_inverse(g) * V)).norm() < 1e-13);                  // B5
        CHECK((coAd(g) * coad(V) - coad(Ad(g) * V) * coAd(g)).norm() < 1e-13);                  // B6
        CHECK((coad(V) * coAd(g) - coAd(g) * coad(Ad_inverse(g) * V)).norm() < 1e-13);          // B7
        CHECK((coAd(g) * coad_bar(V) - coad_bar(coAd(g) * V) * Ad(g)).norm() < 1e-13);          // B8
        CHECK((coad_bar(V) * Ad(g) - coAd(g) * coad_bar(coAd_inverse(g) * V)).norm() < 1e-13);  // B9
    }
}

TEST_CASE("Identities B10-B13: time derivatives of the adjoint maps along g(t) = g exp(t eta^)", "[gvs]") {
    std::mt19937 gen(4);
    const double eps = 1e-6;  // central differences: O(eps^2) = 1e-12 truncation, 1e-10 round-off
    for (int trial = 0; trial < 10; ++trial) {
        const Pose g = random_pose(gen);
        const Vec6 eta = random_twist(gen);
        const Pose gp = compose(g, exp_twist(eps * eta)), gm = compose(g, exp_twist(-eps * eta));
        const Mat6 d_Ad = (Ad(gp) - Ad(gm)) / (2 * eps);
        const Mat6 d_coAd = (coAd(gp) - coAd(gm)) / (2 * eps);
        const Mat6 d_Ad_inv = (Ad_inverse(gp) - Ad_inverse(gm)) / (2 * eps);
        const Mat6 d_coAd_inv = (coAd_inverse(gp) - coAd_inverse(gm)) / (2 * eps);
        CHECK(relative_error(d_Ad, Ad(g) * ad(eta)) < 1e-8);                        // B10
        CHECK(relative_error(d_coAd, coAd(g) * coad(eta)) < 1e-8);                  // B11
        CHECK(relative_error(d_Ad_inv, Mat6(-ad(eta) * Ad_inverse(g))) < 1e-8);     // B12
        CHECK(relative_error(d_coAd_inv, Mat6(-coad(eta) * coAd_inverse(g))) < 1e-8);  // B13
    }
}

TEST_CASE("exp_twist matches the matrix exponential series and log_pose inverts it", "[gvs]") {
    std::mt19937 gen(5);
    // Angles on both sides of the series switch, tiny ones, and up to near pi.
    const double angles[] = {0.0, 1e-12, 1e-7, 1e-3, 0.1, 0.7, 1.2, 1.5, 2.0 * (1.0 - 1e-12), 2.0, 2.0 * (1.0 + 1e-12),
                             2.8, 3.1};
    for (const double theta : angles) {
        for (int trial = 0; trial < 5; ++trial) {
            const Vec6 omega = theta == 0.0 ? Vec6(0, 0, 0, 0.3, -0.8, 0.5) : twist_with_angle(gen, theta);
            const Pose g = exp_twist(omega);
            INFO("theta = " << theta);
            // Series of 30 terms of a matrix of norm < 4: terms up to 4^3/3! ~ 10 round to ~2e-15.
            CHECK((to_matrix(g) - exp_series(hat(omega))).norm() < 1e-14);
            CHECK((g.R.transpose() * g.R - Mat3::Identity()).norm() < 4e-15);  // ~20 ulps over 9 entries
            // log: w from the quaternion (Shepperd), v through V^{-1}; a few ulps of |Omega| < 3.2.
            CHECK((log_pose(g) - omega).norm() < 1e-14);
            CHECK((to_matrix(exp_twist(-omega)) - to_matrix(inverse(g))).norm() < 1e-14);
        }
    }
    // A pure translation: R = I and p = v exactly.
    const Vec6 translation(0, 0, 0, 0.2, -1.5, 3.0);
    const Pose t = exp_twist(translation);
    CHECK(t.R == Mat3::Identity());
    CHECK(t.p == translation.tail<3>());
    CHECK(log_pose(t) == translation);
}

TEST_CASE("[B14]: d/dt exp(xi^) = exp(xi^) (Ad^{-1}_{exp(xi^)} T(xi) xidot)^", "[gvs]") {
    std::mt19937 gen(6);
    const double eps = 1e-6;
    for (const double theta : {0.0, 1e-6, 0.4, 2.0, 2.5}) {
        for (int trial = 0; trial < 5; ++trial) {
            const Vec6 xi = theta == 0.0 ? Vec6(0, 0, 0, 1, 0, 0) : twist_with_angle(gen, theta);
            const Vec6 xi_dot = random_twist(gen);
            const Eigen::Matrix4d fd =
                (to_matrix(exp_twist(xi + eps * xi_dot)) - to_matrix(exp_twist(xi - eps * xi_dot))) / (2 * eps);
            const Pose e = exp_twist(xi);
            const Eigen::Matrix4d exact = to_matrix(e) * hat(Ad_inverse(e) * (tangent(xi) * xi_dot));
            INFO("theta = " << theta);
            CHECK(relative_error(fd, exact) < 1e-8);  // central differences, eps = 1e-6
        }
    }
}

TEST_CASE("Tangent operator: T Omega = Omega, Ad_exp T(-Omega) = T(Omega), T = dexp, T^-1 T = I", "[gvs]") {
    std::mt19937 gen(7);
    const double eps = 1e-6;
    const double angles[] = {0.0, 1e-9, 1e-4, 0.05, 0.5, 1.0, 2.0 * (1.0 - 1e-12), 2.0 * (1.0 + 1e-12), 2.2, 3.0, 4.5};
    for (const double theta : angles) {
        for (int trial = 0; trial < 5; ++trial) {
            const Vec6 omega = theta == 0.0 ? Vec6(0, 0, 0, 1, 0.2, -0.1) : twist_with_angle(gen, theta);
            const Mat6 T = tangent(omega);
            INFO("theta = " << theta);
            // Exact identities up to round-off of 6 x 6 products (entries up to ~20 at theta = 4.5).
            CHECK((T * omega - omega).norm() < 1e-14 * (1.0 + omega.norm()));
            CHECK((Ad(exp_twist(omega)) * tangent(-omega) - T).norm() < 1e-13);
            CHECK((tangent_inverse(omega) * T - Mat6::Identity()).norm() < 1e-13);
            // dexp: d/de exp((Omega + e d)^) exp(-Omega^) = (T d)^ for every direction d.
            Mat6 dexp;
            const Pose e_inv = inverse(exp_twist(omega));
            for (Index j = 0; j < 6; ++j) {
                const Vec6 d = Vec6::Unit(j);
                const Eigen::Matrix4d derivative =
                    (to_matrix(exp_twist(omega + eps * d)) - to_matrix(exp_twist(omega - eps * d))) / (2 * eps);
                dexp.col(j) = vee(derivative * to_matrix(e_inv));
            }
            CHECK(relative_error(dexp, T) < 1e-8);  // central differences, eps = 1e-6
        }
    }
    // A 1-DoF joint's axis is invariant: T Phi = Phi because ad_Phi Phi = 0.
    const Vec6 axis(0.3, -0.2, 0.9, 0.1, 0.5, -0.4);
    CHECK((tangent(1.7 * axis) * axis - axis).norm() < 1e-14);
}

TEST_CASE("tangent_dot is the time derivative of T(Omega(t))", "[gvs]") {
    std::mt19937 gen(8);
    const double eps = 1e-6;
    for (const double theta : {0.0, 1e-7, 0.02, 0.6, 2.0, 2.7}) {
        for (int trial = 0; trial < 5; ++trial) {
            const Vec6 omega = theta == 0.0 ? Vec6(0, 0, 0, 1, 0, 0) : twist_with_angle(gen, theta);
            const Vec6 omega_dot = random_twist(gen);
            const Mat6 fd = (tangent(omega + eps * omega_dot) - tangent(omega - eps * omega_dot)) / (2 * eps);
            INFO("theta = " << theta);
            CHECK(relative_error(fd, tangent_dot(omega, omega_dot)) < 1e-8);
        }
    }
}

TEST_CASE("Tangent coefficients: exact values at 0, derivatives by differences, 50-digit references", "[gvs]") {
    // theta = 0: f = 1/2, 1/6, 1/24, 1/120; f'/theta and f'' = 0, 0, -1/180, -1/1260 (exact series).
    const TangentCoefficients zero = tangent_coefficients(0.0);
    CHECK(zero.f[0] == 0.5);
    CHECK(zero.f[1] == 1.0 / 6.0);
    CHECK(zero.f[2] == 1.0 / 24.0);
    CHECK(zero.f[3] == 1.0 / 120.0);
    CHECK(zero.df_over_theta[0] == 0.0);
    CHECK(zero.df_over_theta[1] == 0.0);
    CHECK(zero.df_over_theta[2] == Approx(-1.0 / 180.0).epsilon(1e-15));
    CHECK(zero.df_over_theta[3] == Approx(-1.0 / 1260.0).epsilon(1e-15));
    CHECK(zero.d2f[2] == Approx(-1.0 / 180.0).epsilon(1e-15));
    CHECK(zero.d2f[3] == Approx(-1.0 / 1260.0).epsilon(1e-15));

    // Derivatives against central differences of the functions themselves, on both branches.
    // Step 1e-5: truncation eps^2 |f'''|/6 < 1e-11, round-off 1e-16/1e-5 = 1e-11.
    const double eps = 1e-5;
    for (const double theta : {0.01, 0.3, 1.0, 1.99, 2.01, 2.5, 3.5}) {
        const auto c = detail::tangent_coefficients_extended(theta);
        const auto cp = detail::tangent_coefficients_extended(theta + eps);
        const auto cm = detail::tangent_coefficients_extended(theta - eps);
        for (std::size_t r = 0; r < 4; ++r) {
            INFO("theta = " << theta << ", r = " << r + 1);
            const double df = (cp.base.f[r] - cm.base.f[r]) / (2 * eps);
            const double d2f = (cp.base.df_over_theta[r] * (theta + eps) - cm.base.df_over_theta[r] * (theta - eps)) /
                               (2 * eps);
            const double dh = (cp.base.df_over_theta[r] - cm.base.df_over_theta[r]) / (2 * eps);
            CHECK(std::abs(df - c.base.df_over_theta[r] * theta) < 1e-10);
            CHECK(std::abs(d2f - c.base.d2f[r]) < 1e-10);
            CHECK(std::abs(dh - c.g[r] * theta) < 1e-10);
        }
    }

    // References computed with 50-digit arithmetic (mpmath) from the closed forms; both
    // branches reproduce them to 1e-16 absolute (the values are at most 0.5).
    struct Reference {
        double theta;
        std::array<double, 4> f, h, d2;
    };
    const Reference references[] = {
        {0.7,
         {0.49967231611802302, 0.16661967188146739, 0.040323291055059163, 0.0081408620993298547},
         {-0.0026515371961125176, -0.00038101944159011086, -0.0054113004002296278, -0.00077759069712267522},
         {-0.007814778599969808, -0.0011274594297520742, -0.0051259269545811689, -0.00074575621749357648}},
        {2.0,
         {0.48074906156715077, 0.16382619954858167, 0.031678088107591293, 0.0068720944754479709},
         {-0.017862908685367269, -0.0026823842696485614, -0.0044657271713418171, -0.00067059606741214036},
         {-0.045635248472471483, -0.0071333716067730228, -0.0024773577754342366, -0.00044215076686897497}},
        {2.5,
         {0.45667152815422749, 0.16015296769961226, 0.026958167946674895, 0.0061528295875624767},
         {-0.024590073931618276, -0.0038059799911374882, -0.0039344118290589242, -0.00060895679858199811},
         {-0.056263142949597788, -0.0093661539670683233, -0.0011332792138177977, -0.0002806710375669355}},
    };
    for (const auto& ref : references) {
        // Each branch where it is used and at the switch (the series at 0.7 and 2, the closed
        // forms at 2 and 2.5): round-off of a few ulps of values below 0.5.
        if (ref.theta <= detail::kSeriesAngle) {
            const auto c = detail::tangent_coefficients_series(ref.theta).base;
            for (std::size_t r = 0; r < 4; ++r) {
                INFO("series, theta = " << ref.theta << ", r = " << r + 1);
                CHECK(std::abs(c.f[r] - ref.f[r]) < 3e-16);
                CHECK(std::abs(c.df_over_theta[r] - ref.h[r]) < 3e-16);
                CHECK(std::abs(c.d2f[r] - ref.d2[r]) < 3e-16);
            }
        }
        if (ref.theta >= detail::kSeriesAngle) {
            const auto c = detail::tangent_coefficients_closed(ref.theta).base;
            for (std::size_t r = 0; r < 4; ++r) {
                INFO("closed form, theta = " << ref.theta << ", r = " << r + 1);
                CHECK(std::abs(c.f[r] - ref.f[r]) < 3e-16);
                CHECK(std::abs(c.df_over_theta[r] - ref.h[r]) < 3e-16);
                CHECK(std::abs(c.d2f[r] - ref.d2[r]) < 3e-16);
            }
        }
    }
}

TEST_CASE("Tangent coefficients are continuous across the series switch", "[gvs]") {
    const double switch_angle = detail::kSeriesAngle;
    // The two branches agree near the switch to round-off (measured: < 1e-16 for every
    // coefficient on [1.9, 2.1]); 5e-16 leaves room for other libm implementations.
    for (double theta = 1.9; theta <= 2.1; theta += 0.005) {
        const auto s = detail::tangent_coefficients_series(theta);
        const auto c = detail::tangent_coefficients_closed(theta);
        for (std::size_t r = 0; r < 4; ++r) {
            INFO("theta = " << theta << ", r = " << r + 1);
            CHECK(std::abs(s.base.f[r] - c.base.f[r]) < 5e-16);
            CHECK(std::abs(s.base.df_over_theta[r] - c.base.df_over_theta[r]) < 5e-16);
            CHECK(std::abs(s.base.d2f[r] - c.base.d2f[r]) < 5e-16);
            CHECK(std::abs(s.g[r] - c.g[r]) < 5e-16);
        }
    }
    // Across the switch the jump is round-off, not a truncation step.
    const auto below = detail::tangent_coefficients_extended(std::nextafter(switch_angle, 0.0));
    const auto above = detail::tangent_coefficients_extended(switch_angle);
    for (std::size_t r = 0; r < 4; ++r) {
        CHECK(std::abs(below.base.f[r] - above.base.f[r]) < 1e-15);
        CHECK(std::abs(below.base.df_over_theta[r] - above.base.df_over_theta[r]) < 1e-15);
        CHECK(std::abs(below.base.d2f[r] - above.base.d2f[r]) < 1e-15);
        CHECK(std::abs(below.g[r] - above.g[r]) < 1e-15);
    }
    // The SE(3) log coefficient and T^{-1} likewise.
    const auto lb = detail::log_coefficients(std::nextafter(switch_angle, 0.0));
    const auto la = detail::log_coefficients(switch_angle);
    CHECK(std::abs(lb.L - la.L) < 1e-16);
    CHECK(std::abs(lb.dL_ds - la.dL_ds) < 1e-16);
}
