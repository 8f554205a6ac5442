// The trust-region globalization of newton_solve (newton.hpp, NewtonGlobalization::trust_region;
// kernel/trust_region_step.cpp) on algebraic problems from the literature, beside the line search.
#include "algebraic_system.hpp"
#include "kernel_test_support.hpp"

#include "soma/newton.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;
using soma::testing::AlgebraicSystem;
using Catch::Matchers::Contains;

namespace {

/// Tolerance on |F| alone: the algebraic system measures no force scale.
NewtonOptions options_with(NewtonGlobalization globalization) {
    NewtonOptions o;
    o.globalization = globalization;
    o.absolute_tolerance = 1e-12;
    o.relative_tolerance = 0.0;
    o.balance_tolerance = 0.0;
    o.max_iterations = 200;
    // The line search from the first iteration. (Full Newton steps first, as by default, may jump
    // out of a bad region or into one: luck, not a method.)
    o.line_search_start = 0;
    o.line_search_steps = 40;
    return o;
}

struct Outcome {
    NewtonReport report;
    VectorX x;
};

Outcome solve(AlgebraicSystem& system, const NewtonOptions& options, VectorX x0) {
    NewtonWorkspace work(system);
    Outcome o;
    o.x = std::move(x0);
    o.report = newton_solve(system, AlgebraicSystem::statics_step(system.dof_count()), options, work, o.x);
    return o;
}

/// Powell's badly behaved function (Powell 1970, "A hybrid method for nonlinear equations";
/// Nocedal and Wright, Numerical Optimization, 2nd ed., section 11.2): F = (x1, 10 x1 / (x1 +
/// 0.1) + 2 x2^2), whose one root is the origin. Near the x1 axis Newton's directions turn
/// parallel to x2 as x2 -> 0 (J is singular at x2 = 0): a line search along them moves x2 and
/// barely x1, and stalls away from the root.
AlgebraicSystem powell_system() {
    return AlgebraicSystem(
        2,
        [](const VectorX& x, VectorX& f) {
            f[0] = x[0];
            f[1] = 10.0 * x[0] / (x[0] + 0.1) + 2.0 * x[1] * x[1];
        },
        [](const VectorX& x, Eigen::MatrixXd& j) {
            j(0, 0) = 1.0;
            j(0, 1) = 0.0;
            j(1, 0) = 1.0 / ((x[0] + 0.1) * (x[0] + 0.1));
            j(1, 1) = 4.0 * x[1];
        });
}

}  // namespace

TEST_CASE("the dogleg solves Powell's function where the line search stalls", "[kernel][newton][trust_region]") {
    const VectorX start = (VectorX(2) << 3.0, 0.1).finished();

    AlgebraicSystem line_system = powell_system();
    const Outcome line = solve(line_system, options_with(NewtonGlobalization::line_search), start);
    // The line search ends on the x2 = 0 axis, away from the root: |F| stays near 10.
    CHECK_FALSE(line.report.converged);
    CHECK(std::abs(line.x[1]) < 1e-3);
    CHECK(line.x[0] > 1.0);
    CHECK(line.report.residual > 1.0);

    AlgebraicSystem trust_system = powell_system();
    const Outcome trust = solve(trust_system, options_with(NewtonGlobalization::trust_region), start);
    REQUIRE(trust.report.converged);
    // |F| <= 1e-12 with F1 = x1 and F2 ~ 100 x1 + 2 x2^2 near the root: x1 within 1e-12, x2 within 1e-6.
    CHECK(std::abs(trust.x[0]) <= 1e-12);
    CHECK(std::abs(trust.x[1]) <= 1e-6);
    CHECK(trust.report.residual <= 1e-12);
}

