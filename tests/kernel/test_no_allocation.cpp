// "No allocation in a Newton iteration" (ARCHITECTURE.md §7): the kernel's evaluation, the
// assembly, the rod and the forces allocate nothing per Newton iteration. Measured by counting
// malloc calls in this test executable and comparing steps that take different numbers of
// Newton iterations: their allocation counts must be equal.
//
// The linear solver is a test-only dense Cholesky with storage allocated in analyze(), because
// Eigen's sparse factorizations allocate small work buffers in every factorize (see
// docs/performance.md); this test is about everything else.
#include "kernel_test_support.hpp"

#include "counting_malloc.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>

using soma::testing::heap_allocations;

using namespace soma;

namespace {

/// Dense in-place Cholesky on the lower triangle, storage sized once in analyze().
class DenseCholesky final : public LinearSolver {
public:
    LinearSolverCapabilities capabilities() const override { return {true, false, false, false, false}; }
    void analyze(const SparseMatrix& pattern) override {
        n_ = pattern.rows();
        factor_.setZero(n_, n_);
    }
    bool factorize(const SparseMatrix& J) override {
        factor_.setZero();
        for (Index c = 0; c < n_; ++c)
            for (SparseMatrix::InnerIterator it(J, c); it; ++it)
                if (it.row() >= c) factor_(it.row(), c) = it.value();
        for (Index j = 0; j < n_; ++j) {
            double d = factor_(j, j);
            for (Index k = 0; k < j; ++k) d -= factor_(j, k) * factor_(j, k);
            if (!(d > 0.0)) return false;
            factor_(j, j) = std::sqrt(d);
            for (Index i = j + 1; i < n_; ++i) {
                double s = factor_(i, j);
                for (Index k = 0; k < j; ++k) s -= factor_(i, k) * factor_(j, k);
                factor_(i, j) = s / factor_(j, j);
            }
        }
        return true;
    }
    bool solve(const VectorX& rhs, VectorX& x) override {
        x = rhs;
        for (Index i = 0; i < n_; ++i) {
            for (Index k = 0; k < i; ++k) x[i] -= factor_(i, k) * x[k];
            x[i] /= factor_(i, i);
        }
        for (Index i = n_ - 1; i >= 0; --i) {
            for (Index k = i + 1; k < n_; ++k) x[i] -= factor_(k, i) * x[k];
            x[i] /= factor_(i, i);
        }
        return true;
    }
    std::string last_error() const override { return "not positive definite"; }

private:
    Index n_ = 0;
    Eigen::MatrixXd factor_;
};

/// Dense LU with partial pivoting, allocation-free after analyze(): the KKT matrix of a scene
/// with constraints is indefinite, which the Cholesky above refuses; partial pivoting also
/// treats hard constraints' zero diagonal (saddle_point).
class DenseLu final : public LinearSolver {
public:
    LinearSolverCapabilities capabilities() const override { return {true, true, true, false, false, true}; }
    void analyze(const SparseMatrix& pattern) override {
        n_ = pattern.rows();
        factor_.setZero(n_, n_);
        pivot_.assign(static_cast<std::size_t>(n_), 0);
    }
    bool factorize(const SparseMatrix& J) override {
        factor_.setZero();
        for (Index c = 0; c < n_; ++c)
            for (SparseMatrix::InnerIterator it(J, c); it; ++it) factor_(it.row(), c) = it.value();
        for (Index k = 0; k < n_; ++k) {
            Index p = k;
            for (Index i = k + 1; i < n_; ++i)
                if (std::abs(factor_(i, k)) > std::abs(factor_(p, k))) p = i;
            if (factor_(p, k) == 0.0) return false;
            pivot_[static_cast<std::size_t>(k)] = p;
            if (p != k) factor_.row(p).swap(factor_.row(k));
            for (Index i = k + 1; i < n_; ++i) {
                factor_(i, k) /= factor_(k, k);
                for (Index j = k + 1; j < n_; ++j) factor_(i, j) -= factor_(i, k) * factor_(k, j);
            }
        }
        return true;
    }
    bool solve(const VectorX& rhs, VectorX& x) override {
        x = rhs;
        for (Index k = 0; k < n_; ++k) std::swap(x[k], x[pivot_[static_cast<std::size_t>(k)]]);
        for (Index i = 0; i < n_; ++i)
            for (Index k = 0; k < i; ++k) x[i] -= factor_(i, k) * x[k];
        for (Index i = n_ - 1; i >= 0; --i) {
            for (Index k = i + 1; k < n_; ++k) x[i] -= factor_(i, k) * x[k];
            x[i] /= factor_(i, i);
        }
        return true;
    }
    std::string last_error() const override { return "singular"; }

private:
    Index n_ = 0;
    Eigen::MatrixXd factor_;
    std::vector<Index> pivot_;
};

const TypeRegistry& registry() {
    static TypeRegistry* r = [] {
        auto* reg = new TypeRegistry();
        static PluginLoader loader(*reg);
        loader.load_defaults();
        reg->set_current_provider("test", "");
        reg->add_linear_solver(ParameterSchema("test_dense_cholesky", "allocation-free dense Cholesky (tests)"),
                               [](const Parameters&) { return std::make_unique<DenseCholesky>(); });
        reg->add_linear_solver(ParameterSchema("test_dense_lu", "allocation-free dense LU (tests)"),
                               [](const Parameters&) { return std::make_unique<DenseLu>(); });
        return reg;
    }();
    return *r;
}

struct Count {
    long allocations;
    int iterations;
    long chord_steps;  ///< iterations through an earlier factorization (jacobian_reuse)
};

/// Allocations and Newton iterations of one step of a scene after a few warm-up steps.
Count one_step_of(const std::string& text) {
    Simulation sim(load_scene_text(text, "alloc.yaml"), registry());
    for (int i = 0; i < 3; ++i) {
        sim.begin_attempt();
        const StepReport warm_up = sim.integrator().step(sim, 1e-3);
        INFO(warm_up.diagnosis);
        REQUIRE(warm_up.converged);
    }
    sim.begin_attempt();
    const long chord_before = sim.timings().chord_steps;
    const long before = heap_allocations.load();
    const StepReport report = sim.integrator().step(sim, 1e-3);
    const long after = heap_allocations.load();
    INFO(report.diagnosis);
    REQUIRE(report.converged);
    return {after - before, report.newton_iterations, sim.timings().chord_steps - chord_before};
}

/// The scene \p text with the trust region in place of the line search (newton.hpp). Its
/// dogleg steps converge more slowly than the line search on stiff contact: more iterations.
std::string with_trust_region(std::string text) {
    const std::string line_search = "line_search_start: 0";
    const auto at = text.find(line_search);
    REQUIRE(at != std::string::npos);
    return text.replace(at, line_search.size(), "globalization: trust_region, max_iterations: 200");
}

/// A rod with every basic force and a prescribed DOF; \p test names the Newton tolerance set
/// to \p tolerance (absolute_tolerance, or balance_tolerance: the force scale is assembled).
std::string rod_scene(const std::string& integrator, const std::string& tolerance,
                      const std::string& test = "absolute_tolerance") {
    return
        "simulation: {duration: 1.0}\n"
        "integrator: {type: " + integrator + ", dt: 1.0e-3, newton: {" + test + ": " + tolerance +
        ", relative_tolerance: 0, line_search_start: 0}}\n"
        "linear_solver: {type: test_dense_cholesky}\n"
        "elements:\n"
        "  - {name: beam, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 21}},\n"
        "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1200, youngs_modulus: 2.0e6},\n"
        "     fixed: {nodes: [0, 1], edges: [0]}, prescribed: [{edges: [-1], displacement: [\"0.1*t\"]}]}\n"
        "forces:\n"
        "  - {type: gravity}\n"
        "  - {type: viscous_drag, viscosity: 0.1}\n"
        "  - {type: floor_contact, height: -0.01, stiffness: 100}\n"
        "  - {type: point_load, element: beam, nodes: [-1], force: [0, 1.0e-5, 0]}\n"
        "  - {type: rayleigh_damping, damping_ratio: 0.02, frequencies: [5, 50]}\n";
}

Count one_step(const std::string& integrator, const std::string& tolerance,
               const std::string& test = "absolute_tolerance") {
    return one_step_of(rod_scene(integrator, tolerance, test));
}

/// A hinge-shell plate with a rod clamped into it (rod_shell_joint), aerodynamic drag, and an
/// actuation controller on the hinges; or the same plate as a mid-edge shell without the joint.
Count one_shell_step(const std::string& shell, const std::string& tolerance) {
    const bool hinge = shell == "hinge_shell";
    const std::string text =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
        ", relative_tolerance: 0, line_search_start: 0}}\n"
        "linear_solver: {type: test_dense_cholesky}\n"
        "elements:\n"
        "  - {name: plate, type: " + shell + ", thickness: 1.0e-3, material: {density: 1000, youngs_modulus: 1.0e7},\n"
        "     mesh: {rectangle: {origin: [0, 0, 0], size: [0.05, 0.01732], edge_length: 0.005, rows: x}},\n"
        "     fixed: {box: {min: [-1, -1, -1], max: [0.010000001, 1, 1]}}}\n"
        "  - {name: rod, type: discrete_rod, geometry: {line: {from: [0.05, 0.00866, 0], to: [0.05, 0.00866, 0.02], "
        "nodes: 6}},\n"
        "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e7}}\n" +
        std::string(hinge ? "  - {name: joint, type: rod_shell_joint, rod: rod, rod_node: 0, shell: plate, shell_node: 33}\n" : "") +
        "shared_nodes: [{elements: [plate, rod], nodes: [33, 0]}]\n"
        "forces:\n"
        "  - {type: gravity}\n"
        "  - {type: aerodynamic_drag, medium_density: 1000, drag_coefficient: 1.0, elements: [plate]}\n"
        "  - {type: point_load, element: rod, nodes: [-1], force: [1.0e-3, 0, 0]}\n"
        "  - {type: rayleigh_damping, damping_ratio: 0.02, frequencies: [5, 50]}\n" +
        std::string(hinge ? "controllers:\n  - {type: actuation, element: plate, channel: natural_hinge_angle, "
                            "values: [\"0.1*sin(20*t)*s\"]}\n"
                          : "");
    return one_step_of(text);
}

/// A rod pressed onto a fixed rod it crosses, sliding over it: imc_contact with friction (the
/// unsymmetric Jacobian takes the dense LU), the pair in the band at every iteration.
Count one_contact_step(const std::string& tolerance) {
    const std::string text =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
        ", relative_tolerance: 0, line_search_start: 0}}\n"
        "linear_solver: {type: test_dense_lu}\n"
        "elements:\n"
        "  - {name: support, type: discrete_rod, geometry: {line: {from: [0, -0.03, 0], to: [0, 0.03, 0], nodes: 6}},\n"
        "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e9},\n"
        "     fixed: {box: {min: [-1, -1, -1], max: [1, 1, 1]}}}\n"
        "  - {name: beam, type: discrete_rod, geometry: {line: {from: [-0.03, 0, 0.00201], to: [0.03, 0, 0.00201], nodes: 6}},\n"
        "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e9},\n"
        "     fixed: [{nodes: [0, -1], components: [y]}, {edges: [0]}]}\n"
        "forces:\n"
        "  - {type: imc_contact, stiffness: 1.0e4, friction: 0.3, slip_velocity: 1.0e-3}\n"
        "  - {type: viscous_drag, viscosity: 0.1}\n"
        "  - {type: point_load, element: beam, nodes: [2, 3], force: [0.002, 0, -0.01]}\n";
    return one_step_of(text);
}

/// A rigid sphere resting on a sheet, which rests on a fixed rod: node-triangle pairs (the
/// sphere's centre and the rod's nodes against the sheet's triangles), edge pairs, and a rigid
/// body's mapped points, with friction.
Count one_surface_contact_step(const std::string& tolerance) {
    const std::string text =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
        ", relative_tolerance: 0, line_search_start: 0}}\n"
        "linear_solver: {type: test_dense_lu}\n"
        "elements:\n"
        "  - {name: sheet, type: hinge_shell, thickness: 1.0e-3, material: {density: 1000, youngs_modulus: 1.0e6},\n"
        "     mesh: {rectangle: {origin: [-0.02, -0.02, 0.0015], size: [0.04, 0.04], edge_length: 0.01}}}\n"
        "  - {name: rod, type: discrete_rod, geometry: {line: {from: [-0.03, 0.001, 0], to: [0.03, 0.001, 0], nodes: 6}},\n"
        "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e9},\n"
        "     fixed: {box: {min: [-1, -1, -1], max: [1, 1, 1]}}}\n"
        "  - {name: ball, type: rigid_body, position: [0.002, 0.003, 0.0071], shape: {sphere: {radius: 5.0e-3}}, density: 1000}\n"
        "forces:\n"
        "  - {type: gravity}\n"
        "  - {type: imc_contact, stiffness: 1.0e3, friction: 0.3, slip_velocity: 1.0e-3}\n"
        "  - {type: point_load, element: ball, nodes: [0], force: [0.002, 0, -0.01]}\n";
    return one_step_of(text);
}

/// Zero allocations per Newton iteration: a tight solve takes more iterations than a loose one
/// (so the comparison means something) and allocates the same. Per step the integrator builds the
/// next State (a few vectors): the same count whatever the number of iterations.
void check_allocation_free(const Count& loose, const Count& tight) {
    INFO("loose: " << loose.iterations << " iterations, " << loose.allocations << " allocations; tight: "
                   << tight.iterations << " iterations, " << tight.allocations << " allocations");
    REQUIRE(tight.iterations > loose.iterations);
    CHECK(tight.allocations == loose.allocations);
}

}  // namespace

