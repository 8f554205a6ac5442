// Validation: attachments eliminated from the linear solve (the null-space reduction of ArtiSynth's
// technical notes, sections 0.17-0.19; kernel/attachment_elimination.hpp) solve the same
// equations as the same joints kept as Lagrange multiplier rows.
//
// The reduction is exact linear algebra on each Newton step's KKT system, so with both runs
// solved to tight tolerances the trajectories agree to round-off amplified over the run, not to
// a modelling error: 1e-9 m over runs whose points move by centimetres to decimetres. The cases
// cover every form of the rows (at the step's end for implicit Euler, trapezoidal and BDF2, at
// the midpoint, and at the acceleration level for Newmark's first solve), a rod hung from a
// rigid body (unsymmetric blocks: E and L differ), two rods joined node to node (symmetric: the
// reduced matrix is P^T J P, which LDL^T factors where the KKT matrix is refused), attachments
// chained to attached nodes (section 0.18), and contact under ncp_newton (its Schur complement
// through the reduced solves).
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

/// A box hung from the world by a point on its top (a body point: its rows stay multipliers), a
/// soft rod hanging from a point on its side by its first node (eliminated unless told not to).
std::string rod_under_body(const std::string& integrator, const std::string& eliminate) {
    return "simulation: {duration: 0.3}\n"
           "integrator: {type: " + integrator + ", dt: 2.0e-3, newton: {balance_tolerance: 1.0e-12, "
           "constraint_tolerance: 1.0e-12}}\n"
           "linear_solver: {type: eigen_lu}\n"
           "elements:\n"
           "  - {name: body, type: rigid_body, position: [0, 0, 1], density: 1000, shape: {box: {size: [0.1, 0.1, 0.1]}},\n"
           "     markers: [{position: [0, 0, 0.05]}, {position: [0.05, 0, 0]}], angular_velocity: [0.5, 0.3, 1.0]}\n"
           "  - name: rod\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0.05, 0, 1], to: [0.35, 0, 1], nodes: 13}}\n"
           "    cross_section: {circle: {radius: 2.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: 1.0e6, poisson_ratio: 0.5}\n"
           "constraints:\n"
           "  - {type: ball_joint, first: {element: body, at: [0, 0, 1.05]}, second: {world: [0, 0, 1.05]}}\n"
           "  - {type: ball_joint, name: hang, first: {element: rod, node: 0}, second: {element: body, at: [0.05, 0, 1]},\n"
           "     eliminate: " + eliminate + "}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, -9.81]}\n";
}

/// Two rods joined end to start by a ball joint, the first clamped at its start; \p extra
/// appended (a contact constraint).
std::string joined_rods(const std::string& integrator, const std::string& solver, const std::string& eliminate,
                        const std::string& extra = "") {
    return "simulation: {duration: 0.2}\n"
           "integrator: {type: " + integrator + "}\n"
           "linear_solver: {type: " + solver + "}\n"
           "elements:\n"
           "  - name: a\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0, 0, 0.3], to: [0.2, 0, 0.3], nodes: 11}}\n"
           "    cross_section: {circle: {radius: 2.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}\n"
           "    fixed: {nodes: [0, 1], edges: [0]}\n"
           "  - name: b\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: [0.2, 0, 0.3], to: [0.2, 0.05, 0.003], nodes: 11}}\n"
           "    cross_section: {circle: {radius: 2.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}\n"
           "constraints:\n"
           "  - {type: ball_joint, name: join, first: {element: b, node: 0}, second: {element: a, node: -1}, "
           "eliminate: " + eliminate + "}\n" + extra +
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, -9.81]}\n";
}

/// A straight soft rod element of 2 mm radius (an `elements:` item).
std::string straight_rod(const std::string& name, const std::string& from, const std::string& to, int nodes,
                         const std::string& youngs_modulus) {
    return "  - name: " + name + "\n"
           "    type: discrete_rod\n"
           "    geometry: {line: {from: " + from + ", to: " + to + ", nodes: " + std::to_string(nodes) + "}}\n"
           "    cross_section: {circle: {radius: 2.0e-3}}\n"
           "    material: {density: 1200, youngs_modulus: " + youngs_modulus + ", poisson_ratio: 0.5}\n";
}

