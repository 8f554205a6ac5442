// The convergence tests of the kernel's Newton iteration (newton_convergence.hpp).
#include "newton_convergence.hpp"

#include <cmath>
#include <cstddef>

namespace soma {
namespace {

/// |F| <= tolerance |S| (2-norms over the free rows); false when S was not measured.
bool balanced(double tolerance, double force_norm, std::span<const double> residual, std::span<const double> scale) {
    if (scale.empty() || scale.size() != residual.size()) return false;
    double sum = 0.0;
    for (double s : scale) sum += s * s;
    return force_norm <= tolerance * std::sqrt(sum);  // a NaN norm fails
}

}  // namespace

NewtonCriterion newton_convergence(const NewtonTolerances& tolerances, const NewtonIterate& iterate) {
    const double force = iterate.force_norm;
    // With the absolute test off (0), an exactly zero residual still passes it.
    if (force <= tolerances.absolute) return NewtonCriterion::absolute;
    if (tolerances.relative > 0.0 && force <= tolerances.relative * iterate.initial_force_norm)
        return NewtonCriterion::relative;
    if (tolerances.balance > 0.0 && balanced(tolerances.balance, force, iterate.residual, iterate.force_scale))
        return NewtonCriterion::balance;
    if (tolerances.increment > 0.0 && iterate.last_increment <= tolerances.increment) return NewtonCriterion::increment;
    if (iterate.at_round_off) return NewtonCriterion::round_off;
    return NewtonCriterion::none;
}

const char* to_string(NewtonCriterion criterion) {
    switch (criterion) {
        case NewtonCriterion::none: return "none";
        case NewtonCriterion::absolute: return "absolute";
        case NewtonCriterion::relative: return "relative";
        case NewtonCriterion::balance: return "balance";
        case NewtonCriterion::increment: return "increment";
        case NewtonCriterion::round_off: return "round_off";
    }
    return "?";
}

}  // namespace soma
