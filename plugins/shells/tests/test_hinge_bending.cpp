// Derivative tests of the hinge angle and hinge energy (MAT-DiSMech §3.3.1, eq. 17) and of the edge
// stretching spring (§3.1, eq. 9-10) against central finite differences.
//
// Tolerances. Central differences with step h have truncation error h^2/6 |f'''| and round-off
// error ~ eps |f| / h. With h = 1e-6 on O(1) coordinates and O(1) angles this is ~1e-12 + ~1e-10
// relative; we accept a relative error (max-norm of the difference over the max-norm of the
// analytic value) of 1e-6: four orders above the expected FD error, far below the O(1) error of
// a wrong term or sign. The hinge geometries keep every triangle height >= 0.3 so that the third
// derivatives (~1/h^3) stay O(10) and the FD error stays well under the bound.
#include "hinge_bending.hpp"
#include "shell_stretching.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <functional>
#include <numbers>
#include <random>

using namespace soma;
using namespace soma::shells;

namespace {

constexpr double kStep = 1e-6;
constexpr double kRelTol = 1e-6;

double relative_error(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric) {
    return soma::testing::max_relative_error(analytic, numeric);
}

Eigen::VectorXd fd_gradient(const std::function<double(const Eigen::VectorXd&)>& f, const Eigen::VectorXd& x) {
    return soma::testing::finite_difference_gradient(f, x, kStep);
}

Eigen::MatrixXd fd_jacobian(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& g, const Eigen::VectorXd& x) {
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

Vec3 node(const Eigen::VectorXd& q, int k) { return q.segment<3>(3 * k); }

/// A hinge along x0 = 0 -> x1 = (1, 0, 0) with wings at y = +-1 (flat), x3 rotated by `fold`
/// about e0 and x2 by `-fold_2`, then moved rigidly (rotation + translation) so that no
/// coordinate is special. The hinge angle is fold + fold_2.
Eigen::VectorXd folded_hinge(double fold, double fold_2 = 0.0) {
    const Vec3 x0(0.0, 0.0, 0.0), x1(1.0, 0.0, 0.0);
    const Vec3 x2(0.4, std::cos(-fold_2), std::sin(-fold_2));
    const Vec3 x3(0.7, -std::cos(fold), -std::sin(fold));
    const Mat3 R = (Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()) * Eigen::AngleAxisd(-1.1, Vec3::UnitZ())).matrix();
    const Vec3 shift(0.2, -0.5, 1.3);
    Eigen::VectorXd q(12);
    q << R * x0 + shift, R * x1 + shift, R * x2 + shift, R * x3 + shift;
    return q;
}

Eigen::VectorXd random_hinge(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-0.25, 0.25);
    Eigen::VectorXd q = folded_hinge(0.0);
    // Perturb a flat hinge by up to 0.25 per coordinate: general (non-planar, non-symmetric)
    // shapes with every triangle height well above 0.3.
    for (int i = 0; i < 12; ++i) q(i) += u(rng);
    return q;
}

double angle_of(const Eigen::VectorXd& q) { return hinge_angle(node(q, 0), node(q, 1), node(q, 2), node(q, 3)); }

Eigen::VectorXd angle_gradient_of(const Eigen::VectorXd& q) {
    VecN<12> g;
    hinge_angle_gradient(node(q, 0), node(q, 1), node(q, 2), node(q, 3), g);
    return g;
}

