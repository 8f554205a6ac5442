// The actuation term B(q) u of tau = B u - K q - D qdot (Mathew et al., eq. 35) and its derivative
// (eq. 36a): tendons (eqs. D60-D63) on the paper's cable-driven manipulator (section 4.5, Table 2)
// and actuated rigid joints (eqs. D66, D67), each against central finite differences; a pulling
// cable's statics against the closed form; B's columns against the gradients of the cables'
// lengths; D66 against the virtual work of the body-frame wrench Phi u.
#include "actuation_matrix.hpp"
#include "screw_theory.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <functional>
#include <random>

using namespace soma;
using namespace soma::gvs;

namespace {

constexpr double kSqrt3 = 1.7320508075688772;

// The cable-driven manipulator (Mathew et al., section 4.5): L = 0.5 m, r linear from 3 cm at the
// base to 1.5 cm at the tip, E = 1 MPa, nu = 0.5, rho = 1000 kg/m^3, v = 1e4 Pa s, Legendre
// bases of order 4 (angular) and 2 (linear): 24 DoF, 5 Gauss points.
constexpr double kLength = 0.5, kBaseRadius = 0.03, kTipRadius = 0.015;
constexpr double kRadiusSlope = (kTipRadius - kBaseRadius) / kLength;
constexpr double kHelixRate = 4.0 * M_PI / kLength;  // cables 4 and 5: two turns over the rod

double radius(double X) { return kBaseRadius + kRadiusSlope * X; }

RodDiscretization manipulator_rod() {
    return RodDiscretization(RodDescription{
        StrainBasis(BasisFamily::legendre, StrainModeSelection::angular_linear(4, 2), kLength),
        CircularProfile{radius}, RodMaterial{1.0e6, 0.5, 1000.0, 1.0e4}, 5, MagnusOrder::fourth, {}});
}

/// The five cables of Table 2: three straight along the tapered surface at 120 degrees, two
/// helical (two turns) at the tip radius.
std::vector<CableRoute> manipulator_cables() {
    const auto scaled = [](double cy, double cz) {
        return CableRoute{[cy](double X) { return cy * radius(X); }, [cz](double X) { return cz * radius(X); },
                          [cy](double) { return cy * kRadiusSlope; }, [cz](double) { return cz * kRadiusSlope; }};
    };
    const auto helical = [](double sz) {
        return CableRoute{[](double X) { return kTipRadius * std::sin(kHelixRate * X); },
                          [sz](double X) { return sz * kTipRadius * std::cos(kHelixRate * X); },
                          [](double X) { return kTipRadius * kHelixRate * std::cos(kHelixRate * X); },
                          [sz](double X) { return -sz * kTipRadius * kHelixRate * std::sin(kHelixRate * X); }};
    };
    return {scaled(0.0, 1.0), scaled(-kSqrt3 / 2.0, -0.5), scaled(kSqrt3 / 2.0, -0.5), helical(1.0), helical(-1.0)};
}

/// Random strain coordinates of the manipulator: curvatures and torsion of a few rad/m (the rod
/// bends by up to ~1.5 rad), stretch and shear of a few percent.
VectorX random_manipulator_q(const StrainBasis& basis, std::mt19937& rng) {
    std::uniform_real_distribution<double> angular(-3.0, 3.0), linear(-0.05, 0.05);
    VectorX q(basis.dof_count());
    for (int c = 0; c < kStrainComponents; ++c)
        for (Index j = 0; j < basis.component_dof_count(c); ++j)
            q[basis.component_offset(c) + j] = c < 3 ? angular(rng) : linear(rng);
    return q;
}

/// Central differences of f(q) (an m-vector), step h, one column per coordinate.
Eigen::MatrixXd central_differences(const std::function<VectorX(const VectorX&)>& f, const VectorX& q, double h) {
    const VectorX f0 = f(q);
    Eigen::MatrixXd out(f0.size(), q.size());
    for (Index j = 0; j < q.size(); ++j) {
        VectorX plus = q, minus = q;
        plus[j] += h;
        minus[j] -= h;
        out.col(j) = (f(plus) - f(minus)) / (2.0 * h);
    }
    return out;
}

double relative_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

}  // namespace

