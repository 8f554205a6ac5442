// The time loop's step retry: a failed attempt is rejected, retried with a smaller dt, and dt
// grows back; when retries run out the run stops with a diagnosis, and completed steps stay.
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;
using Catch::Matchers::Contains;

namespace {

/// A unit mass pushed by a unit force (a = 1) whose residual is NaN when one step moves it by
/// more than `max_jump`: a stand-in for a model that breaks down on too large a step. From rest,
/// a step of size h at time t moves it by about t h, so steps must shrink as it speeds up.
class FragileParticle final : public Element {
public:
    explicit FragileParticle(double max_jump) : max_jump_(max_jump) {}
    Index dof_count() const override { return 1; }
    void initial_state(VectorX& q, VectorX& v) const override { q[0] = v[0] = 0.0; }
    std::vector<DofGroup> dof_groups() const override { return {{"nodes", 1, 1, {"x"}}}; }
    Index group_dof(const std::string&, Index, int) const override { return 0; }
    std::string describe_dof(Index) const override { return "particle x"; }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& c) const override { return 0.5 * std::pow((*c.v)[global_dof(0)], 2); }
    void declare_pattern(PatternBuilder& p) override {
        const Index d = global_dof(0);
        stencil_ = p.add_stencil(std::span<const Index>(&d, 1));
    }
    void add_residual_and_jacobian(const EvalContext& c, Assembly& a) override {
        const Index d = global_dof(0);
        const double jump = std::abs((*c.q)[d] - c.step_start->q[d]);
        VecN<1> f;
        f(0) = jump > max_jump_ ? std::nan("") : (*c.a)[d] - 1.0;
        a.add_residual(stencil_, f);
        a.add_jacobian(stencil_, MatN<1>::Constant(1.0), c.coefficients.c_a);
    }
    void reject_step() override { ++rejections_seen_; }
    int rejections_seen() const { return rejections_seen_; }

protected:
    void on_bind() override {}

private:
    double max_jump_;
    Geometry geometry_;
    StencilId stencil_ = 0;
    int rejections_seen_ = 0;
};

std::unique_ptr<Simulation> build(const std::string& adaptive, double max_jump) {
    static TypeRegistry* registry = [] {
        auto* r = new TypeRegistry();
        static PluginLoader loader(*r);
        loader.load_defaults();
        ParameterSchema schema("test_fragile_particle", "test-only particle that fails large steps");
        schema.real("max_jump", "largest displacement per step").fallback(1.0);
        r->set_current_provider("test", "");
        r->add_element(std::move(schema),
                       [](const Parameters& p) { return std::make_unique<FragileParticle>(p.real("max_jump")); });
        return r;
    }();
    const std::string text = "simulation: {duration: 1.0}\n"
                             "integrator: {type: implicit_euler, dt: 0.1, adaptive: " + adaptive + "}\n"
                             "elements: [{name: p, type: test_fragile_particle, max_jump: " + std::to_string(max_jump) + "}]\n";
    return std::make_unique<Simulation>(load_scene_text(text, "retry.yaml"), *registry);
}

RunResult run(Simulation& sim) {
    RunOptions options;
    options.output_directory = std::filesystem::temp_directory_path() / "soma-retry-test";
    options.progress = false;
    return run_simulation(sim, options);
}

}  // namespace

