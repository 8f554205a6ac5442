#pragma once
/// \file linear_oscillator_system.hpp
/// \brief A fake soma::System for the integrator tests: one DOF with the linear residual
///
///     F(t, q, v, a) = m a + c v + k q - load_factor f(t)
///
/// solved exactly. Along an integrator's affine map q = q_pred + c_q x, v = v_pred + c_v x,
/// a = a_pred + c_a x (interfaces/soma/integrator.hpp) F is linear in x, so
///
///     x = (load_factor f(t_eval) - m a_pred - c v_pred - k q_pred) / (c_a m + c_v c + c_q k)
///
/// with no Newton tolerance in the way: what the tests measure is the integrator's own error.
/// It records every solve (the AffineStep it was given) and every committed state, and can be
/// told to fail its solves, to check what an integrator does with a failed Newton solve.
/// It also implements the open System API (evaluate, factorize, solve_linear) for its one
/// unknown, so that the kernel's newton_solve can be run over it.

#include "soma/integrator.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace soma::integrators::testing {

/// The undamped oscillator's exact motion from q = 1 at rest at t = 0, q = cos(omega t): the
/// reference of the integrator tests.
struct CosineMotion {
    double omega;
    double q(double t) const { return std::cos(omega * t); }
    double v(double t) const { return -omega * std::sin(omega * t); }
    double a(double t) const { return -omega * omega * std::cos(omega * t); }
};

class LinearOscillatorSystem final : public System {
public:
    /// `force` is the applied load f(t) (scaled by the step's load_factor, as the kernel scales
    /// applied loads in statics); the default is no load.
    LinearOscillatorSystem(double mass, double damping, double stiffness,
                           std::function<double(double)> force = [](double) { return 0.0; })
        : mass_(mass), damping_(damping), stiffness_(stiffness), force_(std::move(force)) {
        state_.q = VectorX::Zero(1);
        state_.v = VectorX::Zero(1);
        state_.a = VectorX::Zero(1);
    }

    /// Sets the committed state the next step starts from (not recorded as a commit).
    void set_state(double t, double q, double v, double a) {
        state_.t = t;
        state_.q[0] = q;
        state_.v[0] = v;
        state_.a[0] = a;
    }

    Index dof_count() const override { return 1; }
    Index configuration_size() const override { return 1; }  // a vector space: q has one entry per DOF
    void integrate(const VectorX& q, const VectorX& dv, VectorX& out) const override { out = q + dv; }
    void difference(const VectorX& q1, const VectorX& q0, VectorX& dv) const override { dv = q1 - q0; }
    // One State member, assigned in place by commit: integrators may hold a reference to it
    // across a commit (Newmark's first step does), as they may with the kernel's Simulation.
    const State& state() const override { return state_; }

    NewtonReport solve(const AffineStep& step, VectorX& x) override {
        solves.push_back(step);
        NewtonReport report;
        report.iterations = 1;
        if (fail_solves) {
            report.diagnosis = "the fake system was told to fail";
            return report;
        }
        const JacobianCoefficients& c = step.coefficients;
        const double jacobian = c.c_a * mass_ + c.c_v * damping_ + c.c_q * stiffness_;
        if (jacobian == 0.0) {
            report.diagnosis = "singular Jacobian";
            return report;
        }
        const double rhs = step.load_factor * force_(step.t_eval) - mass_ * step.a_pred[0] -
                           damping_ * step.v_pred[0] - stiffness_ * step.q_pred[0];
        x.resize(1);
        x[0] = rhs / jacobian;
        report.converged = true;
        return report;
    }

    void commit(State next) override {
        commits.push_back(next);
        state_ = std::move(next);
    }

    // ---- the open API over the one unknown (no constraints) ----
    Index unknown_count() const override { return 1; }
    const std::vector<Index>& free_dofs() const override { return free_dofs_; }
    Index constraint_row_count() const override { return 0; }
    VectorX& multipliers() override { return multipliers_; }
    std::string begin_solve(const AffineStep&, VectorX&) override { return {}; }
    SystemEvaluation evaluate(const AffineStep& step, const VectorX& x, const VectorX&, bool with_jacobian,
                              bool with_force_scale) override {
        ++evaluations;
        const JacobianCoefficients& c = step.coefficients;
        const double q = step.q_pred[0] + c.c_q * x[0];
        const double v = step.v_pred[0] + c.c_v * x[0];
        const double a = step.a_pred[0] + c.c_a * x[0];
        const double load = step.load_factor * force_(step.t_eval);
        residual_[0] = mass_ * a + damping_ * v + stiffness_ * q - load;
        if (with_jacobian) jacobian_ = c.c_a * mass_ + c.c_v * damping_ + c.c_q * stiffness_;
        SystemEvaluation e;
        e.force_norm = e.merit = std::abs(residual_[0]);
        e.configuration_scale = std::abs(q);
        if (with_force_scale) {  // the four terms' sizes (system.hpp)
            force_scale_[0] = std::abs(mass_ * a) + std::abs(damping_ * v) + std::abs(stiffness_ * q) + std::abs(load);
            e.force_scale = &force_scale_;
        }
        return e;
    }
    const VectorX& residual() const override { return residual_; }
    const SparseMatrix& jacobian() const override {
        jacobian_matrix_.coeffRef(0, 0) = jacobian_;
        return jacobian_matrix_;
    }
    bool factorize() override { return jacobian_ != 0.0; }
    bool solve_linear(const VectorX& rhs, VectorX& solution) override {
        solution = rhs / jacobian_;
        return true;
    }
    bool solve_linear(const Eigen::MatrixXd& rhs, Eigen::MatrixXd& solution) override {
        solution = rhs / jacobian_;
        return true;
    }
    std::string linear_solver_error() const override { return jacobian_ == 0.0 ? "singular Jacobian" : ""; }
    const ConstraintRows& constraint_rows() override { return constraint_rows_; }
    std::string diagnose(const AffineStep&, const std::string& what) override { return what; }
    std::string check_solution(const AffineStep&, const VectorX&) override { return {}; }  // no contributors

    double q() const { return state_.q[0]; }
    double v() const { return state_.v[0]; }
    double a() const { return state_.a[0]; }
    /// Mechanical energy m v^2 / 2 + k q^2 / 2.
    double energy() const { return 0.5 * mass_ * v() * v() + 0.5 * stiffness_ * q() * q(); }

    std::vector<AffineStep> solves;  ///< every solve's evaluation point, in order
    std::vector<State> commits;      ///< every committed state, in order
    bool fail_solves = false;
    int evaluations = 0;             ///< calls of evaluate (the open API)

private:
    double mass_, damping_, stiffness_;
    std::function<double(double)> force_;
    State state_;
    std::vector<Index> free_dofs_{0};
    VectorX multipliers_, residual_ = VectorX::Zero(1), force_scale_ = VectorX::Zero(1);
    double jacobian_ = 0.0;
    mutable SparseMatrix jacobian_matrix_{1, 1};
    ConstraintRows constraint_rows_;
};

}  // namespace soma::integrators::testing
