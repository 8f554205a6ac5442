#include "explicit_integrators.hpp"

#include "affine_integrators.hpp"

#include "soma/checkpoint.hpp"

#include <string>

namespace soma::integrators {

std::string ExplicitPositionIntegrator::failure(const std::string& who, const NewtonReport& newton) {
    // The mass matrix is always solvable: an explicit step fails when the state has grown without
    // bound, which is the stability limit's doing far more often than a bad scene.
    if (newton.diagnosis.find("not finite") == std::string::npos) return newton.diagnosis + "\n  (" + who + ")";
    return newton.diagnosis + "\n  " + who + " is explicit in the positions: stable only for dt < 2/omega_max, omega_max "
                              "the scene's highest frequency (a stiff rod's or contact's), and a state that grew "
                              "without bound says dt was above it. Lower integrator.dt, or choose an implicit "
                              "integrator (implicit_euler, bdf2, implicit_midpoint)";
}

NewtonReport ExplicitPositionIntegrator::solve_half(System& system, double t, double h, const VectorX& q_offset,
                                                    const VectorX& v_pred, double c_v, double moving_weight, VectorX& a) {
    const State& start = system.state();
    const Index n = system.dof_count();
    step_.t_eval = t;
    step_.dt = h;
    step_.q_pred = start.q.head(n) + q_offset;
    step_.v_pred = v_pred;
    if (step_.a_pred.size() != n) step_.a_pred = VectorX::Zero(n);
    step_.coefficients = {0.0, c_v, 1.0};
    // The rows are held at q (+) h (v_pred + moving_weight a), or at the velocity level.
    if (moving_weight > 0.0) {
        step_.explicit_rows = AffineStep::ExplicitRows::end_position;
        step_.end_displacement = h * v_pred;
        step_.end_c_q = h * moving_weight;
    } else {
        step_.explicit_rows = AffineStep::ExplicitRows::velocity;
    }
    return system.solve(step_, a);
}

StepReport SymplecticEuler::step(System& system, double h) {
    const State& start = system.state();
    const Index n = system.dof_count();
    if (offset_.size() != n) offset_ = VectorX::Zero(n);
    a_ = start.a;  // the last step's acceleration: the first guess (exact when f did not change)
    // M a = f(t, q, v); the rows at q + h v+ = q + h (v + h a).
    offset_.setZero();
    const NewtonReport newton = solve_half(system, start.t, h, offset_, start.v, 0.0, h, a_);
    StepReport report;
    report.newton_iterations = newton.iterations;
    report.converged = newton.converged;
    if (!newton.converged) {
        report.diagnosis = failure("symplectic Euler", newton);
        return report;
    }
    State next;
    next.t = start.t + h;
    next.v = start.v + h * a_;
    // The solve checked its evaluation point, the step's start: the contributors' checks of a
    // step (a contact's motion guard, a rotation's range) must see where it ends.
    offset_ = h * next.v;
    step_.t_eval = next.t;
    step_.q_pred = start.q.head(n) + offset_;
    step_.v_pred = next.v;
    step_.a_pred.setZero();
    step_.coefficients = {0.0, 0.0, 1.0};
    if (std::string refusal = system.check_solution(step_, a_); !refusal.empty()) {
        report.converged = false;
        report.diagnosis = refusal + "\n  (symplectic Euler, at the step's end)";
        return report;
    }
    next.q = start.q;
    next.q.head(n) += offset_;
    next.a = a_;
    system.commit(std::move(next));
    return report;
}

StepReport BridsonMarino::step(System& system, double h) {
    StepReport report;
    if (!initialized_) {
        if (!solve_consistent_acceleration(system, step_, a2_, report, "Bridson-Marino")) return report;
        initialized_ = true;
    }
    const State& start = system.state();
    const Index n = system.dof_count();
    if (offset_.size() != n) offset_ = VectorX::Zero(n);
    // First half: M a1 = f(t, q, v + h/2 a1); the rows at q + h v' (ArtiSynth's "modify the half-step
    // velocity so that it satisfies the constraints").
    offset_.setZero();
    a1_ = start.a;
    const NewtonReport first = solve_half(system, start.t, h, offset_, start.v, 0.5 * h, 0.5 * h, a1_);
    report.newton_iterations = first.iterations;
    if (!first.converged) {
        report.diagnosis = failure("Bridson-Marino (its first half step)", first);
        return report;
    }
    v_half_ = start.v + 0.5 * h * a1_;
    // Second half at q+ = q + h v': M a2 = f(t + h, q+, v+), v+ = v + h/2 a + h/2 a2 (the trapezoidal
    // rule from the start's acceleration a); the rows at the velocity level, G(q+) v+ + dC/dt = 0.
    offset_ = h * v_half_;
    v_pred_ = start.v + 0.5 * h * start.a;
    a2_ = a1_;
    const NewtonReport second = solve_half(system, start.t + h, h, offset_, v_pred_, 0.5 * h, 0.0, a2_);
    report.newton_iterations += second.iterations;
    if (!second.converged) {
        report.diagnosis = failure("Bridson-Marino (its second half step)", second);
        return report;
    }
    report.converged = true;
    State next;
    next.t = start.t + h;
    next.v = v_pred_ + 0.5 * h * a2_;
    next.q = start.q;
    next.q.head(n) += offset_;
    next.a = a2_;  // M a = f at the end: the next step's start acceleration
    system.commit(std::move(next));
    return report;
}

void BridsonMarino::save_checkpoint(CheckpointWriter& out) const { out.integer("initialized", initialized_ ? 1 : 0); }

void BridsonMarino::restore_checkpoint(CheckpointReader& in) { initialized_ = in.integer("initialized") != 0; }

}  // namespace soma::integrators
