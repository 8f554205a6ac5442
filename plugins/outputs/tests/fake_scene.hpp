#pragma once
// A scene the observers can read without the kernel: three small elements (a rod with edges, a
// shell patch with a triangle and one loose point, a single-point body) and one force, with a
// state the tests change step by step.

#include "soma/contact_constraint.hpp"
#include "soma/contributor.hpp"
#include "soma/element.hpp"
#include "soma/testing/test_scene.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace soma::outputs::testing {

/// An element with `points` nodes of three DOFs each; geometry tables as given.
class FakeElement final : public Element {
public:
    FakeElement(std::string name, Index points, std::vector<std::array<Index, 2>> edges,
                std::vector<std::array<Index, 3>> triangles, std::vector<double> radius)
        : points_(points) {
        set_name(std::move(name));
        geometry_.edges = std::move(edges);
        geometry_.triangles = std::move(triangles);
        geometry_.point_radius = std::move(radius);
    }

    Index dof_count() const override { return 3 * points_; }
    void initial_state(VectorX& q, VectorX& v) const override {
        q = VectorX::Zero(dof_count());
        v = VectorX::Zero(dof_count());
    }
    std::vector<DofGroup> dof_groups() const override { return {{"nodes", 3, points_, {"x", "y", "z"}}}; }
    Index group_dof(const std::string&, Index item, int component) const override { return 3 * item + component; }
    std::string describe_dof(Index local) const override { return "node " + std::to_string(local / 3); }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}

protected:
    // Like a real element: point DOFs are known only once the kernel has numbered them.
    void on_bind() override {
        geometry_.point_dofs.clear();
        for (Index p = 0; p < points_; ++p)
            geometry_.point_dofs.push_back({global_dof(3 * p), global_dof(3 * p + 1), global_dof(3 * p + 2)});
    }

private:
    Index points_;
    Geometry geometry_;
};

/// A force: only its name, potential energy and statistics matter to observers. It reports one
/// statistic, `twice_q0`: 2 q[0] at the state it is given.
class FakeForce final : public Contributor {
public:
    explicit FakeForce(std::string name) { set_name(std::move(name)); }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}
    std::vector<TermStatistic> statistics() const override { return {{"twice_q0", "m", "2 q[0]"}}; }
    double statistic(std::size_t, const EvalContext& context) const override { return 2.0 * (*context.q)[0]; }
};

/// A body with an orientation, like a rigid body: DOFs 0-2 a position, 3-5 the angular velocity
/// (body axes) of a unit-quaternion manifold block.
class FakeOrientedBody final : public Element {
public:
    explicit FakeOrientedBody(std::string name) { set_name(std::move(name)); }

    Index dof_count() const override { return 6; }
    void initial_state(VectorX& q, VectorX& v) const override {
        q = VectorX::Zero(6);
        v = VectorX::Zero(6);
    }
    std::vector<DofGroup> dof_groups() const override { return {{"nodes", 3, 1, {"x", "y", "z"}}}; }
    Index group_dof(const std::string&, Index, int component) const override { return component; }
    std::string describe_dof(Index local) const override { return "dof " + std::to_string(local); }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    std::vector<ManifoldBlock> manifold_blocks() const override { return {{3, 3, 4, "orientation"}}; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}

protected:
    void on_bind() override { geometry_.point_dofs = {{global_dof(0), global_dof(1), global_dof(2)}}; }

private:
    Geometry geometry_;
};

/// A contact constraint whose contacts and forces the test sets (as ncp_contact and the kernel
/// would after a step).
class FakeContacts final : public ContactConstraint {
public:
    explicit FakeContacts(std::string name) { set_name(std::move(name)); }
    void bind(const SceneView&) override {}
    void detect(const SceneView&, double, std::span<const SolvedStep>) override {}
    bool has_friction() const override { return true; }
    /// The step's contacts and, unless empty, their forces (one normal, two friction each).
    void set(std::vector<UnilateralContact> contacts, const std::vector<double>& normal, const std::vector<double>& friction) {
        contacts_ = std::move(contacts);
        if (!normal.empty()) set_contact_forces(normal.data(), friction.data());
    }
};

