// Validation: static cantilever plate under gravity with the hinge shell (MAT-DiSMech §7.2,
// Fig. 8 with the hinge model), against Euler-Bernoulli.
//
// Geometry (MAT-DiSMech reference code, §7.2): a plate 0.1 m long (x) and 0.021651 m wide (y),
// thickness h = 1 mm, rho = 1200, g = 9.81 along -z; the nodes with x <= 0.01 m are clamped
// (fixed: box), free length L = 0.09 m. Statics with a 5-step load ramp. Meshes: the generated
// `rectangle` (near-equilateral triangles, rows along x as the reference code's equilateral
// mesh, or along y), edge lengths a = 5, 2.5, 1.25 mm.
//
// Reference: delta_EB = q L^4/(8 E I) = 1.5 rho g L^4/(E h^2) (independent of the width).
//
// What the hinge model should give (derived here, see docs): for a uniform curvature tensor K on
// an equilateral mesh of edge a, the hinge of edge direction t and in-plane normal m has the
// angle phi = a [ (sqrt(3)/2) m.K.m - (1/(2 sqrt(3))) t.K.t ]. With 2/(sqrt(3) a^2) hinges per unit
// area in each of the three directions, the energy density for K = diag(kx, ky) is, for either
// mesh orientation, (1/sqrt(3)) k_b [ 2 kx^2/3 + (sqrt(3)/2 ky - kx/(2 sqrt(3)))^2 ] (rows along
// x; the same function for rows along y), minimal over ky at ky = kx/3: the lattice has a
// bending Poisson ratio 1/3 and a plate rigidity
// D = (sqrt(3)/2) k_b = E h^3/12 (with the code's k_b = (2/sqrt(3)) E h^3/12), i.e. the
// "beam" rigidity with free anticlastic curvature is D (1 - 1/9) = (8/9) E h^3/12.
// A narrow cantilever (b^2 kappa/h << 1 here) bends with free anticlastic curvature except near
// the clamp, where the wall forbids it over a length ~ b: the continuum-limit deflection lies
// between delta_EB (ky = 0 everywhere) and (9/8) delta_EB (ky free everywhere).
// On top of that the clamp of a lattice is first order in a (like the rod's, see
// test_cantilever_static.cpp): the tests below measure delta/delta_EB for three mesh sizes and
// both orientations, and assert (1) the ratio for every mesh within the band the measurements
// and the theory justify, (2) first-order convergence, (3) the Richardson-extrapolated limit
// within [1, 9/8], and (4) the linear scaling with 1/E between 20 GPa, 2 GPa and 200 MPa.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kRho = 1200.0, kG = 9.81, kThickness = 0.001, kLength = 0.1, kWidth = 0.021651;
constexpr double kClampX = 0.01, kFreeLength = kLength - kClampX;

double euler_bernoulli(double E) { return 1.5 * kRho * kG * std::pow(kFreeLength, 4) / (E * kThickness * kThickness); }

std::string plate_scene(double E, double edge, char rows) {
    char text[2048];
    std::snprintf(text, sizeof text,
                  "simulation: {duration: 1.0}\n"
                  "integrator: {type: statics, dt: 0.2, ramp_time: 1.0,\n"
                  "             newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 1.0e-10, increment_tolerance: 1.0e-12,\n"
                  "                      max_iterations: 50, line_search: false}}\n"
                  "linear_solver: {type: eigen_ldlt}\n"
                  "elements:\n"
                  "  - name: plate\n"
                  "    type: hinge_shell\n"
                  "    mesh: {rectangle: {origin: [0, 0, 0], size: [%.17g, %.17g], edge_length: %.17g, rows: %c}}\n"
                  "    thickness: %.17g\n"
                  "    material: {density: %.17g, youngs_modulus: %.17g}\n"
                  "    fixed: {box: {min: [-1, -1, -1], max: [%.17g, 1, 1]}}\n"
                  "forces:\n"
                  "  - {type: gravity, acceleration: [0, 0, -9.81]}\n",
                  kLength, kWidth, edge, rows, kThickness, kRho, E, kClampX + 1e-9);
    return text;
}

