// The `actuation` controller against a dummy element with two channels
// (actuation_controller.hpp): expressions of t, i, j, n, s, x; item selection; tables; every
// settings error; run-time refusals; no allocation in apply().
#include "actuation_controller.hpp"

#include "actuation_test_support.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>

using namespace soma;
using namespace soma::actuation;
using namespace soma::actuation::testing;

// ---- allocation counting (global replacement; counts only while g_counting is set) ----
namespace {
std::atomic<long> g_allocations{0};
std::atomic<bool> g_counting{false};
}  // namespace

void* operator new(std::size_t size) {
    if (g_counting) ++g_allocations;
    if (void* p = std::malloc(size ? size : 1)) return p;
    throw std::bad_alloc();
}
// Catch allocates with the nothrow form: replace it too, or its delete frees what ASan's
// operator new allocated (alloc-dealloc-mismatch, found by the sanitizer stage).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    if (g_counting) ++g_allocations;
    return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

ActuationSettings expressions(std::vector<std::string> values, std::string channel = "bend") {
    ActuationSettings s;
    s.element = "body";
    s.channel = std::move(channel);
    s.values = std::move(values);
    return s;
}

/// The message of the InputError thrown by building and binding a controller.
std::string error_of(const ActuationSettings& settings, ActuatedDummy* element = nullptr) {
    ActuatedDummy fallback("body");
    soma::testing::TestScene scene({element ? element : &fallback});
    try {
        ActuationController controller(settings);
        controller.bind(scene);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

std::filesystem::path write_table(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("soma_actuation_" + name + ".csv");
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("values: expressions of t, i, j, n, s and the actuation point, set on every item", "[actuation][controller]") {
    ActuatedDummy body("body");
    soma::testing::TestScene scene({&body});
    ActuationController controller(expressions({"t + 10*i", "s + 100*x - y + z"}));
    controller.bind(scene);
    CHECK(controller.selected_items() == std::vector<Index>{0, 1, 2, 3, 4});
    // bind sets the values of the scene's initial time (t = 0 here).
    CHECK(body.set_calls == 10);
    CHECK(controller.last_value(2, 0) == Approx(20.0));
    CHECK(body.actuation("bend", 2, 0) == Approx(20.0));
    controller.apply(0.3);
    for (Index k = 0; k < 5; ++k) {
        const double kd = static_cast<double>(k);
        CHECK(body.actuation("bend", k, 0) == Approx(0.3 + 10.0 * kd).epsilon(1e-15));
        // s = k/4, x = 0.1 k, y = 0.01 k, z = -0.02 k
        CHECK(body.actuation("bend", k, 1) == Approx(kd / 4.0 + 10.0 * kd - 0.01 * kd - 0.02 * kd).epsilon(1e-14));
    }
    CHECK(body.set_calls == 20);
    controller.apply(1.0);  // re-evaluated at each apply
    CHECK(body.actuation("bend", 4, 0) == Approx(41.0).epsilon(1e-15));
    CHECK(controller.last_value(4, 0) == Approx(41.0).epsilon(1e-15));
}

TEST_CASE("identical component expressions are evaluated once and give each item its own value", "[actuation][controller]") {
    // The second component repeats the first's text: it takes the first's value for the same item
    // (not another item's, nor a value left from an earlier time).
    ActuatedDummy body("body");
    soma::testing::TestScene scene({&body});
    ActuationController controller(expressions({"sin(t + i)", "sin(t + i)"}));
    controller.bind(scene);
    for (const double t : {0.0, 0.7, 2.0}) {
        controller.apply(t);
        for (Index k = 0; k < 5; ++k) {
            const double expected = std::sin(t + static_cast<double>(k));
            CHECK(body.actuation("bend", k, 0) == expected);
            CHECK(body.actuation("bend", k, 1) == expected);
        }
    }
    ItemExpressions texts({"t", "2*t", "t", "2*t", "t+0"});
    CHECK(texts.first_identical(0) == 0);
    CHECK(texts.first_identical(1) == 1);
    CHECK(texts.first_identical(2) == 0);
    CHECK(texts.first_identical(3) == 1);
    CHECK(texts.first_identical(4) == 4);  // the same value, another text: evaluated
}

TEST_CASE("selection: items (negative from the end) and box select their union; j and s follow it", "[actuation][controller]") {
    ActuatedDummy body("body", 10);
    soma::testing::TestScene scene({&body});
    ActuationSettings s = expressions({"100*i + j", "1000*s + n"});
    s.items = std::vector<long>{-1, 2, 2};  // repeated indices are harmless
    s.box = SelectionBox{Vec3(0.25, -1, -1), Vec3(0.5, 1, 1)};  // x in [0.25, 0.5]: items 3, 4, 5
    ActuationController controller(s);
    controller.bind(scene);
    REQUIRE(controller.selected_items() == std::vector<Index>{2, 3, 4, 5, 9});
    controller.apply(0.0);
    const std::vector<Index> selected{2, 3, 4, 5, 9};
    for (std::size_t j = 0; j < selected.size(); ++j) {
        const Index i = selected[j];
        CHECK(body.actuation("bend", i, 0) == Approx(100.0 * i + j));
        CHECK(body.actuation("bend", i, 1) == Approx(1000.0 * j / 4.0 + 5.0));
    }
    CHECK(body.actuation("bend", 0, 0) == 0.0);  // not selected: untouched
    CHECK(body.actuation("bend", 8, 1) == 0.0);

    // Box alone; a single item has s = 0.
    ActuationSettings single = expressions({"s + n"}, "angle");
    single.box = SelectionBox{Vec3(-1, 0.5, -1), Vec3(1, 1.5, 1)};  // angle item 1 at (0, 1, 0)
    ActuationController one(single);
    one.bind(scene);
    REQUIRE(one.selected_items() == std::vector<Index>{1});
    one.apply(0.0);
    CHECK(body.actuation("angle", 1, 0) == 1.0);
}

TEST_CASE("table: the same interpolated values on every selected item, held outside the table", "[actuation][controller]") {
    ActuatedDummy body("body");
    soma::testing::TestScene scene({&body});
    ActuationSettings s;
    s.element = "body";
    s.channel = "bend";
    s.items = std::vector<long>{0, 3};
    s.table_file = write_table("ok", "t, k1, k2\n0, 0, 5\n1, 10, 5\n2, 10, -5\n").string();
    ActuationController controller(s);
    controller.bind(scene);
    for (const auto& [t, k1, k2] : {std::tuple{0.25, 2.5, 5.0}, std::tuple{1.5, 10.0, 0.0},
                                    std::tuple{-1.0, 0.0, 5.0}, std::tuple{9.0, 10.0, -5.0}}) {
        controller.apply(t);
        for (Index item : {0, 3}) {
            CHECK(body.actuation("bend", item, 0) == Approx(k1).margin(1e-14));
            CHECK(body.actuation("bend", item, 1) == Approx(k2).margin(1e-14));
        }
        CHECK(body.actuation("bend", 1, 0) == 0.0);
    }
}

TEST_CASE("settings errors: each names its key and the problem", "[actuation][controller][errors]") {
    SECTION("unknown element") {
        ActuationSettings s = expressions({"t", "0"});
        s.element = "bodyy";
        CHECK_THAT(error_of(s), Catch::Contains("element: no element named 'bodyy' (elements: 'body')"));
    }
    SECTION("unknown channel: the element's channels are listed") {
        CHECK_THAT(error_of(expressions({"t"}, "natural_curvature")),
                   Catch::Contains("channel: element 'body' has no actuation channel 'natural_curvature'") &&
                       Catch::Contains("bend (5 items; components k1, k2 in 1/m); angle (3 items; components phi in rad)"));
    }
    SECTION("wrong number of expressions") {
        CHECK_THAT(error_of(expressions({"t"})),
                   Catch::Contains("values: channel 'bend' has 2 components (k1, k2), but 1 expressions are given"));
        CHECK_THAT(error_of(expressions({"t", "t"}, "angle")), Catch::Contains("has 1 component (phi), but 2"));
        CHECK_THAT(error_of(expressions({})), Catch::Contains("values: the list of expressions is empty"));
    }
    SECTION("wrong number of table columns") {
        ActuationSettings s;
        s.element = "body";
        s.channel = "bend";
        s.table_file = write_table("one_column", "0, 1\n1, 2\n").string();
        CHECK_THAT(error_of(s), Catch::Contains("table.file: channel 'bend' has 2 components (k1, k2), but the table has 1 value columns"));
        s.table_file = write_table("bad", "0, 1, 2\n0, 2, 3\n").string();
        CHECK_THAT(error_of(s), Catch::Contains("table.file:") && Catch::Contains("increase strictly"));
        s.table_file = "/nonexistent/history.csv";
        CHECK_THAT(error_of(s), Catch::Contains("table.file: /nonexistent/history.csv: table file not found"));
    }
    SECTION("bad expressions") {
        CHECK_THAT(error_of(expressions({"t", "sin(2*_pi*t"})), Catch::Contains("values: expression 2 ('sin(2*_pi*t')"));
        CHECK_THAT(error_of(expressions({"omega*t", "0"})),
                   Catch::Contains("values: expression 1 ('omega*t')") && Catch::Contains("variables: t, i, j, n, s, x, y, z"));
        // Finite at the construction check (x = 0) but not for items 1..4: found at bind, t = 0.
        CHECK_THAT(error_of(expressions({"0", "1/(0.2 - x)"})),
                   Catch::Contains("values: expression 2 ('1/(0.2 - x)') is not finite for item 2 (j = 2, point (0.2") &&
                       Catch::Contains("at the initial time t = 0"));
        CHECK_THAT(error_of(expressions({"0", "sqrt(0.15 - x)"})),
                   Catch::Contains("values: expression 2 ('sqrt(0.15 - x)') is not finite for item 2"));
    }
    SECTION("items out of range, empty, box selecting nothing, bad box") {
        ActuationSettings s = expressions({"t", "0"});
        s.items = std::vector<long>{0, 5};
        CHECK_THAT(error_of(s), Catch::Contains("items: item index 5 is out of range: channel 'bend' of element 'body' has 5 "
                                                "items (valid: 0..4, or -5..-1)"));
        s.items = std::vector<long>{-6};
        CHECK_THAT(error_of(s), Catch::Contains("items: item index -6 is out of range"));
        s.items = std::vector<long>{};
        CHECK_THAT(error_of(s), Catch::Contains("items: the list is empty"));
        s.items.reset();
        s.box = SelectionBox{Vec3(2, 2, 2), Vec3(3, 3, 3)};
        CHECK_THAT(error_of(s), Catch::Contains("box: selects no item of channel 'bend' of element 'body'"));
        s.box = SelectionBox{Vec3(1, 0, 0), Vec3(0, 1, 1)};
        CHECK_THAT(error_of(s), Catch::Contains("box: needs finite bounds with min <= max"));
    }
    SECTION("exactly one of values and table") {
        ActuationSettings s = expressions({"t", "0"});
        s.table_file = write_table("ok2", "0, 1, 2\n").string();
        CHECK_THAT(error_of(s), Catch::Contains("values: give one of `values` (expressions), `table` (a CSV file) or "
                                                "`bend_toward` (a direction and a curvature), not several"));
        s.values.reset();
        s.table_file.reset();
        CHECK_THAT(error_of(s), Catch::Contains("values: give the channel's values"));
        s = expressions({"t", "0"});
        s.element.clear();
        CHECK_THAT(error_of(s), Catch::Contains("element: name the element"));
    }
}

TEST_CASE("bend_toward: the components are the direction's projections on the item's directions, normalised",
          "[actuation][controller][bend_toward]") {
    // The dummy's "bend" item k has directions D1 = +z, D2 = -y (a rod along +x), except item 1:
    // D1 = +y, D2 = +z (turned by 90 degrees about x).
    ActuatedDummy body("body");
    soma::testing::TestScene scene({&body});
    ActuationSettings s;
    s.element = "body";
    s.channel = "bend";
    s.bend_toward = BendToward{Vec3(7.0, -3.0, 4.0), "2*t + i"};  // the x component is along the rod
    ActuationController controller(s);
    controller.bind(scene);
    controller.apply(0.5);
    // Item 0: (d.D1, d.D2) = (4, 3) / 5 times kappa = 1.
    CHECK(body.actuation("bend", 0, 0) == Approx(0.8).epsilon(1e-15));
    CHECK(body.actuation("bend", 0, 1) == Approx(0.6).epsilon(1e-15));
    // Item 1: (d.D1, d.D2) = (-3, 4) / 5 times kappa = 2.
    CHECK(body.actuation("bend", 1, 0) == Approx(-1.2).epsilon(1e-15));
    CHECK(body.actuation("bend", 1, 1) == Approx(1.6).epsilon(1e-15));
    // Item 4: kappa = 5.
    CHECK(body.actuation("bend", 4, 0) == Approx(4.0).epsilon(1e-15));
    CHECK(controller.last_value(4, 1) == Approx(3.0).epsilon(1e-15));
}

TEST_CASE("bend_toward: errors", "[actuation][controller][bend_toward][errors]") {
    ActuationSettings s;
    s.element = "body";
    s.channel = "bend";
    s.bend_toward = BendToward{Vec3(1.0, 0.0, 0.0), "1"};
    CHECK_THAT(error_of(s), Catch::Contains("bend_toward.direction: the direction (1, 0, 0) is along the element at item 0"));
    s.bend_toward = BendToward{Vec3::Zero(), "1"};
    CHECK_THAT(error_of(s), Catch::Contains("bend_toward.direction: the direction must be finite and not zero"));
    s.bend_toward = BendToward{Vec3::UnitZ(), "1 +"};
    CHECK_THAT(error_of(s), Catch::Contains("bend_toward.curvature: expression 1 ('1 +')"));
    s.bend_toward = BendToward{Vec3::UnitZ(), "sqrt(-1)"};
    CHECK_THAT(error_of(s), Catch::Contains("bend_toward.curvature: expression 1 ('sqrt(-1)') is not finite"));
    s.bend_toward = BendToward{Vec3::UnitZ(), "1"};
    s.channel = "angle";
    CHECK_THAT(error_of(s), Catch::Contains("bend_toward: channel 'angle' of element 'body' has no bending directions"));
    s.channel = "bend";
    s.values = std::vector<std::string>{"1", "0"};
    CHECK_THAT(error_of(s), Catch::Contains("not several"));
}

TEST_CASE("errors go through the handler (the scene's Parameters::fail in a scene)", "[actuation][controller][errors]") {
    std::string seen;
    SettingsErrors errors("actuation", [&](const std::string& key, const std::string& message) {
        seen = key + " | " + message;
        throw InputError("scene.yaml:3:5: controllers[0]." + key + ": " + message);
    });
    CHECK_THROWS_WITH(ActuationController(expressions({"t", "("}), errors), Catch::StartsWith("scene.yaml:3:5: controllers[0].values: "));
    CHECK_THAT(seen, Catch::StartsWith("values | expression 2 ('(')"));
}

TEST_CASE("a value the element refuses during the run names element, channel, item and time", "[actuation][controller]") {
    ActuatedDummy body("body");
    body.limit = 10.0;
    soma::testing::TestScene scene({&body});
    ActuationController controller(expressions({"100*t*i", "0"}));
    controller.bind(scene);
    CHECK_NOTHROW(controller.apply(0.01));
    CHECK_THROWS_WITH(controller.apply(0.05),
                      Catch::Contains("actuation of channel 'bend' of element 'body', item 3, at t = 0.05") &&
                          Catch::Contains("exceeds the limit"));
    ActuationController nan(expressions({"log(t)", "0"}));  // log(0) = -inf: caught at bind
    CHECK_THROWS_WITH(nan.bind(scene), Catch::Contains("values: expression 1 ('log(t)') is not finite for item 0"));
    // A value the element refuses at the initial time is a settings error, found at bind.
    ActuationController refused(expressions({"0", "20 - t"}));
    CHECK_THROWS_WITH(refused.bind(scene), Catch::Contains("values: element 'body' refuses k2 = 20 for item 0") &&
                                               Catch::Contains("exceeds the limit"));
    ActuationSettings table;
    table.element = "body";
    table.channel = "angle";
    table.table_file = write_table("refused", "0, 50\n1, 0\n").string();
    ActuationController refused_table(table);
    CHECK_THROWS_WITH(refused_table.bind(scene), Catch::Contains("table.file: element 'body' refuses phi = 50"));
    ActuationController later(expressions({"sqrt(1 - t)", "0"}));
    later.bind(scene);
    CHECK_THROWS_WITH(later.apply(2.0), Catch::Contains("item 0, at t = 2") && Catch::Contains("('sqrt(1 - t)') is not finite"));
}

TEST_CASE("bind sets the values of the scene's initial time", "[actuation][controller]") {
    ActuatedDummy body("body");
    soma::testing::TestScene scene({&body});
    scene.set_time(2.0);
    ActuationController by_expression(expressions({"t*i", "-t"}));
    by_expression.bind(scene);
    CHECK(body.actuation("bend", 3, 0) == Approx(6.0));
    CHECK(body.actuation("bend", 3, 1) == Approx(-2.0));
    ActuationSettings s;
    s.element = "body";
    s.channel = "angle";
    s.table_file = write_table("start", "0, 0\n4, 1\n").string();
    ActuationController by_table(s);
    by_table.bind(scene);
    CHECK(body.actuation("angle", 2, 0) == Approx(0.5));
}

TEST_CASE("apply() allocates nothing", "[actuation][controller]") {
    ActuatedDummy body("body", 50);
    soma::testing::TestScene scene({&body});
    ActuationController by_expression(expressions({"0.1*sin(2*_pi*(t - s)) + x", "i*t"}));
    by_expression.bind(scene);
    by_expression.apply(0.0);  // first use outside the count
    ActuationSettings s;
    s.element = "body";
    s.channel = "bend";
    s.table_file = write_table("alloc", "0, 0, 1\n1, 2, 3\n2, 0, 0\n").string();
    ActuationController by_table(s);
    by_table.bind(scene);
    g_allocations = 0;
    g_counting = true;
    for (int step = 1; step <= 100; ++step) {
        by_expression.apply(0.01 * step);
        by_table.apply(0.02 * step);
    }
    g_counting = false;
    CHECK(g_allocations == 0);
    CHECK(body.set_calls == 2 * 50 * 2 * 100 + 3 * 100);  // + bind, bind, first apply
}

TEST_CASE("selection: a plane selects the items whose actuation point lies on it", "[actuation][controller]") {
    ActuatedDummy body("body", 10);
    soma::testing::TestScene scene({&body});
    // The "bend" items sit at x = 0.1 k (see the dummy): the plane x = 0.3 holds item 3 only;
    // with items [0] the union is {0, 3}.
    ActuationSettings s = expressions({"i", "0"});
    s.plane = SelectionPlane{Vec3(0.3, 0, 0), Vec3(2, 0, 0), 1e-9};
    s.items = std::vector<long>{0};
    ActuationController controller(s);
    controller.bind(scene);
    CHECK(controller.selected_items() == std::vector<Index>{0, 3});

    ActuationSettings none = expressions({"i", "0"});
    none.plane = SelectionPlane{Vec3(0.35, 0, 0), Vec3(1, 0, 0), 1e-9};
    ActuationController empty(none);
    CHECK_THROWS_WITH(empty.bind(scene), Catch::Matchers::Contains("plane") &&
                                             Catch::Matchers::Contains("selects no item"));
    ActuationSettings zero = expressions({"i", "0"});
    zero.plane = SelectionPlane{Vec3(0.3, 0, 0), Vec3(0, 0, 0), 1e-9};
    CHECK_THROWS_WITH(ActuationController(zero), Catch::Matchers::Contains("plane.normal") &&
                                                     Catch::Matchers::Contains("not zero"));
}
