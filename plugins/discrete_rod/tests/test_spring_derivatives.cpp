// Derivative tests of the stretching and bend-twist springs (MAT-DiSMech eq. 9-10, 11-14, 15-16)
// against central finite differences.
//
// Tolerances. Central differences with step h have truncation error h^2/6 |f'''| and round-off
// error ~ eps |f| / h. With h = 1e-6 on O(1) coordinates and O(1) energies this is ~1e-12 +
// ~1e-10 in relative terms; we accept a relative error (max-norm of the difference over the
// max-norm of the analytic value) of 1e-6, four orders above the expected FD error and far below
// the O(1) relative errors that a wrong term or sign produces.
#include "bend_twist_spring.hpp"
#include "rod_frames.hpp"
#include "stretching_spring.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <limits>

#include <Eigen/Geometry>

#include <functional>
#include <random>

using namespace soma;
using namespace soma::rod;

namespace {

constexpr double kStep = 1e-6;
constexpr double kRelTol = 1e-6;

double relative_error(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric) {
    return soma::testing::max_relative_error(analytic, numeric);
}

Eigen::VectorXd fd_gradient(const std::function<double(const Eigen::VectorXd&)>& f, const Eigen::VectorXd& x) {
    return soma::testing::finite_difference_gradient(f, x, kStep);
}

/// H(i, j) = d g_i / d x_j by central differences of the analytic gradient.
Eigen::MatrixXd fd_jacobian(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& g,
                            const Eigen::VectorXd& x) {
    const Eigen::VectorXd g0 = g(x);
    Eigen::MatrixXd J(g0.size(), x.size());
    Eigen::VectorXd xp = x, xm = x;
    for (int j = 0; j < x.size(); ++j) {
        xp(j) += kStep;
        xm(j) -= kStep;
        J.col(j) = (g(xp) - g(xm)) / (2.0 * kStep);
        xp(j) = xm(j) = x(j);
    }
    return J;
}

Vec3 random_vec(std::mt19937& rng, double scale = 1.0) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    return scale * Vec3(u(rng), u(rng), u(rng));
}

/// A random committed state of one bend-twist spring; the configuration at q (11 DOFs) has its
/// reference frames time-parallel transported from the committed tangents and its reference
/// twist updated from the committed value, exactly as the element does (MAT-DiSMech §3.2, eq. 15).
struct SpringFixture {
    Vec3 t_e0, t_f0, a1_e0, a1_f0;
    double twist0 = 0.0;
    Eigen::VectorXd q0 = Eigen::VectorXd(11);
    BendTwistSpring spring;

    explicit SpringFixture(unsigned seed) {
        std::mt19937 rng(seed);
        const Vec3 xp = random_vec(rng), xc = xp + Vec3(1.0, 0.2, -0.1) + random_vec(rng, 0.3),
                   xn = xc + Vec3(0.6, 0.5, 0.3) + random_vec(rng, 0.3);
        q0 << xp, xc, xn, 0.7, -0.4;  // nonzero twist angles
        t_e0 = (xc - xp).normalized();
        t_f0 = (xn - xc).normalized();
        a1_e0 = t_e0.cross(random_vec(rng)).normalized();
        // Reference frame of f: transported from e and turned by 0.5 rad -> reference twist 0.5.
        a1_f0 = rotate_about_axis(parallel_transport(a1_e0, t_e0, t_f0), t_f0, 0.5);
        twist0 = reference_twist(a1_e0, t_e0, a1_f0, t_f0, 0.0);
        spring.voronoi_length = 0.9;
        spring.bend_stiffness1 = 1.3;
        spring.bend_stiffness2 = 0.7;
        spring.twist_stiffness = 0.45;
        spring.rest_kappa1 = 0.3;  // nonzero natural curvature and twist
        spring.rest_kappa2 = -0.2;
        spring.rest_twist = 0.1;
    }

    BendTwistConfiguration configuration(const Eigen::VectorXd& q) const {
        BendTwistConfiguration c;
        c.x_prev = q.segment<3>(0);
        c.x_center = q.segment<3>(3);
        c.x_next = q.segment<3>(6);
        c.theta_e = q(9);
        c.theta_f = q(10);
        const Vec3 t_e = (c.x_center - c.x_prev).normalized();
        const Vec3 t_f = (c.x_next - c.x_center).normalized();
        c.a1_e = time_parallel_transport(a1_e0, t_e0, t_e);
        c.a1_f = time_parallel_transport(a1_f0, t_f0, t_f);
        c.a2_e = t_e.cross(c.a1_e);
        c.a2_f = t_f.cross(c.a1_f);
        c.reference_twist = reference_twist(c.a1_e, t_e, c.a1_f, t_f, twist0);
        c.source_e = t_e0;
        c.source_f = t_f0;
        return c;
    }
};

using Scalar8 = std::function<void(const BendTwistKinematics&, VecN<8>&, MatN<8>&)>;

