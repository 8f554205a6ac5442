// The scalar laws of floor contact (MAT-DiSMech §5.2, eq. 25-26): penalty energy and derivatives, friction
// smoothing, and their stability at extreme arguments.
#include "soma/smooth_contact_law.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace soma;

TEST_CASE("softplus and logistic are exact and never overflow", "[contact_law]") {
    for (double y : {-50.0, -3.0, -1e-3, 0.0, 1e-3, 3.0, 30.0})
        CHECK(softplus(y) == Approx(std::log1p(std::exp(y))).epsilon(1e-14));
    CHECK(softplus(1e5) == 1e5);           // log(1 + e^y) = y to double precision; naive form gives inf
    CHECK(softplus(-1e5) == 0.0);
    CHECK(logistic(1e5) == 1.0);
    CHECK(logistic(-1e5) == 0.0);
    CHECK(logistic(0.0) == 0.5);
}

TEST_CASE("penalty energy matches eq. 25-26 and its own derivatives", "[contact_law]") {
    const double k = 20.0, K1 = 15000.0;  // MAT-DiSMech rod drop (Fig. 7): k_c = 20 N/m, δ = r0 = 1 mm
    SECTION("closed forms with a = exp(-K1 gap)") {
        for (double gap : {-2e-4, -1e-5, 0.0, 3e-5, 5e-4}) {
            const double a = std::exp(-K1 * gap);
            const PenaltyEnergy e = penalty_energy(gap, k, K1);
            const double s = std::log1p(a) / K1;
            CHECK(e.energy == Approx(k * s * s).epsilon(1e-13));
            CHECK(e.gradient == Approx(-2.0 * k * a * std::log1p(a) / (K1 * (1.0 + a))).epsilon(1e-13));  // eq. 25
            CHECK(e.curvature ==
                  Approx(k * (2.0 * a * std::log1p(a) + 2.0 * a * a) / ((1.0 + a) * (1.0 + a))).epsilon(1e-13));  // eq. 26
        }
    }
    SECTION("MAT-DiSMech §7.1 rod drop: normal force at gap 0 is k_c ln2/K1 = 9.24e-4 N") {
        CHECK(-penalty_energy(0.0, k, K1).gradient == Approx(9.24e-4).epsilon(1e-3));
    }
    SECTION("central differences of E and E'") {
        // E varies on the scale 1/K1 = 6.7e-5 m; h = 1e-3/K1 makes the O((K1 h)²) truncation
        // error ~1e-6 relative, and round-off eps*E/h stays ~1e-12: tolerance 1e-5.
        const double h = 1e-3 / K1;
        for (double gap : {-3e-4, -4e-5, 0.0, 2e-5, 8e-4}) {
            const PenaltyEnergy e = penalty_energy(gap, k, K1);
            const PenaltyEnergy ep = penalty_energy(gap + h, k, K1), em = penalty_energy(gap - h, k, K1);
            CHECK((ep.energy - em.energy) / (2 * h) == Approx(e.gradient).epsilon(1e-5));
            CHECK((ep.gradient - em.gradient) / (2 * h) == Approx(e.curvature).epsilon(1e-5));
        }
    }
    SECTION("deep penetration is a finite penalty spring E ~ k gap²") {
        const PenaltyEnergy e = penalty_energy(-1.0, k, K1);  // K1 gap = -15000: e^{15000} overflows
        REQUIRE(std::isfinite(e.energy));
        REQUIRE(std::isfinite(e.curvature));
        CHECK(e.energy == Approx(k).epsilon(1e-12));
        CHECK(e.gradient == Approx(-2.0 * k).epsilon(1e-12));
        CHECK(e.curvature == Approx(2.0 * k).epsilon(1e-12));
    }
    SECTION("far above the floor everything vanishes without NaN") {
        const PenaltyEnergy e = penalty_energy(1.0, k, K1);
        CHECK(e.energy == 0.0);
        CHECK(e.gradient == 0.0);
        CHECK(e.curvature == 0.0);
    }
}

TEST_CASE("friction smoothing phi = gamma/w and psi = phi'/w", "[contact_law]") {
    const double v_tol = 1e-3, K2 = 15.0 / v_tol;
    auto gamma = [&](double w) { return 2.0 / (1.0 + std::exp(-K2 * w)) - 1.0; };  // eq. 23's form
    SECTION("phi reproduces gamma(w)/w, and gamma -> 1 when sliding") {
        for (double w : {2e-5, 1e-4, 1e-3, 1e-2})
            CHECK(friction_shape(w, K2).phi * w == Approx(gamma(w)).epsilon(1e-12));
        CHECK(friction_shape(1.0, K2).phi * 1.0 == Approx(1.0).epsilon(1e-15));
    }
    SECTION("limits at w = 0 (linear viscous law near rest)") {
        const FrictionShape s = friction_shape(0.0, K2);
        CHECK(s.phi == Approx(K2 / 2).epsilon(1e-15));
        CHECK(s.psi == Approx(-(2.0 / 3.0) * std::pow(K2 / 2, 3)).epsilon(1e-15));
    }
    SECTION("psi is the derivative of phi divided by w, on both sides of the series switch") {
        // The switch is at K2 w/2 = 1e-2, i.e. w = 2e-2/K2. phi varies on the scale 1/K2; with
        // h = 1e-4/K2 the truncation error is ~1e-8 relative: tolerance 1e-6.
        const double h = 1e-4 / K2;
        for (double w : {5e-3 / K2, 1.9e-2 / K2, 2.1e-2 / K2, 0.3 / K2, 2.0 / K2, 10.0 / K2}) {
            const double dphi = (friction_shape(w + h, K2).phi - friction_shape(w - h, K2).phi) / (2 * h);
            const double psi = friction_shape(w, K2).psi;
            CHECK(dphi / w == Approx(psi).epsilon(1e-6));
        }
    }
    SECTION("series and closed form agree at the switch") {
        const double w = 2e-2 / K2;
        const FrictionShape below = friction_shape(w * (1 - 1e-12), K2), above = friction_shape(w * (1 + 1e-12), K2);
        CHECK(below.phi == Approx(above.phi).epsilon(1e-12));
        CHECK(below.psi == Approx(above.psi).epsilon(1e-9));  // closed form loses ~eps/x² = 2e-12
    }
    SECTION("very fast sliding stays finite") {
        const FrictionShape s = friction_shape(1e6, K2);
        CHECK(std::isfinite(s.phi));
        CHECK(std::isfinite(s.psi));
        CHECK(s.phi * 1e6 == Approx(1.0));
    }
}