/// Elements "beam" (4 nodes, 3 edges, radius 0.01), "sheet" (4 nodes, one triangle over nodes
/// 0-2, node 3 loose, no radius) and "ball" (1 node, radius 0.05); forces "gravity" and "drag".
/// The SDK's test scene, holding them, with a state and energies set step by step.
class FakeScene final : public soma::testing::TestScene {
public:
    FakeScene() {
        owned_.push_back(std::make_unique<FakeElement>("beam", 4, std::vector<std::array<Index, 2>>{{0, 1}, {1, 2}, {2, 3}},
                                                       std::vector<std::array<Index, 3>>{},
                                                       std::vector<double>(4, 0.01)));
        owned_.push_back(std::make_unique<FakeElement>("sheet", 4, std::vector<std::array<Index, 2>>{},
                                                       std::vector<std::array<Index, 3>>{{0, 1, 2}},
                                                       std::vector<double>{}));
        owned_.push_back(std::make_unique<FakeElement>("ball", 1, std::vector<std::array<Index, 2>>{},
                                                       std::vector<std::array<Index, 3>>{},
                                                       std::vector<double>{0.05}));
        for (auto& element : owned_) add_element(*element);
        bind_in_order();
        add_force("gravity");
        add_force("drag");
        set_step(0);
    }

    /// Adds a FakeOrientedBody called \p name: its 6 DOFs after the others, its quaternion
    /// coordinates after every DOF (as the kernel stores manifold blocks).
    void add_oriented_body(const std::string& name) {
        auto body = std::make_unique<FakeOrientedBody>(name);
        std::vector<Index> map(6);
        for (Index k = 0; k < 6; ++k) map[static_cast<std::size_t>(k)] = dof_count_ + k;
        dof_count_ += 6;
        body->bind(std::move(map), {0});  // rebound below once the DOF count is final
        add_element(*body);
        oriented_.push_back(std::move(body));
        // Manifold coordinates follow all DOFs: rebind every body to its final coordinate.
        for (std::size_t b = 0; b < oriented_.size(); ++b) {
            std::vector<Index> dofs = oriented_[b]->global_dofs();
            oriented_[b]->bind(std::move(dofs), {dof_count_ + 4 * static_cast<Index>(b)});
        }
        set_step(0);
    }

    /// A state that changes with the step, with values that have no short decimal form (so the
    /// CSV round-trip test would see any lost digit). Oriented bodies hold the unit quaternion
    /// (c, s/3, -2s/3, 2s/3) with c = cos(step/7), s = sin(step/7).
    void set_step(long step) {
        const Index n = dof_count_;
        State state;
        state.t = 0.001 * static_cast<double>(step) / 3.0;
        state.q.resize(n + 4 * static_cast<Index>(oriented_.size()));
        state.v.resize(n);
        for (Index i = 0; i < n; ++i) {
            state.q[i] = i / 7.0 + static_cast<double>(step) / 3.0;
            state.v[i] = std::sin(1.0 + i + 0.5 * static_cast<double>(step));
        }
        const double c = std::cos(static_cast<double>(step) / 7.0), s = std::sin(static_cast<double>(step) / 7.0);
        for (std::size_t b = 0; b < oriented_.size(); ++b) {
            const Index at = oriented_[b]->block_coordinate(0);
            state.q.segment<4>(at) << c, s / 3.0, -2.0 * s / 3.0, 2.0 * s / 3.0;
        }
        set_state(std::move(state));
        set_kinetic_energy(1.0 / 3.0 + static_cast<double>(step));
        set_potential_energy(-2.0 / 7.0 * static_cast<double>(step) + 1e-300);
        set_potential_energy(*forces_[0], std::exp(-static_cast<double>(step)));
    }

    /// The info an accepted step would report.
    StepInfo info(long step) const {
        StepInfo info;
        info.step = step;
        info.t = state().t;
        info.dt = step == 0 ? 0.0 : 0.001 / 3.0;
        info.newton_iterations = static_cast<int>(step % 4);
        info.linear_iterations = static_cast<int>(40 * step + 7);
        info.wall_seconds = 1e-5 * static_cast<double>(step) + 1.0 / 9.0;
        return info;
    }

    /// Adds a contributor called `name` after the others (a second one makes a name ambiguous).
    void add_force(const std::string& name) {
        forces_.push_back(std::make_unique<FakeForce>(name));
        TestScene::add_force(*forces_.back());
    }

    Contributor* force(std::size_t i) const { return forces_[i].get(); }

    /// Adds a FakeContacts called \p name to the scene's constraints.
    FakeContacts& add_contacts(const std::string& name) {
        contacts_.push_back(std::make_unique<FakeContacts>(name));
        return *contacts_.back();
    }
    std::vector<const Constraint*> constraint_terms() const override {
        std::vector<const Constraint*> terms;
        for (const auto& c : contacts_) terms.push_back(c.get());
        return terms;
    }

private:
    std::vector<std::unique_ptr<FakeElement>> owned_;
    std::vector<std::unique_ptr<FakeForce>> forces_;
    std::vector<std::unique_ptr<FakeOrientedBody>> oriented_;
    std::vector<std::unique_ptr<FakeContacts>> contacts_;
    Index dof_count_ = 3 * 9;
};

}  // namespace soma::outputs::testing