TEST_CASE("Newton iterations allocate nothing: kernel, assembly, rod and forces", "[kernel][performance]") {
    for (const std::string integrator : {"implicit_euler", "implicit_midpoint", "newmark", "bdf2", "bdf"}) {
        INFO(integrator);
        const Count loose = one_step(integrator, "1.0e-3");
        const Count tight = one_step(integrator, "1.0e-13");
        check_allocation_free(loose, tight);
    }
}

TEST_CASE("Newton iterations allocate nothing with the balance test (force scale assembled)", "[kernel][performance]") {
    for (const std::string integrator : {"implicit_euler", "implicit_midpoint", "newmark", "bdf2", "bdf"}) {
        INFO(integrator);
        const Count loose = one_step(integrator, "1.0e-2", "balance_tolerance");
        const Count tight = one_step(integrator, "1.0e-14", "balance_tolerance");
        check_allocation_free(loose, tight);
    }
}

TEST_CASE("Newton iterations allocate nothing with the trust region", "[kernel][performance]") {
    const Count loose = one_step_of(with_trust_region(rod_scene("implicit_euler", "1.0e-2", "balance_tolerance")));
    const Count tight = one_step_of(with_trust_region(rod_scene("implicit_euler", "1.0e-14", "balance_tolerance")));
    check_allocation_free(loose, tight);
}

