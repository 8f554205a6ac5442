#pragma once
/// \file smooth_contact_law.hpp
/// \brief The scalar laws of smooth contact (MAT-DiSMech §4.2 eq. 21 and §5.2 eq. 25-26): the
/// softplus-squared penalty energy of a gap and its two derivatives, and the smoothed Coulomb
/// friction regularisation (eq. 23). Floor contact (gap to a plane) and IMC contact (gap between
/// two edges, imc_contact plugin) share them. Plain functions, so they can be tested in isolation.
///
/// Penalty (an energy consistent with MAT-DiSMech eq. 25-26):
///
///     E(Δ) = k_c s(Δ)²,   s(Δ) = (1/K1) log(1 + e^{-K1 Δ}),   K1 = 15/δ
///     E'(Δ)  = -2 k_c s σ                       (σ = σ(-K1 Δ), the logistic function)
///     E''(Δ) =  2 k_c (σ² + K1 s σ (1 - σ))
///
/// With a = e^{-K1 Δ}: σ = a/(1+a), E' = -2 k_c a log(1+a) / (K1 (1+a)) (eq. 25, which is the
/// energy gradient; the physical force is its negative) and E'' = k_c (2 a log(1+a) + 2 a²)/(1+a)² (eq. 26).
/// log(1 + e^y) and σ(y) are evaluated without overflow for any y: deep penetration
/// (K1 Δ ≪ 0) is a penalty spring E ≈ k_c Δ², not an overflow.
///
/// Friction (MAT-DiSMech §5.2 with eq. 23's smoothing): the force is -μ γ(w) |F_c| v̂_t with
/// w = |v_t| and γ(w) = 2/(1 + e^{-K2 w}) - 1 = tanh(K2 w / 2), K2 = 15/v_tol. It is written as
/// -μ |F_c| φ(w) v_t with φ(w) = γ(w)/w, which is smooth and even in w with φ(0) = K2/2: near
/// rest the law is a linear viscous one, so the Jacobian stays defined at v_t = 0.
/// Its v-derivative needs ψ(w) = φ'(w)/w, also smooth with ψ(0) = -(2/3)(K2/2)³.

#include <algorithm>
#include <cmath>

namespace soma {

/// MAT-DiSMech eq. 21-23 (and §5.2): K1 = 15/δ and K2 = 15/v_tol, so that the smoothing is
/// complete (e^{-15} ≈ 3e-7) one band width above the contact surface and one slip velocity
/// from rest.
inline constexpr double kContactSmoothingWidth = 15.0;

/// \brief log(1 + e^y) without overflow or loss of precision for any y.
inline double softplus(double y) {
    return std::max(y, 0.0) + std::log1p(std::exp(-std::abs(y)));
}

/// \brief The logistic function 1/(1 + e^{-y}), without overflow for any y.
inline double logistic(double y) {
    if (y >= 0.0) return 1.0 / (1.0 + std::exp(-y));
    const double e = std::exp(y);
    return e / (1.0 + e);
}

/// Value and first two derivatives of the penalty energy with respect to the gap.
struct PenaltyEnergy {
    double energy = 0.0;       ///< E(Δ) (J)
    double gradient = 0.0;     ///< dE/dΔ (N); the normal force is its negative, -dE/dΔ ≥ 0
    double curvature = 0.0;    ///< d²E/dΔ² (N/m), ≥ 0
};

/// \brief E(Δ) = k_c ((1/K1) log(1 + e^{-K1 Δ}))² and its derivatives (MAT-DiSMech §5.2, eq. 25-26).
/// \param[in] gap        Δ, the signed distance of the point's surface to the floor (m)
/// \param[in] stiffness  k_c (N/m)
/// \param[in] sharpness  K1 = 15/δ (1/m)
inline PenaltyEnergy penalty_energy(double gap, double stiffness, double sharpness) {
    const double y = -sharpness * gap;
    const double sp = softplus(y);         // K1 s
    const double sigma = logistic(y);      // σ(-K1 Δ)
    const double one_minus_sigma = logistic(-y);
    const double s = sp / sharpness;
    PenaltyEnergy e;
    e.energy = stiffness * s * s;
    e.gradient = -2.0 * stiffness * s * sigma;
    e.curvature = 2.0 * stiffness * (sigma * sigma + sp * sigma * one_minus_sigma);
    return e;
}

/// φ(w) = γ(w)/w and ψ(w) = φ'(w)/w of the smoothed Coulomb law.
struct FrictionShape {
    double phi = 0.0;  ///< γ(w)/w (s/m)
    double psi = 0.0;  ///< φ'(w)/w (s³/m³)
};

/// \brief φ and ψ of γ(w) = tanh(K2 w/2) (MAT-DiSMech eq. 23), smooth through w = 0.
/// \param[in] w      |v_t| ≥ 0 (m/s)
/// \param[in] sharpness K2 = 15/v_tol (s/m)
inline FrictionShape friction_shape(double w, double sharpness) {
    // With x = K2 w/2: φ = (K2/2) g(x), g(x) = tanh(x)/x; ψ = (K2/2)³ g'(x)/x.
    const double half = 0.5 * sharpness;
    const double x = half * w;
    double g, dg_over_x;
    if (x < 1e-2) {
        // Taylor series of tanh(x)/x; the first omitted terms are O(x^8) < 1e-16 here, while the
        // closed form below would lose ~eps/x² to cancellation.
        const double x2 = x * x;
        g = 1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0)));
        dg_over_x = -2.0 / 3.0 + x2 * (8.0 / 15.0 + x2 * (-34.0 / 105.0 + x2 * (496.0 / 2835.0)));
    } else {
        const double t = std::tanh(x);
        const double c = std::cosh(x);           // overflows to inf for x > 710: sech² = 0, fine
        const double sech2 = 1.0 / (c * c);
        g = t / x;
        dg_over_x = (x * sech2 - t) / (x * x * x);
    }
    return {half * g, half * half * half * dg_over_x};
}

}  // namespace soma
