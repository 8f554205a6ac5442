// Validation: rigid shapes resting on rods through IMC contact with the bodies' mapped points:
// a free sphere (its centre with its radius) on two clamped rods, and a free box (its surface
// triangles and edges) on two fixed rods, at the end of this file.
//
// The sphere:
//
// Two rods along y at x = ±a are clamped at both ends (span L between the clamps, node 1 to node
// N-2, the first and last edges held); a sphere of weight W is released just above them and
// comes to rest in the groove. Each rod then carries a force F along n, the unit normal from
// its axis to the sphere's centre, with 2 F n_z = W, and the rod's axis under the sphere is
// displaced by -F n C, C = L³/(192 EI) (Euler-Bernoulli, clamped-clamped beam, central point
// load; a circular section bends alike in every direction), L being the span of the
// continuous beam the discrete one converges to (see the mesh check below). The centre sits at distance
// R + r + g from the displaced axis point, where -E'(g) = F is the penalty law
// (smooth_contact_law.hpp). The test solves these few equations itself, by a fixed point, and
// compares the sphere's rest height; it computes nothing from the plugin.
//
// The rod's sag is kept small (~0.05 mm, 2.5 % of its radius): the tension its stretching adds
// scales as (sag/L)² and changes the force balance by ~1e-4. The band (0.1 mm) is narrow enough
// that only the rod edge under the sphere is in it: a neighbouring edge's nearest point, its
// node Δl/2 from the contact, lies sqrt(2 (R + r) band) = 1.5 mm or more beyond the band
// whenever Δl/2 > 1.5 mm (checked below), so the contact is one pair per rod, as the reference
// assumes. The sphere touches the middle of an edge (an odd number of edges), so the load reaches
// the rod's two middle nodes, Δl/2 either side of the centre. The discrete answer converges to
// the reference with the mesh (first order, from the clamps), which the test shows by
// extrapolation; it does not move with the time step or the linear solver.
#include "scene_runner.hpp"

#include "soma/smooth_contact_law.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kSphereRadius = 0.01;  // m
constexpr double kRodRadius = 2e-3;     // m
constexpr double kHalfGap = 0.008;      // a: the rods' axes at x = ±a
constexpr double kSpan = 0.2;           // L between the clamps (m)
constexpr double kModulus = 1e9;        // Pa
constexpr double kDensity = 2000;       // sphere, kg/m^3: W = rho 4/3 pi R³ g = 0.0822 N
constexpr double kStiffness = 1e4;      // N/m: force at gap 0 is k ln2 band/15 = 0.046 N
constexpr double kBand = 1e-4;          // m
constexpr double kGravity = 9.81;

double weight() { return kDensity * 4.0 / 3.0 * M_PI * std::pow(kSphereRadius, 3) * kGravity; }

/// Newton's convergence test in both scenes: the 2-norm of the free residual (N), alone (no
/// relative test), so that every converged step meets it whatever the linear solver.
constexpr double kNewtonTolerance = 1e-12;

/// The scenes' `newton` block and linear solver (empty: the kernel's default, eigen_lu for a
/// scene with a rigid body, whose Jacobian is unsymmetric).
std::string integrator_block(double dt, const std::string& solver) {
    return "integrator: {type: implicit_euler, dt: " + num(dt) + ", newton: {absolute_tolerance: " + num(kNewtonTolerance) +
           ", relative_tolerance: 0, max_iterations: 50}}\n" +
           (solver.empty() ? std::string() : "linear_solver: {type: " + solver + "}\n");
}

/// The sphere on the rods: rods of \p nodes nodes (an even count: the sphere over an edge's
/// middle), run for \p duration with step \p dt and linear solver \p solver (empty: the default).
std::string scene(int nodes, double dt, double duration, const std::string& solver = "") {
    // Node 1 and node N-2 are the clamps: the rod runs Δl beyond each, Δl = L/(N-3).
    const double dl = kSpan / (nodes - 3);
    const double half = 0.5 * kSpan + dl;
    const double centre = std::sqrt(std::pow(kSphereRadius + kRodRadius + 0.5 * kBand, 2) - kHalfGap * kHalfGap);
    const auto rod = [&](const char* name, double x) {
        return std::string("  - {name: ") + name + ", type: discrete_rod, geometry: {line: {from: [" + num(x) + ", " +
               num(-half) + ", 0], to: [" + num(x) + ", " + num(half) + ", 0], nodes: " + std::to_string(nodes) +
               "}},\n     cross_section: {circle: {radius: " + num(kRodRadius) +
               "}}, material: {density: 1000, youngs_modulus: " + num(kModulus) +
               "},\n     fixed: [{nodes: [0, 1, -2, -1]}, {edges: [0, -1]}]}\n";
    };
    return "simulation: {duration: " + num(duration) + "}\n" + integrator_block(dt, solver) +
           "elements:\n" +
           rod("left", -kHalfGap) + rod("right", kHalfGap) +
           "  - {name: sphere, type: rigid_body, position: [0, 0, " + num(centre) + "], shape: {sphere: {radius: " +
           num(kSphereRadius) + "}}, density: " + num(kDensity) + "}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, " + num(-kGravity) + "], elements: [sphere]}\n"
           "  - {type: imc_contact, stiffness: " + num(kStiffness) + ", band: " + num(kBand) + "}\n"
           "  - {type: rigid_damping, linear_damping: 0.5, angular_damping: 1.0e-4}\n"
           "  - {type: rayleigh_damping, alpha: 50, elements: [left, right]}\n";
}

