// Computational points of a soft rod (Mathew et al., eq. 3, C1), section constants and the
// generalised stiffness and damping (D64, D65).
#include "rod_discretization.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <numbers>
#include <stdexcept>

using namespace soma;
using namespace soma::gvs;

namespace {

constexpr double pi = std::numbers::pi;

/// The cable-driven manipulator's material (Mathew et al., section 4.5).
RodMaterial cdm_material() { return {1e6, 0.5, 1000.0, 1e4}; }

RodDescription uniform_circle(const StrainBasis& basis, double radius, int gauss_points) {
    return {basis, CircularProfile{[radius](double) { return radius; }}, cdm_material(), gauss_points,
            MagnusOrder::fourth, {}};
}

/// The n-point rule from the eigenvalues of the Jacobi matrix (Golub & Welsch 1969): an
/// independent computation to compare Newton's against.
GaussLegendreRule golub_welsch(int n) {
    Eigen::MatrixXd jacobi = Eigen::MatrixXd::Zero(n, n);
    for (int j = 1; j < n; ++j) jacobi(j, j - 1) = jacobi(j - 1, j) = j / std::sqrt(4.0 * j * j - 1.0);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(jacobi);
    GaussLegendreRule rule;
    for (int i = 0; i < n; ++i) {
        rule.nodes.push_back(eig.eigenvalues()(i));
        rule.weights.push_back(2.0 * eig.eigenvectors()(0, i) * eig.eigenvectors()(0, i));
    }
    return rule;
}

double factorial(int n) { return n <= 1 ? 1.0 : n * factorial(n - 1); }

}  // namespace

TEST_CASE("Gauss-Legendre rules match known nodes and weights", "[gvs]") {
    // Tabulated values (Abramowitz & Stegun 25.4.29) to 16 digits; Newton stops at 1e-15, so
    // 2e-16 (one ulp near 1) is the tolerance of the nodes and weights.
    const double tol = 2e-16;
    auto r1 = gauss_legendre(1);
    CHECK(r1.nodes[0] == 0.0);
    CHECK(std::abs(r1.weights[0] - 2.0) < tol);
    auto r2 = gauss_legendre(2);
    CHECK(std::abs(r2.nodes[0] + 1.0 / std::sqrt(3.0)) < tol);
    CHECK(std::abs(r2.nodes[1] - 1.0 / std::sqrt(3.0)) < tol);
    CHECK(std::abs(r2.weights[0] - 1.0) < 2 * tol);
    CHECK(std::abs(r2.weights[1] - 1.0) < 2 * tol);
    auto r3 = gauss_legendre(3);
    CHECK(r3.nodes[1] == 0.0);
    CHECK(std::abs(r3.nodes[2] - std::sqrt(0.6)) < tol);
    CHECK(std::abs(r3.weights[1] - 8.0 / 9.0) < 2 * tol);
    CHECK(std::abs(r3.weights[2] - 5.0 / 9.0) < 2 * tol);
    auto r5 = gauss_legendre(5);
    CHECK(std::abs(r5.nodes[4] - 0.9061798459386640) < tol);
    CHECK(std::abs(r5.nodes[3] - 0.5384693101056831) < tol);
    CHECK(std::abs(r5.weights[4] - 0.2369268850561891) < 2 * tol);
    CHECK(std::abs(r5.weights[3] - 0.4786286704993665) < 2 * tol);
    CHECK(std::abs(r5.weights[2] - 0.5688888888888889) < 2 * tol);
}

