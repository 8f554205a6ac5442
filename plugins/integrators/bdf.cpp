#include "bdf.hpp"

#include "soma/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace soma::integrators {

namespace {

/// A growth of the step smaller than this is not taken (the step is held instead).
constexpr double kSmallestGrowth = 1.2;

/// The step a new step is sized for: this fraction of the one its error estimate allows. Below
/// the time loop's 0.9 (time_loop.cpp): on the six GVS example scenes 0.9 rejected 15 to 49 % of
/// the steps (a rejected step costs a whole Newton solve), 0.8 3 to 19 % (docs/performance.md).
/// CVODE's bias on the error is stronger still.
constexpr double kSafety = 0.8;

/// The ratio of the next step to this one that order p's error \p error asks for; an error of 0
/// asks for the largest growth.
double step_ratio_for(double error, int p, double largest) {
    return error > 0.0 ? std::min(largest, kSafety * std::pow(error, -1.0 / (p + 1))) : largest;
}

}  // namespace

bool Bdf::continues_from(const State& s) const {
    if (points_ == 0 || s.t != history_[0].t) return false;
    for (int j = 0; j < points_; ++j)  // the same scene (a restored checkpoint's sizes)
        if (history_[j].v.size() != s.v.size() || history_[j].q.size() != s.q.size()) return false;
    return true;
}

int Bdf::solved_points() const {
    int count = 0;
    while (count < points_ && history_[count].solved) ++count;
    return count;
}

void Bdf::predict(const State& s, double h) {
    const Index n = s.v.size();
    if (!continues_from(s)) {  // no history (the first step, or a state set from outside)
        Point& start = history_[0];
        start.t = s.t;
        start.q = s.q;
        start.v = s.v;
        start.a = s.a;
        start.solved = false;
        points_ = 1;
        order_ = 1;
        held_ = 0;
        rejections_here_ = 0;
    }
    int k = std::min(order_, points_);
    if (rejections_here_ >= kRejectionsBeforeOrderOne) k = 1;
    order_in_step_ = k;

    // s_j for the formula's nodes and, one further, for the estimate of order k + 1.
    distance_[0] = 0.0;
    for (int j = 1; j <= std::min(k + 1, points_); ++j) distance_[j] = h + (history_[0].t - history_[j - 1].t);
    leading_ = 0.0;
    for (int m = 1; m <= k; ++m) leading_ += 1.0 / distance_[m];

    // v_pred = -(1/d_0) sum_j d_j v_{n+1-j}; q_pred = q_n + (v_pred - sum_{j>=2} d_j D_{j-1}) / d_0.
    step_.v_pred.setZero();
    step_.q_pred = s.q.head(n);
    for (int j = 1; j <= k; ++j) {
        double numerator = 1.0, denominator = -distance_[j];
        for (int m = 1; m <= k; ++m) {
            if (m == j) continue;
            numerator *= distance_[m];
            denominator *= distance_[m] - distance_[j];
        }
        const double weight = numerator / denominator / leading_;  // d_j / d_0
        step_.v_pred.noalias() -= weight * history_[j - 1].v;
        if (j >= 2) {
            system_->difference(history_[j - 1].q, history_[0].q, chart_[j - 1]);
            step_.q_pred.noalias() -= weight * chart_[j - 1];
        }
    }
    step_.q_pred.noalias() += step_.v_pred / leading_;
    step_.a_pred.setZero();
    step_.t_eval = s.t + h;
    step_.coefficients = {1.0 / (leading_ * leading_), 1.0 / leading_, 1.0};

    // Newton starts from the solved accelerations extrapolated to t_{n+1} (Lagrange, at most k
    // of them: the constant a_n at order 1, bdf2's linear extrapolation at order 2). The weights
    // grow with the degree (15, -40, 45, -24, 5 for five points after a doubled step), yet on
    // the GVS scenes at most three points took 5 % more iterations on the vehicle and the serial
    // robot.
    const int used = std::min(k, solved_points());
    if (used == 0) x_ = s.a;
    else x_.setZero();
    for (int i = 0; i < used; ++i) {
        double weight = 1.0;
        for (int m = 0; m < used; ++m)
            if (m != i) weight *= distance_[m + 1] / (distance_[m + 1] - distance_[i + 1]);
        x_.noalias() += weight * history_[i].a;
    }

    // On a manifold block the chart's rate d' is not the velocity v beyond zeroth order in d
    // (System::chart_rate; a rotation's differs by d x omega / 2): the formula's q' = v is
    // corrected by delta = (chart_rate - v) / d_0 at the predicted end of the step (the Newton
    // guess), an O(h^3) term. Its rate taken at the displacement without delta is off by about
    // delta x omega / 2, an O(h^4) error a step that would cap the order at 3; each further
    // evaluation at the corrected displacement gains a factor h |omega|, and k - 1 of them leave
    // O(h^(k+3)), below the formula's O(h^(k+1)).
    if (k >= 2 && system_->configuration_size() > n) {
        predicted_velocity_ = step_.v_pred + x_ / leading_;
        correction_.setZero(n);
        for (int pass = 0; pass < k - 1; ++pass) {
            predicted_displacement_ = step_.q_pred - s.q.head(n) + correction_ + x_ / (leading_ * leading_);
            system_->chart_rate(s.q, predicted_displacement_, predicted_velocity_, chart_rate_);
            correction_ = (chart_rate_ - predicted_velocity_) / leading_;
        }
        step_.q_pred += correction_;
    }
}

