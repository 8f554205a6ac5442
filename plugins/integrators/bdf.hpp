#pragma once
/// \file bdf.hpp
/// \brief Backward differentiation formulas of variable order (1 to 5) and variable step, as one
/// affine step map (interfaces/soma/integrator.hpp), with the order and the step chosen from
/// local error estimates: the method of ode15s (without its NDF modification), CVODE and DASSL.
///
/// **The formula.** With the nodes tau_0 = t_{n+1} and tau_j = t_{n+1-j} (j = 1..k) and
/// s_j = tau_0 - tau_j, BDF of order k differentiates the polynomial through the k + 1 nodes at
/// tau_0 (Hairer and Wanner, Solving ODEs II, section III.5, the variable-coefficient form):
///
///     y'_{n+1} = sum_{j=0..k} d_j y_{n+1-j},   d_0 = sum_{m=1..k} 1/s_m,
///     d_j = prod_{m != 0, j} s_m / prod_{m != j} (s_m - s_j)   (s_0 = 0)
///
/// (the Lagrange weights' derivatives at tau_0). Applied to q' = v and v' = a with the Newton
/// unknown x = a_{n+1}:
///
///     v(x) = v_pred + x / d_0,   v_pred = -(1/d_0) sum_{j>=1} d_j v_{n+1-j}       c_v = 1/d_0
///     q(x) = q_pred + x / d_0^2, q_pred = q_n + (v_pred - sum_{j>=2} d_j D_{j-1}) / d_0   c_q = 1/d_0^2
///
/// with D_i = q_{n-i} (-) q_n (System::difference): the formula is BDF in the chart at q_n, so
/// a rotation's history is its exact relative rotation, not a sum of steps. On a manifold block
/// the chart's rate is not the velocity beyond first order in the displacement (a rotation's is
/// J_r^-1(d) omega, System::chart_rate), an O(h^3) error a step that would cap the order at 2:
/// from order 2 on, q_pred adds delta = (chart_rate - v) / d_0 at the predicted end of the step
/// (the Newton guess), evaluated k - 1 times at the displacement corrected by the last delta, so
/// that its own error is O(h^(k+3)). Order 1 is implicit Euler; order 2 at any step
/// ratio is bdf2's formula (bdf2.hpp; on rotations bdf2 has no chart correction).
///
/// **The error estimate** of order p (of q; the error of v enters q one order higher): the
/// interpolation error of the formula's polynomial, d_0 e = q^{(p+1)}/(p+1)! prod_{j=1..p} s_j,
/// with q^{(p+1)} = a^{(p-1)} from the divided difference of the last p accelerations (Milne's
/// device in divided differences, as DASSL's variable-coefficient estimate):
///
///     e_p = prod_{j=1..p} s_j / (p (p+1) d_0^{(p)}) * a[tau_0, ..., tau_{p-1}]
///
/// At constant steps this is h^{p+1} q^{(p+1)} / ((p+1) H_p) (H_p the harmonic number; 2/9 for
/// p = 2, bdf2's). Only accelerations that were solved for enter (not the start's a, which may be
/// anything).
///
/// **Order and step** (with error control; after the rules of VODE, Brown, Byrne and Hindmarsh
/// 1989, without its order biases): the first step is order 1. After k + 1 steps at the same
/// order and step,
/// the estimates of orders k - 1, k and k + 1 on the step just taken give each order's step,
/// 0.8 e_p^(-1/(p+1)) times this one (0.8: fewer rejections than the time loop's 0.9); the
/// largest wins (the current order unless another's is larger), and a gain below 20 % keeps the
/// step (the winning order takes it, which its estimate allows). A change of order or step
/// starts the count again. Between, the step
/// is held (kept as it is) unless its error asks for a smaller one (a shrink may come at any
/// step; growth and order changes only after the hold):
/// a grid that changes rarely keeps a variable-coefficient BDF zero-stable (Arévalo and
/// Söderlind, BIT 57, 2017, on smooth grids), and the history's weights need no recomputation.
/// A rejected step retries with the better of orders k and k - 1, and, after five rejections
/// from one state (motion that is not smooth, bdf2.hpp), with order 1; its step follows the
/// order the error showed between the last two attempts (an estimate falls more slowly than
/// h^(k+1) when only the last step shrinks). Steps grow at most twofold (largest_step_ratio():
/// bdf2's bound; for orders 3 to 5 the zero-stability bounds of arbitrary ratio sequences are
/// lower, and it is the hold that keeps their grid smooth).
/// Without error control the order rises by one a step to `max_order` and stays there, and the
/// steps are the time loop's: a retry's regrowth (`adaptive.grow`, at most 2) reaches orders 3
/// to 5 without a hold.
///
/// **Stability.** Orders 1 and 2 are A-stable; 3, 4 and 5 are A(alpha)-stable with alpha = 86,
/// 73 and 51 degrees: an undamped vibration the step resolves poorly (omega h between about 0.5
/// and a few) can grow slowly at orders 3 to 5. The error estimate sees it grow and lowers the
/// order; `max_order: 2` avoids it entirely (as ode15s' MaxOrder).

