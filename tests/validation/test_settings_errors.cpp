// Bad settings found while an object is built or connected reach the user through one channel
// (interfaces/soma/settings_errors.hpp): file:line:col of the key that set them, its path, the message.
// Each case here is a setting the schema cannot check alone (it depends on other values), so the
// error comes from the plugin object, not from schema validation.

#include "scene_runner.hpp"

#include "soma/parameters.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

const std::string kHead =
    "simulation: {duration: 0.01}\n"
    "integrator: {type: implicit_euler, dt: 1.0e-3}\n"
    "elements:\n";

std::string rod(const std::string& name, const std::string& coordinates) {
    return "  - name: " + name + "\n"
           "    type: discrete_rod\n"
           "    geometry: {points: {coordinates: " + coordinates + "}}\n"
           "    cross_section: {circle: {radius: 1.0e-3}}\n"
           "    material: {density: 1000, youngs_modulus: 1.0e6}\n";
}

}  // namespace

TEST_CASE("a rod that folds back is refused at its geometry key", "[validation][errors]") {
    // Lines: 4 name, 5 type, 6 geometry (column 5).
    CHECK_THROWS_WITH(build_scene(kHead + rod("r", "[0, 0, 0, 1, 0, 0, 0, 0, 0]")),
                      "test.yaml:6:5: elements[0].geometry: the rod folds back onto itself at node 1");
}

TEST_CASE("a rod joint with one node per rod missing is refused at its nodes key", "[validation][errors]") {
    const std::string scene = kHead + rod("a", "[0, 0, 0, 1, 0, 0, 2, 0, 0]") + rod("b", "[2, 0, 0, 3, 0, 0, 4, 0, 0]") +
                              "  - {name: j, type: rod_joint, elements: [a, b], nodes: [-1]}\n";
    CHECK_THROWS_WITH(build_scene(scene),
                      Catch::StartsWith("test.yaml:14:50: elements[2].nodes: needs one node per element: 2 elements but 1 nodes"));
}

TEST_CASE("a rod joint naming a missing rod is refused at connect, at its elements key", "[validation][errors]") {
    const std::string scene = kHead + rod("a", "[0, 0, 0, 1, 0, 0, 2, 0, 0]") +
                              "  - {name: j, type: rod_joint, elements: [a, nope], nodes: [-1, 0]}\n";
    CHECK_THROWS_WITH(build_scene(scene), "test.yaml:9:32: elements[1].elements: no element named 'nope'");
}
