// Validation: which linear solvers solve the saddle-point (KKT) system of hard constraints.
//
// The double pendulum of configs/rigid/double_pendulum.yaml (two rigid bars, two ball joints of
// compliance 0) gives Newton the matrix [[J, -G^T], [-G, 0]] (kernel/constraint_set.cpp): the
// multiplier rows have a zero diagonal. A factorization without pivoting divides by it whenever
// its ordering eliminates a multiplier before the DOFs it constrains.
//
//  - Solvers with the saddle_point capability (linear_solver.hpp) run the shipped scene and give
//    eigen_lu's trajectory: eigen_lu (partial pivoting), eigen_bicgstab (never divides by a
//    diagonal entry; Eigen's Jacobi uses 1 for a zero one, its ILUT shifts a zero pivot), and,
//    when the petsc plugin is built, GMRES with pc_type none or jacobi and MINRES with none.
//  - Solvers without it are refused when the scene is built, with the error located at the
//    solver's `type` key, naming the hard constraint, the solvers that work and the compliance
//    remedy. Run on this scene without the refusal (0.5 s, the same tolerances), they fail:
//      eigen_ldlt, cholmod (auto, simplicial): zero pivot at the first multiplier's column, first step;
//      eigen_llt, cholmod supernodal: not positive definite, first step;
//      eigen_cg: diagonal preconditioner, no convergence at t = 0.38 s; incomplete Cholesky fails to set up;
//      petsc cg/icc (its default): DIVERGED_INDEFINITE_MAT, first step;
//      petsc preonly with lu or cholesky: FACTOR_NUMERIC_ZEROPIVOT, first step;
//      petsc bcgs/jacobi: DIVERGED_DTOL (BiCGSTAB breakdown) at t = 0.18 s.
//    Two refused configurations did run it: petsc gmres/ilu (PETSc's ILU(0) keeps the natural
//    order, in which the kernel puts the multipliers last, so their pivots have filled in; an
//    ordering option or dropped fill would give a zero pivot) and petsc minres/jacobi (Jacobi is
//    positive here because J's diagonal is; MINRES fails with an indefinite one, as a compliant
//    row's -alpha/c_q makes it). Neither is guaranteed, so both are refused.
//  - With a compliance > 0 the same scene is quasi-definite and eigen_ldlt is accepted and runs.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

std::string read_example() {
    // The source tree: SOMA_SOURCE_DIR (set by ctest), else this file's location.
    const char* root = std::getenv("SOMA_SOURCE_DIR");
    const std::filesystem::path source = root != nullptr ? std::filesystem::path(root)
                                                         : std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
    const std::filesystem::path path = source / "configs" / "rigid" / "double_pendulum.yaml";
    std::ifstream file(path);
    INFO("example scene " << path);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

/// The shipped scene with tight Newton tolerances, no outputs, and \p solver (a YAML flow map)
/// as its linear solver. Line 1 of the result is the `linear_solver` line, so an error located
/// there reads `test.yaml:1:...`.
std::string pendulum_scene(const std::string& solver, const std::string& compliance = "") {
    std::string scene = read_example();
    const std::string integrator = "integrator: {type: implicit_midpoint, dt: 1.0e-3}";
    const auto at = scene.find(integrator);
    REQUIRE(at != std::string::npos);
    scene.replace(at, integrator.size(),
                  "integrator: {type: implicit_midpoint, dt: 1.0e-3, newton: {absolute_tolerance: 1.0e-11, "
                  "relative_tolerance: 0, constraint_tolerance: 1.0e-13}, adaptive: {enabled: false}}");
    const auto outputs = scene.find("outputs:");
    REQUIRE(outputs != std::string::npos);
    scene.erase(outputs);
    if (!compliance.empty()) {
        for (const std::string joint : {"name: pivot,", "name: elbow,"}) {
            const auto j = scene.find(joint);
            REQUIRE(j != std::string::npos);
            scene.insert(j + joint.size(), " compliance: " + compliance + ",");
        }
    }
    return "linear_solver: " + solver + "\n" + scene;
}

bool has_solver(const std::string& type) { return plugin_registry().find(TypeKind::linear_solver, type) != nullptr; }

/// bar2's tip after every step of 0.3 s.
std::vector<Vec3> trajectory(const std::string& solver) {
    auto sim = build_scene(pendulum_scene(solver));
    std::vector<Vec3> tip;
    for (int n = 0; n < 300; ++n) {
        REQUIRE(step_once(*sim, 1e-3));
        tip.push_back(node_position(*sim, "bar2", 1));
    }
    return tip;
}

}  // namespace

