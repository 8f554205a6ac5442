// Every validation message, with its file:line:col and key path.
#include "fake_catalog.hpp"

using namespace soma;
using namespace soma::testing_scene;

namespace {

void require_only_error(const std::string& text, const std::string& line) {
    const auto errors = errors_of(text);
    INFO("errors:\n" << joined(errors));
    CHECK(errors == std::vector<std::string>{line});
}

}  // namespace

TEST_CASE("a valid scene has no errors", "[scene][validation]") {
    const auto errors = errors_of(R"(elements:
  - type: rod
    name: beam
    nodes: 10
    length: 2
    material:
      youngs_modulus: 1e6
      poisson_ratio: -0.2
integrator: {dt: 0.001, method: explicit_euler, max_iterations: 1000}
gravity: [0, 0, -1.62]
solver:
  iterative:
    tolerance: 1e-6
petsc_options:
  ksp_type: cg
  ksp_monitor:
outputs:
  - file: out.csv
    every: 10
forces:
  - type: drag
    coefficient: 0
contact: {type: drag}
weights: [0, 0.5, 1]
tags: [a, "b"]
fixed_nodes: [0, -1, 16]
verbose: true
)");
    INFO(joined(errors));
    CHECK(errors.empty());
}

TEST_CASE("unknown keys are errors with did-you-mean", "[scene][validation]") {
    require_only_error("elements: []\nintegrator:\n  dt: 1\n  metod: implicit_euler\n",
                       "scene.yaml:4:3: integrator.metod: unknown key 'metod'; did you mean 'method'?");
    // Nothing close: the known keys are listed.
    require_only_error("elements: []\nintegrator:\n  dt: 1\n  colour: red\n",
                       "scene.yaml:4:3: integrator.colour: unknown key 'colour'; known keys: 'dt', 'method', "
                       "'max_iterations'");
    // In a typed block, `type` is always allowed and suggested.
    require_only_error("elements:\n  - type: rod\n    name: a\n    nodes: 2\n    material: {youngs_modulus: 1}\n"
                       "    lenght: 3\n",
                       "scene.yaml:6:5: elements[0].lenght: unknown key 'lenght'; did you mean 'length'?");
}

TEST_CASE("duplicate keys are errors at the second occurrence", "[scene][validation]") {
    require_only_error("elements: []\nintegrator:\n  dt: 1\n  dt: 2\n",
                       "scene.yaml:4:3: integrator.dt: duplicate key 'dt' (first written at line 3)");
    require_only_error("elements: []\nverbose: true\nelements: []\n",
                       "scene.yaml:3:1: elements: duplicate key 'elements' (first written at line 1)");
    require_only_error("elements: []\npetsc_options:\n  ksp_type: cg\n  ksp_type: gmres\n",
                       "scene.yaml:4:3: petsc_options.ksp_type: duplicate key 'ksp_type' (first written at line 3)");
}

TEST_CASE("missing required keys are reported at their block", "[scene][validation]") {
    require_only_error("verbose: true\n",
                       "scene.yaml:1:1: missing required key 'elements' (list of typed blocks: the bodies)");
    require_only_error("elements: []\nintegrator:\n  method: explicit_euler\n",
                       "scene.yaml:2:1: integrator: missing required key 'dt' (real, s: time step)");
    // An empty block (`integrator:`) counts as present but empty.
    require_only_error("elements: []\nintegrator:\n",
                       "scene.yaml:2:1: integrator: missing required key 'dt' (real, s: time step)");
    require_only_error(R"(elements:
  - type: rod
    name: beam
    nodes: 3
    material:
      density: 10
)",
                       "scene.yaml:5:5: elements[0].material: missing required key 'youngs_modulus' "
                       "(real, Pa: Young's modulus)");
    require_only_error("elements: []\noutputs:\n  - every: 2\n",
                       "scene.yaml:3:5: outputs[0]: missing required key 'file' (string: output file)");
}

