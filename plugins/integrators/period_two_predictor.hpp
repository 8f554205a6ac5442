#pragma once
/// \file period_two_predictor.hpp
/// \brief Newton's first guess for the second-order integrators (implicit midpoint, Newmark):
/// the unknown of the step before last.
///
/// Why: the midpoint and trapezoidal rules do not damp modes the step cannot resolve. A mode
/// with omega h >> 1 (a rod's stretching and twisting at dt = 5 ms: omega h ~ 50-100) has the
/// amplification factor e^{i(pi - eps)}, eps ~ 4/(omega h): it flips sign every step. Its share
/// of the unknown x (an acceleration) flips too, so the previous x, the guess implicit Euler
/// uses (which damps such modes), is wrong by twice it there, and the midpoint position
/// q + h/2 v + h^2/4 x lands about A omega h away from where the mode's amplitude A puts it.
/// The x of two steps back matches the flipping modes up to O(eps) and smooth motion to
/// O(2 h da/dt) (the previous x: O(h da/dt)). Measured on the hanging helix (docs/performance.md):
/// the first residual drops by 10-70x and the mean Newton iterations by about 0.5 per step.
/// Used only when the two previous accepted steps had the step size of this one; otherwise (the
/// first steps, after a retry or a change of dt) the previous x.

#include "soma/checkpoint.hpp"
#include "soma/types.hpp"

namespace soma::integrators {

class PeriodTwoPredictor {
public:
    /// Records the converged unknown of an accepted step of size h (no allocation once sized).
    void accept(const VectorX& x, double h) {
        if (h != step_ || count_ == 0) count_ = 0;
        step_ = h;
        before_last_.swap(last_);
        last_ = x;
        ++count_;
    }
    /// Sets `guess` to the unknown of the step before last when it applies to a step of size h;
    /// returns false (and leaves `guess`) otherwise.
    bool predict(double h, VectorX& guess) const {
        if (count_ < 2 || h != step_ || before_last_.size() != guess.size()) return false;
        guess = before_last_;
        return true;
    }

    /// Its history, for a checkpoint (the restarted run then guesses as the uninterrupted one).
    void save_checkpoint(CheckpointWriter& out) const {
        out.vector("predictor_last", last_);
        out.vector("predictor_before_last", before_last_);
        out.real("predictor_step", step_);
        out.integer("predictor_count", count_);
    }
    void restore_checkpoint(CheckpointReader& in) {
        last_ = in.vector_of_any_size("predictor_last");
        before_last_ = in.vector_of_any_size("predictor_before_last");
        step_ = in.real("predictor_step");
        count_ = static_cast<int>(in.integer("predictor_count"));
    }

private:
    VectorX last_, before_last_;
    double step_ = 0.0;
    int count_ = 0;  ///< accepted steps recorded at step_
};

}  // namespace soma::integrators
