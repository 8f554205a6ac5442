#pragma once
/// \file geometric_stiffness.hpp
/// \brief The diagonal, Broyden-like geometric stiffness of Macklin et al. 2019, section 8.3
/// (eqs. 70-74): what the Newton matrix leaves out, estimated from the last step on its diagonal.
///
/// The Newton matrix A of ncp_newton leaves out how the contact forces' directions turn with the
/// configuration, K = d(G_f^T lambda)/dq (eq. 70; the elements' and joints' own stiffness is in A
/// exactly). Between two iterates at the same multipliers the momentum residual changes by
/// dg = A dx + (what A leaves out) dx (the secant condition, eq. 71). Per DOF k, the part left out
///
///     c_k = ((A dx)_k - dg_k) / dx_k                          (eq. 73, sign corrected)
///
/// enters the next matrix's diagonal only where it stiffens, A_kk - min(0, c_k) (eq. 74), so A
/// stays positive definite where it was. Eq. 73 as printed has the opposite sign: with nothing
/// left out (dg = M dx) it would add 2 M_kk.
///
/// ncp_newton takes dg - A dx as the change of the contact forces alone, -(G(x_new) -
/// G(x_old))^T lambda_new: the paper's difference, whose matrix is M, is exactly that. The whole
/// residual's difference would also carry the second-order remainder of the exact part of A,
/// O(|dx|^2) per DOF, whose quotient by a small dx_k is no stiffness (on a cantilever rod with no
/// contact it reached 2500 times the matrix's diagonal).

#include "soma/types.hpp"

#include <algorithm>
#include <cmath>

namespace soma::ncp {

/// Steps smaller than this fraction of the largest are skipped (section 8.3: "entries with
/// dx_k ~ 0"): their quotient would be round-off of the residual over a vanishing step.
inline constexpr double kNegligibleSecantStep = 1e-8;

/// \p left_out[k] = dg_k - (A dx)_k, the change of the residual that A did not predict over the
/// step \p step (= dx); \p shift[k] = -min(0, c_k) = max(0, left_out_k / dx_k), the amount added to
/// A_kk (eq. 74), 0 for a negligible step. All three have the same size; nothing is allocated.
inline void diagonal_geometric_stiffness(const VectorX& left_out, const VectorX& step, VectorX& shift) {
    const double largest = step.size() > 0 ? step.cwiseAbs().maxCoeff() : 0.0;
    for (Index k = 0; k < step.size(); ++k) {
        const double dx = step[k];
        shift[k] = std::abs(dx) > kNegligibleSecantStep * largest ? std::max(0.0, left_out[k] / dx) : 0.0;
    }
}

}  // namespace soma::ncp
