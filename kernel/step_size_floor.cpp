#include "step_size_floor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace soma {

double clock_resolution(double t) {
    const double magnitude = std::abs(t);
    const double ulp = std::nextafter(magnitude, std::numeric_limits<double>::infinity()) - magnitude;
    return kClockResolutionUlps * ulp;
}

double smallest_step(double dt, double t) { return std::max(kSmallestStepFraction * dt, clock_resolution(t)); }

}  // namespace soma