TEST_CASE("Newton iterations allocate nothing with chord steps (jacobian_reuse)", "[kernel][performance]") {
    const Count loose = one_step("implicit_euler", "1.0e-3", "jacobian_reuse: 8, absolute_tolerance");
    const Count tight = one_step("implicit_euler", "1.0e-13", "jacobian_reuse: 8, absolute_tolerance");
    INFO("loose: " << loose.iterations << " iterations (" << loose.chord_steps << " chord), " << loose.allocations
                   << " allocations; tight: " << tight.iterations << " iterations (" << tight.chord_steps << " chord), "
                   << tight.allocations << " allocations");
    REQUIRE(tight.iterations > loose.iterations);
    REQUIRE(tight.chord_steps > loose.chord_steps);  // the extra iterations include chord steps
    CHECK(tight.allocations == loose.allocations);
}

TEST_CASE("Newton iterations allocate nothing: shells, joints, drag, damping and actuation", "[kernel][performance]") {
    for (const std::string shell : {"hinge_shell", "midedge_shell"}) {
        INFO(shell);
        const Count loose = one_shell_step(shell, "1.0e-2");
        const Count tight = one_shell_step(shell, "1.0e-9");
        check_allocation_free(loose, tight);
    }
}

TEST_CASE("Newton iterations allocate nothing: rigid bodies, floor contact and constraints", "[kernel][performance]") {
    // Two boxes on the floor joined by a ball joint, a third pinned to the world (hard and
    // compliant rows), all forces through the rigid bodies' point maps.
    const auto scene = [](const std::string& tolerance) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_midpoint, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
               ", relative_tolerance: 0, line_search_start: 0, constraint_tolerance: 1.0e-14}}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - {name: a, type: rigid_body, position: [0, 0, 0.049], angular_velocity: [0, 1, 2], density: 1000,\n"
               "     shape: {box: {size: [0.1, 0.1, 0.1]}}, markers: [{position: [0.05, 0, 0]}]}\n"
               "  - {name: b, type: rigid_body, position: [0.15, 0, 0.049], density: 1000, shape: {box: {size: [0.2, 0.1, 0.1]}},\n"
               "     markers: [{position: [-0.1, 0, 0]}]}\n"
               "  - {name: c, type: rigid_body, position: [0, 0, 1], density: 500, shape: {capsule: {radius: 0.02, length: 0.1}},\n"
               "     markers: [{position: [0, 0, 0.07]}]}\n"
               "constraints:\n"
               "  - {type: ball_joint, first: {element: a, node: 2}, second: {element: b, node: 2}}\n"
               "  - {type: ball_joint, first: {element: c, node: 2}, second: {world: [0, 0, 1.07]}, compliance: 1.0e-6}\n"
               "forces:\n"
               "  - {type: gravity}\n"
               "  - {type: floor_contact, stiffness: 1.0e4, band: 1.0e-3, friction: 0.3}\n"
               "  - {type: point_load, element: c, nodes: [1], force: [0.1, 0, 0]}\n";
    };
    const Count loose = one_step_of(scene("1.0e-4"));
    const Count tight = one_step_of(scene("1.0e-12"));
    check_allocation_free(loose, tight);
    SECTION("with the trust region (the dogleg over forces and multipliers)") {
        check_allocation_free(one_step_of(with_trust_region(scene("1.0e-4"))),
                              one_step_of(with_trust_region(scene("1.0e-12"))));
    }
}