State Bdf::finish(const State& s, double h) const {
    State next;
    next.t = s.t + h;
    next.a = x_;
    next.v = step_.v_pred + x_ / leading_;
    next.q = s.q;
    next.q.head(x_.size()) = step_.q_pred + x_ / (leading_ * leading_);
    return next;
}

bool Bdf::local_error(const State& start, double h, VectorX& e) const {
    (void)start, (void)h;
    const int k = order_in_step_;
    const int solved = solved_points();
    have_lower_ = k > 1;
    have_higher_ = k < max_order_ && points_ >= k + 1 && solved >= k;
    // e_p = prod_{j<=p} s_j / (p (p+1) sum_{m<=p} 1/s_m) a[tau_0..tau_{p-1}] (bdf.hpp).
    const auto coefficient = [&](int p) {
        double product = 1.0, sum = 0.0;
        for (int j = 1; j <= p; ++j) {
            product *= distance_[j];
            sum += 1.0 / distance_[j];
        }
        return product / (p * (p + 1) * sum);
    };
    // Newton's table of divided differences over a_{n+1}, a_n, ...: after level m its first
    // entry is the divided difference over m + 1 points, order m + 1's derivative estimate.
    const int points = have_higher_ ? k + 1 : k;
    divided_[0] = x_;
    for (int i = 1; i < points; ++i) divided_[i] = history_[i - 1].a;
    for (int level = 0; level < points; ++level) {
        for (int i = 0; level > 0 && i + level < points; ++i)
            divided_[i] = (divided_[i] - divided_[i + 1]) / (distance_[i + level] - distance_[i]);
        const int p = level + 1;
        if (p == k - 1) lower_error_ = coefficient(p) * divided_[0];
        if (p == k) e = coefficient(p) * divided_[0];
        if (p == k + 1) higher_error_ = coefficient(p) * divided_[0];
    }
    return true;
}

void Bdf::accepted(double h) {
    // The committed state becomes history_[0]; the oldest point's buffers are reused.
    std::rotate(history_.rbegin(), history_.rbegin() + 1, history_.rend());
    Point& newest = history_[0];
    const State& committed = system_->state();
    newest.t = committed_time_;
    newest.q = committed.q;
    newest.v = committed.v;
    newest.a = committed.a;
    newest.solved = true;
    points_ = std::min(points_ + 1, kHighestOrder);
    rejections_here_ = 0;

    const int k = order_in_step_;
    if (h == held_step_ && k == held_order_) ++held_;
    else {
        held_ = 1;
        held_step_ = h;
        held_order_ = k;
    }
    if (!error_controlled()) {  // the order rises by one a step (as the history allows) to max_order
        order_ = max_order_;
        next_ratio_ = 0.0;
        return;
    }
    // An accepted step whose error asks for a smaller next one gets it at once (unlike CVODE,
    // which waits for the rejection: on the GVS scenes that took more steps, 1025 against 649 on
    // the parallel robot, and more rejections); growth and order changes wait for the hold.
    const double largest = largest_step_ratio();
    double ratio = step_ratio_for(step_error_, k, largest);
    int order = k;
    if (held_ >= k + 1) {  // held long enough: the neighbouring orders compete
        if (have_lower_) {
            const double lower = step_ratio_for(error_measure(lower_error_), k - 1, largest);
            if (lower > ratio) ratio = lower, order = k - 1;
        }
        if (have_higher_) {
            const double higher = step_ratio_for(error_measure(higher_error_), k + 1, largest);
            if (higher > ratio) ratio = higher, order = k + 1;
        }
        // A growth below 20 % is not taken; the order whose estimate allows the largest step is
        // (at this step, which its estimate allows). Keeping the current order there instead, or
        // keeping it and shrinking where its own estimate asked, took more steps on the GVS
        // scenes: 281 and 353 against 271 on the finger, 696 and 710 against 649 on the parallel
        // robot.
        if (ratio >= 1.0 && ratio < kSmallestGrowth) ratio = 1.0;
    } else {
        ratio = std::min(ratio, 1.0);  // held: shrink only where the error asks for it
    }
    order_ = order;
    next_ratio_ = std::max(ratio, 0.2);
}

