// Validation: crossed rods pressed together with IMC contact (MAT-DiSMech §4, eq. 21-22).
//
// A rod (the beam) lies across two fixed rods (the supports) at right angles and is pressed onto
// them by two point loads of P/2 placed over the crossings. The beam's nodes are held in x and y
// at its ends, its first edge's twist is held, and nothing else holds it in z: at rest the two
// contact forces alone carry the load, so each equals P/2 by symmetry. The beam is released
// from just inside the contact band and comes to rest under implicit Euler (whose damping of the
// fast contact vibration, omega dt ~ 3, settles it within tens of steps). The step must keep the
// beam's free flight per step, (P/m) dt^2 = 1e4 m/s^2 dt^2, well inside the band (0.3 mm): at
// dt = 1e-3 s the first Newton iterate jumps 10 mm, through the supports, and a penalty whose
// range is the band cannot bring it back; imc_contact refuses such a solution, and the run
// retries the step with a smaller dt (checked below). dt = 1e-4 s moves it 0.1 mm. Statics cannot pose
// this problem: a Newton iterate that lifts the beam off the supports leaves it with no
// stiffness in z, and the Jacobian is singular there.
//
// The contact force at a crossing is -E'(gap) along the common normal of the two crossing edges,
// with gap = (distance between the edges' lines) - 2r, both read from the solved configuration
// here, not from the plugin. The loads sit at the beam's nodes 2.7 mm inside the crossings, so
// the beam bends and the normal tilts at the crossings: the vertical component of the contact
// force, -E'(gap) n_z, must equal P/2. (Reading the gap as a height difference instead misses
// 2r (1 - cos theta) of the gap, several percent of the force.)
// Viscous drag on the beam (decay rate eta/(rho A) = 320 /s) brings it to rest within the run
// whatever the step, so that the rest state, not the step's numerical damping, is compared.
//
// Also: the answer does not move with the time step (the rest state is an equilibrium, whatever
// path reached it) or with the linear solver (LDLT, LU), and the gap stays within the contact band.
#include "scene_runner.hpp"

#include "soma/smooth_contact_law.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kRadius = 1e-3;       // m, every rod
constexpr double kStiffness = 1e5;     // N/m: contact force at gap 0 is k ln2 band/15 = 1.44 N
constexpr double kBand = 0.3125 * kRadius;  // the plugin's default band
constexpr double kLoad = 2.0;          // N, total: 1 N per crossing, just below the gap-0 force
// The beam's 12 nodes are 0.06/11 = 5.45 mm apart from x = -0.03; the supports cross it at the
// middle of its edges 1 and 9, 2.7 mm from the loaded nodes 2 and 9. A node within 1.2 mm of a
// crossing would put a second pair in the band (the node against the support: the IMC pairs
// count a contact at a node once per edge, see plugins/imc_contact/README.md).
constexpr double kSupport = 0.03 - 1.5 * 0.06 / 11;  // m

/// How the beam is set up and pulled (the friction case) beside the frictionless defaults.
struct BeamSetup {
    double dt = 1e-4;
    std::string solver = "eigen_ldlt";
    double duration = 0.05;
    double start_gap = 0.5 * kBand;  ///< the beam's axis starts 2r + start_gap above the supports'
    double friction = 0.0;           ///< mu
    double pull = 0.0;               ///< total tangential load along +x (N), split over the two loaded nodes
    double beam_modulus = 1e9;       ///< the beam's Young's modulus (Pa)
};