/// The gap g at which the penalty force -E'(g) equals \p force (Newton on the monotone law).
double gap_at_force(double force) {
    const double sharpness = kContactSmoothingWidth / kBand;
    double g = 0.0;
    for (int it = 0; it < 100; ++it) {
        const PenaltyEnergy e = penalty_energy(g, kStiffness, sharpness);
        const double residual = -e.gradient - force;  // decreasing in g
        if (std::abs(residual) < 1e-15 * force) break;
        g += residual / e.curvature;
    }
    return g;
}

/// The reference rest height of the sphere's centre (file comment).
double reference_height() {
    const double inertia = M_PI * std::pow(kRodRadius, 4) / 4.0;
    const double compliance = std::pow(kSpan, 3) / (192.0 * kModulus * inertia);
    const double w = weight();
    // Unknowns: the normal n (from the right rod's axis point to the centre) and the height z.
    Vec3 n = Vec3(-kHalfGap, 0, kSphereRadius + kRodRadius).normalized();
    double z = 0.0;
    for (int it = 0; it < 200; ++it) {
        const double force = 0.5 * w / n.z();
        const Vec3 axis = Vec3(kHalfGap, 0, 0) - force * compliance * n;  // the right rod's axis under the sphere
        const double distance = kSphereRadius + kRodRadius + gap_at_force(force);
        z = axis.z() + std::sqrt(distance * distance - axis.x() * axis.x());
        n = (Vec3(0, 0, z) - axis).normalized();
    }
    return z;
}

/// The sphere's vertical stiffness at the reference rest state (N/m): each rod supports it along
/// n through the beam's compliance C = L³/(192 EI) in series with the penalty's E''(g), and the
/// pair force F turning with the normal removes F (1 - n_z²)/(R + r + g) (the distance's Hessian
/// across n): K_z = 2 [n_z² / (C + 1/E''(g)) - F (1 - n_z²)/(R + r + g)].
double sphere_vertical_stiffness() {
    const double inertia = M_PI * std::pow(kRodRadius, 4) / 4.0;
    const double compliance = std::pow(kSpan, 3) / (192.0 * kModulus * inertia);
    const double z = reference_height();
    // The rod's axis under the sphere and the normal, as in reference_height().
    Vec3 n = Vec3(-kHalfGap, 0, z).normalized();
    double force = 0.0, gap = 0.0;
    for (int it = 0; it < 200; ++it) {
        force = 0.5 * weight() / n.z();
        gap = gap_at_force(force);
        n = (Vec3(0, 0, z) - (Vec3(kHalfGap, 0, 0) - force * compliance * n)).normalized();
    }
    const double curvature = penalty_energy(gap, kStiffness, kContactSmoothingWidth / kBand).curvature;
    const double distance = kSphereRadius + kRodRadius + gap;
    return 2.0 * (n.z() * n.z() / (compliance + 1.0 / curvature) - force * (1.0 - n.z() * n.z()) / distance);
}

double rest_height(int nodes, double dt, const std::string& solver = "") {
    auto sim = build_scene(scene(nodes, dt, 0.4, solver));
    run_to_end(*sim);
    // At rest (the damping has removed the drop's motion): a speed far below the sag per second.
    REQUIRE(node_velocity(*sim, "sphere", 0).norm() < 1e-7);
    const Vec3 centre = node_position(*sim, "sphere", 0);
    // Symmetric: the sphere stays over the groove's middle.
    CHECK(std::abs(centre.x()) < 1e-10);
    CHECK(std::abs(centre.y()) < 1e-10);
    return centre.z();
}

}  // namespace

