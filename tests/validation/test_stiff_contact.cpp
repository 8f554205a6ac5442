// Validation: stiff penalty contact under the integrators (issue 7, section 7).
//
// The scene: a rod (m = 1 kg, L = 1 m, r = 1 cm, 21 nodes, E = 1 GPa) lying on the floor
// z = 0 with a stiff penalty (floor_contact stiffness 1e5 N/m, band 0.5 mm, mu = 0.4), pulled
// along its axis by F = 2 mu m g for 1 s at dt = 5 ms, as in test_floor_friction.cpp. A rigid body
// slides with a = F/m - mu g = mu g, so KE(T) = 1/2 m (mu g T)^2 = 7.6989 J.
//
// Why the second-order rules fail here. Each interior node (m_n = 0.05 kg) rests where the
// penalty force -E'(gap) equals its weight; the contact stiffness there, E''(gap), gives the
// contact mode omega = sqrt(E''/m_n) (computed below: 689 rad/s, omega h = 3.4 at rest, and E'' grows
// like e^{-2 K1 gap}, K1 = 15/band = 3e4 /m, so any penetration makes it much stiffer). The rod
// starts at gap 0, where the penalty pushes 4.7x its weight: the contact mode is excited.
//  - implicit_euler damps it (spectral radius 1/sqrt(1 + (omega h)^2) per step), the rod settles
//    and then slides exactly as a rigid body (implicit Euler is exact for constant acceleration);
//  - implicit_midpoint and newmark (gamma = 1/2) do not damp it (radius 1 on a linear spring).
//    They do not conserve its energy either: that holds for a quadratic energy, and this penalty
//    is strongly nonlinear (exponential in the gap). Measured: the rod bounces off the floor at
//    up to 3.9 m/s, a vertical kinetic energy up to 2.6 J (midpoint) / 1.2 J (Newmark) in the
//    second half, while the whole penalty energy the initial configuration holds is 1.1e-3 J;
//    friction, proportional to the bouncing normal force, is then wrong too and the final KE is
//    2.5x (midpoint, 19.6 J) / 1.11x (Newmark, 8.5 J) the exact one (the issue saw 7x with its
//    own parameters);
//  - newmark with gamma = 0.6 (beta = (gamma + 1/2)^2/4) damps the mode and slides within 2%.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kG = 9.81;
constexpr double kMu = 0.4;
constexpr double kMass = 1.0;       // kg
constexpr double kLength = 1.0;     // m
constexpr double kRadius = 0.01;    // m
constexpr int kNodes = 21;
constexpr double kDt = 5e-3;        // s
constexpr double kDuration = 1.0;   // s
constexpr double kStiffness = 1e5;  // N/m
constexpr double kBand = 5e-4;      // m
constexpr double kSlipVelocity = 1e-3;  // m/s

std::string scene(const std::string& integrator) {
    const double density = kMass / (M_PI * kRadius * kRadius * kLength);
    const double pull = 2.0 * kMu * kMass * kG;
    const double interior = pull / (kNodes - 1);  // loads proportional to the lumped masses
    std::string nodes;
    for (int i = 1; i < kNodes - 1; ++i) nodes += (i > 1 ? ", " : "") + std::to_string(i);
    return "simulation: {duration: " + num(kDuration) + "}\n"
           // The Newton tolerance these runs were measured with (the kernel's default before the
           // balance test): the undamped rules' bouncing is chaotic, so its details (not the
           // bouncing itself) depend on where each solve stops.
           "integrator: {" + integrator + ", dt: " + num(kDt) + ", newton: {absolute_tolerance: 1.0e-8}}\n"
           "linear_solver: {type: eigen_lu}\n"
           "elements:\n"
           "  - name: rod\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0, 0, " + num(kRadius) + "], to: [" + num(kLength) + ", 0, " + num(kRadius) +
           "], nodes: " + std::to_string(kNodes) + "}}\n"
           "    cross_section: {circle: {radius: " + num(kRadius) + "}}\n"
           "    material: {density: " + num(density) + ", youngs_modulus: 1.0e9, poisson_ratio: 0.3}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, " + num(-kG) + "]}\n"
           "  - {name: floor, type: floor_contact, height: 0, stiffness: " + num(kStiffness) + ", band: " + num(kBand) +
           ", friction: " + num(kMu) + ", slip_velocity: " + num(kSlipVelocity) + "}\n"
           "  - {type: point_load, element: rod, nodes: [0, -1], force: [" + num(interior / 2) + ", 0, 0]}\n"
           "  - {type: point_load, element: rod, nodes: [" + nodes + "], force: [" + num(interior) + ", 0, 0]}\n";
}

/// -E'(gap) and E''(gap) of the penalty (smooth_contact_law.hpp, MAT-DiSMech eq. 25-26).
struct Penalty {
    double force, stiffness;
};
Penalty penalty(double gap) {
    const double k1 = 15.0 / kBand;
    const double y = -k1 * gap;
    const double sp = std::max(y, 0.0) + std::log1p(std::exp(-std::abs(y)));  // K1 s
    const double sigma = 1.0 / (1.0 + std::exp(-y));
    return {2.0 * kStiffness * (sp / k1) * sigma, 2.0 * kStiffness * (sigma * sigma + sp * sigma * (1.0 - sigma))};
}

struct Slide {
    double kinetic_energy = 0.0;       // at T
    double max_vertical_energy = 0.0;  // max over the second half of sum 1/2 m_i vz_i^2
    double final_vertical_speed = 0.0; // max |vz_i| at T
    int retries = 0;
};

