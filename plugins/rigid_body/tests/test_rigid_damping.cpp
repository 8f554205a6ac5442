// rigid_damping: its residual is J_c^T c_t v_c + (0, c_r omega) and its Jacobian matches central
// finite differences in the configuration (on the rotation's tangent) and the velocity.
#include "../rigid_damping.hpp"
#include "rigid_body_fixture.hpp"

#include "soma/point_map.hpp"
#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::rigid_body;
using namespace soma::rigid_body::testing;
using soma::testing::DenseAssembly;
using soma::testing::max_relative_error;

TEST_CASE("rigid damping: the residual is the centre-of-mass force and the torque", "[rigid_body][rigid_damping]") {
    Fixture f;
    RigidDamping damping({0.8, 0.3, {}});
    damping.bind_bodies({&f.body});
    DenseAssembly dense(6);
    damping.declare_pattern(dense.pattern());
    const VectorX F = dense.evaluate(damping, f.it.context(), false).first;
    // Power balance: v . F = c_t |v_c|^2 + c_r |omega|^2 (J_c v = v_c), to round-off.
    const Vec3 v_c = point_velocity(f.body, 1, f.it.q, f.it.v);
    const Vec3 omega = f.it.v.tail<3>();
    CHECK(f.it.v.dot(F) == Approx(0.8 * v_c.squaredNorm() + 0.3 * omega.squaredNorm()).epsilon(1e-13));
    // The force at the centre of mass has no moment about it: F_p = c_t v_c and the torque part
    // is c_r omega plus the moment of c_t v_c about the origin, c x R^T (c_t v_c) in body axes.
    CHECK((F.head<3>() - 0.8 * v_c).norm() < 1e-14);
    const Mat3 R = f.body.orientation(f.it.context()).toRotationMatrix();
    const Vec3 c = f.body.mass_properties().center_of_mass;
    CHECK((F.tail<3>() - 0.3 * omega - c.cross(R.transpose() * (0.8 * v_c))).norm() < 1e-14);
}

TEST_CASE("rigid damping: the Jacobian matches finite differences", "[rigid_body][rigid_damping]") {
    Fixture f;
    RigidDamping damping({0.8, 0.3, {}});
    damping.bind_bodies({&f.body});
    DenseAssembly dense(6);
    damping.declare_pattern(dense.pattern());
    const JacobianCoefficients c{0.3, 0.7, 1.1};
    const Eigen::MatrixXd J = dense.evaluate(damping, f.it.context(c)).second;
    const auto [dF_dq, dF_dv] = finite_difference_derivatives(damping, dense, f.it);
    // Central differences with h = 1e-6 on O(1) quantities: truncation ~1e-12, round-off ~1e-10.
    CHECK(max_relative_error(J, c.c_q * dF_dq + c.c_v * dF_dv) < 1e-7);
    // The q-part alone (the map's velocity Jacobian and geometric stiffness) is not zero.
    CHECK(dF_dq.norm() > 0.1);
    CHECK(max_relative_error(dense.evaluate(damping, f.it.context({1, 0, 0})).second, dF_dq) < 1e-7);
    CHECK(max_relative_error(dense.evaluate(damping, f.it.context({0, 1, 0})).second, dF_dv) < 1e-7);
}

TEST_CASE("rigid damping: negative or all-zero coefficients are refused", "[rigid_body][rigid_damping]") {
    CHECK_THROWS_WITH(RigidDamping({-1.0, 0.0, {}}), Catch::Contains("linear_damping: must be >= 0"));
    CHECK_THROWS_WITH(RigidDamping({0.0, -2.0, {}}), Catch::Contains("angular_damping: must be >= 0"));
    CHECK_THROWS_WITH(RigidDamping({0.0, 0.0, {}}), Catch::Contains("both zero"));
}
