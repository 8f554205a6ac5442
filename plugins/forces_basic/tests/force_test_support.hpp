#pragma once
/// \file force_test_support.hpp
/// \brief Test doubles for the forces_basic tests: a cloud of free particles implementing
/// soma::Element (scenes of them: soma::testing::TestScene::bound_in_order), and derivative
/// checks through DenseAssembly.

#include "soma/element.hpp"
#include "soma/force.hpp"
#include "soma/testing/test_scene.hpp"
#include "soma/testing/dense_assembly.hpp"

#include <Eigen/Dense>

#include <array>
#include <numeric>
#include <string>
#include <vector>

namespace soma::forces_basic::testing {

/// Free particles with given masses, Voronoi lengths, radii and density; no internal forces.
class ParticleCloud final : public Element {
public:
    struct Particle {
        Vec3 x = Vec3::Zero();
        double mass = 1.0;
        double length = 0.0;
        double radius = 0.0;
    };

    ParticleCloud(std::string name, std::vector<Particle> particles, double density = 1000.0)
        : particles_(std::move(particles)) {
        set_name(std::move(name));
        geometry_.density = density;
    }

    /// A particle sheet: the same particles, plus surface triangles (point indices) exposed in
    /// geometry().triangles, for surface forces (aerodynamic drag).
    ParticleCloud(std::string name, std::vector<Particle> particles, std::vector<std::array<Index, 3>> triangles,
                  double density = 1000.0)
        : ParticleCloud(std::move(name), std::move(particles), density) {
        geometry_.triangles = std::move(triangles);
    }

    /// Binds local DOF k to global DOF first + k.
    void bind_from(Index first) {
        std::vector<Index> map(static_cast<std::size_t>(dof_count()));
        std::iota(map.begin(), map.end(), first);
        bind(std::move(map));
    }

    Index dof_count() const override { return 3 * static_cast<Index>(particles_.size()); }
    void initial_state(VectorX& q, VectorX& v) const override {
        q.resize(dof_count());
        v = VectorX::Zero(dof_count());
        for (std::size_t i = 0; i < particles_.size(); ++i) q.segment<3>(3 * static_cast<Index>(i)) = particles_[i].x;
    }
    std::vector<DofGroup> dof_groups() const override {
        return {DofGroup{"nodes", 3, static_cast<Index>(particles_.size()), {"x", "y", "z"}}};
    }
    Index group_dof(const std::string&, Index item, int component) const override { return 3 * item + component; }
    std::string describe_dof(Index local) const override {
        return "particle " + std::to_string(local / 3) + " " + "xyz"[local % 3];
    }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}

protected:
    void on_bind() override {
        geometry_.point_dofs.clear();
        geometry_.point_mass.clear();
        geometry_.point_length.clear();
        geometry_.point_radius.clear();
        for (std::size_t i = 0; i < particles_.size(); ++i) {
            const Index k = 3 * static_cast<Index>(i);
            geometry_.point_dofs.push_back({global_dof(k), global_dof(k + 1), global_dof(k + 2)});
            geometry_.point_mass.push_back(particles_[i].mass);
            geometry_.point_length.push_back(particles_[i].length);
            geometry_.point_radius.push_back(particles_[i].radius);
        }
    }

private:
    std::vector<Particle> particles_;
    Geometry geometry_;
};

/// Evaluates one bound force densely at (q, v) with the given Jacobian coefficients.
class DenseForceProbe {
public:
    DenseForceProbe(Force& force, Index dof_count) : force_(force), dense_(dof_count) {
        force_.declare_pattern(dense_.pattern());
    }

    /// \brief F(q, v) (no Jacobian requested).
    VectorX residual(const VectorX& q, const VectorX& v, double load_factor = 1.0) {
        return dense_.evaluate(force_, context(q, v, {1.0, 0.0, 0.0}, load_factor), false).first;
    }
    /// \brief J = c_q dF/dq + c_v dF/dv (+ c_a dF/da) at (q, v).
    Eigen::MatrixXd jacobian(const VectorX& q, const VectorX& v, JacobianCoefficients c) {
        return dense_.evaluate(force_, context(q, v, c, 1.0), true).second;
    }
    /// \brief Residual when the Jacobian is also requested (checks both paths agree).
    VectorX residual_with_jacobian(const VectorX& q, const VectorX& v, JacobianCoefficients c) {
        return dense_.evaluate(force_, context(q, v, c, 1.0), true).first;
    }
    /// \brief Central finite differences of F over q (v fixed) with step h.
    Eigen::MatrixXd fd_dq(const VectorX& q, const VectorX& v, double h) {
        return soma::testing::finite_difference_jacobian([&](const VectorX& x) { return residual(x, v); }, q, h);
    }
    /// \brief Central finite differences of F over v (q fixed) with step h.
    Eigen::MatrixXd fd_dv(const VectorX& q, const VectorX& v, double h) {
        return soma::testing::finite_difference_jacobian([&](const VectorX& u) { return residual(q, u); }, v, h);
    }
    /// \brief Potential energy at q.
    double energy(const VectorX& q, double load_factor = 1.0) const {
        VectorX zero = VectorX::Zero(q.size());
        return force_.potential_energy(context(q, zero, {}, load_factor));
    }

private:
    EvalContext context(const VectorX& q, const VectorX& v, JacobianCoefficients c, double load_factor) const {
        EvalContext ctx;
        ctx.q = &q;
        ctx.v = &v;
        ctx.a = nullptr;
        ctx.load_factor = load_factor;
        ctx.coefficients = c;
        return ctx;
    }

    Force& force_;
    soma::testing::DenseAssembly dense_;
};

/// \brief max |A - B| relative to max(|B|, floor).
inline double relative_max_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double floor = 0.0) {
    const double scale = std::max(b.cwiseAbs().maxCoeff(), floor);
    return (a - b).cwiseAbs().maxCoeff() / scale;
}

}  // namespace soma::forces_basic::testing
