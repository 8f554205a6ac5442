#pragma once
// A scene the observers can read without the kernel: three small elements (a rod with edges, a
// shell patch with a triangle and one loose point, a single-point body) and one force, with a
// state the tests change step by step.

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

/// A force: only its name and potential energy matter to observers.
class FakeForce final : public Contributor {
public:
    explicit FakeForce(std::string name) { set_name(std::move(name)); }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}
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

    /// A state that changes with the step, with values that have no short decimal form (so the
    /// CSV round-trip test would see any lost digit).
    void set_step(long step) {
        const Index n = 3 * 9;
        State state;
        state.t = 0.001 * static_cast<double>(step) / 3.0;
        state.q.resize(n);
        state.v.resize(n);
        for (Index i = 0; i < n; ++i) {
            state.q[i] = i / 7.0 + static_cast<double>(step) / 3.0;
            state.v[i] = std::sin(1.0 + i + 0.5 * static_cast<double>(step));
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
        info.wall_seconds = 1e-5 * static_cast<double>(step) + 1.0 / 9.0;
        return info;
    }

    /// Adds a contributor called `name` after the others (a second one makes a name ambiguous).
    void add_force(const std::string& name) {
        forces_.push_back(std::make_unique<FakeForce>(name));
        TestScene::add_force(*forces_.back());
    }

    Contributor* force(std::size_t i) const { return forces_[i].get(); }

private:
    std::vector<std::unique_ptr<FakeElement>> owned_;
    std::vector<std::unique_ptr<FakeForce>> forces_;
};

}  // namespace soma::outputs::testing