TEST_CASE("GVS tendons: the routes of Table 2 carry their derivatives", "[gvs]") {
    // The test data itself: d' of each route against central differences of d (step 1e-5: error
    // h^2/6 |d'''| <= 1e-10 * 0.015 * (8 pi)^3 ~ 2e-8, far below a wrong derivative's O(0.01)).
    const auto cables = manipulator_cables();
    for (std::size_t k = 0; k < cables.size(); ++k)
        for (const double X : {0.05, 0.2, 0.37, 0.45}) {
            const double h = 1e-5;
            INFO("cable " << k + 1 << " at X = " << X);
            CHECK(cables[k].dy_dX(X) == Approx((cables[k].y(X + h) - cables[k].y(X - h)) / (2 * h)).margin(1e-7));
            CHECK(cables[k].dz_dX(X) == Approx((cables[k].z(X + h) - cables[k].z(X - h)) / (2 * h)).margin(1e-7));
        }
}

TEST_CASE("GVS tendons: (dB/dq) u against central differences of B(q) u on the manipulator", "[gvs]") {
    const RodDiscretization rod = manipulator_rod();
    const TendonActuation tendons(rod, manipulator_cables());
    REQUIRE(tendons.dof_count() == 24);
    REQUIRE(tendons.cable_count() == 5);
    const Index n = tendons.dof_count();
    std::mt19937 rng(2024);
    std::uniform_real_distribution<double> tension(0.0, 100.0);  // the paper's range (section 4.5)

    const auto check_at = [&](const VectorX& q, const char* what) {
        VectorX u(5);
        for (Index k = 0; k < 5; ++k) u[k] = -tension(rng);  // pulling cables, the paper's u = -T
        VectorX force = VectorX::Zero(n);
        Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(n, n);
        tendons.add_force_and_derivative(q, u, force, jacobian);
        const auto bu = [&](const VectorX& x) {
            VectorX f = VectorX::Zero(n);
            tendons.add_force(x, u, f);
            return f;
        };
        // add_force and add_force_and_derivative agree, and B(q) u is B(q) times u.
        CHECK((force - bu(q)).norm() <= 1e-14 * force.norm());
        Eigen::MatrixXd B(n, 5);
        tendons.actuation_matrix(q, B);
        CHECK((B * u - force).norm() <= 1e-13 * force.norm());
        // Step 1e-6: truncation h^2/6 |f'''| ~ 1e-12 and round-off eps |f| / h ~ 2e-10, relative
        // (|f| and |df/dq| are of the same order here); 1e-7 leaves a factor of 500.
        const Eigen::MatrixXd fd = central_differences(bu, q, 1e-6);
        const double error = relative_error(jacobian, fd);
        INFO(what << ": relative error of (dB/dq) u " << error);
        CHECK(error < 1e-7);
        // u_k times the Hessian of the cables' lengths: symmetric (eq. D63's blocks).
        CHECK((jacobian - jacobian.transpose()).norm() <= 1e-14 * jacobian.norm());
    };
    // The straight rod: cables 1-3 are still inclined (the radius tapers), 4-5 helical.
    // Measured: 1.9e-10 at q = 0, at most 2.6e-10 at random q.
    check_at(VectorX::Zero(n), "q = 0");
    for (int trial = 0; trial < 5; ++trial) check_at(random_manipulator_q(rod.basis, rng), "random q");
}

TEST_CASE("GVS tendons: B's columns are the gradients of the cables' lengths", "[gvs]") {
    // A cable pulled with tension T does the virtual work -T dL_c (section "Tendons" of
    // actuation_matrix.hpp): B(q) (-T) = -T dL_c/dq. With the same quadrature for L_c and B the
    // identity is exact; what remains is the central differences' error (step 1e-6: ~1e-10).
    const RodDiscretization rod = manipulator_rod();
    const TendonActuation tendons(rod, manipulator_cables());
    const Index n = tendons.dof_count();
    std::mt19937 rng(7);
    for (int trial = 0; trial < 4; ++trial) {
        const VectorX q = trial == 0 ? VectorX::Zero(n) : random_manipulator_q(rod.basis, rng);
        Eigen::MatrixXd B(n, 5);
        tendons.actuation_matrix(q, B);
        const auto lengths = [&](const VectorX& x) {
            VectorX l(5);
            tendons.cable_lengths(x, l);
            return l;
        };
        const Eigen::MatrixXd gradient = central_differences(lengths, q, 1e-6).transpose();  // n x 5
        const double error = relative_error(B, gradient);  // measured: at most 3e-10
        INFO("trial " << trial << ": relative error of B against dL_c/dq " << error);
        CHECK(error < 1e-8);

        // The tension API: B(q)(-T) = -T dL_c/dq.
        const VectorX T = (VectorX(5) << 10.0, 0.0, 35.0, 80.0, 5.0).finished();
        VectorX force = VectorX::Zero(n);
        tendons.add_tension_force(q, T, force);
        CHECK((force + gradient * T).norm() <= 1e-8 * force.norm());
    }
    // At q = 0 cables 1-3 run along the tapered surface: L = integral sqrt(1 + r'^2) dX; the
    // helical ones: integral sqrt(1 + (r_t 4 pi / L)^2) dX (constant integrands: exact).
    VectorX l(5);
    tendons.cable_lengths(VectorX::Zero(n), l);
    CHECK(l[0] == Approx(kLength * std::sqrt(1.0 + kRadiusSlope * kRadiusSlope)).epsilon(1e-14));
    CHECK(l[3] == Approx(kLength * std::hypot(1.0, kTipRadius * kHelixRate)).epsilon(1e-14));
}

