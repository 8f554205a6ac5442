#pragma once
/// \file affine_integrators.hpp
/// \brief Implicit Euler, implicit midpoint, Newmark and statics: each one step map
/// x -> (q, v, a) affine in the Newton unknown (interfaces/soma/integrator.hpp).
///
/// Every integrator here solves F(t*, q(x), v(x), a(x)) = 0 with the kernel's Newton solver and
/// then forms the end-of-step state. They differ only in the affine map:
///
/// | integrator        | evaluated at | q(x)                                   | v(x)                        | (c_q, c_v, c_a)   |
/// |-------------------|--------------|----------------------------------------|-----------------------------|-------------------|
/// | implicit Euler    | t + h        | q + h v + h^2 x                        | v + h x                     | (h^2, h, 1)       |
/// | implicit midpoint | t + h/2      | q + h/2 v + h^2/4 x  (midpoint)        | v + h/2 x  (midpoint)       | (h^2/4, h/2, 1)   |
/// | Newmark (b, g)    | t + h        | q + h v + h^2((1/2-b) a + b x)         | v + h((1-g) a + g x)        | (b h^2, g h, 1)   |
/// | statics           | t + h        | x                                      | 0                           | (1, 0, 0)         |
///
/// q above is the DOF part of q (System::dof_count() entries); for a manifold block's DOFs it is
/// the tangent displacement since the step start, which the kernel folds into the block's
/// coordinates at commit (so implicit Euler moves a rotation by R_next = R exp(h omega_next), the
/// midpoint rule by R exp(h omega_mid)).
///
/// Implicit Euler is MAT-DiSMech eq. 4-5 written for the acceleration; it damps
/// vibrations (first order). The implicit midpoint rule and Newmark's average acceleration
/// (b = 1/4, g = 1/2) are second order and do not damp linear oscillations.
///
/// Local error estimates (error control, integrator.hpp), of the positions, in the DOF space:
///
/// | integrator        | e                                                          | order |
/// |-------------------|------------------------------------------------------------|-------|
/// | implicit Euler    | h^2/2 a_{n+1} (its q gains h^2 a where the exact q gains h^2/2 a) | 1 |
/// | implicit midpoint | h^3/12 da/dt ~ h^2/12 (a_{n+1/2} - a_{n-1/2}) 2h/(h + h_prev) | 2  |
/// | Newmark (b, 1/2)  | h^2 (b - 1/6) (a_{n+1} - a_n) (Zienkiewicz and Xie 1991)   | 2     |
///
/// The midpoint rule's accelerations live at step midpoints, (h + h_prev)/2 apart; under error
/// control it starts, as Newmark does, from the consistent acceleration at t0 (M a0 = f), h/2
/// before the first midpoint (h_prev = 0 in the formula).

#include "period_two_predictor.hpp"

#include "soma/integrator.hpp"

#include <optional>
#include <string>

