#include "bdf2.hpp"

#include "soma/checkpoint.hpp"

#include <vector>

namespace soma::integrators {

bool Bdf2::continues_from(const State& s) const {
    const Index n = s.v.size();
    return have_history_ && s.t == history_time_ && previous_velocity_.size() == n &&
           previous_displacement_.size() == n && previous_acceleration_.size() == n;
}

void Bdf2::predict(const State& s, double h) {
    const Index n = s.v.size();
    with_history_ = continues_from(s) && rejections_here_ < kRejectionsBeforeEuler;
    if (with_history_) {
        ratio_ = h / previous_step_;
        alpha_ = ratio_ * ratio_ / (1.0 + 2.0 * ratio_);
        beta_ = (1.0 + ratio_) / (1.0 + 2.0 * ratio_);
        step_.v_pred = s.v + alpha_ * (s.v - previous_velocity_);
        displacement_ = alpha_ * previous_displacement_ + (beta_ * h) * step_.v_pred;
    } else {
        alpha_ = 0.0;
        beta_ = 1.0;
        step_.v_pred = s.v;
        displacement_ = h * s.v;
    }
    step_.q_pred = s.q.head(n) + displacement_;
    step_.t_eval = s.t + h;
    step_.a_pred.setZero();
    step_.coefficients = {beta_ * beta_ * h * h, beta_ * h, 1.0};
    start_velocity_ = s.v;
    start_acceleration_ = s.a;
    // Newton starts from the accelerations extrapolated linearly over the last two steps (when
    // a_{n-1} was itself solved: not the start's a, which may be anything).
    if (with_history_ && acceleration_history_) x_ = s.a + ratio_ * (s.a - previous_acceleration_);
    else x_ = s.a;
}

State Bdf2::finish(const State& s, double h) const {
    State next;
    next.t = s.t + h;
    next.a = x_;
    next.v = step_.v_pred + (beta_ * h) * x_;
    next.q = s.q;
    next.q.head(x_.size()) = step_.q_pred + (beta_ * beta_ * h * h) * x_;
    return next;
}

bool Bdf2::local_error(const State& s, double h, VectorX& e) const {
    if (!with_history_) {
        e = (0.5 * h * h) * x_;  // implicit Euler's
        return true;
    }
    const double w = ratio_;
    const double constant = (1.0 + w) * (1.0 + w) / (6.0 * w * (1.0 + 2.0 * w));
    e = (constant * h * h) * (x_ - s.a);
    return true;
}

void Bdf2::accepted(double h) {
    // The committed step becomes the history: q_{n+1} - q_n = (q_pred - q_n) + beta^2 h^2 x.
    displacement_ += (beta_ * beta_ * h * h) * x_;
    previous_displacement_.swap(displacement_);
    previous_velocity_.swap(start_velocity_);
    previous_acceleration_.swap(start_acceleration_);
    previous_step_ = h;
    history_time_ = committed_time_;  // the kernel may have snapped t_eval to its grid
    acceleration_history_ = with_history_;  // a_{n-1} was solved by a step that had history
    have_history_ = true;
    rejections_here_ = 0;
}

void Bdf2::save_checkpoint(CheckpointWriter& out) const {
    AffineIntegrator::save_checkpoint(out);
    out.integer("bdf2_have_history", have_history_ ? 1 : 0);
    out.integer("bdf2_acceleration_history", acceleration_history_ ? 1 : 0);
    out.real("bdf2_history_time", history_time_);
    out.real("bdf2_previous_step", previous_step_);
    out.vector("bdf2_previous_displacement", previous_displacement_);
    out.vector("bdf2_previous_velocity", previous_velocity_);
    out.vector("bdf2_previous_acceleration", previous_acceleration_);
}

void Bdf2::restore_checkpoint(CheckpointReader& in) {
    AffineIntegrator::restore_checkpoint(in);
    have_history_ = in.integer("bdf2_have_history") != 0;
    acceleration_history_ = in.integer("bdf2_acceleration_history") != 0;
    rejections_here_ = 0;
    history_time_ = in.real("bdf2_history_time");
    previous_step_ = in.real("bdf2_previous_step");
    previous_displacement_ = in.vector_of_any_size("bdf2_previous_displacement");
    previous_velocity_ = in.vector_of_any_size("bdf2_previous_velocity");
    previous_acceleration_ = in.vector_of_any_size("bdf2_previous_acceleration");
}

}  // namespace soma::integrators