void check_angle_derivatives(const Eigen::VectorXd& q) {
    VecN<12> g, g_only;
    MatN<12> H;
    const double phi = hinge_angle_gradient_hessian(node(q, 0), node(q, 1), node(q, 2), node(q, 3), g, H);
    const double phi_only = hinge_angle_gradient(node(q, 0), node(q, 1), node(q, 2), node(q, 3), g_only);
    CHECK(phi == angle_of(q));
    CHECK(phi_only == phi);
    CHECK((g - g_only).cwiseAbs().maxCoeff() == 0.0);
    CHECK(relative_error(g, fd_gradient(angle_of, q)) < kRelTol);
    CHECK(relative_error(H, fd_jacobian(angle_gradient_of, q)) < kRelTol);
    CHECK((H - H.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * H.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("hinge angle: zero when flat, signed, equal to the fold angle", "[hinge]") {
    CHECK(std::abs(angle_of(folded_hinge(0.0))) < 1e-15);
    // Wings rotated away from the first face's normal n0 = e0 x e1 give a positive angle.
    CHECK(angle_of(folded_hinge(0.3)) == Approx(0.3).epsilon(1e-13));
    CHECK(angle_of(folded_hinge(0.2, 0.1)) == Approx(0.3).epsilon(1e-13));
    CHECK(angle_of(folded_hinge(-0.7)) == Approx(-0.7).epsilon(1e-13));
    const double deg150 = 150.0 * std::numbers::pi / 180.0;
    CHECK(angle_of(folded_hinge(deg150)) == Approx(deg150).epsilon(1e-13));
    // The angle does not depend on where the wing vertices sit along the edge.
    Eigen::VectorXd q = folded_hinge(0.5);
    const Vec3 e0 = node(q, 1) - node(q, 0);
    q.segment<3>(6) += 0.3 * e0;
    q.segment<3>(9) -= 0.2 * e0;
    CHECK(angle_of(q) == Approx(0.5).epsilon(1e-13));
}

TEST_CASE("hinge angle gradient and Hessian match finite differences", "[hinge][fd]") {
    SECTION("exactly flat") { check_angle_derivatives(folded_hinge(0.0)); }
    SECTION("nearly flat") { check_angle_derivatives(folded_hinge(1e-3, 5e-4)); }
    SECTION("moderately folded") { check_angle_derivatives(folded_hinge(0.4, 0.3)); }
    SECTION("strongly folded, 150 degrees") { check_angle_derivatives(folded_hinge(75.0 * std::numbers::pi / 180.0, 75.0 * std::numbers::pi / 180.0)); }
    SECTION("strongly folded, -150 degrees, asymmetric") { check_angle_derivatives(folded_hinge(-2.0, -0.62)); }
    SECTION("random configurations") {
        for (unsigned seed = 1; seed <= 20; ++seed) {
            INFO("seed " << seed);
            check_angle_derivatives(random_hinge(seed));
        }
    }
}

TEST_CASE("hinge energy gradient and Hessian match finite differences", "[hinge][fd]") {
    HingeSpring spring{1.7, 0.35};
    auto energy = [&](const Eigen::VectorXd& q) { return hinge_energy(spring, node(q, 0), node(q, 1), node(q, 2), node(q, 3)); };
    auto gradient = [&](const Eigen::VectorXd& q) -> Eigen::VectorXd {
        VecN<12> g;
        hinge_energy_gradient(spring, node(q, 0), node(q, 1), node(q, 2), node(q, 3), g);
        return g;
    };
    for (const Eigen::VectorXd& q : {folded_hinge(1e-3), folded_hinge(1.2, 1.4), random_hinge(7), random_hinge(8)}) {
        VecN<12> g;
        MatN<12> H;
        const double e = hinge_energy_gradient_hessian(spring, node(q, 0), node(q, 1), node(q, 2), node(q, 3), g, H);
        CHECK(e == Approx(energy(q)).epsilon(1e-14));
        CHECK(relative_error(g, gradient(q)) < 1e-14);
        CHECK(relative_error(g, fd_gradient(energy, q)) < kRelTol);
        CHECK(relative_error(H, fd_jacobian(gradient, q)) < kRelTol);
    }
    // At the natural angle the energy and force vanish and the Hessian is k grad phi grad phi^T.
    spring.natural_angle = 0.8;
    const Eigen::VectorXd q = folded_hinge(0.5, 0.3);
    VecN<12> g;
    MatN<12> H;
    CHECK(hinge_energy_gradient_hessian(spring, node(q, 0), node(q, 1), node(q, 2), node(q, 3), g, H) == Approx(0.0).margin(1e-28));
    CHECK(g.norm() < 1e-13);
}

TEST_CASE("hinge stiffness is the reference code's (2/sqrt(3)) E h^3/12", "[hinge]") {
    // E = 20 GPa, h = 1 mm -> k_b = 1.925 N m (MAT-DiSMech reference code's value).
    CHECK(hinge_bending_stiffness(20e9, 1e-3) == Approx(1.9245).epsilon(1e-4));
}

TEST_CASE("edge stretching spring: stiffness formulas and derivatives", "[stretching][fd]") {
    // MAT-DiSMech reference code: hinge mode (sqrt(3)/2) E h l, mid-edge mode 2 E h l / (1 - nu^2).
    CHECK(shell_stretching_stiffness(StretchingMode::hinge, 2e9, 0.3, 1e-3, 0.005) ==
          Approx(std::sqrt(3.0) / 2.0 * 2e9 * 1e-3 * 0.005).epsilon(1e-15));
    CHECK(shell_stretching_stiffness(StretchingMode::midedge, 2e9, 0.5, 1e-3, 0.005) ==
          Approx(2.0 * 2e9 * 1e-3 * 0.005 / 0.75).epsilon(1e-15));
    CHECK_THROWS(shell_stretching_stiffness(StretchingMode::midedge, 2e9, 1.0, 1e-3, 0.005));

    const EdgeSpring spring{0.8, 3.0};
    auto energy = [&](const Eigen::VectorXd& q) { return edge_spring_energy(spring, node(q, 0), node(q, 1)); };
    auto gradient = [&](const Eigen::VectorXd& q) -> Eigen::VectorXd {
        VecN<6> g;
        edge_spring_energy_gradient(spring, node(q, 0), node(q, 1), g);
        return g;
    };
    for (unsigned seed = 1; seed <= 5; ++seed) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        Eigen::VectorXd q(6);
        for (int i = 0; i < 6; ++i) q(i) = u(rng);
        q.tail<3>() += Vec3(1.0, 0.0, 0.0);
        VecN<6> g;
        MatN<6> H;
        const double e = edge_spring_energy_gradient_hessian(spring, node(q, 0), node(q, 1), g, H);
        CHECK(e == Approx(energy(q)).epsilon(1e-14));
        CHECK(relative_error(g, fd_gradient(energy, q)) < kRelTol);
        CHECK(relative_error(H, fd_jacobian(gradient, q)) < kRelTol);
        CHECK((H - H.transpose()).cwiseAbs().maxCoeff() == 0.0);
    }
}