TEST_CASE("GVS tendons: a pulling cable bends a straight rod towards itself with kappa = T e / (E I)",
          "[gvs][physics]") {
    // A uniform rod, a cable at the constant offset e from the axis, tension T, no gravity.
    // Statics tau = B(q)(-T) - K q = 0 (eq. 35). The exact solution: constant curvature
    // kappa = T e / (E I) towards the cable, stretch v = 1 - T / (E A), nothing else. It is exact
    // (not a small-T approximation): at that strain Tc = (v - kappa e) x stays along the axis,
    // so the cable's wrench is the constant [T e about the normal; -T along the axis] that the
    // section's stiffness balances point by point. The basis spans more (quadratic curvatures,
    // linear strains, torsion and shear): the solve must leave those at zero. Tolerance 1e-10:
    // the Newton solve's round-off with cond(K) ~ E A L^2 / (E I) ~ 1e4 (measured: 5e-16 of
    // kappa in the strain, 3e-16 L at the tip).
    constexpr double r = 0.02, e = 0.015, young = 1.0e6;
    const RodDiscretization rod(RodDescription{
        StrainBasis(BasisFamily::legendre, StrainModeSelection::angular_linear(2, 1), kLength),
        CircularProfile{[](double) { return r; }}, RodMaterial{young, 0.5, 1000.0, 0.0}, 5, MagnusOrder::fourth, {}});
    const double ei = young * M_PI * std::pow(r, 4) / 4.0, ea = young * M_PI * r * r;
    const Index n = rod.dof_count();

    // Newton on K q - B(q)(-T) = 0 with the Jacobian K - (dB/dq)(-T).
    const auto solve = [&](const TendonActuation& cable, double T, int& iterations) {
        VectorX q = VectorX::Zero(n);
        const VectorX tension = VectorX::Constant(1, T);
        for (iterations = 0; iterations < 30; ++iterations) {
            VectorX force = VectorX::Zero(n);
            Eigen::MatrixXd dforce = Eigen::MatrixXd::Zero(n, n);
            cable.add_tension_force_and_derivative(q, tension, force, dforce);
            const VectorX step = (rod.K - dforce).partialPivLu().solve(rod.K * q - force);
            q -= step;
            if (step.norm() <= 1e-15 * (1.0 + q.norm())) break;
        }
        return q;
    };

    for (const double T : {2.0, 20.0}) {  // kappa L = 0.12 and 1.2 rad
        const double kappa = T * e / ei, stretch = 1.0 - T / ea;
        for (const bool along_y : {true, false}) {
            INFO("T = " << T << " N, cable on the " << (along_y ? "y" : "z") << " axis");
            const TendonActuation cable(rod, {along_y ? CableRoute::straight(e, 0.0) : CableRoute::straight(0.0, e)});
            int iterations = 0;
            const VectorX q = solve(cable, T, iterations);
            CHECK(iterations < 10);
            // A curvature about z turns the axis x towards +y; about y, towards -z. Towards the
            // cable at +y: k_z = +kappa; at +z: k_y = -kappa.
            Vec6 expected = Vec6::Zero();
            expected[along_y ? bending_z : bending_y] = along_y ? kappa : -kappa;
            expected[elongation] = stretch;
            for (Index i = 0; i < rod.point_count(); ++i) {
                const auto p = static_cast<std::size_t>(i);
                const Vec6 xi = rod.phi[p] * q + rod.xi_star[p];
                INFO("X = " << rod.X[p] << ": xi = " << xi.transpose());
                CHECK((xi - expected).norm() <= 1e-10 * kappa);
            }
            // The tip: the strain is constant, so g(L) = exp(L xi^) exactly; an arc of radius
            // v / kappa bending towards the cable.
            const Pose tip = exp_twist(kLength * (rod.phi[0] * q + rod.xi_star[0]));
            const double along = stretch / kappa * std::sin(kappa * kLength);
            const double towards = stretch / kappa * (1.0 - std::cos(kappa * kLength));
            const Vec3 expected_tip = along_y ? Vec3(along, towards, 0.0) : Vec3(along, 0.0, towards);
            INFO("tip " << tip.p.transpose() << ", expected " << expected_tip.transpose());
            CHECK((tip.p - expected_tip).norm() <= 1e-10 * kLength);
            CHECK((along_y ? tip.p.y() : tip.p.z()) > 0.1 * towards);  // towards the cable

            // The paper's u with u = +T pushes: the rod bends away from the cable.
            VectorX push = VectorX::Zero(n);
            cable.add_force(VectorX::Zero(n), VectorX::Constant(1, T), push);
            const VectorX q_push = rod.K.ldlt().solve(push);  // the first Newton step from q = 0
            const Vec6 xi_push = rod.phi[0] * q_push;
            CHECK(xi_push[along_y ? bending_z : bending_y] * expected[along_y ? bending_z : bending_y] < 0.0);
        }
    }
}

