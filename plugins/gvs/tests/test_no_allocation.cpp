// "Nothing allocates per call" (plugins/gvs/README.md): every GVS algorithm that runs inside a
// Newton iteration, measured by counting the process's heap allocations around repeated calls.
// Its own executable because it replaces malloc (Eigen allocates with malloc, containers with
// operator new, which calls malloc in libstdc++), as tests/kernel/test_no_allocation.cpp does.
#include "actuation_matrix.hpp"
#include "closed_chain.hpp"
#include "gvs_element.hpp"
#include "gvs_test_trees.hpp"

#include "counting_malloc.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>

using soma::testing::heap_allocations;

using namespace soma;
using namespace soma::gvs;
using namespace soma::gvs::testing;

namespace {

/// Heap allocations made by \p call (run three times: the first call of a path may size nothing
/// either, since every buffer is sized when the data is built).
template <class Call>
long allocations_of(Call&& call) {
    const long before = heap_allocations.load();
    for (int i = 0; i < 3; ++i) call();
    return heap_allocations.load() - before;
}

}  // namespace

TEST_CASE("GVS algorithms allocate nothing per call", "[gvs][allocation]") {
    std::mt19937 rng(13);
    HybridTree tree(rng);
    const Index n = tree.n;
    // Every point load of section 6, so their branches run too.
    const Index slot = add_world_wrench(tree.model, HybridTree::link_point);
    tree.model.wall = CylinderWall{0.05, 1e4, 1.5};
    for (Index k = HybridTree::rod_a_first; k < HybridTree::rod_a_first + 5; ++k) add_wall_contact(tree.model, k, 0.01);
    add_hydrodynamics(tree.model, HybridTree::body_point, 0.1 * Mat6::Identity(), 0.01 * Mat6::Identity(), 0.5);
    ClosedChainModel chains;
    LoopJoint weld;
    weld.point_a = HybridTree::rod_b_first + 4;
    weld.point_b = 0;
    weld.constrained = weld_directions();
    add_loop_joint(chains, tree.model, weld);
    // A ball joint between the two rods: its wrench's derivative reaches the other branch, so the
    // first call widens the points' load columns (within the capacity reserved at build).
    LoopJoint between_rods;
    between_rods.point_a = HybridTree::rod_a_first + 2;
    between_rods.point_b = HybridTree::rod_b_first + 2;
    between_rods.constrained = spherical_directions();
    add_loop_joint(chains, tree.model, between_rods);

    MultibodyData data(tree.model);
    data.world_wrench[static_cast<std::size_t>(slot)] << 0.1, 0.0, 0.2, 1.0, -2.0, 0.5;
    ClosedChainData chain_data(tree.model, chains);
    chain_data.lambda.setConstant(0.3);
    const ConstraintWrenches constraint_wrenches(chains, chain_data);
    const VectorX q = random_vector(n, rng, 0.5), qdot = random_vector(n, rng, 1.0), qddot = random_vector(n, rng, 1.0);
    const Vec3 gravity(0.0, 0.0, -9.81);

    CHECK(allocations_of([&] { inverse_dynamics(tree.model, data, q, qdot, qddot, gravity, &constraint_wrenches); }) == 0);
    CHECK(allocations_of([&] {
              inverse_dynamics_derivatives(tree.model, data, q, qdot, qddot, gravity, &constraint_wrenches);
          }) == 0);
    CHECK(allocations_of([&] { closed_chain_constraints(data, chains, qdot, chain_data); }) == 0);
    CHECK(allocations_of([&] { baumgarte_rows(data, chains, qdot, qddot, gravity, 0.1, chain_data); }) == 0);
    const VectorX at_rest = VectorX::Zero(n);
    CHECK(allocations_of([&] {
              inverse_dynamics_derivatives(tree.model, data, q, at_rest, at_rest, Vec3::Zero(), &constraint_wrenches,
                                           DerivativeSet::static_loads);
          }) == 0);

    // Actuation on a rod of the manipulator's shape and on a spherical joint.
    const RodDiscretization rod(RodDescription{StrainBasis(BasisFamily::legendre, StrainModeSelection::angular_linear(4, 2), 0.5),
                                               CircularProfile{[](double X) { return 0.03 - 0.03 * X; }},
                                               RodMaterial{1e6, 0.5, 1000.0, 1e4},
                                               5,
                                               MagnusOrder::fourth,
                                               {}});
    const TendonActuation tendons(rod, {CableRoute::straight(0.0, 0.01), CableRoute::straight(0.008, -0.005)});
    const VectorX rod_q = random_vector(rod.dof_count(), rng, 0.3), tension = VectorX::Constant(2, 5.0);
    VectorX force = VectorX::Zero(rod.dof_count());
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(rod.dof_count(), rod.dof_count());
    CHECK(allocations_of([&] { tendons.add_tension_force_and_derivative(rod_q, tension, force, jacobian); }) == 0);
    Matrix6X ball = Matrix6X::Zero(6, 3);
    ball.topRows<3>().setIdentity();
    const JointActuation joint(ball);
    const VectorX joint_q = random_vector(3, rng, 1.0), torque = random_vector(3, rng, 1.0);
    VectorX joint_force = VectorX::Zero(3);
    Eigen::MatrixXd joint_jacobian = Eigen::MatrixXd::Zero(3, 3);
    CHECK(allocations_of([&] { joint.add_force_and_derivative(joint_q, torque, joint_force, joint_jacobian); }) == 0);

    // A copy of a data struct keeps the columns' reserved capacity: its first call widens load
    // columns beyond a copied vector's capacity (the weld adds the root's range to the second
    // rod's points, and the backward pass's scratch set starts empty) without allocating.
    const MultibodyData fresh(tree.model);
    MultibodyData copy(fresh);
    CHECK(allocations_of([&] {
              inverse_dynamics_derivatives(tree.model, copy, q, qdot, qddot, gravity, &constraint_wrenches);
          }) == 0);

    // The counter works: building a data struct allocates.
    CHECK(allocations_of([&] { const MultibodyData other(tree.model); }) > 0);
}

