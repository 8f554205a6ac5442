#pragma once
/// \file gvs_types.hpp
/// \brief Fixed-size screw types and small enums shared by every file of the GVS plugin
/// (Mathew et al., Appendix A): twists, wrenches and strains are 6-vectors, angular part first.

#include "soma/types.hpp"

#include <Eigen/Core>

namespace soma::gvs {

/// A twist [w; v], wrench [m; f] or screw strain [k; v] (Mathew et al., Appendix A).
using Vec6 = VecN<6>;
/// A 6 x 6 screw operator: ad, Ad, a screw stiffness or a screw inertia.
using Mat6 = MatN<6>;
/// A strain basis Phi(X), a motion subspace S_a or a Jacobian block: 6 rows, one column per DoF.
using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

/// \brief How the Magnus expansion of the strain over one interval [X_a, X_a + h_a] is truncated.
///
/// fourth: Zanna's two-point collocation, the paper's choice (Mathew et al., eq. C1);
/// second: the midpoint rule Omega_a = h_a xi(X_a + h_a/2), not in the paper (SoRoSim offers it).
enum class MagnusOrder { second, fourth };

}  // namespace soma::gvs
