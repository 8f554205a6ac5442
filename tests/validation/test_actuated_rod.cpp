// Validation: a rod actuated by natural curvature relaxes to the stress-free polygon (the
// PneuNet actuator of MAT-DiSMech §7.1, Fig. 4, as a quantitative test), through the scene file, the
// discrete_rod's "natural_curvature" channel and the `actuation` controller.
//
// Setup (MAT-DiSMech §7.1, Fig. 4, reference code): 51 nodes, 0.1 m along +x (dl = 2 mm), circular section
// r = 1 mm, E = 20 GPa, rho = 1200, nu = 0.5, nodes 0, 1 and edge 0 fixed, no gravity, statics.
// Every bend-twist spring gets the discrete natural curvature kappa_bar1 = c {0.5, 1, 1.5},
// c = 0.0628525320866699 = 2 tan(pi/100) (a quarter, half and three-quarter circle), given to the
// controller as the physical curvature kappa = phi/dl, phi = 2 atan(kappa_bar/2): the channel
// stores 2 tan(kappa dl/2) = kappa_bar exactly (discrete_rod.hpp).
//
// Exact answer. With no load the equilibrium is the configuration of zero elastic energy: every
// edge at its rest length dl, every interior node turned by phi in the bending plane, zero twist.
// Edge 0 is clamped along +x, so edge e points along (cos e phi, 0, ±sin e phi) and the last
// node sits at
//     x_50 = dl sum_{e=0}^{49} (cos e phi, ±sin e phi).
// kappa1 bends in the (t, m1) plane; for a rod along +x the initial director is m1 = t x y = +z,
// so kappa1 > 0 bends toward +z. The reference code uses kappa_bar1 < 0 (downward), as here.
// The tabulated tip numbers below are relative to node 1 in the code's 1-based numbering, i.e. to our
// node 0 at the origin (they equal dl + the sum from e = 1, the x offset of edge 0).
//
// Tolerance. The polygon is an exact zero-energy state of the discrete model, so the only error
// is where Newton stops. It stops at |F| <= 1e-10 N (or at its round-off floor, a full step below
// 1e-13 |q| ~ 1e-14 m). Through the softest mode, tip bending with compliance
// L^3/(3 EI) = 1e-3/(3 * 0.0157) ~ 0.02 m/N, a residual of 1e-10 N leaves at most ~2e-12 m, so we
// assert every node within 1e-11 m of the polygon (measured: ~2e-17 m, round-off). A modelling
// error shows far above that: storing kappa dl instead of 2 tan(kappa dl/2) changes each turn by
// a relative phi^2/12 (up to 7e-4) and moves the tip by ~1e-5 m. The tabulated tip numbers (6 decimals) are checked to 1e-6 m.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kLength = 0.1;
constexpr int kNodes = 51;
constexpr double kEdge = kLength / (kNodes - 1);
constexpr double kCircleStep = 0.0628525320866699;  // 2 tan(pi/100), MAT-DiSMech reference code (§7.1)

std::string format(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

/// The MAT-DiSMech §7.1 (Fig. 4) rod with an actuation controller setting natural_curvature to `kappa`
/// (expressions for kappa1, kappa2) on every spring; statics over [0, 1] with steps dt.
std::string actuated_rod_scene(const std::string& kappa1, const std::string& kappa2, double dt) {
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: statics, dt: " + format(dt) + ",\n"
           "             newton: {absolute_tolerance: 1.0e-10, relative_tolerance: 0, increment_tolerance: 0,\n"
           "                      max_iterations: 100, line_search: false}}\n"
           "linear_solver: {type: eigen_ldlt}\n"
           "elements:\n"
           "  - name: rod\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 51}}\n"
           "    cross_section: {circle: {radius: 1.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: 2.0e10, poisson_ratio: 0.5}\n"
           "    fixed: {nodes: [0, 1], edges: [0]}\n"
           "controllers:\n"
           "  - {type: actuation, element: rod, channel: natural_curvature,\n"
           "     values: [\"" + kappa1 + "\", \"" + kappa2 + "\"]}\n";
}

/// Node i of the polygon whose interior nodes all turn by phi, edge 0 along +x; the bending
/// direction is `normal` (a unit vector orthogonal to x).
Vec3 polygon_node(int node, double phi, const Vec3& normal) {
    Vec3 x = Vec3::Zero();
    for (int e = 0; e < node; ++e) x += kEdge * (std::cos(e * phi) * Vec3::UnitX() + std::sin(e * phi) * normal);
    return x;
}

struct Relaxed {
    double max_node_error = 0.0;  // m, over all nodes
    Vec3 tip;
    long newton_iterations = 0;
    long steps = 0;
};

Relaxed relax(const std::string& kappa1, const std::string& kappa2, double dt, double phi, const Vec3& normal) {
    auto sim = build_scene(actuated_rod_scene(kappa1, kappa2, dt));
    const RunResult result = run_to_end(*sim);
    Relaxed r;
    r.newton_iterations = result.summary.newton_iterations;
    r.steps = result.summary.steps;
    for (int i = 0; i < kNodes; ++i)
        r.max_node_error = std::max(r.max_node_error, (node_position(*sim, "rod", i) - polygon_node(i, phi, normal)).norm());
    r.tip = node_position(*sim, "rod", -1);
    return r;
}

}  // namespace

