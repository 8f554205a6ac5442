// A long run stays within a fixed memory footprint (issue 8): the PneuNet example, with its CSV
// row and VTK frame every step, holds exactly as many heap bytes after 3000 steps as after 1000.
// The figure compared is glibc's count of bytes in use by malloc (mallinfo2), not the resident
// set size: it is exact, so a leak of even a few bytes per step shows (a collection that keeps
// every frame's entry in memory grows by about 70 bytes per frame, 140 kB here). The 24-hour
// run and its resident set size are measured by scripts/stress-memory.sh (docs/reliability.md).
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace soma;
using namespace soma::validation;

TEST_CASE("the PneuNet example with output every step holds a fixed heap over thousands of steps", "[memory]") {
    const char* source = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(source != nullptr);
    SceneDocument scene = load_scene_file(std::filesystem::path(source) / "configs/rods/pneunet.yaml");
    // 3000 statics steps of 0.05 s (150 s), each with a CSV row and a VTK frame.
    apply_overrides(scene, {"simulation.duration=150"});
    Simulation simulation(scene, plugin_registry());

    const auto folder = std::filesystem::temp_directory_path() / "soma_memory_footprint";
    std::filesystem::remove_all(folder);
    RunOptions options;
    options.output_directory = folder;
    options.progress = false;
    // The interrupt poll runs once before every step: it samples the heap (and never interrupts).
    long polls = 0;
    std::size_t in_use_at_1000 = 0, in_use_at_3000 = 0;
    options.interrupt_requested = [&] {
        ++polls;
        if (polls == 1001) in_use_at_1000 = mallinfo2().uordblks;
        if (polls == 3000) in_use_at_3000 = mallinfo2().uordblks;
        return 0;
    };
    const RunResult result = run_simulation(simulation, options);
    REQUIRE(result.summary.completed);
    REQUIRE(result.summary.steps == 3000);
    INFO("heap in use after 1000 steps " << in_use_at_1000 << " B, after 2999 steps " << in_use_at_3000 << " B");
    CHECK(in_use_at_1000 > 0);
    // Equal to the byte: nothing per step may stay allocated.
    CHECK(in_use_at_3000 == in_use_at_1000);
    std::filesystem::remove_all(folder);
}
