// Validation: static cantilever under gravity, the MAT-DiSMech paper's quantitative validation
// (MAT-DiSMech §7.2, Fig. 8), with the discrete_rod element and the statics integrator.
//
// Geometry (from MAT-DiSMech's reference code, §7.2): a straight rod from (0,0,0) to (0.1,0,0);
// the nodes with x <= 0.01 m and the edges between them are fixed (the clamp), so the free length
// is L = 0.09 m. Rectangular section: width b = 0.02 m (along m2 = y), thickness h = 0.001 m
// (along m1 = +z, the bending plane: for a rod along +x, m1 = x cross y = +z, and the rectangle's
// `height` is along m1, so `height: 0.001`, `width: 0.02`). rho = 1200, nu = 0.5, g = 9.81 along
// -z. statics: duration 1, dt 0.2, ramp_time 1 (5 load steps, as the reference code), eigen_ldlt.
//
// References:
//  - Euler-Bernoulli: delta_EB = q L^4/(8 E I) = 1.5 rho g L^4/(E h^2), q = rho g b h,
//    I = b h^3/12 (independent of b).
//  - Inextensible planar elastica (tests/validation/planar_elastica.hpp, itself validated in
//    test_planar_elastica.cpp), same q, EI and L. At E = 20 MPa: delta = 4.54775149e-2 m.
//
// The clamp's discretization error (derived here; docs/validation.md §2). The clamp node x_c
// carries a bending spring between the last fixed edge and the first free edge, with Voronoi
// length dl: half of its cell lies inside the clamp. In the linear regime the discrete problem is
// solved exactly: the lumped nodal loads give the exact bending moment M_i = -q (L - x_i)^2/2 at
// every node (trapezoidal rule of a linear integrand), edge angles are theta_{j+1/2} =
// (dl/EI) sum_{m<=j} M_m, and the tip deflection sums to
//     delta_DER = delta_EB (1 + 1/n)^2,   n = L/dl free edges,
// i.e. the DER clamp acts as a continuum clamp at the midpoint of the last fixed edge (free
// length L + dl/2). The error is FIRST order in dl, 2 dl/L: 4.49% on the reference code's 51-node mesh
// (n = 45), so an expectation of "1% of EB at 51 nodes, O(dl^2)" cannot hold for this
// clamp; it is a property of the discretization (the reference code clamps the same way), not of
// the element. The tests therefore (a) check the 51-node result against this exact discrete
// prediction and a 401-node mesh (n = 360, 2/n = 0.56%) against EB within 1%, (b) use the
// 401-node mesh against the elastica within 2%, (c) check first-order convergence to the
// elastica and that the Richardson-extrapolated (order 1) limit matches it; and (d) clamp the
// rod at the midpoint of its last fixed edge (the wall between nodes 0 and 1), which removes the
// first-order term: 51 nodes are then within 0.02% of the elastica and converge at second order.
#include "planar_elastica.hpp"
#include "scene_runner.hpp"
#include "wall_clamped_cantilever.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kRho = 1200.0, kG = 9.81, kWidth = 0.02, kThickness = 0.001;
constexpr double kTotalLength = 0.1, kClampX = 0.01, kFreeLength = kTotalLength - kClampX;

double load_per_length() { return kRho * kG * kWidth * kThickness; }
double bending_stiffness(double E) { return E * kWidth * kThickness * kThickness * kThickness / 12.0; }
double euler_bernoulli(double E) {
    return load_per_length() * std::pow(kFreeLength, 4) / (8.0 * bending_stiffness(E));
}

