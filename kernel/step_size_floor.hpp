#pragma once
/// \file step_size_floor.hpp
/// \brief The smallest time step a run may take: below it a run makes no progress and would
/// write the same state forever.
///
/// Two floors, whichever is larger:
/// - the resolution of the clock: t + h must differ from t by enough units in the last place
///   that the step is known to three digits (h >= 1000 ulp(t)); at t = 1e6 s that is 1.2e-7 s,
///   and a step of 1e-11 s there leaves t unchanged (t + h == t);
/// - a fraction 1e-10 of the scene's dt: retries that shrink the step that far would need ten
///   billion steps per scene step, so the run cannot end; it has diverged in all but name.

namespace soma {

/// Relative resolution the step must keep against the clock (h >= kClockResolution ulp(t)).
inline constexpr double kClockResolutionUlps = 1000.0;
/// Smallest fraction of the scene's dt a retried step may fall to.
inline constexpr double kSmallestStepFraction = 1e-10;

/// The smallest step the clock resolves at time t: kClockResolutionUlps units in the last place.
double clock_resolution(double t);

/// The smallest step a run with nominal step `dt` may take at time t.
double smallest_step(double dt, double t);

}  // namespace soma