std::string crossed_rods_scene(const BeamSetup& setup) {
    const double z = 2 * kRadius + setup.start_gap;
    // With a pull the beam's ends are held in y only (x is free to slide); otherwise in x and y.
    const std::string held = setup.pull != 0.0 ? "[y]" : "[x, y]";
    const std::string load = "[" + num(0.5 * setup.pull) + ", 0, " + num(-0.5 * kLoad) + "]";
    return "simulation: {duration: " + num(setup.duration) + "}\n"
           "integrator: {type: implicit_euler, dt: " + num(setup.dt) + ", "
           "newton: {absolute_tolerance: 1.0e-10, max_iterations: 50}}\n"
           "linear_solver: {type: " + setup.solver + "}\n"
           "elements:\n"
           "  - {name: support_left, type: discrete_rod, geometry: {line: {from: [" + num(-kSupport) + ", -0.03, 0], to: [" + num(-kSupport) + ", 0.03, 0], nodes: 12}},\n"
           "     cross_section: {circle: {radius: " + num(kRadius) + "}}, material: {density: 1000, youngs_modulus: 1.0e9},\n"
           "     fixed: {box: {min: [-1, -1, -1], max: [1, 1, 1]}}}\n"
           "  - {name: support_right, type: discrete_rod, geometry: {line: {from: [" + num(kSupport) + ", -0.03, 0], to: [" + num(kSupport) + ", 0.03, 0], nodes: 12}},\n"
           "     cross_section: {circle: {radius: " + num(kRadius) + "}}, material: {density: 1000, youngs_modulus: 1.0e9},\n"
           "     fixed: {box: {min: [-1, -1, -1], max: [1, 1, 1]}}}\n"
           "  - name: beam\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [-0.03, 0, " + num(z) + "], to: [0.03, 0, " + num(z) + "], nodes: 12}}\n"
           "    cross_section: {circle: {radius: " + num(kRadius) + "}}\n"
           "    material: {density: 1000, youngs_modulus: " + num(setup.beam_modulus) + "}\n"
           "    fixed:\n"
           "      - {nodes: [0, -1], components: " + held + "}\n"
           "      - {edges: [0]}\n"
           "forces:\n"
           "  - {type: imc_contact, stiffness: " + num(kStiffness) + ", friction: " + num(setup.friction) +
           ", slip_velocity: 1.0e-3}\n"
           "  - {type: viscous_drag, viscosity: 1.0, elements: [beam]}\n"
           "  - {type: point_load, element: beam, nodes: [2], force: " + load + "}\n"
           "  - {type: point_load, element: beam, nodes: [-3], force: " + load + "}\n";
}

/// The contact at the support crossing the beam at x = \p x: the gap between the axes of the
/// beam's edge over it and the support's edge under it, and the z component of their unit
/// common normal.
struct Contact {
    double gap = 0.0;
    double normal_z = 0.0;
};

Contact contact_at(const Simulation& sim, double x, const std::string& support) {
    // Beam nodes at x_k = -0.03 + k * 0.06/11; support nodes at y_k = -0.03 + k * 0.06/11 (the
    // crossing at y = 0 lies in the middle of the support's edge 5).
    const double spacing = 0.06 / 11;
    const long k = static_cast<long>(std::floor((x + 0.03) / spacing));
    const Vec3 b0 = node_position(sim, "beam", k), b1 = node_position(sim, "beam", k + 1);
    const Vec3 s0 = node_position(sim, support, 5), s1 = node_position(sim, support, 6);
    Vec3 normal = (b1 - b0).cross(s1 - s0).normalized();
    const double distance = (b0 - s0).dot(normal);  // between the two lines (edge-edge contact)
    if (distance < 0.0) normal = -normal;
    return {std::abs(distance) - 2 * kRadius, normal.z()};
}

struct Crossing {
    Contact left, right;
};

Crossing solve(double dt, const std::string& solver) {
    BeamSetup setup;
    setup.dt = dt;
    setup.solver = solver;
    auto sim = build_scene(crossed_rods_scene(setup));
    run_to_end(*sim);
    return {contact_at(*sim, -kSupport, "support_left"), contact_at(*sim, kSupport, "support_right")};
}

}  // namespace

TEST_CASE("crossed rods: the contact forces carry the load, the gap stays in the band", "[validation][imc]") {
    const Crossing c = solve(1e-4, "eigen_ldlt");
    INFO("gaps " << c.left.gap << " " << c.right.gap << " (band " << kBand << "), normal z " << c.left.normal_z);
    // Within the band on the contact side: a positive gap below the band (the load is below the
    // force at gap 0) and no penetration.
    CHECK(c.left.gap > 0.0);
    CHECK(c.left.gap < kBand);
    // Symmetric problem: the two crossings agree to the solver's tolerance.
    CHECK(c.right.gap == Approx(c.left.gap).epsilon(1e-8));
    // The penalty law at the solved gap carries P/2 per crossing. The gap is known to round-off
    // (1e-16 of 2e-3 m) and the force's slope is E'' ~ 6e4 N/m, so the force is exact to ~1e-11 N;
    // Newton's 1e-10 N tolerance and the motion left after 0.05 s (1e-7 of the initial) bound
    // the equilibrium to ~1e-7 relative: 1e-6 is a safe bound.
    const double sharpness = 15.0 / kBand;
    const double normal_force = -penalty_energy(c.left.gap, kStiffness, sharpness).gradient;
    CHECK(normal_force * c.left.normal_z == Approx(0.5 * kLoad).epsilon(1e-6));
    CHECK(c.left.normal_z < 1.0 - 1e-5);  // the normal does tilt: the test checks what it claims
}

