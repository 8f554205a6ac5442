// Fuzz target: the scene loader. YAML text -> parse -> validate against the schemas of the
// built-in plugins -> build the Simulation (elements, forces, constraints, outputs bound, no
// step taken): what `soma check` does. InputError (a located refusal) is the expected failure;
// so is a model too large for the heap budget (heap_budget.hpp), whatever it then throws.
#include "fuzz_input.hpp"
#include "heap_budget.hpp"

#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"

namespace {

/// Far above any example scene (the largest builds a few MiB), far below the 2 GiB at which
/// libFuzzer stops a run: room for the loader's logic, not for million-node models.
constexpr std::size_t kSceneHeapBudget = std::size_t{64} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = soma::fuzz::as_text(data, size);
    const soma::fuzz::HeapBudget budget(kSceneHeapBudget);
    try {
        const soma::SceneDocument scene = soma::load_scene_text(text, "fuzz.yaml");
        const soma::Simulation simulation(scene, soma::builtin_registry());
    } catch (const soma::InputError&) {
    } catch (...) {
        if (!budget.exceeded()) throw;
    }
    return 0;
}
