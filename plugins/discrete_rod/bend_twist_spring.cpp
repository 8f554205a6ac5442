// Bend-twist spring: digest 000 §2.3 (bending, curvature derivatives) and §2.4 (twisting).
#include "bend_twist_spring.hpp"

#include "rod_frames.hpp"

#include <Eigen/Geometry>

namespace soma::rod {
namespace {

Mat3 skew(const Vec3& a) {
    Mat3 s;
    s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
    return s;
}

// Edge-space layout of the 8 variables.
constexpr int kE = 0;
constexpr int kF = 3;
constexpr int kThetaE = 6;
constexpr int kThetaF = 7;

/// Gradient of kappa = 1/2 (n_e + n_f) . kb, the common form of both curvatures:
///   kappa1: n = m2, p = dn/dtheta = -m1;   kappa2: n = -m1, p = -m2.
/// With these substitutions the digest's kappa1 formulas (§2.3) give the kappa2 ones (its
/// d2 -> -d1, m2 -> -m1 and m1 -> m2 replacements).
void curvature_gradient(const BendTwistKinematics& k, double kappa, const Vec3& n_e,
                        const Vec3& n_f, const Vec3& p_e, const Vec3& p_f, VecN<8>& g) {
    const Vec3 d = (n_e + n_f) / k.chi;
    g.segment<3>(kE) = (-kappa * k.t_tilde + k.t_f.cross(d)) / k.len_e;
    g.segment<3>(kF) = (-kappa * k.t_tilde - k.t_e.cross(d)) / k.len_f;
    g(kThetaE) = 0.5 * k.kb.dot(p_e);
    g(kThetaF) = 0.5 * k.kb.dot(p_f);
}

/// Hessian of kappa = 1/2 (n_e + n_f) . kb (digest 000 §2.3, Panetta-corrected D_ee, D_ff),
/// written into H. Every term is linear in (kappa, n, p), so a weighted sum of the Hessians of
/// kappa1 and kappa2 is this function evaluated at the weighted sums (used by the energy).
void curvature_hessian(const BendTwistKinematics& k, double kappa, const Vec3& n_e,
                       const Vec3& n_f, const Vec3& p_e, const Vec3& p_f, MatN<8>& H) {
    const double inv_e = 1.0 / k.len_e;
    const double inv_f = 1.0 / k.len_f;
    const double inv_chi = 1.0 / k.chi;
    const Vec3 d = (n_e + n_f) * inv_chi;
    const Vec3& tt = k.t_tilde;
    const Vec3 tf_x_d = k.t_f.cross(d);
    const Vec3 te_x_d = k.t_e.cross(d);

    const Mat3 I = Mat3::Identity();
    const Mat3 tt_tt = (2.0 * kappa) * tt * tt.transpose();
    const double ee = inv_e * inv_e, ff = inv_f * inv_f, ef = inv_e * inv_f;
    H.block<3, 3>(kE, kE) = ee * (tt_tt - tf_x_d * tt.transpose() - tt * tf_x_d.transpose() -
                                  kappa * inv_chi * (I - k.t_e * k.t_e.transpose()) +
                                  0.5 * k.kb * n_e.transpose());
    H.block<3, 3>(kF, kF) = ff * (tt_tt + te_x_d * tt.transpose() + tt * te_x_d.transpose() -
                                  kappa * inv_chi * (I - k.t_f * k.t_f.transpose()) +
                                  0.5 * k.kb * n_f.transpose());
    const Mat3 D_ef = ef * (-kappa * inv_chi * (I + k.t_e * k.t_f.transpose()) + tt_tt -
                            tf_x_d * tt.transpose() + tt * te_x_d.transpose() - skew(d));
    H.block<3, 3>(kE, kF) = D_ef;
    H.block<3, 3>(kF, kE) = D_ef.transpose();

    // Mixed position-twist terms (symmetric: theta does not move the reference frames).
    const double kp_e = 0.5 * k.kb.dot(p_e), kp_f = 0.5 * k.kb.dot(p_f);
    H.block<3, 1>(kE, kThetaE) = inv_e * (-kp_e * tt + inv_chi * k.t_f.cross(p_e));
    H.block<3, 1>(kE, kThetaF) = inv_e * (-kp_f * tt + inv_chi * k.t_f.cross(p_f));
    H.block<3, 1>(kF, kThetaE) = inv_f * (-kp_e * tt - inv_chi * k.t_e.cross(p_e));
    H.block<3, 1>(kF, kThetaF) = inv_f * (-kp_f * tt - inv_chi * k.t_e.cross(p_f));
    H.block<2, 6>(kThetaE, kE) = H.block<6, 2>(kE, kThetaE).transpose();

    // d2n/dtheta2 = -n.
    H(kThetaE, kThetaE) = -0.5 * k.kb.dot(n_e);
    H(kThetaF, kThetaF) = -0.5 * k.kb.dot(n_f);
    H(kThetaE, kThetaF) = 0.0;
    H(kThetaF, kThetaE) = 0.0;
}

/// Adds scale * (Hessian of the twist) to the position blocks of H (digest 000 §2.4,
/// Panetta-corrected; the twist is linear in theta).
void add_twist_hessian(const BendTwistKinematics& k, double scale, MatN<8>& H) {
    const double inv_e = 1.0 / k.len_e;
    const double inv_f = 1.0 / k.len_f;
    const double two_over_chi = 2.0 / k.chi;
    H.block<3, 3>(kE, kE) -=
        (0.5 * scale * inv_e * inv_e) * (k.kb * (k.t_e + k.t_tilde).transpose() + two_over_chi * skew(k.t_f));
    H.block<3, 3>(kF, kF) -=
        (0.5 * scale * inv_f * inv_f) * (k.kb * (k.t_f + k.t_tilde).transpose() - two_over_chi * skew(k.t_e));
    const Mat3 kb_tt = k.kb * k.t_tilde.transpose();
    H.block<3, 3>(kE, kF) += (0.5 * scale * inv_e * inv_f) * (two_over_chi * skew(k.t_e) - kb_tt);
    H.block<3, 3>(kF, kE) += (0.5 * scale * inv_e * inv_f) * (-two_over_chi * skew(k.t_f) - kb_tt);
}

void twist_gradient(const BendTwistKinematics& k, VecN<8>& g) {
    g.segment<3>(kE) = (0.5 / k.len_e) * k.kb;
    g.segment<3>(kF) = (0.5 / k.len_f) * k.kb;
    g(kThetaE) = -1.0;
    g(kThetaF) = 1.0;
}

}  // namespace

Vec3 curvature_binormal(const Vec3& e, const Vec3& f) {
    return 2.0 * e.cross(f) / (e.norm() * f.norm() + e.dot(f));
}

BendTwistKinematics bend_twist_kinematics(const BendTwistConfiguration& c) {
    BendTwistKinematics k;
    const Vec3 e = c.x_center - c.x_prev;
    const Vec3 f = c.x_next - c.x_center;
    k.len_e = e.norm();
    k.len_f = f.norm();
    k.t_e = e / k.len_e;
    k.t_f = f / k.len_f;
    material_frame(c.a1_e, c.a2_e, c.theta_e, k.m1_e, k.m2_e);
    material_frame(c.a1_f, c.a2_f, c.theta_f, k.m1_f, k.m2_f);
    k.chi = 1.0 + k.t_e.dot(k.t_f);
    k.kb = 2.0 * k.t_e.cross(k.t_f) / k.chi;
    k.t_tilde = (k.t_e + k.t_f) / k.chi;
    k.kappa1 = 0.5 * (k.m2_e + k.m2_f).dot(k.kb);
    k.kappa2 = -0.5 * (k.m1_e + k.m1_f).dot(k.kb);
    k.twist = c.theta_f - c.theta_e + c.reference_twist;
    return k;
}

void curvature1_derivatives(const BendTwistKinematics& k, VecN<8>& gradient, MatN<8>& hessian) {
    curvature_gradient(k, k.kappa1, k.m2_e, k.m2_f, -k.m1_e, -k.m1_f, gradient);
    curvature_hessian(k, k.kappa1, k.m2_e, k.m2_f, -k.m1_e, -k.m1_f, hessian);
}

void curvature2_derivatives(const BendTwistKinematics& k, VecN<8>& gradient, MatN<8>& hessian) {
    curvature_gradient(k, k.kappa2, -k.m1_e, -k.m1_f, -k.m2_e, -k.m2_f, gradient);
    curvature_hessian(k, k.kappa2, -k.m1_e, -k.m1_f, -k.m2_e, -k.m2_f, hessian);
}

void twist_derivatives(const BendTwistKinematics& k, VecN<8>& g, MatN<8>& H) {
    twist_gradient(k, g);
    H.setZero();
    add_twist_hessian(k, 1.0, H);
}

void edge_to_node_gradient(const VecN<8>& g8, VecN<11>& g11) {
    g11.segment<3>(0) = -g8.segment<3>(kE);
    g11.segment<3>(3) = g8.segment<3>(kE) - g8.segment<3>(kF);
    g11.segment<3>(6) = g8.segment<3>(kF);
    g11(9) = g8(kThetaE);
    g11(10) = g8(kThetaF);
}

void edge_to_node_hessian(const MatN<8>& H8, MatN<11>& H11) {
    // T = H8 S (8 x 11), then H11 = S^T T.
    Eigen::Matrix<double, 8, 11> T;
    T.middleCols<3>(0) = -H8.middleCols<3>(kE);
    T.middleCols<3>(3) = H8.middleCols<3>(kE) - H8.middleCols<3>(kF);
    T.middleCols<3>(6) = H8.middleCols<3>(kF);
    T.col(9) = H8.col(kThetaE);
    T.col(10) = H8.col(kThetaF);
    H11.middleRows<3>(0) = -T.middleRows<3>(kE);
    H11.middleRows<3>(3) = T.middleRows<3>(kE) - T.middleRows<3>(kF);
    H11.middleRows<3>(6) = T.middleRows<3>(kF);
    H11.row(9) = T.row(kThetaE);
    H11.row(10) = T.row(kThetaF);
}

double bend_twist_energy(const BendTwistSpring& s, const BendTwistConfiguration& config) {
    const BendTwistKinematics k = bend_twist_kinematics(config);
    const double dk1 = k.kappa1 - s.rest_kappa1;
    const double dk2 = k.kappa2 - s.rest_kappa2;
    const double dtau = k.twist - s.rest_twist;
    return 0.5 / s.voronoi_length *
           (s.bend_stiffness1 * dk1 * dk1 + s.bend_stiffness2 * dk2 * dk2 +
            s.twist_stiffness * dtau * dtau);
}

double bend_twist_energy_gradient_hessian(const BendTwistSpring& s,
                                          const BendTwistConfiguration& config,
                                          VecN<11>& gradient, MatN<11>& hessian) {
    const BendTwistKinematics k = bend_twist_kinematics(config);
    const double inv_dl = 1.0 / s.voronoi_length;
    const double dk1 = k.kappa1 - s.rest_kappa1;
    const double dk2 = k.kappa2 - s.rest_kappa2;
    const double dtau = k.twist - s.rest_twist;
    const double w1 = inv_dl * s.bend_stiffness1;
    const double w2 = inv_dl * s.bend_stiffness2;
    const double w3 = inv_dl * s.twist_stiffness;

    VecN<8> g1, g2, g3;
    curvature_gradient(k, k.kappa1, k.m2_e, k.m2_f, -k.m1_e, -k.m1_f, g1);
    curvature_gradient(k, k.kappa2, -k.m1_e, -k.m1_f, -k.m2_e, -k.m2_f, g2);
    twist_gradient(k, g3);
    const double c1 = w1 * dk1, c2 = w2 * dk2, c3 = w3 * dtau;
    const VecN<8> g8 = c1 * g1 + c2 * g2 + c3 * g3;

    // c1 Hess kappa1 + c2 Hess kappa2 in one evaluation (linearity in kappa, n, p).
    MatN<8> H8;
    curvature_hessian(k, c1 * k.kappa1 + c2 * k.kappa2, c1 * k.m2_e - c2 * k.m1_e,
                      c1 * k.m2_f - c2 * k.m1_f, -c1 * k.m1_e - c2 * k.m2_e,
                      -c1 * k.m1_f - c2 * k.m2_f, H8);
    add_twist_hessian(k, c3, H8);
    H8.noalias() += w1 * g1 * g1.transpose();
    H8.noalias() += w2 * g2 * g2.transpose();
    H8.noalias() += w3 * g3 * g3.transpose();

    edge_to_node_gradient(g8, gradient);
    edge_to_node_hessian(H8, hessian);
    return 0.5 * (w1 * dk1 * dk1 + w2 * dk2 * dk2 + w3 * dtau * dtau);
}

}  // namespace soma::rod