TEST_CASE("actuated rod (MAT-DiSMech §7.1, Fig. 4): natural curvature relaxes to the stress-free polygon", "[validation][rod][actuation]") {
    struct Case {
        const char* name;
        double fraction;
        double tip_x, tip_z;  // exact polygon, relative to the clamped end (node 0)
    };
    const Case cases[] = {{"quarter", 0.5, 0.064641, -0.062666},
                          {"half", 1.0, 0.002000, -0.063641},
                          {"three-quarter", 1.5, -0.020212, -0.022255}};
    for (const Case& c : cases) {
        INFO(c.name);
        const double kappa_bar = -kCircleStep * c.fraction;
        const double phi = 2.0 * std::atan(kappa_bar / 2.0);  // signed turning angle (toward -z)
        const double kappa = phi / kEdge;                     // physical curvature, 1/m
        const Vec3 exact_tip = polygon_node(kNodes - 1, phi, Vec3::UnitZ());
        // The exact polygon against the tabulated numbers (6 decimals).
        CHECK(std::abs(exact_tip.x() - c.tip_x) < 1e-6);
        CHECK(std::abs(exact_tip.z() - c.tip_z) < 1e-6);

        // (a) the full actuation at once: one statics step; (b) ramped linearly with t over 10 steps.
        const Relaxed at_once = relax(format(kappa), "0", 1.0, phi, Vec3::UnitZ());
        const Relaxed ramped = relax(format(kappa) + "*min(t, 1)", "0", 0.1, phi, Vec3::UnitZ());
        std::cout << "actuated rod, " << c.name << ": tip (" << at_once.tip.x() << ", " << at_once.tip.y() << ", "
                  << at_once.tip.z() << "), exact (" << exact_tip.x() << ", " << exact_tip.z()
                  << "); max node error at once " << at_once.max_node_error << " m (" << at_once.newton_iterations
                  << " Newton iterations, 1 step), ramped " << ramped.max_node_error << " m ("
                  << ramped.newton_iterations << " iterations, " << ramped.steps << " steps)\n";
        CHECK(at_once.max_node_error < 1e-11);
        CHECK(ramped.max_node_error < 1e-11);
        CHECK(ramped.steps == 10);
        CHECK(std::abs(at_once.tip.y()) < 1e-12);  // planar: nothing leaves the x-z plane
        CHECK(std::abs(at_once.tip.x() - c.tip_x) < 1e-6);
        CHECK(std::abs(at_once.tip.z() - c.tip_z) < 1e-6);
    }
}

TEST_CASE("actuated rod: kappa2 bends in the (t, m2) plane, toward +m2 = -y", "[validation][rod][actuation]") {
    // m2 = t x m1 = x x z = -y for the initial frame; kappa2 > 0 bends toward +m2.
    const double phi = 2.0 * std::atan(kCircleStep * 0.5 / 2.0);
    const Relaxed r = relax("0", format(phi / kEdge), 1.0, phi, -Vec3::UnitY());
    CHECK(r.max_node_error < 1e-11);
    CHECK(std::abs(r.tip.z()) < 1e-12);
}
