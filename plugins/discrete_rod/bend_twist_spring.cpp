// Bend-twist spring: MAT-DiSMech eq. 11-14 (bending, curvature derivatives) and eq. 15-16 (twisting).
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

/// a b^T as a lazy, coefficient-wise expression. A plain `a * b.transpose()` inside a sum is
/// first evaluated into a temporary 3x3 by Eigen's outer-product kernel; this fuses it into the
/// sum. Use only inside one full expression (it refers to its operands).
template <class A, class B>
auto outer(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
    return a.lazyProduct(b.transpose());
}

// Edge-space layout of the 8 variables.
constexpr int kE = 0;
constexpr int kF = 3;
constexpr int kThetaE = 6;
constexpr int kThetaF = 7;

/// Gradient of kappa = 1/2 (n_e + n_f) . kb, the common form of both curvatures:
///   kappa1: n = m2, p = dn/dtheta = -m1;   kappa2: n = -m1, p = -m2.
/// With these substitutions the kappa1 gradient (Bergou et al. 2010, as in MAT-DiSMech's
/// reference code) gives the kappa2 one (d2 -> -d1, m2 -> -m1 and m1 -> m2).
void curvature_gradient(const BendTwistKinematics& k, double kappa, const Vec3& n_e,
                        const Vec3& n_f, const Vec3& p_e, const Vec3& p_f, VecN<8>& g) {
    const Vec3 d = (n_e + n_f) / k.chi;
    g.segment<3>(kE) = (-kappa * k.t_tilde + k.t_f.cross(d)) / k.len_e;
    g.segment<3>(kF) = (-kappa * k.t_tilde - k.t_e.cross(d)) / k.len_f;
    g(kThetaE) = 0.5 * k.kb.dot(p_e);
    g(kThetaF) = 0.5 * k.kb.dot(p_f);
}

/// Hessian of kappa = 1/2 (n_e + n_f) . kb (MAT-DiSMech eq. 12-13; the reference code's Panetta-corrected D_ee, D_ff),
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
    const Mat3 tt_tt = (2.0 * kappa) * outer(tt, tt);
    const double ee = inv_e * inv_e, ff = inv_f * inv_f, ef = inv_e * inv_f;
    const double kappa_chi = kappa * inv_chi;
    H.block<3, 3>(kE, kE) = ee * (tt_tt - outer(tf_x_d, tt) - outer(tt, tf_x_d) -
                                  kappa_chi * (I - outer(k.t_e, k.t_e)) +
                                  0.5 * outer(k.kb, n_e));
    H.block<3, 3>(kF, kF) = ff * (tt_tt + outer(te_x_d, tt) + outer(tt, te_x_d) -
                                  kappa_chi * (I - outer(k.t_f, k.t_f)) +
                                  0.5 * outer(k.kb, n_f));
    const Mat3 D_ef = ef * (-kappa_chi * (I + outer(k.t_e, k.t_f)) + tt_tt -
                            outer(tf_x_d, tt) + outer(tt, te_x_d) - skew(d));
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

/// Adds scale * (Hessian of the twist) to the position blocks of H (tau of MAT-DiSMech eq. 15,
/// Panetta-corrected; the twist is linear in theta).
void add_twist_hessian(const BendTwistKinematics& k, double scale, MatN<8>& H) {
    const double inv_e = 1.0 / k.len_e;
    const double inv_f = 1.0 / k.len_f;
    const double two_over_chi = 2.0 / k.chi;
    H.block<3, 3>(kE, kE) -= (0.5 * scale * inv_e * inv_e) *
                             (outer(k.kb, k.t_e + k.t_tilde) + two_over_chi * skew(k.t_f));
    H.block<3, 3>(kF, kF) -= (0.5 * scale * inv_f * inv_f) *
                             (outer(k.kb, k.t_f + k.t_tilde) - two_over_chi * skew(k.t_e));
    const Mat3 kb_tt = outer(k.kb, k.t_tilde);
    const double ef = 0.5 * scale * inv_e * inv_f;
    H.block<3, 3>(kE, kF) += ef * (two_over_chi * skew(k.t_e) - kb_tt);
    H.block<3, 3>(kF, kE) += ef * (-two_over_chi * skew(k.t_f) - kb_tt);
}

void twist_gradient(const BendTwistKinematics& k, VecN<8>& g) {
    g.segment<3>(kE) = (0.5 / k.len_e) * k.kb;
    g.segment<3>(kF) = (0.5 / k.len_f) * k.kb;
    g(kThetaE) = -1.0;
    g(kThetaF) = 1.0;
}

