// rayleigh_damping: coefficients from a damping ratio, parameter errors (through the scene
// validation, built with soma::testing::parameters_from_yaml), and the force's residual and
// Jacobian in a real scene (a discrete rod through the kernel's ElementJacobian) against finite
// differences and the rod's own energy. The decay of a cantilever's first mode at the requested
// ratio is tests/validation/test_rayleigh_damping.cpp.
#include "rayleigh_damping.hpp"

#include "plugin_loader.hpp"
#include "scene_file.hpp"
#include "simulation.hpp"

#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/parameters_from_yaml.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace soma;
using namespace soma::forces_basic;

namespace {

constexpr double kPi = 3.14159265358979323846;

RayleighDampingSettings settings_from(const std::string& yaml) {
    return rayleigh_damping_settings(
        soma::testing::parameters_from_yaml(TypeKind::force, rayleigh_damping_schema(), yaml, "damping.yaml"));
}

/// The InputError text of building settings from \p yaml ("" when it builds).
std::string error_of(const std::string& yaml) {
    try {
        settings_from(yaml);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("rayleigh coefficients reach the damping ratio at both frequencies", "[forces_basic][rayleigh]") {
    const RayleighCoefficients c = rayleigh_coefficients(0.02, 30.0, 50.0);
    const double w1 = 2 * kPi * 30.0, w2 = 2 * kPi * 50.0;
    CHECK(c.alpha == Approx(2 * 0.02 * w1 * w2 / (w1 + w2)).epsilon(1e-14));
    CHECK(c.beta == Approx(2 * 0.02 / (w1 + w2)).epsilon(1e-14));
    CHECK(rayleigh_damping_ratio(c, 30.0) == Approx(0.02).epsilon(1e-13));
    CHECK(rayleigh_damping_ratio(c, 50.0) == Approx(0.02).epsilon(1e-13));
    // Between the two, the ratio dips to 2 sqrt(w1 w2)/(w1 + w2) zeta at sqrt(f1 f2).
    CHECK(rayleigh_damping_ratio(c, std::sqrt(30.0 * 50.0)) ==
          Approx(0.02 * 2 * std::sqrt(w1 * w2) / (w1 + w2)).epsilon(1e-13));
    CHECK_THROWS_AS(rayleigh_coefficients(0.02, 50.0, 30.0), std::invalid_argument);
}

TEST_CASE("rayleigh_damping reads either form of its parameters", "[forces_basic][rayleigh]") {
    const RayleighDampingSettings direct = settings_from("{alpha: 0.5, elements: [beam]}");
    CHECK(direct.alpha == 0.5);
    CHECK(direct.beta == 0.0);
    CHECK(direct.elements == std::vector<std::string>{"beam"});
    const RayleighDampingSettings ratio = settings_from("{damping_ratio: 0.05, frequencies: [2, 8]}");
    const RayleighCoefficients c = rayleigh_coefficients(0.05, 2.0, 8.0);
    CHECK(ratio.alpha == c.alpha);
    CHECK(ratio.beta == c.beta);
    CHECK(ratio.elements.empty());
}

TEST_CASE("rayleigh_damping refuses bad parameters at the key", "[forces_basic][rayleigh][errors]") {
    using Catch::Matchers::Contains;
    CHECK_THAT(error_of("{damping_ratio: 0.02, frequencies: [50, 20]}"),
               Contains("damping.yaml:1:23: frequencies: f1 = 50 Hz must be below f2 = 20 Hz"));
    CHECK_THAT(error_of("{damping_ratio: 0.02, frequencies: [20, 20]}"), Contains("must be below f2 = 20 Hz"));
    CHECK_THAT(error_of("{damping_ratio: -0.02, frequencies: [20, 50]}"),
               Contains("damping.yaml:1:17: damping_ratio") && Contains("> 0"));
    CHECK_THAT(error_of("{damping_ratio: 2, frequencies: [20, 50]}"), Contains("damping_ratio") && Contains("< 1"));
    CHECK_THAT(error_of("{damping_ratio: 0.02, frequencies: [0, 50]}"), Contains("frequencies") && Contains("> 0"));
    CHECK_THAT(error_of("{damping_ratio: 0.02, frequencies: [20]}"), Contains("frequencies"));
    CHECK_THAT(error_of("{alpha: -1}"), Contains("damping.yaml:1:9: alpha") && Contains(">= 0"));
    CHECK_THAT(error_of("{beta: -1e-3}"), Contains("damping.yaml:1:8: beta") && Contains(">= 0"));
    CHECK_THAT(error_of("{alpha: 1, damping_ratio: 0.02, frequencies: [20, 50]}"),
               Contains("damping.yaml:1:12: damping_ratio: give either alpha and/or beta, or damping_ratio with "
                        "frequencies, not both"));
    CHECK_THAT(error_of("{damping_ratio: 0.02}"),
               Contains("damping.yaml:1:2: damping_ratio: needs `frequencies: [f1, f2]`"));
    CHECK_THAT(error_of("{frequencies: [20, 50]}"), Contains("damping.yaml:1:2: frequencies: needs `damping_ratio`"));
    CHECK_THAT(error_of("{elements: [beam]}"), Contains("no damping given: set alpha and/or beta"));
    CHECK_THAT(error_of("{damping_ratoi: 0.02, frequencies: [20, 50]}"),
               Contains("damping_ratoi") && Contains("did you mean 'damping_ratio'"));
    // A settings struct built in code is checked too.
    RayleighDampingSettings negative;
    negative.beta = -1.0;
    CHECK_THROWS_WITH(RayleighDamping(negative), Contains("rayleigh_damping: beta: must be >= 0 s, got -1"));
}

namespace {

/// A bent-capable rod: 7 nodes, the first two and edge 0 fixed, with Rayleigh damping.
std::unique_ptr<Simulation> rod_scene(const std::string& damping, const std::string& extra_elements = "") {
    const std::string text = R"(simulation: {duration: 1.0}
integrator: {type: implicit_euler, dt: 0.01}
elements:
  - name: rod
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 7}}
    cross_section: {circle: {radius: 2.0e-3}}
    material: {density: 1200, youngs_modulus: 1.0e7}
    fixed: {nodes: [0, 1], edges: [0]}
)" + extra_elements + "forces:\n  - " + damping + "\n";
    return std::make_unique<Simulation>(load_scene_text(text, "rayleigh.yaml"), builtin_registry());
}

/// The damping force of the scene (the last contributor), evaluated densely over all DOFs.
struct DenseDamping {
    explicit DenseDamping(Simulation& sim) : force(*sim.contributors().back()), dense(sim.dof_count()) {
        force.declare_pattern(dense.pattern());  // the scene is not stepped after this
    }
    std::pair<VectorX, Eigen::MatrixXd> evaluate(const State& start, const VectorX& q, const VectorX& v,
                                                 JacobianCoefficients c) {
        EvalContext context;
        context.t = start.t;
        context.dt = 0.01;
        context.q = &q;
        context.v = &v;
        context.a = &zero;
        context.step_start = &start;
        context.coefficients = c;
        zero = VectorX::Zero(q.size());
        return dense.evaluate(force, context);
    }
    Contributor& force;
    soma::testing::DenseAssembly dense;
    VectorX zero;
};

VectorX random_vector(Index n, unsigned seed, double scale) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX x(n);
    for (Index i = 0; i < n; ++i) x[i] = scale * u(rng);
    return x;
}

}  // namespace