TEST_CASE("GVS tendons: invalid inputs are rejected", "[gvs]") {
    const RodDiscretization rod = manipulator_rod();
    const TendonActuation tendons(rod, manipulator_cables());
    const Index n = tendons.dof_count();
    VectorX force = VectorX::Zero(n);
    CHECK_THROWS_AS(tendons.add_tension_force(VectorX::Zero(n), VectorX::Constant(5, -1.0), force),
                    std::invalid_argument);
    CHECK_THROWS_AS(tendons.add_force(VectorX::Zero(n), VectorX::Zero(4), force), std::invalid_argument);
    CHECK_THROWS_AS(tendons.add_force(VectorX::Zero(n + 1), VectorX::Zero(5), force), std::invalid_argument);
    // A rod squashed to zero length: v = 0 and no curvature, Tc = d' = 0 for a straight cable.
    const TendonActuation straight(rod, {CableRoute::straight(0.0, 0.01)});
    VectorX q = VectorX::Zero(n);
    q[rod.basis.component_offset(elongation)] = -1.0;  // the constant Legendre mode: v_x = 0
    CHECK_THROWS_AS(straight.add_force(q, VectorX::Ones(1), force), std::domain_error);
    CableRoute missing = CableRoute::straight(0.0, 0.0);
    missing.dz_dX = nullptr;
    CHECK_THROWS_AS(TendonActuation(rod, {missing}), std::invalid_argument);
}

TEST_CASE("GVS joint actuation: (dB/dq) u against central differences (spherical and mixed joints)", "[gvs]") {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const auto check = [&](const JointActuation& joint, const VectorX& q, const char* what) {
        const Index n = joint.dof_count();
        VectorX u(n);
        for (Index k = 0; k < n; ++k) u[k] = 5.0 * unit(rng);
        VectorX force = VectorX::Zero(n);
        Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(n, n);
        joint.add_force_and_derivative(q, u, force, jacobian);
        const auto bu = [&](const VectorX& x) {
            VectorX f = VectorX::Zero(n);
            joint.add_force(x, u, f);
            return f;
        };
        CHECK((force - bu(q)).norm() <= 1e-14 * force.norm());
        Eigen::MatrixXd B(n, n);
        joint.actuation_matrix(q, B);
        CHECK((B * u - force).norm() <= 1e-13 * force.norm());
        // Step 1e-6 as for the tendons: truncation ~1e-12, round-off ~1e-10, relative.
        const double error = relative_error(jacobian, central_differences(bu, q, 1e-6));
        INFO(what << " at q = " << q.transpose() << ": relative error " << error);
        CHECK(error < 1e-7);
    };
    // Measured: at most 8e-10.
    Matrix6X spherical = Matrix6X::Zero(6, 3);
    spherical.topRows<3>().setIdentity();
    const JointActuation ball(spherical);
    // q = 0, the series branch of T's coefficients (theta < 2) and the closed forms (theta > 2).
    check(ball, VectorX::Zero(3), "spherical");
    for (const double angle : {0.3, 1.4, 2.6}) {
        const Vec3 axis = Vec3(unit(rng), unit(rng), unit(rng)).normalized();
        check(ball, angle * axis, "spherical");
    }
    // A 4-DoF joint with rotations and translations mixed and a reference strain with both parts:
    // exercises every block of ad* and adbar* (a spherical joint leaves the linear ones at zero).
    Matrix6X mixed(6, 4);
    for (Index i = 0; i < 6; ++i)
        for (Index j = 0; j < 4; ++j) mixed(i, j) = unit(rng);
    Vec6 xi_star;
    for (Index i = 0; i < 6; ++i) xi_star[i] = 0.3 * unit(rng);
    const JointActuation general(mixed, xi_star);
    for (int trial = 0; trial < 4; ++trial) {
        VectorX q(4);
        for (Index k = 0; k < 4; ++k) q[k] = 1.2 * unit(rng);
        check(general, q, "mixed 4-DoF");
    }
}

