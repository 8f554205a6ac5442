// Checkpoint and restart (issue 8): a run interrupted and continued from its checkpoint writes
// the same files, byte for byte, and ends in the same state, bit for bit, as the run that was
// never interrupted; on a rod (implicit midpoint: the predictor's history, the rod's reference
// frames; BDF2 under error control: its two-step history and the next step's size), a mid-edge
// shell (Newmark: its first-step preparation) and an actuated rod with
// stiffness-proportional damping (the controller's last values feed the damping matrix at the
// step start). Bad checkpoints are refused with a message that says why.
#include "scene_runner.hpp"

#include "checkpoint_file.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

using namespace soma;
using namespace soma::validation;
using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;

std::string rod_scene() {
    return R"(
simulation: {duration: 0.06}
integrator: {type: implicit_midpoint, dt: 1.0e-3}
checkpoint: {every: 25}
elements:
  - name: beam
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 21}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}
    fixed: {nodes: [0, 1], edges: [0]}
forces:
  - {type: gravity, acceleration: [0, 0.3, -9.81]}
outputs:
  - {type: csv, name: tip, every: 1, probes: [{node_position: {element: beam, node: -1}}, {energy: total}, {newton_iterations: true}]}
  - {type: vtk, every: 7}
)";
}

std::string shell_scene() {
    return R"(
simulation: {duration: 0.03}
integrator: {type: newmark, dt: 1.0e-3}
checkpoint: {every: 25}
elements:
  - name: plate
    type: hinge_shell
    mesh: {rectangle: {origin: [0, 0, 0], size: [0.1, 0.02], edge_length: 0.01}}
    thickness: 1.0e-3
    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}
    fixed: {box: {min: [-1, -1, -1], max: [0.001, 1, 1]}}
forces:
  - {type: gravity, acceleration: [0, 0, -9.81]}
outputs:
  - {type: csv, name: corner, every: 1, probes: [{node_position: {element: plate, node: -1}}, {energy: total}]}
  - {type: vtk, every: 5}
)";
}

std::string actuated_scene() {
    return R"(
simulation: {duration: 0.04}
integrator: {type: implicit_euler, dt: 1.0e-3}
checkpoint: {every: 25}
elements:
  - name: finger
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.05, 0, 0], nodes: 15}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}
    fixed: {nodes: [0, 1], edges: [0]}
forces:
  - {type: rayleigh_damping, beta: 1.0e-3}
controllers:
  - {type: actuation, element: finger, channel: natural_curvature, values: ["-20 * t / 0.04", "0"]}
outputs:
  - {type: csv, name: tip, every: 1, probes: [{node_position: {element: finger, node: -1}}, {energy: potential}]}
)";
}

std::string contact_scene() {
    return R"(
simulation: {duration: 0.2}
integrator: {type: ncp_newton, dt: 5.0e-3}
checkpoint: {every: 25}
elements:
  - {name: box, type: rigid_body, position: [0, 0, 0.15], orientation: [0.9961946980917455, 0.0871557427476582, 0, 0],
     velocity: [0.3, 0, 0], density: 500, shape: {box: {size: [0.2, 0.2, 0.2]}}}
forces:
  - {type: gravity, acceleration: [0, 0, -9.81]}
constraints:
  - {name: contact, type: ncp_contact, floor: {}, friction: 0.5}
outputs:
  - {type: csv, name: box, every: 1, probes: [{node_position: {element: box, node: 0}}, {statistic: {term: contact, name: normal_force}}]}
  - {type: vtk, every: 3}
)";
}

/// Every regular file under `folder` (relative path -> bytes), the checkpoint excluded (it is
/// written at different steps by the two runs being compared).
std::map<std::string, std::string> folder_files(const fs::path& folder) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        if (!entry.is_regular_file() || entry.path().filename() == "checkpoint.soma") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        files[fs::relative(entry.path(), folder).generic_string()] = bytes.str();
    }
    return files;
}

