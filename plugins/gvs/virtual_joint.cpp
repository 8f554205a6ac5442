/// \file virtual_joint.cpp
/// \brief The virtual joint's kinematics and derivatives (Mathew et al., Appendix C).
///
/// The paper writes the derivatives of T(Omega(q)) term by term (eqs. C19, C20, C24, C29); here they
/// are grouped through three 6 x 6 matrices, built once per joint, so that each 6 x n block costs
/// one 6 x 6 product per column:
///
///     D(x)     = d(T x)/dOmega   = sum_r (f_r'/theta) (ad^r x)(I_theta Omega)^T
///                                  - sum_{p=0}^{3} ad^p ad_{u_p},   u_p = sum_{m=0}^{3-p} f_{p+m+1} ad^m x,
///     Ddot(x)  = d/dt D(x) for fixed x (= d(Tdot x)/dOmega at fixed Omegadot),
///     Dt(F)    = d(T^T F)/dOmega = sum_r (f_r'/theta) ((ad^r)^T F)(I_theta Omega)^T
///                                  - sum_p (ad^p)^T adbar*_{z_p},   z_p = sum_m f_{p+m+1} (ad^m)^T F.
///
/// D(x) regroups eq. C18, (d ad^r/dq) x = -sum_u ad^{u-1} ad_{ad^{r-u} x} Z, by the powers on the left;
/// Dt(F) is its transpose-side counterpart, the last two lines of eq. C29. Then, with
/// Omegadot = Z qdot and Zdot qdot = 2 c ad_{xidot_z1} xidot_z2:
///
///     (dS/dq) qdot     = D(Omegadot) Z + T Zdot                                           (eq. C19)
///     (dS/dq) qddot    = D(Z qddot) Z + T Zddot                                           (eq. C20)
///     (dSdot/dq) qdot  = [Ddot(Omegadot) + D(Zdot qdot)] Z + [D(Omegadot) + Tdot] Zdot    (eqs. C22, C24)
///     (dS^T/dq) F      = c (Phi_z1^T adbar*_{T^T F} Phi_z2 - Phi_z2^T adbar*_{T^T F} Phi_z1) + Z^T Dt(F) Z   (eq. C29)

#include "virtual_joint.hpp"

#include <cassert>
#include <cmath>

namespace soma::gvs {

namespace {

/// sqrt(3)/12, the commutator weight of the Zanna collocation over h^2 (eq. C1).
constexpr double kZannaCommutator = 1.7320508075688772 / 12.0;

Vec6 angular_part(const Vec6& V) {
    Vec6 out;
    out << V.head<3>(), Vec3::Zero();
    return out;
}

/// \brief The Omega-dependent data of T(Omega) and of its derivatives along one Omegadot.
struct TangentDerivatives {
    detail::AdPowers ad_pow;
    detail::TangentCoefficientsExtended c;
    Vec6 i_theta_omega;             ///< I_theta Omega: dtheta/dOmega = (I_theta Omega)^T / theta (eq. C17)
    Vec6 i_theta_omega_dot;
    double w_wdot = 0.0;            ///< theta thetadot = w . w_dot

    TangentDerivatives(const Vec6& Omega, const Vec6& Omega_dot)
        : c(detail::tangent_coefficients_extended(Omega.head<3>().norm())),
          i_theta_omega(angular_part(Omega)),
          i_theta_omega_dot(angular_part(Omega_dot)),
          w_wdot(Omega.head<3>().dot(Omega_dot.head<3>())) {
        detail::compute_ad_powers(Omega, Omega_dot, ad_pow);
    }

    explicit TangentDerivatives(const Vec6& Omega)
        : c(detail::tangent_coefficients_extended(Omega.head<3>().norm())),
          i_theta_omega(angular_part(Omega)),
          i_theta_omega_dot(Vec6::Zero()) {
        detail::compute_ad_powers(Omega, ad_pow);
    }

    double f(std::size_t r) const { return c.base.f[r - 1]; }
    double h(std::size_t r) const { return c.base.df_over_theta[r - 1]; }
    double g(std::size_t r) const { return c.g[r - 1]; }
    const Mat6& P(std::size_t r) const { return ad_pow.power[r]; }
    const Mat6& P_dot(std::size_t r) const { return ad_pow.power_dot[r]; }

