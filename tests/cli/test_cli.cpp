// The `soma` command end to end: every subcommand, exit codes, messages on stderr, and
// docs/scene-reference.md kept in sync with the registered schemas.
#include "cli_runner.hpp"
#include "plugin_loader.hpp"
#include "type_registry.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

using Catch::Matchers::Contains;
using soma::cli_testing::environment;
using soma::cli_testing::Result;
using soma::cli_testing::run_soma;
using soma::cli_testing::scene_file;

namespace {

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

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/// Lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
    std::vector<std::string> found;
    for (const auto& line : lines_of(text))
        if (line.rfind(prefix, 0) == 0) found.push_back(line);
    return found;
}

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
    CHECK_THAT(r.output, Contains("--set integrator.dt=-1: integrator.dt:") && Contains("out of range"));
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
    // The committed page documents every plugin of the default build; a build without one
    // (-DSOMA_WITH_PETSC=OFF) generates a shorter page.
    if (run_soma("describe petsc").exit_code != 0) {
        WARN("the petsc linear solver is not built (SOMA_WITH_PETSC off): the reference is not compared");
        return;
    }
    const Result r = run_soma("reference");
    REQUIRE(r.exit_code == 0);
    std::ifstream file(environment("SOMA_SOURCE_DIR") + "/docs/scene-reference.md");
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

TEST_CASE("soma inspect lists a rod's nodes and edges with indices, positions and what is held", "[cli][inspect]") {
    const std::string scene = scene_file("valid.yaml", kValidScene);
    SECTION("readable text") {
        const Result r = run_soma("inspect " + scene);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK_THAT(r.output, Contains("element 'beam' (discrete_rod): 11 nodes, 10 edges, 0 triangles; DOF groups: "
                                      "nodes 11 x (x, y, z), edges 10 x (twist)"));
        CHECK_THAT(r.output, Contains("edges (midpoint; edge i is item i of DOF group 'edges': twist)"));
        // Node 1 is fixed (fixed: {nodes: [0, 1]}), node 10 is the free tip at x = 0.1.
        CHECK_THAT(r.output, Contains("\n         1         0.01            0            0  fixed x y z\n"));
        CHECK_THAT(r.output, Contains("\n        10          0.1            0            0  -\n"));
        // Edge 9 joins nodes 9 and 10, midpoint 0.095.
        CHECK_THAT(r.output, Contains("\n         9  9 10                  0.095            0            0"));
        CHECK_THAT(r.output, !Contains("triangles ("));
    }
    SECTION("csv: one table, exact numbers, filtered by element and kind") {
        const Result r = run_soma("inspect " + scene + " --format csv --element beam --only nodes", false);
        REQUIRE(r.exit_code == 0);
        const auto lines = lines_of(r.output);
        REQUIRE(lines.size() == 12);  // header + 11 nodes
        CHECK(lines[0] == "element,kind,index,node_a,node_b,node_c,x,y,z,distance,dofs,held,description");
        CHECK(lines[1] == "beam,node,0,,,,0,0,0,,x y z,fixed x y z,");
        CHECK(lines[6] == "beam,node,5,,,,0.05,0,0,,x y z,,");
        CHECK(lines[11] == "beam,node,10,,,,0.1,0,0,,x y z,,");
        const Result edges = run_soma("inspect " + scene + " -f csv --only edges", false);
        const auto edge_rows = lines_starting(edges.output, "beam,edge,");
        REQUIRE(edge_rows.size() == 10);
        CHECK_THAT(edge_rows[9], Catch::StartsWith("beam,edge,9,9,10,,0.095") && Catch::EndsWith(",twist,,"));
    }
    SECTION("--near lists the nearest items by distance") {
        const Result r = run_soma("inspect " + scene + " -f csv --near 0.1 0 0 --count 2 --only nodes", false);
        REQUIRE(r.exit_code == 0);
        const auto rows = lines_starting(r.output, "beam,");
        REQUIRE(rows.size() == 2);
        CHECK(rows[0] == "beam,node,10,,,,0.1,0,0,0,x y z,,");
        CHECK_THAT(rows[1], Catch::StartsWith("beam,node,9,,,,0.09"));
    }
    SECTION("--set applies before the listing") {
        const Result r = run_soma("inspect " + scene + " -f csv --only nodes --set elements.0.fixed.nodes=[10]", false);
        REQUIRE(r.exit_code == 0);
        CHECK(lines_starting(r.output, "beam,node,0,")[0] == "beam,node,0,,,,0,0,0,,x y z,,");
        CHECK(lines_starting(r.output, "beam,node,10,")[0] == "beam,node,10,,,,0.1,0,0,,x y z,fixed x y z,");
    }
}

