// Unit test of the anchor_spring force, as a plugin author writes one (docs/plugin-guide.md §6):
// the force is made by the plugin's own factory from YAML parameters (validated as in a scene),
// bound to a small test scene, and its residual, Jacobian and energy are checked against
// finite differences with the SDK's testing helpers.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <soma/soma.hpp>
#include <soma/testing/dense_assembly.hpp>
#include <soma/testing/parameters_from_yaml.hpp>
#include <soma/testing/test_scene.hpp>


// The plugin's entry point (anchor_spring.cpp is compiled into this test).
extern "C" void soma_register_plugin(soma::Registry& registry);

namespace {

using namespace soma;

/// Free points in space: an element with no forces of its own, global DOFs 0 .. 3n-1.
class Points final : public Element {
public:
    Points(std::string name, std::vector<Vec3> x) : x_(std::move(x)) { set_name(std::move(name)); }
    Index dof_count() const override { return 3 * static_cast<Index>(x_.size()); }
    void initial_state(VectorX& q, VectorX& v) const override {
        q.resize(dof_count());
        v = VectorX::Zero(dof_count());
        for (std::size_t i = 0; i < x_.size(); ++i) q.segment<3>(3 * static_cast<Index>(i)) = x_[i];
    }
    std::vector<DofGroup> dof_groups() const override {
        return {DofGroup{"nodes", 3, static_cast<Index>(x_.size()), {"x", "y", "z"}}};
    }
    Index group_dof(const std::string&, Index item, int c) const override { return 3 * item + c; }
    std::string describe_dof(Index local) const override { return "dof " + std::to_string(local); }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}

protected:
    void on_bind() override {
        for (Index i = 0; i < static_cast<Index>(x_.size()); ++i) {
            geometry_.point_dofs.push_back({global_dof(3 * i), global_dof(3 * i + 1), global_dof(3 * i + 2)});
            geometry_.point_mass.push_back(1.0);
        }
    }

private:
    std::vector<Vec3> x_;
    Geometry geometry_;
};

EvalContext context_at(const VectorX& q, const VectorX& zero, JacobianCoefficients c) {
    EvalContext context;
    context.q = &q;
    context.v = &zero;
    context.a = &zero;
    context.coefficients = c;
    return context;
}

}  // namespace

TEST_CASE("anchor_spring from YAML: residual, Jacobian and energy against finite differences") {
    const testing::RegisteredTypes types(soma_register_plugin);
    std::unique_ptr<Force> spring = types.make_force("anchor_spring", "{element: beam, nodes: [0, -1], stiffness: 4.7}");

    Points beam("beam", {Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0.2, 0, 0)});
    const auto scene = testing::TestScene::bound_in_order({&beam});  // beam at DOFs 0 .. 8
    spring->bind(scene);
    testing::DenseAssembly dense(beam.dof_count());
    spring->declare_pattern(dense.pattern());

    // A displaced configuration: node 2 moved by (0.01, -0.02, 0.03) from its anchor.
    VectorX q = scene.state().q;
    q.segment<3>(6) += Vec3(0.01, -0.02, 0.03);
    q.segment<3>(3) += Vec3(0.5, 0.5, 0.5);  // node 1 is not anchored: no force on it
    const VectorX zero = VectorX::Zero(q.size());
    const auto [F, J] = dense.evaluate(*spring, context_at(q, zero, {1.0, 0.0, 0.0}));

    // The physics: F = k (x - x_anchor) on the anchored nodes only.
    CHECK(F.segment<3>(6).isApprox(4.7 * Vec3(0.01, -0.02, 0.03), 1e-14));
    CHECK(F.segment<3>(0).norm() == 0.0);
    CHECK(F.segment<3>(3).norm() == 0.0);

    // The Jacobian (c_q = 1) against central differences of the residual; F is linear in q, so
    // only round-off remains (eps |F| / h ~ 1e-10).
    auto residual = [&](const VectorX& x) { return dense.evaluate(*spring, context_at(x, zero, {}), false).first; };
    const Eigen::MatrixXd J_fd = testing::finite_difference_jacobian(residual, q, 1e-6);
    CHECK(testing::max_relative_error(J, J_fd) < 1e-8);
    // The weight: J is c_q dF/dq, so c_q = 0.25 gives a quarter.
    CHECK(dense.evaluate(*spring, context_at(q, zero, {0.25, 1.0, 1.0})).second.isApprox(0.25 * J));

    // The residual is the gradient of the energy (central differences of a quadratic: exact up to
    // round-off, eps E / h ~ 1e-10 relative).
    auto energy = [&](const VectorX& x) { return spring->potential_energy(context_at(x, zero, {})); };
    const VectorX gradient_fd = testing::finite_difference_gradient(energy, q, 1e-6);
    CHECK(testing::max_relative_error(F, gradient_fd) < 1e-8);
}

TEST_CASE("anchor_spring's parameter errors point at the key, as in a scene") {
    const testing::RegisteredTypes types(soma_register_plugin);
    using Catch::Matchers::Contains;
    // The schema's checks (range, unknown keys with a suggestion, missing keys).
    CHECK_THROWS_WITH(types.make_force("anchor_spring", "{element: beam, nodes: [-1], stiffness: -1}"),
                      Contains("<test>:1:41: stiffness") && Contains("> 0"));
    CHECK_THROWS_WITH(types.make_force("anchor_spring", "{element: beam, nodes: [-1], stifness: 1}"),
                      Contains("stifness") && Contains("did you mean 'stiffness'"));
    CHECK_THROWS_WITH(types.make_force("anchor_spring", "{element: beam, stiffness: 1}"), Contains("nodes"));
    // The force's own checks in bind(), through Parameters::fail.
    Points beam("beam", {Vec3(0, 0, 0), Vec3(0.1, 0, 0)});
    const auto scene = testing::TestScene::bound_in_order({&beam});  // beam at DOFs 0 .. 8
    CHECK_THROWS_WITH(types.make_force("anchor_spring", "{element: bean, nodes: [-1], stiffness: 1}")->bind(scene),
                      Contains("<test>:1:2: element: no element named 'bean'"));
    CHECK_THROWS_WITH(types.make_force("anchor_spring", "{element: beam, nodes: [5], stiffness: 1}")->bind(scene),
                      Contains("nodes: node 5 is out of range"));
    // The Parameters alone, e.g. to construct a force class directly.
    const Parameters p = types.parameters(TypeKind::force, "anchor_spring", "{element: beam, nodes: [1], stiffness: 2}");
    CHECK(p.real("stiffness") == 2.0);
    CHECK(p.type_name() == "anchor_spring");
}