void check_quantity(const SpringFixture& fx, const Scalar8& derivatives,
                    const std::function<double(const BendTwistKinematics&)>& value) {
    auto f = [&](const Eigen::VectorXd& q) { return value(bend_twist_kinematics(fx.configuration(q))); };
    auto grad = [&](const Eigen::VectorXd& q) {
        VecN<8> g8;
        MatN<8> H8;
        derivatives(bend_twist_kinematics(fx.configuration(q)), g8, H8);
        VecN<11> g;
        edge_to_node_gradient(g8, g);
        return Eigen::VectorXd(g);
    };
    VecN<8> g8;
    MatN<8> H8;
    derivatives(bend_twist_kinematics(fx.configuration(fx.q0)), g8, H8);
    MatN<11> H;
    edge_to_node_hessian(H8, H);
    CHECK(relative_error(grad(fx.q0), fd_gradient(f, fx.q0)) < kRelTol);
    CHECK(relative_error(H, fd_jacobian(grad, fx.q0)) < kRelTol);
}

}  // namespace

TEST_CASE("stretching spring: gradient and Hessian match finite differences", "[discrete_rod][derivatives]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 5; ++trial) {
        const StretchingSpring spring{0.8 + 0.1 * trial, 3.5};
        Eigen::VectorXd q(6);
        q << random_vec(rng), random_vec(rng) + Vec3(1.0, 0.0, 0.0);
        auto f = [&](const Eigen::VectorXd& x) { return stretching_energy(spring, x.head<3>(), x.tail<3>()); };
        auto grad = [&](const Eigen::VectorXd& x) {
            VecN<6> g;
            MatN<6> H;
            stretching_energy_gradient_hessian(spring, x.head<3>(), x.tail<3>(), g, H);
            return Eigen::VectorXd(g);
        };
        VecN<6> g;
        MatN<6> H;
        const double energy = stretching_energy_gradient_hessian(spring, q.head<3>(), q.tail<3>(), g, H);
        CHECK(energy == Approx(f(q)).epsilon(1e-14));
        CHECK(relative_error(g, fd_gradient(f, q)) < kRelTol);
        CHECK(relative_error(H, fd_jacobian(grad, q)) < kRelTol);
    }
}

TEST_CASE("curvatures and twist: gradients and Hessians match finite differences", "[discrete_rod][derivatives]") {
    for (unsigned seed : {1u, 2u, 3u, 4u}) {
        const SpringFixture fx(seed);
        INFO("seed " << seed);
        SECTION("kappa1") {
            check_quantity(fx, curvature1_derivatives, [](const BendTwistKinematics& k) { return k.kappa1; });
        }
        SECTION("kappa2") {
            check_quantity(fx, curvature2_derivatives, [](const BendTwistKinematics& k) { return k.kappa2; });
        }
        SECTION("twist") {
            check_quantity(fx, twist_derivatives, [](const BendTwistKinematics& k) { return k.twist; });
        }
    }
}

TEST_CASE("bend-twist spring: energy gradient and Hessian match finite differences", "[discrete_rod][derivatives]") {
    struct Case {
        const char* name;
        double ei1, ei2, gj;
    };
    for (const Case& c : {Case{"bending", 1.3, 0.7, 0.0}, Case{"twisting", 0.0, 0.0, 0.45},
                          Case{"bending + twisting", 1.3, 0.7, 0.45}}) {
        for (unsigned seed : {11u, 12u, 13u}) {
            SpringFixture fx(seed);
            fx.spring.bend_stiffness1 = c.ei1;
            fx.spring.bend_stiffness2 = c.ei2;
            fx.spring.twist_stiffness = c.gj;
            INFO(c.name << ", seed " << seed);
            auto f = [&](const Eigen::VectorXd& q) { return bend_twist_energy(fx.spring, fx.configuration(q)); };
            auto grad = [&](const Eigen::VectorXd& q) {
                VecN<11> g;
                MatN<11> H;
                bend_twist_energy_gradient_hessian(fx.spring, fx.configuration(q), g, H);
                return Eigen::VectorXd(g);
            };
            VecN<11> g;
            MatN<11> H;
            const double energy = bend_twist_energy_gradient_hessian(fx.spring, fx.configuration(fx.q0), g, H);
            CHECK(energy > 0.0);
            CHECK(energy == Approx(f(fx.q0)).epsilon(1e-14));
            CHECK(relative_error(g, fd_gradient(f, fx.q0)) < kRelTol);
            CHECK(relative_error(H, fd_jacobian(grad, fx.q0)) < kRelTol);
        }
    }
}

