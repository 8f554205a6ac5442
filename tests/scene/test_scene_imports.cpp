// The `imports:` list (kernel/scene_imports.hpp): what an import writes is appended to the
// scene's lists, located at the import's text; the written scene's own tree is left as it was;
// the import's block, its failures and malformed text are reported at the scene's lines.
#include "scene_imports.hpp"
#include "scene_validation.hpp"
#include "type_registry.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

using namespace soma;

namespace {

/// Element `rod` and an import `echo` that writes its `text` key (or fails with `fail`).
const TypeRegistry& registry() {
    static const TypeRegistry r = [] {
        TypeRegistry reg;
        ParameterSchema rod("rod", "A test element (the registry adds `name`).");
        rod.integer("nodes", "number of nodes").require().min_value(2);
        reg.add_element(std::move(rod), nullptr);
        ParameterSchema echo("echo", "Writes its text.");
        echo.string("text", "the YAML it writes").fallback(std::string());
        echo.string("fail", "a message to fail with").fallback(std::string());
        reg.add_importer(std::move(echo), [](const Parameters& p) {
            if (!p.string("fail").empty()) throw std::runtime_error(p.string("fail"));
            return p.string("text");
        });
        return reg;
    }();
    return r;
}

ParameterSchema scene_root() {
    ParameterSchema root("scene", "");
    root.typed_list("elements", "", TypeKind::element);
    root.typed_list("imports", "", TypeKind::importer);
    root.real("duration", "").fallback(1.0);
    return root;
}

std::string expand_error(const std::string& text) {
    try {
        expand_imports(load_scene_text(text, "s.yaml"), registry());
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

const std::string kRod = "  - {type: rod, name: a, nodes: 3}\n";

}  // namespace

TEST_CASE("imports: written blocks are appended to the scene's lists and located in their text", "[scene][imports]") {
    const std::string text = "elements:\n" + kRod +
                             "imports:\n"
                             "  - type: echo\n"
                             "    name: gen\n"
                             "    text: \"# two rods\\nelements:\\n  - {type: rod, name: gen/b, nodes: 3}\\n  - {type: rod, name: gen/c, nodes: 1}\\n\"\n";
    const SceneDocument scene = load_scene_text(text, "s.yaml");
    const SceneDocument expanded = expand_imports(scene, registry());
    REQUIRE(expanded.root["elements"].size() == 3);
    CHECK(expanded.root["elements"][2]["name"].as<std::string>() == "gen/c");
    CHECK(scene.root["elements"].size() == 1);  // the written scene's tree is not touched
    // The file's blocks keep their lines; the written ones are located at the import's text:
    // gen/c's nodes (below the minimum of 2) is on its line 4.
    const std::vector<ValidationError> errors = validate_scene(expanded, scene_root(), registry());
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].str() == "imports.gen (echo at s.yaml:4:5):4:37: elements[2].nodes: nodes = 1 is out of range: expected >= 2");
    // run_imports gives the text itself, whose lines those are.
    const std::vector<ImportedText> written = run_imports(scene, registry());
    REQUIRE(written.size() == 1);
    CHECK(written[0].label == "imports.gen (echo at s.yaml:4:5)");
    CHECK(written[0].text.rfind("# two rods\nelements:\n", 0) == 0);
}

TEST_CASE("imports: a scene without imports is itself; a list an import adds to is created", "[scene][imports]") {
    const SceneDocument plain = load_scene_text("elements:\n" + kRod, "s.yaml");
    CHECK(expand_imports(plain, registry()).root["elements"].size() == 1);
    const SceneDocument adds = expand_imports(
        load_scene_text("imports: [{type: echo, name: g, text: 'elements: [{type: rod, name: r, nodes: 2}]'}]\n",
                        "s.yaml"),
        registry());
    REQUIRE(adds.root["elements"].IsSequence());
    CHECK(adds.root["elements"].size() == 1);
    // An import that writes nothing adds nothing.
    CHECK(expand_imports(load_scene_text("elements:\n" + kRod + "imports: [{type: echo, name: g}]\n", "s.yaml"),
                         registry())
              .root["elements"]
              .size() == 1);
}

TEST_CASE("imports: bad blocks, failures and malformed text are reported at their lines", "[scene][imports]") {
    CHECK(expand_error("imports:\n  - {type: echo, name: g, txt: x}\n") ==
          "s.yaml:2:27: imports[0].txt: unknown key 'txt'; did you mean 'text'?");
    CHECK_THAT(expand_error("imports:\n  - {type: ecko, name: g}\n"), Catch::Contains("unknown import type 'ecko'"));
    CHECK_THAT(expand_error("imports:\n  - {type: echo, text: 'a: []'}\n"),
               Catch::StartsWith("s.yaml:2:5: imports[0]: missing required key 'name'"));
    CHECK(expand_error("imports:\n  - {type: echo, name: g, fail: no robot here}\n") ==
          "s.yaml:2:5: imports[0]: import 'g' (echo) failed: no robot here");
    CHECK(expand_error("imports:\n  - {type: echo, name: g, text: '[1, 2]'}\n") ==
          "imports.g (echo at s.yaml:2:5):1:1: an import writes a map of lists (elements, constraints, forces, "
          "controllers, outputs), got a list");
    CHECK(expand_error("imports:\n  - {type: echo, name: g, text: \"elements: []\\nintegrator: []\"}\n") ==
          "imports.g (echo at s.yaml:2:5):2:1: integrator: an import may write only the lists elements, constraints, "
          "forces, controllers and outputs");
    CHECK(expand_error("imports:\n  - {type: echo, name: g, text: 'forces: 3'}\n") ==
          "imports.g (echo at s.yaml:2:5):1:1: forces: expected a list of blocks, got integer 3");
    CHECK(expand_error("forces: 3\nimports:\n  - {type: echo, name: g, text: 'forces: []'}\n") ==
          "s.yaml:1:9: forces: 'forces' is integer 3, so the import 'imports.g (echo at s.yaml:3:5)' cannot add its "
          "blocks to it");
}
