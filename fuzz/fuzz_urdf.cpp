// Fuzz target: URDF robots (plugins/urdf), as the urdf import reads them: urdfdom's parse, the
// bodies and joints (merged links, mass properties), then the scene text, both with a fixed and
// a floating base, read back as YAML. Refusals: std::invalid_argument (each names the file and
// the link or joint).
#include "fuzz_input.hpp"

#include "urdf_robot.hpp"
#include "urdf_scene.hpp"

#include <yaml-cpp/yaml.h>

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = soma::fuzz::as_text(data, size);
    for (const bool fixed_base : {true, false}) {
        soma::urdf::ReadOptions options;
        options.fixed_base = fixed_base;
        options.package_root = "packages";
        try {
            const soma::urdf::Robot robot = soma::urdf::read_urdf_text(text, "fuzz.urdf", options);
            soma::urdf::SceneSettings settings;
            settings.prefix = "robot";
            // The text must read back as a map of lists, whatever the names hold (a YAML error
            // escapes as a finding).
            const YAML::Node scene = YAML::Load(soma::urdf::robot_scene_text(robot, settings));
            if (!scene.IsMap() || !scene["elements"].IsSequence()) __builtin_trap();
            for (const auto& entry : scene)
                if (entry.first.as<std::string>() != "elements" && entry.first.as<std::string>() != "constraints" &&
                    entry.first.as<std::string>() != "forces")
                    __builtin_trap();
        } catch (const std::invalid_argument&) {
        }
    }
    return 0;
}