TEST_CASE("Gauss-Legendre rules agree with Golub-Welsch for n = 1..64", "[gvs]") {
    // The symmetric eigensolver is backward stable: its eigenvalues are good to about n eps
    // (64 eps ~ 1.4e-14), its eigenvector entries to about n eps absolute, so the small end
    // weights (~1e-3 at n = 64) only to ~1e-12 relative: 1e-11 is Golub-Welsch's accuracy, not ours
    // (ours agree with an extended-precision Newton to 1.1e-16 in nodes and 1e-13 in weights).
    double worst_node = 0.0, worst_weight = 0.0;
    for (int n = 1; n <= kMaxGaussPoints; ++n) {
        const auto newton = gauss_legendre(n);
        const auto reference = golub_welsch(n);
        REQUIRE(newton.nodes.size() == static_cast<size_t>(n));
        double sum = 0.0;
        for (int i = 0; i < n; ++i) {
            worst_node = std::max(worst_node, std::abs(newton.nodes[i] - reference.nodes[i]));
            worst_weight = std::max(worst_weight, std::abs(newton.weights[i] / reference.weights[i] - 1.0));
            sum += newton.weights[i];
            if (i > 0) CHECK(newton.nodes[i] > newton.nodes[i - 1]);
            CHECK(newton.nodes[i] == -newton.nodes[n - 1 - i]);
        }
        CHECK(std::abs(sum - 2.0) < 1e-14);
    }
    CHECK(worst_node < 1e-14);
    CHECK(worst_weight < 1e-11);
    CHECK_THROWS_WITH(gauss_legendre(0), Catch::Contains("n = 0 is outside 1..64"));
    CHECK_THROWS_AS(gauss_legendre(65), std::invalid_argument);
}

TEST_CASE("rod quadrature is exact to degree 2 n_g - 1 and not beyond", "[gvs]") {
    // With the base and tip at weight 0, sum_k w_k f(X_k) is the n_g-point Gauss rule on [0, L].
    // Degrees <= 2 n_g - 1: exact to round-off (1e-14 relative). Degree 2 n_g: the error of
    // (X - L/2)^{2n} is Gauss's remainder (L/2)^{2n+1} 2^{2n+1} (n!)^4 / ((2n+1) ((2n)!)^2),
    // reproduced to 1e-9 relative (round-off of a difference of O(1) numbers, the error being
    // >= 1e-7 of them for n <= 12).
    const double L = 0.6;
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(0, 0), L);
    for (int n = 1; n <= 12; ++n) {
        const RodDiscretization rod(uniform_circle(basis, 0.01, n));
        REQUIRE(rod.point_count() == n + 2);
        CHECK(rod.X.front() == 0.0);
        CHECK(rod.X.back() == L);
        CHECK(rod.weight.front() == 0.0);
        CHECK(rod.weight.back() == 0.0);
        for (int d = 0; d <= 2 * n - 1; ++d) {
            double q = 0.0;
            for (Index k = 0; k < rod.point_count(); ++k) q += rod.weight[k] * std::pow(rod.X[k], d);
            const double exact = std::pow(L, d + 1) / (d + 1);
            CAPTURE(n, d);
            CHECK(std::abs(q / exact - 1.0) < 1e-14);
        }
        double q = 0.0;
        for (Index k = 0; k < rod.point_count(); ++k) q += rod.weight[k] * std::pow(rod.X[k] - L / 2, 2 * n);
        const double exact = 2.0 * std::pow(L / 2, 2 * n + 1) / (2 * n + 1);
        const double remainder = std::pow(L / 2, 2 * n + 1) * std::pow(2.0, 2 * n + 1) *
                                 std::pow(factorial(n), 4) / ((2 * n + 1) * std::pow(factorial(2 * n), 2));
        CAPTURE(n);
        CHECK(std::abs((exact - q) / remainder - 1.0) < 1e-9);
    }
}