#include "affine_integrators.hpp"

#include <array>

namespace soma::integrators {

class Bdf final : public AffineIntegrator {
public:
    static constexpr int kHighestOrder = 5;
    explicit Bdf(int max_order) : max_order_(max_order) {}

    /// The spectral radius on an undamped oscillator tends to 0 as omega h grows (every order).
    bool damps_unresolved_modes() const override { return true; }
    /// The highest order's: the time loop's default for a step's estimate (StepReport::error_order
    /// carries each step's own).
    int error_order() const override { return max_order_; }
    double largest_step_ratio() const override { return 2.0; }
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;

    /// The order of the last step solved (for tests and the summary).
    int last_step_order() const { return order_in_step_; }

private:
    void predict(const State& s, double h) override;
    State finish(const State& s, double h) const override;
    bool local_error(const State& start, double h, VectorX& e) const override;
    int step_error_order() const override { return order_in_step_; }
    void accepted(double h) override;
    void rejected() override;
    double next_step_ratio() const override { return next_ratio_; }

    /// Whether the step from \p s continues the last committed one (else the history restarts).
    bool continues_from(const State& s) const;
    /// The accepted points whose accelerations were solved for, newest first, without a gap.
    int solved_points() const;
    /// The estimate of order p for the step just solved into \p e (needs p - 1 solved points).
    void estimate(int p, VectorX& e) const;

    /// One accepted state of the history.
    struct Point {
        double t = 0.0;
        VectorX q, v, a;
        bool solved = false;  ///< a was solved by a step (not the initial state's a)
    };
    int max_order_;
    /// history_[0] is the state the next step starts from (t_n), history_[j] is t_{n-j}.
    std::array<Point, kHighestOrder> history_;
    int points_ = 0;             ///< valid entries of history_
    int order_ = 1;              ///< the order the next step is taken with (capped by points_)
    int held_ = 0;               ///< accepted steps in a row of size held_step_ at order held_order_
    double held_step_ = 0.0;
    int held_order_ = 0;
    int rejections_here_ = 0;    ///< error-test rejections from the current start
    static constexpr int kRejectionsBeforeOrderOne = 5;
    double next_ratio_ = 0.0;

    // The step in progress (predict -> finish -> local_error -> accepted or rejected).
    int order_in_step_ = 1;
    std::array<double, kHighestOrder + 1> distance_{};  ///< s_j = t_{n+1} - t_{n+1-j}; s_0 = 0
    double leading_ = 0.0;        ///< d_0
    std::array<VectorX, kHighestOrder> chart_;  ///< D_i = q_{n-i} (-) q_n, i = 1..k-1
    VectorX predicted_displacement_, predicted_velocity_, chart_rate_, correction_;  ///< manifold blocks' correction
    mutable std::array<VectorX, kHighestOrder + 1> divided_;  ///< divided differences of a
    mutable VectorX lower_error_, higher_error_;  ///< the estimates of orders k - 1 and k + 1
    mutable bool have_lower_ = false, have_higher_ = false;
    // The last rejected attempt from the current start (the error's observed order).
    int rejected_order_ = 0;
    double rejected_step_ = 0.0, rejected_error_ = 0.0;
};

}  // namespace soma::integrators