Slide slide(const std::string& integrator) {
    auto sim = build_scene(scene(integrator));
    const auto& masses = sim->find_element("rod")->geometry().point_mass;
    Slide s;
    const int steps = static_cast<int>(std::lround(kDuration / kDt));
    for (int n = 1; n <= steps; ++n) {
        // As the kernel's time loop does: a failed step is retried as two halves (the undamped
        // rules need it once in this run).
        if (!step_once(*sim, kDt)) {
            ++s.retries;
            REQUIRE(step_once(*sim, kDt / 2));
            REQUIRE(step_once(*sim, kDt / 2));
        }
        double vertical = 0.0;
        for (int i = 0; i < kNodes; ++i) vertical += 0.5 * masses[i] * std::pow(node_velocity(*sim, "rod", i).z(), 2);
        if (2 * n > steps) s.max_vertical_energy = std::max(s.max_vertical_energy, vertical);
    }
    s.kinetic_energy = sim->kinetic_energy();
    for (int i = 0; i < kNodes; ++i)
        s.final_vertical_speed = std::max(s.final_vertical_speed, std::abs(node_velocity(*sim, "rod", i).z()));
    std::cout << "[stiff contact, " << integrator << "] KE " << s.kinetic_energy << " J, max vertical KE (second half) "
              << s.max_vertical_energy << " J, final max |vz| " << s.final_vertical_speed << " m/s, retried steps " << s.retries << "\n";
    return s;
}

}  // namespace

TEST_CASE("stiff penalty contact: implicit_euler slides exactly, the undamped second-order rules bounce and gain energy",
          "[validation][contact][integrators]") {
    const double a = kMu * kG;
    const double ke_exact = 0.5 * kMass * a * a * kDuration * kDuration;  // 7.6989 J

    // The contact mode at rest: an interior node's weight balanced by -E'(gap) (bisection; the
    // force decreases with the gap).
    const double node_mass = kMass / (kNodes - 1);
    double lo = -kBand, hi = kBand;
    for (int k = 0; k < 200; ++k) {
        const double mid = 0.5 * (lo + hi);
        (penalty(mid).force > node_mass * kG ? lo : hi) = mid;
    }
    const double omega = std::sqrt(penalty(lo).stiffness / node_mass);
    const double initial_penalty_energy = kNodes * kStiffness * std::pow(std::log(2.0) * kBand / 15.0, 2);  // E(0) per node
    std::cout << "[stiff contact] resting gap " << lo << " m, omega " << omega << " rad/s, omega h " << omega * kDt
              << ", penalty force at gap 0 / weight " << penalty(0.0).force / (node_mass * kG) << "\n";
    CHECK(omega * kDt > 3.0);                             // 3.4: unresolved (at rest; stiffer when pressed)
    CHECK(penalty(0.0).force > 4.0 * node_mass * kG);     // 4.7: the start excites the contact mode
    CHECK(initial_penalty_energy == Approx(1.12e-3).epsilon(1e-2));

    // implicit_euler: the smooth friction law's lag (test_floor_friction.cpp) bounds the KE deficit
    // by 2 mu g v_tol ln2 / (7.5 a^2 T) = 4.7e-4 relative; the contact transient of the first steps
    // is damped out (|vz| at T is round-off).
    const Slide euler = slide("type: implicit_euler");
    const double lag_bound = 2.0 * kMu * kG * kSlipVelocity * std::log(2.0) / (7.5 * a * a * kDuration);
    CHECK(std::abs(euler.kinetic_energy - ke_exact) <= lag_bound * ke_exact);
    CHECK(euler.final_vertical_speed < 1e-9);
    CHECK(euler.retries == 0);

    // newmark with gamma = 0.6 damps the mode as well (its spectral radius tends to 0.82 as omega h
    // grows); the friction transient while the mode decays leaves the KE 2% high (measured 1.99%).
    const Slide damped = slide("type: newmark, gamma: 0.6, beta: 0.3025");
    CHECK(std::abs(damped.kinetic_energy - ke_exact) <= 0.03 * ke_exact);
    CHECK(damped.final_vertical_speed < 1e-4);  // 2.4e-6 m/s measured

    // implicit_midpoint and newmark (gamma 1/2): the rod bounces in the second half with a vertical
    // kinetic energy far above all the penalty energy the start held (energy created by the
    // integrator on the nonlinear penalty), and the sliding KE is wrong by more than 10%.
    for (const std::string integrator : {"type: implicit_midpoint", "type: newmark"}) {
        INFO(integrator);
        const Slide undamped = slide(integrator);
        CHECK(undamped.max_vertical_energy > 100.0 * initial_penalty_energy);
        CHECK(std::abs(undamped.kinetic_energy - ke_exact) > 0.1 * ke_exact);
    }
}

TEST_CASE("a scene pairing penalty contact with an integrator that does not damp unresolved modes gets a note",
          "[contact][integrators]") {
    auto notes_of = [](const std::string& integrator) { return build_scene(scene(integrator), "stiff.yaml")->notes(); };
    auto mentions_floor = [](const std::vector<std::string>& notes) {
        return std::count_if(notes.begin(), notes.end(), [](const std::string& n) {
            return n.find("'floor' is a penalty contact") != std::string::npos &&
                   n.find("stiff.yaml:2:") != std::string::npos &&
                   n.find("implicit_euler, or newmark with gamma > 1/2") != std::string::npos;
        });
    };
    CHECK(mentions_floor(notes_of("type: implicit_midpoint")) == 1);
    CHECK(mentions_floor(notes_of("type: newmark")) == 1);
    CHECK(mentions_floor(notes_of("type: newmark, gamma: 0.6, beta: 0.3025")) == 0);
    CHECK(mentions_floor(notes_of("type: implicit_euler")) == 0);
    CHECK(mentions_floor(notes_of("type: statics")) == 0);
}