/// rod_under_body with a second rod held by its first node at the first rod's hung node (a
/// branch at the attachment: an attachment to an attached node, ArtiSynth's section 0.18), the
/// branch's joint listed after the hang or, with \p branch_first, before it; its first end the
/// tail's node, or with \p hung_end_first the hung node (then the joint's alternative).
std::string branch_under_body(const std::string& integrator, const std::string& eliminate, bool branch_first,
                              bool hung_end_first = false) {
    std::string yaml = rod_under_body(integrator, eliminate);
    yaml.insert(yaml.find("constraints:"), straight_rod("tail", "[0.05, 0, 1]", "[0.05, 0.1, 0.85]", 9, "1.0e6"));
    const std::string tail_end = "{element: tail, node: 0}", hung_end = "{element: rod, node: 0}";
    const std::string branch = "  - {type: ball_joint, name: branch, first: " + (hung_end_first ? hung_end : tail_end) +
                               ", second: " + (hung_end_first ? tail_end : hung_end) + ", eliminate: " + eliminate + "}\n";
    const std::string hang = "  - {type: ball_joint, name: hang,";
    yaml.insert(branch_first ? yaml.find(hang) : yaml.find("forces:"), branch);
    return yaml;
}

bool has_note(const Simulation& simulation, const std::string& text) {
    const auto& notes = simulation.notes();
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

/// The largest distance between the same points of two runs: the rod's nodes, and \p body's origin.
double largest_difference(const Simulation& a, const Simulation& b, const std::vector<std::string>& rods, long nodes) {
    double largest = 0.0;
    for (const std::string& rod : rods)
        for (long k = 0; k < nodes; ++k)
            largest = std::max(largest, (node_position(a, rod, k) - node_position(b, rod, k)).norm());
    return largest;
}

}  // namespace

TEST_CASE("eliminated attachments: a rod hung from a swinging body moves as with multiplier rows, for every row form",
          "[validation][attachments]") {
    for (const std::string integrator : {"implicit_euler", "implicit_midpoint", "newmark", "trapezoidal", "bdf2"}) {
        INFO(integrator);
        auto eliminated = build_scene(rod_under_body(integrator, "true"));
        auto kept = build_scene(rod_under_body(integrator, "false"));
        CHECK(has_note(*eliminated, "attachments eliminated from each linear solve (null-space reduction): 'hang' (3 DOFs"));
        CHECK(!has_note(*kept, "attachments eliminated"));
        const RunResult e = run_to_end(*eliminated);
        const RunResult k = run_to_end(*kept);
        // The rod's free end swung by decimetres (the body turns and swings).
        CHECK((node_position(*eliminated, "rod", -1) - Vec3(0.35, 0, 1)).norm() > 0.05);
        CHECK(largest_difference(*eliminated, *kept, {"rod"}, 13) < 1e-9);
        CHECK((node_position(*eliminated, "body", 0) - node_position(*kept, "body", 0)).norm() < 1e-9);
        // The same Newton iteration, step for step, up to round-off.
        CHECK(e.summary.steps == k.summary.steps);
        CHECK(std::abs(e.summary.newton_iterations - k.summary.newton_iterations) <= e.summary.steps / 10);
        // The eliminated joint is still held (its rows are solved exactly by the back substitution).
        CHECK((node_position(*eliminated, "rod", 0) - node_position(*kept, "rod", 0)).norm() < 1e-9);
    }
}

TEST_CASE("eliminated attachments: two rods joined node to node factor with LDL^T, which the multiplier rows' saddle "
          "point refuses",
          "[validation][attachments]") {
    const std::string euler = "implicit_euler, dt: 2.0e-3, newton: {balance_tolerance: 1.0e-12}";
    CHECK_THROWS_WITH(build_scene(joined_rods(euler, "eigen_ldlt", "false")), Catch::Contains("saddle_point"));
    auto ldlt = build_scene(joined_rods(euler, "eigen_ldlt", "true"));
    auto cholmod = build_scene(joined_rods(euler, "cholmod", "true"));
    auto lu = build_scene(joined_rods(euler, "eigen_lu", "false"));
    const RunResult with_ldlt = run_to_end(*ldlt);
    run_to_end(*cholmod);
    const RunResult with_lu = run_to_end(*lu);
    CHECK((node_position(*ldlt, "b", -1) - Vec3(0.2, 0.05, 0.003)).norm() > 0.05);  // it swings
    CHECK(largest_difference(*ldlt, *lu, {"a", "b"}, 11) < 1e-9);
    CHECK(largest_difference(*cholmod, *lu, {"a", "b"}, 11) < 1e-9);
    // Node to node, G_f = G_q = [I, -I]: the reduced matrix is P^T J P, symmetric, so LDL^T takes
    // exact Newton steps: the same iterations as LU on the full system.
    CHECK(std::abs(with_ldlt.summary.newton_iterations - with_lu.summary.newton_iterations) <= with_lu.summary.steps / 10);
}