TEST_CASE("ncp_newton iterations allocate nothing: contacts with friction, a joint, both Schur solvers, the diagonal "
          "geometric stiffness",
          "[kernel][performance]") {
    // A box sliding on the floor, a box resting on another (corner-on-face contacts), a sphere
    // hung from the world by a compliant joint: the contacts' rows, the NCP rows and the Schur
    // solve in every iteration. The contacts are laid out once per step (allocating there).
    const auto scene = [](const std::string& tolerance, const std::string& solver, const std::string& stiffness) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: ncp_newton, dt: 1.0e-3, geometric_stiffness: " + stiffness +
               ", linear_solver: " + solver + ", force_tolerance: " + tolerance +
               ", gap_tolerance: " + tolerance + ", slip_tolerance: " + tolerance + "}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - {name: a, type: rigid_body, position: [0, 0, 0.05], velocity: [0.5, 0, 0], density: 1000,\n"
               "     shape: {box: {size: [0.2, 0.1, 0.1]}}}\n"
               "  - {name: b, type: rigid_body, position: [-1, 0, 0.05], density: 500, shape: {box: {size: [0.1, 0.1, 0.1]}}}\n"
               "  - {name: d, type: rigid_body, position: [-1, 0, 0.15], density: 500, shape: {box: {size: [0.1, 0.1, 0.1]}}}\n"
               "  - {name: c, type: rigid_body, position: [1, 0, 1], density: 500, shape: {sphere: {radius: 0.05}},\n"
               "     markers: [{position: [0, 0, 0.05]}]}\n"
               "constraints:\n"
               "  - {type: ncp_contact, floor: {}, friction: 0.4}\n"
               "  - {type: ball_joint, first: {element: c, node: 2}, second: {world: [1, 0, 1.05]}, compliance: 1.0e-6}\n"
               "forces:\n"
               "  - {type: gravity}\n";
    };
    for (const std::string solver : {"conjugate_residual", "direct"}) {
        INFO(solver);
        check_allocation_free(one_step_of(scene("1.0e-3", solver, "none")), one_step_of(scene("1.0e-12", solver, "none")));
    }
    for (const std::string solver : {"conjugate_residual", "direct"}) {
        INFO(solver << ", diagonal geometric stiffness");
        check_allocation_free(one_step_of(scene("1.0e-3", solver, "diagonal")),
                              one_step_of(scene("1.0e-12", solver, "diagonal")));
    }
}