fs::path fresh_folder(const std::string& name) {
    const fs::path folder = fs::temp_directory_path() / ("soma_checkpoint_test_" + name);
    fs::remove_all(folder);
    return folder;
}

RunOptions options_for(const fs::path& folder, const std::string& scene_text) {
    RunOptions options;
    options.output_directory = folder;
    options.progress = false;
    options.scene.file = "test.yaml";
    options.scene.directory = fs::current_path().string();
    options.scene.text = scene_text;
    return options;
}

/// Continues the run whose checkpoint is `file`, in `folder`, to its end.
RunResult restart_from(const fs::path& file, const fs::path& folder, State& final_state) {
    const CheckpointFile checkpoint = CheckpointFile::read(file);
    Simulation simulation(checkpoint_scene_document(checkpoint, {}), plugin_registry());
    simulation.restore_checkpoint(checkpoint);
    RunOptions options = options_for(folder, checkpoint.scene.text);
    options.resume = &checkpoint;
    const RunResult result = run_simulation(simulation, options);
    final_state = simulation.state();
    return result;
}

/// The uninterrupted run, and the run interrupted before step `interrupt_at` then restarted:
/// the same files and the same end state.
void check_interrupted_run_equals_uninterrupted(const std::string& name, const std::string& scene, int interrupt_at) {
    const fs::path whole = fresh_folder(name + "_whole"), pieces = fresh_folder(name + "_pieces");
    auto reference = build_scene(scene);
    const RunResult uninterrupted = run_simulation(*reference, options_for(whole, scene));
    REQUIRE(uninterrupted.summary.completed);

    auto first = build_scene(scene);
    RunOptions options = options_for(pieces, scene);
    int polls = 0;
    options.interrupt_requested = [&] { return ++polls >= interrupt_at ? SIGINT : 0; };
    const RunResult stopped = run_simulation(*first, options);
    REQUIRE_FALSE(stopped.summary.completed);
    CHECK(stopped.interrupt_signal == SIGINT);
    CHECK(stopped.summary.steps == interrupt_at - 1);
    REQUIRE(stopped.checkpoint == pieces / "checkpoint.soma");
    // The interrupted run's files are closed and complete: no temporary file is left behind.
    for (const auto& entry : fs::recursive_directory_iterator(pieces))
        CHECK(entry.path().extension() != ".tmp");
    CHECK(folder_files(pieces) != folder_files(whole));  // the restart has something to add

    State final_state;
    const RunResult continued = restart_from(pieces / "checkpoint.soma", pieces, final_state);
    REQUIRE(continued.summary.completed);
    CHECK(continued.summary.steps == uninterrupted.summary.steps);
    CHECK(continued.summary.newton_iterations == uninterrupted.summary.newton_iterations);
    CHECK(final_state.t == reference->state().t);
    // Bit for bit: exact comparisons, no tolerance.
    CHECK(final_state.q == reference->state().q);
    CHECK(final_state.v == reference->state().v);
    CHECK(final_state.a == reference->state().a);
    const auto expected = folder_files(whole), got = folder_files(pieces);
    REQUIRE(got.size() == expected.size());
    for (const auto& [file, bytes] : expected) {
        INFO(file);
        REQUIRE(got.count(file) == 1);
        CHECK(got.at(file) == bytes);
    }
}

}  // namespace

TEST_CASE("an interrupted rod run continued from its checkpoint equals the uninterrupted run bit for bit",
          "[checkpoint]") {
    check_interrupted_run_equals_uninterrupted("rod", rod_scene(), 40);
}

TEST_CASE("an interrupted shell run (Newmark) continued from its checkpoint equals the uninterrupted run",
          "[checkpoint]") {
    check_interrupted_run_equals_uninterrupted("shell", shell_scene(), 13);
}

TEST_CASE("an interrupted actuated, damped rod continued from its checkpoint equals the uninterrupted run",
          "[checkpoint]") {
    check_interrupted_run_equals_uninterrupted("actuated", actuated_scene(), 31);
}

