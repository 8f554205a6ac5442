// Validation: square plates under uniform load against Kirchhoff plate theory, for both shell
// models, and two properties of the mid-edge model that an elastic model must have: its statics
// equilibrium does not depend on the number of load steps, and a free plate vibrating under
// implicit midpoint keeps its energy to the integrator's order.
//
// Plate theory (Timoshenko & Woinowsky-Krieger, Theory of Plates and Shells, tables 8 and 35):
// a square plate of side a under uniform load q deflects at its center by
//     clamped edges:          w = 0.00126 q a^4 / D
//     simply supported edges: w = 0.00406 q a^4 / D
// with D = E h^3 / (12 (1 - nu^2)). Both depend on D alone (not on nu). For the hinge model the
// plate rigidity of hinge springs on an equilateral mesh is D = E h^3 / 12 (hinge_bending.hpp):
// its own lattice Poisson ratio (1/3) does not enter either formula.
//
// Setup: a = 0.1 m, h = 0.5 mm, E = 2 GPa, nu = 0.3, density 100 kg/m^3 under gravity (q = rho h
// g = 0.49 Pa): w/h = 0.005 (clamped) and 0.017 (simply supported), the linear regime (membrane
// stiffening ~ (w/h)^2 below 1e-3). Meshes: the generated straight-sided near-equilateral
// rectangle with a/19, a/38, a/76 edges (19 x 22, 38 x 44, 76 x 88: triangles within 0.3% of
// equilateral, and a node at the center). Statics, one load step.
//
// Boundary conditions:
//  - simply supported: the boundary nodes fixed (a plane per side); mid-edge xi free (a free
//    mid-edge normal carries no moment), hinge: no hinge across the boundary.
//  - clamped, mid-edge: the boundary nodes and their edges' xi fixed (a region selects both): the
//    mid-edge normals on the boundary are held vertical.
//  - clamped, hinge: the hinge model has no rotational DOF; the clamp fixes the boundary and the
//    first interior row/column (nodes within 0.9 edge of a side), so its clamp line sits between
//    the two: a first-order error, removed by Richardson extrapolation.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kSide = 0.1, kThickness = 5e-4, kE = 2e9, kNu = 0.3, kRho = 100.0, kG = 9.81;
constexpr double kLoad = kRho * kThickness * kG;  // q (Pa)

double rigidity(const std::string& model) {
    return model == "hinge_shell" ? kE * kThickness * kThickness * kThickness / 12.0
                                  : kE * kThickness * kThickness * kThickness / (12.0 * (1.0 - kNu * kNu));
}

enum class Support { clamped, simply_supported };

// The `fixed` block of each case.
std::string fixed_block(const std::string& model, Support support, double edge) {
    char text[1024];
    if (support == Support::simply_supported || model == "midedge_shell") {
        const char* edges = support == Support::clamped ? "true" : "false";
        std::snprintf(text, sizeof text,
                      "{include_edges: %s, planes: [{point: [0, 0, 0], normal: [1, 0, 0]}, {point: [0, 0, 0], normal: [0, 1, 0]},"
                      " {point: [%.17g, %.17g, 0], normal: [1, 0, 0]}, {point: [%.17g, %.17g, 0], normal: [0, 1, 0]}]}",
                      edges, kSide, kSide, kSide, kSide);
    } else {
        const double d = 0.9 * edge;
        std::snprintf(text, sizeof text,
                      "{boxes: [{min: [-1, -1, -1], max: [%.17g, 1, 1]}, {min: [-1, -1, -1], max: [1, %.17g, 1]},"
                      " {min: [%.17g, -1, -1], max: [1, 1, 1]}, {min: [-1, %.17g, -1], max: [1, 1, 1]}]}",
                      d, d, kSide - d, kSide - d);
    }
    return text;
}

std::string plate_scene(const std::string& model, Support support, int spacings, double dt = 1.0,
                        const std::string& solver = "cholmod") {
    const double edge = kSide / spacings;
    char text[2048];
    std::snprintf(text, sizeof text,
                  "simulation: {duration: 1.0}\n"
                  "integrator: {type: statics, dt: %.17g, ramp_time: 1.0,\n"
                  "             newton: {absolute_tolerance: 1.0e-15, relative_tolerance: 1.0e-13, increment_tolerance: 0,\n"
                  "                      max_iterations: 50}}\n"
                  "linear_solver: {type: %s}\n"
                  "elements:\n"
                  "  - name: plate\n"
                  "    type: %s\n"
                  "    mesh: {rectangle: {origin: [0, 0, 0], size: [%.17g, %.17g], edge_length: %.17g}}\n"
                  "    thickness: %.17g\n"
                  "    material: {density: %.17g, youngs_modulus: %.17g, poisson_ratio: %.17g}\n"
                  "    fixed: ",
                  dt, solver.c_str(), model.c_str(), kSide, kSide, edge, kThickness, kRho, kE, kNu);
    std::string scene = text + fixed_block(model, support, edge);
    std::snprintf(text, sizeof text, "\nforces:\n  - {type: gravity, acceleration: [0, 0, %.17g]}\n", -kG);
    return scene + text;
}

