// Registration of the `midedge_shell` element: its scene schema (mesh block shared with
// hinge_shell through mesh_parameters.hpp) and the factory building a MidedgeShellDescription.
#include "midedge_registration.hpp"

#include "shell_parameters.hpp"
#include "midedge_shell.hpp"

#include "soma/element.hpp"

#include <memory>
#include <stdexcept>

namespace soma::shells {
namespace {

ParameterSchema midedge_shell_schema() {
    ParameterSchema s(
        "midedge_shell",
        "Thin shell on a triangle mesh with mid-edge normal bending (Grinspun et al. 2006 as in "
        "MAT-DiSMech §3.3.2, eq. 18-20): per triangle E = k_b A_bar [(1 - nu) Tr((Lambda - Lambda_bar)^2) "
        "+ nu (Tr Lambda - Tr Lambda_bar)^2], k_b = E h^3/(24 (1 - nu^2)), with one extra DOF xi per "
        "mesh edge: the component of the edge's mid-edge normal along tau = unit(e x n_avg), the edge's "
        "perpendicular in the tangent plane of its faces' average normal n_avg (dimensionless; xi = 0: the "
        "mid-edge normal is n_avg). tau is taken from the current configuration, so the energy is a function "
        "of the positions and xi alone: statics results do not depend on the number of load steps, and the "
        "Jacobian is the exact Hessian. One stretching spring per mesh edge with the reference code's "
        "mid-edge stiffness k_s = 2 E h l_bar/(1 - nu^2). The natural shape is the initial mesh. Lumped "
        "mass rho h A/3 per triangle corner; xi is massless and quasi-static, so use an integrator that "
        "does not solve M a = f alone (not newmark's initial acceleration, not explicit schemes) unless "
        "every xi is fixed: `soma check` refuses newmark with a free xi. DOFs: group `nodes` (x, y, z per node) and group `edges` (component `xi`, one "
        "per mesh edge, numbered in order of first appearance walking the triangles; `soma inspect` lists "
        "them). Fixing (or prescribing) an edge's xi holds its mid-edge normal in the world: its initial "
        "direction, turned about the initial edge direction by asin(xi) (a prescribed xi must stay in (-1, 1)): "
        "a clamp. Its two nodes must be fixed or prescribed "
        "too (refused otherwise). A region (box, plane) in `fixed` or `prescribed` selects both: the nodes "
        "in it and the xi of every edge whose two nodes it holds. Leave xi free on a simply supported edge.");
    add_shell_parameters(s, "Poisson ratio nu, in the bending stiffness k_b = E h^3/(24 (1 - nu^2)) and the energy's "
           "(1 - nu) Tr(dLambda^2) + nu (Tr dLambda)^2 split, and in the stretching stiffness "
           "2 E h l_bar/(1 - nu^2). nu = 0.5 lets a plate strip bend like a beam (anticlastic "
           "curvature free)");
    return s;
}


}  // namespace

void register_midedge_shell(soma::Registry& registry) {
    registry.add_element(midedge_shell_schema(), make_shell<MidedgeShell, MidedgeShellDescription>);
}

}  // namespace soma::shells