TEST_CASE("intervals carry the Zanna points or the midpoint", "[gvs]") {
    const double L = 0.5;
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(4, 2), L);
    const RodDiscretization rod(uniform_circle(basis, 0.02, 5));
    // The cable-driven manipulator: 5 Gauss points, n_p = 7, 24 DoF (Mathew et al., section 4.5).
    REQUIRE(rod.point_count() == 7);
    REQUIRE(rod.dof_count() == 24);
    REQUIRE(rod.interval_count() == 6);
    REQUIRE(rod.collocation_per_interval() == 2);
    REQUIRE(rod.collocation_X.size() == 12);
    double total = 0.0;
    Matrix6X phi(6, 24);
    for (Index a = 0; a < rod.interval_count(); ++a) {
        const double h = rod.h[a], z1 = rod.collocation_X[2 * a], z2 = rod.collocation_X[2 * a + 1];
        total += h;
        CHECK(h > 0.0);
        CHECK(std::abs(h - (rod.X[a + 1] - rod.X[a])) < 1e-16);
        // z1, z2 = X_a + (1/2 -+ sqrt(3)/6) h_a (eq. C1): the 2-point Gauss nodes of the interval,
        // so (h/2)(f(z1) + f(z2)) integrates a cubic over it exactly (to round-off of terms of
        // size h: 1e-15 h) and misses a quartic by Gauss's remainder h^5 / 180 (1e-12 relative).
        CHECK(std::abs(z1 - (rod.X[a] + (0.5 - std::sqrt(3.0) / 6.0) * h)) < 1e-16);
        CHECK(std::abs(z2 - z1 - h / std::sqrt(3.0)) < 1e-16);
        CHECK(std::abs(0.5 * (z1 + z2) - (rod.X[a] + 0.5 * h)) < 1e-16);
        const auto cubic = [&](double x) { return std::pow(x - rod.X[a], 3) - 2.0 * x + 1.0; };
        const double exact = std::pow(h, 4) / 4.0 - (rod.X[a + 1] * rod.X[a + 1] - rod.X[a] * rod.X[a]) + h;
        CHECK(std::abs(0.5 * h * (cubic(z1) + cubic(z2)) - exact) < 1e-15 * h);
        const auto quartic = [&](double x) { return std::pow(x - rod.X[a], 4); };
        const double missed = std::pow(h, 5) / 5.0 - 0.5 * h * (quartic(z1) + quartic(z2));
        CHECK(std::abs(missed / (std::pow(h, 5) / 180.0) - 1.0) < 1e-12);
        basis.evaluate(z2, phi);
        CHECK(rod.collocation_phi[2 * a + 1] == phi);
        CHECK(rod.collocation_xi_star[2 * a] == (Vec6() << 0, 0, 0, 1, 0, 0).finished());
    }
    CHECK(std::abs(total - L) < 1e-15);
    // The contact scenario's rod: 10 Gauss points, n_p = 12 (Mathew et al., section 6.2).
    CHECK(RodDiscretization(uniform_circle(basis, 0.02, 10)).point_count() == 12);

    RodDescription second = uniform_circle(basis, 0.02, 5);
    second.magnus_order = MagnusOrder::second;
    const RodDiscretization mid(second);
    REQUIRE(mid.collocation_per_interval() == 1);
    REQUIRE(mid.collocation_X.size() == 6);
    for (Index a = 0; a < mid.interval_count(); ++a)
        CHECK(std::abs(mid.collocation_X[a] - 0.5 * (mid.X[a] + mid.X[a + 1])) < 1e-16);
}

TEST_CASE("a uniform rod with a constant basis has K = L Sigma and D = L Upsilon", "[gvs]") {
    // Phi = identity at every X, so K = sum_k w_k Sigma = L Sigma up to the round-off of the
    // weights' sum (1e-15 relative).
    const double L = 0.5, r = 0.02;
    const RodMaterial m = cdm_material();
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(0, 0), L);
    const RodDiscretization rod(uniform_circle(basis, r, 5));
    const double G = m.young_modulus / 3.0;  // nu = 1/2
    const double A = pi * r * r, I = pi * std::pow(r, 4) / 4.0;
    const Vec6 sigma = (Vec6() << G * 2 * I, m.young_modulus * I, m.young_modulus * I,
                        m.young_modulus * A, G * A, G * A).finished();
    const Vec6 upsilon = m.damping * (Vec6() << 2 * I, 3 * I, 3 * I, 3 * A, A, A).finished();
    const Eigen::MatrixXd K_exact = L * Eigen::MatrixXd(sigma.asDiagonal());
    const Eigen::MatrixXd D_exact = L * Eigen::MatrixXd(upsilon.asDiagonal());
    CHECK((rod.K - K_exact).cwiseAbs().maxCoeff() < 1e-15 * K_exact.maxCoeff());
    CHECK((rod.D - D_exact).cwiseAbs().maxCoeff() < 1e-15 * D_exact.maxCoeff());
    // Only the active components enter: a Kirchhoff rod's K is Sigma's unsheared block.
    const StrainBasis kirchhoff(BasisFamily::legendre, StrainModeSelection::kirchhoff(0), L);
    const RodDiscretization k_rod(uniform_circle(kirchhoff, r, 3));
    REQUIRE(k_rod.K.rows() == 4);
    CHECK((k_rod.K - K_exact.topLeftCorner(4, 4)).cwiseAbs().maxCoeff() < 1e-15 * K_exact.maxCoeff());
    // Point constants.
    CHECK((rod.stiffness[3].diagonal() - sigma).norm() < 1e-15 * sigma.norm());
    CHECK((rod.damping[3].diagonal() - upsilon).norm() < 1e-15 * upsilon.norm());
    const Vec6 mbar = m.density * (Vec6() << 2 * I, I, I, A, A, A).finished();
    CHECK((rod.inertia[3].diagonal() - mbar).norm() < 1e-15 * mbar.norm());
}