std::string cantilever_scene(double E, int nodes, bool line_search = false) {
    const int edges = nodes - 1;
    // Clamped nodes x <= 0.01: node k at x = 0.1 k/edges, so k <= edges/10 (edges a multiple of 10).
    REQUIRE(edges % 10 == 0);
    const int clamp_node = edges / 10;
    std::string fixed_nodes, fixed_edges;
    for (int i = 0; i <= clamp_node; ++i) fixed_nodes += (i ? ", " : "") + std::to_string(i);
    for (int e = 0; e < clamp_node; ++e) fixed_edges += (e ? ", " : "") + std::to_string(e);
    char material[160];
    std::snprintf(material, sizeof material, "{density: %.17g, youngs_modulus: %.17g, poisson_ratio: 0.5}", kRho, E);
    // Newton: |F| <= 1e-12 N or 1e-12 of the step's first residual; with stiff meshes the
    // floating-point floor of |F| (EA/dl * 1e-16 * |x| per DOF, up to ~1e-8 N at E = 20 GPa,
    // 401 nodes) is reached first and the kernel's round-off test (a Newton step below 1e-13 |q|)
    // ends the iteration. Either way the deflection is converged to ~1e-10 relative.
    // line_search: false by default (plain Newton converges in 4-6 iterations per load step);
    // the line-search case at the end checks that both reach the same equilibrium.
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: statics, dt: 0.2, ramp_time: 1.0,\n"
           "             newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 1.0e-12, increment_tolerance: 1.0e-12,\n"
           "                      max_iterations: 50, line_search: " + std::string(line_search ? "true" : "false") + "}}\n"
           "linear_solver: {type: eigen_ldlt}\n"
           "elements:\n"
           "  - name: beam\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: " + std::to_string(nodes) + "}}\n"
           "    cross_section: {rectangle: {width: 0.02, height: 0.001}}\n"
           "    material: " + std::string(material) + "\n"
           "    fixed: {nodes: [" + fixed_nodes + "], edges: [" + fixed_edges + "]}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, -9.81]}\n";
}

struct StaticResult {
    double deflection;  // -z of the last node, m
    double tip_x;
    double seconds;
};

StaticResult solve(double E, int nodes, bool line_search = false) {
    const auto start = std::chrono::steady_clock::now();
    auto sim = build_scene(cantilever_scene(E, nodes, line_search));
    run_to_end(*sim);
    REQUIRE(sim->state().t == Approx(1.0));
    const Vec3 tip = node_position(*sim, "beam", -1);
    // Planar problem: nothing moves out of the x-z plane.
    CHECK(std::abs(tip.y()) <= 1e-12);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return {-tip.z(), tip.x(), seconds};
}

// Free edges n = L/dl for a mesh of `nodes` nodes over 0.1 m.
double free_edges(int nodes) { return 0.9 * (nodes - 1); }

}  // namespace

TEST_CASE("static cantilever (a): Euler-Bernoulli at E = 20 GPa, 2 GPa, 200 MPa", "[validation][rod][cantilever]") {
    const double moduli[] = {20e9, 2e9, 200e6};
    for (double E : moduli) {
        const double eb = euler_bernoulli(E);
        const double lambda = load_per_length() * std::pow(kFreeLength, 3) / bending_stiffness(E);
        const double elastica = solve_cantilever_elastica(load_per_length(), bending_stiffness(E), kFreeLength).tip_deflection;

        // Reference code's mesh, 51 nodes (dl = 2 mm, n = 45): the exact discrete linear answer is
        // delta_EB (1 + 1/n)^2 (header). Geometric nonlinearity multiplies it by
        // elastica/EB = 1 - lambda^2/80 + ... (-3.3e-3 at 200 MPa). The remaining mismatch is
        // the product of the two small effects (discretization x nonlinearity, ~2/n * lambda^2/80
        // = 1.5e-4 at 200 MPa) plus the extension (q L/(E b h) < 1e-7): 0.1% bounds it with margin
        // while still resolving the 4.5% clamp error to 2%.
        {
            const double n = free_edges(51);
            const StaticResult r = solve(E, 51);
            const double predicted = eb * (1.0 + 1.0 / n) * (1.0 + 1.0 / n) * (elastica / eb);
            std::printf("cantilever E = %.3g Pa, 51 nodes: delta = %.9e m, EB = %.9e m, (delta-EB)/EB = %+.4f%%, "
                        "discrete prediction (1+1/n)^2 elastica/EB - 1 = %+.4f%%, %.3f s\n",
                        E, r.deflection, eb, 100.0 * (r.deflection / eb - 1.0), 100.0 * (predicted / eb - 1.0), r.seconds);
            INFO("E = " << E << ", 51 nodes: delta = " << r.deflection << ", EB = " << eb << ", predicted " << predicted);
            CHECK(std::abs(r.deflection / predicted - 1.0) <= 1e-3);
        }
        // Refined mesh, 401 nodes (dl = 0.25 mm, n = 360): clamp error 2/n + 1/n^2 = 0.56%,
        // nonlinearity <= -0.33% (200 MPa). Within 1% of EB, as expected for E >= 2 GPa
        // (and at 200 MPa too, where EB is still within 0.33% of the elastica).
        {
            const StaticResult r = solve(E, 401);
            std::printf("cantilever E = %.3g Pa, 401 nodes: delta = %.9e m, EB = %.9e m, (delta-EB)/EB = %+.4f%%, "
                        "(delta-elastica)/elastica = %+.4f%% (lambda = %.4g), %.3f s\n",
                        E, r.deflection, eb, 100.0 * (r.deflection / eb - 1.0), 100.0 * (r.deflection / elastica - 1.0),
                        lambda, r.seconds);
            INFO("E = " << E << ", 401 nodes: delta = " << r.deflection << ", EB = " << eb);
            CHECK(std::abs(r.deflection / eb - 1.0) <= 0.01);
        }
    }
}


