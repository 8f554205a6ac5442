#pragma once
/// \file mesh_parameters.hpp
/// \brief The scene schema of a shell's `mesh` block and its translation into a TriangleMesh,
/// shared by the registrations of hinge_shell and midedge_shell.
///
///     mesh:
///       file: {path: canopy.obj, format: obj}          # or text; default by extension
///       rectangle: {origin: [0,0,0], size: [Lx, Ly], edge_length: a, pattern: equilateral, rows: x}
///       regular_polygon: {center: [0,0,0], circumradius: R, sides: 6, edge_length: a}
///
/// (exactly one of the three), each with an optional
/// `transform: {rotate: {axis, angle_deg}, translate}` (soma/rigid_transform.hpp).

#include "triangle_mesh.hpp"

#include "soma/parameters.hpp"

#include <string>

namespace soma::shells {

/// \brief Adds the one_of key `key` (file | rectangle | regular_polygon), required, to `schema`.
void add_mesh_parameter(ParameterSchema& schema, const std::string& key = "mesh");

/// \brief Builds and validates (build_topology) the mesh of the validated block `p.key`.
/// Errors are reported with Parameters::fail at the key concerned (`path` for file errors, with
/// the file's own "file:line:"; `edge_length` or `size` for generated meshes).
TriangleMesh mesh_from_parameters(const Parameters& p, const std::string& key = "mesh");

}  // namespace soma::shells
