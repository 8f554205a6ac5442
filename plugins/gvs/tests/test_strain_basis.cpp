// The strain basis Phi(X) (Mathew et al., eq. 1): DoF counts of the paper's examples, the values
// and span of each family, orthogonality under Gauss quadrature, input errors.
#include "rod_discretization.hpp"
#include "strain_basis.hpp"

#include <catch2/catch.hpp>

#include <Eigen/QR>

#include <cmath>
#include <numbers>
#include <stdexcept>

using namespace soma;
using namespace soma::gvs;

namespace {

/// Phi at \p samples equally spaced points of [0, L], stacked: (6 samples) x n.
Eigen::MatrixXd stacked(const StrainBasis& basis, int samples) {
    Eigen::MatrixXd out(6 * samples, basis.dof_count());
    Matrix6X phi(6, basis.dof_count());
    for (int i = 0; i < samples; ++i) {
        basis.evaluate(basis.length() * i / (samples - 1), phi);
        out.middleRows(6 * i, 6) = phi;
    }
    return out;
}

/// Relative residual of the least-squares fit of the columns of \p target by those of \p by.
double fit_residual(const Eigen::MatrixXd& by, const Eigen::MatrixXd& target) {
    const Eigen::MatrixXd coefficients = by.colPivHouseholderQr().solve(target);
    return (by * coefficients - target).norm() / target.norm();
}

}  // namespace

TEST_CASE("strain bases reproduce the DoF counts of the paper's examples", "[gvs]") {
    // Cable-driven manipulator: Legendre, angular order 4, linear order 2: 3 x 5 + 3 x 3 = 24
    // (Mathew et al., section 4.5).
    const StrainBasis cdm(BasisFamily::legendre, StrainModeSelection::angular_linear(4, 2), 0.5);
    CHECK(cdm.dof_count() == 24);
    const std::array<Index, 6> cdm_offsets{0, 5, 10, 15, 18, 21};
    for (int c = 0; c < 6; ++c) CHECK(cdm.component_offset(c) == cdm_offsets[c]);
    // Serial robot's soft link: Kirchhoff (no shear), order 4: 4 x 5 = 20; with the 7 revolute
    // joints the robot has 27 (section 5.1).
    const StrainBasis serial(BasisFamily::legendre, StrainModeSelection::kirchhoff(4), 0.5);
    CHECK(serial.dof_count() == 20);
    CHECK(serial.dof_count() + 7 == 27);
    CHECK_FALSE(serial.is_active(shear_y));
    CHECK_FALSE(serial.is_active(shear_z));
    // Parallel robot's pillar: cubic angular, first-order linear: 12 + 6 = 18; three pillars and
    // a spherical joint each: 3 x 18 + 9 = 63 (section 6.1).
    const StrainBasis pillar(BasisFamily::legendre, StrainModeSelection::angular_linear(3, 1), 0.15);
    CHECK(pillar.dof_count() == 18);
    CHECK(3 * pillar.dof_count() + 9 == 63);
    // Fin-ray link, planar in the xy plane: linear bending about z (2), constant elongation (1),
    // constant shear along y (1) = 4; 17 links + 6 joint DoF = 74 (section 5.2).
    const StrainBasis fin(BasisFamily::legendre, StrainModeSelection{{-1, -1, 1, 0, 0, -1}}, 0.03);
    CHECK(fin.dof_count() == 4);
    CHECK(17 * fin.dof_count() + 6 == 74);
    // Underwater vehicle's flagellum: inextensible Kirchhoff, cubic: 3 x 4 = 12; six of them
    // with the 6-DoF body and two shafts give 80 (section 6.3).
    const StrainBasis flagellum(BasisFamily::legendre,
                                StrainModeSelection::inextensible_kirchhoff(3), 0.35);
    CHECK(flagellum.dof_count() == 12);
    CHECK(6 * flagellum.dof_count() + 6 + 2 == 80);
    // Every family counts the same; piecewise_linear counts elements + 1.
    for (BasisFamily f : {BasisFamily::monomial, BasisFamily::chebyshev, BasisFamily::piecewise_linear})
        CHECK(StrainBasis(f, StrainModeSelection::kirchhoff(4), 0.5).dof_count() == 20);
}