TEST_CASE("GVS joint actuation: B u is the virtual work of the body-frame wrench Phi u", "[gvs]") {
    // Independent of D66's algebra: the child's body twist per unit rate of q_j is
    // V_j = (g^{-1} dg/dq_j)^v, here by central differences of log(g(q)^{-1} g(q +- h e_j))
    // (step 1e-5: error h^2 ~ 1e-10 relative), and (B u)_j = (Phi u) . V_j.
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    Matrix6X mixed(6, 3);
    for (Index i = 0; i < 6; ++i)
        for (Index j = 0; j < 3; ++j) mixed(i, j) = unit(rng);
    Vec6 xi_star;
    for (Index i = 0; i < 6; ++i) xi_star[i] = 0.3 * unit(rng);
    const JointActuation joint(mixed, xi_star);
    const VectorX q = (VectorX(3) << 0.7, -1.1, 0.4).finished();
    const VectorX u = (VectorX(3) << 2.0, -1.0, 3.0).finished();
    VectorX force = VectorX::Zero(3);
    joint.add_force(q, u, force);
    const Pose g_inv = inverse(exp_twist(mixed * q + xi_star));
    const Vec6 wrench = mixed * u;
    VectorX work(3);
    const double h = 1e-5;
    for (Index j = 0; j < 3; ++j) {
        VectorX plus = q, minus = q;
        plus[j] += h;
        minus[j] -= h;
        const Vec6 twist = (log_pose(compose(g_inv, exp_twist(mixed * plus + xi_star))) -
                            log_pose(compose(g_inv, exp_twist(mixed * minus + xi_star)))) /
                           (2.0 * h);
        work[j] = wrench.dot(twist);
    }
    INFO("B u " << force.transpose() << ", virtual work " << work.transpose());
    CHECK((force - work).norm() <= 1e-8 * force.norm());
}

TEST_CASE("GVS joint actuation: a one-axis joint has a constant B (1 for a unit revolute or prismatic axis)",
          "[gvs]") {
    // With xi* = 0 and one column Phi: T Phi = Phi (ad_{q Phi} Phi = 0) and Ad*_{exp} Phi = Phi,
    // so B = Phi^T Phi at every q and (dB/dq) u = 0: to round-off (1e-15), at any angle.
    const auto axis = [](std::initializer_list<double> v) {
        Matrix6X phi(6, 1);
        Index i = 0;
        for (const double x : v) phi(i++, 0) = x;
        return phi;
    };
    const double pitch = 0.05;  // m/rad
    const Vec3 a = Vec3(1.0, -2.0, 0.5).normalized();
    struct Case {
        const char* name;
        Matrix6X phi;
        double B;
    };
    const std::vector<Case> cases = {
        {"revolute z", axis({0, 0, 1, 0, 0, 0}), 1.0},
        {"revolute oblique", axis({a.x(), a.y(), a.z(), 0, 0, 0}), 1.0},
        {"prismatic x", axis({0, 0, 0, 1, 0, 0}), 1.0},
        {"helical", axis({a.x(), a.y(), a.z(), pitch * a.x(), pitch * a.y(), pitch * a.z()}), 1.0 + pitch * pitch},
    };
    for (const Case& c : cases) {
        const JointActuation joint(c.phi);
        for (const double q : {0.0, 0.4, 2.9, -5.0}) {
            INFO(c.name << " at q = " << q);
            VectorX force = VectorX::Zero(1);
            Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(1, 1);
            joint.add_force_and_derivative(VectorX::Constant(1, q), VectorX::Constant(1, 3.0), force, jacobian);
            CHECK(force[0] == Approx(3.0 * c.B).epsilon(1e-15));
            CHECK(std::abs(jacobian(0, 0)) <= 1e-14);
        }
    }
}
