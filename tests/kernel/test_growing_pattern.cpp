// Stencils that change between steps (the kernel mechanism contact uses): the assembled pattern
// is a union that only grows, and the linear solver analyzes it again only when a new nonzero
// appears. A test force switches its springs every step; the number of analyses is counted and
// every step is checked against a dense solve of the same linear system.
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

using namespace soma;

namespace {

constexpr int kMasses = 5;        // DOFs 0..4; DOF 4 is fixed by the scene
constexpr double kStiffness = 10.0;  // N/m of each spring
constexpr double kAlpha = 0.5;    // 1/s, rayleigh_damping's mass-proportional coefficient
constexpr double kDt = 0.1;       // s

/// kMasses unit masses on a line, one DOF each (x_i = i at rest, no velocity).
class MassesOnALine final : public Element {
public:
    Index dof_count() const override { return kMasses; }
    void initial_state(VectorX& q, VectorX& v) const override {
        for (Index i = 0; i < kMasses; ++i) q[i] = static_cast<double>(i);
        v.setZero();
    }
    std::vector<DofGroup> dof_groups() const override { return {{"nodes", 1, kMasses, {"x"}}}; }
    Index group_dof(const std::string&, Index item, int) const override { return item; }
    std::string describe_dof(Index local) const override { return "mass " + std::to_string(local); }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& c) const override {
        double e = 0.0;
        for (Index i = 0; i < kMasses; ++i) e += 0.5 * std::pow((*c.v)[global_dof(i)], 2);
        return e;
    }
    void declare_pattern(PatternBuilder& p) override {
        for (Index i = 0; i < kMasses; ++i) {
            const Index d = global_dof(i);
            stencils_[i] = p.add_stencil(std::span<const Index>(&d, 1));
        }
    }
    void add_residual_and_jacobian(const EvalContext& c, Assembly& a) override {
        for (Index i = 0; i < kMasses; ++i) {
            a.add_residual(stencils_[i], VecN<1>::Constant((*c.a)[global_dof(i)]));
            a.add_jacobian(stencils_[i], MatN<1>::Constant(1.0), c.coefficients.c_a);
        }
    }

protected:
    void on_bind() override {}

private:
    Geometry geometry_;
    StencilId stencils_[kMasses] = {};
};

using Pair = std::pair<Index, Index>;

/// The springs (pairs of masses) present during step k: each step changes them.
const std::vector<std::vector<Pair>>& schedule() {
    static const std::vector<std::vector<Pair>> s{
        {{0, 1}},            // step 0: declared when the scene is built
        {{1, 2}},            // a new pair: analysis
        {{0, 1}},            // back to an old pair: none
        {},                  // every spring vanished: none
        {{0, 1}, {1, 2}},    // both old pairs at once: none
        {{3, 4}},            // new, but mass 4 is fixed: its only free entry is the diagonal (3, 3)
        {{2, 3}},            // a new pair: analysis
        {{1, 2}, {0, 1}},    // old pairs: none
    };
    return s;
}

/// Zero-rest-length springs of stiffness kStiffness on two-DOF stencils: the gradient of
/// k/2 (x_i - x_j)^2 and its Hessian.
void add_springs(const std::vector<StencilId>& stencils, const EvalContext& c, Assembly& a) {
    MatN<2> K;
    K << 1.0, -1.0, -1.0, 1.0;
    K *= kStiffness;
    for (const StencilId id : stencils) {
        const Index* d = a.dofs(id);
        const VecN<2> x((*c.q)[d[0]], (*c.q)[d[1]]);
        a.add_residual(id, K * x);
        a.add_jacobian(id, K, c.coefficients.c_q);
    }
}

/// One step of kDt from the simulation's state, which it returns.
State take_step(Simulation& sim) {
    const State before = sim.state();
    sim.begin_attempt();
    const StepReport report = sim.integrator().step(sim, kDt);
    REQUIRE(report.converged);
    return before;
}