/// The three strain measures of the energy (MAT-DiSMech eq. 12, 13 and 15) at one configuration: their
/// edge-space gradients g_i and weights, with E = 1/2 sum_i w_i (s_i - s_i_bar)^2, w_i the
/// stiffness over dl and c_i = w_i (s_i - s_i_bar). Shared by the gradient-only and the Hessian
/// paths, so both assemble the same gradient, bit for bit:
///     g8 = sum_i c_i g_i,        H8 = sum_i (w_i g_i g_i^T + c_i Hess s_i).
struct EnergyTerms {
    VecN<8> g1, g2, g3;  ///< grad kappa1, grad kappa2, grad tau
    double w1 = 0.0, w2 = 0.0, w3 = 0.0;
    double c1 = 0.0, c2 = 0.0, c3 = 0.0;
    double energy = 0.0;

    VecN<8> gradient() const { return c1 * g1 + c2 * g2 + c3 * g3; }
};

EnergyTerms energy_terms(const BendTwistSpring& s, const BendTwistKinematics& k) {
    EnergyTerms t;
    const double inv_dl = 1.0 / s.voronoi_length;
    const double dk1 = k.kappa1 - s.rest_kappa1;
    const double dk2 = k.kappa2 - s.rest_kappa2;
    const double dtau = k.twist - s.rest_twist;
    t.w1 = inv_dl * s.bend_stiffness1;
    t.w2 = inv_dl * s.bend_stiffness2;
    t.w3 = inv_dl * s.twist_stiffness;
    curvature_gradient(k, k.kappa1, k.m2_e, k.m2_f, -k.m1_e, -k.m1_f, t.g1);
    curvature_gradient(k, k.kappa2, -k.m1_e, -k.m1_f, -k.m2_e, -k.m2_f, t.g2);
    twist_gradient(k, t.g3);
    t.c1 = t.w1 * dk1;
    t.c2 = t.w2 * dk2;
    t.c3 = t.w3 * dtau;
    t.energy = 0.5 * (t.w1 * dk1 * dk1 + t.w2 * dk2 * dk2 + t.w3 * dtau * dtau);
    return t;
}

/// Edge-space Hessian of the energy, H8 = sum_i (w_i g_i g_i^T + c_i Hess s_i).
void edge_energy_hessian(const BendTwistKinematics& k, const EnergyTerms& t, MatN<8>& H8) {
    // c1 Hess kappa1 + c2 Hess kappa2 in one evaluation (linearity in kappa, n, p).
    curvature_hessian(k, t.c1 * k.kappa1 + t.c2 * k.kappa2, t.c1 * k.m2_e - t.c2 * k.m1_e,
                      t.c1 * k.m2_f - t.c2 * k.m1_f, -t.c1 * k.m1_e - t.c2 * k.m2_e,
                      -t.c1 * k.m1_f - t.c2 * k.m2_f, H8);
    add_twist_hessian(k, t.c3, H8);
    // Gauss-Newton part: a rank-3 update, one column at a time (Eigen's outer-product kernel
    // does three separate scaled passes over the 8x8).
    const VecN<8> a1 = t.w1 * t.g1, a2 = t.w2 * t.g2, a3 = t.w3 * t.g3;
    for (int j = 0; j < 8; ++j) H8.col(j) += t.g1(j) * a1 + t.g2(j) * a2 + t.g3(j) * a3;
}

/// Spin gradient omega = d psi / de of a reference frame transported from the source tangent s
/// to t = e/|e| (bend_twist_spring.hpp), and its derivative D = d omega / de:
///     omega = (t x s) / (|e| c),   c = 1 + s.t,   P = I - t t^T,
///     D = -1/(|e|^2 c) ( [s]x P - (s x t)(P s)^T / c - (s x t) t^T ).
void transport_spin(const Vec3& t, const Vec3& s, double length, Vec3& omega, Mat3* D) {
    const double c = 1.0 + s.dot(t);
    const double inv = 1.0 / (length * c);
    const Vec3 w = s.cross(t);
    omega = -inv * w;
    if (D == nullptr) return;
    const Mat3 P = Mat3::Identity() - outer(t, t);
    const Vec3 Ps = P * s;
    *D = (-inv / length) * (skew(s) * P - outer(w, Ps) / c - outer(w, t));
}