TEST_CASE("K is symmetric positive semi-definite, the Legendre Gram matrix on a uniform rod", "[gvs]") {
    const double L = 0.5, r = 0.02;
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(4, 2), L);
    // n_g >= 5 integrates P_i P_j (degree <= 8) exactly: K is block diagonal with blocks
    // L / (2j + 1) Sigma_cc (1e-14 relative: round-off of the sums).
    const RodDiscretization rod(uniform_circle(basis, r, 5));
    CHECK(rod.K == rod.K.transpose());
    CHECK(rod.D == rod.D.transpose());
    const Mat6& sigma = rod.stiffness[0];
    Eigen::MatrixXd exact = Eigen::MatrixXd::Zero(24, 24);
    for (int c = 0; c < 6; ++c)
        for (int j = 0; j < basis.component_dof_count(c); ++j) {
            const Index i = basis.component_offset(c) + j;
            exact(i, i) = L / (2 * j + 1) * sigma(c, c);
        }
    for (Index i = 0; i < 24; ++i)
        for (Index j = 0; j < 24; ++j) {
            const double scale = std::sqrt(exact(i, i) * exact(j, j));
            CAPTURE(i, j);
            CHECK(std::abs(rod.K(i, j) - exact(i, j)) < 1e-14 * scale);
        }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(rod.K);
    CHECK(eig.eigenvalues().minCoeff() > 0.0);
}

TEST_CASE("a basis the Gauss points cannot resolve is refused, with the key and the count needed", "[gvs]") {
    // With fewer Gauss points than a component has functions, its coefficients are not
    // independent at the points: K (and the mass matrix, built at the same points) is singular,
    // and a solve would return NaN (seen before this check: order 5 at 5 points).
    const double L = 0.5, r = 0.02;
    const StrainBasis legendre(BasisFamily::legendre, StrainModeSelection::angular_linear(4, 2), L);
    for (const int n_g : {2, 4}) {
        CAPTURE(n_g);
        CHECK_THROWS_WITH(RodDiscretization(uniform_circle(legendre, r, n_g)),
                          Catch::Contains("cannot resolve the torsion basis (5 functions)") &&
                              Catch::Contains("needs at least 5 Gauss points"));
    }
    CHECK_NOTHROW(RodDiscretization(uniform_circle(legendre, r, 5)));
    // Hat functions: 4 elements (5 hats) need 5 points matched in order to their hats; 5 Gauss
    // points (at 0.047, 0.23, 0.5, 0.77, 0.95 L) are, 4 are not.
    StrainModeSelection bending;
    bending.order = {-1, 4, -1, -1, -1, -1};
    const StrainBasis hats(BasisFamily::piecewise_linear, bending, L);
    CHECK_THROWS_WITH(RodDiscretization(uniform_circle(hats, r, 4)), Catch::Contains("cannot resolve the bending_y basis") &&
                                                                         Catch::Contains("has no Gauss point of its own"));
    CHECK_NOTHROW(RodDiscretization(uniform_circle(hats, r, 5)));
    // Custom functions that are dependent (the second is twice the first) are refused at any n_g.
    StrainModeSelection torsion;
    torsion.order = {1, -1, -1, -1, -1, -1};
    CustomBasisFunctions dependent;
    dependent[0] = {[](double X) { return 1.0 + X; }, [](double X) { return 2.0 + 2.0 * X; }};
    const StrainBasis custom(BasisFamily::custom, torsion, L, dependent);
    CHECK_THROWS_WITH(RodDiscretization(uniform_circle(custom, r, 8)), Catch::Contains("have rank 1"));
}