/// Indices of the nodes on the free edge x = 0.1 (the generated rectangle has straight sides:
/// nodes of every row, or the whole last row for rows along y, lie on it).
std::vector<long> tip_nodes(const Simulation& sim) {
    const Element* plate = sim.find_element("plate");
    REQUIRE(plate != nullptr);
    std::vector<long> tips;
    for (std::size_t i = 0; i < plate->geometry().point_dofs.size(); ++i)
        if (std::abs(node_position(sim, "plate", static_cast<long>(i)).x() - kLength) <= 1e-12)
            tips.push_back(static_cast<long>(i));
    REQUIRE(tips.size() >= 2);
    return tips;
}

struct PlateResult {
    double deflection;  ///< mean -z of the free-edge nodes at x = 0.1 (m)
    double spread;      ///< max - min of their z (m): twist/anticlastic across the tip
};

PlateResult solve(double E, double edge, char rows) {
    auto sim = build_scene(plate_scene(E, edge, rows));
    const auto tips = tip_nodes(*sim);
    run_to_end(*sim);
    REQUIRE(sim->state().t == Approx(1.0));
    double sum = 0.0, lo = 1e300, hi = -1e300;
    for (long n : tips) {
        const Vec3 x = node_position(*sim, "plate", n);
        REQUIRE(x.x() == Approx(kLength).margin(1e-3));
        sum += -x.z();
        lo = std::min(lo, x.z());
        hi = std::max(hi, x.z());
    }
    return {sum / static_cast<double>(tips.size()), hi - lo};
}

}  // namespace

/// Edge lengths whose meshes put a node row or column exactly on the clamp line x = 0.01, with
/// 20, 40, 80, 160 node spacings along x: the clamp is then geometrically similar on every mesh.
double edge_for(int level, char rows) {
    const double spacings = 20.0 * std::pow(2.0, level);
    return rows == 'x' ? kLength / spacings : kLength / (spacings * std::sqrt(3.0) / 2.0);
}