TEST_CASE("soma inspect lists mapped points through the element's map (rigid bodies, gvs robots)", "[cli][inspect]") {
    // A rigid box's points and a gvs robot's have no DOFs of their own: their positions come from
    // the map (this used to read q at DOF -1 for the box's triangle centroids, an assertion).
    const std::string scene = scene_file("mapped.yaml", R"(simulation: {duration: 0.01}
integrator: {type: implicit_euler, dt: 0.01}
elements:
  - name: box
    type: rigid_body
    position: [1, 0, 0]
    shape: {box: {size: [0.2, 0.2, 0.2]}}
    density: 100
  - name: arm
    type: gvs
    gravity: [0, 0, -9.81]
    links:
      - name: link
        joint: {type: revolute, axis: [0, 0, 1], initial: [1.5707963267948966]}
        rigid: {mass: 1, inertia: [1.0e-3, 1.0e-3, 1.0e-3, 0, 0, 0], end_position: [0.5, 0, 0]}
)");
    const Result r = run_soma("inspect " + scene + " -f csv", false);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // The box's 12 triangles (centroids through its corners); the arm's end is 0.5 m along y
    // (turned a quarter about z).
    const auto triangles = lines_starting(r.output, "box,triangle,");
    REQUIRE(triangles.size() == 12);
    CHECK_THAT(triangles[0], Catch::StartsWith("box,triangle,0,2,4,5,0.966666666666666"));
    CHECK_THAT(lines_starting(r.output, "arm,node,2,")[0], Contains(",0.5,0,,(moves with the body)"));
    CHECK_THAT(r.output, Contains("arm,coordinates,0,"));
}

TEST_CASE("soma imports prints what each import writes, and check builds the imported robot", "[cli][imports]") {
    const std::string scene = environment("SOMA_SOURCE_DIR") + "/configs/rigid/urdf_arm.yaml";
    const Result r = run_soma("imports " + scene, false);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // The label its errors are located at, then the text: three bodies, three joints, their ranges.
    CHECK_THAT(r.output, Catch::StartsWith("# imports.arm (urdf at " + scene + ":11:5)\n# robot \"spatial_arm\""));
    CHECK(lines_starting(r.output, "  - {name: \"arm/").size() == 3);
    CHECK(lines_starting(r.output, "  - {type: joint_limit").size() == 3);
    const Result check = run_soma("check " + scene);
    INFO(check.output);
    CHECK(check.exit_code == 0);
    CHECK_THAT(check.output, Contains("OK (3 elements, 18 DOFs"));
    // A scene without imports says so.
    const Result none = run_soma("imports " + scene_file("valid.yaml", kValidScene));
    CHECK(none.exit_code == 0);
    CHECK_THAT(none.output, Contains("the scene has no imports"));
}

TEST_CASE("soma inspect refuses an unknown element and bad options", "[cli][inspect][errors]") {
    const std::string scene = scene_file("valid.yaml", kValidScene);
    const Result r = run_soma("inspect " + scene + " --element bem");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("--element bem: the scene has no element named 'bem' (elements: 'beam'); did you "
                                  "mean 'beam'?"));
    const Result only = run_soma("inspect " + scene + " --only vertices");
    CHECK(only.exit_code != 0);
    CHECK_THAT(only.output, Contains("vertices"));
    const Result near = run_soma("inspect " + scene + " --near 0 0");
    CHECK(near.exit_code != 0);
    CHECK_THAT(near.output, Contains("--near"));
    const std::pair<const char*, const char*> bad_options[] = {
        {" --near nan 0 0", "--near: a coordinate must be a finite number, got 'nan'"},
        {" --count 3", "--count requires --near"},
        {" --near 0 0 0 --count -1", "--count: Value -1 not in range 1 to 1000000000"},
    };
    for (const auto& [options, message] : bad_options) {
        const Result bad = run_soma("inspect " + scene + options);
        CHECK(bad.exit_code != 0);
        CHECK_THAT(bad.output, Contains(message));
    }
}

