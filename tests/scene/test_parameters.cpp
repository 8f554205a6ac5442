// Parameters: typed reads of a validated scene, defaults, locations and errors.
#include "fake_catalog.hpp"

using namespace soma;
using namespace soma::testing_scene;

namespace {

const char* kScene = R"(elements:
  - type: rod
    name: beam
    nodes: 10
    mesh: meshes/beam.obj
    material:
      youngs_modulus: 1e6
  - type: rod
    name: arm
    nodes: 4
    length: 2
    material: {youngs_modulus: 5e5, density: 900}
integrator:
  dt: 1e-3
solver:
  iterative:
    tolerance: 1e-6
petsc_options:
  ksp_type: cg
  ksp_rtol: 1e-9
  ksp_monitor:
outputs:
  - file: out.csv
    every: 10
forces:
  - type: drag
weights: [0, 0.5, 1]
tags: [a, "b"]
fixed_nodes: [0, -1, 16]
)";

struct Fixture {
    FakeCatalog catalog;
    SceneDocument scene;
    Parameters root;
    explicit Fixture(const std::string& text = kScene) : scene(load_scene_text(text, "scene.yaml")) {
        scene.directory = "/data/scenes";
        root = make_scene_parameters(scene, root_schema(), catalog);
    }
};

}  // namespace

TEST_CASE("scalar accessors read written values and schema defaults", "[scene][parameters]") {
    Fixture f;
    const Parameters integrator = f.root.block("integrator");
    CHECK(integrator.real("dt") == 1e-3);
    CHECK(integrator.string("method") == "implicit_euler");  // default
    CHECK(integrator.integer("max_iterations") == 20);       // default
    CHECK(integrator.has("dt"));
    CHECK_FALSE(integrator.has("method"));
    CHECK_FALSE(f.root.boolean("verbose"));
    CHECK(f.root.vec3("gravity") == Vec3(0, 0, -9.81));
    CHECK(f.root.real_list("weights") == std::vector<double>{0, 0.5, 1});
    CHECK(f.root.string_list("tags") == std::vector<std::string>{"a", "b"});
    CHECK(f.root.integer_list("fixed_nodes") == std::vector<long>{0, -1, 16});
    CHECK(f.root.free_map("petsc_options") ==
          std::map<std::string, std::string>{{"ksp_type", "cg"}, {"ksp_rtol", "1e-9"}, {"ksp_monitor", ""}});
}

TEST_CASE("typed lists give one Parameters per item with its type's schema", "[scene][parameters]") {
    Fixture f;
    const auto elements = f.root.blocks("elements");
    REQUIRE(elements.size() == 2);
    CHECK(elements[0].type_name() == "rod");
    CHECK(elements[0].string("type") == "rod");
    CHECK(elements[0].string("name") == "beam");
    CHECK(elements[0].integer("nodes") == 10);
    CHECK(elements[0].real("length") == 1.0);  // default
    CHECK(elements[1].real("length") == 2.0);  // an integer read as a real
    CHECK(elements[0].block("material").real("youngs_modulus") == 1e6);
    CHECK(elements[0].block("material").real("density") == 1000.0);
    CHECK(elements[1].block("material").real("density") == 900.0);
    CHECK(elements[0].block("material").location().str() == "scene.yaml:6:5: elements[0].material");
    CHECK(elements[1].location().str() == "scene.yaml:8:5: elements[1]");

    const auto forces = f.root.blocks("forces");
    REQUIRE(forces.size() == 1);
    CHECK(forces[0].type_name() == "drag");
    CHECK(forces[0].real("coefficient") == 1.0);

    const auto outputs = f.root.blocks("outputs");
    REQUIRE(outputs.size() == 1);
    CHECK(outputs[0].string("file") == "out.csv");
    CHECK(outputs[0].integer("every") == 10);
    CHECK(outputs[0].type_name().empty());
}

