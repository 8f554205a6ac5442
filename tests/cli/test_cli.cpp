// The `soma` command end to end: every subcommand, exit codes, messages on stderr, and
// docs/scene-reference.md kept in sync with the registered schemas.
#include "plugin_loader.hpp"
#include "type_registry.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using Catch::Matchers::Contains;

namespace {

struct Result {
    int exit_code;
    std::string output;  // stdout and stderr together
};

std::string env(const char* name) {
    const char* value = std::getenv(name);
    REQUIRE(value != nullptr);
    return value;
}

Result run_soma(const std::string& arguments) {
    const std::string command = env("SOMA_BUILD_DIR") + "/bin/soma " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string output;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

/// Writes a scene into a temporary folder and returns its path.
std::string scene_file(const std::string& name, const std::string& text) {
    const auto dir = std::filesystem::temp_directory_path() / "soma-cli-tests";
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path.string();
}

const char* kValidScene = R"(simulation: {duration: 0.01}
integrator: {type: implicit_euler, dt: 1.0e-3}
elements:
  - name: beam
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 11}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e6}
    fixed: {nodes: [0, 1]}
forces:
  - {type: gravity}
outputs:
  - {type: csv, name: tip, probes: [{node_position: {element: beam, node: -1}}]}
)";

}  // namespace

TEST_CASE("soma run writes outputs and a summary", "[cli]") {
    const auto out = std::filesystem::temp_directory_path() / "soma-cli-tests" / "run-out";
    std::filesystem::remove_all(out);
    const Result r = run_soma("run " + scene_file("valid.yaml", kValidScene) + " --output " + out.string());
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("run completed") && Contains("10 steps") && Contains("real-time factor") &&
                             Contains("tip.csv"));
    CHECK(std::filesystem::exists(out / "tip.csv"));
}

TEST_CASE("soma run --set overrides a value and reports where it went wrong", "[cli][errors]") {
    const Result r = run_soma("run " + scene_file("valid.yaml", kValidScene) + " --set integrator.dt=-1");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("valid.yaml:2:") && Contains("integrator.dt") && Contains("out of range"));
}

TEST_CASE("soma check reports every scene error at once with file:line:col", "[cli][errors]") {
    const std::string bad = R"(simulation: {duration: 1.0}
integrator: {type: implicit_eular, dt: 1.0e-3}
elements:
  - name: beam
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 11}}
    cross_section: {circle: {radius: -1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e6, poisson: 0.3}
)";
    const Result r = run_soma("check " + scene_file("bad.yaml", bad));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("3 errors in"));
    CHECK_THAT(r.output, Contains("bad.yaml:2:20: integrator.type: unknown integrator type 'implicit_eular'; did you "
                                  "mean 'implicit_euler' (plugin 'integrators')"));
    CHECK_THAT(r.output, Contains("bad.yaml:7:") && Contains("cross_section.circle.radius") && Contains("out of range"));
    CHECK_THAT(r.output, Contains("bad.yaml:8:") && Contains("unknown key 'poisson'; did you mean 'poisson_ratio'?"));
}

TEST_CASE("soma check validates references between blocks", "[cli][errors]") {
    std::string scene = kValidScene;
    SECTION("a node index out of range") {
        scene.replace(scene.find("nodes: [0, 1]"), 13, "nodes: [0, 40]");
        const Result r = run_soma("check " + scene_file("range.yaml", scene));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("range.yaml:9:") && Contains("node index 40 is out of range"));
    }
    SECTION("a plugin path that does not exist") {
        scene = "plugin_paths: [no_such_plugin.so]\n" + scene;
        const Result r = run_soma("check " + scene_file("plugin.yaml", scene));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("plugin.yaml:1:16: plugin_paths[0]: plugin not found"));
    }
    SECTION("a YAML syntax error") {
        const Result r = run_soma("check " + scene_file("syntax.yaml", "simulation: {duration: 1.0\nintegrator: x\n"));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("syntax.yaml:") && Contains("YAML syntax error"));
    }
    SECTION("an output probe naming an unknown element") {
        scene.replace(scene.find("node_position: {element: beam"), 29, "node_position: {element: bem");
        const Result r = run_soma("check " + scene_file("probe.yaml", scene));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("probe.yaml:13:") && Contains("no element named 'bem'"));
    }
    SECTION("a valid scene") {
        const Result r = run_soma("check " + scene_file("ok.yaml", scene));
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.output, Contains("OK (1 elements"));
    }
}