/// Springs of zero rest length between the masses of schedule()[step], the step found from
/// the start time of the step (t = step * kDt).
class SwitchingSprings final : public Force {
public:
    void bind(const SceneView& scene) override { element_ = scene.elements()[0]; }
    void begin_step(const State& start) override {
        const auto step = static_cast<std::size_t>(std::lround(start.t / kDt));
        pairs_ = schedule()[std::min(step, schedule().size() - 1)];
    }
    bool pattern_changed() const override { return pairs_ != declared_; }
    void declare_pattern(PatternBuilder& p) override {
        ++declarations_;
        declared_ = pairs_;
        ids_.clear();
        for (const auto& [i, j] : declared_) {
            const Index dofs[2] = {element_->global_dof(i), element_->global_dof(j)};
            ids_.push_back(p.add_stencil(dofs));
        }
    }
    void add_residual_and_jacobian(const EvalContext& c, Assembly& a) override { add_springs(ids_, c, a); }
    int declarations() const { return declarations_; }

private:
    const Element* element_ = nullptr;
    std::vector<Pair> pairs_ = schedule()[0], declared_;
    std::vector<StencilId> ids_;
    int declarations_ = 0;
};

/// The same springs, declared the way imc_contact declares its pairs: a pair declared once stays
/// declared (the union), and a step that brings new pairs declares only those, after the others
/// (Contributor::declare_added_stencils), when the kernel lets it.
class AppendingSprings final : public Force {
public:
    void bind(const SceneView& scene) override { element_ = scene.elements()[0]; }
    void begin_step(const State& start) override {
        const auto step = static_cast<std::size_t>(std::lround(start.t / kDt));
        pairs_ = schedule()[std::min(step, schedule().size() - 1)];
        step_ids_.clear();
        for (const Pair& p : pairs_) step_ids_.push_back(find(p));
    }
    bool pattern_changed() const override {
        return std::any_of(step_ids_.begin(), step_ids_.end(), [](StencilId id) { return id < 0; });
    }
    void declare_pattern(PatternBuilder& p) override {
        ++full_declarations_;
        declared_.clear();
        ids_.clear();
        add_new(p);
    }
    bool declare_added_stencils(PatternBuilder& p) override {
        ++added_declarations_;
        add_new(p);
        return true;
    }
    void add_residual_and_jacobian(const EvalContext& c, Assembly& a) override { add_springs(step_ids_, c, a); }
    int full_declarations() const { return full_declarations_; }
    int added_declarations() const { return added_declarations_; }

private:
    StencilId find(const Pair& pair) const {
        for (std::size_t k = 0; k < declared_.size(); ++k)
            if (declared_[k] == pair) return ids_[k];
        return -1;
    }
    void add_new(PatternBuilder& p) {
        for (std::size_t k = 0; k < pairs_.size(); ++k) {
            if (find(pairs_[k]) >= 0) continue;
            const Index dofs[2] = {element_->global_dof(pairs_[k].first), element_->global_dof(pairs_[k].second)};
            declared_.push_back(pairs_[k]);
            ids_.push_back(p.add_stencil(dofs));
        }
        for (std::size_t k = 0; k < pairs_.size(); ++k) step_ids_[k] = find(pairs_[k]);
    }

    const Element* element_ = nullptr;
    std::vector<Pair> pairs_ = schedule()[0], declared_;
    std::vector<StencilId> ids_, step_ids_ = std::vector<StencilId>(schedule()[0].size(), -1);
    int full_declarations_ = 0, added_declarations_ = 0;
};

/// A compliant tie between masses 0 and 1, C = x_1 - x_0 - 1 (zero at rest), with
/// C + kTieCompliance lambda = 0: the spring of stiffness 1/kTieCompliance and rest length 1
/// (constraint.hpp). It puts constraint stencils into the tables.
constexpr double kTieCompliance = 0.05;  // m/N: a 20 N/m spring
class TestTie final : public Constraint {
public:
    void bind(const SceneView& scene) override {
        dofs_ = {scene.elements()[0]->global_dof(0), scene.elements()[0]->global_dof(1)};
    }
    Index row_count() const override { return 1; }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext& c, const double*, ConstraintEvaluation& out) const override {
        out.value[0] = (*c.q)[dofs_[1]] - (*c.q)[dofs_[0]] - 1.0;
        out.force_jacobian << -1.0, 1.0;
        out.position_jacobian << -1.0, 1.0;
        out.curvature.setZero();
    }
    double compliance(Index) const override { return kTieCompliance; }

private:
    std::vector<Index> dofs_;
};