TEST_CASE("tapered sections integrate to their analytic values as n_g grows", "[gvs]") {
    // The cable-driven manipulator's taper: r(X) = r_b + (r_t - r_b) X / L (Mathew et al., 4.5).
    const double L = 0.5, rb = 0.03, rt = 0.015;
    const auto radius = [=](double X) { return rb + (rt - rb) * X / L; };
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(0, 0), L);
    const RodMaterial m = cdm_material();
    // integral A = pi L (rb^2 + rb rt + rt^2) / 3 (degree 2: exact from n_g = 2);
    // integral J_y = pi/4 L (rb^5 - rt^5) / (5 (rb - rt)) (degree 4: exact from n_g = 3).
    // Exact means a few ulps of the sum (2e-15); below that order, an error above 1e-4.
    const double area = pi * L * (rb * rb + rb * rt + rt * rt) / 3.0;
    const double jy = pi / 4.0 * L * (std::pow(rb, 5) - std::pow(rt, 5)) / (5.0 * (rb - rt));
    double previous = 1.0;
    for (int n = 1; n <= 6; ++n) {
        const RodDiscretization rod({basis, CircularProfile{radius}, m, n, MagnusOrder::fourth, {}});
        double a = 0.0;
        for (Index k = 0; k < rod.point_count(); ++k) a += rod.weight[k] * rod.section[k].area;
        const double error_area = std::abs(a / area - 1.0);
        // K(1, 1) = integral E J_y: the bending stiffness entry of the constant basis.
        const double error_jy = std::abs(rod.K(1, 1) / (m.young_modulus * jy) - 1.0);
        CAPTURE(n, error_area, error_jy);
        if (n >= 2) CHECK(error_area < 2e-15);
        else CHECK(error_area > 1e-3);
        if (n >= 3) CHECK(error_jy < 2e-15);
        else CHECK(error_jy > 1e-4);
        if (n <= 3) CHECK(error_jy < previous);
        previous = error_jy;
    }
    // A smooth, non-polynomial taper r = r_b exp(-X / L): integral A = pi r_b^2 L (1 - e^-2) / 2.
    // Gauss converges geometrically (the error falls by > 10x per point) to round-off (1e-15).
    const auto exponential = [=](double X) { return rb * std::exp(-X / L); };
    const double area_exp = pi * rb * rb * L * (1.0 - std::exp(-2.0)) / 2.0;
    previous = 1.0;
    for (int n = 1; n <= 8; ++n) {
        const RodDiscretization rod({basis, CircularProfile{exponential}, m, n, MagnusOrder::fourth, {}});
        double a = 0.0;
        for (Index k = 0; k < rod.point_count(); ++k) a += rod.weight[k] * rod.section[k].area;
        const double error = std::abs(a / area_exp - 1.0);
        CAPTURE(n, error);
        if (n > 1 && error > 1e-14) CHECK(error < 0.1 * previous);
        previous = error;
        if (n == 8) CHECK(error < 1e-15);
    }
}

