#include "progress_bar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

namespace soma {

ProgressBar::ProgressBar(double start, double end, bool enabled)
    : start_(start), end_(end), enabled_(enabled), terminal_(isatty(fileno(stderr)) != 0),
      began_(std::chrono::steady_clock::now()), last_draw_(began_) {}

void ProgressBar::update(double t, double dt, long steps, long newton_iterations, long retries) {
    if (!enabled_) return;
    const double fraction = std::clamp((t - start_) / (end_ - start_), 0.0, 1.0);
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - began_).count();
    const double eta = fraction > 0.0 ? elapsed * (1.0 - fraction) / fraction : 0.0;
    const double per_step = steps > 0 ? static_cast<double>(newton_iterations) / static_cast<double>(steps) : 0.0;
    if (terminal_) {
        if (fraction < 1.0 && drawn_ && std::chrono::duration<double>(now - last_draw_).count() < 0.1) return;
        constexpr int width = 30;
        const int filled = static_cast<int>(fraction * width);
        fmt::print(stderr, "\r[{}{}] {:5.1f}%  t = {:.4g} s  dt = {:.2g} s  Newton/step {:.1f}  retries {}  ETA {:.0f} s ",
                   std::string(static_cast<std::size_t>(filled), '#'), std::string(static_cast<std::size_t>(width - filled), ' '),
                   100.0 * fraction, t, dt, per_step, retries, eta);
        std::fflush(stderr);
        last_draw_ = now;
        drawn_ = true;
        return;
    }
    const int decile = static_cast<int>(fraction * 10.0 + 1e-9);
    if (decile == last_decile_) return;
    last_decile_ = decile;
    fmt::print(stderr, "progress {:3d}%  t = {:.6g} s  steps {}  Newton/step {:.2f}  retries {}  elapsed {:.1f} s\n",
               decile * 10, t, steps, per_step, retries, elapsed);
}

void ProgressBar::finish() {
    if (enabled_ && terminal_ && drawn_) fmt::print(stderr, "\n");
}

}  // namespace soma