TEST_CASE("soma inspect lists shell triangles, and edge DOFs only where the element has them", "[cli][inspect]") {
    // A unit square of two triangles: 4 nodes, 5 edges.
    scene_file("square.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n");
    const auto shell_scene = [](const std::string& type) {
        return "simulation: {duration: 1.0}\nintegrator: {type: statics, dt: 1.0}\nelements:\n  - name: sheet\n    type: " +
               type +
               "\n    mesh: {file: {path: square.obj}}\n    thickness: 1.0e-3\n"
               "    material: {density: 1000, youngs_modulus: 1.0e6}\n    fixed: {nodes: [0]}\n";
    };
    for (const std::string type : {"midedge_shell", "hinge_shell"}) {
        INFO(type);
        const std::string scene = scene_file(type + ".yaml", shell_scene(type));
        const Result text = run_soma("inspect " + scene);
        INFO(text.output);
        REQUIRE(text.exit_code == 0);
        CHECK_THAT(text.output, Contains("element 'sheet' (" + type + "): 4 nodes, 5 edges, 2 triangles"));
        const Result csv = run_soma("inspect " + scene + " -f csv", false);
        CHECK(lines_starting(csv.output, "sheet,node,").size() == 4);
        CHECK(lines_starting(csv.output, "sheet,triangle,0,")[0] == "sheet,triangle,0,0,1,2," +
                                                                        std::string("0.6666666666666666,0.3333333333333333,0,,,,"));
        CHECK(lines_starting(csv.output, "sheet,triangle,1,")[0] == "sheet,triangle,1,0,2,3," +
                                                                        std::string("0.3333333333333333,0.6666666666666666,0,,,,"));
        const auto edges = lines_starting(csv.output, "sheet,edge,");
        REQUIRE(edges.size() == 5);
        if (type == "midedge_shell") {
            CHECK_THAT(text.output, Contains("edge i is item i of DOF group 'edges': xi"));
            for (const auto& edge : edges) CHECK_THAT(edge, Catch::EndsWith(",xi,,"));
        } else {
            CHECK_THAT(text.output, Contains("edges (midpoint; no edge DOFs)"));
            for (const auto& edge : edges) CHECK_THAT(edge, Catch::EndsWith(",,,"));
        }
        // The diagonal edge (nodes 0 and 2) has its midpoint at the center of the square.
        bool diagonal = false;
        for (const auto& edge : edges)
            diagonal = diagonal || edge.find(",0,2,,0.5,0.5,0,") != std::string::npos ||
                       edge.find(",2,0,,0.5,0.5,0,") != std::string::npos;
        CHECK(diagonal);
    }
}

TEST_CASE("probes and point loads by position report the node chosen", "[cli][probes]") {
    std::string scene = kValidScene;
    scene.replace(scene.find("{element: beam, node: -1}"), 25, "{element: beam, at: [0.0502, 0, 0]}");
    scene.replace(scene.find("  - {type: gravity}"), 19, "  - {type: point_load, name: push, element: beam, at: [0.1, 0.001, 0], force: [0, 0, -1]}");
    const std::string path = scene_file("at.yaml", scene);
    SECTION("soma check prints notes with the node and its distance") {
        const Result r = run_soma("check " + path);
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.output, Contains("note: ") && Contains("at.yaml:11:") && Contains("forces[0].at: at [0.1, 0.001, 0] is node 10 of 'beam' "
                                                                     "at [0.1, 0, 0] (distance 0.001 m)"));
        CHECK_THAT(r.output, Contains("at.yaml:13:") && Contains("outputs[0].probes[0].node_position.at: at [0.0502, 0, 0] "
                                                                 "is node 5 of 'beam' at [0.05, 0, 0] (distance 0.0002 m)"));
    }
    SECTION("the CSV columns name the node chosen") {
        const auto out = std::filesystem::temp_directory_path() / "soma-cli-tests" / "at-out";
        std::filesystem::remove_all(out);
        const Result r = run_soma("run " + path + " --quiet --output " + out.string());
        INFO(r.output);
        CHECK(r.exit_code == 0);
        std::ifstream csv(out / "tip.csv");
        std::string header;
        std::getline(csv, header);
        CHECK(header == "time,beam.node5.x,beam.node5.y,beam.node5.z");
    }
}