TEST_CASE("a rigid sphere rests on two clamped rods at the height the penalty law and beam theory give",
          "[validation][imc][rigid]") {
    const double reference = reference_height();
    const double unloaded = std::sqrt(std::pow(kSphereRadius + kRodRadius, 2) - kHalfGap * kHalfGap);
    INFO("reference height " << reference << " m (touching undeformed rods: " << unloaded << " m)");
    // The sag and the penalty's give both matter: the reference sits ~0.1 mm below plain touching.
    REQUIRE(unloaded - reference > 2e-5);

    // Only the edge under the sphere is within the band at the meshes used (file comment).
    for (int nodes : {24, 48}) {
        const double dl = kSpan / (nodes - 3);
        REQUIRE(0.5 * dl > std::sqrt(2 * (kSphereRadius + kRodRadius) * kBand) + kBand);
    }
    const double coarse = rest_height(24, 1e-3), fine = rest_height(48, 1e-3);
    const double coarse_dl = kSpan / 21, fine_dl = kSpan / 45;
    const double coarse_error = coarse - reference, fine_error = fine - reference;
    INFO("rest heights " << coarse << " (24 nodes), " << fine << " (48 nodes); errors " << coarse_error << ", "
                         << fine_error);
    // Converges with the mesh, at first order: a clamped node's bending energy is spread over its
    // Voronoi half-edges, so the discrete clamp acts Δl/2 beyond node 1 (and node N-2) and the
    // beam bends like one of span L + Δl: the sag's error is ~3 Δl/L of it, shrinking in
    // proportion to Δl (the ratio of the errors within 10 % of the ratio of the edge lengths).
    CHECK(coarse_error < 0.0);  // the longer effective span sags more
    CHECK(coarse_error / fine_error == Approx(coarse_dl / fine_dl).epsilon(0.1));
    // Extrapolated to Δl = 0 from the two meshes (Richardson, first order), the height meets the
    // reference within 1 % of the change the load causes (sag plus penetration, ~0.25 mm): what
    // remains is O(Δl²) and the neglected stretching (~1e-4).
    const double extrapolated = fine - (coarse - fine) * fine_dl / (coarse_dl - fine_dl);
    CHECK(std::abs(extrapolated - reference) < 0.01 * (unloaded - reference));

    // The rest state does not move with the step (an equilibrium, whatever the path).
    const double other_step = rest_height(48, 2e-3);
    CHECK(other_step == Approx(fine).margin(1e-10));

    // Nor with the linear solver. `fine` ran with the default, eigen_lu (the rigid body makes the
    // Jacobian unsymmetric, so LU gives exact Newton steps); eigen_ldlt and cholmod read one
    // triangle and take quasi-Newton steps, stopping at other iterates. Each run's final state is
    // at rest, an equilibrium whose residual Newton brought below kNewtonTolerance: two such states
    // differ in height by at most 2 kNewtonTolerance / K_z, K_z the sphere's vertical stiffness
    // (312 N/m, mostly the rods' bending: 6.4e-15 m; measured: 0, bit for bit).
    const double stiffness = sphere_vertical_stiffness();
    const double solver_bound = 2.0 * kNewtonTolerance / stiffness;
    REQUIRE(stiffness > 0.0);
    for (const char* solver : {"eigen_ldlt", "cholmod"}) {
        const double height = rest_height(48, 1e-3, solver);
        INFO(solver << ": rest height " << height << " m, differs from eigen_lu's by " << height - fine
                    << " m; bound 2 tol/K_z = " << solver_bound << " m (K_z = " << stiffness << " N/m)");
        CHECK(std::abs(height - fine) <= solver_bound);
    }
}

namespace {

// A rigid box (0.04 x 0.032 x 0.01 m, rho = 1000: 12.8 g) resting on two fixed rods along y at
// x = ±0.01 m (radius 2 mm, nodes every 5 mm from y = -0.05 m).
constexpr double kBoxHeight = 0.01;
constexpr double kBoxWeight = 1000 * 0.04 * 0.032 * kBoxHeight * kGravity;

std::string box_scene(double dt, const std::string& solver = "") {
    const auto rod = [&](const char* name, double x) {
        return std::string("  - {name: ") + name + ", type: discrete_rod, geometry: {line: {from: [" + num(x) +
               ", -0.05, 0], to: [" + num(x) + ", 0.05, 0], nodes: 21}},\n     cross_section: {circle: {radius: " +
               num(kRodRadius) + "}}, material: {density: 1000, youngs_modulus: 1.0e9},\n"
               "     fixed: {box: {min: [-1, -1, -1], max: [1, 1, 1]}}}\n";
    };
    const double start = kRodRadius + 0.5 * kBand + 0.5 * kBoxHeight;
    return "simulation: {duration: 0.4}\n" + integrator_block(dt, solver) +
           "elements:\n" +
           rod("left", -0.01) + rod("right", 0.01) +
           "  - {name: box, type: rigid_body, position: [0, 0, " + num(start) +
           "], shape: {box: {size: [0.04, 0.032, " + num(kBoxHeight) + "]}}, density: 1000}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, " + num(-kGravity) + "], elements: [box]}\n"
           "  - {type: imc_contact, stiffness: " + num(kStiffness) + ", band: " + num(kBand) + "}\n"
           "  - {type: rigid_damping, linear_damping: 0.5, angular_damping: 1.0e-3}\n";
}

}  // namespace