const TypeRegistry& registry() {
    static TypeRegistry* r = [] {
        auto* reg = new TypeRegistry();
        static PluginLoader loader(*reg);
        loader.load_defaults();
        reg->set_current_provider("test", "");
        reg->add_element(ParameterSchema("test_masses_on_a_line", "test-only unit masses with one DOF each"),
                         [](const Parameters&) { return std::make_unique<MassesOnALine>(); });
        reg->add_force(ParameterSchema("test_switching_springs", "test-only springs that change every step"),
                       [](const Parameters&) { return std::make_unique<SwitchingSprings>(); });
        reg->add_force(ParameterSchema("test_appending_springs", "test-only springs declared once, new ones appended"),
                       [](const Parameters&) { return std::make_unique<AppendingSprings>(); });
        reg->add_constraint(ParameterSchema("test_tie", "test-only compliant tie of masses 0 and 1"),
                            [](const Parameters&) { return std::make_unique<TestTie>(); });
        return reg;
    }();
    return *r;
}

/// The state after one implicit Euler step from `s` with the springs `pairs`, each declared by
/// `spring_forces` forces, and mass damping alpha: the residual M a + alpha M v + K q with M = I,
/// v = v0 + h a, q = q0 + h v is linear in a, so
/// (I (1 + h alpha) + h^2 K) a = -(alpha v0 + K (q0 + h v0)) on the free DOFs (a = 0 on DOF 4).
VectorX expected_q_after_step(const State& s, const std::vector<Pair>& pairs, int spring_forces, double alpha,
                              bool tie = false) {
    const double k = spring_forces * kStiffness;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(kMasses, kMasses);
    for (const auto& [i, j] : pairs) {
        K(i, i) += k;
        K(j, j) += k;
        K(i, j) -= k;
        K(j, i) -= k;
    }
    // TestTie: k_t/2 (x_1 - x_0 - 1)^2 has gradient K_t x + k_t (e_0 - e_1).
    VectorX f_rest = VectorX::Zero(kMasses);
    if (tie) {
        const double kt = 1.0 / kTieCompliance;
        K(0, 0) += kt;
        K(1, 1) += kt;
        K(0, 1) -= kt;
        K(1, 0) -= kt;
        f_rest[0] = kt;
        f_rest[1] = -kt;
    }
    const Eigen::MatrixXd A = (1.0 + kDt * alpha) * Eigen::MatrixXd::Identity(kMasses, kMasses) + kDt * kDt * K;
    const VectorX b = -(alpha * s.v + K * (s.q + kDt * s.v) + f_rest);
    constexpr int f = kMasses - 1;  // free DOFs 0..3
    VectorX a = VectorX::Zero(kMasses);
    a.head(f) = A.topLeftCorner(f, f).ldlt().solve(b.head(f));
    const VectorX v = s.v + kDt * a;
    return s.q + kDt * v;
}

}  // namespace

TEST_CASE("stencils that change every step: analysis only when a new pair of DOFs appears",
          "[kernel][assembly][pattern]") {
    struct Case {
        std::string solver;
        int spring_forces;
        bool damping;
    };
    // Springs then rayleigh_damping (whose stencils mirror the element's): the springs' first
    // new block is appended after the damping's, later ones replace it at the end. Two spring
    // forces without damping: both change at every step; the one whose block is last replaces it
    // in place, the other leaves its old block unused and appends a new one, until the unused
    // entries would outnumber the used ones and everyone declares again (compaction, with the
    // pattern kept).
    for (const Case& c : {Case{"eigen_ldlt", 1, true}, Case{"eigen_lu", 1, true}, Case{"eigen_cg", 1, true},
                          Case{"eigen_ldlt", 2, false}}) {
        INFO(c.solver << ", " << c.spring_forces << " spring forces, damping " << c.damping);
        std::string text =
            "simulation: {duration: 1.0}\n"
            "integrator: {type: implicit_euler, dt: 0.1, newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 0}}\n"
            "linear_solver: {type: " + c.solver + (c.solver == "eigen_cg" ? ", tolerance: 1.0e-14" : "") + "}\n"
            "elements: [{name: line, type: test_masses_on_a_line, fixed: {nodes: [4]}}]\n"
            "forces:\n";
        for (int f = 0; f < c.spring_forces; ++f) text += "  - {type: test_switching_springs, name: springs" + std::to_string(f) + "}\n";
        if (c.damping) text += "  - {type: rayleigh_damping, alpha: 0.5}\n";
        Simulation sim(load_scene_text(text, "pattern.yaml"), registry());
        std::vector<const SwitchingSprings*> springs;
        for (int f = 0; f < c.spring_forces; ++f)
            springs.push_back(&dynamic_cast<const SwitchingSprings&>(*sim.contributors()[1 + f]));
        CHECK(sim.timings().analyses == 1);  // the pattern built with the scene

        // Analyses expected after each step (schedule() says why). Stale stencils left in the
        // tables count as written, so the union is kept: with two spring forces the growth at
        // step 6 finds (0, 1) and (1, 2) still written by the first force's old blocks, and the
        // compaction at step 7 keeps the pattern, so step 7's old pairs need no analysis.
        const std::vector<long> analyses{1, 2, 2, 2, 2, 2, 3, 3};
        for (std::size_t k = 0; k < schedule().size(); ++k) {
            INFO("step " << k);
            const State before = take_step(sim);
            CHECK(sim.timings().analyses == analyses[k]);
            // Step 0 keeps the springs declared with the scene; every later step declares them
            // again, once: also at a compaction (steps 4 and 7 with two forces), which is
            // decided before anyone declares.
            for (const SwitchingSprings* s : springs) CHECK(s->declarations() == static_cast<int>(k) + 1);
            // The step solves the system of this step's springs only: a vanished spring's
            // entries are zero. The system is linear, so Newton's answer is the dense solve's up
            // to round-off of a condition number ~ 1 system with |q| ~ 4 (and CG stops at a
            // relative residual of 1e-14).
            const VectorX expected = expected_q_after_step(before, schedule()[k], c.spring_forces, c.damping ? kAlpha : 0.0);
            CHECK((sim.state().q - expected).cwiseAbs().maxCoeff() < 1e-11);
        }
    }
}

