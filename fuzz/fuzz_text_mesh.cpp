// Fuzz target: the MAT-DiSMech text geometry format (*Nodes / *Edges / *Triangles) read by the
// shells, then the shell's topology check. Refusals: MeshInputError, MeshError.
#include "fuzz_input.hpp"

#include "mesh_input.hpp"
#include "triangle_mesh.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream input(soma::fuzz::as_text(data, size));
    try {
        const soma::shells::TriangleMesh mesh = soma::shells::parse_text_geometry(input, "fuzz.txt");
        (void)soma::shells::build_topology(mesh);
    } catch (const soma::shells::MeshInputError&) {
    } catch (const soma::shells::MeshError&) {
    }
    return 0;
}