TEST_CASE("a rigid box rests on two rods with each contact pair counted as the pair kinds say",
          "[validation][imc][rigid]") {
    // Under the box's bottom face (|y| < 16 mm) each rod has 7 nodes (y = 0, ±5, ±10, ±15 mm),
    // each a node-triangle pair in the face's interior: the face's diagonal is a flat seam, so a
    // node is counted by one of its two triangles. Each rod also crosses the face's two edges
    // along x (y = ±16 mm) inside its edges [15, 20] mm: an edge-edge pair at the same gap (the
    // per-pair sum counts that contact beside the nodes', plugins/imc_contact/README.md). Every
    // other pair is farther than the band: the rod's nodes at ±20 mm are 4 mm beyond the face
    // (distance sqrt(4² + 2²) mm to its edge: 2.5 mm past contact), and the node at 15 mm is 1 mm
    // from the edge along y (sqrt(1² + 2²) - 2 = 0.24 mm past contact, beyond the 0.1 mm band).
    // So 18 equal pairs carry the weight: the box's bottom rests r + g above the rods' axes with
    // -E'(g) = W/18, level.
    const int pairs = 2 * (7 + 2);
    const double gap = gap_at_force(kBoxWeight / pairs);
    REQUIRE(gap > 0.0);
    REQUIRE(gap < kBand);
    // The box's vertical stiffness: the 18 pairs' E''(g) side by side (the rods are fixed).
    const double stiffness = pairs * penalty_energy(gap, kStiffness, kContactSmoothingWidth / kBand).curvature;
    struct Run {
        double dt;
        const char* solver;  ///< empty: the default, eigen_lu
    };
    double default_bottom = 0.0;
    for (const Run& run : {Run{1e-3, ""}, Run{2e-3, ""}, Run{1e-3, "eigen_ldlt"}, Run{1e-3, "cholmod"}}) {
        INFO("dt " << run.dt << ", linear solver " << (*run.solver ? run.solver : "eigen_lu (default)"));
        auto sim = build_scene(box_scene(run.dt, run.solver));
        run_to_end(*sim);
        REQUIRE(node_velocity(*sim, "box", 0).norm() < 1e-7);
        // Level: the eight corners (points 2..9) sit at two heights, bottom and top.
        double bottom = 0.0;
        for (long corner = 2; corner < 10; ++corner) {
            const double z = node_position(*sim, "box", corner).z();
            const double expected = kRodRadius + gap + ((corner - 2) & 4 ? kBoxHeight : 0.0);
            // Newton's tolerance (1e-12 N against a contact stiffness ~1e4 N/m) bounds the height to ~1e-13 m;
            // 1e-9 m is what a single pair more or less would exceed by far (a 6 % force change
            // moves the gap by ln(18/17)/K1 = 0.4 µm).
            CHECK(z == Approx(expected).margin(1e-9));
            if (corner == 2) bottom = z;
        }
        if (run.dt == 1e-3 && !*run.solver) default_bottom = bottom;
        // The rest state does not move with the linear solver (eigen_ldlt and cholmod read one
        // triangle of the unsymmetric Jacobian and may stop Newton at other iterates): both final
        // states are equilibria to Newton's tolerance, so their heights differ by at most
        // 2 kNewtonTolerance / K_z (6.3e-17 m; measured: 0, the solves' differences stay below
        // the positions' last bit).
        if (*run.solver) {
            const double bound = 2.0 * kNewtonTolerance / stiffness;
            INFO("bottom " << bottom << " m, differs from eigen_lu's by " << bottom - default_bottom << " m; bound "
                           << bound << " m (K_z = " << stiffness << " N/m)");
            CHECK(std::abs(bottom - default_bottom) <= bound);
        }
    }
}