/// The exact derivatives for frames transported from k.s_e, k.s_f (bend_twist_spring.hpp):
/// g <- S^T g, H <- S^T H S + g_theta_e D_e + g_theta_f D_f, with S the identity plus
/// omega_e^T in row theta_e (columns e) and omega_f^T in row theta_f (columns f).
void apply_transport_spin(const BendTwistKinematics& k, VecN<8>& g, MatN<8>* H) {
    Vec3 omega_e, omega_f;
    Mat3 D_e, D_f;
    transport_spin(k.t_e, k.s_e, k.len_e, omega_e, H ? &D_e : nullptr);
    transport_spin(k.t_f, k.s_f, k.len_f, omega_f, H ? &D_f : nullptr);
    const double g_te = g(kThetaE), g_tf = g(kThetaF);
    if (H != nullptr) {
        MatN<8>& h = *H;
        // H S: the spin columns add to the position columns.
        for (int j = 0; j < 3; ++j) {
            h.col(kE + j) += omega_e(j) * h.col(kThetaE);
            h.col(kF + j) += omega_f(j) * h.col(kThetaF);
        }
        // S^T (H S): the theta rows add to the position rows.
        for (int i = 0; i < 3; ++i) {
            h.row(kE + i) += omega_e(i) * h.row(kThetaE);
            h.row(kF + i) += omega_f(i) * h.row(kThetaF);
        }
        h.block<3, 3>(kE, kE) += g_te * D_e;
        h.block<3, 3>(kF, kF) += g_tf * D_f;
    }
    g.segment<3>(kE) += g_te * omega_e;
    g.segment<3>(kF) += g_tf * omega_f;
}

/// H <- 1/2 (H + H^T), in place.
void symmetrize(MatN<8>& H) {
    for (int j = 0; j < 8; ++j)
        for (int i = 0; i < j; ++i) H(i, j) = H(j, i) = 0.5 * (H(i, j) + H(j, i));
}

}  // namespace

Vec3 curvature_binormal(const Vec3& e, const Vec3& f) {
    return 2.0 * e.cross(f) / (e.norm() * f.norm() + e.dot(f));
}

BendTwistKinematics bend_twist_kinematics(const BendTwistConfiguration& c) {
    EdgeKinematics e, f;
    const Vec3 edge_e = c.x_center - c.x_prev;
    const Vec3 edge_f = c.x_next - c.x_center;
    e.length = edge_e.norm();
    f.length = edge_f.norm();
    e.tangent = edge_e / e.length;
    f.tangent = edge_f / f.length;
    material_frame(c.a1_e, c.a2_e, c.theta_e, e.m1, e.m2);
    material_frame(c.a1_f, c.a2_f, c.theta_f, f.m1, f.m2);
    BendTwistKinematics k = bend_twist_kinematics(e, f, c.theta_f - c.theta_e + c.reference_twist);
    if (c.source_e != Vec3::Zero()) k.s_e = c.source_e;
    if (c.source_f != Vec3::Zero()) k.s_f = c.source_f;
    return k;
}

