#pragma once
/// \file ncp_functions.hpp
/// \brief NCP functions and the fixed-point friction compliance of the non-smooth Newton method
/// (Macklin, Erleben, Müller, Chentanez, Jeschke, Makoviychuk 2019, "Non-Smooth Newton Methods
/// for Deformable Multi-Body Dynamics", ACM TOG 38(5); §4, §7 and Appendix A).
///
/// A nonlinear complementarity problem (NCP) 0 <= a ⟂ b >= 0 (a >= 0, b >= 0, a b = 0) is
/// rewritten as one equation phi(a, b) = 0 with an NCP function phi (eq. 17), so that Newton's
/// method applies to it:
///
///     minimum map          phi(a, b) = min(a, b)                       (eq. 18)
///     Fischer-Burmeister   phi(a, b) = a + b - sqrt(a^2 + b^2)         (eq. 23)
///
/// For a normal contact a = C_n(q) (the gap, m) and b = r lambda_n (the force scaled by the
/// complementarity preconditioner r of §7, eq. 66, so that both arguments have the units and
/// the slope of the gap; phi(a, r b) = 0 has the same roots as phi(a, b) = 0).
///
/// Friction (§4.3) is not one scalar NCP: its direction condition (eq. 31) is kept linear by a
/// compliance W (eq. 35-37), phi_f = D^T qdot + W lambda_f, with W computed from the magnitudes
/// a = |D^T qdot| (slip speed) and b = mu lambda_n - |lambda_f| (distance of the friction force
/// inside the cone) by one fixed-point step of the scalar NCP psi_f(a, r b) = 0 (eq. 32-34,
/// 99-105). W is then held constant in the Newton step, which keeps the system symmetric (where
/// the rest of it is: ncp_newton.hpp).

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace soma::ncp {

/// The NCP function phi used for normal contact and friction (§4; the paper uses
/// Fischer-Burmeister for every example, §10.3).
enum class NcpFunction { fischer_burmeister, minimum };

/// phi(a, b) and the element of its (generalised) derivative that Newton uses.
struct NcpValue {
    double value;     ///< phi(a, b)
    double d_first;   ///< d phi / d a (alpha of eq. 24 for Fischer-Burmeister)
    double d_second;  ///< d phi / d b (beta of eq. 25 for Fischer-Burmeister)
};

namespace detail {

/// a + b - s with s = sqrt(a^2 + b^2), free of cancellation: when a term is positive the
/// difference with s is rewritten through (a + b)^2 - s^2 = 2 a b, so the value is accurate to a
/// few ulps of itself near the complementarity set (where it tends to 0 and Newton stops on it).
inline double fischer_burmeister_value(double a, double b, double s) {
    if (a > 0.0 && b > 0.0) return 2.0 * a * b / (a + b + s);
    if (a > 0.0) return b - b * b / (a + s);  // a - s = -b^2 / (a + s)
    if (b > 0.0) return a - a * a / (b + s);  // b - s = -a^2 / (b + s)
    return a + b - s;                         // three non-positive terms
}

/// 1 - x / s with s = sqrt(x^2 + y^2) > 0, free of cancellation when y is small against x > 0.
inline double one_minus_ratio(double x, double y, double s) {
    return x > 0.0 ? y * y / ((s + x) * s) : 1.0 - x / s;
}

}  // namespace detail

/// \brief phi(a, b) and its partial derivatives for the NCP function \p f.
///
/// Fischer-Burmeister (eq. 23-25): phi = a + b - sqrt(a^2 + b^2), d phi/d a = 1 - a/sqrt(a^2 + b^2),
/// d phi/d b = 1 - b/sqrt(a^2 + b^2); at the kink (0, 0) the derivative is set-valued and the
/// paper's element alpha = 0, beta = 1 is returned (eq. 26-27).
///
/// Minimum map (eq. 18, 21-22): a <= b gives (a, 1, 0), else (b, 0, 1); the tie a = b takes the
/// first argument, as eq. 21-22 (an active contact when C_n <= lambda_n).
///
/// With the complementarity preconditioner the caller passes b = r lambda and applies the chain
/// rule for r itself: d phi / d lambda = r d_second (eq. 93-98; e.g. eq. 95 for FB, eq. 98 for
/// the minimum map), d phi / d q = d_first grad C (eq. 94, 97).
///
/// \param[in] f which NCP function
/// \param[in] a first argument (the constraint value, e.g. the gap C_n)
/// \param[in] b second argument (the scaled multiplier r lambda)
inline NcpValue evaluate_ncp(NcpFunction f, double a, double b) {
    if (f == NcpFunction::minimum) return a <= b ? NcpValue{a, 1.0, 0.0} : NcpValue{b, 0.0, 1.0};
    const double s = std::sqrt(a * a + b * b);
    if (s == 0.0) return NcpValue{0.0, 0.0, 1.0};  // eq. 26-27
    return NcpValue{detail::fischer_burmeister_value(a, b, s), detail::one_minus_ratio(a, b, s),
                    detail::one_minus_ratio(b, a, s)};
}

/// \brief The friction compliance W of one contact (eq. 35, 99-105): the ratio of the slip speed
/// to the friction force magnitude after one fixed-point step of psi_f(a, r b) = 0, so that
/// phi_f = D^T qdot + W lambda_f (eq. 36) projects the friction force back onto the cone.
///
/// With a = |D^T qdot| and b = mu lambda_n - |lambda_f|:
///
///     Fischer-Burmeister (eq. 99-104), s = sqrt(a^2 + r^2 b^2):
///         |D^T qdot|^{n+1} = a - psi_FB = s - r b                              (eq. 99-100)
///         |lambda_f|^{n+1} = |lambda_f| + psi_FB / r = (a + r mu lambda_n - s) / r   (eq. 101-102)
///         W_FB = r (s - r b) / (a + r mu lambda_n - s)                          (eq. 103-104)
///     minimum map (eq. 105):
///         W_min = 0 if a <= r b, else (a - r b) / (mu lambda_n)
///
/// Erratum: the printed eq. 102 and 104 have |D^T qdot|^2 where the derivation from eq. 99-101
/// gives a = |D^T qdot| (the first term of the denominator). The squared term is dimensionally
/// inconsistent (m^2/s^2 added to m/s) and gives negative W (e.g. a = 0.5, mu lambda_n = 5, on
/// the cone, r = 0.0083: -0.0199 instead of 0.1). With a, sliding on the cone (b = 0) gives
/// W_FB = W_min = a / (mu lambda_n), the velocity parallel to the force as maximal dissipation
/// requires (eq. 15), and sticking (a = 0, b > 0) gives W_FB = W_min = 0.
///
/// The FB denominator (r |lambda_f|^{n+1}) is 0 in the 0/0 case a = 0, |lambda_f| = 0 (at rest,
/// no force yet), where W = 0; outside the cone (b < 0) it is not positive when
/// (a + r mu lambda_n)^2 <= a^2 + r^2 b^2 (e.g. a = 0 and |lambda_f| >= 2 mu lambda_n): the
/// fixed point's next force magnitude (eq. 101) is zero, the limit of W -> +infinity as the
/// denominator falls to 0. W is then +infinity, and the caller's row drives lambda_f to zero
/// (the row s + W lambda_f = 0 divided by W), as for an inactive contact.
///
/// \pre friction_limit > 0 (asserted). Inactive contacts (mu lambda_n <= 0, the set I of §6.1)
/// are the caller's: there W = 1 with the friction Jacobian rows zeroed (eq. 106).
/// \param[in] f which NCP function psi_f (eq. 32)
/// \param[in] slip_speed a = |D^T qdot| >= 0 (m/s)
/// \param[in] friction_norm |lambda_f| >= 0 (N)
/// \param[in] friction_limit mu lambda_n > 0 (N), the radius of the friction cone
/// \param[in] r the complementarity preconditioner of the friction row (eq. 66), > 0
/// \return W >= 0 (m/s per N), possibly +infinity (see above)
inline double friction_compliance(NcpFunction f, double slip_speed, double friction_norm,
                                  double friction_limit, double r) {
    assert(friction_limit > 0.0 && "inactive contacts (mu lambda_n <= 0) take W = 1, eq. 106");
    const double a = slip_speed;
    const double b = friction_limit - friction_norm;
    if (f == NcpFunction::minimum) return a <= r * b ? 0.0 : (a - r * b) / friction_limit;  // eq. 105
    if (a == 0.0 && friction_norm == 0.0) return 0.0;  // 0/0
    const double rb = r * b;
    const double s = std::sqrt(a * a + rb * rb);
    // Numerator s - r b of eq. 104, without cancellation when b > 0 (sticking, s ~ r b).
    const double slip_next = rb > 0.0 ? a * a / (s + rb) : s - rb;
    // Denominator a + r mu lambda_n - s = r |lambda_f| + psi_FB(a, r b), psi_FB accurate near 0.
    const double force_next = r * friction_norm + detail::fischer_burmeister_value(a, rb, s);
    if (!(force_next > 0.0)) return std::numeric_limits<double>::infinity();
    return r * slip_next / force_next;
}

/// W and its partial derivatives (friction_compliance_derivatives).
struct FrictionCompliance {
    double w = 0.0;
    double d_slip = 0.0;   ///< dW/da, a = |D^T qdot|
    double d_force = 0.0;  ///< dW/d|lambda_f|
    double d_limit = 0.0;  ///< dW/d(mu lambda_n)
};

/// rief The friction compliance W of friction_compliance and its partial derivatives in the slip
/// speed a, the friction force's magnitude |lambda_f| and the cone's radius mu lambda_n: what
/// the paper's fixed point leaves out by holding W constant in each iteration (eq. 37), for an
/// exact Newton step on phi_f = D^T qdot + W lambda_f.
///
/// Fischer-Burmeister, with b = mu lambda_n - |lambda_f|, S = sqrt(a^2 + r^2 b^2), N = S - r b
/// and D = a + r mu lambda_n - S (W = r N / D, eq. 104):
///     dW/da = r (a D / S - N (1 - a / S)) / D^2
///     dW/d|lambda_f| = r^2 N (D - r b) / (S D^2)
///     dW/d(mu lambda_n) = -dW/d|lambda_f| - r^2 N / D^2
/// Minimum map, sliding branch a > r b (W = (a - r b) / (mu lambda_n), eq. 105): 1/(mu lambda_n),
/// r/(mu lambda_n), -(r + W)/(mu lambda_n); the sticking branch is W = 0 with zero derivatives.
/// Sliding on the cone (b = 0) both give W = a/(mu lambda_n), dW/da = 1/(mu lambda_n): then
/// d(W lambda_f)/d(D^T qdot) = -t t^T for the slip direction t, and the friction force's magnitude
/// follows mu lambda_n whatever the slip speed, Coulomb's law, where the fixed point takes it as a
/// viscous force of coefficient 1/W and converges slowly when the contact is near stopping.
/// Where W is infinite (friction_compliance), at the 0/0 case a = |lambda_f| = 0 (at rest, no
/// force yet: W = 0) and where the denominator underflows (a ~ 1e-300) the derivatives are
/// returned as 0: the fixed point's step there.
inline FrictionCompliance friction_compliance_derivatives(NcpFunction f, double slip_speed, double friction_norm,
                                                          double friction_limit, double r) {
    FrictionCompliance out;
    out.w = friction_compliance(f, slip_speed, friction_norm, friction_limit, r);
    if (!std::isfinite(out.w) || (slip_speed == 0.0 && friction_norm == 0.0)) return out;
    const double a = slip_speed, limit = friction_limit, rb = r * (friction_limit - friction_norm);
    if (f == NcpFunction::minimum) {
        if (a <= rb) return out;
        out.d_slip = 1.0 / limit;
        out.d_force = r / limit;
        out.d_limit = -(r + out.w) / limit;
        return out;
    }
    const double s = std::sqrt(a * a + rb * rb);
    if (s == 0.0) return out;  // a = 0 on the cone: W = 0, a kink (the 0/0 case's neighbour)
    const double n = rb > 0.0 ? a * a / (s + rb) : s - rb;
    const double d = r * friction_norm + detail::fischer_burmeister_value(a, rb, s);  // a + r mu lambda_n - s
    const double d2 = d * d;
    if (!(d2 > 0.0)) return out;
    const FrictionCompliance derivatives{out.w, r * (a * d / s - n * detail::one_minus_ratio(a, rb, s)) / d2,
                                         r * r * n * (d - rb) / (s * d2), 0.0};
    if (!std::isfinite(derivatives.d_slip) || !std::isfinite(derivatives.d_force)) return out;
    out = derivatives;
    out.d_limit = -out.d_force - r * r * n / d2;
    return out;
}

}  // namespace soma::ncp