TEST_CASE("absent blocks and lists give their defaults", "[scene][parameters]") {
    Fixture f("elements: []\n");
    CHECK(f.root.blocks("elements").empty());
    CHECK(f.root.blocks("outputs").empty());
    CHECK(f.root.free_map("petsc_options").empty());
    // An absent map block: the sub-schema with no node.
    const Parameters integrator = f.root.block("integrator");
    CHECK(integrator.string("method") == "implicit_euler");
    CHECK_FALSE(integrator.has("dt"));
    CHECK_THROWS_AS(integrator.real("dt"), std::logic_error);  // no default, not written
    CHECK(integrator.location().str() == "scene.yaml:1:1: integrator");
    // An absent typed block takes the type named by its default.
    const Parameters contact = f.root.block("contact");
    CHECK(contact.type_name() == "drag");
    CHECK(contact.real("coefficient") == 1.0);
    // An absent one_of takes its default alternative.
    CHECK(f.root.choice("solver") == "direct");
    CHECK(f.root.choice_block("solver").string("ordering") == "amd");
}

TEST_CASE("one_of gives the chosen alternative and its block", "[scene][parameters]") {
    Fixture f;
    CHECK(f.root.choice("solver") == "iterative");
    const Parameters iterative = f.root.choice_block("solver");
    CHECK(iterative.real("tolerance") == 1e-6);
    CHECK(iterative.location().str() == "scene.yaml:16:3: solver.iterative");
    CHECK(iterative.location("tolerance").str() == "scene.yaml:17:5: solver.iterative.tolerance");
}

TEST_CASE("path() resolves against the scene folder", "[scene][parameters]") {
    Fixture f;
    const auto elements = f.root.blocks("elements");
    CHECK(elements[0].path("mesh") == "/data/scenes/meshes/beam.obj");
    CHECK(elements[1].path("mesh").empty());  // default "" stays empty
}

TEST_CASE("locations and fail() point at the key, or at the block when it is absent", "[scene][parameters]") {
    Fixture f;
    const Parameters beam = f.root.blocks("elements")[0];
    CHECK(beam.location("nodes").str() == "scene.yaml:4:5: elements[0].nodes");
    CHECK(beam.location("length").str() == "scene.yaml:2:5: elements[0].length");
    CHECK_THROWS_WITH(beam.fail("nodes", "must be even"), "scene.yaml:4:5: elements[0].nodes: must be even");
    CHECK_THROWS_AS(beam.fail("nodes", "x"), InputError);
    CHECK_THROWS_WITH(beam.fail("", "no such element"), "scene.yaml:2:5: elements[0]: no such element");
    CHECK(f.root.location().str() == "scene.yaml:1:1");
}

TEST_CASE("a dotted key points at a key of a nested block, or at the deepest part present", "[scene][parameters]") {
    Fixture f;
    const Parameters beam = f.root.blocks("elements")[0];
    // Objects built from settings report nested keys this way (settings_errors.hpp).
    CHECK(beam.location("material.youngs_modulus").str() == "scene.yaml:7:7: elements[0].material.youngs_modulus");
    CHECK_THROWS_WITH(beam.fail("material.youngs_modulus", "must be positive"),
                      "scene.yaml:7:7: elements[0].material.youngs_modulus: must be positive");
    // material is written, density is not: the error lands on `material`.
    CHECK(beam.location("material.density").str() == "scene.yaml:6:5: elements[0].material.density");
    // A flow map: the nested key keeps its own column.
    const Parameters arm = f.root.blocks("elements")[1];
    CHECK(arm.location("material.density").str() == "scene.yaml:12:37: elements[1].material.density");
    // List items: "weights[2]" is the third item; out of range stops at the list.
    CHECK(f.root.location("weights[2]").str() == "scene.yaml:27:19: weights[2]");
    CHECK(f.root.location("weights[7]").str() == "scene.yaml:27:1: weights[7]");
    CHECK(f.root.location("elements[1].material.density").str() == "scene.yaml:12:37: elements[1].material.density");
    // An absent top-level part: the block itself.
    CHECK(beam.location("shape.radius").str() == "scene.yaml:2:5: elements[0].shape.radius");
}