TEST_CASE("Phi is block-sparse: each coefficient drives one strain component", "[gvs]") {
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection{{2, -1, 1, 0, -1, 3}}, 2.0);
    REQUIRE(basis.dof_count() == 3 + 2 + 1 + 4);
    Matrix6X phi(6, basis.dof_count());
    basis.evaluate(0.7, phi);
    for (int c = 0; c < 6; ++c)
        for (Index j = 0; j < basis.dof_count(); ++j) {
            const bool own = j >= basis.component_offset(c) &&
                             j < basis.component_offset(c) + basis.component_dof_count(c);
            if (!own) CHECK(phi(c, j) == 0.0);
        }
    CHECK(phi.row(bending_y).isZero(0.0));
    CHECK(phi.row(shear_y).isZero(0.0));
    // The first function of every polynomial family is the constant 1.
    CHECK(phi(torsion, 0) == 1.0);
    CHECK(phi(shear_z, basis.component_offset(shear_z)) == 1.0);
}

TEST_CASE("polynomial families have their textbook values", "[gvs]") {
    const double L = 0.8;
    const int k = StrainBasis::kMaxPolynomialOrder;
    const StrainModeSelection modes{{k, -1, -1, -1, -1, -1}};
    const StrainBasis legendre(BasisFamily::legendre, modes, L);
    const StrainBasis chebyshev(BasisFamily::chebyshev, modes, L);
    const StrainBasis monomial(BasisFamily::monomial, modes, L);
    Matrix6X phi(6, k + 1);
    // Ends: P_j(1) = T_j(1) = 1, P_j(-1) = T_j(-1) = (-1)^j. The recurrences are exact there
    // up to round-off growing linearly with j: 1e-13 covers j = 20.
    legendre.evaluate(L, phi);
    CHECK((phi.row(0).array() - 1.0).abs().maxCoeff() < 1e-13);
    legendre.evaluate(0.0, phi);
    for (int j = 0; j <= k; ++j) CHECK(std::abs(phi(0, j) - (j % 2 ? -1.0 : 1.0)) < 1e-13);
    // Interior: P_2, P_3 in closed form; T_j(cos theta) = cos(j theta) for all j <= 20.
    const double X = 0.29, t = 2.0 * X / L - 1.0;
    legendre.evaluate(X, phi);
    CHECK(std::abs(phi(0, 2) - 0.5 * (3 * t * t - 1)) < 1e-15);
    CHECK(std::abs(phi(0, 3) - 0.5 * (5 * t * t * t - 3 * t)) < 1e-15);
    chebyshev.evaluate(X, phi);
    const double theta = std::acos(t);
    double worst = 0.0;
    for (int j = 0; j <= k; ++j) worst = std::max(worst, std::abs(phi(0, j) - std::cos(j * theta)));
    CHECK(worst < 1e-13);
    monomial.evaluate(X, phi);
    CHECK(std::abs(phi(0, 5) - std::pow(X / L, 5)) < 1e-16);
}

TEST_CASE("shifted Legendre functions are orthogonal under Gauss quadrature up to degree 2n-1", "[gvs]") {
    // integral_0^L P_i P_j dX = L / (2i + 1) delta_ij. An n-point Gauss rule integrates the
    // product exactly (to round-off, 1e-14 L) while i + j <= 2n - 1; P_n P_n (degree 2n) is the
    // first product it gets wrong, and entirely: P_n vanishes at the n nodes.
    const double L = 1.7;
    for (int n : {1, 2, 3, 5, 8, 11}) {
        const GaussLegendreRule rule = gauss_legendre(n);
        const StrainBasis basis(BasisFamily::legendre, StrainModeSelection{{n, -1, -1, -1, -1, -1}}, L);
        Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(n + 1, n + 1);
        Matrix6X phi(6, n + 1);
        for (int g = 0; g < n; ++g) {
            basis.evaluate(0.5 * L * (1.0 + rule.nodes[g]), phi);
            gram += 0.5 * L * rule.weights[g] * phi.row(0).transpose() * phi.row(0);
        }
        double worst = 0.0;
        for (int i = 0; i <= n; ++i)
            for (int j = 0; j <= n; ++j) {
                if (i + j > 2 * n - 1) continue;
                const double exact = i == j ? L / (2 * i + 1) : 0.0;
                worst = std::max(worst, std::abs(gram(i, j) - exact));
            }
        CAPTURE(n);
        CHECK(worst < 1e-14 * L);
        CHECK(std::abs(gram(n, n)) < 1e-14 * L);                  // P_n(nodes) = 0 ...
        CHECK(std::abs(gram(n, n) - L / (2 * n + 1)) > 0.01 * L);  // ... so not exact beyond
    }
}

