#pragma once
/// \file rigid_pendulum.hpp
/// \brief A rigid pendulum as a gvs element's one revolute joint about x (1 kg, inertia 2e-3
/// kg m^2 about its centre, 0.2 m below the joint, released from rest at 0.5 rad), and its
/// motion theta'' = -(m g l / I_pivot) sin(theta) integrated independently by RK4.

#include <cmath>
#include <string>
#include <utility>

namespace soma::validation {

/// The pendulum's `links` entry (its joint starts at 0.5 rad); the element's gravity is -9.81 z.
inline const std::string kRigidPendulumLink =
    "      - name: bob\n"
    "        joint: {type: revolute, axis: [1, 0, 0], initial: [0.5]}\n"
    "        rigid: {mass: 1.0, inertia: [2.0e-3, 2.0e-3, 2.0e-3, 0, 0, 0], center_of_mass: [0, 0, -0.2]}\n";

/// (theta, theta') after \p duration s, by RK4 with step 1e-4 s (error ~1e-12).
inline std::pair<double, double> rigid_pendulum_reference(double duration) {
    const double m = 1.0, g = 9.81, l = 0.2, pivot_inertia = 2.0e-3 + m * l * l, h = 1e-4;
    double theta = 0.5, omega = 0.0;
    const auto rate = [&](double th) { return -(m * g * l / pivot_inertia) * std::sin(th); };
    for (long k = 0; k < std::lround(duration / h); ++k) {
        const double k1t = omega, k1w = rate(theta);
        const double k2t = omega + 0.5 * h * k1w, k2w = rate(theta + 0.5 * h * k1t);
        const double k3t = omega + 0.5 * h * k2w, k3w = rate(theta + 0.5 * h * k2t);
        const double k4t = omega + h * k3w, k4w = rate(theta + h * k3t);
        theta += h / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t);
        omega += h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w);
    }
    return {theta, omega};
}

}  // namespace soma::validation