TEST_CASE("eliminated attachments: a rod held at another rod's attached node (chained) moves as with multiplier "
          "rows, in either list order",
          "[validation][attachments]") {
    // The branch's node is eliminated with the hung node it is held at: its slaves depend on the
    // body's DOFs through the hang's (E* = E_branch E_hang). Implicit Euler (rows at the step's
    // end) and Newmark (its first solve's rows at the acceleration level).
    // With the hung node as the branch's first end, the branch eliminates its second (the hang
    // determines the first), whichever joint is listed first.
    for (const std::string integrator : {"implicit_euler", "newmark"})
        for (const bool branch_first : {false, true})
            for (const bool hung_end_first : {false, true}) {
                INFO(integrator << (branch_first ? ", the branch listed first" : ", the hang listed first")
                                << (hung_end_first ? ", the hung node its first end" : ""));
                auto eliminated = build_scene(branch_under_body(integrator, "true", branch_first, hung_end_first));
                auto kept = build_scene(branch_under_body(integrator, "false", branch_first, hung_end_first));
                CHECK(has_note(*eliminated, "(null-space reduction): "));
                CHECK(has_note(*eliminated, "'hang'"));
                CHECK(has_note(*eliminated, "'branch'"));
                CHECK(has_note(*eliminated, "(6 DOFs"));
                CHECK(!has_note(*eliminated, "keeps its multiplier rows"));
                const RunResult e = run_to_end(*eliminated);
                const RunResult k = run_to_end(*kept);
                CHECK((node_position(*eliminated, "tail", -1) - Vec3(0.05, 0.1, 0.85)).norm() > 0.05);  // it swung
                // Exact algebra on each Newton step: the runs agree to round-off (the file's header).
                CHECK(largest_difference(*eliminated, *kept, {"rod"}, 13) < 1e-9);
                CHECK(largest_difference(*eliminated, *kept, {"tail"}, 9) < 1e-9);
                CHECK(e.summary.steps == k.summary.steps);
                CHECK(std::abs(e.summary.newton_iterations - k.summary.newton_iterations) <= e.summary.steps / 10);
                // Both joints held: the branch's node at the hung node, the hung node at the body point.
                CHECK((node_position(*eliminated, "tail", 0) - node_position(*eliminated, "rod", 0)).norm() < 1e-9);
            }
}

TEST_CASE("eliminated attachments: three rods chained node to node factor with LDL^T", "[validation][attachments]") {
    // b held at a's end, c held at b's start (the node b's joint eliminates): both eliminated,
    // the reduced matrix P^T J P symmetric, so LDL^T's steps are exact Newton steps.
    const std::string euler = "implicit_euler, dt: 2.0e-3, newton: {balance_tolerance: 1.0e-12}";
    const auto with_third = [](std::string yaml, const std::string& eliminate) {
        yaml.insert(yaml.find("constraints:"), straight_rod("c", "[0.2, 0, 0.3]", "[0.3, -0.05, 0.2]", 7, "2.0e6"));
        yaml.insert(yaml.find("forces:"), "  - {type: ball_joint, name: onward, first: {element: c, node: 0}, second: "
                                          "{element: b, node: 0}, eliminate: " + eliminate + "}\n");
        return yaml;
    };
    CHECK_THROWS_WITH(build_scene(with_third(joined_rods(euler, "eigen_ldlt", "false"), "false")),
                      Catch::Contains("saddle_point"));
    auto ldlt = build_scene(with_third(joined_rods(euler, "eigen_ldlt", "auto"), "auto"));
    auto lu = build_scene(with_third(joined_rods(euler, "eigen_lu", "false"), "false"));
    CHECK(has_note(*ldlt, "(null-space reduction): 'join', 'onward' (6 DOFs"));
    const RunResult with_ldlt = run_to_end(*ldlt);
    const RunResult with_lu = run_to_end(*lu);
    CHECK((node_position(*ldlt, "c", -1) - Vec3(0.3, -0.05, 0.2)).norm() > 0.02);  // it swings
    CHECK(largest_difference(*ldlt, *lu, {"a", "b"}, 11) < 1e-9);
    CHECK(largest_difference(*ldlt, *lu, {"c"}, 7) < 1e-9);
    CHECK(std::abs(with_ldlt.summary.newton_iterations - with_lu.summary.newton_iterations) <= with_lu.summary.steps / 10);
}