// Index of the node at the plate's center.
long center_node(const Simulation& simulation) {
    const Geometry& g = simulation.find_element("plate")->geometry();
    long best = -1;
    double best_distance = 1e300;
    for (std::size_t i = 0; i < g.point_dofs.size(); ++i) {
        const auto& d = g.point_dofs[i];
        const Vec3 x(simulation.state().q[d[0]], simulation.state().q[d[1]], simulation.state().q[d[2]]);
        const double distance = (x - Vec3(0.5 * kSide, 0.5 * kSide, 0.0)).norm();
        if (distance < best_distance) best_distance = distance, best = static_cast<long>(i);
    }
    REQUIRE(best_distance < 1e-12);  // the meshes are chosen to have a node there
    return best;
}

double center_deflection(const std::string& model, Support support, int spacings, double dt = 1.0,
                         const std::string& solver = "cholmod") {
    auto simulation = build_scene(plate_scene(model, support, spacings, dt, solver));
    const long center = center_node(*simulation);
    run_to_end(*simulation);
    return -node_position(*simulation, "plate", center).z();
}

}  // namespace

TEST_CASE("square plates converge to Kirchhoff theory (both shell models, clamped and simply supported)",
          "[validation][shells][plates]") {
    // Tolerances: the issue asks for 1% after mesh refinement. Asserted on the finest mesh where
    // the model converges at second order (mid-edge), and on the order-1 Richardson limit where
    // the discretization is first order (the hinge model's clamp line, see the file comment).
    struct Case {
        const char* model;
        Support support;
        double coefficient;
        const char* name;
        bool first_order;  // the hinge model's clamp (see the file comment)
    };
    const Case cases[] = {
        {"midedge_shell", Support::clamped, 0.00126, "mid-edge, clamped", false},
        {"midedge_shell", Support::simply_supported, 0.00406, "mid-edge, simply supported", false},
        {"hinge_shell", Support::clamped, 0.00126, "hinge, clamped", true},
        {"hinge_shell", Support::simply_supported, 0.00406, "hinge, simply supported", false},
    };
    const int spacings[3] = {19, 38, 76};
    for (const Case& c : cases) {
        const double theory = c.coefficient * kLoad * std::pow(kSide, 4) / rigidity(c.model);
        double ratio[3];
        for (int m = 0; m < 3; ++m) {
            ratio[m] = center_deflection(c.model, c.support, spacings[m]) / theory;
            std::printf("square plate, %s, a/%d: w = %.6e m, theory %.6e m, w/theory - 1 = %+.3f%%\n", c.name,
                        spacings[m], ratio[m] * theory, theory, 100.0 * (ratio[m] - 1.0));
        }
        const double order = std::log(std::abs((ratio[0] - ratio[1]) / (ratio[1] - ratio[2]))) / std::log(2.0);
        const double richardson1 = 2.0 * ratio[2] - ratio[1];
        std::printf("square plate, %s: observed order %.2f, order-1 Richardson limit %+.3f%%\n", c.name, order,
                    100.0 * (richardson1 - 1.0));
        INFO(c.name);
        if (c.first_order) {
            CHECK(std::abs(order - 1.0) <= 0.2);
            CHECK(std::abs(richardson1 - 1.0) <= 0.01);
        } else {
            CHECK(order >= 1.8);
            CHECK(std::abs(ratio[2] - 1.0) <= 0.01);
        }
    }
}

TEST_CASE("square plates: the answer does not depend on the linear solver", "[validation][shells][plates]") {
    // Three direct factorizations (Cholesky, LDL^T, LU) each solve the Newton systems to
    // round-off, so the converged deflections agree to the Newton tolerance (relative residual
    // 1e-13). Asserted 1e-9.
    for (const char* model : {"midedge_shell", "hinge_shell"}) {
        const double reference = center_deflection(model, Support::simply_supported, 19, 1.0, "cholmod");
        for (const char* solver : {"eigen_ldlt", "eigen_lu"}) {
            INFO(model << " with " << solver);
            CHECK(center_deflection(model, Support::simply_supported, 19, 1.0, solver) ==
                  Approx(reference).epsilon(1e-9));
        }
    }
}