TEST_CASE("a contributor that appends its new stencils: only those are placed, the others keep their ids",
          "[kernel][assembly][pattern]") {
    // AppendingSprings keeps every pair it has declared. New pairs appear at steps 1, 5 (only the
    // diagonal (3, 3) is free: no new nonzero) and 6. Alone, its stencils are the last in the
    // tables and each of those steps appends (declare_added_stencils). Before rayleigh_damping,
    // whose stencils follow, the kernel cannot append: step 1 declares everything again at the
    // end of the tables (declare_pattern, which declares this step's pairs only), and from then
    // on it is last and appends: step 2's pair (0, 1) again, no longer declared (but still in the
    // kernel's pattern: no analysis), then steps 5 and 6. With a constraint in the scene it
    // appends from the start: the constraints' stencils come before every contributor's (the
    // tie's entries (0, 1) are in the pattern from the start, so the analyses do not change).
    enum class Variant { alone, damping, tie };
    for (const Variant variant : {Variant::alone, Variant::damping, Variant::tie}) {
        const bool damping = variant == Variant::damping, tie = variant == Variant::tie;
        INFO("variant " << static_cast<int>(variant));
        std::string text =
            "simulation: {duration: 1.0}\n"
            "integrator: {type: implicit_euler, dt: 0.1, newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 0}}\n"
            "linear_solver: {type: eigen_ldlt}\n"
            "elements: [{name: line, type: test_masses_on_a_line, fixed: {nodes: [4]}}]\n"
            "forces:\n  - {type: test_appending_springs}\n";
        if (damping) text += "  - {type: rayleigh_damping, alpha: 0.5}\n";
        if (tie) text += "constraints: [{type: test_tie}]\n";
        Simulation sim(load_scene_text(text, "pattern.yaml"), registry());
        const auto& springs = dynamic_cast<const AppendingSprings&>(*sim.contributors()[1]);
        const std::vector<long> analyses{1, 2, 2, 2, 2, 2, 3, 3};
        const std::vector<int> full = damping ? std::vector<int>{1, 2, 2, 2, 2, 2, 2, 2} : std::vector<int>(8, 1);
        const std::vector<int> added = damping ? std::vector<int>{0, 0, 1, 1, 1, 2, 3, 3} : std::vector<int>{0, 1, 1, 1, 1, 2, 3, 3};
        for (std::size_t k = 0; k < schedule().size(); ++k) {
            INFO("step " << k);
            const State before = take_step(sim);
            CHECK(sim.timings().analyses == analyses[k]);
            CHECK(springs.full_declarations() == full[k]);
            CHECK(springs.added_declarations() == added[k]);
            // Appended stencils placed right and the earlier ones remapped when the pattern grew:
            // the step solves this step's springs exactly (as above: round-off of |q| ~ 4; the
            // tie's 20 N/m keeps the system's condition number near 1).
            const VectorX expected = expected_q_after_step(before, schedule()[k], 1, damping ? kAlpha : 0.0, tie);
            CHECK((sim.state().q - expected).cwiseAbs().maxCoeff() < 1e-11);
        }
    }
}