TEST_CASE("Newton iterations allocate nothing: clamps through rod and rigid-body frames", "[kernel][performance]") {
    // A rod clamped into a spinning body (hard), and the rod's end clamped to the world (compliant).
    const auto scene = [](const std::string& tolerance) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_euler, dt: 2.0e-2, newton: {absolute_tolerance: " + tolerance +
               ", relative_tolerance: 0, line_search_start: 0, constraint_tolerance: 1.0e-14}}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - {name: hub, type: rigid_body, position: [0, 0, 0], angular_velocity: [5, 0, 15], mass: 1,\n"
               "     inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "  - {name: rod, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.2, 0, 0], nodes: 8}},\n"
               "     cross_section: {circle: {radius: 0.003}}, material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.4}}\n"
               "constraints:\n"
               "  - {type: clamp, first: {element: rod, frame: start}, second: {element: hub}}\n"
               "  - {type: clamp, first: {element: rod, frame: end}, second: {world: [0.2, 0, 0]}, compliance: 1.0e-3,\n"
               "     rotational_compliance: 1.0e-1}\n"
               "forces:\n"
               "  - {type: gravity}\n";
    };
    const Count loose = one_step_of(scene("1.0e-2"));
    const Count tight = one_step_of(scene("1.0e-12"));
    check_allocation_free(loose, tight);
}