    Mat6 T() const {
        Mat6 t = Mat6::Identity();
        for (std::size_t r = 1; r <= 4; ++r) t += f(r) * P(r);
        return t;
    }

    /// sum_r [(f_r'/theta)(w . w_dot) ad^r + f_r (ad^r)dot] (Appendix A).
    Mat6 T_dot() const {
        Mat6 t = Mat6::Zero();
        for (std::size_t r = 1; r <= 4; ++r) t += (h(r) * w_wdot) * P(r) + f(r) * P_dot(r);
        return t;
    }

    /// D(x) = d(T x)/dOmega.
    Mat6 D(const Vec6& x) const {
        std::array<Vec6, 5> y;  // ad^m x
        y[0] = x;
        for (std::size_t m = 1; m <= 4; ++m) y[m].noalias() = P(m) * x;
        Vec6 yh = Vec6::Zero();
        for (std::size_t r = 1; r <= 4; ++r) yh += h(r) * y[r];
        Mat6 out = yh * i_theta_omega.transpose();
        for (std::size_t p = 0; p <= 3; ++p) {
            Vec6 u = Vec6::Zero();
            for (std::size_t m = 0; m + p <= 3; ++m) u += f(p + m + 1) * y[m];
            if (p == 0)
                out -= ad(u);
            else
                out.noalias() -= P(p) * ad(u);
        }
        return out;
    }

    /// d/dt D(x) at fixed x, along Omegadot.
    Mat6 D_dot(const Vec6& x) const {
        std::array<Vec6, 5> y, y_dot;  // ad^m x and (ad^m)dot x
        y[0] = x;
        y_dot[0].setZero();
        for (std::size_t m = 1; m <= 4; ++m) {
            y[m].noalias() = P(m) * x;
            y_dot[m].noalias() = P_dot(m) * x;
        }
        // d/dt (f_r'/theta) = g_r (w . w_dot), d/dt f_r = (f_r'/theta)(w . w_dot).
        Vec6 yh = Vec6::Zero(), yh_dot = Vec6::Zero();
        for (std::size_t r = 1; r <= 4; ++r) {
            yh += h(r) * y[r];
            yh_dot += (g(r) * w_wdot) * y[r] + h(r) * y_dot[r];
        }
        Mat6 out = yh_dot * i_theta_omega.transpose() + yh * i_theta_omega_dot.transpose();
        for (std::size_t p = 0; p <= 3; ++p) {
            Vec6 u = Vec6::Zero(), u_dot = Vec6::Zero();
            for (std::size_t m = 0; m + p <= 3; ++m) {
                const std::size_t r = p + m + 1;
                u += f(r) * y[m];
                u_dot += (h(r) * w_wdot) * y[m] + f(r) * y_dot[m];
            }
            if (p == 0) {
                out -= ad(u_dot);
            } else {
                out.noalias() -= P_dot(p) * ad(u);
                out.noalias() -= P(p) * ad(u_dot);
            }
        }
        return out;
    }

