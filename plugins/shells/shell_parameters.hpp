#pragma once
/// \file shell_parameters.hpp
/// \brief The scene keys both shell models share (mesh, thickness, material, initial velocity)
/// and the factory that turns them into an element's description.

#include "mesh_parameters.hpp"
#include "triangle_mesh.hpp"

#include "soma/element.hpp"
#include "soma/parameters.hpp"
#include "soma/settings_errors.hpp"

#include <memory>
#include <string>

namespace soma::shells {

/// \brief Adds `mesh`, `thickness`, `material` {density, youngs_modulus, poisson_ratio} and
/// `initial_velocity` to a shell schema; `poisson_doc` says what ν does in that model.
void add_shell_parameters(ParameterSchema& schema, const std::string& poisson_doc);

/// \brief Builds a shell element from its validated parameters: fills the description's
/// mesh, thickness, material and initial_velocity, and reports mesh and construction errors at
/// the scene key.
template <class ShellElement, class Description>
std::unique_ptr<Element> make_shell(const Parameters& p) {
    Description d;
    d.mesh = mesh_from_parameters(p, "mesh");
    d.thickness = p.real("thickness");
    const Parameters m = p.block("material");
    d.material.density = m.real("density");
    d.material.youngs_modulus = m.real("youngs_modulus");
    d.material.poisson_ratio = m.real("poisson_ratio");
    d.initial_velocity = p.vec3("initial_velocity");
    try {
        return std::make_unique<ShellElement>(std::move(d), scene_errors(p));
    } catch (const MeshError& error) {  // the mesh checks are a pure helper's (triangle_mesh.hpp)
        p.fail("mesh", error.what());
    }
}

}  // namespace soma::shells