TEST_CASE("Newton iterations allocate nothing with eliminated attachments (the null-space reduction)",
          "[kernel][performance]") {
    // A rod hung by its first node from a spinning body (eliminated), the body held by a hard
    // world joint at one of its points (kept as multiplier rows), a second rod joined to the
    // first one's end node to node (eliminated), and a third held at the first one's hung node
    // (eliminated, chained: its node's coefficients composed through the hang's): the reduced
    // matrix, its plan and the solves.
    const auto scene = [](const std::string& tolerance) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
               ", relative_tolerance: 0, line_search_start: 0, constraint_tolerance: 1.0e-14}}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - {name: hub, type: rigid_body, position: [0, 0, 0], angular_velocity: [5, 0, 15], mass: 1,\n"
               "     inertia: [0.01, 0.01, 0.01, 0, 0, 0], markers: [{position: [0, 0, 0.05]}]}\n"
               "  - {name: rod, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.2, 0, 0], nodes: 8}},\n"
               "     cross_section: {circle: {radius: 0.003}}, material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.4}}\n"
               "  - {name: tail, type: discrete_rod, geometry: {line: {from: [0.2, 0, 0], to: [0.2, 0, -0.1], nodes: 5}},\n"
               "     cross_section: {circle: {radius: 0.003}}, material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.4}}\n"
               "  - {name: branch, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0, -0.1, 0], nodes: 4}},\n"
               "     cross_section: {circle: {radius: 0.003}}, material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.4}}\n"
               "constraints:\n"
               "  - {type: ball_joint, first: {element: hub, at: [0, 0, 0.05]}, second: {world: [0, 0, 0.05]}}\n"
               "  - {type: ball_joint, first: {element: rod, node: 0}, second: {element: hub, at: [0, 0, 0]}, eliminate: true}\n"
               "  - {type: ball_joint, first: {element: tail, node: 0}, second: {element: rod, node: -1}, eliminate: true}\n"
               "  - {type: ball_joint, first: {element: branch, node: 0}, second: {element: rod, node: 0}, eliminate: true}\n"
               "forces:\n"
               "  - {type: gravity}\n";
    };
    // The three rod joints are eliminated (the hub's world joint is a body point: kept).
    const Simulation sim(load_scene_text(scene("1.0e-2"), "alloc.yaml"), registry());
    const auto& notes = sim.notes();
    CHECK(std::any_of(notes.begin(), notes.end(),
                      [](const std::string& n) { return n.find("(null-space reduction)") != std::string::npos &&
                                                        n.find("(9 DOFs") != std::string::npos; }));
    const Count loose = one_step_of(scene("1.0e-2"));
    const Count tight = one_step_of(scene("1.0e-12"));
    check_allocation_free(loose, tight);
}

TEST_CASE("the open System calls allocate nothing once sized: evaluate, factorize, solve, constraint rows",
          "[kernel][performance]") {
    // What an integrator running its own iteration (system.hpp) calls in every iteration.
    const std::string text =
        "simulation: {duration: 1.0}\n"
        "integrator: {type: implicit_euler, dt: 1.0e-3}\n"
        "linear_solver: {type: test_dense_lu}\n"
        "elements:\n"
        "  - {name: a, type: rigid_body, position: [0, 0, 0], angular_velocity: [0, 1, 2], density: 1000,\n"
        "     shape: {box: {size: [0.1, 0.1, 0.3]}}, markers: [{position: [0, 0, 0.15]}]}\n"
        "  - {name: bead, type: point_mass, position: [0, 0, 0.15], mass: 0.1}\n"
        "constraints:\n"
        "  - {type: ball_joint, first: {element: a, node: 2}, second: {world: [0, 0, 0.15]}}\n"
        "  - {type: ball_joint, first: {element: bead}, second: {element: a, node: 2}, compliance: 1.0e-6}\n"
        "forces: [{type: gravity}]\n";
    Simulation sim(load_scene_text(text, "alloc.yaml"), registry());
    const Index n = sim.dof_count();
    AffineStep step;
    step.t_eval = 1e-3;
    step.dt = 1e-3;
    step.q_pred = VectorX::Zero(n);
    step.v_pred = sim.state().v;
    step.a_pred = VectorX::Zero(n);
    step.coefficients = {1e-6, 1e-3, 1.0};
    VectorX x = VectorX::Constant(n, 0.1), lambda = VectorX::Zero(sim.constraint_row_count());
    VectorX rhs(sim.unknown_count()), y(sim.unknown_count());
    Eigen::MatrixXd b = Eigen::MatrixXd::Ones(sim.unknown_count(), 2), yy(sim.unknown_count(), 2);
    const auto iteration = [&] {
        REQUIRE(sim.begin_solve(step, x).empty());
        sim.evaluate(step, x, lambda, true, false);
        REQUIRE(sim.factorize());
        rhs = -sim.residual();
        REQUIRE(sim.solve_linear(rhs, y));
        REQUIRE(sim.solve_linear(b, yy));
        const ConstraintRows& rows = sim.constraint_rows();
        lambda += 0.5 * y.tail(rows.value.size());
    };
    iteration();  // the first call may size buffers
    const long before = heap_allocations.load();
    for (int i = 0; i < 3; ++i) iteration();
    CHECK(heap_allocations.load() - before == 0);
}

TEST_CASE("Newton iterations allocate nothing in a contact scene (imc_contact with friction)", "[kernel][performance]") {
    const Count loose = one_contact_step("1.0e-4");
    const Count tight = one_contact_step("1.0e-13");
    check_allocation_free(loose, tight);
}

TEST_CASE("Newton iterations allocate nothing with node-triangle and rigid-shape contact", "[kernel][performance]") {
    const Count loose = one_surface_contact_step("1.0e-4");
    const Count tight = one_surface_contact_step("1.0e-13");
    check_allocation_free(loose, tight);
}