TEST_CASE("rayleigh_damping: residual and Jacobian against finite differences in v", "[forces_basic][rayleigh]") {
    auto sim = rod_scene("{type: rayleigh_damping, alpha: 3.0, beta: 2.0e-3}");
    REQUIRE(sim->contributors().back()->name() == "rayleigh_damping");
    // A bent, moving committed state: the step starts here.
    State start = sim->state();
    start.q += random_vector(sim->dof_count(), 1, 2e-3);
    start.v = random_vector(sim->dof_count(), 2, 0.1);
    sim->commit(start);
    DenseDamping damping(*sim);
    const State& committed = sim->state();
    sim->contributors().back()->begin_step(committed);

    // The iterate (q, v) differs from the start; F depends on v only.
    const VectorX q = committed.q + random_vector(sim->dof_count(), 3, 1e-3);
    const VectorX v = random_vector(sim->dof_count(), 4, 0.2);
    const auto [F, J_v] = damping.evaluate(committed, q, v, {0.0, 1.0, 0.0});
    REQUIRE(F.norm() > 0.0);
    const Eigen::MatrixXd fd_v = soma::testing::finite_difference_jacobian(
        [&](const VectorX& u) { return damping.evaluate(committed, q, u, {0.0, 1.0, 0.0}).first; }, v, 1e-6);
    // F is linear in v: central differences are exact up to round-off (|F| / h * eps ~ 1e-10).
    CHECK(soma::testing::max_relative_error(J_v, fd_v) < 1e-7);
    // J = dF/dv exactly: F = J v.
    CHECK((F - J_v * v).norm() <= 1e-12 * F.norm());
    // D is frozen at the step start: no dependence on the iterate q or on a.
    const Eigen::MatrixXd fd_q = soma::testing::finite_difference_jacobian(
        [&](const VectorX& x) { return damping.evaluate(committed, x, v, {1.0, 0.0, 0.0}).first; }, q, 1e-6);
    CHECK(fd_q.cwiseAbs().maxCoeff() == 0.0);
    CHECK(damping.evaluate(committed, q, v, {1.0, 0.0, 1.0}).second.cwiseAbs().maxCoeff() == 0.0);
    // The weights scale the Jacobian: c_v = 0.25 gives a quarter of dF/dv.
    CHECK((damping.evaluate(committed, q, v, {0.3, 0.25, 1.0}).second - 0.25 * J_v).norm() <= 1e-14 * J_v.norm());
    // The rod assembles a symmetric Jacobian by default, and so is D.
    CHECK(sim->contributors().back()->symmetric_jacobian());
    CHECK((J_v - J_v.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * J_v.cwiseAbs().maxCoeff());
    // Zero at rest: equilibria are unchanged.
    CHECK(damping.evaluate(committed, q, VectorX::Zero(q.size()), {0.0, 1.0, 0.0}).first.norm() == 0.0);
}

TEST_CASE("rayleigh_damping: alpha M is the rod's mass, beta K its elastic Hessian, on every DOF",
          "[forces_basic][rayleigh]") {
    const double radius = 2.0e-3, density = 1200.0, length = 0.1;
    const double mass = density * kPi * radius * radius * length;
    SECTION("alpha M: a rigid translation feels alpha times the total mass") {
        auto sim = rod_scene("{type: rayleigh_damping, alpha: 3.0}");
        DenseDamping damping(*sim);
        const State& start = sim->state();
        VectorX v = VectorX::Zero(sim->dof_count());
        for (const auto& d : sim->find_element("rod")->geometry().point_dofs) v[d[0]] = 0.5;  // fixed nodes too
        const VectorX F = damping.evaluate(start, start.q, v, {0.0, 1.0, 0.0}).first;
        double fx = 0.0;
        for (const auto& d : sim->find_element("rod")->geometry().point_dofs) fx += F[d[0]];
        // Lumped mass: the node masses add up to the rod's mass (round-off only).
        CHECK(fx == Approx(3.0 * mass * 0.5).epsilon(1e-12));
    }
    SECTION("beta K: no force on rigid translation, and v.K.v is the second derivative of the energy") {
        auto sim = rod_scene("{type: rayleigh_damping, beta: 1.0}");
        DenseDamping damping(*sim);
        const State& start = sim->state();  // straight and at rest: K is the Hessian of the energy
        VectorX translation = VectorX::Zero(sim->dof_count());
        for (const auto& d : sim->find_element("rod")->geometry().point_dofs) translation[d[2]] = 1.0;
        const VectorX v = random_vector(sim->dof_count(), 5, 1.0);
        const auto [F, D] = damping.evaluate(start, start.q, v, {0.0, 1.0, 0.0});
        // K includes the constrained DOFs' columns: a translation of every node (fixed ones too)
        // is no deformation.
        CHECK((D * translation).norm() <= 1e-9 * D.norm());
        // v.K.v against the central second difference of the rod's energy along v (truncation
        // O(h^2 E''''), round-off eps E / h^2 with E(q0) = 0): 1e-5 relative is ample.
        const Element& rod = *sim->find_element("rod");
        auto energy = [&](double s) {
            const VectorX q = start.q + s * v;
            EvalContext c;
            c.q = &q;
            c.v = &damping.zero;
            c.a = &damping.zero;
            c.step_start = &start;
            return rod.potential_energy(c);
        };
        const double h = 1e-5;
        const double second = (energy(h) - 2.0 * energy(0.0) + energy(-h)) / (h * h);
        CHECK(v.dot(F) == Approx(second).epsilon(1e-5));
    }
}

TEST_CASE("rayleigh_damping: unknown elements are refused at the key", "[forces_basic][rayleigh][errors]") {
    CHECK_THROWS_WITH(rod_scene("{type: rayleigh_damping, alpha: 1.0, elements: [rood]}"),
                      Catch::Matchers::Contains("rayleigh.yaml:11:42: forces[0].elements") &&
                          Catch::Matchers::Contains("rood"));
}