// Measured (E = 2 GPa, delta/delta_EB; levels 0..3 = 20, 40, 80, 160 node spacings along x;
// the generated rectangle with straight sides):
//   rows x (a = 5, 2.5, 1.25, 0.625 mm):      1.19035  1.12560  1.10142  1.08928
//     differences 0.0648, 0.0242, 0.0121: first order from level 1 (observed 0.995), the clamp's
//     lattice error as for the rod; Richardson (order 1) limit 1.0772. (The former zigzag mesh
//     gave 1.147 ... 1.084 with the same limit: its odd rows stopped du/2 short of the free end,
//     a plate shorter by ~du/4 under load, which cancelled part of the clamp's error.)
//   rows y (a = 5.77, 2.89, 1.44, 0.72 mm):   1.04223  1.01926  1.08509  1.08079
//     not monotone: across the width there are 4, 8, 15, 30 edges, and the parity of that count
//     changes the lattice's effective width relative to the mass by O(a/b). Richardson (order 1)
//     of the two finest: 1.0765.
// Both orientations extrapolate to 1.077, inside the theoretical band [1, 9/8] and close to
// the estimate 9/8 - (1/8) f with f ~ 0.3 (the share of the tip deflection from the first
// ~b/2 at the clamp, where anticlastic curvature is suppressed: 1 - (1 - b/(2L))^4 = 0.4).
// Tolerances asserted:
//   - every mesh with >= 40 spacings: 1.0 <= delta/delta_EB <= 1.15 (the band [1, 9/8] plus the
//     clamp's first-order error, measured +4.8% above the limit at 40 spacings with rows x);
//   - rows x: monotone, observed order in [0.8, 1.2] between levels 1-2-3;
//   - the order-1 extrapolations of both orientations lie in [1, 9/8] and agree within 1%
//     (measured 0.06%): the hinge model's mesh dependence vanishes under refinement for this
//     load case, as the derivation (isotropic energy for both orientations) predicts.
TEST_CASE("cantilever plate, hinge shell: Euler-Bernoulli band, convergence, orientation (E = 2 GPa)",
          "[validation][shell][hinge][cantilever]") {
    const double E = 2e9;
    const double eb = euler_bernoulli(E);
    double limit[2] = {0.0, 0.0};
    for (char rows : {'x', 'y'}) {
        std::vector<double> ratio;
        for (int level = 0; level < 4; ++level) {
            const double edge = edge_for(level, rows);
            const PlateResult r = solve(E, edge, rows);
            ratio.push_back(r.deflection / eb);
            std::printf("hinge plate E = %.3g, rows %c, a = %.6f m: delta = %.6e m, EB = %.6e m, delta/EB = %.5f, "
                        "tip z spread %.2e m\n",
                        E, rows, edge, r.deflection, eb, r.deflection / eb, r.spread);
            // The free edge stays straight across the width to < 1% of the deflection.
            CHECK(r.spread < 0.01 * r.deflection);
            if (level >= 1) {
                INFO("rows " << rows << ", level " << level << ": delta/EB = " << ratio.back());
                CHECK(ratio.back() >= 1.0);
                CHECK(ratio.back() <= 1.15);
            }
        }
        const double d1 = ratio[2] - ratio[1], d2 = ratio[3] - ratio[2];
        const double order = std::log(d1 / d2) / std::log(2.0);
        const double extrapolated = 2.0 * ratio[3] - ratio[2];
        limit[rows == 'x' ? 0 : 1] = extrapolated;
        std::printf("rows %c: differences %.5f %.5f %.5f, observed order (levels 1-3) %.3f, Richardson(1) %.5f\n", rows,
                    ratio[1] - ratio[0], d1, d2, order, extrapolated);
        if (rows == 'x') {
            CHECK(ratio[1] < ratio[0]);
            CHECK(ratio[2] < ratio[1]);
            CHECK(ratio[3] < ratio[2]);
            CHECK(std::abs(order - 1.0) < 0.2);
        }
        CHECK(extrapolated >= 1.0);
        CHECK(extrapolated <= 9.0 / 8.0);
    }
    CHECK(std::abs(limit[0] / limit[1] - 1.0) < 0.01);
}

// Linear regime: delta scales as 1/E. Measured (rows x, a = 1.25 mm): 1.10147 at 20 GPa,
// 1.10142 at 2 GPa, 1.09591 at 200 MPa. At 20 GPa the difference (5e-5) is the solver's stopping
// point on the 58 um deflection; 1e-4 bounds it. At 200 MPa geometric nonlinearity lowers the
// deflection: lambda^2/80 = 0.33% for a beam (lambda = q L^3/EI = 0.51; elastica, see
// test_cantilever_static.cpp), measured 0.50% for the plate (the anticlastic membrane coupling
// adds to it); 0.6% bounds it.
TEST_CASE("cantilever plate, hinge shell: E = 20 GPa, 2 GPa, 200 MPa", "[validation][shell][hinge][cantilever]") {
    const double edge = edge_for(2, 'x');
    const double reference = solve(2e9, edge, 'x').deflection / euler_bernoulli(2e9);
    for (double E : {20e9, 200e6}) {
        const double ratio = solve(E, edge, 'x').deflection / euler_bernoulli(E);
        std::printf("hinge plate E = %.3g, rows x, a = %.5f m: delta/EB = %.5f (2 GPa: %.5f)\n", E, edge, ratio, reference);
        INFO("E = " << E << ": delta/EB = " << ratio << ", at 2 GPa " << reference);
        CHECK(std::abs(ratio / reference - 1.0) < (E > 1e10 ? 1e-4 : 6e-3));
        CHECK(ratio < reference + 1e-4);  // nonlinearity only stiffens the cantilever
    }
}