BendTwistKinematics bend_twist_kinematics(const EdgeKinematics& e, const EdgeKinematics& f,
                                          double twist) {
    BendTwistKinematics k;
    k.len_e = e.length;
    k.len_f = f.length;
    k.t_e = e.tangent;
    k.t_f = f.tangent;
    k.s_e = e.tangent;
    k.s_f = f.tangent;
    k.m1_e = e.m1;
    k.m2_e = e.m2;
    k.m1_f = f.m1;
    k.m2_f = f.m2;
    k.chi = 1.0 + k.t_e.dot(k.t_f);
    k.kb = 2.0 * k.t_e.cross(k.t_f) / k.chi;
    k.t_tilde = (k.t_e + k.t_f) / k.chi;
    k.kappa1 = 0.5 * (k.m2_e + k.m2_f).dot(k.kb);
    k.kappa2 = -0.5 * (k.m1_e + k.m1_f).dot(k.kb);
    k.twist = twist;
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
    // S is sparse (e = x_c - x_p, f = x_n - x_c, the thetas unchanged), so S^T H8 S is sums and
    // differences of blocks: with A = H_ee, B = H_ef, C = H_fe, D = H_ff (3x3),
    //     [ A      B - A            -B    ]
    //     [ C - A  (A + D) - (B + C)  B - D ]   over (x_p, x_c, x_n),
    //     [ -C     C - D             D    ]
    // and the theta rows/columns mapped the same way. Written so that a symmetric H8 gives an
    // exactly symmetric H11 (B + C rounds as C + B).
    const auto A = H8.block<3, 3>(kE, kE);
    const auto B = H8.block<3, 3>(kE, kF);
    const auto C = H8.block<3, 3>(kF, kE);
    const auto D = H8.block<3, 3>(kF, kF);
    H11.block<3, 3>(0, 0) = A;
    H11.block<3, 3>(0, 3) = B - A;
    H11.block<3, 3>(0, 6) = -B;
    H11.block<3, 3>(3, 0) = C - A;
    H11.block<3, 3>(3, 3) = (A + D) - (B + C);
    H11.block<3, 3>(3, 6) = B - D;
    H11.block<3, 3>(6, 0) = -C;
    H11.block<3, 3>(6, 3) = C - D;
    H11.block<3, 3>(6, 6) = D;
    const auto col_e = H8.block<3, 2>(kE, kThetaE);
    const auto col_f = H8.block<3, 2>(kF, kThetaE);
    H11.block<3, 2>(0, 9) = -col_e;
    H11.block<3, 2>(3, 9) = col_e - col_f;
    H11.block<3, 2>(6, 9) = col_f;
    const auto row_e = H8.block<2, 3>(kThetaE, kE);
    const auto row_f = H8.block<2, 3>(kThetaE, kF);
    H11.block<2, 3>(9, 0) = -row_e;
    H11.block<2, 3>(9, 3) = row_e - row_f;
    H11.block<2, 3>(9, 6) = row_f;
    H11.block<2, 2>(9, 9) = H8.block<2, 2>(kThetaE, kThetaE);
}

double bend_twist_energy(const BendTwistSpring& s, const BendTwistConfiguration& config) {
    return bend_twist_energy(s, bend_twist_kinematics(config));
}

double bend_twist_energy(const BendTwistSpring& s, const BendTwistKinematics& k) {
    const double dk1 = k.kappa1 - s.rest_kappa1;
    const double dk2 = k.kappa2 - s.rest_kappa2;
    const double dtau = k.twist - s.rest_twist;
    return 0.5 / s.voronoi_length *
           (s.bend_stiffness1 * dk1 * dk1 + s.bend_stiffness2 * dk2 * dk2 +
            s.twist_stiffness * dtau * dtau);
}

double bend_twist_energy_gradient(const BendTwistSpring& s, const BendTwistKinematics& k,
                                  VecN<11>& gradient) {
    const EnergyTerms t = energy_terms(s, k);
    VecN<8> g8 = t.gradient();
    apply_transport_spin(k, g8, nullptr);
    edge_to_node_gradient(g8, gradient);
    return t.energy;
}

double bend_twist_energy_gradient(const BendTwistSpring& s, const BendTwistConfiguration& config,
                                  VecN<11>& gradient) {
    return bend_twist_energy_gradient(s, bend_twist_kinematics(config), gradient);
}

double bend_twist_energy_gradient_hessian(const BendTwistSpring& s, const BendTwistKinematics& k,
                                          VecN<11>& gradient, MatN<11>& hessian) {
    const EnergyTerms t = energy_terms(s, k);
    MatN<8> H8;
    edge_energy_hessian(k, t, H8);
    VecN<8> g8 = t.gradient();
    apply_transport_spin(k, g8, &H8);
    edge_to_node_gradient(g8, gradient);
    edge_to_node_hessian(H8, hessian);
    return t.energy;
}

double bend_twist_energy_gradient_hessian(const BendTwistSpring& s,
                                          const BendTwistConfiguration& config,
                                          VecN<11>& gradient, MatN<11>& hessian) {
    return bend_twist_energy_gradient_hessian(s, bend_twist_kinematics(config), gradient, hessian);
}

double bend_twist_energy_gradient_symmetric_hessian(const BendTwistSpring& s,
                                                    const BendTwistKinematics& k,
                                                    VecN<11>& gradient, MatN<11>& hessian) {
    const EnergyTerms t = energy_terms(s, k);
    MatN<8> H8;
    edge_energy_hessian(k, t, H8);
    VecN<8> g8 = t.gradient();
    apply_transport_spin(k, g8, &H8);
    symmetrize(H8);
    edge_to_node_gradient(g8, gradient);
    edge_to_node_hessian(H8, hessian);
    return t.energy;
}

}  // namespace soma::rod