TEST_CASE("Newton iterations allocate nothing: multibody joints, prescribed coordinates, joint drives and springs",
          "[kernel][performance]") {
    // Every frame joint type between rigid bodies, a rod's end and a gvs link's wide end frame,
    // with a motor (prescribed angle) and PD drives on a revolute and a prismatic joint.
    const auto scene = [](const std::string& tolerance) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_euler, dt: 5.0e-2, newton: {absolute_tolerance: " + tolerance +
               ", relative_tolerance: 0, line_search_start: 0, constraint_tolerance: " + tolerance + "}}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - {name: hub, type: rigid_body, position: [0, 0, 0], mass: 1, inertia: [0.01, 0.02, 0.03, 0, 0, 0]}\n"
               "  - {name: arm, type: rigid_body, position: [0.1, 0, 0], mass: 0.5, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "  - {name: cart, type: rigid_body, position: [0, 0.3, 0], velocity: [2, 0, 0], mass: 0.5, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "  - {name: puck, type: rigid_body, position: [0, -0.3, 0], angular_velocity: [0, 0, 20], mass: 0.5, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "  - {name: sleeve, type: rigid_body, position: [0.3, 0.3, 0], angular_velocity: [0, 0, 25], mass: 0.5, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "  - {name: weld, type: rigid_body, position: [0.3, -0.3, 0], mass: 0.5, inertia: [0.01, 0.01, 0.01, 0, 0, 0]}\n"
               "  - {name: rod, type: discrete_rod, geometry: {line: {from: [0.2, 0, 0], to: [0.4, 0, 0], nodes: 6}},\n"
               "     cross_section: {circle: {radius: 0.003}}, material: {density: 1000, youngs_modulus: 1.0e7, poisson_ratio: 0.4}}\n"
               "  - name: robot\n"
               "    type: gvs\n"
               "    base_position: [0, 0, 0.5]\n"
               "    gravity: [0, 0, -9.81]\n"
               "    links:\n"
               "      - name: beam\n"
               "        soft: {length: 0.3, section: {circular: {radius: 0.01}}, young_modulus: 1.0e7, poisson_ratio: 0.5,\n"
               "               density: 1000, strains: {torsion: 1, bending_y: 2, bending_z: 2}}\n"
               "  - {name: tip, type: rigid_body, position: [0.3, 0, 0.5], angular_velocity: [20, 10, 30], mass: 0.1,\n"
               "     inertia: [1.0e-4, 2.0e-4, 3.0e-4, 0, 0, 0]}\n"
               "constraints:\n"
               "  - {type: revolute_joint, name: motor, first: {element: hub}, at: [0, 0, 0], axis: [0, 0, 1], coordinate: '30*t^2'}\n"
               "  - {type: revolute_joint, name: elbow, first: {element: arm}, second: {element: hub}, at: [0.05, 0, 0], axis: [0, 1, 0]}\n"
               "  - {type: universal_joint, first: {element: rod, frame: start}, second: {element: arm}, at: [0.2, 0, 0],\n"
               "     axis: [0, 1, 0], second_axis: [0, 0, 1]}\n"
               "  - {type: prismatic_joint, name: rail, first: {element: cart}, at: [0, 0.3, 0], axis: [1, 0, 0]}\n"
               "  - {type: planar_joint, first: {element: puck}, at: [0, -0.3, 0], axis: [0, 0, 1]}\n"
               "  - {type: cylindrical_joint, first: {element: sleeve}, at: [0.3, 0.3, 0], axis: [0, 0, 1], compliance: 1.0e-4}\n"
               "  - {type: fixed_joint, first: {element: weld}, second: {element: puck}, at: [0.15, -0.3, 0],\n"
               "     rotational_compliance: 1.0e-3}\n"
               "  - {type: spherical_joint, first: {element: tip}, second: {element: robot, frame: beam.end}, at: [0.3, 0, 0.5]}\n"
               "forces:\n"
               "  - {type: gravity}\n"
               "  - {type: joint_drive, joint: elbow, stiffness: 5, damping: 0.5, target: '0.3*t'}\n"
               "  - {type: joint_drive, joint: rail, stiffness: 50, damping: 2, target: '0.1*sin(t)', target_velocity: '0.1*cos(t)'}\n"
               "  - {type: spring, points: [{element: tip, node: 0}, {world: [0.4, 0.2, 0.6]}, {element: cart, node: 0},\n"
               "     {element: robot, node: -1}], stiffness: 30, damping: 0.5, rest_length: 0.5}\n"
               "  - {type: frame_spring, first: {element: arm}, second: {element: robot, frame: beam.end}, stiffness: 20,\n"
               "     rotational_stiffness: 2, damping: 0.3, rotational_damping: 0.05}\n";
    };
    const Count loose = one_step_of(scene("1.0e-1"));
    const Count tight = one_step_of(scene("1.0e-13"));
    check_allocation_free(loose, tight);
}

TEST_CASE("Newton iterations allocate nothing: the kernel's forces and joints on a gvs robot's wide points",
          "[kernel][performance]") {
    // Two sliders carrying GVS rods of different widths that rest on the floor with friction,
    // viscous drag on the rods' points, a point load at one tip, one tip held near a world point
    // by a compliant ball joint and the other's end frame by a compliant clamp: every point and
    // frame is wide (point_kinematics.hpp), so each force keeps its kinematics grown to the widest.
    const auto scene = [](const std::string& tolerance) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
               ", relative_tolerance: 0, line_search_start: 0, constraint_tolerance: 1.0e-14}}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - name: robot\n"
               "    type: gvs\n"
               "    gravity: [0, 0, -9.81]\n"
               "    links:\n"
               "      - {name: slider, joint: {type: prismatic, axis: [0, 0, 1]}, rigid: {mass: 0.2, inertia: [1.0e-4, "
               "1.0e-4, 1.0e-4, 0, 0, 0]}}\n"
               "      - name: beam\n"
               "        soft: {length: 0.5, section: {circular: {radius: 0.01}}, young_modulus: 1.0e7, poisson_ratio: 0.5,\n"
               "               density: 1000, strains: {torsion: 1, bending_y: 2, bending_z: 2}}\n"
               "  - name: other\n"  // a second robot of another width: the forces' kinematics alternate
               "    type: gvs\n"
               "    base_position: [0, 0.2, 0]\n"
               "    gravity: [0, 0, -9.81]\n"
               "    links:\n"
               "      - {name: slider, joint: {type: prismatic, axis: [0, 0, 1]}, rigid: {mass: 0.2, inertia: [1.0e-4, "
               "1.0e-4, 1.0e-4, 0, 0, 0]}}\n"
               "      - name: beam\n"
               "        soft: {length: 0.5, section: {circular: {radius: 0.01}}, young_modulus: 1.0e7, poisson_ratio: 0.5,\n"
               "               density: 1000, strains: {torsion: 1, bending_y: 3, bending_z: 3}}\n"
               "constraints:\n"
               "  - {type: ball_joint, first: {element: robot, node: -1}, second: {world: [0.5, 0, 0]}, compliance: 1.0e-3}\n"
               "  - {type: clamp, first: {element: other, frame: beam.end}, second: {world: [0.5, 0.2, 0]}, "
               "compliance: 1.0e-3, rotational_compliance: 1.0e-2}\n"
               "forces:\n"
               "  - {type: floor_contact, elements: [robot, other], height: -0.0105, stiffness: 1.0e4, band: 1.0e-3, friction: 0.3}\n"
               "  - {type: viscous_drag, viscosity: 0.1}\n"
               "  - {type: point_load, element: robot, nodes: [-1], force: [0, 2.0, 0]}\n";
    };
    const Count loose = one_step_of(scene("1.0e-3"));
    const Count tight = one_step_of(scene("1.0e-13"));
    check_allocation_free(loose, tight);
}

TEST_CASE("Newton iterations allocate nothing: a gvs robot's planar loop joints in one constraint",
          "[kernel][performance]") {
    // Two planar rods from the base, their tips hinged to the base frame (`gvs_loop_joints`, two
    // planar revolute joints: one derivative pass carries both loops' wrenches), sagging under
    // gravity in their plane.
    const auto scene = [](const std::string& tolerance) {
        const std::string rod = "        soft: {length: 0.5, section: {circular: {radius: 0.01}}, young_modulus: 1.0e5, "
                                "poisson_ratio: 0.5,\n"
                                "               density: 1000, strains: {bending_z: 3, elongation: 1}}\n";
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: " + tolerance +
               ", relative_tolerance: 0, line_search_start: 0, constraint_tolerance: " + tolerance + "}}\n"
               "linear_solver: {type: test_dense_lu}\n"
               "elements:\n"
               "  - name: robot\n"
               "    type: gvs\n"
               "    gravity: [0, -9.81, 0]\n"
               "    links:\n"
               "      - name: left\n" + rod +
               "      - name: right\n"
               "        parent: base\n"
               "        offset_position: [0, 0.1, 0]\n" + rod +
               "constraints:\n"
               "  - type: gvs_loop_joints\n"
               "    element: robot\n"
               "    joints:\n"
               "      - {joint: revolute, planar: true, a: {link: left, at: end}, b: {link: base, offset_position: [0.5, 0, 0]}}\n"
               "      - {joint: revolute, planar: true, a: {link: right, at: end}, b: {link: base, offset_position: [0.5, 0.1, 0]}}\n";
    };
    const Count loose = one_step_of(scene("1.0e-5"));
    const Count tight = one_step_of(scene("1.0e-13"));
    check_allocation_free(loose, tight);
}