TEST_CASE("crossed rods: the answer does not move with the time step or the linear solver", "[validation][imc]") {
    const Crossing reference = solve(1e-4, "eigen_ldlt");
    // At rest the state is the equilibrium, whatever the step that reached it; the gap agrees to
    // the Newton tolerance's effect, 1e-10 N / (E'' ~ 6e4 N/m) ~ 2e-15 m, and to the motion left
    // after 0.05 s: 1e-7 of the gap is a safe bound for both.
    CHECK(solve(2.5e-5, "eigen_ldlt").left.gap == Approx(reference.left.gap).epsilon(1e-7));
    // At dt = 1e-3 s the first Newton iterate would throw the beam 10 mm, through the supports
    // (see the file comment): imc_contact refuses that solution (a node moved more than
    // (margin - band)/2), the step is retried at smaller dt, and the run ends at the same rest.
    CHECK(solve(1e-3, "eigen_ldlt").left.gap == Approx(reference.left.gap).epsilon(1e-7));
    CHECK(solve(1e-4, "eigen_lu").left.gap == Approx(reference.left.gap).epsilon(1e-7));
}

TEST_CASE("rod on rods with friction: sticks below mu N and slides above it, within 2 %", "[validation][imc][friction]") {
    // The beam pressed by P = 2 N (1 N per crossing) and pulled along its axis by T = f mu P,
    // mu = 0.5, its ends free in x. It starts at the gap where the contact carries P/2 (found
    // below by bisection on the penalty law), so friction can hold from the first step. A steel
    // beam (E = 200 GPa) keeps the contact normals vertical to 3e-4 rad, so that normal forces
    // have no x part to speak of (the frictionless case's soft beam tilts them by ~0.1 rad). The
    // smoothed law (gamma = tanh(7.5 w / v_tol), v_tol = 1 mm/s) lets a held contact creep at
    // w = atanh(f) v_tol / 7.5: 0.31 v_tol at f = 0.98. Above the limit the excess 0.02 mu P =
    // 0.02 N accelerates the beam (m = 0.19 g) at 105 m/s^2 until the drag (eta L = 0.06 N s/m)
    // balances it at 0.33 m/s, reached within the 10 ms run: 300 v_tol, while the beam has slid
    // 2 mm, which keeps its nodes outside the crossings' bands (see kSupport).
    constexpr double kMu = 0.5;
    constexpr double kSlip = 1e-3;
    const double sharpness = 15.0 / kBand;
    double low = 0.0, high = kBand;  // -E'(gap) falls from 1.44 N at 0 to ~0 at the band
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (low + high);
        (-penalty_energy(mid, kStiffness, sharpness).gradient > 0.5 * kLoad ? low : high) = mid;
    }
    const auto slip_speed = [&](double fraction) {
        BeamSetup setup;
        setup.duration = 0.01;
        setup.start_gap = low;
        setup.friction = kMu;
        setup.pull = fraction * kMu * kLoad;
        setup.beam_modulus = 2e11;
        setup.solver = "eigen_lu";  // friction's Jacobian is unsymmetric; LDLT reads one triangle
        auto sim = build_scene(crossed_rods_scene(setup));
        run_to_end(*sim);
        return node_velocity(*sim, "beam", 5).x();
    };
    const double held = slip_speed(0.98), sliding = slip_speed(1.02);
    INFO("beam speed at T = 0.98 mu P: " << held << " m/s, at 1.02 mu P: " << sliding << " m/s");
    CHECK(held > 0.0);
    CHECK(held < 0.5 * kSlip);      // creep, about 0.31 v_tol
    CHECK(sliding > 100 * kSlip);   // sliding, about 300 v_tol
}
