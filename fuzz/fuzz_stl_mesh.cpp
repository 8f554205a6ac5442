// Fuzz target: STL meshes (soma/stl_mesh.hpp), binary or ASCII, as a rigid body's shape or visual
// reads them: parse, then, for a mesh that bounds a solid, the mass properties. Refusals:
// MeshFileError (reader), std::invalid_argument (not a closed mesh).
#include "fuzz_input.hpp"

#include "rigid_shape.hpp"
#include "soma/stl_mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    soma::ObjTriangles mesh;
    try {
        mesh = soma::parse_stl_triangles(soma::fuzz::as_text(data, size), "fuzz.stl");
    } catch (const soma::MeshFileError&) {
        return 0;
    }
    try {
        soma::rigid_body::check_closed_mesh(mesh.positions, mesh.triangles);
        (void)soma::rigid_body::polyhedron_mass_properties(mesh.positions, mesh.triangles, 1000.0);
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