    /// Dt(F) = d(T^T F)/dOmega.
    Mat6 Dt(const Vec6& F) const {
        std::array<Vec6, 5> z;  // (ad^m)^T F
        z[0] = F;
        for (std::size_t m = 1; m <= 4; ++m) z[m].noalias() = P(m).transpose() * F;
        Vec6 zh = Vec6::Zero();
        for (std::size_t r = 1; r <= 4; ++r) zh += h(r) * z[r];
        Mat6 out = zh * i_theta_omega.transpose();
        for (std::size_t p = 0; p <= 3; ++p) {
            Vec6 u = Vec6::Zero();
            for (std::size_t m = 0; m + p <= 3; ++m) u += f(p + m + 1) * z[m];
            if (p == 0)
                out -= coad_bar(u);
            else
                out.noalias() -= P(p).transpose() * coad_bar(u);
        }
        return out;
    }
};

/// \brief T, Tdot, S, Sdot and the three derivative blocks from Omega, its rates and Z, Zdot, Zddot
/// (already in \p out). \p z_qddot = Z qddot, \p zdot_qdot = Zdot qdot; \p constant_z: Zdot = Zddot = 0.
void finish_joint(const Vec6& z_qddot, const Vec6& zdot_qdot, bool constant_z, JointOutputs outputs,
                  VirtualJointKinematics& out) {
    const TangentDerivatives td(out.Omega, out.Omega_dot);
    out.T = td.T();
    out.T_dot = td.T_dot();
    const Index n = static_cast<Index>(out.Z.cols());
    if (outputs == JointOutputs::kinematics) {
        for (Index k = 0; k < n; ++k) {
            const Vec6 z = out.Z.col(k);
            out.S.col(k).noalias() = out.T * z;
            out.S_dot.col(k).noalias() = out.T_dot * z;
            if (!constant_z) out.S_dot.col(k).noalias() += out.T * out.Z_dot.col(k);
        }
        out.g = exp_twist(out.Omega);
        return;
    }
    const Mat6 d_qdot = td.D(out.Omega_dot);
    const Mat6 d_qddot = td.D(z_qddot);
    Mat6 d_sdot = td.D_dot(out.Omega_dot);
    if (!constant_z) d_sdot += td.D(zdot_qdot);
    const Mat6 d_sdot_zdot = d_qdot + out.T_dot;
    for (Index k = 0; k < n; ++k) {
        const Vec6 z = out.Z.col(k);
        out.S.col(k).noalias() = out.T * z;
        out.S_dot.col(k).noalias() = out.T_dot * z;
        out.dS_dq_qdot.col(k).noalias() = d_qdot * z;
        out.dS_dq_qddot.col(k).noalias() = d_qddot * z;
        out.dSdot_dq_qdot.col(k).noalias() = d_sdot * z;
        if (!constant_z) {
            const Vec6 z_dot = out.Z_dot.col(k);
            out.S_dot.col(k).noalias() += out.T * z_dot;
            out.dS_dq_qdot.col(k).noalias() += out.T * z_dot;
            out.dS_dq_qddot.col(k).noalias() += out.T * out.Z_ddot.col(k);
            out.dSdot_dq_qdot.col(k).noalias() += d_sdot_zdot * z_dot;
        }
    }
    out.g = exp_twist(out.Omega);
}

/// \brief out += Z^T Dt(F) Z, the tangent operator's share of eq. C29.
void add_tangent_terms(const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out) {
    const TangentDerivatives td(k.Omega);
    const Mat6 dt = td.Dt(F);
    const Index n = static_cast<Index>(k.Z.cols());
    for (Index j = 0; j < n; ++j) {
        const Vec6 column = dt * k.Z.col(j);
        out.col(j).noalias() += k.Z.transpose() * column;
    }
}

}  // namespace

void VirtualJointKinematics::resize(Index n) {
    for (Matrix6X* m : {&Z, &Z_dot, &Z_ddot, &S, &S_dot, &dS_dq_qdot, &dS_dq_qddot, &dSdot_dq_qdot})
        m->setZero(6, n);
    Omega.setZero();
    Omega_dot.setZero();
    Omega_ddot.setZero();
    T.setIdentity();
    T_dot.setZero();
    g = Pose{};
}

void evaluate_soft_joint(MagnusOrder order, double h, const Matrix6X& Phi_z1, const Matrix6X& Phi_z2,
                         const Vec6& xi_star_z1, const Vec6& xi_star_z2, const Eigen::Ref<const VectorX>& q,
                         const Eigen::Ref<const VectorX>& qdot, const Eigen::Ref<const VectorX>& qddot,
                         VirtualJointKinematics& out, JointOutputs outputs) {
    const Index n = static_cast<Index>(q.size());
    assert(out.Z.cols() == n && Phi_z1.cols() == n && qdot.size() == n && qddot.size() == n);

    if (order == MagnusOrder::second) {
        // Midpoint rule: Omega = h xi(X_a + h/2); Z = h Phi is constant in q.
        out.Omega.noalias() = h * (Phi_z1 * q);
        out.Omega += h * xi_star_z1;
        out.Omega_dot.noalias() = h * (Phi_z1 * qdot);
        out.Omega_ddot.noalias() = h * (Phi_z1 * qddot);
        out.Z = h * Phi_z1;
        out.Z_dot.setZero();
        out.Z_ddot.setZero();
        finish_joint(out.Omega_ddot, Vec6::Zero(), true, outputs, out);
        return;
    }

    assert(Phi_z2.cols() == n);
    const double c = kZannaCommutator * h * h;
    Vec6 xi1, xi2, xi1_dot, xi2_dot, xi1_ddot, xi2_ddot;
    xi1.noalias() = Phi_z1 * q;
    xi1 += xi_star_z1;
    xi2.noalias() = Phi_z2 * q;
    xi2 += xi_star_z2;
    xi1_dot.noalias() = Phi_z1 * qdot;
    xi2_dot.noalias() = Phi_z2 * qdot;
    xi1_ddot.noalias() = Phi_z1 * qddot;
    xi2_ddot.noalias() = Phi_z2 * qddot;
    const Mat6 ad1 = ad(xi1), ad2 = ad(xi2);
    const Mat6 ad1_dot = ad(xi1_dot), ad2_dot = ad(xi2_dot);
    const Mat6 ad1_ddot = ad(xi1_ddot), ad2_ddot = ad(xi2_ddot);

    // eqs. C1-C3, with Z qddot and Zdot qdot kept apart for eqs. C20 and C24.
    out.Omega = 0.5 * h * (xi1 + xi2) + c * (ad1 * xi2);
    out.Omega_dot = 0.5 * h * (xi1_dot + xi2_dot) + c * (ad1 * xi2_dot - ad2 * xi1_dot);
    const Vec6 z_qddot = 0.5 * h * (xi1_ddot + xi2_ddot) + c * (ad1 * xi2_ddot - ad2 * xi1_ddot);
    const Vec6 zdot_qdot = 2.0 * c * (ad1_dot * xi2_dot);
    out.Omega_ddot = z_qddot + zdot_qdot;

    // eqs. C5, C8, C14, column by column (fixed-size products, no temporaries).
    for (Index k = 0; k < n; ++k) {
        const Vec6 p1 = Phi_z1.col(k), p2 = Phi_z2.col(k);
        out.Z.col(k) = 0.5 * h * (p1 + p2) + c * (ad1 * p2 - ad2 * p1);
        out.Z_dot.col(k) = c * (ad1_dot * p2 - ad2_dot * p1);
        if (outputs == JointOutputs::derivatives) out.Z_ddot.col(k) = c * (ad1_ddot * p2 - ad2_ddot * p1);
    }
    finish_joint(z_qddot, zdot_qdot, false, outputs, out);
}

void evaluate_rigid_joint(const Matrix6X& Phi, const Vec6& xi_star, const Eigen::Ref<const VectorX>& q,
                          const Eigen::Ref<const VectorX>& qdot, const Eigen::Ref<const VectorX>& qddot,
                          VirtualJointKinematics& out, JointOutputs outputs) {
    assert(out.Z.cols() == q.size() && Phi.cols() == q.size() && qdot.size() == q.size() &&
           qddot.size() == q.size());
    out.Omega.noalias() = Phi * q;
    out.Omega += xi_star;
    out.Omega_dot.noalias() = Phi * qdot;
    out.Omega_ddot.noalias() = Phi * qddot;
    out.Z = Phi;
    out.Z_dot.setZero();
    out.Z_ddot.setZero();
    finish_joint(out.Omega_ddot, Vec6::Zero(), true, outputs, out);
}

void add_dST_dq_times(MagnusOrder order, double h, const Matrix6X& Phi_z1, const Matrix6X& Phi_z2,
                      const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out) {
    const Index n = static_cast<Index>(k.Z.cols());
    assert(out.rows() == n && out.cols() == n && Phi_z1.cols() == n);
    add_tangent_terms(k, F, out);
    if (order == MagnusOrder::second) return;  // Z = h Phi_mid does not depend on q

    // First line of eq. C29: the dependence of Z on q through xi_z1 and xi_z2.
    assert(Phi_z2.cols() == n);
    const double c = kZannaCommutator * h * h;
    const Vec6 transported = k.T.transpose() * F;
    const Mat6 m = coad_bar(transported);
    for (Index j = 0; j < n; ++j) {
        // Scaling the 6-vectors rather than the products keeps Eigen on its plain GEMV path.
        const Vec6 m_p2 = c * (m * Phi_z2.col(j));
        const Vec6 m_p1 = c * (m * Phi_z1.col(j));
        out.col(j).noalias() += Phi_z1.transpose() * m_p2;
        out.col(j).noalias() -= Phi_z2.transpose() * m_p1;
    }
}

void add_dST_dq_times_rigid(const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out) {
    assert(out.rows() == k.Z.cols() && out.cols() == k.Z.cols());
    add_tangent_terms(k, F, out);
}

}  // namespace soma::gvs
