#pragma once
/// \file newton.hpp
/// \brief The kernel's Newton iteration, as one function over the open System API (system.hpp).
///
/// System::solve runs it with the scene's `integrator.newton` options; an integrator may call it
/// with its own options (e.g. a looser tolerance for a predictor solve) or run a different
/// iteration over the same System calls.

#include "soma/api.hpp"
#include "soma/system.hpp"

namespace soma {

/// How an iteration that the Newton step does not improve is made to make progress.
enum class NewtonGlobalization {
    /// Backtracking (Armijo) on |F|^2 / 2 along the Newton step, from NewtonOptions::line_search_start.
    line_search,
    /// Powell's dogleg in a trust region of the Jacobian-scaled norm (Nocedal and Wright,
    /// Numerical Optimization, 2nd ed., Algorithm 4.1 and section 11.2; the scaling of MINPACK's
    /// hybrj, Moré, Garbow and Hillstrom 1980): the step runs from the steepest-descent (Cauchy)
    /// step of |F|^2 / 2 towards the Newton step, within a radius that grows and shrinks with
    /// how well the linear model predicted |F|. It leaves the Newton step's basin only as far as
    /// the model is trusted, where a line search along a poor Newton direction stalls.
    trust_region,
};

/// Settings of the Newton iteration (the scene's integrator.newton block). A tolerance of 0
/// turns its test off; the force rows are converged when any test passes.
struct NewtonOptions {
    /// |F_free| <= this (N). Off by default; a scene that writes it (and not balance_tolerance)
    /// gets the absolute test alone, as before the balance test existed.
    double absolute_tolerance = 0.0;
    double relative_tolerance = 1e-10;
    /// |F_free| <= this * |S| (2-norms), with S_i the sum of the absolute values of the terms
    /// assembled into free row i (SystemEvaluation::force_scale): the residual is small against
    /// the forces that cancel in it, whatever their units. Why 3e-8 (about 2 sqrt(eps)): the
    /// round-off floor of |F| / |S| is 1e-16 times the terms' conditioning (measured 3e-13 to
    /// 2e-11 on a stiff rod), far below it, so it is always reachable; and from it one more
    /// quadratically converging Newton step lands on that floor, gaining digits that no time
    /// step resolves (docs/architecture.md, "Newton convergence").
    double balance_tolerance = 3e-8;
    double increment_tolerance = 0.0;
    double constraint_tolerance = 1e-10;
    int max_iterations = 25;
    NewtonGlobalization globalization = NewtonGlobalization::line_search;
    /// trust_region: the first radius, as a multiple of the first Newton step's length in the
    /// scaled norm |D p| (D_j: the largest norm of J's column j met in the solve). 1: the first
    /// step is the full Newton step, as with the line search.
    double initial_trust_radius = 1.0;
    bool line_search = true;
    int line_search_steps = 10;
    int line_search_start = 4;
    /// Chord (modified Newton) steps allowed per solve: an iteration first solves with the
    /// factorization in hand, of an earlier iterate or time step, and keeps the step when it at
    /// least halves |F|; otherwise, or after this many, the Jacobian is assembled and factorized
    /// (a Newton step) for the rest of the solve. 0: Newton steps only. The convergence tests on
    /// |F| are unchanged, so the answer is the same to the tolerance; the increment and round-off
    /// tests count Newton steps only. With the line search only: the trust region needs the
    /// Jacobian at every iterate, and newton_solve takes no chord step with it.
    int jacobian_reuse = 0;
};

/// \brief The buffers of the dogleg step (NewtonGlobalization::trust_region), over the unknowns.
struct TrustRegionWorkspace {
    explicit TrustRegionWorkspace(Index unknowns);
    VectorX scale;           ///< D: the largest column norms of J met in this solve
    VectorX residual;        ///< F at the iterate (System::residual is overwritten by trial points)
    VectorX gradient;        ///< J^T F
    VectorX descent;         ///< -D^-2 J^T F, the scaled steepest-descent direction
    VectorX descent_image;   ///< J times descent
    VectorX newton_image;    ///< J times the Newton step
    VectorX trial;           ///< the step tried
    VectorX trial_image;     ///< J times the step tried
    double radius = 0.0;     ///< in the scaled norm |D p|
};

/// \brief The work buffers of newton_solve, sized once for a System (Pinocchio's model/data
/// split: the System is the model, this is the data). No allocation per iteration follows.
struct NewtonWorkspace {
    explicit NewtonWorkspace(const System& system);
    VectorX x_trial;      ///< dof_count()
    VectorX step;         ///< the Newton increment over the unknowns
    VectorX rhs;          ///< -residual
    VectorX lambda, lambda_trial;  ///< constraint_row_count()
    TrustRegionWorkspace trust_region;  ///< the dogleg's buffers (NewtonGlobalization::trust_region)
};

/// \brief Solves F(x) = 0 and the constraint rows for x (full size; holds the initial guess)
/// and the multipliers (System::multipliers, left at the solution on success and unchanged on
/// failure).
///
/// Each iteration assembles J at the iterate, solves J dx = -F, and takes the step with an
/// Armijo backtracking line search on |F|^2 / 2 from iteration options.line_search_start on, or
/// (options.globalization = trust_region) the dogleg step within the trust region.
/// Converged when |F_free| <= absolute_tolerance, or <= relative_tolerance |F_free(first
/// iterate)|, or |F_free| <= balance_tolerance |S| (the force scale the System measures, see
/// NewtonOptions), or the last increment moved q by less than increment_tolerance
/// (per second in dynamics) or by round-off; and every constraint row satisfies
/// |C + alpha lambda| <= constraint_tolerance.
SOMA_API NewtonReport newton_solve(System& system, const AffineStep& step, const NewtonOptions& options,
                                   NewtonWorkspace& work, VectorX& x);

}  // namespace soma