TEST_CASE("wrong types say what was expected and what was found", "[scene][validation]") {
    require_only_error("elements: []\nintegrator:\n  dt: fast\n",
                       "scene.yaml:3:7: integrator.dt: expected real, got string 'fast'");
    // Quoted numbers are strings.
    require_only_error("elements: []\nintegrator:\n  dt: \"1e-3\"\n",
                       "scene.yaml:3:7: integrator.dt: expected real, got string '1e-3'");
    // An empty value points at its key.
    require_only_error("elements: []\nintegrator:\n  dt:\n",
                       "scene.yaml:3:3: integrator.dt: expected real, got nothing");
    require_only_error("elements: {a: 1}\n", "scene.yaml:1:11: elements: expected list of typed blocks, got a map");
    require_only_error("elements: []\nintegrator: [1, 2]\n",
                       "scene.yaml:2:13: integrator: expected map, got a list");
    require_only_error("elements: []\nintegrator: {dt: 1, max_iterations: 2.5}\n",
                       "scene.yaml:2:37: integrator.max_iterations: expected integer, got real 2.5");
    require_only_error("elements: []\nverbose: yes\n",
                       "scene.yaml:2:10: verbose: expected boolean (true or false), got string 'yes'");
    require_only_error("elements: []\ntags: [a, [b]]\n", "scene.yaml:2:11: tags[1]: expected string, got a list");
    require_only_error("elements: []\nfixed_nodes: [1, 2.0]\n",
                       "scene.yaml:2:18: fixed_nodes[1]: expected integer, got real 2.0");
    require_only_error("elements: []\npetsc_options:\n  pc: {a: 1}\n",
                       "scene.yaml:3:7: petsc_options.pc: expected a single value (number, string or boolean), got "
                       "a map");
    require_only_error("elements: []\noutputs: {file: a}\n", "scene.yaml:2:10: outputs: expected list of maps, got a map");
    require_only_error("elements:\n  - rod\n",
                       "scene.yaml:2:5: elements[0]: expected a map with 'type: <element type>', got string 'rod'");
}

TEST_CASE("integers are accepted where reals are expected", "[scene][validation]") {
    CHECK(errors_of("elements: []\nintegrator: {dt: 1}\ngravity: [0, 0, -10]\n").empty());
}

TEST_CASE("out-of-range values name the value and the range", "[scene][validation]") {
    require_only_error(R"(elements:
  - type: rod
    name: beam
    nodes: 3
    material:
      youngs_modulus: -5
)",
                       "scene.yaml:6:23: elements[0].material.youngs_modulus: youngs_modulus = -5 is out of range: "
                       "expected > 0 and <= 1e+13");
    require_only_error("elements:\n  - {type: rod, name: b, nodes: 1, material: {youngs_modulus: 1}}\n",
                       "scene.yaml:2:33: elements[0].nodes: nodes = 1 is out of range: expected >= 2");
    require_only_error("elements:\n  - {type: rod, name: b, nodes: 2, material: {youngs_modulus: 1, poisson_ratio: 0.5}}\n",
                       "scene.yaml:2:81: elements[0].material.poisson_ratio: poisson_ratio = 0.5 is out of range: "
                       "expected >= -1 and < 0.5");
    require_only_error("elements: []\nintegrator: {dt: 1, max_iterations: 0}\n",
                       "scene.yaml:2:37: integrator.max_iterations: max_iterations = 0 is out of range: "
                       "expected >= 1 and <= 1000");
    require_only_error("elements: []\nweights: [0.1, 2, 0.3]\n",
                       "scene.yaml:2:16: weights[1]: weights[1] = 2 is out of range: expected >= 0 and <= 1");
    require_only_error("elements: []\nintegrator: {dt: .nan}\n",
                       "scene.yaml:2:18: integrator.dt: dt = .nan is not a number");
    require_only_error("elements: []\nintegrator: {dt: .inf}\n",
                       "scene.yaml:2:18: integrator.dt: dt = .inf is not finite");
}

