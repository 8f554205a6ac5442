#pragma once
// A rigid body in a mid-step configuration, shared by the element's and the forces' Jacobian
// tests: an off-centre centre of mass, a full inertia tensor, a box, and a finite rotation
// displacement (so Jr(d) != I).
#include "../rigid_body.hpp"

#include "soma/testing/dense_assembly.hpp"

namespace soma::rigid_body::testing {

// Layout used by every test: DOFs 0-5 (p, rotation), quaternion coordinates at 6-9.
constexpr Index kCoordinate = 6;

inline RigidBodyDescription lopsided_body() {
    RigidBodyDescription d;
    d.mass.mass = 2.5;
    d.mass.center_of_mass = Vec3(0.1, -0.2, 0.15);  // off the origin: couples translation and rotation
    d.mass.inertia << 0.30, 0.02, -0.01, 0.02, 0.45, 0.03, -0.01, 0.03, 0.60;
    RigidShape box;
    box.kind = ShapeKind::box;
    box.size = Vec3(0.4, 0.3, 0.2);
    box.center = Vec3(0.05, 0.0, -0.1);
    d.shapes = {box};
    d.orientation = Quaternion(0.9, 0.2, -0.3, 0.25).normalized();
    return d;
}

/// A configuration as the kernel forms it in a step: the DOF entries (p, d) and the quaternion
/// start (+) d at the block's coordinates.
struct Iterate {
    const RigidBody* body;
    Quaternion start;
    VectorX q = VectorX::Zero(10), v = VectorX::Zero(6), a = VectorX::Zero(6);

    void set_dofs(const VectorX& dofs) {
        q.head<6>() = dofs;
        double coordinates[4] = {start.w(), start.x(), start.y(), start.z()};
        body->integrate_block(0, coordinates, dofs.data() + 3, q.data() + kCoordinate);
    }
    EvalContext context(JacobianCoefficients c = {}) const {
        EvalContext ctx;
        ctx.q = &q;
        ctx.v = &v;
        ctx.a = &a;
        ctx.coefficients = c;
        return ctx;
    }
};

struct Fixture {
    RigidBody body{lopsided_body()};
    Iterate it{&body, Quaternion(0.6, -0.4, 0.5, 0.48).normalized()};
    Fixture() {
        body.bind({0, 1, 2, 3, 4, 5}, {kCoordinate});
        VectorX dofs(6);
        dofs << 0.3, -0.1, 0.7, 0.21, -0.33, 0.12;  // a finite step displacement: Jr(d) != I
        it.set_dofs(dofs);
        it.v << 0.4, -1.2, 0.3, 2.0, -1.5, 3.1;
        it.a << -0.7, 0.2, 1.4, -4.0, 2.5, 1.3;
    }
};


/// Central-difference derivatives of a term's residual at \p at: dF/dd (the 6 DOFs, rotation on
/// its tangent) and dF/dv. \p dense must hold the term's pattern.
struct ResidualDerivatives {
    Eigen::MatrixXd d_configuration;
    Eigen::MatrixXd d_velocity;
};

inline ResidualDerivatives finite_difference_derivatives(Contributor& term, soma::testing::DenseAssembly& dense,
                                                         const Iterate& at) {
    Iterate probe = at;
    const auto residual_of_q = [&](const VectorX& x) {
        probe.set_dofs(x);
        return dense.evaluate(term, probe.context(), false).first;
    };
    ResidualDerivatives out;
    out.d_configuration = soma::testing::finite_difference_jacobian(residual_of_q, VectorX(at.q.head<6>()), 1e-6);
    probe = at;
    const auto residual_of_v = [&](const VectorX& x) {
        probe.v = x;
        return dense.evaluate(term, probe.context(), false).first;
    };
    out.d_velocity = soma::testing::finite_difference_jacobian(residual_of_v, at.v, 1e-6);
    return out;
}

}  // namespace soma::rigid_body::testing
