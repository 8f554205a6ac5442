#pragma once
/// \file pair_friction.hpp
/// \brief Smoothed Coulomb friction at the contact points of one pair (MAT-DiSMech eq. 23-24),
/// for every pair kind, with its exact Jacobian in positions and velocities.
///
/// The contact points move with v_rel = Σ_k α_k v_k (the pair's weights, pair_distance.hpp).
/// With f_n = -E'(g) >= 0 the normal force and n̂ the pair's normal,
///
///     v_t = (I - n̂n̂ᵀ) v_rel,  w = |v_t|,   node k gets the residual  μ f_n α_k φ(w) v_t,
///
/// φ = γ(w)/w, γ(w) = tanh(K2 w/2), K2 = 15/v_tol (eq. 23): the force on the first primitive's
/// contact point is -μ γ f_n v̂_t, spread over its nodes by the weights, and the opposite on the
/// second (for edge pairs the reference code's weights ‖f1s‖/f_n are these α). The Jacobian:
/// d/dv through v_t (φ P + ψ v_t v_tᵀ, smooth through v_t = 0); d/dq through f_n,
/// through the contact points' parameters ds/dx (which move the weights α and v_rel) and through
/// n̂. It is unsymmetric; the reference code's sticking, sliding and zero-velocity regimes are all
/// this one smooth law (smooth_contact_law.hpp).

#include "pair_distance.hpp"

#include <array>

namespace soma::imc_contact {

/// The world-frame residual of a pair and its derivatives (3N coordinates: the pair's nodes).
template <int N>
struct PairResidual {
    VecN<3 * N> residual;             ///< r = ∂E/∂x - f_friction
    MatN<3 * N> position_derivative;  ///< dr/dx at fixed velocities
    MatN<3 * N> velocity_derivative;  ///< dr/dxdot (friction only)
};

/// Friction's parameters: μ, and K2 = 15/v_tol.
struct FrictionLaw {
    double coefficient = 0.0;
    double sharpness = 0.0;
};

/// \brief Adds pair \p d's friction to \p out: the residual and, when \p with_derivatives, its
/// position and velocity derivatives (the latter overwritten). \p x and \p v are the nodes'
/// positions and velocities, \p normal_force f_n and \p normal_force_gradient ∇f_n (at fixed v).
template <int N>
void add_pair_friction(const PairDistance<N>& d, const std::array<Vec3, N>& x, const std::array<Vec3, N>& v,
                       const FrictionLaw& law, double normal_force, const VecN<3 * N>& normal_force_gradient,
                       bool with_derivatives, PairResidual<N>& out);

extern template void add_pair_friction<2>(const PairDistance<2>&, const std::array<Vec3, 2>&, const std::array<Vec3, 2>&,
                                          const FrictionLaw&, double, const VecN<6>&, bool, PairResidual<2>&);
extern template void add_pair_friction<3>(const PairDistance<3>&, const std::array<Vec3, 3>&, const std::array<Vec3, 3>&,
                                          const FrictionLaw&, double, const VecN<9>&, bool, PairResidual<3>&);
extern template void add_pair_friction<4>(const PairDistance<4>&, const std::array<Vec3, 4>&, const std::array<Vec3, 4>&,
                                          const FrictionLaw&, double, const VecN<12>&, bool, PairResidual<4>&);

}  // namespace soma::imc_contact
