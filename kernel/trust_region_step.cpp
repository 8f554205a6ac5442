// The dogleg trust-region step (trust_region_step.hpp): Nocedal and Wright, Numerical
// Optimization (2nd ed.), Algorithm 4.1 (the radius update) and section 11.2 (the dogleg for
// nonlinear equations, on the merit |F|^2 / 2), with the diagonal scaling of MINPACK's hybrj
// (Moré, Garbow and Hillstrom, User Guide for MINPACK-1, 1980).
#include "trust_region_step.hpp"

#include "newton_trial_point.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace soma {

TrustRegionWorkspace::TrustRegionWorkspace(Index unknowns)
    : scale(VectorX::Zero(unknowns)),
      residual(VectorX::Zero(unknowns)),
      gradient(VectorX::Zero(unknowns)),
      descent(VectorX::Zero(unknowns)),
      descent_image(VectorX::Zero(unknowns)),
      newton_image(VectorX::Zero(unknowns)),
      trial(VectorX::Zero(unknowns)),
      trial_image(VectorX::Zero(unknowns)) {}

namespace {

/// rho (actual over predicted reduction of |F|^2) above which a trial point is accepted:
/// MINPACK's 1e-4, any real decrease that is not round-off of the prediction.
constexpr double kAcceptance = 1e-4;
/// rho below which the radius shrinks to a quarter of the step, and above which (for a step
/// that reached the boundary) it doubles (Nocedal and Wright, Algorithm 4.1).
constexpr double kShrinkBelow = 0.25;
constexpr double kGrowAbove = 0.75;
/// Trial points per Jacobian: the radius quarters at each, so 40 of them take it to 1e-24 of
/// where it started, far below any step that moves a DOF by more than round-off.
constexpr int kMaxTrials = 40;

/// D_j = the largest norm of J's column j met in this solve (MINPACK's mode 1): the scaled norm
/// |D p| measures a step by the forces it changes, whatever each unknown's unit, and a
/// nondecreasing D keeps the region from swelling where a column shrinks. A column that is zero
/// so far has scale 1.
void update_scale(const SparseMatrix& jacobian, VectorX& scale) {
    for (Index j = 0; j < jacobian.outerSize(); ++j) {
        double sum = 0.0;
        for (SparseMatrix::InnerIterator it(jacobian, j); it; ++it) sum += it.value() * it.value();
        scale[j] = std::max(scale[j], std::sqrt(sum));
    }
    for (Index j = 0; j < scale.size(); ++j)
        if (scale[j] == 0.0) scale[j] = 1.0;
}

/// The largest beta in [0, 1] with |D (p_c + beta (p_n - p_c))| = radius, for |D p_c| < radius
/// < |D p_n| (Nocedal and Wright, eq. 4.16): the positive root of a beta^2 + 2 b beta + c with
/// c < 0, written to avoid cancellation.
double dogleg_fraction(const VectorX& scale, const VectorX& descent, double cauchy_length_factor, const VectorX& newton,
                       double radius) {
    double a = 0.0, b = 0.0, c = 0.0;
    for (Index j = 0; j < scale.size(); ++j) {
        const double cauchy = scale[j] * cauchy_length_factor * descent[j];
        const double towards_newton = scale[j] * newton[j] - cauchy;
        a += towards_newton * towards_newton;
        b += cauchy * towards_newton;
        c += cauchy * cauchy;
    }
    c -= radius * radius;
    const double root = std::sqrt(std::max(b * b - a * c, 0.0));
    const double beta = b > 0.0 ? -c / (b + root) : (root - b) / a;
    return std::clamp(beta, 0.0, 1.0);
}

}  // namespace

