// The plugin SDK end to end, as docs/plugin-guide.md describes it: install Soma, build the
// anchor_spring plugin and its unit test out of tree with find_package(Soma), run the unit test,
// load the plugin by path from a scene, and check that it changes the result as its physics says.
//
// Physics: a cantilever of free length L under a uniform load q deflects
// delta_q = q L^4 / (8 EI) at the tip (Euler-Bernoulli). A spring of stiffness k at the tip
// carries P = k delta, which lifts the tip by P L^3 / (3 EI), so
//     delta = delta_q / (1 + k L^3 / (3 EI)).
// With k = 3 EI / L^3 the spring halves the deflection.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path work = SOMA_OUT_OF_TREE_WORK;

int shell(const std::string& command) {
    INFO(command);
    return std::system((command + " > " + (work / "last_command.log").string() + " 2>&1").c_str());
}

std::string last_log() {
    std::ifstream in(work / "last_command.log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The last row's value of a CSV column.
double last_value(const fs::path& csv, const std::string& column) {
    std::ifstream in(csv);
    REQUIRE(in.good());
    std::string header, line, last;
    std::getline(in, header);
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    std::vector<std::string> names, values;
    std::stringstream h(header), v(last);
    for (std::string cell; std::getline(h, cell, ',');) names.push_back(cell);
    for (std::string cell; std::getline(v, cell, ',');) values.push_back(cell);
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == column) return std::stod(values.at(i));
    FAIL("no column " << column << " in " << csv);
    return 0.0;
}

constexpr double kPi = 3.14159265358979323846;

std::string scene(const std::string& plugin_line, const std::string& spring) {
    return plugin_line + R"(
simulation: {duration: 1.0}
integrator: {type: statics, dt: 0.25, ramp_time: 1.0, newton: {absolute_tolerance: 1.0e-9}}
elements:
  - name: beam
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 41}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e9}
    fixed: {nodes: [0, 1], edges: [0]}
forces:
  - {type: gravity, acceleration: [0, 0, -9.81]}
)" + spring + R"(
outputs:
  - {type: csv, name: tip, probes: [{node_position: {element: beam, node: -1}}]}
)";
}

}  // namespace

TEST_CASE("an out-of-tree force plugin builds against the installed SDK and acts as its physics says",
          "[plugins][install]") {
    const fs::path build = std::getenv("SOMA_BUILD_DIR");
    const fs::path source = std::getenv("SOMA_SOURCE_DIR");
    const fs::path prefix = work / "prefix";
    const fs::path plugin_build = work / "anchor_spring_build";
    fs::remove_all(prefix);
    fs::remove_all(plugin_build);
    fs::create_directories(work);
    const std::string cmake = SOMA_CMAKE_COMMAND;

    REQUIRE(shell(cmake + " --install " + build.string() + " --prefix " + prefix.string()) == 0);
    INFO(last_log());
    REQUIRE(shell(cmake + " -S " + (source / "tests/out_of_tree/anchor_spring").string() + " -B " +
                  plugin_build.string() + " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + prefix.string()) == 0);
    REQUIRE(shell(cmake + " --build " + plugin_build.string()) == 0);
    const fs::path library = plugin_build / "libanchor_spring.so";
    REQUIRE(fs::exists(library));

    // The plugin's own unit test, built beside it against the installed SDK: the force made from
    // YAML parameters by its factory (soma/testing/parameters_from_yaml.hpp), its Jacobian and
    // gradient against finite differences (soma/testing/dense_assembly.hpp).
    {
        const int status = shell((plugin_build / "anchor_spring_tests").string());
        INFO(last_log());
        REQUIRE(status == 0);
        CHECK_THAT(last_log(), Catch::Matchers::Contains("All tests passed"));
    }

    // Beam geometry: nodes 0 and 1 and edge 0 are fixed. A discrete rod's edge angle samples
    // the tangent at the edge's midpoint, so the fixed edge puts the clamp at its midpoint
    // (x = dl/2) and the free length is L - dl/2 (docs/validation.md, "where a rod is clamped").
    const double radius = 1e-3, E = 2e9, rho = 1200.0, g = 9.81;
    const double EI = E * kPi * std::pow(radius, 4) / 4.0;
    const double free_length = 0.1 - 0.5 * 0.1 / 40.0;
    const double k = 3.0 * EI / std::pow(free_length, 3);

    const std::string plugin_line = "plugin_paths: [" + library.string() + "]";
    const fs::path soma = prefix / "bin" / "soma";
    std::ofstream(work / "without.yaml") << scene(plugin_line, "");
    std::ofstream(work / "with.yaml") << scene(
        plugin_line, "  - {type: anchor_spring, element: beam, nodes: [-1], stiffness: " + std::to_string(k) + "}");
    REQUIRE(shell(soma.string() + " run " + (work / "without.yaml").string() + " -q --output " +
                  (work / "without").string()) == 0);
    REQUIRE(shell(soma.string() + " run " + (work / "with.yaml").string() + " -q --output " +
                  (work / "with").string()) == 0);
    const double free_tip = -last_value(work / "without" / "tip.csv", "beam.node40.z");
    const double sprung_tip = -last_value(work / "with" / "tip.csv", "beam.node40.z");

    // The free deflection is the Euler-Bernoulli value to the rod's O(dl^2) discretization error
    // (< 1% at 40 edges); the spring halves it. The ratio cancels most of the discretization
    // error, so 1% is a generous bound for it.
    const double q = rho * g * kPi * radius * radius;
    CHECK(free_tip == Approx(q * std::pow(free_length, 4) / (8.0 * EI)).epsilon(0.01));
    CHECK(sprung_tip / free_tip == Approx(0.5).epsilon(0.01));

    // SOMA_PLUGIN_PATH finds it too, and `soma plugins` / `soma describe` show it.
    REQUIRE(shell("SOMA_PLUGIN_PATH=" + plugin_build.string() + " " + soma.string() + " plugins") == 0);
    CHECK_THAT(last_log(), Catch::Matchers::Contains("anchor_spring") && Catch::Matchers::Contains(library.string()));
    REQUIRE(shell("SOMA_PLUGIN_PATH=" + plugin_build.string() + " " + soma.string() + " describe anchor_spring") == 0);
    CHECK_THAT(last_log(), Catch::Matchers::Contains("stiffness") && Catch::Matchers::Contains("N/m"));

    // Errors from the out-of-tree plugin's own bind() reach the user with the scene location.
    std::ofstream(work / "bad.yaml") << scene(plugin_line,
                                              "  - {type: anchor_spring, element: bean, nodes: [-1], stiffness: 1.0}");
    CHECK(shell(soma.string() + " check " + (work / "bad.yaml").string()) != 0);
    CHECK_THAT(last_log(), Catch::Matchers::Contains("bad.yaml:13:27: forces[1].element") &&
                               Catch::Matchers::Contains("no element named 'bean'"));
}
