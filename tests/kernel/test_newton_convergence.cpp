// The Newton convergence decision (kernel/newton_convergence.hpp), one test at a time.
#include "newton_convergence.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

using namespace soma;

namespace {

/// An iterate with residual rows r and force scales s (|F| their 2-norm), first |F| = 1. It
/// views r and s: they must outlive it.
NewtonIterate iterate_of(const std::vector<double>& r, const std::vector<double>& s) {
    NewtonIterate it;
    double sum = 0.0;
    for (double x : r) sum += x * x;
    it.force_norm = std::sqrt(sum);
    it.initial_force_norm = 1.0;
    it.residual = r;
    it.force_scale = s;
    return it;
}

}  // namespace

TEST_CASE("the balance test compares |F| with the size of the forces that cancel in it", "[kernel][newton]") {
    NewtonTolerances tol;
    tol.balance = 3e-8;
    const std::vector<double> scale{3e2, 4e2, 0.0};  // |S| = 500 N
    SECTION("|F| within balance * |S|: converged, though far above an absolute 1e-8 N") {
        const std::vector<double> r{8.9e-6, 1.19e-5, 0.0};  // |F| = 1.486e-5 N = 2.97e-8 |S|
        CHECK(newton_convergence(tol, iterate_of(r, scale)) == NewtonCriterion::balance);
    }
    SECTION("|F| just above balance * |S|: not converged") {
        const std::vector<double> r{9e-6, 1.21e-5, 0.0};
        CHECK(newton_convergence(tol, iterate_of(r, scale)) == NewtonCriterion::none);
    }
    SECTION("the same residual against a smaller scale is not converged: the test is unit-free") {
        const std::vector<double> small{3e-1, 4e-1, 0.0};
        const std::vector<double> r{8.9e-9, 1.19e-8, 0.0};  // 2.97e-8 |S|
        CHECK(newton_convergence(tol, iterate_of(r, small)) == NewtonCriterion::balance);
        const std::vector<double> r_large{9e-6, 1.2e-5, 0.0};
        CHECK(newton_convergence(tol, iterate_of(r_large, small)) == NewtonCriterion::none);
    }
    SECTION("a NaN residual is never converged") {
        const std::vector<double> r{std::numeric_limits<double>::quiet_NaN(), 0.0, 0.0};
        CHECK(newton_convergence(tol, iterate_of(r, scale)) == NewtonCriterion::none);
    }
    SECTION("without a measured force scale the balance test cannot pass, and off it is not tried") {
        const std::vector<double> r{1e-20, 0.0, 0.0};
        NewtonIterate it = iterate_of(r, scale);
        it.force_scale = {};
        CHECK(newton_convergence(tol, it) == NewtonCriterion::none);
        tol.balance = 0.0;
        it.force_scale = scale;
        CHECK(newton_convergence(tol, it) == NewtonCriterion::none);
    }
}

TEST_CASE("the absolute, relative, increment and round-off tests", "[kernel][newton]") {
    const std::vector<double> r{3e-9, 4e-9};  // |F| = 5e-9
    const std::vector<double> scale{1e-3, 1e-3};  // |F| / |S| = 3.5e-6: the balance test fails
    NewtonTolerances tol;
    tol.balance = 3e-8;
    NewtonIterate it = iterate_of(r, scale);
    CHECK(newton_convergence(tol, it) == NewtonCriterion::none);

    tol.absolute = 5.01e-9;
    CHECK(newton_convergence(tol, it) == NewtonCriterion::absolute);
    tol.absolute = 4.99e-9;
    CHECK(newton_convergence(tol, it) == NewtonCriterion::none);

    tol.absolute = 0.0;  // off: only an exactly zero residual passes it
    const std::vector<double> zeros{0.0, 0.0}, unmeasured;
    const NewtonIterate zero = iterate_of(zeros, unmeasured);
    CHECK(newton_convergence(tol, zero) == NewtonCriterion::absolute);

    tol.relative = 5.01e-9;  // |F| / |F(first)| = 5e-9
    CHECK(newton_convergence(tol, it) == NewtonCriterion::relative);
    it.initial_force_norm = 0.99;
    CHECK(newton_convergence(tol, it) == NewtonCriterion::none);

    tol.increment = 1e-6;
    it.last_increment = 1.01e-6;
    CHECK(newton_convergence(tol, it) == NewtonCriterion::none);
    it.last_increment = 1e-6;
    CHECK(newton_convergence(tol, it) == NewtonCriterion::increment);

    tol.increment = 0.0;
    it.at_round_off = true;
    CHECK(newton_convergence(tol, it) == NewtonCriterion::round_off);
}

TEST_CASE("the tests are tried in a fixed order and reported by name", "[kernel][newton]") {
    const std::vector<double> r{0.0};
    const std::vector<double> scale{1.0};
    NewtonTolerances all{1.0, 1.0, 1.0, 1.0};
    NewtonIterate it = iterate_of(r, scale);
    it.last_increment = 0.0;
    it.at_round_off = true;
    CHECK(newton_convergence(all, it) == NewtonCriterion::absolute);
    CHECK(std::string(to_string(NewtonCriterion::balance)) == "balance");
    CHECK(std::string(to_string(NewtonCriterion::none)) == "none");
}

TEST_CASE("NewtonTolerances takes NewtonOptions' values; the defaults use the balance test", "[kernel][newton]") {
    const NewtonOptions defaults;
    const NewtonTolerances tol = NewtonTolerances::of(defaults);
    CHECK(tol.absolute == 0.0);
    CHECK(tol.balance == 3e-8);
    CHECK(tol.relative == defaults.relative_tolerance);
    CHECK(tol.increment == defaults.increment_tolerance);
}
