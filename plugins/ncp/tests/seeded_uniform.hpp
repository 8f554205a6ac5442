#pragma once
// Reproducible random draws for the ncp unit tests.
#include <random>

namespace soma::ncp::testing {

/// Uniform in [lo, hi) from the 32 bits of a Mersenne twister, the same on every platform (the
/// standard distributions are implementation-defined).
inline double uniform(std::mt19937& random, double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(random()) + 0.5) / 4294967296.0;
}

}  // namespace soma::ncp::testing