TEST_CASE("strings outside their choices list the choices", "[scene][validation]") {
    require_only_error("elements: []\nintegrator: {dt: 1, method: implict_euler}\n",
                       "scene.yaml:2:29: integrator.method: method = 'implict_euler' is not a valid choice: expected "
                       "one of 'implicit_euler', 'explicit_euler'; did you mean 'implicit_euler'?");
    require_only_error("elements: []\nintegrator: {dt: 1, method: rk4}\n",
                       "scene.yaml:2:29: integrator.method: method = 'rk4' is not a valid choice: expected one of "
                       "'implicit_euler', 'explicit_euler'");
}

TEST_CASE("lists of fixed size report the wrong size", "[scene][validation]") {
    require_only_error("elements: []\nweights: [1, 0]\n",
                       "scene.yaml:2:10: weights: expected list of reals with 3 items, got 2 items");
    require_only_error("elements: []\ngravity: [0, 0]\n",
                       "scene.yaml:2:10: gravity: expected vector of 3 reals, got 2 items");
    require_only_error("elements: []\ngravity: 9.81\n",
                       "scene.yaml:2:10: gravity: expected vector of 3 reals, got real 9.81");
}

TEST_CASE("one_of takes exactly one known alternative", "[scene][validation]") {
    require_only_error("elements: []\nsolver: {}\n",
                       "scene.yaml:2:9: solver: expected exactly one of 'direct', 'iterative', got an empty map");
    require_only_error("elements: []\nsolver:\n  direct:\n  iterative: {}\n",
                       "scene.yaml:4:3: solver.iterative: 'iterative' and 'direct' (line 3) are both given: solver "
                       "takes exactly one of 'direct', 'iterative'");
    require_only_error("elements: []\nsolver:\n  iterativ: {tolerance: 1}\n",
                       "scene.yaml:3:3: solver.iterativ: unknown alternative 'iterativ': expected one of 'direct', "
                       "'iterative'; did you mean 'iterative'?");
    require_only_error("elements: []\nsolver: direct\n",
                       "scene.yaml:2:9: solver: expected a map with exactly one of 'direct', 'iterative', got "
                       "string 'direct'");
    // The chosen alternative's keys are validated too.
    require_only_error("elements: []\nsolver:\n  iterative:\n    tolerance: -1\n",
                       "scene.yaml:4:16: solver.iterative.tolerance: tolerance = -1 is out of range: expected > 0");
}

TEST_CASE("typed blocks need a known type", "[scene][validation]") {
    require_only_error("elements:\n  - type: rood\n    name: a\n",
                       "scene.yaml:2:11: elements[0].type: unknown element type 'rood'; did you mean 'rod'?");
    require_only_error("elements: []\nforces:\n  - coefficient: 1\n",
                       "scene.yaml:3:5: forces[0]: missing required key 'type' (the force type)");
    require_only_error("elements: []\ncontact: {type: [drag]}\n",
                       "scene.yaml:2:17: contact.type: expected a type name, got a list");
    require_only_error("elements: []\nforces:\n  - type: drag\n    coefficient: -2\n",
                       "scene.yaml:4:18: forces[0].coefficient: coefficient = -2 is out of range: expected >= 0 and <= 1e+12");
    require_only_error("elements: []\nforces:\n  - type: drag\n    type: drag\n",
                       "scene.yaml:4:5: forces[0].type: duplicate key 'type' (first written at line 3)");
}