TEST_CASE("Legendre, monomial and Chebyshev bases of the same orders span the same space", "[gvs]") {
    // The fit of one basis by another is exact up to the conditioning of the sampled monomials
    // (about 1e4 at order 6 on 41 samples): a relative residual of 1e-11 is round-off; a basis of
    // lower order leaves an O(1) residual.
    const StrainModeSelection modes{{6, 3, 3, 2, 0, 1}};
    const double L = 0.45;
    const auto legendre = stacked(StrainBasis(BasisFamily::legendre, modes, L), 41);
    const auto monomial = stacked(StrainBasis(BasisFamily::monomial, modes, L), 41);
    const auto chebyshev = stacked(StrainBasis(BasisFamily::chebyshev, modes, L), 41);
    CHECK(fit_residual(monomial, legendre) < 1e-11);
    CHECK(fit_residual(legendre, monomial) < 1e-11);
    CHECK(fit_residual(chebyshev, legendre) < 1e-11);
    CHECK(fit_residual(legendre, chebyshev) < 1e-11);
    // One element of hats spans the polynomials of order 1.
    const StrainModeSelection linear{{1, 1, 1, 1, 1, 1}};
    CHECK(fit_residual(stacked(StrainBasis(BasisFamily::piecewise_linear, linear, L), 41),
                       stacked(StrainBasis(BasisFamily::legendre, linear, L), 41)) < 1e-13);
    // Lowering one component's order loses the span.
    const StrainModeSelection lower{{5, 3, 3, 2, 0, 1}};
    CHECK(fit_residual(stacked(StrainBasis(BasisFamily::monomial, lower, L), 41), legendre) > 1e-3);
}

TEST_CASE("piecewise-linear hats are a nodal partition of unity", "[gvs]") {
    const double L = 0.3;
    const int elements = 7;
    const StrainBasis basis(BasisFamily::piecewise_linear, StrainModeSelection{{-1, elements, -1, 2, -1, -1}}, L);
    REQUIRE(basis.dof_count() == elements + 1 + 3);
    Matrix6X phi(6, basis.dof_count());
    const Index off = basis.component_offset(bending_y);
    // Sum of the hats = 1 (round-off: two terms), at most two nonzero, all in [0, 1].
    for (int i = 0; i <= 200; ++i) {
        basis.evaluate(L * i / 200.0, phi);
        const auto hats = phi.row(bending_y).segment(off, elements + 1);
        CHECK(std::abs(hats.sum() - 1.0) < 1e-15);
        CHECK((hats.array() != 0.0).count() <= 2);
        CHECK(hats.minCoeff() >= 0.0);
        CHECK(hats.maxCoeff() <= 1.0);
    }
    // Hat j is 1 at node j and 0 at the others (up to the round-off of X_j / h = j).
    for (int j = 0; j <= elements; ++j) {
        basis.evaluate(L * j / elements, phi);
        for (int i = 0; i <= elements; ++i)
            CHECK(std::abs(phi(bending_y, off + i) - (i == j ? 1.0 : 0.0)) < 1e-14);
    }
}

TEST_CASE("a custom basis evaluates the caller's functions of X", "[gvs]") {
    const double L = 2.0;
    CustomBasisFunctions functions;
    functions[bending_z] = {[](double) { return 1.0; }, [](double X) { return std::sin(X); }};
    functions[elongation] = {[](double X) { return X * X; }};
    const StrainBasis basis(BasisFamily::custom, StrainModeSelection{{-1, -1, 1, 0, -1, -1}}, L,
                            functions);
    REQUIRE(basis.dof_count() == 3);
    Matrix6X phi(6, 3);
    basis.evaluate(1.5, phi);  // X itself, not X / L
    CHECK(phi(bending_z, 0) == 1.0);
    CHECK(phi(bending_z, 1) == std::sin(1.5));
    CHECK(phi(elongation, 2) == 2.25);
    CHECK(phi.cwiseAbs().sum() == Approx(1.0 + std::sin(1.5) + 2.25).epsilon(1e-15));
}