TEST_CASE("an interrupted run with contacts (ncp_newton) continued from its checkpoint equals the uninterrupted run, "
          "its contact frames included",
          "[checkpoint]") {
    // A box dropped turned onto the floor, sliding: contacts change from step to step, and the
    // vtk output writes contact frames beside its frames (interrupted before step 30 of 40).
    check_interrupted_run_equals_uninterrupted("contacts", contact_scene(), 30);
    const fs::path folder = fs::temp_directory_path() / "soma_checkpoint_test_contacts_pieces";
    CHECK(fs::exists(folder / "frames_contacts.pvd"));
    CHECK(fs::exists(folder / "vtk" / "frames_contacts_000014.vtu"));  // the final state's (step 40)
}

TEST_CASE("an interrupted run with contacts started from the last step's forces (ncp_newton warm_start) continued "
          "from its checkpoint equals the uninterrupted run",
          "[checkpoint]") {
    // The warm start carries the last step's contact rows and forces (contact_warm_start.hpp): a
    // restart that lost them would start its first step from zero forces, with other iterations.
    std::string scene = contact_scene();
    const std::string integrator = "integrator: {type: ncp_newton, dt: 5.0e-3}";
    scene.replace(scene.find(integrator), integrator.size(), "integrator: {type: ncp_newton, dt: 5.0e-3, warm_start: true}");
    check_interrupted_run_equals_uninterrupted("contacts_warm", scene, 30);
    // The warm start changes the iteration here (so the comparison above could fail: a restart
    // without the kept forces would take the cold start's iterations at its first step).
    auto cold = build_scene(contact_scene()), warm = build_scene(scene);
    const RunResult cold_run = run_simulation(*cold, options_for(fresh_folder("contacts_cold_only"), contact_scene()));
    const RunResult warm_run = run_simulation(*warm, options_for(fresh_folder("contacts_warm_only"), scene));
    REQUIRE(cold_run.summary.completed);
    REQUIRE(warm_run.summary.completed);
    CHECK(warm_run.summary.newton_iterations != cold_run.summary.newton_iterations);
}

TEST_CASE("an interrupted rod run under a multistep rule with error control (bdf2, bdf) continued from its "
          "checkpoint equals the uninterrupted run",
          "[checkpoint]") {
    // BDF2 carries the last step's displacement, velocities and accelerations and its size; bdf up
    // to five past states, its order, and how long it has held its step and order; the time loop
    // the next step's size.
    for (const auto& [type, interrupt_at] : {std::pair{"bdf2", 15}, std::pair{"bdf", 12}}) {  // of 26 and 22 steps
        INFO(type);
        std::string scene = rod_scene();
        const std::string fixed_step = "integrator: {type: implicit_midpoint, dt: 1.0e-3}";
        scene.replace(scene.find(fixed_step), fixed_step.size(),
                      std::string("integrator: {type: ") + type +
                          ", dt: 1.0e-3, error_control: {relative: 1.0e-3, absolute: 1.0e-7}}");
        check_interrupted_run_equals_uninterrupted(std::string("rod_") + type, scene, interrupt_at);
    }
}

TEST_CASE("a periodic checkpoint continues a run whose later rows are dropped", "[checkpoint]") {
    // The completed run wrote its checkpoint at step 25 of 60; continuing it cuts the CSV and the
    // collection back to step 25 and writes the rest again: the files come out unchanged.
    const fs::path folder = fresh_folder("periodic");
    const std::string scene = rod_scene();
    auto simulation = build_scene(scene);
    REQUIRE(run_simulation(*simulation, options_for(folder, scene)).summary.completed);
    const auto before = folder_files(folder);
    // Rows after the checkpoint are replaced, not kept: spoil one to prove it.
    {
        std::ofstream tip(folder / "tip.csv", std::ios::app);
        tip << "garbage row\n";
    }
    State final_state;
    const RunResult continued = restart_from(folder / "checkpoint.soma", folder, final_state);
    REQUIRE(continued.summary.completed);
    CHECK(final_state.q == simulation->state().q);
    CHECK(folder_files(folder) == before);
}

