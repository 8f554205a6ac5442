#pragma once
/// \file force_test_support.hpp
/// \brief Test doubles for the forces_basic tests: clouds of free particles (soma::testing::PointSet;
/// scenes of them: soma::testing::TestScene::bound_in_order), and derivative checks through DenseAssembly.

#include "soma/element.hpp"
#include "soma/force.hpp"
#include "soma/testing/point_set.hpp"
#include "soma/testing/test_scene.hpp"
#include "soma/testing/dense_assembly.hpp"

#include <Eigen/Dense>

#include <array>
#include <numeric>
#include <string>
#include <vector>

namespace soma::forces_basic::testing {

/// Free particles with masses, Voronoi lengths, radii and density (soma/testing/point_set.hpp).
using ParticleCloud = soma::testing::PointSet;

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