TEST_CASE("static cantilever (b): planar elastica at E = 20 MPa", "[validation][rod][cantilever]") {
    const double E = 20e6;
    const double elastica = solve_cantilever_elastica(load_per_length(), bending_stiffness(E), kFreeLength).tip_deflection;
    // Independent value (mpmath Taylor shooting, test_planar_elastica.cpp): 4.54775149e-2 m.
    REQUIRE(elastica == Approx(4.54775149221873e-2).epsilon(1e-9));
    // 401 nodes: measured clamp/discretization error ~1.45/n = 0.40% (case c). 2% is our
    // acceptance; at 51 nodes the first-order clamp error is 3.2% and would not meet it.
    const StaticResult r = solve(E, 401);
    std::printf("cantilever E = 20 MPa, 401 nodes: delta = %.9e m, elastica = %.9e m, error %+.4f%%, EB = %.6e m, %.3f s\n",
                r.deflection, elastica, 100.0 * (r.deflection / elastica - 1.0), euler_bernoulli(E), r.seconds);
    CHECK(std::abs(r.deflection / elastica - 1.0) <= 0.02);
}

TEST_CASE("static cantilever (c): convergence to the elastica at E = 20 MPa", "[validation][rod][cantilever]") {
    const double E = 20e6;
    const double elastica = solve_cantilever_elastica(load_per_length(), bending_stiffness(E), kFreeLength).tip_deflection;
    const int meshes[] = {11, 21, 51, 101, 201, 401};
    std::vector<double> delta, error;
    for (int nodes : meshes) {
        const StaticResult r = solve(E, nodes);
        delta.push_back(r.deflection);
        error.push_back(r.deflection / elastica - 1.0);
        std::printf("convergence E = 20 MPa, %3d nodes (n = %3.0f free edges): delta = %.9e m, error %+.5f%%, "
                    "n * error = %.4f, %.3f s\n",
                    nodes, free_edges(nodes), r.deflection, 100.0 * error.back(), free_edges(nodes) * error.back(), r.seconds);
    }
    for (std::size_t i = 1; i < error.size(); ++i) {
        // Mesh ratio dl_{i-1}/dl_i: 2, 2.5, 2, 2, 2 here.
        const double ratio = free_edges(meshes[i]) / free_edges(meshes[i - 1]);
        const double order = std::log(error[i - 1] / error[i]) / std::log(ratio);
        std::printf("convergence %d -> %d nodes: observed order %.4f\n", meshes[i - 1], meshes[i], order);
        INFO(meshes[i - 1] << " -> " << meshes[i] << " nodes: errors " << error[i - 1] << " -> " << error[i]);
        CHECK(error[i] > 0.0);                      // the DER clamp is always too flexible
        CHECK(error[i] < error[i - 1]);             // monotone
        // First order (the clamp's half cell, header). The O(dl^2) part makes the coarsest pair
        // (11 -> 21, n = 9 -> 18) deviate most: measured 0.935-0.994.
        CHECK(std::abs(order - 1.0) < 0.1);
    }
    // Richardson extrapolation for order 1 from the two finest meshes removes the clamp term and
    // leaves O(dl^2): it must match the elastica far better than either mesh (measured 3e-5).
    const double extrapolated = 2.0 * delta[5] - delta[4];
    std::printf("convergence: Richardson (order 1) 2 delta(401) - delta(201) = %.9e m, error %+.5f%%\n", extrapolated,
                100.0 * (extrapolated / elastica - 1.0));
    CHECK(std::abs(extrapolated / elastica - 1.0) <= 5e-4);
}

