#pragma once
/// \file screw_theory.hpp
/// \brief The SE(3) and se(3) operators of the GVS model (Mathew et al., Appendices A and B): poses,
/// the adjoint and coadjoint maps, the exponential and logarithm of SE(3), and the tangent
/// operator T(Omega) with its time derivative and inverse.
///
/// Twists and screw strains are V = [w; v] and wrenches F = [m; f], angular part first. A pose
/// g = [[R, p], [0, 1]] maps a body's local coordinates to its parent's. The tangent operator is
/// the one of (Mathew et al., eq. B14): d/dt exp(Omega^) exp(-Omega^) = (T(Omega) Omegadot)^, so
/// T(Omega) = sum_k ad_Omega^k / (k + 1)!, which the minimal polynomial
/// x (x^2 + theta^2)^2 of ad_Omega reduces to four powers (Mathew et al., Appendix A):
///
///     T(Omega) = I_6 + sum_{r=1}^{4} f_r(theta) ad_Omega^r,   theta = |w|.
///
/// The closed forms of exp, T, T^{-1} and the coefficients' derivatives cancel catastrophically
/// as theta -> 0 (a straight rod has theta = 0 exactly), so every coefficient function is also
/// evaluated by its Taylor series in theta^2 below detail::kSeriesAngle.
///
/// Everything is fixed-size and inline: nothing here allocates.

#include "gvs_types.hpp"
#include "soma/rotation.hpp"
#include "soma/types.hpp"

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cmath>

