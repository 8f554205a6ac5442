#pragma once
/// \file pair_distance.hpp
/// \brief The distance between two contact primitives (points, edges, triangles) in one contact
/// class, and its first two derivatives with respect to their nodes: the geometry shared by every
/// pair kind of IMC contact (MAT-DiSMech §4.1, extended to node-triangle pairs).
///
/// A pair of primitives with N nodes x_1..x_N (edge-edge and node-triangle: N = 4; node-edge: 3;
/// node-node: 2) has, for a point p of the first and q of the second, the difference
///
///     r = p - q = Σ_k α_k x_k,   α(s) = α⁰ + Σ_j s_j a_j                  (affine in s)
///
/// with s the primitives' parameters (t on an edge, two barycentric coordinates on a triangle).
/// A **contact class** says which parameters the closest points hold at a bound (a node, an edge
/// of a triangle) and which are free (inside): it fixes α⁰ and keeps the free directions a_j
/// (PairClassMap). In a class the free parameters take their unconstrained optimum, so the
/// distance is the class's smooth function of the nodes, extended past its region; the classes
/// of a pair agree in value and gradient where the closest points change class (the free optimum
/// reaches the bound there), so a penalty of the distance is C¹ across switches.
///
/// **Derivatives**, with D = |r|², d_j = ∂r/∂s_j = Σ_k a_jk x_k:
///
///     ∂D/∂x_k = 2 α_k r                                  (envelope theorem: ∂D/∂s = 0 at the optimum)
///     ∇²D     = 2 (α αᵀ ⊗ I) - G H⁻¹ Gᵀ                   (implicit differentiation of ∂D/∂s = 0)
///     G_kj    = ∂²D/∂x_k∂s_j = 2 (a_jk r + α_k d_j),   H_ij = ∂²D/∂s_i∂s_j = 2 d_i·d_j,
///     ds/dx   = -H⁻¹ Gᵀ
///
/// and Δ = √D: ∇Δ = ∇D/(2Δ), ∇²Δ = ∇²D/(2Δ) - ∇Δ ∇Δᵀ/Δ. The parameters' gradients ds/dx are what
/// friction needs (its contact points slide along the primitives). All closed forms; the tests
/// compare them with central differences in every class of every pair kind.

#include "soma/types.hpp"

#include <array>

namespace soma::imc_contact {

/// Most free parameters of a contact class (edge-edge, node-triangle face: 2).
inline constexpr int kMaxFreeParameters = 2;

/// A contact class of a pair of N-node primitives: α(s) = base + directions s (file comment).
template <int N>
struct PairClassMap {
    VecN<N> base = VecN<N>::Zero();                                                   ///< α⁰
    Eigen::Matrix<double, N, kMaxFreeParameters> directions =
        Eigen::Matrix<double, N, kMaxFreeParameters>::Zero();                         ///< a_j (first free_count columns)
    int free_count = 0;
};

/// The class's distance and its derivatives with respect to the N nodes (3N coordinates).
template <int N>
struct PairDistance {
    double distance = 0.0;                  ///< Δ (m)
    Vec3 normal = Vec3::Zero();             ///< n̂ = r/Δ: from the second primitive's closest point to the first's
    VecN<N> alpha = VecN<N>::Zero();        ///< the closest points' weights: r = Σ α_k x_k
    PairClassMap<N> map;                    ///< the class used
    VecN<3 * N> gradient;                   ///< ∇Δ
    MatN<3 * N> hessian;                    ///< ∇²Δ (only when requested)
    /// ds_j/dx in column j (first map.free_count columns; only when the Hessian is requested)
    Eigen::Matrix<double, 3 * N, kMaxFreeParameters> parameter_gradient;

    /// dα_k/dx = Σ_j a_jk ds_j/dx (only when the Hessian was requested).
    VecN<3 * N> alpha_gradient(int k) const {
        VecN<3 * N> g = VecN<3 * N>::Zero();
        for (int j = 0; j < map.free_count; ++j) g += map.directions(k, j) * parameter_gradient.col(j);
        return g;
    }
};

/// \brief Δ of class \p map at nodes \p x with its gradient and, when \p with_hessian, its
/// Hessian and the parameters' gradients (file comment). The class's free directions must be
/// independent at \p x, and Δ must be > 0 (the caller skips touching primitives).
template <int N>
void pair_distance(const std::array<Vec3, N>& x, const PairClassMap<N>& map, bool with_hessian, PairDistance<N>& out);

extern template void pair_distance<2>(const std::array<Vec3, 2>&, const PairClassMap<2>&, bool, PairDistance<2>&);
extern template void pair_distance<3>(const std::array<Vec3, 3>&, const PairClassMap<3>&, bool, PairDistance<3>&);
extern template void pair_distance<4>(const std::array<Vec3, 4>&, const PairClassMap<4>&, bool, PairDistance<4>&);

}  // namespace soma::imc_contact