TrustRegionOutcome take_trust_region_step(System& system, const AffineStep& step, const NewtonOptions& options,
                                          bool first_iteration, bool with_scale, NewtonWorkspace& work, VectorX& x) {
    TrustRegionWorkspace& tr = work.trust_region;
    const SparseMatrix& jacobian = system.jacobian();
    const VectorX& newton = work.step;
    tr.residual = system.residual();
    if (first_iteration) tr.scale.setZero();
    update_scale(jacobian, tr.scale);

    // The linear model's images of the two directions: J p_n (= -F for an exact solve; computed,
    // so that an inexact solver's step is judged by what it does) and J s for the scaled
    // steepest-descent direction s = -D^-2 J^T F of |F|^2 / 2.
    tr.newton_image.noalias() = jacobian * newton;
    tr.gradient.noalias() = jacobian.transpose() * tr.residual;
    tr.descent = -(tr.gradient.array() / tr.scale.array().square()).matrix();
    tr.descent_image.noalias() = jacobian * tr.descent;
    const double descent_length = tr.scale.cwiseProduct(tr.descent).norm();  // |D s| = |D^-1 g|
    const double descent_image_squared = tr.descent_image.squaredNorm();
    // The Cauchy step t s minimizes |F + t J s| along s: t = |D^-1 g|^2 / |J s|^2.
    const double cauchy_factor = descent_image_squared > 0.0 ? descent_length * descent_length / descent_image_squared : 0.0;
    const double cauchy_length = cauchy_factor * descent_length;
    const double newton_length = tr.scale.cwiseProduct(newton).norm();
    if (first_iteration) tr.radius = options.initial_trust_radius * newton_length;
    // A zero radius (newton_solve takes a Newton step of round-off length without the region)
    // would reject every trial.
    if (!(tr.radius > 0.0)) tr.radius = newton_length > 0.0 ? newton_length : 1.0;

    const double merit0 = tr.residual.squaredNorm();
    TrustRegionOutcome outcome;
    for (int attempt = 0;; ++attempt) {
        double length = 0.0;
        if (newton_length <= tr.radius) {
            tr.trial = newton;
            tr.trial_image = tr.newton_image;
            length = newton_length;
        } else if (cauchy_length >= tr.radius || cauchy_length == 0.0) {
            // Along the steepest descent to the boundary (or, with no descent direction, along
            // the Newton step: J^T F = 0 with F != 0 leaves no other).
            const bool along_descent = descent_length > 0.0;
            const double t = tr.radius / (along_descent ? descent_length : newton_length);
            tr.trial = t * (along_descent ? tr.descent : newton);
            tr.trial_image = t * (along_descent ? tr.descent_image : tr.newton_image);
            length = tr.radius;
        } else {
            const double beta = dogleg_fraction(tr.scale, tr.descent, cauchy_factor, newton, tr.radius);
            tr.trial = (1.0 - beta) * cauchy_factor * tr.descent + beta * newton;
            tr.trial_image = (1.0 - beta) * cauchy_factor * tr.descent_image + beta * tr.newton_image;
            length = tr.radius;
        }
        const double predicted = merit0 - (tr.residual + tr.trial_image).squaredNorm();

        const SystemEvaluation trial = evaluate_trial_point(system, step, x, tr.trial, 1.0, with_scale, work);
        const double merit = trial.merit * trial.merit;
        const double ratio = std::isfinite(merit) && predicted > 0.0 ? (merit0 - merit) / predicted
                                                                      : -std::numeric_limits<double>::infinity();
        if (ratio < kShrinkBelow) tr.radius = kShrinkBelow * length;
        else if (ratio > kGrowAbove && length >= 0.99 * tr.radius) tr.radius *= 2.0;
        if (ratio > kAcceptance) {
            take_trial_point(x, work);
            outcome.accepted = true;
            outcome.evaluation = trial;
            return outcome;
        }
        if (attempt + 1 >= kMaxTrials || tr.radius == 0.0) {
            // Where |F|^2 has a local minimum that is not a root, J^T F vanishes against |J| |F|.
            const double stationarity = tr.gradient.norm() / (tr.scale.maxCoeff() * std::sqrt(merit0));
            outcome.failure = fmt::format(
                "the trust region shrank to {:.3e} (Jacobian-scaled; the Newton step's length {:.3e}) without "
                "reducing |F| = {:.3e}: the iterate is near a local minimum of |F|^2 that is not a solution "
                "(|J^T F| / (max_j |J e_j| |F|) = {:.2e}), where no step lowers |F|; a solution reached from "
                "this start may not exist (a limit point of the load path): try a smaller step",
                tr.radius, newton_length, std::sqrt(merit0), stationarity);
            return outcome;
        }
    }
}

}  // namespace soma
