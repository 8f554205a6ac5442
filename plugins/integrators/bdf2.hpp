#pragma once
/// \file bdf2.hpp
/// \brief The variable-step two-step backward differentiation formula (BDF2) as an affine step
/// map (interfaces/soma/integrator.hpp): second order, L-stable, with its own error estimate.
///
/// With omega = h / h_prev, BDF2 applied to q' = v and v' = a (Hairer and Wanner, Solving
/// Ordinary Differential Equations II, section III.5, the variable-step formula) reads
///
///     q_{n+1} - q_n = alpha (q_n - q_{n-1}) + beta h v_{n+1}
///     v_{n+1} - v_n = alpha (v_n - v_{n-1}) + beta h a_{n+1}
///
/// with alpha = omega^2 / (1 + 2 omega) and beta = (1 + omega) / (1 + 2 omega); omega = 1 gives
/// the constant-step 4/3, -1/3, 2/3. In the Newton unknown x = a_{n+1}:
///
///     v(x) = v_n + alpha (v_n - v_{n-1}) + beta h x              c_v = beta h
///     q(x) = q_n + alpha (q_n - q_{n-1}) + beta h v(x)           c_q = beta^2 h^2,  c_a = 1
///
/// q_n - q_{n-1} is the last step's displacement in the DOF space (for a manifold block, its
/// tangent displacement, which is -log of q_{n-1} seen from q_n: the formula is BDF2 in the
/// chart at q_n). The first step, and any step whose start time is not the time of the state
/// this integrator last committed (a state set from outside at another time), has no history
/// and is implicit Euler (alpha = 0, beta = 1). A state edited at the same time is not detected:
/// whoever edits it should do so between runs, from a checkpoint.
///
/// Local error of the positions (Taylor expansion of the formula about t_{n+1}):
///
///     e = (1 + omega)^2 / (6 omega (1 + 2 omega)) h^3 q'''  ~  C(omega) h^2 (a_{n+1} - a_n)
///
/// (2/9 h^3 q''' at omega = 1); the error of v enters q multiplied by beta h, one order higher.
/// On a step without history: implicit Euler's h^2/2 a_{n+1}.
///
/// C(omega) grows like 1/(6 omega) as a rejected step shrinks below the last one (the old step's
/// history dominates the formula), so where the motion is not smooth (a velocity that jumps: a
/// prescribed motion with a kink, a constraint's correction) shrinking alone would not bring the
/// estimate down. As CVODE drops to order 1 after repeated error test failures (three), the
/// attempts from one state after five rejections are implicit Euler, whose estimate falls with h.
/// Five: on the six GVS example scenes, 1, 2 and 3 took 4 to 400 % more steps (Euler restarts
/// lose the history where smaller BDF2 steps would have passed), 5 and 8 the same within 3 %.
///
/// Newton starts from a_n + omega (a_n - a_{n-1}), the accelerations extrapolated over the last
/// two steps: 7 to 17 % fewer iterations than from a_n on the GVS scenes that need more than two.
///
/// The variable-step formula is zero-stable while omega < 1 + sqrt(2); largest_step_ratio() is 2
/// (Hairer and Wanner's bound with a margin). Unlike the trapezoidal rule, BDF2 damps modes the
/// step does not resolve (its amplification tends to 0 as omega h grows), so stiff, damped
/// scenes keep large steps under error control.

#include "affine_integrators.hpp"

namespace soma::integrators {

class Bdf2 final : public AffineIntegrator {
public:
    /// L-stable: the spectral radius on an undamped oscillator tends to 0 as omega h grows.
    bool damps_unresolved_modes() const override { return true; }
    int error_order() const override { return 2; }
    double largest_step_ratio() const override { return 2.0; }
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;

private:
    void predict(const State& s, double h) override;
    State finish(const State& s, double h) const override;
    bool local_error(const State& start, double h, VectorX& e) const override;
    /// Implicit Euler's steps (no history) estimate at order 1.
    int step_error_order() const override { return with_history_ ? 0 : 1; }
    void accepted(double h) override;
    void rejected() override { ++rejections_here_; }

    /// Whether the step from \p s continues the last committed one (BDF2 rather than Euler).
    bool continues_from(const State& s) const;

    // The accepted history, taken in accepted() from the step just committed.
    bool have_history_ = false;
    bool acceleration_history_ = false;  ///< a_{n-1} came from a solved step (not the initial a)
    double history_time_ = 0.0;    ///< t_n: the time of the state the history belongs to
    double previous_step_ = 0.0;   ///< h_prev = t_n - t_{n-1}
    VectorX previous_displacement_;///< q_n - q_{n-1} in the DOF space
    VectorX previous_velocity_;    ///< v_{n-1}
    VectorX previous_acceleration_;///< a_{n-1}: with a_n, the linear extrapolation that starts Newton

    /// Attempts from the current start rejected by the error estimate (reset when a step commits).
    int rejections_here_ = 0;
    static constexpr int kRejectionsBeforeEuler = 5;

    // The step in progress (predict -> finish -> local_error -> accepted).
    bool with_history_ = false;
    double alpha_ = 0.0, beta_ = 1.0, ratio_ = 0.0;
    VectorX displacement_;         ///< q_{n+1} - q_n of the step in progress
    VectorX start_velocity_;       ///< v_n
    VectorX start_acceleration_;   ///< a_n
};

}  // namespace soma::integrators
