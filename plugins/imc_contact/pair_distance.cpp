#include "pair_distance.hpp"

#include <cassert>
#include <cmath>

namespace soma::imc_contact {

template <int N>
void pair_distance(const std::array<Vec3, N>& x, const PairClassMap<N>& map, bool with_hessian, PairDistance<N>& out) {
    const int m = map.free_count;
    assert(m >= 0 && m <= kMaxFreeParameters);
    // r(s) = r0 + Σ_j s_j d_j; the free optimum solves (d_i·d_j) s = -(d_i·r0).
    Vec3 r0 = Vec3::Zero();
    std::array<Vec3, kMaxFreeParameters> d{Vec3::Zero(), Vec3::Zero()};
    for (int k = 0; k < N; ++k) {
        r0 += map.base[k] * x[static_cast<std::size_t>(k)];
        for (int j = 0; j < m; ++j) d[static_cast<std::size_t>(j)] += map.directions(k, j) * x[static_cast<std::size_t>(k)];
    }
    double s[kMaxFreeParameters] = {0.0, 0.0};
    // M = (d_i·d_j) and its inverse (H = 2M).
    double inverse[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    if (m == 1) {
        const double m11 = d[0].squaredNorm();
        assert(m11 > 0.0);
        inverse[0][0] = 1.0 / m11;
        s[0] = -d[0].dot(r0) / m11;
    } else if (m == 2) {
        const double m11 = d[0].squaredNorm(), m12 = d[0].dot(d[1]), m22 = d[1].squaredNorm();
        const double det = m11 * m22 - m12 * m12;  // |d_1 x d_2|²
        assert(det > 0.0);
        inverse[0][0] = m22 / det;
        inverse[0][1] = inverse[1][0] = -m12 / det;
        inverse[1][1] = m11 / det;
        const double b1 = -d[0].dot(r0), b2 = -d[1].dot(r0);
        s[0] = inverse[0][0] * b1 + inverse[0][1] * b2;
        s[1] = inverse[1][0] * b1 + inverse[1][1] * b2;
    }
    out.map = map;
    out.alpha = map.base;
    Vec3 r = r0;
    for (int j = 0; j < m; ++j) {
        out.alpha += s[j] * map.directions.col(j);
        r += s[j] * d[static_cast<std::size_t>(j)];
    }
    const double distance = r.norm();
    assert(distance > 0.0);
    out.distance = distance;
    out.normal = r / distance;
    for (int k = 0; k < N; ++k) out.gradient.template segment<3>(3 * k) = out.alpha[k] * out.normal;  // ∇Δ = ∇D/(2Δ)
    if (!with_hessian) return;

    // ∇²D = 2 (α αᵀ ⊗ I) - G H⁻¹ Gᵀ = 2 (α αᵀ ⊗ I) + G (ds/dx)ᵀ,  ds/dx = -H⁻¹ Gᵀ = -(1/2) M⁻¹ Gᵀ.
    MatN<3 * N> hessian_d = MatN<3 * N>::Zero();
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            hessian_d.template block<3, 3>(3 * i, 3 * j).diagonal().setConstant(2.0 * out.alpha[i] * out.alpha[j]);
    Eigen::Matrix<double, 3 * N, kMaxFreeParameters> g;
    for (int j = 0; j < m; ++j)
        for (int k = 0; k < N; ++k)
            g.template block<3, 1>(3 * k, j) = 2.0 * (map.directions(k, j) * r + out.alpha[k] * d[static_cast<std::size_t>(j)]);
    out.parameter_gradient.setZero();
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) out.parameter_gradient.col(j) -= 0.5 * inverse[j][i] * g.col(i);
    for (int j = 0; j < m; ++j) hessian_d.noalias() += g.col(j) * out.parameter_gradient.col(j).transpose();
    out.hessian.noalias() = (0.5 / distance) * hessian_d - (1.0 / distance) * out.gradient * out.gradient.transpose();
}

template void pair_distance<2>(const std::array<Vec3, 2>&, const PairClassMap<2>&, bool, PairDistance<2>&);
template void pair_distance<3>(const std::array<Vec3, 3>&, const PairClassMap<3>&, bool, PairDistance<3>&);
template void pair_distance<4>(const std::array<Vec3, 4>&, const PairClassMap<4>&, bool, PairDistance<4>&);

}  // namespace soma::imc_contact