TEST_CASE("programming errors are std::logic_error, not InputError", "[scene][parameters]") {
    Fixture f;
    const Parameters integrator = f.root.block("integrator");
    CHECK_THROWS_WITH(integrator.real("dtt"),
                      "Parameters::real('dtt'): schema 'integrator' of 'integrator' declares no key 'dtt'");
    CHECK_THROWS_AS(integrator.has("dtt"), std::logic_error);
    // Reading with the wrong accessor.
    CHECK_THROWS_WITH(integrator.integer("dt"),
                      "Parameters::integer('dt'): key 'dt' of schema 'integrator' is a real");
    CHECK_THROWS_AS(f.root.block("weights"), std::logic_error);
    CHECK_THROWS_AS(Parameters().real("x"), std::logic_error);
    // `type` is readable only in typed blocks.
    CHECK_THROWS_AS(integrator.string("type"), std::logic_error);
}

TEST_CASE("SourceLocation::str leaves out an unknown line", "[scene][parameters]") {
    CHECK(SourceLocation{"a.yaml", 3, 7, "x.y"}.str() == "a.yaml:3:7: x.y");
    CHECK(SourceLocation{"a.yaml", 0, 0, "x.y"}.str() == "a.yaml: x.y");
    CHECK(SourceLocation{"a.yaml", 2, 1, ""}.str() == "a.yaml:2:1");
    CHECK(std::string(InputError(SourceLocation{"a.yaml", 2, 1, "k"}, "bad").what()) == "a.yaml:2:1: k: bad");
}

TEST_CASE("overridden values are what Parameters read", "[scene][parameters]") {
    FakeCatalog catalog;
    SceneDocument scene = load_scene_text(kScene, "scene.yaml");
    apply_overrides(scene, {"elements.arm.material.density=950", "integrator.method=explicit_euler",
                            "elements[0].nodes=12"});
    const Parameters root = make_scene_parameters(scene, root_schema(), catalog);
    const auto elements = root.blocks("elements");
    CHECK(elements[1].block("material").real("density") == 950.0);
    CHECK(elements[0].integer("nodes") == 12);
    CHECK(root.block("integrator").string("method") == "explicit_euler");
}

TEST_CASE("a map list that accepts a single map: one map is a list of one at the key's own path",
          "[scene][parameters]") {
    ParameterSchema support("support", "one support");
    support.integer_list("nodes", "nodes").fallback(std::vector<long>{});
    support.string_list("components", "components").fallback(std::vector<std::string>{});
    ParameterSchema root("root", "a root with a list that also takes one map");
    root.map_list("supports", "supports", support).or_single_map();
    const FakeCatalog catalog;
    auto read = [&](const std::string& text) {
        return make_scene_parameters(load_scene_text(text, "scene.yaml"), root, catalog).blocks("supports");
    };

    const auto one = read("supports: {nodes: [0, 1]}\n");
    REQUIRE(one.size() == 1);
    CHECK(one[0].integer_list("nodes") == std::vector<long>{0, 1});
    CHECK(one[0].location().path == "supports");
    CHECK(one[0].location("nodes").str() == "scene.yaml:1:12: supports.nodes");

    const auto two = read("supports: [{nodes: [0]}, {nodes: [-1], components: [y]}]\n");
    REQUIRE(two.size() == 2);
    CHECK(two[1].string_list("components") == std::vector<std::string>{"y"});
    CHECK(two[1].location().path == "supports[1]");

    // The single map is validated with the item schema; other values name both forms.
    auto error_of = [&](const std::string& text) -> std::string {
        try {
            read(text);
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK_THAT(error_of("supports: {nodez: [0]}\n"), Catch::Matchers::Contains("supports.nodez: unknown key"));
    CHECK_THAT(error_of("supports: 3\n"),
               Catch::Matchers::Contains("supports: expected a map or a list of maps, got"));
    CHECK(ParameterSchema(root).markdown().find("| `supports` | map or list of maps |") != std::string::npos);
}
