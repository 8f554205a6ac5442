#pragma once
// Central-difference checks of the imc_contact force (imc_contact.hpp) over a scene's DOFs,
// shared by the tests of every pair kind (the sibling of pair_distance_check.hpp, which checks one
// class's distance): the residual against the energy's gradient, the Jacobian's position part
// (c_q = 1) and velocity part (c_v = 1, friction) against the residual's differences.
//
// Steps and tolerance, for the tests' scales (positions ~1e-2 m, rotations ~1e-1 rad, k ~ 1e5 N/m,
// band ~3e-4 m, v_tol = 1e-3 m/s): a step of 1e-9 on positions leaves a truncation error
// ~h² k K1 ~ 1e-7 N/m (K1 = 15/band; the penalty's third derivative scales as k K1 ~ 1e11 N/m²)
// against Jacobian entries ~1e5 N/m, and round-off ~1e-16 |F|/h is smaller still; on velocities
// 1e-9 m/s against v_tol, where the friction law varies on the scale v_tol, leaves ~(h/v_tol)².
// So 1e-6 of the largest entry bounds both errors.
#include "imc_contact.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <functional>

namespace soma::imc_contact::testing {

/// Central-difference step on positions (m, rad) and velocities (m/s): see the file comment.
inline constexpr double kDifferenceStep = 1e-9;
/// The largest difference allowed, relative to the largest entry of the analytic quantity.
inline constexpr double kDifferenceTolerance = 1e-6;

/// The force evaluated at vectors x of the scene's DOFs (and velocities u) through a dense
/// assembly of its declared pattern. The configuration q is x itself or, for a scene with rigid
/// bodies, what \p configuration builds from x (the orientation from the step's tangent
/// displacement, as the kernel forms it within a step).
class ForceAtDofs {
public:
    using Configuration = std::function<VectorX(const VectorX&)>;

    ForceAtDofs(ImcContact& force, Index dofs, Configuration configuration = {})
        : force_(force), dense_(dofs), configuration_(std::move(configuration)) {
        force_.declare_pattern(dense_.pattern());
    }

    /// F(x, u); no velocity (\p u null): no friction.
    VectorX residual(const VectorX& x, const VectorX* u = nullptr) {
        const VectorX q = configuration(x);
        return dense_.evaluate(force_, context(q, u), false).first;
    }

    /// c_q dF/dq + c_v dF/dv at (x, u).
    Eigen::MatrixXd jacobian(const VectorX& x, const VectorX* u, JacobianCoefficients coefficients) {
        const VectorX q = configuration(x);
        EvalContext c = context(q, u);
        c.coefficients = coefficients;
        return dense_.evaluate(force_, c, true).second;
    }

    /// E(x).
    double energy(const VectorX& x) {
        const VectorX q = configuration(x);
        return force_.potential_energy(context(q, nullptr));
    }

private:
    VectorX configuration(const VectorX& x) const { return configuration_ ? configuration_(x) : x; }
    static EvalContext context(const VectorX& q, const VectorX* u) {
        EvalContext c;
        c.q = &q;
        c.v = u;
        return c;
    }

    ImcContact& force_;
    soma::testing::DenseAssembly dense_;
    Configuration configuration_;
};

/// Checks that F(x, u) is the gradient of the energy (central differences of E at step
/// kDifferenceStep; \p u zero or null: friction does no work there) and is not zero; returns F.
inline VectorX check_residual_is_energy_gradient(ForceAtDofs& force, const VectorX& x, const VectorX* u = nullptr) {
    const VectorX residual = force.residual(x, u);
    const VectorX fd = soma::testing::finite_difference_gradient([&](const VectorX& y) { return force.energy(y); }, x,
                                                                 kDifferenceStep);
    CHECK(residual.norm() > 0.0);
    CHECK((residual - fd).cwiseAbs().maxCoeff() <= kDifferenceTolerance * residual.cwiseAbs().maxCoeff());
    return residual;
}

/// Checks dF/dq at (x, u) against central differences of F(·, u) and that it is not zero;
/// returns it.
inline Eigen::MatrixXd check_position_jacobian(ForceAtDofs& force, const VectorX& x, const VectorX* u = nullptr) {
    const Eigen::MatrixXd dq = force.jacobian(x, u, {1.0, 0.0, 0.0});
    const Eigen::MatrixXd fd = soma::testing::finite_difference_jacobian(
        [&](const VectorX& y) { return force.residual(y, u); }, x, kDifferenceStep);
    CHECK(dq.cwiseAbs().maxCoeff() > 0.0);
    CHECK((dq - fd).cwiseAbs().maxCoeff() <= kDifferenceTolerance * dq.cwiseAbs().maxCoeff());
    return dq;
}

/// Checks dF/dv at (x, u) against central differences of F(x, ·); the tolerance is relative to
/// the largest entry or to \p floor (N s/m), whichever is larger (a floor for cases where the
/// friction's velocity derivative may vanish). Returns it.
inline Eigen::MatrixXd check_velocity_jacobian(ForceAtDofs& force, const VectorX& x, const VectorX& u, double floor = 0.0) {
    const Eigen::MatrixXd dv = force.jacobian(x, &u, {0.0, 1.0, 0.0});
    const Eigen::MatrixXd fd = soma::testing::finite_difference_jacobian(
        [&](const VectorX& w) { return force.residual(x, &w); }, u, kDifferenceStep);
    CHECK((dv - fd).cwiseAbs().maxCoeff() <= kDifferenceTolerance * std::max(dv.cwiseAbs().maxCoeff(), floor));
    return dv;
}

}  // namespace soma::imc_contact::testing
