#include "pair_friction.hpp"

#include "soma/smooth_contact_law.hpp"

namespace soma::imc_contact {

template <int N>
void add_pair_friction(const PairDistance<N>& d, const std::array<Vec3, N>& x, const std::array<Vec3, N>& v,
                       const FrictionLaw& law, double normal_force, const VecN<3 * N>& normal_force_gradient,
                       bool with_derivatives, PairResidual<N>& out) {
    Vec3 v_rel = Vec3::Zero();
    for (int k = 0; k < N; ++k) v_rel += d.alpha[k] * v[static_cast<std::size_t>(k)];
    const Vec3& n = d.normal;
    const Mat3 tangent_projector = Mat3::Identity() - n * n.transpose();
    const Vec3 v_t = tangent_projector * v_rel;
    const FrictionShape shape = friction_shape(v_t.norm(), law.sharpness);
    const double mu = law.coefficient;
    const Vec3 h = shape.phi * v_t;  // γ(w) v̂_t
    for (int k = 0; k < N; ++k) out.residual.template segment<3>(3 * k) += (mu * normal_force * d.alpha[k]) * h;
    if (!with_derivatives) return;

    // d(φ v_t)/dv_t, and v_t's own derivatives: dv_t/dv_j = α_j P (fixed q), and at fixed v
    //   dv_t/dq = P dv_rel/dq - ((n̂·v_rel) I + n̂ v_relᵀ) dn̂/dq,   dn̂/dq = P dr/dq / Δ,
    //   dr/dq = α ⊗ I + Σ_j d_j (ds_j/dq)ᵀ,   dv_rel/dq = Σ_j (Σ_k a_jk v_k) (ds_j/dq)ᵀ.
    const Mat3 shape_jacobian = shape.phi * Mat3::Identity() + shape.psi * v_t * v_t.transpose();
    const Mat3 velocity_block = (mu * normal_force) * shape_jacobian * tangent_projector;
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < N; ++j)
            out.velocity_derivative.template block<3, 3>(3 * k, 3 * j) = (d.alpha[k] * d.alpha[j]) * velocity_block;

    Eigen::Matrix<double, 3, 3 * N> dr_dq = Eigen::Matrix<double, 3, 3 * N>::Zero();
    Eigen::Matrix<double, 3, 3 * N> dvrel_dq = Eigen::Matrix<double, 3, 3 * N>::Zero();
    for (int j = 0; j < d.map.free_count; ++j) {
        Vec3 direction = Vec3::Zero(), direction_velocity = Vec3::Zero();
        for (int k = 0; k < N; ++k) {
            direction += d.map.directions(k, j) * x[static_cast<std::size_t>(k)];
            direction_velocity += d.map.directions(k, j) * v[static_cast<std::size_t>(k)];
        }
        dr_dq.noalias() += direction * d.parameter_gradient.col(j).transpose();
        dvrel_dq.noalias() += direction_velocity * d.parameter_gradient.col(j).transpose();
    }
    for (int k = 0; k < N; ++k) dr_dq.template block<3, 3>(0, 3 * k).diagonal().array() += d.alpha[k];
    const Eigen::Matrix<double, 3, 3 * N> dn_dq = tangent_projector * dr_dq / d.distance;
    const Mat3 normal_turn = n.dot(v_rel) * Mat3::Identity() + n * v_rel.transpose();
    const Eigen::Matrix<double, 3, 3 * N> dh_dq = shape_jacobian * (tangent_projector * dvrel_dq - normal_turn * dn_dq);
    const VecN<3 * N>& dfn_dq = normal_force_gradient;
    for (int k = 0; k < N; ++k)
        out.position_derivative.template block<3, 3 * N>(3 * k, 0) +=
            mu * (d.alpha[k] * h * dfn_dq.transpose() + normal_force * h * d.alpha_gradient(k).transpose() +
                  (normal_force * d.alpha[k]) * dh_dq);
}

template void add_pair_friction<2>(const PairDistance<2>&, const std::array<Vec3, 2>&, const std::array<Vec3, 2>&,
                                   const FrictionLaw&, double, const VecN<6>&, bool, PairResidual<2>&);
template void add_pair_friction<3>(const PairDistance<3>&, const std::array<Vec3, 3>&, const std::array<Vec3, 3>&,
                                   const FrictionLaw&, double, const VecN<9>&, bool, PairResidual<3>&);
template void add_pair_friction<4>(const PairDistance<4>&, const std::array<Vec3, 4>&, const std::array<Vec3, 4>&,
                                   const FrictionLaw&, double, const VecN<12>&, bool, PairResidual<4>&);

}  // namespace soma::imc_contact
