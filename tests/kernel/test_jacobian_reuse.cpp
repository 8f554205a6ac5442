// Chord (modified Newton) steps, NewtonOptions::jacobian_reuse: steps through the factorization
// in hand are taken when they at least halve |F|, the convergence tests on |F| decide as for
// Newton, so the trajectory is Newton's to the tolerance, with fewer factorizations.
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;

namespace {

TypeRegistry& registry() {
    static TypeRegistry* r = [] {
        auto* reg = new TypeRegistry();
        static PluginLoader loader(*reg);
        loader.load_defaults();
        return reg;
    }();
    return *r;
}

/// A cantilever rod swinging down under gravity from horizontal (large rotations: the Jacobian
/// changes from step to step), dropping onto a floor at t ~ 0.1 s (a contact switches on).
std::unique_ptr<Simulation> swinging_rod(int jacobian_reuse, const std::string& balance_tolerance) {
    const std::string text =
        "simulation: {duration: 0.3}\n"
        "integrator: {type: implicit_euler, dt: 2.0e-3, newton: {jacobian_reuse: " + std::to_string(jacobian_reuse) +
        ", balance_tolerance: " + balance_tolerance + "}}\n"
        "elements:\n"
        "  - {name: beam, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 21}},\n"
        "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1200, youngs_modulus: 2.0e6},\n"
        "     fixed: {nodes: [0, 1], edges: [0]}}\n"
        "forces:\n"
        "  - {type: gravity}\n"
        "  - {type: floor_contact, height: -0.06, stiffness: 100}\n";
    return std::make_unique<Simulation>(load_scene_text(text, "chord.yaml"), registry());
}

RunResult run(Simulation& sim) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-chord-test";
    options.progress = false;
    return run_simulation(sim, options);
}

}  // namespace

TEST_CASE("chord steps follow Newton's trajectory to the tolerance with fewer factorizations", "[kernel][newton]") {
    auto newton = swinging_rod(0, "3.0e-8");
    auto chord = swinging_rod(4, "3.0e-8");
    const RunResult newton_run = run(*newton);
    const RunResult chord_run = run(*chord);
    REQUIRE(newton_run.summary.completed);
    REQUIRE(chord_run.summary.completed);
    CHECK(newton_run.chord_steps == 0);
    CHECK(chord_run.chord_steps > 0);
    INFO("Newton: " << newton_run.factorizations << " factorizations; chord: " << chord_run.factorizations
                    << " factorizations, " << chord_run.chord_steps << " chord steps");
    // Measured: 346 factorizations for Newton, 264 with 350 chord steps. The rod swings through
    // large rotations, so many chord steps fail to halve |F| and a Newton step follows; on the
    // entanglement gripper, slower, a factorization serves 17.5 iterations (docs/performance.md).
    CHECK(chord_run.factorizations < newton_run.factorizations);

    // Both stop each step at |F| <= 3e-8 |S|: a state error of that order relative to the
    // displacements the forces hold (Δq ~ J⁻¹ F). Implicit Euler damps what one step leaves to
    // the next, so over 150 steps the two trajectories stay within a few such errors; 1e-6 of the
    // tip's drop (5 cm) is 30 times 3e-8 and still 4 orders below any physical difference.
    const VectorX& a = newton->state().q;
    const VectorX& b = chord->state().q;
    const double drop = -a.minCoeff();
    REQUIRE(drop > 0.03);  // the rod swung down
    CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-6 * drop);

    // A looser tolerance lets the difference grow with it: the comparison above is not vacuous.
    auto loose = swinging_rod(4, "1.0e-3");
    REQUIRE(run(*loose).summary.completed);
    CHECK((a - loose->state().q).cwiseAbs().maxCoeff() > 1e-6 * drop);
}