TEST_CASE("Phi evaluates into a block of a wider matrix", "[gvs]") {
    // The dynamics writes Phi into the columns of a rod inside a whole robot's Jacobian.
    const StrainBasis basis(BasisFamily::legendre, StrainModeSelection::angular_linear(2, 1), 1.0);
    Matrix6X wide = Matrix6X::Constant(6, 30, 7.0);
    basis.evaluate(0.3, wide.middleCols(4, basis.dof_count()));
    Matrix6X alone(6, basis.dof_count());
    basis.evaluate(0.3, alone);
    CHECK(wide.middleCols(4, basis.dof_count()) == alone);
    CHECK((wide.leftCols(4).array() == 7.0).all());
    CHECK((wide.rightCols(30 - 4 - basis.dof_count()).array() == 7.0).all());
}

TEST_CASE("strain bases reject bad input with a message naming the problem", "[gvs]") {
    using Catch::Contains;
    const auto modes = StrainModeSelection::angular_linear(2, 1);
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::legendre, modes, 0.0), Contains("length must be positive"));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::legendre, modes, -1.0), Contains("L = -1"));
    CHECK_THROWS_AS(StrainBasis(BasisFamily::legendre, modes, std::nan("")), std::invalid_argument);
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::legendre, StrainModeSelection{{-1, -2, -1, -1, -1, -1}}, 1.0),
                      Contains("order of bending_y is -2"));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::chebyshev, StrainModeSelection{{21, -1, -1, -1, -1, -1}}, 1.0),
                      Contains("chebyshev order of torsion is 21, above the maximum 20"));
    CHECK_NOTHROW(StrainBasis(BasisFamily::monomial, StrainModeSelection{{20, -1, -1, -1, -1, -1}}, 1.0));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::piecewise_linear, StrainModeSelection{{-1, -1, -1, 0, -1, -1}}, 1.0),
                      Contains("piecewise_linear on elongation needs at least 1 element"));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::piecewise_linear, StrainModeSelection{{257, -1, -1, -1, -1, -1}}, 1.0),
                      Contains("257 elements, above the maximum 256"));

    CustomBasisFunctions one;
    one[torsion] = {[](double) { return 1.0; }};
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::custom, StrainModeSelection{{1, -1, -1, -1, -1, -1}}, 1.0, one),
                      Contains("torsion has order 1, so 2 function(s) are expected, got 1"));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::custom, StrainModeSelection{{0, 0, -1, -1, -1, -1}}, 1.0, one),
                      Contains("bending_y has order 0, so 1 function(s) are expected, got 0"));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::custom, StrainModeSelection{{-1, 0, -1, -1, -1, -1}}, 1.0, one),
                      Contains("1 function(s) are given for torsion, which the strains do not activate"));
    CustomBasisFunctions empty_function;
    empty_function[shear_z] = {BasisFunction{}};
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::custom, StrainModeSelection{{-1, -1, -1, -1, -1, 0}}, 1.0, empty_function),
                      Contains("function 0 of shear_z is empty"));
    CHECK_THROWS_WITH(StrainBasis(BasisFamily::legendre, StrainModeSelection{{0, -1, -1, -1, -1, -1}}, 1.0, one),
                      Contains("the family is legendre; use BasisFamily::custom"));

    const StrainBasis basis(BasisFamily::legendre, modes, 1.0);
    Matrix6X wrong(6, basis.dof_count() - 1);
    CHECK_THROWS_WITH(basis.evaluate(0.5, wrong), Contains("output has 14 columns, the basis has 15"));
    Matrix6X phi(6, basis.dof_count());
    CHECK_THROWS_AS(basis.evaluate(1.001, phi), std::out_of_range);
    CHECK_THROWS_AS(basis.evaluate(-1e-6, phi), std::out_of_range);
    CHECK_NOTHROW(basis.evaluate(1.0 + 1e-15, phi));  // round-off past the tip is tolerated
}
