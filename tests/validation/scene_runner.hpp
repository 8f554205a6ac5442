#pragma once
/// \file scene_runner.hpp
/// \brief Builds and runs scenes from YAML text with the built plugins, for validation tests.

#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"
#include "time_loop.hpp"
#include "type_registry.hpp"

#include <memory>
#include <string>
#include <vector>

namespace soma::validation {

/// The registry with every built-in plugin loaded (once per test process).
const TypeRegistry& plugin_registry();

/// \p x with 17 significant digits: a number written into scene text that reads back as the same double.
std::string num(double x);

/// The hanging helix of issue 7 section 7 (101 nodes, helix radius 2 cm, pitch 1 cm, 4 turns, rod
/// radius 5 mm, E = 10 MPa, rho = 1200, undamped, top node and edge fixed, gravity), as scene text.
/// \p newton is appended inside the integrator block (e.g. ", newton: {absolute_tolerance: 1e-8}").
std::string hanging_helix_scene(const std::string& integrator, double duration, const std::string& dt,
                                const std::string& newton);

/// Validates and builds a scene from text.
std::unique_ptr<Simulation> build_scene(const std::string& yaml, const std::string& name = "test.yaml");

/// Runs to the end time without outputs or progress; REQUIREs completion.
RunResult run_to_end(Simulation& simulation);

/// Takes single steps of the scene's integrator (for tests that sample the trajectory).
/// Returns false if the step did not converge.
bool step_once(Simulation& simulation, double dt);

/// The affine map of one implicit Euler step of size \p h from the committed state (predictor
/// q + h v, coefficients h^2, h, 1), for tests written against the open System.
AffineStep euler_step(const System& system, double h);

/// Position of node `node` (negative counts from the end) of a named element.
Vec3 node_position(const Simulation& simulation, const std::string& element, long node);
Vec3 node_velocity(const Simulation& simulation, const std::string& element, long node);

/// The column \p column of the CSV file \p name (without ".csv") that run_to_end's `csv`
/// outputs wrote, one value per row (a test's REQUIRE fails when the file or column is missing).
std::vector<double> csv_column(const std::string& name, const std::string& column);

}  // namespace soma::validation