namespace soma::integrators {

/// Solves M(q0) a0 = f(t0, q0, v0) from system.state() with the hard constraint rows at the
/// acceleration level (\p step and \p x are the caller's buffers) and commits a0 as the start's
/// acceleration: Newmark's first step, the midpoint rule's under error control, Bridson-Marino's
/// first step. False with a diagnosis naming \p who in \p report.
bool solve_consistent_acceleration(System& system, AffineStep& step, VectorX& x, StepReport& report, const std::string& who);

/// Shared buffers and the step/commit sequence; subclasses define the affine map.
class AffineIntegrator : public Integrator {
public:
    StepReport step(System& system, double h) final;
    /// Equality constraints: the kernel's Newton solve adds their rows (constraint.hpp).
    bool supports(ConstraintKind kind) const override { return kind == ConstraintKind::equality; }
    void set_error_control(const ErrorControl& control) override { error_control_ = control; }
    /// Whether the first step was prepared (Newmark's consistent initial acceleration).
    void save_checkpoint(CheckpointWriter& out) const override { out.integer("initialized", initialized_ ? 1 : 0); }
    void restore_checkpoint(CheckpointReader& in) override { initialized_ = in.integer("initialized") != 0; }

protected:
    /// Runs once before the first step (e.g. Newmark's consistent initial acceleration).
    /// Returns false with a diagnosis in `report` on failure.
    virtual bool initialize(System& system, StepReport& report) { (void)system; (void)report; return true; }
    /// Fills step_ (predictors, coefficients, evaluation time) and the initial guess x_.
    virtual void predict(const State& start, double h) = 0;
    /// The end-of-step state from the converged unknown x_.
    virtual State finish(const State& start, double h) const = 0;
    /// Runs after a step of size h converged and was committed (x_ holds its unknown).
    virtual void accepted(double h) { (void)h; }
    /// Runs after a step converged but its local error was above the tolerance (not committed).
    virtual void rejected() {}
    /// Under error control: the ratio of the next step to this one when the integrator chooses it
    /// (StepReport::next_step_ratio), read after accepted() or rejected(); 0: the time loop's.
    virtual double next_step_ratio() const { return 0.0; }
    /// Solves M(q0) a0 = f(t0, q0, v0) and commits it as the start's acceleration (Newmark's first
    /// step; the midpoint rule's under error control). False with a diagnosis in \p report.
    bool consistent_initial_acceleration(System& system, StepReport& report, const std::string& who);
    bool error_controlled() const { return error_control_.has_value(); }
    /// The local error of the step of size h just solved (x_ holds its unknown) into \p e, per
    /// DOF; false when there is no estimate for this step. Integrators without one keep this.
    virtual bool local_error(const State& start, double h, VectorX& e) const {
        (void)start, (void)h, (void)e;
        return false;
    }
    /// The order of local_error's estimate for the step just solved, when it is not error_order()
    /// (StepReport::error_order); 0: error_order().
    virtual int step_error_order() const { return 0; }
    /// The error measure of ErrorControl (the root mean square over the free DOFs of e_i over its
    /// tolerance) of \p e, with the tolerances of the step last measured: for estimates beside
    /// local_error's (another order's). Valid from local_error's return until the next step.
    double error_measure(const VectorX& e) const;

    AffineStep step_;
    VectorX x_;
    bool initialized_ = false;
    /// The time of the state the last step committed, as the system holds it (the kernel may snap
    /// t to its grid at commit): set before accepted() runs.
    double committed_time_ = 0.0;
    /// The measured local error of the step just solved (StepReport::error; negative: none): set
    /// before accepted() or rejected() runs.
    double step_error_ = -1.0;
    /// The System of the step in progress (for System::difference and the committed state).
    const System* system_ = nullptr;

private:
    /// The local error of the solved step \p next in units of the tolerance; negative: none.
    double measured_error(const System& system, const State& start, const State& next, double h);