TEST_CASE("mid-edge plate: the statics equilibrium does not depend on the number of load steps",
          "[validation][shells][plates]") {
    // An elastic model's equilibrium is a minimum of its energy: 1, 5 and 50 load steps (dt 1,
    // 0.2, 0.02 over the ramp) must give the same answer to the Newton tolerance (relative
    // residual 1e-13: the deflections agree to ~1e-12; asserted 1e-8 as the issue asks).
    for (Support support : {Support::clamped, Support::simply_supported}) {
        const double w1 = center_deflection("midedge_shell", support, 19, 1.0);
        const double w5 = center_deflection("midedge_shell", support, 19, 0.2);
        const double w50 = center_deflection("midedge_shell", support, 19, 0.02);
        std::printf("mid-edge plate (%s): w = %.15e (1 step), %.15e (5), %.15e (50)\n",
                    support == Support::clamped ? "clamped" : "simply supported", w1, w5, w50);
        CHECK(std::abs(w5 - w1) <= 1e-8 * w1);
        CHECK(std::abs(w50 - w1) <= 1e-8 * w1);
    }
}

namespace {

// The free plate of the energy test, as a scene header (integrator and element).
std::string free_plate_scene(const std::string& integrator, double duration, double dt) {
    char text[1024];
    std::snprintf(text, sizeof text,
                  "simulation: {duration: %.17g}\n"
                  "integrator: {type: %s, dt: %.17g,\n"
                  "             newton: {absolute_tolerance: 1.0e-14, relative_tolerance: 1.0e-12, increment_tolerance: 0,\n"
                  "                      max_iterations: 50}}\n"
                  "elements:\n"
                  "  - name: plate\n"
                  "    type: midedge_shell\n"
                  "    mesh: {rectangle: {origin: [0, 0, 0], size: [0.05, 0.04], edge_length: 0.01}}\n"
                  "    thickness: 2.0e-3\n"
                  "    material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.3}\n",
                  duration, integrator.c_str(), dt);
    return text;
}

// Initial shape of the energy test: a shallow cylindrical bend z = A (x - x_c)^2 (developable, so
// it stores mostly bending energy).
double initial_bend(double x) { return 0.4 * (x - 0.025) * (x - 0.025); }

// The bent plate with its mid-edge DOFs xi at equilibrium for that shape: a statics solve with
// every node prescribed onto the shape (xi are massless and quasi-static, so a dynamic run must
// start from consistent xi: implicit midpoint extrapolates xi_{n+1} = 2 xi_mid - xi_n and would
// otherwise alternate around the equilibrium forever).
State bent_plate_state(long node_count, const std::vector<double>& x0) {
    std::string scene = free_plate_scene("statics", 1.0, 1.0) + "    prescribed:\n";
    char line[256];
    for (long i = 0; i < node_count; ++i) {
        std::snprintf(line, sizeof line, "      - {nodes: [%ld], displacement: [\"0\", \"0\", \"%.17g*t\"]}\n", i,
                      initial_bend(x0[static_cast<std::size_t>(i)]));
        scene += line;
    }
    auto statics = build_scene(scene);
    run_to_end(*statics);
    State state = statics->state();
    state.t = 0.0;
    state.v.setZero();
    state.a.setZero();
    return state;
}

// Largest |E(t) - E(0)| / E(0) of the free plate released from the bent shape, over a fixed time,
// with implicit midpoint at step dt.
double midpoint_energy_drift(double dt, double duration) {
    auto simulation = build_scene(free_plate_scene("implicit_midpoint", duration, dt));
    const Geometry& g = simulation->find_element("plate")->geometry();
    std::vector<double> x0;
    for (const auto& d : g.point_dofs) x0.push_back(simulation->state().q[d[0]]);
    simulation->commit(bent_plate_state(static_cast<long>(x0.size()), x0));
    const double reference = simulation->kinetic_energy() + simulation->potential_energy();
    double drift = 0.0, largest_kinetic = 0.0;
    const int steps = static_cast<int>(std::lround(duration / dt));
    for (int s = 0; s < steps; ++s) {
        REQUIRE(step_once(*simulation, dt));
        const double energy = simulation->kinetic_energy() + simulation->potential_energy();
        drift = std::max(drift, std::abs(energy - reference));
        largest_kinetic = std::max(largest_kinetic, simulation->kinetic_energy());
    }
    REQUIRE(largest_kinetic > 0.5 * reference);  // the plate did swing through its flat shape
    return drift / reference;
}

}  // namespace

