// Registration of the shell elements: `hinge_shell` (here) and `midedge_shell`
// (midedge_registration.cpp). The factories translate validated Parameters into
// plain description structs; the elements never see Parameters.
#include "hinge_shell.hpp"
#include "mesh_parameters.hpp"
#include "triangle_mesh.hpp"

#include "midedge_registration.hpp"
#include "shell_parameters.hpp"

#include "soma/soma.hpp"

#include <memory>
#include <stdexcept>

namespace {

using soma::ParameterSchema;
using soma::Parameters;
using namespace soma::shells;

ParameterSchema hinge_shell_schema() {
    ParameterSchema s(
        "hinge_shell",
        "Thin shell on a triangle mesh with discrete hinge bending (MAT-DiSMech eq. 17): "
        "one stretching spring per mesh edge, k_s = (sqrt(3)/2) E h l_bar, and one bending spring per "
        "interior edge, E = 1/2 k_b (phi - phi_bar)^2 with k_b = (2/sqrt(3)) E h^3/12. Both are the "
        "reference code's values, twice the paper's; they are the spring-lattice values that give a "
        "2D Young's modulus E h and a plate bending rigidity E h^3/12 on an equilateral mesh, with the "
        "lattice's own Poisson ratio 1/3 in bending (the reference code's stiffness; a narrow strip with "
        "free anticlastic curvature is 9/8 as flexible as an Euler-Bernoulli beam, see "
        "tests/validation/test_cantilever_plate_hinge.cpp). The model has no Poisson ratio and its response depends on the mesh (shape and "
        "orientation). Natural hinge angles are those of the initial mesh (stress-free). Lumped mass "
        "rho h A/3 per triangle corner. DOFs: group `nodes` (x, y, z per node) only: no edge DOFs, so a "
        "region in `fixed` or `prescribed` selects nodes only. Actuation channel "
        "`natural_hinge_angle`: one item per hinge, component `phi` (rad).");
    add_shell_parameters(s, "Poisson ratio nu. Not used by the hinge model (MAT-DiSMech: no nu in its stretching "
                            "or bending stiffness); accepted so the same material block works for midedge_shell");
    return s;
}

}  // namespace


namespace {


}  // namespace

SOMA_PLUGIN("shells") {
    registry.add_element(hinge_shell_schema(), make_shell<HingeShell, HingeShellDescription>);
    register_midedge_shell(registry);
}