TEST_CASE("soma plugins and soma describe", "[cli]") {
    const Result plugins = run_soma("plugins");
    CHECK(plugins.exit_code == 0);
    CHECK_THAT(plugins.output, Contains("discrete_rod") && Contains("implicit_euler") && Contains("eigen_ldlt"));
    const Result describe = run_soma("describe discrete_rod");
    CHECK(describe.exit_code == 0);
    CHECK_THAT(describe.output, Contains("youngs_modulus"));
    const Result markdown = run_soma("describe gravity --markdown");
    CHECK_THAT(markdown.output, Contains("| Key |"));
    const Result unknown = run_soma("describe gravty");
    CHECK(unknown.exit_code == 1);
    CHECK_THAT(unknown.output, Contains("did you mean 'gravity'"));
}

TEST_CASE("docs/scene-reference.md is generated from the current schemas", "[cli][docs]") {
    const Result r = run_soma("reference");
    REQUIRE(r.exit_code == 0);
    std::ifstream file(env("SOMA_SOURCE_DIR") + "/docs/scene-reference.md");
    std::stringstream committed;
    committed << file.rdbuf();
    INFO("regenerate with: build/bin/soma reference > docs/scene-reference.md");
    CHECK(committed.str() == r.output);
}

TEST_CASE("every registered parameter is documented", "[docs]") {
    soma::TypeRegistry registry;
    soma::PluginLoader loader(registry);
    loader.load_defaults();
    std::function<void(const soma::ParameterSchema&, const std::string&)> check = [&](const soma::ParameterSchema& s,
                                                                                     const std::string& where) {
        for (const auto& p : s.params()) {
            INFO(where + "." + p.name);
            CHECK(!p.doc.empty());
            if (p.sub) check(*p.sub, where + "." + p.name);
            for (const auto& alt : p.alternatives) check(*alt, where + "." + p.name + "." + alt->name());
        }
    };
    for (const auto* entry : registry.entries()) {
        CHECK(!entry->schema.doc().empty());
        check(entry->schema, entry->name);
    }
}

TEST_CASE("a run that cannot converge stops with a diagnosis and leaves readable outputs", "[cli][errors]") {
    // One Newton iteration allowed, an unreachable tolerance and no retries: the first step fails.
    std::string scene = kValidScene;
    scene.replace(scene.find("integrator: {type: implicit_euler, dt: 1.0e-3}"), 46,
                  "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {max_iterations: 1, absolute_tolerance: "
                  "1.0e-300, relative_tolerance: 0}, adaptive: {max_retries: 2}}");
    scene += "  - {type: vtk}\n";
    const auto out = std::filesystem::temp_directory_path() / "soma-cli-tests" / "stopped-out";
    std::filesystem::remove_all(out);
    const Result r = run_soma("run " + scene_file("stopped.yaml", scene) + " --output " + out.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("error: the simulation stopped at t = 0 s") &&
                             Contains("Newton did not converge in 1 iterations") && Contains("residual") &&
                             Contains("at beam node") && Contains("from 'beam'") && Contains("gave up after 2 retries") &&
                             Contains("run STOPPED before the end time"));
    // The CSV has its header and the initial state; the ParaView collection is valid and
    // lists the initial frame.
    std::ifstream csv(out / "tip.csv");
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    CHECK(header == "time,beam.node10.x,beam.node10.y,beam.node10.z");
    CHECK(row == "0,0.1,0,0");
    std::ifstream pvd(out / "frames.pvd");
    std::stringstream text;
    text << pvd.rdbuf();
    CHECK_THAT(text.str(), Contains("frames_000000.vtu") && Contains("</VTKFile>"));
}
