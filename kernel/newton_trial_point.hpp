#pragma once
// A trial point of the kernel's Newton iteration (newton.cpp: chord step, line search; the
// trust region's dogleg, trust_region_step.cpp): the iterate moved by a multiple of an increment
// over the unknowns, evaluated without the Jacobian, and made the iterate when taken.
#include "soma/newton.hpp"

namespace soma {

/// Evaluates (x, work.lambda) + scale * increment into work.x_trial and work.lambda_trial: the
/// increment's first free_dofs().size() entries move the free DOFs, the rest the multipliers.
inline SystemEvaluation evaluate_trial_point(System& system, const AffineStep& step, const VectorX& x,
                                             const VectorX& increment, double scale, bool with_scale,
                                             NewtonWorkspace& work) {
    const std::vector<Index>& free_dofs = system.free_dofs();
    const auto nf = static_cast<Index>(free_dofs.size());
    const Index rows = system.constraint_row_count();
    work.x_trial = x;
    for (Index i = 0; i < nf; ++i) work.x_trial[free_dofs[i]] += scale * increment[i];
    if (rows > 0) work.lambda_trial = work.lambda + scale * increment.tail(rows);
    return system.evaluate(step, work.x_trial, work.lambda_trial, false, with_scale);
}

/// Makes the last trial point the iterate.
inline void take_trial_point(VectorX& x, NewtonWorkspace& work) {
    x.swap(work.x_trial);
    work.lambda.swap(work.lambda_trial);
}

}  // namespace soma
