#pragma once
// Central-difference checks of a contact class's distance derivatives (pair_distance.hpp), shared
// by the tests of every pair kind.
#include "pair_distance.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>

namespace soma::imc_contact::testing {

template <int N>
std::array<Vec3, N> nodes_of(const VecN<3 * N>& x) {
    std::array<Vec3, N> nodes;
    for (int k = 0; k < N; ++k) nodes[static_cast<std::size_t>(k)] = x.template segment<3>(3 * k);
    return nodes;
}

template <int N>
PairDistance<N> class_distance(const VecN<3 * N>& x, const PairClassMap<N>& map, bool with_hessian = true) {
    PairDistance<N> d;
    pair_distance<N>(nodes_of<N>(x), map, with_hessian, d);
    return d;
}

/// Checks ∇Δ, ∇²Δ and dα/dx of class \p map at \p x against central differences of Δ, ∇Δ and α
/// of the same class. Step 1e-6 on unit-scale coordinates: truncation error ~h² |Δ'''| ~ 1e-12/Δ³
/// and round-off ~1e-16/h = 1e-10, so 1e-6 relative to the derivative's size bounds both with
/// room for the small distances (Δ ~ 0.05) the tests use.
template <int N>
void check_pair_derivatives(const VecN<3 * N>& x, const PairClassMap<N>& map) {
    const double h = 1e-6;
    const PairDistance<N> d = class_distance<N>(x, map);
    VecN<3 * N> fd_gradient;
    MatN<3 * N> fd_hessian;
    Eigen::Matrix<double, 3 * N, N> fd_alpha;
    for (int i = 0; i < 3 * N; ++i) {
        VecN<3 * N> plus = x, minus = x;
        plus[i] += h;
        minus[i] -= h;
        const PairDistance<N> dp = class_distance<N>(plus, map), dm = class_distance<N>(minus, map);
        fd_gradient[i] = (dp.distance - dm.distance) / (2 * h);
        fd_hessian.col(i) = (dp.gradient - dm.gradient) / (2 * h);
        fd_alpha.row(i) = (dp.alpha - dm.alpha).transpose() / (2 * h);
    }
    INFO("free parameters " << map.free_count << ", distance " << d.distance);
    CHECK((d.gradient - fd_gradient).norm() <= 1e-6 * std::max(1.0, d.gradient.norm()));
    CHECK((d.hessian - fd_hessian).norm() <= 1e-6 * std::max(1.0, d.hessian.norm()));
    CHECK((d.hessian - d.hessian.transpose()).norm() <= 1e-12 * std::max(1.0, d.hessian.norm()));
    for (int k = 0; k < N; ++k)
        CHECK((d.alpha_gradient(k) - fd_alpha.col(k)).norm() <= 1e-6 * std::max(1.0, d.alpha_gradient(k).norm()));
    // ∇Δ is α ⊗ n̂ with a unit normal.
    CHECK(d.normal.norm() == Approx(1.0).epsilon(1e-14));
}

}  // namespace soma::imc_contact::testing