TEST_CASE("every error of a scene is reported at once, in file order", "[scene][validation]") {
    const std::string text = R"(elements:
  - type: rod
    name: beam
    nodes: 1
    material:
      youngs_modulis: 1e6
  - type: spring
integrator:
  dt: -1e-3
  dt: 1
gravity: [0, 0]
solver: {direct: {}, iterative: {}}
)";
    const std::vector<std::string> expected{
        "scene.yaml:4:12: elements[0].nodes: nodes = 1 is out of range: expected >= 2",
        "scene.yaml:5:5: elements[0].material: missing required key 'youngs_modulus' (real, Pa: Young's modulus)",
        "scene.yaml:6:7: elements[0].material.youngs_modulis: unknown key 'youngs_modulis'; did you mean "
        "'youngs_modulus'?",
        "scene.yaml:7:11: elements[1].type: unknown element type 'spring'",
        "scene.yaml:9:7: integrator.dt: dt = -1e-3 is out of range: expected > 0 and <= 1e+09",
        "scene.yaml:10:3: integrator.dt: duplicate key 'dt' (first written at line 9)",
        "scene.yaml:11:10: gravity: expected vector of 3 reals, got 2 items",
        "scene.yaml:12:22: solver.iterative: 'iterative' and 'direct' (line 12) are both given: solver takes "
        "exactly one of 'direct', 'iterative'",
    };
    const auto errors = errors_of(text);
    INFO(joined(errors));
    CHECK(errors == expected);

    // make_scene_parameters throws them all in one InputError.
    const FakeCatalog catalog;
    const SceneDocument scene = load_scene_text(text, "scene.yaml");
    std::string message;
    try {
        make_scene_parameters(scene, root_schema(), catalog);
    } catch (const InputError& e) {
        message = e.what();
    }
    std::string all = "8 errors in scene.yaml:";
    for (const auto& line : expected) all += "\n" + line;
    CHECK(message == all);
}

TEST_CASE("a single error is thrown as its line alone", "[scene][validation]") {
    const FakeCatalog catalog;
    const SceneDocument scene = load_scene_text("elements: []\nverbose: 3\n", "one.yaml");
    CHECK_THROWS_WITH(make_scene_parameters(scene, root_schema(), catalog),
                      "one.yaml:2:10: verbose: expected boolean (true or false), got integer 3");
}

// Issue 8 item 5: numbers are read strictly. `duration: 0x10` was read as 16 (YAML 1.2's hex).
TEST_CASE("numbers are decimal, with nothing after them", "[scene][validation][limits]") {
    require_only_error("elements: []\nintegrator: {dt: 0x10}\n",
                       "scene.yaml:2:18: integrator.dt: expected real, got string '0x10' (hexadecimal, octal and "
                       "binary numbers are not read: write the number in decimal)");
    require_only_error("elements: []\nintegrator: {dt: 1, max_iterations: 0o10}\n",
                       "scene.yaml:2:37: integrator.max_iterations: expected integer, got string '0o10' (hexadecimal, "
                       "octal and binary numbers are not read: write the number in decimal)");
    require_only_error("elements: []\nintegrator: {dt: 1, max_iterations: 010}\n",
                       "scene.yaml:2:37: integrator.max_iterations: expected integer, got string '010' (a leading "
                       "zero is not read: YAML 1.1 reads 010 as octal 8; write the number without it)");
    require_only_error("elements: []\nintegrator: {dt: 1.5ms}\n",
                       "scene.yaml:2:18: integrator.dt: expected real, got string '1.5ms' (write the number alone, in "
                       "SI units, with nothing after it)");
    require_only_error("elements: []\nfixed_nodes: [-0x1]\n",
                       "scene.yaml:2:15: fixed_nodes[0]: expected integer, got string '-0x1' (hexadecimal, octal and "
                       "binary numbers are not read: write the number in decimal)");
    // Plain decimals stay accepted: a lone 0, signs, a leading dot, exponents.
    CHECK(errors_of("elements: []\nintegrator: {dt: +.5e-3, max_iterations: 10}\nfixed_nodes: [0, -0, +7]\n"
                    "weights: [0, 0.0, 1.]\n")
              .empty());
}

// Issue 8 item 5: E = 4.9e-324 passed `> 0` and gave a stiffness of exactly 0.
TEST_CASE("reals below the smallest normal double are refused", "[scene][validation][limits]") {
    const std::string tail = " is below the smallest normal double (2.2e-308) and cannot be computed with: write 0 or "
                             "a value of physical size";
    require_only_error("elements:\n  - {type: rod, name: b, nodes: 2, material: {youngs_modulus: 4.9e-324}}\n",
                       "scene.yaml:2:63: elements[0].material.youngs_modulus: youngs_modulus = 4.9e-324" + tail);
    // Rounded to 0 by strtod: still refused, not read as 0.
    require_only_error("elements: []\nweights: [0, 1e-400, 0]\n", "scene.yaml:2:14: weights[1]: weights[1] = 1e-400" + tail);
    CHECK(errors_of("elements: []\nweights: [0, 0e-400, 2.3e-308]\n").empty());
}