TEST_CASE("hard constraints: saddle-point solvers give eigen_lu's double pendulum", "[validation][constraints][solvers]") {
    const std::vector<Vec3> reference = trajectory("{type: eigen_lu}");
    std::vector<std::string> solvers = {"{type: eigen_lu, pivot_threshold: 0.1}",
                                        "{type: eigen_bicgstab}",
                                        "{type: eigen_bicgstab, preconditioner: diagonal}"};
    if (has_solver("petsc")) {
        solvers.push_back("{type: petsc, ksp_type: gmres, pc_type: none}");
        solvers.push_back("{type: petsc, ksp_type: gmres, pc_type: jacobi}");
        solvers.push_back("{type: petsc, ksp_type: minres, pc_type: none}");
    }
    for (const std::string& solver : solvers) {
        INFO("linear_solver: " << solver);
        const std::vector<Vec3> tip = trajectory(solver);
        double worst = 0.0;
        for (std::size_t n = 0; n < tip.size(); ++n) worst = std::max(worst, (tip[n] - reference[n]).norm());
        // Every solve ends at |F| <= 1e-11 N and |C| <= 1e-13 m whatever the linear solver (an
        // inexact linear solve costs Newton iterations, not accuracy): over 300 steps of bodies of
        // ~0.3 kg the two runs may differ by ~1e-11 N * h^2 / m per step, far below 1e-9 m. A
        // solver that lost accuracy on the KKT matrix would leave the joint (|C| > 1e-13) or
        // change the motion by the size of its error.
        CHECK(worst < 1e-9);
    }
}

TEST_CASE("hard constraints: solvers without the saddle_point capability are refused", "[validation][constraints][solvers]") {
    std::vector<std::string> refused = {"{type: eigen_ldlt}", "{type: eigen_llt}", "{type: eigen_cg}"};
    if (has_solver("cholmod")) {
        refused.push_back("{type: cholmod}");
        refused.push_back("{type: cholmod, mode: simplicial}");
        refused.push_back("{type: cholmod, mode: supernodal}");
    }
    if (has_solver("petsc")) {
        refused.push_back("{type: petsc}");  // cg with icc
        refused.push_back("{type: petsc, ksp_type: gmres, pc_type: ilu}");
        refused.push_back("{type: petsc, ksp_type: preonly, pc_type: lu}");
        refused.push_back("{type: petsc, ksp_type: preonly, pc_type: cholesky}");
        refused.push_back("{type: petsc, ksp_type: minres, pc_type: jacobi}");
        refused.push_back("{type: petsc, ksp_type: bcgs, pc_type: jacobi}");
    }
    for (const std::string& solver : refused) {
        INFO("linear_solver: " << solver);
        // Located at the solver's type key (line 1, after "linear_solver: {"), naming the
        // constraint, the working solvers and the compliance remedy.
        CHECK_THROWS_WITH(build_scene(pendulum_scene(solver)),
                          Catch::Contains("test.yaml:1:") && Catch::Contains("linear_solver.type") &&
                              Catch::Contains("saddle-point") && Catch::Contains("'pivot'") &&
                              Catch::Contains("eigen_lu") && Catch::Contains("compliance > 0"));
    }
}

TEST_CASE("hard constraints: a compliance > 0 makes the system quasi-definite, and eigen_ldlt runs it",
          "[validation][constraints][solvers]") {
    auto sim = build_scene(pendulum_scene("{type: eigen_ldlt}", "1.0e-8"));
    for (int n = 0; n < 50; ++n) REQUIRE(step_once(*sim, 1e-3));
}