namespace soma::gvs {

/// \brief A rigid transformation g = [[R, p], [0, 1]] of SE(3).
struct Pose {
    Mat3 R = Mat3::Identity();
    Vec3 p = Vec3::Zero();
};

/// \brief The product a b of two poses.
inline Pose compose(const Pose& a, const Pose& b) { return Pose{a.R * b.R, a.p + a.R * b.p}; }

/// \brief g^{-1} = [[R^T, -R^T p], [0, 1]].
inline Pose inverse(const Pose& g) {
    Pose out;
    out.R = g.R.transpose();
    out.p = -(out.R * g.p);
    return out;
}

/// \brief The 4 x 4 homogeneous matrix of \p g.
inline Eigen::Matrix4d to_matrix(const Pose& g) {
    Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
    m.topLeftCorner<3, 3>() = g.R;
    m.topRightCorner<3, 1>() = g.p;
    return m;
}

/// \brief [[a, b], [c, d]] from four 3 x 3 blocks, block by block (GCC leaves Eigen's comma
/// initializer out of line in the inverse dynamics' loops).
inline Mat6 from_blocks(const Mat3& a, const Mat3& b, const Mat3& c, const Mat3& d) {
    Mat6 m;
    m.topLeftCorner<3, 3>() = a;
    m.topRightCorner<3, 3>() = b;
    m.bottomLeftCorner<3, 3>() = c;
    m.bottomRightCorner<3, 3>() = d;
    return m;
}

/// \brief V^ = [[w~, v], [0, 0]] in se(3) (Mathew et al., Appendix A).
inline Eigen::Matrix4d hat(const Vec6& V) {
    Eigen::Matrix4d m = Eigen::Matrix4d::Zero();
    m.topLeftCorner<3, 3>() = skew(V.head<3>());
    m.topRightCorner<3, 1>() = V.tail<3>();
    return m;
}

/// \brief ad_V = [[w~, 0], [v~, w~]], the Lie bracket: (ad_{V1} V2)^ = [V1^, V2^] (Mathew et al., Appendix A).
inline Mat6 ad(const Vec6& V) {
    const Mat3 w = skew(V.head<3>());
    return from_blocks(w, Mat3::Zero(), skew(V.tail<3>()), w);
}

/// \brief ad*_V = [[w~, v~], [0, w~]] = -ad_V^T (Mathew et al., eq. B1).
inline Mat6 coad(const Vec6& V) {
    const Mat3 w = skew(V.head<3>());
    return from_blocks(w, skew(V.tail<3>()), Mat3::Zero(), w);
}

/// \brief adbar*_V = -[[w~, v~], [v~, 0]], which swaps the arguments of ad*:
/// ad*_{V1} V2 = adbar*_{V2} V1 (Mathew et al., eq. B3). It is antisymmetric.
inline Mat6 coad_bar(const Vec6& V) {
    const Mat3 w = skew(V.head<3>());
    const Mat3 v = skew(V.tail<3>());
    return from_blocks(Mat3(-w), Mat3(-v), Mat3(-v), Mat3::Zero());
}

/// \brief Ad_g = [[R, 0], [p~ R, R]]: a twist of the local frame in the parent frame.
inline Mat6 Ad(const Pose& g) {
    return from_blocks(g.R, Mat3::Zero(), Mat3(skew(g.p) * g.R), g.R);
}

/// \brief Ad_{g^{-1}} = Ad_g^{-1} = [[R^T, 0], [-R^T p~, R^T]].
inline Mat6 Ad_inverse(const Pose& g) {
    return from_blocks(g.R.transpose(), Mat3::Zero(), Mat3(-g.R.transpose() * skew(g.p)), g.R.transpose());
}

/// \brief Ad*_g = [[R, p~ R], [0, R]] = Ad_g^{-T}: a wrench of the local frame in the parent frame.
inline Mat6 coAd(const Pose& g) {
    return from_blocks(g.R, Mat3(skew(g.p) * g.R), Mat3::Zero(), g.R);
}

/// \brief Ad^{-*}_g = (Ad*_g)^{-1} = Ad_g^T = [[R^T, -R^T p~], [0, R^T]].
inline Mat6 coAd_inverse(const Pose& g) {
    return from_blocks(g.R.transpose(), Mat3(-g.R.transpose() * skew(g.p)), Mat3::Zero(), g.R.transpose());
}

/// \brief f_r(theta), f_r'(theta)/theta and f_r''(theta), r = 1..4, the coefficients of the
/// tangent operator (Mathew et al., Appendix A). f_r'/theta is stored rather than f_r' because
/// every derivative formula multiplies f_r' by 1/theta (theta_dot = w . w_dot / theta), and the
/// quotient is smooth at theta = 0 where theta itself is not differentiable.
struct TangentCoefficients {
    std::array<double, 4> f, df_over_theta, d2f;
};

namespace detail {

/// \brief Below this rotation angle (rad) the coefficient functions use their Taylor series in
/// theta^2, above it their closed forms.
///
/// The closed forms divide a cancelling numerator by up to theta^7 (f_4''), so their round-off
/// grows as theta falls: measured against 50-digit arithmetic, f_r, f_r'/theta, f_r'' err by
/// 1e-11 at theta = 0.25, 1e-15 on [1, 1.4], 5e-16 at 1.6 and 2e-17 at 2. The series of T's
/// coefficients converge like theta^2j / (2j + 9)!: with 12 terms they stay within 4e-17 up to
/// theta = 2.4 (7e-15 at 3, where truncation shows). The series of T^{-1} and of the SE(3)
/// logarithm (Bernoulli numbers, radius 2 pi) need 16 terms for 1e-17 at 2. So at the switch both
/// branches are accurate to about 2e-17 and agree to round-off (tested).
inline constexpr double kSeriesAngle = 2.0;

/// 1/k!, k = 0..25. k! is exact in double up to 22!, so these are correctly rounded up to k = 22
/// and within an ulp beyond (terms below 1e-22 there).
inline constexpr std::array<double, 26> kInverseFactorial = [] {
    std::array<double, 26> out{};
    double factorial = 1.0;
    for (int k = 0; k < 26; ++k) {
        if (k > 0) factorial *= static_cast<double>(k);
        out[static_cast<std::size_t>(k)] = 1.0 / factorial;
    }
    return out;
}();

/// Taylor coefficients of f_r in s = theta^2, f_r = sum_j kTangentTaylor[r-1][j] s^j: the
/// expansion of the closed forms with cos = sum C_m theta^2m, sin/theta = sum S_m theta^2m,
/// C_m = (-1)^m/(2m)!, S_m = (-1)^m/(2m+1)!, gives
/// f1: (-4 C_{j+1} - S_j)/2, f2: (C_{j+1} - 5 S_{j+1})/2, f3: (-2 C_{j+2} - S_{j+1})/2,
/// f4: (C_{j+2} - 3 S_{j+2})/2. Every coefficient is +-1/N; computed exactly (rationals), then
/// rounded to double.
inline constexpr int kTangentSeriesTerms = 12;
inline constexpr std::array<std::array<double, 14>, 4> kTangentTaylor = {{
    {1.0 / 2.0, 0.0, -1.0 / 720.0, 1.0 / 20160.0, -1.0 / 1209600.0, 1.0 / 119750400.0, -1.0 / 17435658240.0,
     1.0 / 3487131648000.0, -1.0 / 914624815104000.0, 3.288254098649732e-18, -8.007112253205516e-21,
     1.6117375710961184e-23, -2.7275558895472774e-26, 3.9358670844838056e-29},
    {1.0 / 6.0, 0.0, -1.0 / 5040.0, 1.0 / 181440.0, -1.0 / 13305600.0, 1.0 / 1556755200.0, -1.0 / 261534873600.0,
     1.0 / 59281238016000.0, -5.75444467263703e-17, 1.565835285071301e-19, -3.4813531535676156e-22,
     6.446950284384473e-25, -1.01020588501751e-27, 1.357195546373726e-30},
    {1.0 / 24.0, -1.0 / 360.0, 1.0 / 13440.0, -1.0 / 907200.0, 1.0 / 95800320.0, -1.0 / 14529715200.0,
     1.0 / 2988969984000.0, -1.0 / 800296713216000.0, 3.6992858609809485e-18, -8.896791392450573e-21,
     1.77291132820573e-23, -2.975515515869757e-26, 4.263856008190789e-29, -5.277982680342268e-32},
    {1.0 / 120.0, -1.0 / 2520.0, 1.0 / 120960.0, -1.0 / 9979200.0, 1.0 / 1245404160.0, -1.0 / 217945728000.0,
     1.0 / 50812489728000.0, -6.576508197299464e-17, 1.7615646957052136e-19, -3.868170170630684e-22,
     7.091645312822921e-25, -1.1020427836554655e-27, 1.4702951752382032e-30, -1.7025750581749252e-33},
}};

/// Taylor coefficients in s = theta^2 of L(theta) = (1 - (theta/2) cot(theta/2)) / theta^2:
/// l_j = (-1)^j B_{2j+2} / (2j+2)! (Bernoulli numbers), exact rationals rounded to double.
inline constexpr int kBernoulliSeriesTerms = 16;
inline constexpr std::array<double, 17> kLogTaylor = {
    0.08333333333333333,    0.001388888888888889,   3.306878306878307e-05,  8.267195767195768e-07,
    2.08767569878681e-08,   5.284190138687493e-10,  1.3382536530684679e-11, 3.3896802963225827e-13,
    8.586062056277845e-15,  2.174868698558062e-16,  5.5090028283602295e-18, 1.3954464685812522e-19,
    3.534707039629467e-21,  8.953517427037546e-23,  2.267952452337683e-24,  5.744790668872202e-26,  1.455172475614865e-27};

/// \brief The tangent coefficients plus g_r = (f_r'/theta)'/theta = (f_r'' - f_r'/theta)/theta^2,
/// which the time derivative of dT/dOmega needs (d/dt (f_r'/theta) = g_r w . w_dot); smooth at 0.
struct TangentCoefficientsExtended {
    TangentCoefficients base;
    std::array<double, 4> g;
};

/// \brief The Taylor-series branch (accurate for theta < kSeriesAngle; exact at theta = 0).
inline TangentCoefficientsExtended tangent_coefficients_series(double theta) {
    const double s = theta * theta;
    TangentCoefficientsExtended out{};
    for (std::size_t r = 0; r < 4; ++r) {
        const auto& c = kTangentTaylor[r];
        double f = 0.0, h = 0.0, d2 = 0.0, g = 0.0;
        // f = sum c_j s^j, f'/theta = sum 2(j+1) c_{j+1} s^j, f'' = sum 2(j+1)(2j+1) c_{j+1} s^j,
        // g = sum 4(j+1)(j+2) c_{j+2} s^j (term-wise derivatives of the even series).
        for (int j = kTangentSeriesTerms - 1; j >= 0; --j) {
            const auto u = static_cast<std::size_t>(j);
            const double jj = static_cast<double>(j);
            f = f * s + c[u];
            h = h * s + 2.0 * (jj + 1.0) * c[u + 1];
            d2 = d2 * s + 2.0 * (jj + 1.0) * (2.0 * jj + 1.0) * c[u + 1];
            g = g * s + 4.0 * (jj + 1.0) * (jj + 2.0) * c[u + 2];
        }
        out.base.f[r] = f;
        out.base.df_over_theta[r] = h;
        out.base.d2f[r] = d2;
        out.g[r] = g;
    }
    return out;
}

/// \brief The closed forms (Mathew et al., Appendix A; accurate for theta >= kSeriesAngle).
inline TangentCoefficientsExtended tangent_coefficients_closed(double theta) {
    const double t = theta, t2 = t * t, t3 = t2 * t, t4 = t2 * t2;
    const double sn = std::sin(t), cs = std::cos(t);
    TangentCoefficientsExtended out{};
    auto& c = out.base;
    c.f[0] = (4.0 - 4.0 * cs - t * sn) / (2.0 * t2);
    c.f[1] = (4.0 * t - 5.0 * sn + t * cs) / (2.0 * t3);
    c.f[2] = (2.0 - 2.0 * cs - t * sn) / (2.0 * t4);
    c.f[3] = (2.0 * t - 3.0 * sn + t * cs) / (2.0 * t4 * t);
    c.df_over_theta[0] = (-8.0 + (8.0 - t2) * cs + 5.0 * t * sn) / (2.0 * t4);
    c.df_over_theta[1] = (-8.0 * t + (15.0 - t2) * sn - 7.0 * t * cs) / (2.0 * t4 * t);
    c.df_over_theta[2] = c.df_over_theta[0] / t2;  // f3' = f1'/theta^2
    c.df_over_theta[3] = c.df_over_theta[1] / t2;  // f4' = f2'/theta^2
    c.d2f[0] = (24.0 - (24.0 - 6.0 * t2) * cs - (18.0 * t - t3) * sn) / (2.0 * t4);
    c.d2f[1] = (24.0 * t - (60.0 - 9.0 * t2) * sn + (36.0 * t - t3) * cs) / (2.0 * t4 * t);
    c.d2f[2] = (40.0 - (40.0 - 8.0 * t2) * cs - (28.0 * t - t3) * sn) / (2.0 * t4 * t2);
    c.d2f[3] = (40.0 * t - (90.0 - 11.0 * t2) * sn + (50.0 * t - t3) * cs) / (2.0 * t4 * t3);
    for (std::size_t r = 0; r < 4; ++r) out.g[r] = (c.d2f[r] - c.df_over_theta[r]) / t2;
    return out;
}

/// \brief Both branches, switched at kSeriesAngle.
inline TangentCoefficientsExtended tangent_coefficients_extended(double theta) {
    return theta < kSeriesAngle ? tangent_coefficients_series(theta) : tangent_coefficients_closed(theta);
}

/// \brief ad_Omega = [[W, 0], [V, W]] with its powers ad^r = [[W^r, 0], [L_r, W^r]], r = 0..4,
/// built from 3 x 3 blocks (L_1 = V, L_{r+1} = V W^r + W L_r) and, when asked, their time
/// derivatives for a given Omega_dot (the paper's (ad^r)dot, Mathew et al., Appendix A).
struct AdPowers {
    std::array<Mat6, 5> power;
    std::array<Mat6, 5> power_dot;  ///< set by compute_dot only
};

inline Mat6 lower_block_triangular(const Mat3& diagonal, const Mat3& lower) {
    return from_blocks(diagonal, Mat3::Zero(), lower, diagonal);
}

inline void compute_ad_powers(const Vec6& Omega, AdPowers& out) {
    const Mat3 w = skew(Omega.head<3>());
    const Mat3 v = skew(Omega.tail<3>());
    Mat3 wr = w, lr = v;
    out.power[0].setIdentity();
    out.power[1] = lower_block_triangular(wr, lr);
    for (std::size_t r = 2; r <= 4; ++r) {
        const Mat3 l_next = v * wr + w * lr;
        wr = w * wr;
        lr = l_next;
        out.power[r] = lower_block_triangular(wr, lr);
    }
}

inline void compute_ad_powers(const Vec6& Omega, const Vec6& Omega_dot, AdPowers& out) {
    const Mat3 w = skew(Omega.head<3>()), v = skew(Omega.tail<3>());
    const Mat3 wd = skew(Omega_dot.head<3>()), vd = skew(Omega_dot.tail<3>());
    Mat3 wr = w, lr = v, wr_dot = wd, lr_dot = vd;
    out.power[0].setIdentity();
    out.power_dot[0].setZero();
    out.power[1] = lower_block_triangular(wr, lr);
    out.power_dot[1] = lower_block_triangular(wr_dot, lr_dot);
    for (std::size_t r = 2; r <= 4; ++r) {
        const Mat3 l_next = v * wr + w * lr;
        const Mat3 l_next_dot = vd * wr + v * wr_dot + wd * lr + w * lr_dot;
        const Mat3 w_next_dot = wd * wr + w * wr_dot;
        wr = w * wr;
        lr = l_next;
        wr_dot = w_next_dot;
        lr_dot = l_next_dot;
        out.power[r] = lower_block_triangular(wr, lr);
        out.power_dot[r] = lower_block_triangular(wr_dot, lr_dot);
    }
}

/// \brief L(theta) = (1 - (theta/2) cot(theta/2)) / theta^2 and dL/d(theta^2), the coefficients of
/// the inverses of the SO(3) and SE(3) exponential Jacobians.
struct LogCoefficients {
    double L, dL_ds;
};

inline LogCoefficients log_coefficients(double theta) {
    const double s = theta * theta;
    LogCoefficients out{0.0, 0.0};
    if (theta < kSeriesAngle) {
        for (int j = kBernoulliSeriesTerms - 1; j >= 0; --j) {
            const auto u = static_cast<std::size_t>(j);
            out.L = out.L * s + kLogTaylor[u];
            out.dL_ds = out.dL_ds * s + (static_cast<double>(j) + 1.0) * kLogTaylor[u + 1];
        }
        return out;
    }
    // 1 - cos = 2 sin^2(theta/2) avoids a cancelling difference in the denominators.
    const double half_sin = std::sin(0.5 * theta);
    const double one_minus_cos = 2.0 * half_sin * half_sin;
    out.L = (1.0 - theta * std::sin(theta) / (2.0 * one_minus_cos)) / s;
    // b = 1/theta^4 - (theta + sin)/(4 theta^3 (1 - cos)) of T^{-1} below, and b = -dL/ds.
    out.dL_ds = -(1.0 / (s * s) - (theta + std::sin(theta)) / (4.0 * s * theta * one_minus_cos));
    return out;
}

}  // namespace detail

/// \brief f_r, f_r'/theta and f_r'' of the tangent operator (Mathew et al., Appendix A), by their
/// closed forms for theta >= detail::kSeriesAngle and their Taylor series below.
inline TangentCoefficients tangent_coefficients(double theta) {
    return detail::tangent_coefficients_extended(theta).base;
}

/// \brief exp(Omega^) = I + Omega^ + (1 - cos)/theta^2 Omega^^2 + (theta - sin)/theta^3 Omega^^3
/// (Mathew et al., Appendix A): R = I + a w~ + b w~^2, p = (I + b w~ + c w~^2) v with
/// a = sin/theta, b = (1 - cos)/theta^2, c = (theta - sin)/theta^3; series below kSeriesAngle.
inline Pose exp_twist(const Vec6& Omega) {
    const Vec3 w = Omega.head<3>(), v = Omega.tail<3>();
    const double s = w.squaredNorm();
    const double theta = std::sqrt(s);
    double a = 0.0, b = 0.0, c = 0.0;
    if (theta < detail::kSeriesAngle) {
        // a = sum (-1)^j s^j/(2j+1)!, b = ... /(2j+2)!, c = ... /(2j+3)!; 11 terms: truncation
        // below 4^11/25! = 3e-19 at the switch.
        for (int j = 10; j >= 0; --j) {
            const double sign = (j % 2 == 0) ? 1.0 : -1.0;
            const auto k = static_cast<std::size_t>(2 * j);
            a = a * s + sign * detail::kInverseFactorial[k + 1];
            b = b * s + sign * detail::kInverseFactorial[k + 2];
            c = c * s + sign * detail::kInverseFactorial[k + 3];
        }
    } else {
        const double sn = std::sin(theta);
        const double half_sin = std::sin(0.5 * theta);
        a = sn / theta;
        b = 2.0 * half_sin * half_sin / s;  // (1 - cos)/theta^2 without cancellation
        c = (theta - sn) / (s * theta);
    }
    const Mat3 W = skew(w);
    const Vec3 wv = w.cross(v);
    Pose g;
    g.R = Mat3::Identity() + a * W + b * (W * W);
    g.p = v + b * wv + c * w.cross(wv);
    return g;
}

/// \brief The twist Omega with exp_twist(Omega) = g, rotation angle |w| <= pi: w is the rotation
/// vector of R, and v = V(w)^{-1} p with V^{-1} = I - w~/2 + L(theta) w~^2,
/// L = (1 - (theta/2) cot(theta/2))/theta^2 (series below kSeriesAngle).
inline Vec6 log_pose(const Pose& g) {
    const Vec3 w = rotation_log(Quaternion(g.R));
    const double L = detail::log_coefficients(w.norm()).L;
    const Vec3 wp = w.cross(g.p);
    Vec6 out;
    out.head<3>() = w;
    out.tail<3>() = g.p - 0.5 * wp + L * w.cross(wp);
    return out;
}

/// \brief T(Omega) = I_6 + sum_{r=1}^4 f_r(theta) ad_Omega^r (Mathew et al., Appendix A).
inline Mat6 tangent(const Vec6& Omega) {
    detail::AdPowers p;
    detail::compute_ad_powers(Omega, p);
    const auto c = tangent_coefficients(Omega.head<3>().norm());
    Mat6 t = Mat6::Identity();
    for (std::size_t r = 1; r <= 4; ++r) t += c.f[r - 1] * p.power[r];
    return t;
}

/// \brief dT/dt = sum_r [f_r' theta_dot ad^r + f_r (ad^r)dot] (Mathew et al., Appendix A), with
/// f_r' theta_dot = (f_r'/theta) (w . w_dot) so that theta = 0 needs no special case.
inline Mat6 tangent_dot(const Vec6& Omega, const Vec6& Omega_dot) {
    detail::AdPowers p;
    detail::compute_ad_powers(Omega, Omega_dot, p);
    const auto c = tangent_coefficients(Omega.head<3>().norm());
    const double w_wdot = Omega.head<3>().dot(Omega_dot.head<3>());
    Mat6 t = Mat6::Zero();
    for (std::size_t r = 1; r <= 4; ++r)
        t += (c.df_over_theta[r - 1] * w_wdot) * p.power[r] + c.f[r - 1] * p.power_dot[r];
    return t;
}

/// \brief T(Omega)^{-1} = I - ad/2 + a ad^2 + b ad^4, the reduction of the Bernoulli series
/// sum_k B_k ad^k / k! by the minimal polynomial of ad_Omega, closed form
/// a = 2/theta^2 - (theta + 3 sin)/(4 theta (1 - cos)), b = 1/theta^4 - (theta + sin)/(4 theta^3 (1 - cos)).
/// In terms of L = (1 - (theta/2) cot(theta/2))/theta^2 and s = theta^2: a = L - s dL/ds, b = -dL/ds,
/// which is how both branches evaluate them. Singular at theta = 2 pi, as T.
inline Mat6 tangent_inverse(const Vec6& Omega) {
    detail::AdPowers p;
    detail::compute_ad_powers(Omega, p);
    const double s = Omega.head<3>().squaredNorm();
    const auto l = detail::log_coefficients(std::sqrt(s));
    const double a = l.L - s * l.dL_ds;
    const double b = -l.dL_ds;
    return Mat6::Identity() - 0.5 * p.power[1] + a * p.power[2] + b * p.power[4];
}

}  // namespace soma::gvs