TEST_CASE("failed steps are retried with a smaller dt, which grows back", "[kernel][retry]") {
    // With max_jump 0.06 a step h at time t (velocity ~t) fails once t h + h^2 > 0.06: dt = 0.1
    // works until t ~ 0.5, then halving is needed, and growth back to 0.1 fails again.
    auto sim = build("{shrink: 0.5, grow: 2.0, grow_after: 2, max_retries: 8}", 0.06);
    const RunResult result = run(*sim);
    INFO(result.diagnosis);
    REQUIRE(result.summary.completed);
    CHECK(sim->state().t == 1.0);                       // ends exactly at the end time
    CHECK(result.summary.retries > 0);
    CHECK(result.summary.steps > 10);                    // more steps than at the nominal dt
    const auto& particle = dynamic_cast<const FragileParticle&>(*sim->elements()[0]);
    CHECK(particle.rejections_seen() == result.summary.retries);  // every failure was rejected
    // Implicit Euler with a = 1 exactly: v(1) = 1 whatever the step sizes.
    CHECK(sim->state().v[0] == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a run stops with a diagnosis when retries are exhausted or disabled", "[kernel][retry][errors]") {
    SECTION("retries exhausted") {
        auto sim = build("{max_retries: 2}", 1e-6);
        const RunResult result = run(*sim);
        CHECK_FALSE(result.summary.completed);
        CHECK(result.summary.steps == 0);
        CHECK_THAT(result.diagnosis, Contains("the residual is not finite (NaN or infinity)") &&
                                         Contains("at p particle x") &&
                                         Contains("gave up after 2 retries (dt reduced from 0.1 to 0.025 s)"));
    }
    SECTION("retries disabled") {
        auto sim = build("{enabled: false}", 0.06);
        const RunResult result = run(*sim);
        CHECK_FALSE(result.summary.completed);
        CHECK(result.summary.steps > 0);  // the steps before the failure stand
        CHECK(result.summary.retries == 0);
        CHECK(sim->state().t > 0.0);
        CHECK_THAT(result.diagnosis, Contains("not finite") && !Contains("gave up"));
    }
}

TEST_CASE("after failed attempts the retried steps assemble every term correctly", "[kernel][retry]") {
    // A soft cantilever loaded by gravity and a tip load, solved by statics: the equilibrium at
    // full load does not depend on how the load was stepped. With 3 Newton iterations allowed
    // the single full-load step fails (each failure also runs the diagnosis, which evaluates
    // every term separately) and the load is applied in smaller steps; the result must equal
    // the one-step solve with enough iterations.
    auto scene = [](const std::string& newton) {
        return "simulation: {duration: 1.0}\n"
               "integrator: {type: statics, dt: 1.0, ramp_time: 1.0, newton: " + newton + "}\n"
               "elements:\n"
               "  - {name: beam, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 11}},\n"
               "     cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1200, youngs_modulus: 2.0e6},\n"
               "     fixed: {nodes: [0, 1], edges: [0]}}\n"
               "forces:\n"
               "  - {type: gravity}\n"
               "  - {type: point_load, element: beam, nodes: [-1], force: [0, 1.0e-4, -2.0e-4]}\n"
               "  - {type: viscous_drag, viscosity: 1.0}\n";
    };
    auto retried = std::make_unique<Simulation>(
        load_scene_text(scene("{max_iterations: 3, line_search: false, absolute_tolerance: 1.0e-12}"), "a.yaml"),
        builtin_registry());
    auto direct = std::make_unique<Simulation>(
        load_scene_text(scene("{max_iterations: 100, absolute_tolerance: 1.0e-12}"), "b.yaml"), builtin_registry());
    const RunResult r1 = run(*retried);
    const RunResult r2 = run(*direct);
    INFO(r1.diagnosis << r2.diagnosis);
    REQUIRE(r1.summary.completed);
    REQUIRE(r2.summary.completed);
    CHECK(r1.summary.retries > 0);
    CHECK(r2.summary.retries == 0);
    const auto& tip = retried->find_element("beam")->geometry().point_dofs.back();
    for (int c = 0; c < 3; ++c) {
        // Both converged to |F| <= 1e-12 N on a structure whose stiffness is >= ~1e-3 N/m:
        // positions agree to ~1e-9 m.
        CHECK(retried->state().q[tip[c]] == Approx(direct->state().q[tip[c]]).margin(1e-8));
    }
    CHECK(std::abs(direct->state().q[tip[2]]) > 1e-3);  // a large deflection, not a trivial one
}
