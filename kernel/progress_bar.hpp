#pragma once
/// \file progress_bar.hpp
/// \brief Run progress on stderr: a redrawn bar on a terminal, plain lines otherwise.

#include <chrono>
#include <cstdio>

namespace soma {

class ProgressBar {
public:
    /// \param start,end simulated time span; \param enabled false for --quiet
    ProgressBar(double start, double end, bool enabled);
    /// Reports the state after an accepted step (throttled: at most ~10 redraws per second on a
    /// terminal, one line per 10% otherwise).
    void update(double t, double dt, long steps, long newton_iterations, long retries);
    /// Ends the bar (newline on a terminal).
    void finish();

private:
    double start_, end_;
    bool enabled_, terminal_;
    int last_decile_ = -1;
    std::chrono::steady_clock::time_point began_, last_draw_;
    bool drawn_ = false;
};

}  // namespace soma