TEST_CASE("probes and point loads take either an index or a position", "[cli][probes][errors]") {
    SECTION("a probe with node and at") {
        std::string scene = kValidScene;
        scene.replace(scene.find("{element: beam, node: -1}"), 25, "{element: beam, node: 3, at: [0, 0, 0]}");
        const Result r = run_soma("check " + scene_file("probe_both.yaml", scene));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("probe_both.yaml:13:") &&
                                 Contains("outputs[0].probes[0].node_position.at: give either `node` (an index) or "
                                          "`at` (a position), not both"));
    }
    SECTION("a point load with nodes and at") {
        std::string scene = kValidScene;
        scene.replace(scene.find("  - {type: gravity}"), 19,
                      "  - {type: point_load, element: beam, nodes: [3], at: [0, 0, 0], force: [0, 0, 1]}");
        const Result r = run_soma("check " + scene_file("load_both.yaml", scene));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("load_both.yaml:11:") &&
                                 Contains("forces[0].at: give either `nodes` (indices) or `at` (a position), not both"));
    }
    SECTION("a point load with neither") {
        std::string scene = kValidScene;
        scene.replace(scene.find("  - {type: gravity}"), 19, "  - {type: point_load, element: beam, force: [0, 0, 1]}");
        const Result r = run_soma("check " + scene_file("load_neither.yaml", scene));
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("load_neither.yaml:11:") &&
                                 Contains("forces[0]: give the loaded nodes: `nodes: [indices]` or `at: [x, y, z]`"));
    }
}

TEST_CASE("soma run --set addresses list items by name, [index] or .index.", "[cli]") {
    const std::string scene = scene_file("valid.yaml", kValidScene);
    for (const std::string item : {"beam", "0", "[0]"}) {
        const std::string key = item == "[0]" ? "elements[0]" : "elements." + item;
        const Result r = run_soma("check " + scene + " --set " + key + ".material.youngs_modulus=-1");
        INFO(key);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains("--set " + key + ".material.youngs_modulus=-1: elements[0].material.youngs_modulus") &&
                                 Contains("out of range"));
    }
    const Result unknown = run_soma("check " + scene + " --set elements.beem.material.density=1");
    CHECK(unknown.exit_code == 1);
    CHECK_THAT(unknown.output, Contains("'elements' has no item named 'beem' (named items: 'beam'; indices: 0..0); "
                                        "address a list item by its name (elements.NAME) or by its index (elements[0] "
                                        "or elements.0); did you mean 'beam'?"));
}

// Issue 8 item 3: `soma check /dev/zero` read without end and died of std::bad_alloc.
TEST_CASE("soma check refuses a scene path that is a device, at once", "[cli][errors][limits]") {
    for (const std::string device : {"/dev/zero", "/dev/urandom"}) {
        if (!std::filesystem::exists(device)) continue;
        const Result r = run_soma("check " + device);
        INFO(r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Contains(device + ": is a character device, expected the scene file to be a regular file"));
    }
}

// Issue 8 item 6: a second YAML document was dropped silently.
TEST_CASE("soma check refuses a scene with a second YAML document", "[cli][errors][limits]") {
    const Result r = run_soma("check " + scene_file("two_documents.yaml", std::string(kValidScene) + "---\n" + kValidScene));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("two_documents.yaml:14:1: a second YAML document"));
}
