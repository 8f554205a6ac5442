// Fuzz target: a rod's xyz point file (`geometry: {file: ...}`), read by the discrete_rod plugin.
// Refusal: std::invalid_argument ("file:line: ...").
#include "fuzz_input.hpp"

#include "rod_geometry.hpp"

#include <sstream>
#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream input(soma::fuzz::as_text(data, size));
    try {
        (void)soma::rod::read_xyz_nodes(input, "fuzz.xyz");
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