TEST_CASE("where the Newton step is trusted the dogleg takes it: the line search's iterates", "[kernel][newton][trust_region]") {
    // F = (x1^2 + x2 - 3, x1 + x2^2 - 5), a root at (1, 2), from (1.3, 1.7): Newton converges
    // quadratically from there with full steps, so both globalizations take the same iterates.
    const auto make = [] {
        return AlgebraicSystem(
            2,
            [](const VectorX& x, VectorX& f) {
                f[0] = x[0] * x[0] + x[1] - 3.0;
                f[1] = x[0] + x[1] * x[1] - 5.0;
            },
            [](const VectorX& x, Eigen::MatrixXd& j) {
                j << 2.0 * x[0], 1.0, 1.0, 2.0 * x[1];
            });
    };
    const VectorX start = (VectorX(2) << 1.3, 1.7).finished();
    AlgebraicSystem a = make(), b = make();
    const Outcome line = solve(a, options_with(NewtonGlobalization::line_search), start);
    const Outcome trust = solve(b, options_with(NewtonGlobalization::trust_region), start);
    REQUIRE(line.report.converged);
    REQUIRE(trust.report.converged);
    CHECK(trust.report.iterations == line.report.iterations);
    CHECK(a.evaluations == b.evaluations);  // no rejected trial point
    CHECK(trust.x[0] == Approx(1.0).epsilon(1e-12));
    CHECK(trust.x[1] == Approx(2.0).epsilon(1e-12));

    SECTION("below the floor of |F| the Newton step of round-off length converges, as with the line search") {
        // |F| cannot reach 1e-300: at its floor no trial lowers |F|^2, and the ratio of the
        // trust region would judge noise; the round-off test ends the solve instead.
        NewtonOptions unreachable = options_with(NewtonGlobalization::trust_region);
        unreachable.absolute_tolerance = 1e-300;
        AlgebraicSystem c = make(), d = make();
        const Outcome trust_floor = solve(c, unreachable, start);
        unreachable.globalization = NewtonGlobalization::line_search;
        const Outcome line_floor = solve(d, unreachable, start);
        REQUIRE(line_floor.report.converged);
        CHECK(trust_floor.report.converged);
        CHECK(trust_floor.report.iterations == line_floor.report.iterations);
    }

    SECTION("a small first radius shortens the first steps and reaches the same root") {
        AlgebraicSystem c = make();
        NewtonOptions small = options_with(NewtonGlobalization::trust_region);
        small.initial_trust_radius = 1e-2;
        const Outcome cautious = solve(c, small, start);
        REQUIRE(cautious.report.converged);
        CHECK(cautious.report.iterations > trust.report.iterations);
        CHECK(cautious.x[0] == Approx(1.0).epsilon(1e-12));
        CHECK(cautious.x[1] == Approx(2.0).epsilon(1e-12));
    }
}

TEST_CASE("at a local minimum of |F|^2 that is not a root the trust region says so", "[kernel][newton][trust_region]") {
    // F = x^3 - 2 x + 2: its one real root is near -1.77, and |F|^2 has a local minimum at
    // x = sqrt(2/3), where F = 0.911. From x = 0 Newton cycles between 0 and 1; the trust
    // region descends into the local minimum, where no step lowers |F|, and stops there.
    AlgebraicSystem system(
        1, [](const VectorX& x, VectorX& f) { f[0] = x[0] * x[0] * x[0] - 2.0 * x[0] + 2.0; },
        [](const VectorX& x, Eigen::MatrixXd& j) { j(0, 0) = 3.0 * x[0] * x[0] - 2.0; });
    const Outcome o = solve(system, options_with(NewtonGlobalization::trust_region), VectorX::Zero(1));
    CHECK_FALSE(o.report.converged);
    CHECK(o.x[0] == Approx(std::sqrt(2.0 / 3.0)).epsilon(1e-3));
    CHECK_THAT(o.report.diagnosis, Contains("local minimum of |F|^2 that is not a solution"));
}

TEST_CASE("the trust region's settings are checked in the scene", "[kernel][newton][errors]") {
    const auto error_of = [](const std::string& newton) -> std::string {
        const std::string text =
            "simulation: {duration: 0.1}\nintegrator: {type: statics, dt: 0.1, newton: " + newton +
            "}\nelements:\n  - {name: a, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], "
            "nodes: 5}}, cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e7}, "
            "fixed: {nodes: [0, 1]}}\n";
        try {
            Simulation sim(load_scene_text(text, "scene.yaml"), builtin_registry());
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK(error_of("{globalization: trust_region, initial_trust_radius: 0.5}") == "no error");
    CHECK_THAT(error_of("{globalization: trust_region, line_search_start: 2}"),
               Contains("scene.yaml:2:") && Contains("integrator.newton.line_search_start") &&
                   Contains("applies to globalization: line_search"));
    CHECK_THAT(error_of("{globalization: trust_region, jacobian_reuse: 2}"),
               Contains("integrator.newton.jacobian_reuse") && Contains("need the Jacobian at each iterate"));
    CHECK_THAT(error_of("{initial_trust_radius: 2}"),
               Contains("integrator.newton.initial_trust_radius") && Contains("applies to globalization: trust_region"));
    CHECK_THAT(error_of("{globalization: dogleg}"), Contains("integrator.newton.globalization") && Contains("trust_region"));
}
