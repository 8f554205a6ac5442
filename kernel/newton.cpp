// The kernel's Newton iteration over the open System API (interfaces/soma/newton.hpp): the
// damped Newton method of MAT-DiSMech (Lahoti & Jawed, section 3), generalised to the affine
// step map of integrator.hpp and to constraint rows (a KKT system).
#include "soma/newton.hpp"

#include "newton_convergence.hpp"
#include "newton_trial_point.hpp"
#include "trust_region_step.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <span>

namespace soma {

NewtonWorkspace::NewtonWorkspace(const System& system)
    : x_trial(VectorX::Zero(system.dof_count())),
      step(VectorX::Zero(system.unknown_count())),
      rhs(VectorX::Zero(system.unknown_count())),
      lambda(VectorX::Zero(system.constraint_row_count())),
      lambda_trial(VectorX::Zero(system.constraint_row_count())),
      trust_region(system.unknown_count()) {}

namespace {

/// Required contraction of |F| by a chord step (a solve with a factorization of another
/// iterate's Jacobian): below this the step is taken, above it a Newton step replaces it. Half
/// keeps a slowly contracting chord iteration (whose convergence tests would then pass late,
/// after many cheap steps) from replacing Newton's quadratic one.
constexpr double kChordContraction = 0.5;

/// Tries x + Δ with J_old Δ = -F(x) through the factorization in hand; true (x and current
/// updated) when the solve succeeded and |F| at least halved.
bool take_chord_step(System& system, const AffineStep& step, VectorX& x, SystemEvaluation& current, bool with_scale,
                     NewtonWorkspace& work) {
    work.rhs = -system.residual();
    if (!system.solve_linear(work.rhs, work.step) || !work.step.allFinite()) return false;
    const SystemEvaluation trial = evaluate_trial_point(system, step, x, work.step, 1.0, with_scale, work);
    if (!(std::isfinite(trial.merit) && trial.merit <= kChordContraction * current.merit)) return false;
    take_trial_point(x, work);
    current = trial;
    return true;
}

/// The step along the Newton step work.step from x, and its evaluation: x and the multipliers
/// are moved to the point taken.
SystemEvaluation take_line_search_step(System& system, const AffineStep& step, const NewtonOptions& options,
                                       int iteration, bool with_scale, const SystemEvaluation& current,
                                       NewtonWorkspace& work, VectorX& x) {
    // Backtracking line search on phi = 1/2 |F|^2 (Armijo, slope -|F|^2 for an exact Newton
    // step), from iteration line_search_start on: the first full Newton steps of a stiff rod
    // often raise |F| (stretching from linearized rotations) yet converge quadratically, and
    // backtracking them makes Newton crawl (MAT-DiSMech starts its line search after 10
    // iterations). A non-finite trial residual is always backtracked.
    // Trial points are evaluated without the Jacobian: most steps converge after one
    // iteration, and the Jacobian at the converged point would be wasted. The next
    // iteration assembles it when needed.
    double alpha = 1.0;
    const double phi0 = 0.5 * current.merit * current.merit;
    SystemEvaluation trial;
    for (int attempt = 0;; ++attempt) {
        trial = evaluate_trial_point(system, step, x, work.step, alpha, with_scale, work);
        const double phi = 0.5 * trial.merit * trial.merit;
        const bool searching = options.line_search && iteration >= options.line_search_start;
        if (!searching && std::isfinite(phi)) break;
        if (std::isfinite(phi) && phi <= (1.0 - 2.0e-4 * alpha) * phi0) break;
        if (attempt + 1 >= options.line_search_steps) break;  // take the smallest step tried
        alpha *= 0.5;
    }
    take_trial_point(x, work);
    return trial;
}

}  // namespace

NewtonReport newton_solve(System& system, const AffineStep& step, const NewtonOptions& options, NewtonWorkspace& work,
                          VectorX& x) {
    NewtonReport report;
    report.diagnosis = system.begin_solve(step, x);
    if (!report.diagnosis.empty()) return report;

    const std::vector<Index>& free_dofs = system.free_dofs();
    const auto nf = static_cast<Index>(free_dofs.size());
    const Index rows = system.constraint_row_count();
    // How far a unit of x moves q: c_q; in an explicit step (c_q = 0), through its end map or, for
    // a solve of the velocity (the second half of velocity Verlet), as the velocity would over dt
    // (a weight of 0 would take every first step for round-off and stop there).
    const JacobianCoefficients& c = step.coefficients;
    const double position_weight = c.c_q > 0.0 ? c.c_q
                                   : step.explicit_rows == AffineStep::ExplicitRows::end_position ? step.end_c_q
                                                                                               : c.c_v * step.dt;
    // The increment test compares a change of q per unit time in dynamics (statics: of q itself).
    const bool dynamic = step.dt > 0.0 && (c.c_v > 0.0 || c.c_q == 0.0);
    const double increment_scale = dynamic ? 1.0 / step.dt : 1.0;
    work.lambda = system.multipliers();
    const NewtonTolerances tolerances = NewtonTolerances::of(options);
    // The force scale costs a little per evaluation: measured only for the balance test.
    const bool with_scale = options.balance_tolerance > 0.0;

    // With jacobian_reuse, an iteration first tries a chord step through the factorization in
    // hand (of an earlier iterate or step), and the first evaluation skips the Jacobian.
    // The trust region's steps need the Jacobian at each iterate: no chord steps with it.
    const bool reuse = options.jacobian_reuse > 0 && options.globalization == NewtonGlobalization::line_search;
    bool chord_refused = false;  // a chord step failed to contract: Newton steps from here on
    SystemEvaluation current = system.evaluate(step, x, work.lambda, !reuse, with_scale);
    report.initial_residual = current.force_norm;
    bool have_jacobian = !reuse;
    double last_increment = std::numeric_limits<double>::infinity();
    // Largest |change of q| of the last undamped Newton step. The convergence tests use the
    // undamped step: a line search that shortened the step says nothing about convergence.
    double last_step_size = std::numeric_limits<double>::infinity();
    bool first_trust_step = true;  // the trust region's scaling and radius start at the first Newton step
    for (int iteration = 0;; ++iteration) {
        report.iterations = iteration;
        report.residual = current.force_norm;
        if (!std::isfinite(current.merit)) {
            report.diagnosis = system.diagnose(step, "the residual is not finite (NaN or infinity)");
            return report;
        }
        // Besides the configured tests, a full Newton step that moves no DOF by more than
        // round-off (1e-13 of the largest |q|) means the residual is at its floating-point
        // floor: more iterations cannot lower it, so the step is converged.
        const double force = current.force_norm;
        NewtonIterate iterate;
        iterate.force_norm = force;
        iterate.initial_force_norm = report.initial_residual;
        iterate.residual = std::span<const double>(system.residual().data(), static_cast<std::size_t>(nf));
        if (current.force_scale)
            iterate.force_scale = std::span<const double>(current.force_scale->data(), static_cast<std::size_t>(nf));
        iterate.last_increment = last_increment;
        iterate.at_round_off = iteration > 0 && last_step_size <= 1e-13 * current.configuration_scale;
        const bool forces_converged = newton_convergence(tolerances, iterate) != NewtonCriterion::none;
        const bool converged = forces_converged && (rows == 0 || current.constraint_violation <= options.constraint_tolerance);
        if (converged) {
            report.converged = true;
            system.multipliers() = work.lambda;
            return report;
        }
        if (iteration == options.max_iterations) {
            const auto tolerance = [](double value) { return value > 0.0 ? fmt::format("{:.1e}", value) : "off"; };
            report.diagnosis = system.diagnose(
                step, fmt::format("Newton did not converge in {} iterations: |F| = {:.3e} (first iterate {:.3e}; "
                                  "absolute tolerance {}, relative {}, balance {} of |S| = {:.3e}){}",
                                  iteration, force, report.initial_residual, tolerance(options.absolute_tolerance),
                                  tolerance(options.relative_tolerance), tolerance(options.balance_tolerance),
                                  current.force_scale ? current.force_scale->head(nf).norm() : 0.0,
                                  rows == 0 ? std::string()
                                            : fmt::format("; largest constraint violation {:.3e} m (tolerance {:.1e})",
                                                          current.constraint_violation, options.constraint_tolerance)));
            return report;
        }
        if (reuse && !chord_refused && report.chord_steps < options.jacobian_reuse &&
            take_chord_step(system, step, x, current, with_scale, work)) {
            ++report.chord_steps;
            have_jacobian = false;
            // The increment and round-off tests measure a Newton step; a chord step's length says
            // less about the distance to the solution when it contracts slowly.
            last_step_size = last_increment = std::numeric_limits<double>::infinity();
            continue;
        }
        if (reuse && !chord_refused) {
            // No factorization to reuse (the pattern changed, the first step), too many chord steps,
            // or one that did not contract: the system's buffers may hold a rejected trial's.
            chord_refused = true;
            have_jacobian = false;
        }
        if (!have_jacobian) system.evaluate(step, x, work.lambda, true, false);

        ++report.factorizations;
        if (!system.factorize()) {
            report.diagnosis =
                system.diagnose(step, "the linear solver failed to factorize the Jacobian: " + system.linear_solver_error());
            return report;
        }
        work.rhs = -system.residual();
        const bool solved = system.solve_linear(work.rhs, work.step);
        if (!solved || !work.step.allFinite()) {
            report.diagnosis = system.diagnose(
                step, "the linear solve failed: " +
                          (solved ? std::string("non-finite Newton step") : system.linear_solver_error()));
            return report;
        }

        // The convergence tests measure the undamped Newton step: a shortened step says nothing
        // about convergence.
        last_step_size = position_weight * work.step.head(nf).cwiseAbs().maxCoeff();
        last_increment = last_step_size * increment_scale;
        // A Newton step that moves q by round-off only (or within the increment tolerance) is
        // taken as it is: the next iteration converges on it, while the trust region's test on
        // |F|^2 would judge noise (at the floor of |F| no step lowers it).
        const bool negligible_step = last_step_size <= 1e-13 * current.configuration_scale ||
                                     (options.increment_tolerance > 0.0 && last_increment <= options.increment_tolerance);
        if (options.globalization == NewtonGlobalization::trust_region && !negligible_step) {
            TrustRegionOutcome outcome =
                take_trust_region_step(system, step, options, first_trust_step, with_scale, work, x);
            first_trust_step = false;
            have_jacobian = false;
            if (!outcome.accepted) {
                // The diagnosis lists the iterate's worst rows, not the last trial point's.
                system.evaluate(step, x, work.lambda, false, false);
                report.diagnosis = system.diagnose(step, outcome.failure);
                return report;
            }
            current = outcome.evaluation;
            continue;
        }
        current = take_line_search_step(system, step, options, iteration, with_scale, current, work, x);
        have_jacobian = false;
    }
}

}  // namespace soma
