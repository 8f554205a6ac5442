#pragma once
/// \file pendulum_on_wire.hpp
/// \brief Test-only element with a configuration-dependent mass: a bead of mass m on a circular
/// wire of radius L under gravity, described by its horizontal coordinate x (|x| < L).
///
/// With y = -sqrt(L^2 - x^2): T = 1/2 M(x) xdot^2, M(x) = m L^2 / (L^2 - x^2), V = -m g sqrt(L^2 - x^2).
/// Lagrange: F = M(x) a + 1/2 M'(x) v^2 + V'(x) = 0, so the element adds to the Jacobian
/// c_q (M' a + 1/2 M'' v^2 + V'') + c_v (M' v) + c_a M: the dM/dq term of ARCHITECTURE.md §3.
/// Small oscillations have the pendulum period 2 pi sqrt(L/g).

#include "soma/element.hpp"

namespace soma::testing {

class PendulumOnWire final : public Element {
public:
    PendulumOnWire(double mass, double length, double gravity, double initial_angle)
        : m_(mass), L_(length), g_(gravity), x0_(length * std::sin(initial_angle)) {}

    Index dof_count() const override { return 1; }
    void initial_state(VectorX& q, VectorX& v) const override {
        q[0] = x0_;
        v[0] = 0.0;
    }
    std::vector<DofGroup> dof_groups() const override { return {{"position", 1, 1, {"x"}}}; }
    Index group_dof(const std::string&, Index, int) const override { return 0; }
    std::string describe_dof(Index) const override { return "bead x"; }
    const Geometry& geometry() const override { return geometry_; }

    double mass(double x) const { return m_ * L_ * L_ / (L_ * L_ - x * x); }
    double mass_d1(double x) const { const double d = L_ * L_ - x * x; return 2.0 * m_ * L_ * L_ * x / (d * d); }
    double mass_d2(double x) const { const double d = L_ * L_ - x * x; return 2.0 * m_ * L_ * L_ * (L_ * L_ + 3.0 * x * x) / (d * d * d); }
    double potential(double x) const { return -m_ * g_ * std::sqrt(L_ * L_ - x * x); }
    double potential_d1(double x) const { return m_ * g_ * x / std::sqrt(L_ * L_ - x * x); }
    double potential_d2(double x) const { const double d = L_ * L_ - x * x; return m_ * g_ * L_ * L_ / (d * std::sqrt(d)); }

    double kinetic_energy(const EvalContext& c) const override {
        const double x = (*c.q)[global_dof(0)], v = (*c.v)[global_dof(0)];
        return 0.5 * mass(x) * v * v;
    }
    double potential_energy(const EvalContext& c) const override { return potential((*c.q)[global_dof(0)]); }

    void declare_pattern(PatternBuilder& pattern) override {
        const Index dof = global_dof(0);
        stencil_ = pattern.add_stencil(std::span<const Index>(&dof, 1));
    }

    void add_residual_and_jacobian(const EvalContext& c, Assembly& assembly) override {
        const Index dof = global_dof(0);
        const double x = (*c.q)[dof], v = (*c.v)[dof], a = (*c.a)[dof];
        VecN<1> f;
        f(0) = mass(x) * a + 0.5 * mass_d1(x) * v * v + potential_d1(x);
        assembly.add_residual(stencil_, f);
        const auto& w = c.coefficients;
        MatN<1> J;
        J(0, 0) = w.c_q * (mass_d1(x) * a + 0.5 * mass_d2(x) * v * v + potential_d2(x)) + w.c_v * mass_d1(x) * v +
                  w.c_a * mass(x);
        assembly.add_jacobian(stencil_, J, 1.0);
    }

protected:
    void on_bind() override {}

private:
    double m_, L_, g_, x0_;
    Geometry geometry_;
    StencilId stencil_ = 0;
};

}  // namespace soma::testing
