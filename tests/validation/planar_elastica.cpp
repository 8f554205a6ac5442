#include "planar_elastica.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace soma::validation {
namespace {

using StateVec = std::array<double, 4>;  // theta, theta', x, z

StateVec derivative(double s, const StateVec& y, double load_over_ei, double length) {
    return {y[1], load_over_ei * (length - s) * std::cos(y[0]), std::cos(y[0]), std::sin(y[0])};
}

StateVec shoot(double root_curvature, double load_over_ei, double length, int steps) {
    StateVec y{0.0, root_curvature, 0.0, 0.0};
    const double h = length / steps;
    for (int i = 0; i < steps; ++i) {
        const double s = i * h;
        auto add = [](const StateVec& a, const StateVec& b, double f) {
            return StateVec{a[0] + f * b[0], a[1] + f * b[1], a[2] + f * b[2], a[3] + f * b[3]};
        };
        const StateVec k1 = derivative(s, y, load_over_ei, length);
        const StateVec k2 = derivative(s + 0.5 * h, add(y, k1, 0.5 * h), load_over_ei, length);
        const StateVec k3 = derivative(s + 0.5 * h, add(y, k2, 0.5 * h), load_over_ei, length);
        const StateVec k4 = derivative(s + h, add(y, k3, h), load_over_ei, length);
        for (int c = 0; c < 4; ++c) y[c] += h / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
    }
    return y;
}

}  // namespace

ElasticaResult solve_cantilever_elastica(double q, double ei, double length, int steps) {
    const double load_over_ei = q / ei;
    // theta'(L) as a function of theta'(0) is increasing; bracket between the linear
    // (Euler-Bernoulli) root curvature -q L^2/(2 EI) scaled up, and 0.
    double lo = -2.0 * load_over_ei * length * length, hi = 0.0;
    if (shoot(lo, load_over_ei, length, steps)[1] > 0.0)
        throw std::runtime_error("elastica: bracket does not contain the root");
    for (int iteration = 0; iteration < 200; ++iteration) {
        const double mid = 0.5 * (lo + hi);
        if (shoot(mid, load_over_ei, length, steps)[1] < 0.0) lo = mid;
        else hi = mid;
        if (hi - lo < 1e-15 * std::abs(lo)) break;
    }
    const double root = 0.5 * (lo + hi);
    const StateVec end = shoot(root, load_over_ei, length, steps);
    return {-end[3], end[2], root};
}

}  // namespace soma::validation
