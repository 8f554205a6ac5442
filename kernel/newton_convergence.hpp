#pragma once
// The convergence decision of the kernel's Newton iteration (newton.hpp, newton_solve): which
// of the configured tests an iterate passes. A free function over plain data, so that each
// test can be checked on its own (tests/kernel/test_newton_convergence.cpp).

#include "soma/newton.hpp"

#include <limits>
#include <span>

namespace soma {

/// The force tests of NewtonOptions; a tolerance of 0 turns its test off.
struct NewtonTolerances {
    double absolute = 0.0;   ///< on |F_free| (N)
    double relative = 0.0;   ///< on |F_free| / |F_free(first iterate)|
    double balance = 0.0;    ///< on |F_free| / |S| (S_i: row i's force scale)
    double increment = 0.0;  ///< on the last undamped step's largest change of q (per second in dynamics)

    static NewtonTolerances of(const NewtonOptions& options) {
        return {options.absolute_tolerance, options.relative_tolerance, options.balance_tolerance,
                options.increment_tolerance};
    }
};

/// What the tests read at one iterate.
struct NewtonIterate {
    double force_norm = 0.0;          ///< |F_free|
    double initial_force_norm = 0.0;  ///< |F_free| at the solve's first iterate
    std::span<const double> residual;     ///< F over the free DOFs' rows
    std::span<const double> force_scale;  ///< S over the same rows; empty when not measured
    /// Largest |change of q| of the last undamped Newton step (per second in dynamics); infinite
    /// before the first step.
    double last_increment = std::numeric_limits<double>::infinity();
    /// The last undamped step moved no DOF by more than round-off of |q|.
    bool at_round_off = false;
};

/// The test that an iterate passed, in the order they are tried.
enum class NewtonCriterion { none, absolute, relative, balance, increment, round_off };

/// \brief Whether the force rows of \p iterate are converged, and by which test.
///
/// - absolute: |F_free| <= tolerances.absolute (off: only an exactly zero residual);
/// - relative: |F_free| <= tolerances.relative * |F_free(first iterate)|;
/// - balance: |F_free| <= tolerances.balance * |S|, where S_i is the sum of the absolute values
///   of the terms assembled into free row i (2-norms): the residual is small against the forces
///   that cancel in it, whatever the units (a normwise backward error; newton.hpp and
///   docs/architecture.md, "Newton convergence"). Not passed when S was not measured;
/// - increment: the last undamped step moved q by at most tolerances.increment;
/// - round_off: the last undamped step moved q by round-off only.
/// Constraint rows are judged apart (NewtonOptions::constraint_tolerance).
NewtonCriterion newton_convergence(const NewtonTolerances& tolerances, const NewtonIterate& iterate);

/// The name of a criterion ("balance"), for reports.
const char* to_string(NewtonCriterion criterion);

}  // namespace soma
