#pragma once
// One iteration of the dogleg trust-region method (newton.hpp, NewtonGlobalization::trust_region):
// the step between the steepest-descent step of |F|^2 / 2 and the Newton step that fits a trust
// region of the Jacobian-scaled norm, tried until the actual reduction of |F|^2 is a fair share
// of the linear model's prediction.

#include "soma/newton.hpp"

#include <string>

namespace soma {

/// What one dogleg iteration did.
struct TrustRegionOutcome {
    /// A trial point reduced |F|^2 by more than a small fraction of the predicted reduction:
    /// x and the multipliers were moved to it, and \p evaluation is its evaluation.
    bool accepted = false;
    SystemEvaluation evaluation;
    /// When not accepted: why (the region shrank to nothing without reducing |F|).
    std::string failure;
};

/// \brief The dogleg step from the iterate (x, work.lambda), at which the System's residual() and
/// jacobian() were last evaluated, given the Newton step work.step over the unknowns.
///
/// On the solve's first iteration (\p first_iteration) the scaling and the radius start afresh:
/// the radius is options.initial_trust_radius times the Newton step's scaled length. Every
/// trial point is evaluated without the Jacobian (\p with_scale: with the force scale). Does
/// not allocate when accepted.
TrustRegionOutcome take_trust_region_step(System& system, const AffineStep& step, const NewtonOptions& options,
                                          bool first_iteration, bool with_scale, NewtonWorkspace& work, VectorX& x);

}  // namespace soma