TEST_CASE("rectangular sections use Saint-Venant's torsion constant", "[gvs]") {
    // J = k a b^3 (a >= b) against Timoshenko & Goodier's table of k, given to 3 digits
    // (tolerance: half a unit of the last digit).
    const std::array<std::pair<double, double>, 7> table{
        {{1.0, 0.141}, {1.5, 0.196}, {2.0, 0.229}, {3.0, 0.263}, {4.0, 0.281}, {5.0, 0.291}, {10.0, 0.312}}};
    for (const auto& [ratio, k] : table) {
        const double b = 0.01, a = ratio * b;
        CAPTURE(ratio);
        CHECK(std::abs(rectangle_torsion_constant(a, b) / (a * b * b * b) - k) <= 5e-4);
        CHECK(rectangle_torsion_constant(a, b) == rectangle_torsion_constant(b, a));
    }
    // The square to 6 digits (0.140577, Roark's Formulas for Stress and Strain, table 10.1).
    CHECK(std::abs(rectangle_torsion_constant(1.0, 1.0) - 0.140577) < 1e-6);
    // Thin strip: J -> a b^3 / 3 (1 - 0.630249 b / a), the neglected terms being exponentially small.
    const double a = 1.0, b = 1e-3;
    CHECK(std::abs(rectangle_torsion_constant(a, b) / (a * b * b * b / 3.0) - (1.0 - 0.630249 * b / a)) < 1e-9);
    // The fin-ray finger's rib: width 1 mm along y, height 1 cm along z (Mathew et al., 5.2).
    const SectionConstants rib = rectangular_section(1e-3, 1e-2);
    CHECK(rib.area == Approx(1e-5).epsilon(1e-15));
    CHECK(rib.second_moment_y == Approx(1e-3 * 1e-6 / 12.0).epsilon(1e-15));  // bending about y: stiff
    CHECK(rib.second_moment_z == Approx(1e-2 * 1e-9 / 12.0).epsilon(1e-15));  // about z: the thin way
    CHECK(rib.torsion_constant < rib.polar_moment());
}

TEST_CASE("rod discretisation rejects bad input with a message naming the key", "[gvs]") {
    using Catch::Contains;
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(1, 1), 1.0);
    auto rod = uniform_circle(basis, 0.01, 4);
    rod.gauss_points = 0;
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("gauss_points = 0 is outside 1..64"));
    rod.gauss_points = 65;
    CHECK_THROWS_AS(RodDiscretization(rod), std::invalid_argument);
    rod.gauss_points = 4;
    rod.material.young_modulus = 0.0;
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("young_modulus"));
    rod.material = cdm_material();
    rod.material.poisson_ratio = 0.6;
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("poisson_ratio = 0.6"));
    rod.material = cdm_material();
    rod.material.density = -1.0;
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("density"));
    rod.material = cdm_material();
    rod.material.damping = -1.0;
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("damping"));
    rod.material = cdm_material();
    rod.section = CircularProfile{};
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("section.radius is missing"));
    rod.section = RectangularProfile{[](double) { return 0.01; }, {}};
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("section.height is missing"));
    rod.section = CircularProfile{[](double X) { return 0.01 - 0.02 * X; }};  // negative past X = 0.5
    // The first Gauss point past X = 0.5 of a 4-point rule on [0, 1]: (1 + 0.33998...) / 2.
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("section.radius at X = 0.669990521792428") &&
                                                  Contains("must be finite and > 0"));
    rod.section = CircularProfile{[](double) { return 0.01; }};
    rod.xi_star = [](double) { return Vec6::Constant(std::nan("")); };
    CHECK_THROWS_WITH(RodDiscretization(rod), Contains("xi_star at X = 0 is not finite"));
}

TEST_CASE("a rod tapered to a point and a curved reference strain are accepted", "[gvs]") {
    // The underwater vehicle's flagella taper to a point (Mathew et al., 6.3): the tip has zero
    // section but zero weight, so K stays positive definite.
    const double L = 0.35;
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::inextensible_kirchhoff(3), L);
    RodDescription rod{basis, CircularProfile{[=](double X) { return 0.0125 * (1.0 - X / L); }},
                       cdm_material(), 6, MagnusOrder::fourth,
                       [=](double X) { return (Vec6() << 0, 0, 2.0 * X / L, 1, 0, 0).finished(); }};
    const RodDiscretization d(rod);
    CHECK(d.section.back().area == 0.0);
    CHECK(d.inertia.back().isZero(0.0));
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(d.K);
    CHECK(eig.eigenvalues().minCoeff() > 0.0);
    for (Index k = 0; k < d.point_count(); ++k) CHECK(d.xi_star[k](bending_z) == 2.0 * d.X[k] / L);
    for (size_t i = 0; i < d.collocation_X.size(); ++i)
        CHECK(d.collocation_xi_star[i](bending_z) == 2.0 * d.collocation_X[i] / L);
}