TEST_CASE("The gvs element's residual and Jacobian allocate nothing", "[gvs][allocation]") {
    // A rigid link on a revolute joint with an actuated joint force, then a soft rod with a cable
    // touching a cylinder wall: every branch of GvsElement::add_residual_and_jacobian.
    GvsElementDescription d;
    d.gravity = Vec3(0.0, 0.0, -9.81);
    LinkDescription arm;
    arm.name = "arm";
    arm.joint = {JointType::revolute, Vec3::UnitY(), 0.0};
    RigidLinkBody body;
    body.mass = 0.3;
    body.inertia = 1e-3 * Mat3::Identity();
    body.end.p = Vec3(0.1, 0.0, 0.0);
    arm.body = body;
    d.robot.links.push_back(arm);
    LinkDescription finger;
    finger.name = "finger";
    finger.parent = 0;
    finger.body = SoftLinkBody{RodDescription{StrainBasis(BasisFamily::legendre, StrainModeSelection::angular_linear(2, 1), 0.2),
                                              CircularProfile{[](double) { return 0.01; }},
                                              RodMaterial{1e6, 0.5, 1000.0, 10.0}, 4, MagnusOrder::fourth, {}},
                               {CableRoute::straight(0.0, 0.005)}};
    d.robot.links.push_back(finger);
    d.initial_tension = VectorX::Constant(1, 2.0);
    d.wall = CylinderWall{0.05, 1e4, 1.5};
    d.wall_links = {1};
    GvsElement robot(std::move(d));
    const Index n = robot.dof_count();
    std::vector<Index> dofs(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) dofs[static_cast<std::size_t>(i)] = i;
    robot.bind(dofs);
    robot.set_actuation("joint_force", 0, 0, 0.4);

    // One dense stencil over every DOF, scattered into a dense column-major matrix.
    std::vector<Index> begin{0, n}, scatter_begin{0}, scatter(static_cast<std::size_t>(n * n));
    for (Index i = 0; i < n * n; ++i) scatter[static_cast<std::size_t>(i)] = i;
    VectorX residual = VectorX::Zero(n);
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(n, n);
    Assembly assembly;
    assembly.residual = residual.data();
    assembly.jacobian_values = jacobian.data();
    assembly.stencil_dof_begin = begin.data();
    assembly.stencil_dofs = dofs.data();
    assembly.stencil_scatter_begin = scatter_begin.data();
    assembly.scatter = scatter.data();
    struct OneStencil final : PatternBuilder {
        StencilId add_stencil(std::span<const Index>) override { return 0; }
    } pattern;
    robot.declare_pattern(pattern);

    std::mt19937 rng(5);
    const VectorX q = random_vector(n, rng, 0.5), v = random_vector(n, rng, 1.0), a = random_vector(n, rng, 1.0);
    EvalContext context;
    context.q = &q;
    context.v = &v;
    context.a = &a;
    context.coefficients = {1.0, 0.5, 0.25};
    CHECK(allocations_of([&] { robot.add_residual_and_jacobian(context, assembly); }) == 0);
    assembly.jacobian_values = nullptr;  // a residual-only evaluation (line-search trials)
    CHECK(allocations_of([&] { robot.add_residual_and_jacobian(context, assembly); }) == 0);
    CHECK(residual.allFinite());
}
