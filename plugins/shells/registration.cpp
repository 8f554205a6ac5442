// Registration of the shell elements: `hinge_shell` (here) and `midedge_shell`
// (midedge_registration.cpp, when present). The factories translate validated Parameters into
// plain description structs; the elements never see Parameters.
#include "hinge_shell.hpp"
#include "mesh_parameters.hpp"
#include "triangle_mesh.hpp"

#if __has_include("midedge_registration.hpp")
#include "midedge_registration.hpp"
#define SOMA_SHELLS_HAVE_MIDEDGE 1
#endif

#include "soma/soma.hpp"

#include <memory>
#include <stdexcept>

namespace {

using soma::ParameterSchema;
using soma::Parameters;
using namespace soma::shells;

ParameterSchema material_schema() {
    ParameterSchema s("material", "Linear elastic isotropic shell material.");
    s.real("density", "mass density rho").unit("kg/m^3").require().positive();
    s.real("youngs_modulus", "Young's modulus E").unit("Pa").require().positive();
    s.real("poisson_ratio",
           "Poisson ratio nu. Not used by the hinge model (digest 000 §2.6: no nu in its stretching or "
           "bending stiffness); accepted so the same material block works for midedge_shell")
        .fallback(0.3)
        .range(0.0, 0.5);
    return s;
}

ParameterSchema hinge_shell_schema() {
    ParameterSchema s(
        "hinge_shell",
        "Thin shell on a triangle mesh with discrete hinge bending (MAT-DiSMech, digest 000 §2.6): "
        "one stretching spring per mesh edge, k_s = (sqrt(3)/2) E h l_bar, and one bending spring per "
        "interior edge, E = 1/2 k_b (phi - phi_bar)^2 with k_b = (2/sqrt(3)) E h^3/12. Both are the "
        "reference code's values, twice the paper's; they are the spring-lattice values that give a "
        "2D Young's modulus E h and a plate bending rigidity E h^3/12 on an equilateral mesh, with the "
        "lattice's own Poisson ratio 1/3 in bending (digest errata §9.2, §9.3; a narrow strip with "
        "free anticlastic curvature is 9/8 as flexible as an Euler-Bernoulli beam, see "
        "tests/validation/test_cantilever_plate_hinge.cpp). The model has no Poisson ratio and its response depends on the mesh (shape and "
        "orientation). Natural hinge angles are those of the initial mesh (stress-free). Lumped mass "
        "rho h A/3 per triangle corner. DOFs: group `nodes` (x, y, z per node). Actuation channel "
        "`natural_hinge_angle`: one item per hinge, component `phi` (rad).");
    add_mesh_parameter(s, "mesh");
    s.real("thickness", "shell thickness h").unit("m").require().positive();
    s.map("material", "material constants", material_schema()).require();
    s.vec3("initial_velocity", "initial velocity of every node").unit("m/s").fallback(soma::Vec3(0.0, 0.0, 0.0));
    return s;
}

}  // namespace


namespace {

std::unique_ptr<soma::Element> make_hinge_shell(const Parameters& p) {
    HingeShellDescription d;
    d.mesh = mesh_from_parameters(p, "mesh");
    d.thickness = p.real("thickness");
    const Parameters m = p.block("material");
    d.material.density = m.real("density");
    d.material.youngs_modulus = m.real("youngs_modulus");
    d.material.poisson_ratio = m.real("poisson_ratio");
    d.initial_velocity = p.vec3("initial_velocity");
    try {
        return std::make_unique<HingeShell>(std::move(d));
    } catch (const MeshError& error) {
        p.fail("mesh", error.what());
    } catch (const std::invalid_argument& error) {
        p.fail("", error.what());
    }
}

}  // namespace

SOMA_PLUGIN("shells") {
    registry.add_element(hinge_shell_schema(), make_hinge_shell);
#ifdef SOMA_SHELLS_HAVE_MIDEDGE
    using namespace soma::shells;  // wherever midedge_registration.hpp declares it
    register_midedge_shell(registry);
#endif
}