    std::optional<ErrorControl> error_control_;
    VectorX error_;
    VectorX error_tolerance_;  ///< per free DOF (in free_dofs() order): absolute + relative |q_i|

};

class ImplicitEuler final : public AffineIntegrator {
public:
    /// Spectral radius 1/sqrt(1 + (omega h)^2): unresolved modes are damped out in a few steps.
    bool damps_unresolved_modes() const override { return true; }
    int error_order() const override { return 1; }

private:
    void predict(const State& s, double h) override;
    State finish(const State& s, double h) const override;
    bool local_error(const State& start, double h, VectorX& e) const override;
};

/// An affine integrator whose initial guess comes from the accepted steps' unknowns
/// (period_two_predictor.hpp): the predictor is carried state, saved with the checkpoint.
class PredictedAffineIntegrator : public AffineIntegrator {
public:
    void save_checkpoint(CheckpointWriter& out) const override {
        AffineIntegrator::save_checkpoint(out);
        guess_.save_checkpoint(out);
    }
    void restore_checkpoint(CheckpointReader& in) override {
        AffineIntegrator::restore_checkpoint(in);
        guess_.restore_checkpoint(in);
    }

protected:
    void accepted(double h) override { guess_.accept(x_, h); }
    PeriodTwoPredictor guess_;
};

class ImplicitMidpoint final : public PredictedAffineIntegrator {
public:
    /// The midpoint rule conserves a linear oscillator's energy at any omega h (radius 1).
    bool damps_unresolved_modes() const override { return false; }
    int error_order() const override { return 2; }
    /// Under error control initialize() solves M a0 = f.
    bool solves_with_mass_alone() const override { return error_controlled(); }
    /// Hard constraints are held at the midpoint: the end state's drift defeats the estimate.
    bool estimates_error_with_hard_constraints() const override { return false; }
    /// The last accepted step's size (the error estimate's spacing of midpoints) joins the predictor's.
    void save_checkpoint(CheckpointWriter& out) const override {
        PredictedAffineIntegrator::save_checkpoint(out);
        out.real("previous_step", previous_step_);
    }
    void restore_checkpoint(CheckpointReader& in) override {
        PredictedAffineIntegrator::restore_checkpoint(in);
        previous_step_ = in.real("previous_step");
    }

private:
    /// Under error control: the consistent initial acceleration, the first estimate's reference.
    bool initialize(System& system, StepReport& report) override {
        return !error_controlled() || consistent_initial_acceleration(system, report, "the implicit midpoint rule under error control");
    }
    void predict(const State& s, double h) override;
    State finish(const State& s, double h) const override;
    bool local_error(const State& start, double h, VectorX& e) const override;
    void accepted(double h) override {
        PredictedAffineIntegrator::accepted(h);
        previous_step_ = h;
    }
    double previous_step_ = 0.0;  ///< 0 before the first accepted step (the start's a is at t0 then)
};

class Newmark final : public PredictedAffineIntegrator {
public:
    Newmark(double beta, double gamma) : beta_(beta), gamma_(gamma) {}
    /// gamma > 1/2 (with beta >= gamma/2) leaves a spectral radius below 1 as omega h -> infinity;
    /// gamma = 1/2 is the trapezoidal rule, radius 1 for every omega h.
    bool damps_unresolved_modes() const override { return gamma_ > 0.5; }
    /// initialize() solves M a0 = f.
    bool solves_with_mass_alone() const override { return true; }
    /// Second order with gamma = 1/2; with gamma > 1/2 its velocities are first order, which the
    /// position estimate does not see: no estimate (error control is refused).
    int error_order() const override { return gamma_ == 0.5 ? 2 : 0; }

    // Equality constraints as every affine integrator; the consistent initial acceleration holds
    // them at the acceleration level (the kernel's rows for a solve with c_q = 0).

private:
    /// Solves M(q0) a0 = f(t0, q0, v0) so the first step starts from a consistent acceleration.
    bool initialize(System& system, StepReport& report) override;
    void predict(const State& s, double h) override;
    State finish(const State& s, double h) const override;
    bool local_error(const State& start, double h, VectorX& e) const override;
    double beta_, gamma_;
};

/// Quasi-static equilibrium, one load step per time step: applied loads scale by
/// min(1, (t - t_start)/ramp_time) (the static mode of MAT-DiSMech §6.1 ramps gravity this way in its reference code), or 1 when ramp_time is 0.
class Statics final : public AffineIntegrator {
public:
    explicit Statics(double ramp_time) : ramp_time_(ramp_time) {}
    bool is_static() const override { return true; }
    /// The start time the load ramp counts from.
    void save_checkpoint(CheckpointWriter& out) const override {
        AffineIntegrator::save_checkpoint(out);
        out.integer("started", started_ ? 1 : 0);
        out.real("ramp_start_time", start_time_);
    }
    void restore_checkpoint(CheckpointReader& in) override {
        AffineIntegrator::restore_checkpoint(in);
        started_ = in.integer("started") != 0;
        start_time_ = in.real("ramp_start_time");
    }

private:
    void predict(const State& s, double h) override;
    State finish(const State& s, double h) const override;
    double ramp_time_;
    bool started_ = false;
    double start_time_ = 0.0;
};

}  // namespace soma::integrators
