// Fuzz target: Wavefront OBJ meshes (soma/obj_mesh.hpp), as the shells and rigid bodies use
// them: parse, then the shell's topology check, then, for a mesh that bounds a solid, the rigid
// body's mass properties. Refusals: MeshFileError (reader), MeshError (topology),
// std::invalid_argument (not a closed mesh).
#include "fuzz_input.hpp"

#include "mesh_input.hpp"
#include "rigid_shape.hpp"
#include "triangle_mesh.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream input(soma::fuzz::as_text(data, size));
    soma::shells::TriangleMesh mesh;
    try {
        mesh = soma::shells::parse_obj(input, "fuzz.obj");
    } catch (const soma::MeshFileError&) {
        return 0;
    }
    try {
        (void)soma::shells::build_topology(mesh);
    } catch (const soma::shells::MeshError&) {
    }
    try {
        soma::rigid_body::check_closed_mesh(mesh.positions, mesh.triangles);
        (void)soma::rigid_body::polyhedron_mass_properties(mesh.positions, mesh.triangles, 1000.0);
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
