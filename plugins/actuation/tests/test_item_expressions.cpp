// ItemExpressions: muparser expressions of t and per-item variables (item_expressions.hpp).
#include "item_expressions.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

using namespace soma::actuation;

TEST_CASE("expressions read every variable and the constants", "[actuation][expressions]") {
    ItemExpressions e({"t + 10*i + 100*j", "n*s", "x - 2*y + 3*z", "sin(_pi*t) + _e"});
    REQUIRE(e.size() == 4);
    ItemVariables& v = e.variables();
    v.t = 0.25, v.i = 3, v.j = 1, v.n = 5, v.s = 0.25, v.x = 1.0, v.y = 2.0, v.z = 4.0;
    CHECK(e.evaluate(0) == Approx(130.25).epsilon(1e-15));
    CHECK(e.evaluate(1) == Approx(1.25).epsilon(1e-15));
    CHECK(e.evaluate(2) == Approx(9.0).epsilon(1e-15));
    CHECK(e.evaluate(3) == Approx(std::sin(std::numbers::pi * 0.25) + std::numbers::e).epsilon(1e-15));
    // _pi is the double nearest pi (muparser's GCC build has 3.141592653589): sin(_pi) ~ 1e-16.
    ItemExpressions pi({"_pi", "sin(_pi)"});
    CHECK(pi.evaluate(0) == std::numbers::pi);
    CHECK(std::abs(pi.evaluate(1)) < 1e-15);
    // Variables are read at each evaluation (muparser holds their addresses).
    v.t = 1.0;
    CHECK(e.evaluate(0) == Approx(131.0).epsilon(1e-15));
    // A moved set keeps working: the variables live on the heap.
    ItemExpressions moved = std::move(e);
    moved.variables().i = 0;
    CHECK(moved.evaluate(0) == Approx(101.0).epsilon(1e-15));
    CHECK(moved.text(1) == "n*s");
}

TEST_CASE("syntax errors and unknown names are reported with the expression", "[actuation][expressions]") {
    CHECK_THROWS_WITH(ItemExpressions({"t", "sin(t"}),
                      Catch::Contains("expression 2 ('sin(t')") && Catch::Contains("variables: t, i, j, n, s, x, y, z"));
    CHECK_THROWS_WITH(ItemExpressions({"omega*t"}), Catch::Contains("expression 1 ('omega*t')"));
    CHECK_THROWS_AS(ItemExpressions({""}), std::invalid_argument);
    CHECK_THROWS_AS(ItemExpressions({"2*pi*t"}), std::invalid_argument);  // the constant is _pi
    // A domain error is a value, not a parse error: the controller checks values at bind().
    ItemExpressions domain({"sqrt(x - 1)"});
    CHECK(std::isnan(domain.evaluate(0)));
}