void Bdf::rejected() {
    ++rejections_here_;
    const int k = order_in_step_;
    double ratio = step_ratio_for(step_error_, k, 1.0);
    if (rejections_here_ > 1 && k == rejected_order_ && step_.dt < rejected_step_) {
        // After a small last step the variable-coefficient error falls more slowly than h^(k+1):
        // its other nodes keep their spacing (at order 2, C(omega) of bdf2.hpp grows as 1/omega).
        // The second and later attempts from one state use the order the error showed between
        // the last two attempts, between 1/2 and k + 1.
        const double slope = std::log(rejected_error_ / step_error_) / std::log(rejected_step_ / step_.dt);
        const double exponent = std::clamp(slope, 0.5, static_cast<double>(k + 1));
        ratio = std::min(ratio, kSafety * std::pow(step_error_, -1.0 / exponent));
    }
    rejected_order_ = k;
    rejected_step_ = step_.dt;
    rejected_error_ = step_error_;
    int order = k;
    if (have_lower_) {
        const double lower = step_ratio_for(error_measure(lower_error_), k - 1, 1.0);
        if (lower > ratio) ratio = lower, order = k - 1;
    }
    order_ = order;
    next_ratio_ = std::clamp(ratio, 0.2, 0.9);
}

void Bdf::save_checkpoint(CheckpointWriter& out) const {
    AffineIntegrator::save_checkpoint(out);
    out.integer("bdf_points", points_);
    out.integer("bdf_order", order_);
    out.integer("bdf_held", held_);
    out.integer("bdf_held_order", held_order_);
    out.real("bdf_held_step", held_step_);
    for (int j = 0; j < points_; ++j) {
        const Point& p = history_[j];
        const std::string prefix = "bdf_point" + std::to_string(j) + "_";
        out.real(prefix + "t", p.t);
        out.vector(prefix + "q", p.q);
        out.vector(prefix + "v", p.v);
        out.vector(prefix + "a", p.a);
        out.integer(prefix + "solved", p.solved ? 1 : 0);
    }
}

void Bdf::restore_checkpoint(CheckpointReader& in) {
    AffineIntegrator::restore_checkpoint(in);
    points_ = static_cast<int>(in.integer("bdf_points"));
    if (points_ < 0 || points_ > kHighestOrder)
        throw CheckpointError("checkpoint: bdf's history holds " + std::to_string(points_) + " points (0 to " +
                              std::to_string(kHighestOrder) + " expected)");
    order_ = static_cast<int>(in.integer("bdf_order"));
    if (order_ < 1 || order_ > kHighestOrder)
        throw CheckpointError("checkpoint: bdf's order is " + std::to_string(order_) + " (1 to " +
                              std::to_string(kHighestOrder) + " expected)");
    held_ = static_cast<int>(in.integer("bdf_held"));
    held_order_ = static_cast<int>(in.integer("bdf_held_order"));
    held_step_ = in.real("bdf_held_step");
    // A restart may lower max_order (--set): the next steps then start at the new highest.
    if (order_ > max_order_) {
        order_ = max_order_;
        held_ = 0;
    }
    rejections_here_ = 0;
    for (int j = 0; j < points_; ++j) {
        Point& p = history_[j];
        const std::string prefix = "bdf_point" + std::to_string(j) + "_";
        p.t = in.real(prefix + "t");
        p.q = in.vector_of_any_size(prefix + "q");
        p.v = in.vector_of_any_size(prefix + "v");
        p.a = in.vector_of_any_size(prefix + "a");
        p.solved = in.integer(prefix + "solved") != 0;
        // Points newest first at strictly earlier times, of one size, and only the oldest may
        // hold an acceleration that was not solved (the start's).
        const bool consistent = j == 0 || (p.t < history_[j - 1].t && p.q.size() == history_[0].q.size() &&
                                           p.v.size() == history_[0].v.size() && history_[j - 1].solved);
        if (!consistent || p.a.size() != p.v.size())
            throw CheckpointError("checkpoint: bdf's history point " + std::to_string(j) +
                                  " does not continue the ones before it (time, sizes or solved flag)");
    }
}

}  // namespace soma::integrators
