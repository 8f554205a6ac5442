// Fuzz target: the scene loader. YAML text -> parse -> validate against the schemas of the
// built-in plugins -> build the Simulation (elements, forces, constraints, outputs bound, no
// step taken): what `soma check` does. InputError (a located refusal) is the expected failure.
#include "fuzz_input.hpp"

#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = soma::fuzz::as_text(data, size);
    try {
        const soma::SceneDocument scene = soma::load_scene_text(text, "fuzz.yaml");
        const soma::Simulation simulation(scene, soma::builtin_registry());
    } catch (const soma::InputError&) {
    }
    return 0;
}
