#pragma once
/// \file actuation_test_support.hpp
/// \brief Test doubles for the actuation tests: an element with two actuation channels that
/// records what it is given; the scene is the SDK's TestScene. (Plugins cannot include each other's
/// headers, so the real rod is exercised by tests/validation/test_actuated_rod.cpp.)

#include "soma/element.hpp"
#include "soma/testing/test_scene.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace soma::actuation::testing {

/// No DOFs, no forces: only actuation channels.
///  - "bend": `bend_items` items, components k1, k2 (1/m), item k at (0.1 k, 0.01 k, -0.02 k);
///    refuses |value| > limit (as a rod refuses a curvature that folds it back).
///  - "angle": 3 items, component phi (rad), item k at (0, k, 0).
class ActuatedDummy final : public Element {
public:
    explicit ActuatedDummy(std::string name, Index bend_items = 5)
        : bend_(static_cast<std::size_t>(2 * bend_items), 0.0), angle_(3, 0.0), bend_items_(bend_items) {
        set_name(std::move(name));
    }

    double limit = 1e6;

    std::vector<ActuationChannel> actuation_channels() const override {
        return {ActuationChannel{"bend", bend_items_, {"k1", "k2"}, "1/m", "test curvature"},
                ActuationChannel{"angle", 3, {"phi"}, "rad", "test angle"}};
    }
    double actuation(const std::string& channel, Index item, int component) const override {
        return channel == "bend" ? bend_.at(static_cast<std::size_t>(2 * item + component))
                                 : angle_.at(static_cast<std::size_t>(item));
    }
    void set_actuation(const std::string& channel, Index item, int component, double value) override {
        if (std::abs(value) > limit) throw std::domain_error("value " + std::to_string(value) + " exceeds the limit");
        ++set_calls;
        if (channel == "bend") bend_.at(static_cast<std::size_t>(2 * item + component)) = value;
        else if (channel == "angle" && component == 0) angle_.at(static_cast<std::size_t>(item)) = value;
        else throw std::out_of_range("no such channel/component");
    }
    /// "bend" item k: D1 = +z, D2 = -y (a rod along +x), except item 1: D1 = +y, D2 = +z.
    std::vector<Vec3> actuation_directions(const std::string& channel, Index item) const override {
        if (channel != "bend") return {};
        if (item == 1) return {Vec3::UnitY(), Vec3::UnitZ()};
        return {Vec3::UnitZ(), -Vec3::UnitY()};
    }
    Vec3 actuation_point(const std::string& channel, Index item) const override {
        const double k = static_cast<double>(item);
        return channel == "bend" ? Vec3(0.1 * k, 0.01 * k, -0.02 * k) : Vec3(0.0, k, 0.0);
    }

    long set_calls = 0;

    // ---- the rest of Element: nothing ----
    Index dof_count() const override { return 0; }
    void initial_state(VectorX& q, VectorX& v) const override { q.resize(0), v.resize(0); }
    std::vector<DofGroup> dof_groups() const override { return {}; }
    Index group_dof(const std::string&, Index, int) const override { throw std::out_of_range("no DOFs"); }
    std::string describe_dof(Index) const override { return "none"; }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}

protected:
    void on_bind() override {}

private:
    std::vector<double> bend_, angle_;
    Index bend_items_;
    Geometry geometry_;
};

}  // namespace soma::actuation::testing
