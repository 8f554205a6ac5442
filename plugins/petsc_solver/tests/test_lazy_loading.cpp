// The petsc plugin loads PETSc only when a scene builds a petsc solver (petsc_backend_loader.hpp):
// this process, which does not link PETSc, loads every built-in plugin and builds a scene with
// another solver without PETSc in its address space, then builds and runs one with the petsc
// solver, which loads it. (Before the split, the plugin linked PETSc and every run loaded its
// hundred libraries at start-up.)
#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"
#include "time_loop.hpp"
#include "type_registry.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace soma;

namespace {

/// Whether a shared library whose file name starts with \p prefix is mapped in this process.
bool mapped(const std::string& prefix) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const std::size_t slash = line.rfind('/');
        if (slash != std::string::npos && line.compare(slash + 1, prefix.size(), prefix) == 0) return true;
    }
    return false;
}

/// A 21-node rod clamped at one end, sagging for 0.05 s (a symmetric Jacobian: cg with icc works).
std::string rod_scene(const std::string& solver) {
    return "simulation: {duration: 0.05}\n"
           "integrator: {type: implicit_euler, dt: 1.0e-2}\n"
           "linear_solver: " + solver + "\n"
           "elements:\n"
           "  - {name: rod, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.2, 0, 0], nodes: 21}},\n"
           "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e7},\n"
           "     fixed: {nodes: [0, 1]}}\n"
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, -9.81]}\n";
}

std::unique_ptr<Simulation> build(const std::string& text) {
    return std::make_unique<Simulation>(load_scene_text(text, "scene.yaml"), builtin_registry());
}

double tip_height(Simulation& sim) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-petsc-lazy-loading";
    options.progress = false;
    const RunResult result = run_simulation(sim, options);
    INFO(result.diagnosis);
    REQUIRE(result.summary.completed);
    Vec3 x, xdot;
    sim.find_element("rod")->point_state(20, sim.state().q, sim.state().v, x, xdot);  // the free end
    return x.z();
}

}  // namespace

TEST_CASE("PETSc is loaded only when a scene builds a petsc solver", "[petsc_solver][plugins]") {
    REQUIRE_FALSE(mapped("libpetsc"));
    builtin_registry();  // every built-in plugin, the petsc one included
    CHECK(builtin_registry().find(TypeKind::linear_solver, "petsc") != nullptr);
    auto without = build(rod_scene("{type: eigen_ldlt}"));
    const double reference = tip_height(*without);
    CHECK_FALSE(mapped("libpetsc"));
    CHECK_FALSE(mapped("libsoma_petsc_backend"));

    auto with = build(rod_scene("{type: petsc, ksp_type: cg, pc_type: icc, rtol: 1.0e-12}"));
    CHECK(mapped("libsoma_petsc_backend"));
    CHECK(mapped("libpetsc"));
    // The same sag as the direct solver (Newton's tolerance bounds the difference: 1e-9 m of a
    // sag of millimetres).
    const double tip = tip_height(*with);
    CHECK(reference < -1e-4);
    CHECK(tip == Approx(reference).margin(1e-9));

    // A setting PETSc refuses still points at its key through the backend. (In this test case:
    // the first check above needs a process in which nothing has loaded PETSc yet.)
    try {
        build(rod_scene("{type: petsc, ksp_type: no_such_method}"));
        FAIL("an unknown ksp_type was accepted");
    } catch (const InputError& e) {
        const std::string message = e.what();
        CAPTURE(message);
        CHECK(message.find("linear_solver.ksp_type") != std::string::npos);
        CHECK(message.find("no_such_method") != std::string::npos);
    }
}