TEST_CASE("mid-edge plate: a free plate under implicit midpoint keeps its energy to second order",
          "[validation][shells][plates]") {
    // Implicit midpoint conserves a quadratic energy exactly and a nonlinear one to O(dt^2) over
    // a bounded time. Over about one period of the lowest bending mode the largest drift falls by
    // ~4 when dt halves: measured 3.32 (0.4 -> 0.2 ms) and 4.83 (0.2 -> 0.1 ms; a maximum over
    // time fluctuates). Asserted for 0.2 -> 0.1 ms: ratio in [3, 5.5] (order 2 +- 0.4), and the
    // fine drift below 1e-3 (measured 1.1e-4).
    const double duration = 0.04;
    const double coarse = midpoint_energy_drift(2e-4, duration);
    const double fine = midpoint_energy_drift(1e-4, duration);
    std::printf("mid-edge free plate, implicit midpoint: max |dE|/E = %.3e (dt 0.2 ms), %.3e (dt 0.1 ms), ratio %.2f\n",
                coarse, fine, coarse / fine);
    CHECK(coarse / fine >= 3.0);
    CHECK(coarse / fine <= 5.5);
    CHECK(fine <= 1e-3);
}

TEST_CASE("mid-edge shell: a held edge (fixed xi) needs its nodes held too", "[validation][shells][plates]") {
    // Fixing an edge's xi holds its mid-edge normal in the world: meaningful only with the edge
    // itself held. Refused, located at the element.
    const std::string scene =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: statics, dt: 1.0}\n"
        "elements:\n"
        "  - name: plate\n"
        "    type: midedge_shell\n"
        "    mesh: {rectangle: {origin: [0, 0, 0], size: [0.02, 0.02], edge_length: 0.01}}\n"
        "    thickness: 1.0e-3\n"
        "    material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.3}\n"
        "    fixed: {edges: [0]}\n";
    CHECK_THROWS_WITH(build_scene(scene, "held.yaml"),
                      Catch::Contains("held.yaml:4:5") && Catch::Contains("edge 0 (nodes") &&
                          Catch::Contains("has its xi fixed or prescribed") &&
                          Catch::Contains("fix or prescribe the edge's two nodes as well"));
}

TEST_CASE("mid-edge shell: a translating clamp with Rayleigh damping moves the plate rigidly",
          "[validation][shells][plates]") {
    // Every node starts at 1 m/s along z and the clamp (nodes and their edges' xi, a prescribed
    // box) moves with them: the exact motion is a rigid translation. Stiffness-proportional
    // damping multiplies the element's Jacobian by the velocity of every DOF, the clamp's
    // included, so the held edges' derivatives must follow their nodes: a rigid translation must
    // cost no force. Measured: tip z = 0.05 to 1e-15, potential energy ~1e-32 J (with the held
    // edges' derivatives dropped it was 0.0521 and 0.011 J). Asserted: 1e-9 m and 1e-15 J.
    const std::string scene =
        "simulation: {duration: 0.05}\n"
        "integrator: {type: implicit_euler, dt: 0.001,\n"
        "             newton: {absolute_tolerance: 1.0e-13, relative_tolerance: 1.0e-12, max_iterations: 50}}\n"
        "linear_solver: {type: eigen_lu}\n"
        "elements:\n"
        "  - name: plate\n"
        "    type: midedge_shell\n"
        "    mesh: {rectangle: {origin: [0, 0, 0], size: [0.02, 0.01], edge_length: 0.005}}\n"
        "    thickness: 1.0e-3\n"
        "    initial_velocity: [0, 0, 1]\n"
        "    material: {density: 1200, youngs_modulus: 2.0e9, poisson_ratio: 0.3}\n"
        "    prescribed:\n"
        "      - {box: {min: [-1, -1, -1], max: [0.0026, 1, 1]}, displacement: ['0', '0', 't']}\n"
        "forces:\n"
        "  - {type: rayleigh_damping, beta: 1.0e-3}\n";
    auto simulation = build_scene(scene);
    run_to_end(*simulation);
    const Geometry& g = simulation->find_element("plate")->geometry();
    for (std::size_t i = 0; i < g.point_dofs.size(); ++i)
        CHECK(std::abs(node_position(*simulation, "plate", static_cast<long>(i)).z() - 0.05) <= 1e-9);
    CHECK(std::abs(simulation->potential_energy()) <= 1e-15);
}
