#include "affine_integrators.hpp"

#include <algorithm>
#include <cmath>

namespace soma::integrators {

StepReport AffineIntegrator::step(System& system, double h) {
    const State& start = system.state();
    const Index n = system.dof_count();
    if (step_.q_pred.size() != n) {
        step_.q_pred.resize(n);
        step_.v_pred.resize(n);
        step_.a_pred.resize(n);
        x_.resize(n);
    }
    system_ = &system;
    StepReport report;
    if (!initialized_) {
        if (!initialize(system, report)) return report;
        initialized_ = true;
    }
    step_.dt = h;
    predict(start, h);
    const NewtonReport newton = system.solve(step_, x_);
    report.newton_iterations = newton.iterations;
    report.converged = newton.converged;
    report.diagnosis = newton.diagnosis;
    if (newton.converged) {
        State next = finish(start, h);
        report.error = step_error_ = measured_error(system, start, next, h);
        if (report.error >= 0.0) report.error_order = step_error_order();
        if (report.error > 1.0) {  // solved, but outside the tolerance: not committed
            rejected();
            report.next_step_ratio = next_step_ratio();
            return report;
        }
        system.commit(std::move(next));
        committed_time_ = system.state().t;
        accepted(h);
        report.next_step_ratio = next_step_ratio();
    }
    return report;
}

double AffineIntegrator::measured_error(const System& system, const State& start, const State& next, double h) {
    if (!error_control_) return -1.0;
    if (!local_error(start, h, error_)) return -1.0;
    const std::vector<Index>& free = system.free_dofs();
    error_tolerance_.resize(static_cast<Index>(free.size()));
    for (std::size_t k = 0; k < free.size(); ++k) {
        const Index i = free[k];
        const double size = std::max(std::abs(start.q[i]), std::abs(next.q[i]));
        error_tolerance_[static_cast<Index>(k)] = error_control_->absolute + error_control_->relative * size;
    }
    return error_measure(error_);
}

double AffineIntegrator::error_measure(const VectorX& e) const {
    const std::vector<Index>& free = system_->free_dofs();
    if (free.empty()) return 0.0;
    double sum = 0.0;
    for (std::size_t k = 0; k < free.size(); ++k) {
        const double ratio = e[free[k]] / error_tolerance_[static_cast<Index>(k)];
        sum += ratio * ratio;
    }
    return std::sqrt(sum / static_cast<double>(free.size()));
}

// ---- implicit Euler -------------------------------------------------------------------------
void ImplicitEuler::predict(const State& s, double h) {
    step_.t_eval = s.t + h;
    step_.q_pred = s.q.head(s.v.size()) + h * s.v;
    step_.v_pred = s.v;
    step_.a_pred.setZero();
    step_.coefficients = {h * h, h, 1.0};
    x_ = s.a;  // the previous acceleration is a good first guess
}

bool ImplicitEuler::local_error(const State& s, double h, VectorX& e) const {
    (void)s;
    e = 0.5 * h * h * x_;
    return true;
}

State ImplicitEuler::finish(const State& s, double h) const {
    State next;
    next.t = s.t + h;
    next.a = x_;
    next.v = s.v + h * x_;
    next.q = s.q;
    next.q.head(x_.size()) += h * next.v;
    return next;
}

// ---- implicit midpoint ----------------------------------------------------------------------
void ImplicitMidpoint::predict(const State& s, double h) {
    step_.t_eval = s.t + 0.5 * h;
    step_.q_pred = s.q.head(s.v.size()) + 0.5 * h * s.v;
    step_.v_pred = s.v;
    step_.a_pred.setZero();
    step_.coefficients = {0.25 * h * h, 0.5 * h, 1.0};
    if (!guess_.predict(h, x_)) x_ = s.a;  // period_two_predictor.hpp
}

State ImplicitMidpoint::finish(const State& s, double h) const {
    State next;
    next.t = s.t + h;
    next.a = x_;
    next.v = s.v + h * x_;
    next.q = s.q;
    next.q.head(x_.size()) += 0.5 * h * (s.v + next.v);
    return next;
}

bool ImplicitMidpoint::local_error(const State& s, double h, VectorX& e) const {
    // s.a: the previous midpoint's acceleration, (h + h_prev)/2 before this one (the consistent
    // a0 at t0, h/2 before, on the first step).
    e = (h * h / 12.0) * (2.0 * h / (h + previous_step_)) * (x_ - s.a);
    return true;
}

// ---- Newmark --------------------------------------------------------------------------------
bool Newmark::initialize(System& system, StepReport& report) {
    return consistent_initial_acceleration(system, report, "Newmark");
}

bool AffineIntegrator::consistent_initial_acceleration(System& system, StepReport& report, const std::string& who) {
    return solve_consistent_acceleration(system, step_, x_, report, who);
}

bool solve_consistent_acceleration(System& system, AffineStep& step, VectorX& x, StepReport& report, const std::string& who) {
    // F(t0, q0, v0, a) = 0 is linear in a with Jacobian M: one Newton iteration (c = (0, 0, 1)).
    State start = system.state();
    const Index n = system.dof_count();
    step.t_eval = start.t;
    step.dt = 0.0;
    step.q_pred = start.q.head(n);
    step.v_pred = start.v;
    step.a_pred = VectorX::Zero(n);
    step.coefficients = {0.0, 0.0, 1.0};
    step.explicit_rows = AffineStep::ExplicitRows::acceleration;
    x = start.a;
    const NewtonReport newton = system.solve(step, x);
    if (!newton.converged) {
        report.newton_iterations = newton.iterations;
        report.diagnosis = who + " could not compute the initial acceleration from M a0 = f (is the mass matrix "
                             "singular on the free DOFs?): " + newton.diagnosis;
        return false;
    }
    start.a = x;
    system.commit(std::move(start));
    return true;
}

void Newmark::predict(const State& s, double h) {
    step_.t_eval = s.t + h;
    step_.q_pred = s.q.head(s.v.size()) + h * s.v + (0.5 - beta_) * h * h * s.a;
    step_.v_pred = s.v + (1.0 - gamma_) * h * s.a;
    step_.a_pred.setZero();
    step_.coefficients = {beta_ * h * h, gamma_ * h, 1.0};
    if (!guess_.predict(h, x_)) x_ = s.a;  // period_two_predictor.hpp
}

bool Newmark::local_error(const State& s, double h, VectorX& e) const {
    e = (h * h * std::abs(beta_ - 1.0 / 6.0)) * (x_ - s.a);
    return true;
}

State Newmark::finish(const State& s, double h) const {
    State next;
    next.t = s.t + h;
    next.a = x_;
    next.q = s.q;
    next.q.head(x_.size()) = step_.q_pred + beta_ * h * h * x_;
    next.v = step_.v_pred + gamma_ * h * x_;
    return next;
}

// ---- statics --------------------------------------------------------------------------------
void Statics::predict(const State& s, double h) {
    if (!started_) {
        started_ = true;
        start_time_ = s.t;
    }
    step_.t_eval = s.t + h;
    step_.load_factor = ramp_time_ > 0.0 ? std::min(1.0, (step_.t_eval - start_time_) / ramp_time_) : 1.0;
    step_.q_pred.setZero();
    step_.v_pred.setZero();
    step_.a_pred.setZero();
    step_.coefficients = {1.0, 0.0, 0.0};
    x_ = s.q.head(s.v.size());  // the last equilibrium
}

State Statics::finish(const State& s, double h) const {
    State next;
    next.t = s.t + h;
    next.q = s.q;
    next.q.head(x_.size()) = x_;
    next.v = VectorX::Zero(x_.size());
    next.a = VectorX::Zero(x_.size());
    return next;
}

}  // namespace soma::integrators
