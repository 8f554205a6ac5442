#pragma once
/// \file shell_stretching.hpp
/// \brief In-plane stretching of a shell: one axial spring per mesh edge (MAT-DiSMech §3.1,
/// eq. 9-10), with the per-edge stiffness of the chosen bending model.
///
///     eps = |e| / l_bar - 1,     E = 1/2 k_s eps^2 l_bar
///
/// Stiffness per edge (MAT-DiSMech §3.1 and its reference code):
/// - hinge model:    k_s = (sqrt(3)/2) E h l_bar. This is the reference code's value, twice the
///   paper's (sqrt(3)/4). It is the spring-lattice result: springs of energy 1/2 k (l - l_bar)^2
///   on an equilateral lattice give a 2D Young's modulus 2k/sqrt(3), so k = (sqrt(3)/2) E h and
///   k_s = k l_bar. The paper's value is taken to be a typo (it is printed after MAT-DiSMech eq. 10).
/// - mid-edge model: k_s = 2 E h l_bar / (1 - nu^2) (MAT-DiSMech's reference code; no
///   derivation given there).
///
/// Local DOFs of one spring: [x_0 (3), x_1 (3)] with e = x_1 - x_0.

#include "triangle_mesh.hpp"

#include "soma/assembly.hpp"
#include "soma/energy_term.hpp"
#include "soma/springs/stretching_spring.hpp"
#include "soma/types.hpp"

#include <vector>

namespace soma::shells {

/// Which bending model the stretching stiffness belongs to.
enum class StretchingMode {
    hinge,    ///< k_s = (sqrt(3)/2) E h l_bar
    midedge,  ///< k_s = 2 E h l_bar / (1 - nu^2)
};

/// \brief Axial stiffness k_s (N) of one shell edge.
/// \param[in] mode           hinge or mid-edge formula (see file comment)
/// \param[in] youngs_modulus E (Pa)
/// \param[in] poisson_ratio  nu (unused in hinge mode; must be < 1 in mid-edge mode)
/// \param[in] thickness      h (m)
/// \param[in] rest_length    l_bar (m)
double shell_stretching_stiffness(StretchingMode mode, double youngs_modulus, double poisson_ratio,
                                  double thickness, double rest_length);

/// Edge springs are the SDK's stretching spring (MAT-DiSMech §3.1, eq. 9-10), shared with rod edges.
using EdgeSpring = springs::StretchingSpring;
inline double edge_spring_energy(const EdgeSpring& s, const Vec3& x0, const Vec3& x1) {
    return springs::stretching_energy(s, x0, x1);
}
inline double edge_spring_energy_gradient(const EdgeSpring& s, const Vec3& x0, const Vec3& x1, VecN<6>& g) {
    return springs::stretching_energy_gradient(s, x0, x1, g);
}
inline double edge_spring_energy_gradient_hessian(const EdgeSpring& s, const Vec3& x0, const Vec3& x1, VecN<6>& g,
                                                  MatN<6>& H) {
    return springs::stretching_energy_gradient_hessian(s, x0, x1, g, H);
}

/// \brief Energy of every edge spring at q; adds their derivatives as \p evaluation asks (one
/// stencil per edge, edge order).
/// \param node_position callable Index -> Vec3 reading a node's position from q
template <class NodePosition>
double assemble_edge_springs(const std::vector<EdgeSpring>& springs, const std::vector<MeshEdge>& edges,
                             const std::vector<StencilId>& stencils, NodePosition&& node_position,
                             const EnergyEvaluation& evaluation) {
    double energy = 0.0;
    for (std::size_t e = 0; e < springs.size(); ++e) {
        const EdgeSpring& spring = springs[e];
        const Vec3 x0 = node_position(edges[e].nodes[0]);
        const Vec3 x1 = node_position(edges[e].nodes[1]);
        energy += add_energy_term<6>(
            evaluation, stencils[e], [&] { return edge_spring_energy(spring, x0, x1); },
            [&](VecN<6>& g) { return edge_spring_energy_gradient(spring, x0, x1, g); },
            [&](VecN<6>& g, MatN<6>& H) { return edge_spring_energy_gradient_hessian(spring, x0, x1, g, H); });
    }
    return energy;
}

}  // namespace soma::shells