TEST_CASE("bend-twist spring: exact gradient and symmetric Hessian away from the committed state", "[discrete_rod][derivatives]") {
    // Within a step the frames are transported from the committed tangents to tangents that
    // have turned (here by ~0.2 rad per edge, a large step): the energy is then a function of the
    // DOFs whose derivatives include the spin of the transport (bend_twist_spring.hpp). Without
    // that term the gradient is off by O(angle x twisting moment) ~ 1e-1 relative here, far above
    // the FD tolerance, and the Hessian's antisymmetric part is of that order too.
    for (unsigned seed : {41u, 42u, 43u}) {
        SpringFixture fx(seed);
        INFO("seed " << seed);
        std::mt19937 rng(seed);
        Eigen::VectorXd q = fx.q0;
        for (int i = 0; i < 9; ++i) q(i) += 0.2 * std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
        q(9) += 0.3;
        q(10) -= 0.2;
        auto f = [&](const Eigen::VectorXd& x) { return bend_twist_energy(fx.spring, fx.configuration(x)); };
        auto grad = [&](const Eigen::VectorXd& x) {
            VecN<11> g;
            MatN<11> H;
            bend_twist_energy_gradient_hessian(fx.spring, fx.configuration(x), g, H);
            return Eigen::VectorXd(g);
        };
        VecN<11> g;
        MatN<11> H;
        bend_twist_energy_gradient_hessian(fx.spring, fx.configuration(q), g, H);
        CHECK(std::abs(g(9)) > 1e-2);  // a twisting moment: the spin term is not zero
        CHECK(relative_error(g, fd_gradient(f, q)) < kRelTol);
        CHECK(relative_error(H, fd_jacobian(grad, q)) < kRelTol);
        // The Hessian of a function: symmetric up to round-off (FD tolerance scale).
        CHECK((H - H.transpose()).cwiseAbs().maxCoeff() < 1e-10 * H.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("bend-twist spring: energy is invariant under rigid rotations", "[discrete_rod]") {
    const SpringFixture fx(21);
    const BendTwistConfiguration c = fx.configuration(fx.q0);
    const Mat3 R = Eigen::AngleAxisd(1.1, Vec3(0.3, -0.5, 0.8).normalized()).toRotationMatrix();
    BendTwistConfiguration r = c;
    r.x_prev = R * c.x_prev + Vec3(1, 2, 3);
    r.x_center = R * c.x_center + Vec3(1, 2, 3);
    r.x_next = R * c.x_next + Vec3(1, 2, 3);
    r.a1_e = R * c.a1_e;
    r.a2_e = R * c.a2_e;
    r.a1_f = R * c.a1_f;
    r.a2_f = R * c.a2_f;
    const double e0 = bend_twist_energy(fx.spring, c);
    CHECK(bend_twist_energy(fx.spring, r) == Approx(e0).epsilon(1e-12));
    const StretchingSpring s{0.9, 2.0};
    CHECK(stretching_energy(s, r.x_prev, r.x_center) == Approx(stretching_energy(s, c.x_prev, c.x_center)).epsilon(1e-12));
}

TEST_CASE("gradient-only paths equal the gradients of the Hessian paths, bit for bit", "[discrete_rod][derivatives]") {
    // The Newton solver evaluates trial points without the Jacobian; their residual must be the
    // one the Jacobian evaluation assembles at the same point (same shared code, same rounding).
    for (unsigned seed : {31u, 32u, 33u}) {
        const SpringFixture fx(seed);
        INFO("seed " << seed);
        const BendTwistConfiguration c = fx.configuration(fx.q0);
        VecN<11> g_only, g_full, g_sym;
        MatN<11> H, H_sym;
        const double e_only = bend_twist_energy_gradient(fx.spring, c, g_only);
        const double e_full = bend_twist_energy_gradient_hessian(fx.spring, c, g_full, H);
        const double e_sym =
            bend_twist_energy_gradient_symmetric_hessian(fx.spring, bend_twist_kinematics(c), g_sym, H_sym);
        CHECK(e_only == e_full);
        CHECK(e_sym == e_full);
        CHECK((g_only.array() == g_full.array()).all());
        CHECK((g_sym.array() == g_full.array()).all());
        // The symmetric variant is symmetric to round-off (the compiler may order the block sums
        // of the 8 -> 11 mapping differently for mirrored entries: 1 ulp seen with assertions on;
        // solvers reading one triangle need no more) and is the symmetric part of H.
        const double asymmetry = (H_sym - H_sym.transpose()).cwiseAbs().maxCoeff();
        INFO("max asymmetry " << asymmetry << " of max entry " << H_sym.cwiseAbs().maxCoeff());
        CHECK(asymmetry <= 4.0 * std::numeric_limits<double>::epsilon() * H_sym.cwiseAbs().maxCoeff());
        CHECK(relative_error(H_sym, 0.5 * (H + H.transpose())) < 1e-14);

        const StretchingSpring s{0.8, 3.5};
        VecN<6> g6_only, g6_full;
        MatN<6> H6;
        CHECK(stretching_energy_gradient(s, c.x_prev, c.x_center, g6_only) ==
              stretching_energy_gradient_hessian(s, c.x_prev, c.x_center, g6_full, H6));
        CHECK((g6_only.array() == g6_full.array()).all());
    }
}