TEST_CASE("checkpoints that do not fit are refused with the reason", "[checkpoint]") {
    const fs::path folder = fresh_folder("refused");
    const std::string scene = rod_scene();
    auto simulation = build_scene(scene);
    REQUIRE(run_simulation(*simulation, options_for(folder, scene)).summary.completed);
    const fs::path file = folder / "checkpoint.soma";
    const CheckpointFile checkpoint = CheckpointFile::read(file);

    SECTION("another scene: more nodes") {
        Simulation other(checkpoint_scene_document(checkpoint, {"elements.beam.geometry.line.nodes=22"}),
                         plugin_registry());
        CHECK_THROWS_WITH(other.restore_checkpoint(checkpoint), Contains("DOFs where this scene has"));
    }
    SECTION("a truncated file") {
        std::ifstream in(file, std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        const std::string text = bytes.str();
        CHECK_THROWS_WITH(CheckpointFile::parse(text.substr(0, text.size() / 2), "half.soma"),
                          Contains("half.soma") && Contains("truncated"));
        CHECK_THROWS_WITH(CheckpointFile::parse(text.substr(0, text.size() - 2), "cut.soma"), Contains("end marker"));
    }
    SECTION("not a checkpoint") {
        CHECK_THROWS_WITH(CheckpointFile::parse("simulation: {duration: 1}\n", "scene.yaml"),
                          Contains("does not start with the checkpoint signature"));
        CHECK_THROWS_WITH(CheckpointFile::read(folder), Contains("not a regular file"));
        CHECK_THROWS_WITH(CheckpointFile::read(folder / "missing.soma"), Contains("not found"));
    }
    SECTION("an output folder that is not the run's") {
        const fs::path elsewhere = fresh_folder("refused_elsewhere");
        State final_state;
        CHECK_THROWS_WITH(restart_from(file, elsewhere, final_state), Contains("not the checkpointed run's"));
    }
}

TEST_CASE("a restart refuses a scene whose imported file changed since the checkpoint", "[checkpoint][urdf]") {
    // The checkpoint keeps what each import wrote; a restart reads the files again, and a robot
    // whose URDF changed would otherwise continue from the old state with other masses.
    const char* source = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(source != nullptr);
    const fs::path folder = fresh_folder("changed_import");
    fs::create_directories(folder);
    const fs::path robot = folder / "robot.urdf";
    fs::copy_file(fs::path(source) / "configs/rigid/spatial_arm.urdf", robot);
    std::ifstream in(robot);
    std::ostringstream original;
    original << in.rdbuf();
    in.close();
    const std::string scene = "simulation: {duration: 0.02}\n"
                              "integrator: {type: implicit_euler, dt: 1.0e-3}\n"
                              "checkpoint: {every: 5}\n"
                              "imports:\n"
                              "  - {type: urdf, name: arm, file: '" + robot.string() + "', limits: false}\n"
                              "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto first = build_scene(scene);
    RunOptions options = options_for(folder, scene);
    int polls = 0;
    options.interrupt_requested = [&] { return ++polls >= 8 ? SIGINT : 0; };
    REQUIRE_FALSE(run_simulation(*first, options).summary.completed);
    const fs::path file = folder / "checkpoint.soma";
    REQUIRE(fs::exists(file));

    std::string changed = original.str();
    const std::size_t at = changed.find("<mass value=\"");
    REQUIRE(at != std::string::npos);
    changed.insert(at + std::string("<mass value=\"").size(), "2");  // the turret: 2.0 kg -> 22.0 kg
    std::ofstream(robot) << changed;
    State final_state;
    CHECK_THROWS_WITH(restart_from(file, folder, final_state),
                      Contains("imports.arm") && Contains("changed since") && Contains("mass"));

    std::ofstream(robot) << original.str();  // as it was: the restart runs to the end
    REQUIRE(restart_from(file, folder, final_state).summary.completed);
    CHECK(final_state.t == Approx(0.02));
}
