// The point mass: state, mass residual and Jacobian, geometry.
#include "point_mass.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::particles;

TEST_CASE("point mass: M a in the residual, c_a M in the Jacobian, state and geometry", "[particles]") {
    PointMassDescription d;
    d.position = Vec3(1, 2, 3);
    d.velocity = Vec3(0.5, 0, -1);
    d.mass = 0.13;
    d.radius = 0.01;
    PointMass p(d);
    p.bind({4, 5, 6});  // global DOFs 4..6 of a larger system
    VectorX q(3), v(3);
    p.initial_state(q, v);
    CHECK(q == Vec3(1, 2, 3));
    CHECK(v == Vec3(0.5, 0, -1));
    CHECK(p.geometry().point_dofs[0] == std::array<Index, 3>{4, 5, 6});
    CHECK(p.geometry().point_mass[0] == 0.13);
    CHECK(p.geometry().point_radius[0] == 0.01);

    soma::testing::DenseAssembly dense(7);
    p.declare_pattern(dense.pattern());
    VectorX Q = VectorX::Zero(7), V = VectorX::Zero(7), A = VectorX::Zero(7);
    A.segment<3>(4) = Vec3(1, -2, 9.81);
    V.segment<3>(4) = Vec3(0.5, 0, -1);
    EvalContext c;
    c.q = &Q;
    c.v = &V;
    c.a = &A;
    c.coefficients = {0.3, 0.2, 1.0};
    const auto [F, J] = dense.evaluate(p, c);
    CHECK(F.segment<3>(4).isApprox(0.13 * Vec3(1, -2, 9.81), 1e-15));
    CHECK(F.head<4>().isZero());
    // J = c_a M on the diagonal, nothing else (no stiffness, no damping).
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(7, 7);
    expected.block<3, 3>(4, 4) = 0.13 * Mat3::Identity();
    CHECK((J - expected).norm() < 1e-15);
    CHECK(p.kinetic_energy(c) == Approx(0.5 * 0.13 * 1.25));
    CHECK(p.describe_dof(2) == "node 0 z");
    CHECK_THROWS_WITH(PointMass(PointMassDescription{Vec3::Zero(), Vec3::Zero(), 0.0, 0.0}),
                      Catch::StartsWith("point_mass: mass: must be positive"));
}