// Issue 8 item 5: E of 1e308, density or gravity of 1e308 passed validation.
TEST_CASE("a real beyond its unit's ceiling is refused", "[scene][validation][limits]") {
    require_only_error("elements:\n  - {type: rod, name: b, nodes: 2, material: {youngs_modulus: 1e308}}\n",
                       "scene.yaml:2:63: elements[0].material.youngs_modulus: youngs_modulus = 1e308 is out of range: "
                       "expected > 0 and <= 1e+13 (the ceiling of every quantity in Pa: docs/reliability.md, Input limits)");
    require_only_error("elements: []\ngravity: [0, 0, -1e308]\n",
                       "scene.yaml:2:17: gravity[2]: gravity[2] = -1e308 is out of range: expected >= -1e+07 and <= "
                       "1e+07 (the ceiling of every quantity in m/s^2: docs/reliability.md, Input limits)");
    require_only_error("elements: []\nintegrator: {dt: 1e308}\n",
                       "scene.yaml:2:18: integrator.dt: dt = 1e308 is out of range: expected > 0 and <= 1e+09 (the ceiling of every quantity in s: docs/reliability.md, Input limits)");
    // At the ceiling itself: accepted.
    CHECK(errors_of("elements: []\nintegrator: {dt: 1e9}\ngravity: [0, 0, -1e7]\n").empty());
}

// Issue 8 item 5: `nodes: 2147483648` was truncated to a 32-bit int by the plugin.
TEST_CASE("integers beyond 32 bits are refused", "[scene][validation][limits]") {
    require_only_error("elements: []\nfixed_nodes: [2147483648]\n",
                       "scene.yaml:2:15: fixed_nodes[0]: fixed_nodes[0] = 2147483648 is out of range: integers are at "
                       "most 2147483647 in magnitude");
    require_only_error("elements: []\nfixed_nodes: [-2147483648]\n",
                       "scene.yaml:2:15: fixed_nodes[0]: fixed_nodes[0] = -2147483648 is out of range: integers are at "
                       "most 2147483647 in magnitude");
    // Beyond 64 bits it is not an integer at all.
    require_only_error("elements: []\nfixed_nodes: [99999999999999999999]\n",
                       "scene.yaml:2:15: fixed_nodes[0]: expected integer, got real 99999999999999999999");
    CHECK(errors_of("elements: []\nfixed_nodes: [2147483647, -2147483647]\n").empty());
}

// Issue 8 item 5: `elements: []` passed validation.
TEST_CASE("a list declared non-empty refuses an empty list", "[scene][validation][limits]") {
    ParameterSchema root("scene", "A scene with a non-empty list.");
    root.typed_list("elements", "the bodies", TypeKind::element).require().non_empty();
    root.integer_list("nodes", "node indices").non_empty();
    const FakeCatalog catalog;
    const auto errors = [&](const std::string& text) {
        std::vector<std::string> lines;
        for (const auto& e : validate_scene(load_scene_text(text, "scene.yaml"), root, catalog)) lines.push_back(e.str());
        return lines;
    };
    CHECK(errors("elements: []\n") ==
          std::vector<std::string>{"scene.yaml:1:11: elements: expected at least 1 item, got an empty list (the bodies)"});
    CHECK(errors("elements:\n") ==
          std::vector<std::string>{"scene.yaml:1:1: elements: expected at least 1 item, got an empty list (the bodies)"});
    CHECK(errors("elements: [{type: rod, name: a, nodes: 2, material: {youngs_modulus: 1}}]\nnodes: []\n") ==
          std::vector<std::string>{"scene.yaml:2:8: nodes: expected at least 1 item, got an empty list (node indices)"});
    CHECK(errors("elements: [{type: rod, name: a, nodes: 2, material: {youngs_modulus: 1}}]\nnodes: [0]\n").empty());
}
