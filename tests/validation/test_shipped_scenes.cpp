// Every scene shipped in configs/ loads, validates and runs its first steps.
//
// The scenes are found at test time (every *.yaml under configs/, recursively), so a scene added
// later is covered without touching this file. For each one:
//  - the file as shipped parses, validates and builds (`soma check` would accept it);
//  - with `simulation.duration` overridden to kSteps nominal steps (the `--set` path of
//    `soma run`; fewer when the scene is shorter), the time loop reaches the end: every step's
//    Newton solve converged at the scene's own dt, with no retry at a smaller dt;
//  - the state after the run (t, q, v, a) and the energies are finite, and the scene's outputs
//    wrote their files.
// This is a smoke test of the shipped examples, not a validation of their physics: the examples
// with numbers (cantilever plate, manta ray, parachute, PneuNet) have their own validation tests.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using soma::Simulation;
using soma::validation::plugin_registry;

/// Steps run per scene (at most: a statics scene may have fewer load steps): enough to pass the
/// first step's transients (Newmark's initial acceleration, a statics ramp's first load steps, an
/// impulsive actuation start) and to exercise commit and the outputs, few enough that all scenes
/// run in a few seconds.
constexpr int kSteps = 10;

fs::path source_dir() {
    const char* dir = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(dir != nullptr);
    return dir;
}

/// Every *.yaml under configs/, sorted so that the sections run in a stable order.
std::vector<fs::path> shipped_scenes() {
    std::vector<fs::path> scenes;
    for (const auto& entry : fs::recursive_directory_iterator(source_dir() / "configs"))
        if (entry.is_regular_file() && entry.path().extension() == ".yaml") scenes.push_back(entry.path());
    std::sort(scenes.begin(), scenes.end());
    return scenes;
}

/// Builds a scene, turning a validation error into a test failure that shows its message.
std::unique_ptr<Simulation> build(const soma::SceneDocument& scene) {
    try {
        return std::make_unique<Simulation>(scene, plugin_registry());
    } catch (const std::exception& error) {
        FAIL("the scene does not build: " << error.what());
    }
    return nullptr;
}

bool finite(const soma::VectorX& x) { return x.allFinite(); }

}  // namespace

TEST_CASE("every scene in configs/ loads and runs its first steps", "[scenes]") {
    const std::vector<fs::path> scenes = shipped_scenes();
    // The folders ship rod and shell examples today; an empty list means the glob looked in the
    // wrong place, not that there is nothing to test.
    REQUIRE(scenes.size() >= 6);

    for (const fs::path& file : scenes) {
        const std::string name = fs::relative(file, source_dir()).string();
        DYNAMIC_SECTION(name) {
            // The file as shipped.
            const soma::SceneDocument shipped = soma::load_scene_file(file);
            const std::unique_ptr<Simulation> as_shipped = build(shipped);
            const double dt = as_shipped->nominal_dt();
            REQUIRE(dt > 0.0);
            const double shipped_duration = as_shipped->end_time() - as_shipped->start_time();
            const double duration = std::min(shipped_duration, kSteps * dt);
            const long steps = std::lround(std::ceil(duration / dt * (1.0 - 1e-12)));

            // The same scene shortened to those steps, as `soma run --set` would.
            soma::SceneDocument shortened = soma::load_scene_file(file);
            std::ostringstream override_duration;
            override_duration << std::setprecision(17) << duration;
            soma::apply_overrides(shortened, {"simulation.duration=" + override_duration.str()});
            const std::unique_ptr<Simulation> simulation = build(shortened);
            REQUIRE(simulation->end_time() == Approx(simulation->start_time() + duration).epsilon(1e-12));

            const fs::path out = fs::temp_directory_path() / "soma-shipped-scenes" / fs::path(name).replace_extension();
            fs::remove_all(out);
            soma::RunOptions options;
            options.output_directory = out;
            options.progress = false;
            const soma::RunResult result = soma::run_simulation(*simulation, options);
            INFO(result.diagnosis);
            CAPTURE(steps, result.summary.steps, result.summary.retries, result.summary.newton_iterations);
            CHECK(result.summary.completed);
            CHECK(simulation->state().t == Approx(simulation->end_time()).epsilon(1e-12));
            // Each step converged at the scene's dt: a shipped scene's dt suits its start (the
            // manta ray's few retries come later, when its rear tip folds fastest).
            CHECK(result.summary.retries == 0);
            CHECK(result.summary.steps == steps);

            const soma::State& state = simulation->state();
            CHECK(finite(state.q));
            CHECK(finite(state.v));
            CHECK(finite(state.a));
            CHECK(std::isfinite(simulation->kinetic_energy()));
            CHECK(std::isfinite(simulation->potential_energy()));

            if (!simulation->observers().empty()) {
                const bool wrote_files = fs::exists(out) && !fs::is_empty(out);
                CHECK(wrote_files);
            }
        }
    }
}