TEST_CASE("eliminated attachments: `auto` eliminates where a symmetric factorization then solves the scene",
          "[validation][attachments]") {
    const std::string euler = "implicit_euler, dt: 2.0e-3";
    const auto without_solver = [](std::string yaml) {
        const std::string line = "linear_solver: {type: eigen_lu}\n";
        yaml.erase(yaml.find(line), line.size());
        return yaml;
    };
    // Two rods joined node to node: a symmetric Jacobian. Under the default solver the joint is
    // eliminated, and the default stays eigen_ldlt (no note that it became eigen_lu).
    auto by_default = build_scene(without_solver(joined_rods(euler, "eigen_lu", "auto")));
    CHECK(has_note(*by_default, "(null-space reduction): 'join'"));
    CHECK(!has_note(*by_default, "linear solver: eigen_lu"));
    // Named eigen_lu factors the saddle point as cheaply: kept. Named eigen_ldlt needs it: eliminated.
    CHECK(!has_note(*build_scene(joined_rods(euler, "eigen_lu", "auto")), "null-space reduction"));
    CHECK(has_note(*build_scene(joined_rods(euler, "eigen_ldlt", "auto")), "(null-space reduction): 'join'"));
    // A rod hung from a rigid body (gyroscopic terms: unsymmetric) under the default eigen_lu: kept.
    auto unsymmetric = build_scene(without_solver(rod_under_body("implicit_euler", "auto")));
    CHECK(!has_note(*unsymmetric, "null-space reduction"));
    CHECK(has_note(*unsymmetric, "linear solver: eigen_lu (the default for scenes whose elements have an unsymmetric"));
    // `eliminate` takes auto, true or false; true needs a hard joint with a node end.
    CHECK_THROWS_WITH(build_scene(joined_rods(euler, "eigen_lu", "yes")), Catch::Contains("eliminate"));
    std::string compliant = joined_rods(euler, "eigen_lu", "true");
    compliant.replace(compliant.find("eliminate: true"), 15, "eliminate: true, compliance: 1.0e-6");
    CHECK_THROWS_WITH(build_scene(compliant), Catch::Contains("eliminate") && Catch::Contains("only a hard joint"));
    // The junction also pinned in space by a second ball joint on b's node: the pin eliminates
    // that node (it offers no other), and the join, whose first end it is, eliminates a's end
    // instead, held at the pinned node (chained). The default stays eigen_ldlt.
    std::string with_pin = without_solver(joined_rods(euler, "eigen_lu", "auto"));
    with_pin.replace(with_pin.find("forces:"), 7,
                     "  - {type: ball_joint, name: pin, first: {element: b, node: 0}, second: {world: [0.2, 0, 0.3]}}\n"
                     "forces:");
    auto pinned = build_scene(with_pin);
    CHECK(has_note(*pinned, "(null-space reduction): 'join', 'pin' (6 DOFs"));
    CHECK(!has_note(*pinned, "linear solver: eigen_lu"));
    // Under the default solver, a hard constraint that cannot be eliminated (a clamp of b's start
    // frame in space: rotation rows too) makes it eigen_lu: the join then keeps its rows too.
    std::string with_clamp = without_solver(joined_rods(euler, "eigen_lu", "auto"));
    with_clamp.replace(with_clamp.find("forces:"), 7,
                       "  - {type: clamp, first: {element: b, frame: start}, second: {world: [0.2, 0, 0.3]}}\nforces:");
    auto clamped = build_scene(with_clamp);
    CHECK(!has_note(*clamped, "null-space reduction"));
    CHECK(has_note(*clamped, "linear solver: eigen_lu (the default for scenes with hard constraints"));
}

TEST_CASE("eliminated attachments: under ncp_newton with contact the joined rods move as with multiplier rows",
          "[validation][attachments]") {
    // Rod b's end starts 1 mm above the floor (its contact radius is the rod's, 2 mm) and lands on
    // it with friction.
    const std::string contact = "  - {type: ncp_contact, elements: [b], floor: {}, friction: 0.5}\n";
    auto eliminated = build_scene(joined_rods("ncp_newton, dt: 2.0e-3", "eigen_lu", "true", contact));
    auto kept = build_scene(joined_rods("ncp_newton, dt: 2.0e-3", "eigen_lu", "false", contact));
    CHECK(has_note(*eliminated, "(null-space reduction): 'join' (3 DOFs"));
    run_to_end(*eliminated);
    run_to_end(*kept);
    INFO("end height " << node_position(*eliminated, "b", -1).z());
    CHECK(node_position(*eliminated, "b", -1).z() > 0.002 - 1e-8);  // on the floor, not through it
    CHECK(node_position(*eliminated, "b", -1).z() < 0.002 + 1e-6);
    CHECK(largest_difference(*eliminated, *kept, {"a", "b"}, 11) < 1e-9);
}