// With the line search on, the kernel's Newton solver once declared convergence from a
// line-search-shortened step (its increment test measured the damped step) and stopped at a
// wrong equilibrium, 2.9% too stiff. The increment and round-off tests now use the undamped
// Newton step; both runs must reach the same equilibrium.
TEST_CASE("static cantilever: same equilibrium with and without line search", "[validation][rod][cantilever]") {
    const double E = 2e9;
    const StaticResult plain = solve(E, 51, false);
    const StaticResult searched = solve(E, 51, true);
    std::printf("line search check E = 2 GPa, 51 nodes: delta = %.9e m without, %.9e m with line search\n",
                plain.deflection, searched.deflection);
    // Both are converged to ~1e-10 relative: they must agree to that (1e-6 leaves margin).
    CHECK(searched.deflection == Approx(plain.deflection).epsilon(1e-6));
}

namespace {

/// The same cantilever with the clamp at the midpoint of the last fixed edge
/// (wall_clamped_cantilever.hpp): the free length is exactly L.
std::string wall_clamped_scene(double E, int nodes) {
    WallClampedCantilever beam;
    beam.youngs_modulus = E;
    beam.nodes = nodes;
    beam.density = kRho, beam.width = kWidth, beam.thickness = kThickness;
    beam.clamp_x = kClampX, beam.free_length = kFreeLength;
    return wall_clamped_cantilever_scene(beam,
                                         "{type: statics, dt: 0.2, ramp_time: 1.0,\n"
                                         "             newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 1.0e-12}}",
                                         1.0, "forces:\n  - {type: gravity, acceleration: [0, 0, -9.81]}\n");
}

double wall_clamped_deflection(double E, int nodes) {
    auto sim = build_scene(wall_clamped_scene(E, nodes));
    run_to_end(*sim);
    return -node_position(*sim, "beam", -1).z();
}

}  // namespace

TEST_CASE("static cantilever (d): clamped at an edge midpoint the rod is second order", "[validation][rod][cantilever]") {
    // With n = nodes - 1.5 edge lengths in L, the exact linear discrete answer (header formula
    // with n - 1/2 free edges from node 1) is delta_EB (1 - 1/(4 m^2))^2, m = nodes - 1.5:
    // -0.020% at 51 nodes. Geometric nonlinearity adds elastica/EB - 1 (-0.33% at 200 MPa).
    for (double E : {20e9, 2e9, 200e6}) {
        const double eb = euler_bernoulli(E);
        const double elastica = solve_cantilever_elastica(load_per_length(), bending_stiffness(E), kFreeLength).tip_deflection;
        const double delta = wall_clamped_deflection(E, 51);
        std::printf("wall clamp E = %.3g Pa, 51 nodes: (delta-EB)/EB = %+.4f%%, (delta-elastica)/elastica = %+.4f%%\n", E,
                    100.0 * (delta / eb - 1.0), 100.0 * (delta / elastica - 1.0));
        // Our acceptance: within 1% of Euler-Bernoulli on the reference code's 51-node mesh.
        CHECK(std::abs(delta / eb - 1.0) <= 0.01);
        // Against the elastica only the O(dl^2) discretization error remains: 0.02% predicted,
        // 0.05% bounds it with the cross term of discretization and nonlinearity.
        CHECK(std::abs(delta / elastica - 1.0) <= 5e-4);
    }
    // Second-order convergence to the elastica in the large-deflection case (E = 20 MPa).
    const double E = 20e6;
    const double elastica = solve_cantilever_elastica(load_per_length(), bending_stiffness(E), kFreeLength).tip_deflection;
    const int meshes[] = {11, 21, 41, 81};
    std::vector<double> error;
    for (int nodes : meshes) {
        error.push_back(wall_clamped_deflection(E, nodes) / elastica - 1.0);
        std::printf("wall clamp convergence E = 20 MPa, %d nodes: error %+.6f%%\n", nodes, 100.0 * error.back());
    }
    CHECK(std::abs(error.back()) <= 0.02);  // the 2% acceptance against the elastica, met easily
    for (std::size_t i = 1; i < error.size(); ++i) {
        const double ratio = (meshes[i] - 1.5) / (meshes[i - 1] - 1.5);
        const double order = std::log(std::abs(error[i - 1] / error[i])) / std::log(ratio);
        std::printf("wall clamp convergence %d -> %d nodes: observed order %.4f\n", meshes[i - 1], meshes[i], order);
        INFO(meshes[i - 1] << " -> " << meshes[i] << " nodes: errors " << error[i - 1] << " -> " << error[i]);
        // O(dl^2): the observed order approaches 2 (1.7 to 2.3 allows the coarsest mesh's
        // higher-order terms).
        CHECK(order > 1.7);
        CHECK(order < 2.3);
    }
}
