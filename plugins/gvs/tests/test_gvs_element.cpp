// The `gvs` element (gvs_element.hpp): a hybrid robot (a rigid link on a revolute joint, a soft
// rod with two cables on a spherical joint, a rigid tip body on a helical joint, a second rod
// branching from the base on a free joint, the first rod touching a cylinder wall) assembled
// through the kernel's residual contract:
//  - the combined Jacobian c_q dF/dq + c_v dF/dv + c_a dF/da against central differences of F;
//  - at rest and without actuation F is the gradient of the potential energy (weight and
//    elasticity), and the kinetic energy is 1/2 v^T M v;
//  - the DoF layout (joints, then rod coordinates, link by link) and the refusal of bad input;
//  - the kernel's point map of its points (positions, velocities, their Jacobians and the
//    geometric stiffness), alone and through add_point_residual as the scene's forces use it;
//  - its frames (base, each link's frame and end frame) for clamps: origin, rotation, J, J_q and
//    the geometric stiffness.
#include "gvs_element.hpp"
#include "loop_joint_constraint.hpp"
#include "inverse_dynamics.hpp"
#include "field_expression.hpp"
#include "gvs_test_trees.hpp"

#include "soma/point_map.hpp"
#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/frame_differences.hpp"
#include "soma/testing/test_scene.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <random>
#include <span>

using namespace soma;
using namespace soma::gvs;

namespace {

RodDescription rod(double length, double radius, const StrainModeSelection& modes) {
    return RodDescription{StrainBasis(BasisFamily::legendre, modes, length),
                          CircularProfile{[radius, length](double X) { return radius * (1.0 - 0.3 * X / length); }},
                          RodMaterial{2.0e6, 0.45, 1100.0, 50.0}, 4, MagnusOrder::fourth, {}};
}

enum class Loads { none, wall, wrench_and_fluid };

GvsElementDescription hybrid_robot(bool with_wall) {
    GvsElementDescription d;
    d.robot.base.R = Eigen::AngleAxisd(0.3, Vec3(0.2, 1.0, 0.1).normalized()).toRotationMatrix();
    d.robot.base.p = Vec3(0.1, -0.2, 0.3);
    d.gravity = Vec3(0.3, -0.5, -9.81);

    LinkDescription arm;  // 0: a rigid arm on a revolute joint
    arm.name = "arm";
    arm.joint = {JointType::revolute, Vec3(0.0, 1.0, 0.2), 0.0};
    RigidLinkBody arm_body;
    arm_body.mass = 0.4;
    arm_body.inertia = Vec3(2e-3, 3e-3, 1e-3).asDiagonal();
    arm_body.center_of_mass = Vec3(0.05, 0.01, 0.0);
    arm_body.end.p = Vec3(0.1, 0.0, 0.01);
    arm.body = arm_body;
    d.robot.links.push_back(arm);

    LinkDescription finger;  // 1: a soft rod with two cables on a spherical joint
    finger.name = "finger";
    finger.parent = 0;
    finger.offset.p = Vec3(0.0, 0.0, 0.02);
    finger.joint.type = JointType::spherical;
    SoftLinkBody finger_body{rod(0.2, 0.01, StrainModeSelection::angular_linear(2, 1)), {}};
    finger_body.cables.push_back(CableRoute::straight(0.0, 0.006));
    const double L = 0.2;
    const ScalarField y = parse_field("0.005*sin(2*_pi*X/L)", L), z = parse_field("0.005*cos(2*_pi*X/L)", L);
    finger_body.cables.push_back(CableRoute{y, z, derivative_of(y, L), derivative_of(z, L)});
    finger.body = finger_body;
    d.robot.links.push_back(finger);

    LinkDescription tip;  // 2: a rigid tip body on a helical joint at the finger's end
    tip.name = "tip";
    tip.parent = 1;
    tip.joint = {JointType::helical, Vec3(1.0, 0.0, 0.0), 0.01};
    RigidLinkBody tip_body;
    tip_body.mass = 0.05;
    tip_body.inertia = Vec3(1e-5, 2e-5, 2e-5).asDiagonal();
    tip_body.center_of_mass = Vec3(0.01, 0.0, 0.002);
    tip.body = tip_body;
    d.robot.links.push_back(tip);

    LinkDescription tail;  // 3: a Kirchhoff rod from the base on a free joint
    tail.name = "tail";
    tail.parent = -1;
    tail.joint.type = JointType::free;
    tail.body = SoftLinkBody{rod(0.15, 0.008, StrainModeSelection::kirchhoff(1)), {}};
    d.robot.links.push_back(tail);

    d.initial_tension = Eigen::Vector2d(3.0, 1.5);
    if (with_wall) {
        d.wall = CylinderWall{0.05, 2.0e4, 1.5};
        d.wall_links = {1};
    }
    return d;
}

/// The hybrid robot with the loads of \p loads: the wall on the finger, or a world wrench at the
/// tip body and at the tail's base and the arm and the finger immersed in water.
GvsElementDescription hybrid_robot(Loads loads) {
    GvsElementDescription d = hybrid_robot(loads == Loads::wall);
    if (loads != Loads::wrench_and_fluid) return d;
    WorldWrenchLoad tip{2, true, {}};
    const std::array<double, 6> values{0.01, -0.02, 0.005, 0.3, 0.1, -0.2};
    for (std::size_t c = 0; c < 6; ++c) tip.wrench[c] = [v = values[c]](double t) { return v * (1.0 + t); };
    d.wrenches.push_back(tip);
    WorldWrenchLoad base{3, false, {}};
    for (std::size_t c = 0; c < 6; ++c) base.wrench[c] = [v = values[5 - c]](double) { return v; };
    d.wrenches.push_back(base);
    d.fluid_density = 1000.0;
    std::get<SoftLinkBody>(d.robot.links[1].body).fluid = SoftLinkFluid{1.2, 0.05, 1.0};
    std::get<RigidLinkBody>(d.robot.links[0].body).fluid =
        RigidLinkFluid{(Vec6() << 1e-3, 2e-3, 1e-3, 2.0, 3.0, 1.0).finished(),
                       (Vec6() << 1e-4, 1e-4, 2e-4, 0.1, 0.2, 0.3).finished(), 2e-4};
    return d;
}

using soma::gvs::testing::random_vector;

}  // namespace

TEST_CASE("gvs element: DoF layout, link by link (joint, then rod)", "[gvs][element]") {
    GvsElement robot(hybrid_robot(false));
    const LinkTree& tree = robot.tree();
    // arm: 1 (revolute); finger: 3 (spherical) + 6 * 2 (order 1 linear) + 3 * 3 (order 2 angular)...
    // angular_linear(2, 1): 3 angular components x 3 + 3 linear x 2 = 15; tip: 1; tail: 6 + 4 x 2 = 14.
    CHECK(tree.links[0].joint_first_dof == 0);
    CHECK(tree.links[1].joint_first_dof == 1);
    CHECK(tree.links[1].joint_dof_count == 3);
    CHECK(tree.links[1].rod_first_dof == 4);
    CHECK(tree.links[1].rod_dof_count == 15);
    CHECK(tree.links[2].joint_first_dof == 19);
    CHECK(tree.links[3].joint_first_dof == 20);
    CHECK(tree.links[3].rod_dof_count == 8);
    CHECK(robot.dof_count() == 34);
    CHECK(robot.cable_count() == 2);
    // Points: base, arm joint, arm end, finger offset, finger joint, 5 rod points (4 Gauss + tip),
    // tip joint, tail joint, 5 rod points.
    CHECK(robot.geometry().point_dofs.size() == 17);
    CHECK(robot.describe_dof(6) == "link 'finger' torsion mode 2");
    CHECK(robot.describe_dof(19) == "link 'tip' helical joint coordinate 0");
}

TEST_CASE("gvs element: the Jacobian's pattern is one stencil per root-to-leaf path", "[gvs][element]") {
    // arm -> finger -> tip (coordinates 0-19) and the tail (20-33) both hang from the fixed base:
    // they share no coordinate, so no entry couples them. The FD test of the combined Jacobian
    // below assembles through these stencils, so an entry outside them would fail it.
    GvsElement robot(hybrid_robot(false));
    soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
    struct Recorder final : PatternBuilder {
        std::vector<std::vector<Index>> stencils;
        StencilId add_stencil(std::span<const Index> dofs) override {
            stencils.emplace_back(dofs.begin(), dofs.end());
            return static_cast<StencilId>(stencils.size() - 1);
        }
    } pattern;
    robot.declare_pattern(pattern);
    REQUIRE(pattern.stencils.size() == 2);
    CHECK(pattern.stencils[0].size() == 20);
    CHECK(pattern.stencils[0].front() == robot.global_dof(0));
    CHECK(pattern.stencils[1].size() == 14);
    CHECK(pattern.stencils[1].front() == robot.global_dof(20));
}

TEST_CASE("gvs element: the combined Jacobian is c_q dF/dq + c_v dF/dv + c_a dF/da (central differences)",
          "[gvs][element]") {
    for (const Loads loads : {Loads::none, Loads::wall, Loads::wrench_and_fluid}) {
        const bool wall = loads == Loads::wall;
        GvsElement robot(hybrid_robot(loads));
        soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
        const Index n = robot.dof_count();
        soma::testing::DenseAssembly dense(n);
        robot.declare_pattern(dense.pattern());

        std::mt19937 rng(wall ? 7 : loads == Loads::none ? 3 : 9);
        VectorX q = random_vector(n, rng, 0.3), v = random_vector(n, rng, 0.5), a = random_vector(n, rng, 2.0);
        if (wall) q.segment(4, 15) *= 4.0;  // bend the finger into the wall
        EvalContext context;
        context.q = &q;
        context.v = &v;
        context.a = &a;
        context.load_factor = 0.8;
        context.t = 0.3;
        context.coefficients = {1.0, 0.0, 0.0};
        const auto residual_at = [&](const VectorX& qq, const VectorX& vv, const VectorX& aa) {
            EvalContext c = context;
            c.q = &qq;
            c.v = &vv;
            c.a = &aa;
            return dense.evaluate(robot, c, false).first;
        };
        // Without drag F is quadratic in v (Coriolis) and linear in a, so central differences in v
        // and a are exact but for round-off: a long step keeps that (1e-16 |F| / h) small where the wall
        // makes |F| large. In q, h = 1e-6: truncation ~h^2 |F'''| and round-off ~1e-16 |F| / h,
        // both near 1e-9 relative here.
        // With drag, F holds |v| eta, which is not a polynomial in v: a short step there.
        const double h = 1e-6, h_rate = loads == Loads::wrench_and_fluid ? 1e-5 : 0.1;
        Eigen::MatrixXd dq(n, n), dv(n, n), da(n, n);
        for (Index j = 0; j < n; ++j) {
            VectorX p = q, m = q;
            p[j] += h;
            m[j] -= h;
            dq.col(j) = (residual_at(p, v, a) - residual_at(m, v, a)) / (2 * h);
            p = v;
            m = v;
            p[j] += h_rate;
            m[j] -= h_rate;
            dv.col(j) = (residual_at(q, p, a) - residual_at(q, m, a)) / (2 * h_rate);
            p = a;
            m = a;
            p[j] += h_rate;
            m[j] -= h_rate;
            da.col(j) = (residual_at(q, v, p) - residual_at(q, v, m)) / (2 * h_rate);
        }
        const std::array<JacobianCoefficients, 3> pure{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
        const std::array<const Eigen::MatrixXd*, 3> fd{&dq, &dv, &da};
        for (std::size_t k = 0; k < 3; ++k) {
            context.coefficients = pure[k];
            const Eigen::MatrixXd J = dense.evaluate(robot, context).second;
            INFO("loads " << static_cast<int>(loads) << ", derivative " << k);
            CHECK((J - *fd[k]).norm() <= 1e-7 * fd[k]->norm());
        }
        // The weights combine linearly (the element evaluates the three in one pass).
        context.coefficients = {0.7, 0.2, 0.05};
        const Eigen::MatrixXd J = dense.evaluate(robot, context).second;
        CHECK((J - (0.7 * dq + 0.2 * dv + 0.05 * da)).norm() <= 1e-7 * J.norm());
        // The wall is touched in the wall case, so its force and derivative were exercised.
        if (wall) {
            robot.set_actuation("cable_tension", 0, 0, 0.0);
            robot.set_actuation("cable_tension", 1, 0, 0.0);
            std::vector<Vec3> x(robot.geometry().point_dofs.size()), xdot(x.size());
            robot.point_states(q, v, x, xdot);
            double outermost = 0.0;
            for (Index k = robot.tree().links[1].first_point; k <= robot.tree().links[1].end_point; ++k)
                outermost = std::max(outermost, x[static_cast<std::size_t>(k)].head<2>().norm() +
                                                    robot.geometry().point_radius[static_cast<std::size_t>(k)]);
            CHECK(outermost > 0.05);
        }
    }
}

TEST_CASE("gvs element: at rest F is the gradient of the potential energy; T = 1/2 v^T M v", "[gvs][element]") {
  for (const bool wall : {false, true}) {
    INFO("wall " << wall);
    GvsElementDescription d = hybrid_robot(wall);
    d.initial_tension.setZero();  // cables do non-conservative work
    GvsElement robot(std::move(d));
    soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
    const Index n = robot.dof_count();
    soma::testing::DenseAssembly dense(n);
    robot.declare_pattern(dense.pattern());
    std::mt19937 rng(11);
    VectorX q = random_vector(n, rng, 0.4);
    const VectorX zero = VectorX::Zero(n), v = random_vector(n, rng, 0.7);
    if (wall) q.segment(4, 15) *= 4.0;  // the finger pressed into the wall (as in the Jacobian test)
    EvalContext context;
    context.q = &q;
    context.v = &zero;
    context.a = &zero;
    const VectorX F = dense.evaluate(robot, context, false).first;
    VectorX gradient(n);
    const double h = 1e-6;
    for (Index j = 0; j < n; ++j) {
        VectorX p = q, m = q;
        p[j] += h;
        m[j] -= h;
        EvalContext cp = context, cm = context;
        cp.q = &p;
        cm.q = &m;
        gradient[j] = (robot.potential_energy(cp) - robot.potential_energy(cm)) / (2 * h);
    }
    CHECK((F - gradient).norm() <= 1e-7 * F.norm());
    if (wall) {  // the finger does touch: the wall's energy is part of the check
        GvsElementDescription free = hybrid_robot(false);
        free.initial_tension.setZero();
        GvsElement untouched(std::move(free));
        soma::testing::TestScene other = soma::testing::TestScene::bound_in_order({&untouched});
        CHECK(robot.potential_energy(context) > untouched.potential_energy(context) + 1e-6);
    }

    context.coefficients = {0.0, 0.0, 1.0};
    const Eigen::MatrixXd M = dense.evaluate(robot, context).second;
    context.v = &v;
    CHECK(robot.kinetic_energy(context) == Approx(0.5 * v.dot(M * v)).epsilon(1e-12));
  }
}

TEST_CASE("gvs element: actuation channels and bad input are refused with what is wrong", "[gvs][element]") {
    GvsElement robot(hybrid_robot(false));
    const auto channels = robot.actuation_channels();
    REQUIRE(channels.size() == 2);
    CHECK(channels[0].name == "cable_tension");
    CHECK(channels[0].count == 2);
    CHECK(channels[1].name == "joint_force");
    CHECK(channels[1].count == 1 + 3 + 1 + 6);
    CHECK(robot.actuation("cable_tension", 1, 0) == 1.5);
    CHECK_THROWS_WITH(robot.set_actuation("cable_tension", 0, 0, -1.0), Catch::Contains("cannot push"));
    CHECK_THROWS_AS(robot.set_actuation("cable_tension", 2, 0, 1.0), std::logic_error);

    GvsElementDescription d = hybrid_robot(false);
    d.initial_tension = Vec3(1, 2, 3);
    CHECK_THROWS_WITH(GvsElement(d), Catch::Contains("2 cables, but 3 tensions"));
    d = hybrid_robot(false);
    d.robot.links[0].joint.axis.setZero();
    CHECK_THROWS_WITH(GvsElement(d), Catch::StartsWith("link 'arm': a revolute joint needs a finite, non-zero axis"));
    d = hybrid_robot(false);
    d.robot.links[3].parent = 3;
    CHECK_THROWS_WITH(GvsElement(d), Catch::Contains("its parent must be the base or an earlier link"));
    d = hybrid_robot(false);
    d.robot.links[0].initial_joint = Eigen::Vector2d(0.1, 0.2);
    CHECK_THROWS_WITH(GvsElement(d), Catch::Contains("2 values, the revolute joint has 1"));
    d = hybrid_robot(false);
    d.wall = CylinderWall{0.05, 1e4, 1.5};
    d.wall_links = {0};
    CHECK_THROWS_WITH(GvsElement(d), Catch::Contains("link 0 is not a soft link"));

    CHECK_THROWS_WITH(parse_field("0.01*(1 + X", 1.0), Catch::Contains("'0.01*(1 + X'"));
    CHECK_THROWS_WITH(parse_field("r*X", 1.0), Catch::Contains("variables: X"));
    // Its point masses do not place its weight (offset centres of mass): the gravity force must
    // not act on it, and frames and points out of range are logic errors.
    CHECK_FALSE(robot.geometry().weight_at_points);
    soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
    PointKinematics k;
    EvalContext context;
    context.q = &scene.state().q;
    CHECK_THROWS_AS(robot.point_kinematics(robot.tree().model.point_count(), context, k), std::logic_error);
    CHECK_THROWS_AS(robot.frame_name(robot.frame_count()), std::logic_error);
}

TEST_CASE("gvs element: field expressions and their derivatives", "[gvs][element]") {
    // A route defined on [0, L] only: the differences stay inside.
    const ScalarField root = parse_field("sqrt(X)", 1.0);
    CHECK(std::isfinite(derivative_of(root, 1.0)(0.0)));
    CHECK(derivative_of(root, 1.0)(0.25) == Approx(1.0).epsilon(1e-9));
    const ScalarField f = parse_field("0.03 - 0.015*X/L + 0.002*sin(4*_pi*X/L)", 0.5);
    const ScalarField df = derivative_of(f, 0.5);
    for (const double X : {0.0, 0.0007, 0.13, 0.4995, 0.5}) {
        CHECK(f(X) == Approx(0.03 - 0.03 * X + 0.002 * std::sin(8 * M_PI * X)).epsilon(1e-15));
        // Fourth-order differences with h = 5e-4 and |f^(5)| <= 0.002 (8 pi)^5 = 2e4: error at most
        // h^4 |f^(5)| / 30 = 4e-11 central, h^4 |f^(5)| / 5 = 2.5e-10 one-sided at the ends.
        CHECK(df(X) == Approx(-0.03 + 0.016 * M_PI * std::cos(8 * M_PI * X)).margin(3e-10));
    }
}

TEST_CASE("gvs loop joint: de/dq and the curvature d(A^T lambda)/dq against central differences", "[gvs][element]") {
    // Loops from a link's end to a frame fixed to the base where that end is at q0, then a random
    // q (e != 0 there) and random multipliers: each joint type alone, and two loops in one
    // constraint (their curvature from one derivative pass). `planar` rows are a selection of
    // Phi_perp's columns (in_plane_directions, test_closed_chain.cpp), the same algebra; this robot
    // is not planar, so `planar` is refused on it.
    GvsElementDescription d = hybrid_robot(false);
    GvsElement robot(d);
    soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
    robot.set_name("robot");
    const LinkTree& tree = robot.tree();
    MultibodyData data(tree.model);
    const VectorX q0 = scene.state().q, zero = VectorX::Zero(robot.dof_count());
    inverse_dynamics(tree.model, data, q0, zero, zero, Vec3::Zero());
    const auto closing = [&](const std::string& joint, const std::string& link, Index link_index) {
        LoopJointSettings settings;
        settings.joint = joint;
        settings.axis = Vec3(0.3, 1.0, -0.2);
        settings.a = LoopJointEnd{link, true, Pose{}};
        const Pose end = data.pose[static_cast<std::size_t>(tree.links[static_cast<std::size_t>(link_index)].end_point)];
        settings.b = LoopJointEnd{"base", false, compose(inverse(d.robot.base), end)};
        return settings;
    };
    struct Case {
        std::string name;
        std::vector<LoopJointSettings> joints;
        Index rows;
    };
    std::vector<Case> cases;
    for (const std::string joint : {"weld", "revolute", "spherical"})
        cases.push_back({joint, {closing(joint, "tail", 3)}, joint == "weld" ? 6 : joint == "revolute" ? 5 : 3});
    cases.push_back({"two loops", {closing("weld", "tail", 3), closing("spherical", "finger", 1)}, 9});
    for (const Case& c : cases) {
        INFO(c.name);
        LoopJointConstraint loop("robot", c.joints, Parameters());
        loop.bind(scene);
        const Index rows = loop.row_count(), n = robot.dof_count();
        CHECK(rows == c.rows);
        ConstraintEvaluation out{VectorX(rows), Eigen::MatrixXd(rows, n), Eigen::MatrixXd(rows, n),
                                 Eigen::MatrixXd(n, n)};
        std::mt19937 rng(17);
        const VectorX q = q0 + random_vector(n, rng, 0.2), lambda = random_vector(rows, rng, 3.0);
        EvalContext context;
        context.q = &q;
        loop.evaluate(context, lambda.data(), out);
        const ConstraintEvaluation at_q = out;
        Eigen::MatrixXd de(rows, n), dforce(n, n);
        const double h = 1e-6;
        for (Index j = 0; j < n; ++j) {
            VectorX p = q, m = q;
            p[j] += h;
            m[j] -= h;
            context.q = &p;
            loop.evaluate(context, lambda.data(), out);
            const VectorX e_p = out.value, f_p = out.force_jacobian.transpose() * lambda;
            context.q = &m;
            loop.evaluate(context, lambda.data(), out);
            de.col(j) = (e_p - out.value) / (2 * h);
            dforce.col(j) = (f_p - out.force_jacobian.transpose() * lambda) / (2 * h);
        }
        CHECK(at_q.value.norm() > 1e-3);  // away from closure: de/dq differs from A there
        CHECK((at_q.position_jacobian - de).norm() <= 1e-7 * de.norm());
        CHECK((at_q.curvature - dforce).norm() <= 1e-7 * dforce.norm());
    }
}

namespace {

/// A point force law r(x, xdot) = -f = A x + B xdot + c (x . x) e at one point of an element,
/// applied through the kernel's point map (point_map.hpp), as the scene's forces do.
class PointLaw final : public Contributor {
public:
    PointLaw(const Element& element, Index point, const VectorX& q0) : element_(element), point_(point) {
        dofs_ = point_stencil(element, point, q0);
        A_ << 3.0, -1.0, 0.5, 0.2, 2.0, -0.4, 1.0, 0.3, 4.0;
        B_ << 0.5, 0.1, 0.0, -0.2, 0.7, 0.3, 0.0, 0.4, 0.9;
    }
    void declare_pattern(PatternBuilder& pattern) override { stencil_ = pattern.add_stencil(dofs_); }
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override {
        evaluate_point(element_, point_, context, kinematics_);
        const Vec3& x = kinematics_.position;
        const Vec3 r = A_ * x + B_ * kinematics_.velocity + c_ * x.squaredNorm() * e_;
        const Mat3 d_position = A_ + 2.0 * c_ * e_ * x.transpose();
        add_point_residual(assembly, stencil_, element_, point_, context, kinematics_, r, {&d_position, &B_});
    }

private:
    const Element& element_;
    Index point_;
    std::vector<Index> dofs_;
    StencilId stencil_ = 0;
    PointKinematics kinematics_;
    Mat3 A_, B_;
    double c_ = 5.0;
    Vec3 e_ = Vec3(0.3, -0.8, 0.5);
};

/// A rigid pendulum of two links on revolute joints: 2 coordinates, so its points are narrow.
GvsElementDescription double_pendulum() {
    GvsElementDescription d;
    for (int l = 0; l < 2; ++l) {
        LinkDescription link;
        link.name = l == 0 ? "upper" : "lower";
        link.parent = l - 1;
        link.joint = {JointType::revolute, Vec3(1.0, 0.2 * l, 0.0), 0.0};
        RigidLinkBody body;
        body.mass = 0.5;
        body.inertia = Vec3(1e-3, 2e-3, 1e-3).asDiagonal();
        body.center_of_mass = Vec3(0.0, 0.0, -0.1);
        body.end.p = Vec3(0.0, 0.05, -0.2);
        link.body = body;
        d.robot.links.push_back(link);
    }
    return d;
}

}  // namespace

TEST_CASE("gvs point map: a point's x, xdot, Jacobians and geometric stiffness against central differences",
          "[gvs][element]") {
    // The kernel's forces reach a GVS point through point_kinematics (wide: the hybrid robot's 34
    // coordinates; narrow: a double pendulum's 2) and its geometric stiffness d(J^T f)/dq.
    // h = 1e-6 in q: truncation ~h^2 and round-off ~1e-16 / h, both near 1e-10 relative.
    for (const bool wide : {true, false}) {
        INFO((wide ? "hybrid robot (wide points)" : "double pendulum (narrow points)"));
        GvsElement robot(wide ? hybrid_robot(Loads::wall) : double_pendulum());
        soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
        const Index n = robot.dof_count();
        std::mt19937 rng(23);
        const VectorX q = scene.state().q + random_vector(n, rng, 0.4), v = random_vector(n, rng, 0.8);
        const Vec3 force(0.7, -1.3, 2.1);
        const auto at = [&](Index point, const VectorX& qq, PointKinematics& k) {
            EvalContext c;
            c.q = &qq;
            c.v = &v;
            robot.point_kinematics(point, c, k);
        };
        const auto generalized = [](const PointKinematics& k, const Vec3& f) {
            return VectorX(k.jacobian_columns().transpose() * f);
        };
        PointKinematics k, kp, km;
        Eigen::MatrixXd stiffness;
        const double h = 1e-6;
        for (Index point = 0; point < robot.tree().model.point_count(); ++point) {
            INFO("point " << point);
            at(point, q, k);
            CHECK(k.is_wide() == wide);
            REQUIRE(k.dof_count == n);
            for (Index i = 0; i < n; ++i) CHECK(k.dof(static_cast<int>(i)) == robot.global_dof(i));
            // x and xdot agree with the outputs' forward pass; xdot = J v.
            Vec3 x, xdot;
            robot.point_state(point, q, v, x, xdot);
            CHECK((k.position - x).norm() <= 1e-14);
            CHECK((k.velocity - xdot).norm() <= 1e-12 * (1.0 + xdot.norm()));
            CHECK((k.jacobian_columns() * v - k.velocity).norm() <= 1e-12 * (1.0 + xdot.norm()));
            CHECK((k.position_jacobian_columns() - k.jacobian_columns()).norm() == 0.0);  // vector coordinates
            Eigen::MatrixXd dx(3, n), dxdot(3, n), dforce(n, n);
            for (Index j = 0; j < n; ++j) {
                VectorX p = q, m = q;
                p[j] += h;
                m[j] -= h;
                at(point, p, kp);
                at(point, m, km);
                dx.col(j) = (kp.position - km.position) / (2 * h);
                dxdot.col(j) = (kp.velocity - km.velocity) / (2 * h);
                dforce.col(j) = (generalized(kp, force) - generalized(km, force)) / (2 * h);
            }
            at(point, q, k);
            CHECK((k.position_jacobian_columns() - dx).norm() <= 1e-8 * (1.0 + dx.norm()));
            CHECK((k.velocity_jacobian_columns() - dxdot).norm() <= 1e-8 * (1.0 + dxdot.norm()));
            EvalContext c;
            c.q = &q;
            if (wide) {
                robot.wide_point_geometric_stiffness(point, c, force, stiffness);
            } else {
                PointStiffness narrow = PointStiffness::Zero();
                robot.add_point_geometric_stiffness(point, c, force, narrow);
                stiffness = narrow.topLeftCorner(n, n);
            }
            CHECK((stiffness - dforce).norm() <= 1e-8 * (1.0 + dforce.norm()));
        }
    }
}

TEST_CASE("gvs point map: a point force's residual and Jacobian through add_point_residual (central differences)",
          "[gvs][element]") {
    // What floor contact, point loads, viscous drag do to a GVS point: F = J^T r(x(q), xdot(q, v)),
    // and c_q dF/dq + c_v dF/dv from the point's Jacobians and geometric stiffness.
    GvsElement robot(hybrid_robot(Loads::none));
    soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
    const Index n = robot.dof_count();
    const Index tip = robot.tree().links[1].end_point;  // the finger's tip: many coordinates above it
    PointLaw law(robot, tip, scene.state().q);
    soma::testing::DenseAssembly dense(n);
    law.declare_pattern(dense.pattern());
    std::mt19937 rng(29);
    const VectorX q = scene.state().q + random_vector(n, rng, 0.3), v = random_vector(n, rng, 0.6);
    EvalContext context;
    context.q = &q;
    context.v = &v;
    const auto residual_at = [&](const VectorX& qq, const VectorX& vv) {
        EvalContext c = context;
        c.q = &qq;
        c.v = &vv;
        return dense.evaluate(law, c, false).first;
    };
    // F is quadratic in v (xdot is linear in v): a long step in v is exact but for round-off.
    const double h = 1e-6, h_rate = 0.1;
    Eigen::MatrixXd dq(n, n), dv(n, n);
    for (Index j = 0; j < n; ++j) {
        VectorX p = q, m = q;
        p[j] += h;
        m[j] -= h;
        dq.col(j) = (residual_at(p, v) - residual_at(m, v)) / (2 * h);
        p = v;
        m = v;
        p[j] += h_rate;
        m[j] -= h_rate;
        dv.col(j) = (residual_at(q, p) - residual_at(q, m)) / (2 * h_rate);
    }
    context.coefficients = {1.0, 0.0, 0.0};
    const Eigen::MatrixXd Jq = dense.evaluate(law, context).second;
    CHECK((Jq - dq).norm() <= 1e-7 * dq.norm());
    context.coefficients = {0.0, 1.0, 0.0};
    const Eigen::MatrixXd Jv = dense.evaluate(law, context).second;
    CHECK((Jv - dv).norm() <= 1e-7 * dv.norm());
    context.coefficients = {0.6, 0.3, 0.0};
    CHECK((dense.evaluate(law, context).second - (0.6 * dq + 0.3 * dv)).norm() <= 1e-7 * dq.norm());
    CHECK(dq.norm() > 0.0);
}

TEST_CASE("gvs frames: origin, rotation, J, J_q and the geometric stiffness against central differences",
          "[gvs][element]") {
    // A clamp holds a robot's link frame through frame_kinematics (wide over the hybrid robot's
    // 34 coordinates; narrow for the double pendulum's 2). h = 1e-6, as for the points.
    for (const bool wide : {true, false}) {
        INFO((wide ? "hybrid robot (wide frames)" : "double pendulum (narrow frames)"));
        GvsElement robot(wide ? hybrid_robot(Loads::none) : double_pendulum());
        soma::testing::TestScene scene = soma::testing::TestScene::bound_in_order({&robot});
        const Index n = robot.dof_count();
        REQUIRE(robot.frame_count() == 1 + 2 * static_cast<Index>(robot.tree().links.size()));
        CHECK(robot.frame_name(0) == "base");
        CHECK(robot.frame_name(2) == (wide ? "arm.end" : "upper.end"));
        std::mt19937 rng(31);
        const VectorX q = scene.state().q + random_vector(n, rng, 0.4), v = random_vector(n, rng, 0.8);
        const Vec3 force(0.4, -0.9, 1.7), torque(-0.3, 0.8, 0.5);
        FrameKinematics k, kp, km;
        const auto at = [&](Index frame, const VectorX& qq, FrameKinematics& out) {
            EvalContext c;
            c.q = &qq;
            c.v = &v;
            robot.frame_kinematics(frame, c, out);
        };
        Eigen::MatrixXd stiffness;
        const double h = 1e-6;
        for (Index frame = 0; frame < robot.frame_count(); ++frame) {
            INFO("frame " << robot.frame_name(frame));
            at(frame, q, k);
            CHECK(k.is_wide() == wide);
            REQUIRE(k.dof_count == n);
            // The origin is the frame's point; [xdot; omega] = J v.
            Vec3 x, xdot;
            robot.point_state(robot.frame_point(frame), q, v, x, xdot);
            CHECK((k.origin - x).norm() <= 1e-14);
            Vec6 twist;
            twist << k.velocity, k.angular_velocity;
            CHECK((k.jacobian_columns() * v - twist).norm() <= 1e-12 * (1.0 + twist.norm()));
            const Eigen::MatrixXd fd = soma::testing::finite_difference_frame_jacobian(
                [&](const VectorX& qq) {
                    FrameKinematics f;
                    at(frame, qq, f);
                    return std::pair<Vec3, Mat3>(f.origin, f.rotation);
                },
                q, h);
            at(frame, q, k);
            CHECK((k.position_jacobian_columns() - fd).norm() <= 1e-8 * (1.0 + fd.norm()));
            CHECK((k.jacobian_columns() - k.position_jacobian_columns()).norm() == 0.0);
            // d(J^T [f; tau])/dq at fixed world f and tau.
            Eigen::MatrixXd dforce(n, n);
            Vec6 wrench;
            wrench << force, torque;
            for (Index j = 0; j < n; ++j) {
                VectorX p = q, m = q;
                p[j] += h;
                m[j] -= h;
                at(frame, p, kp);
                at(frame, m, km);
                dforce.col(j) = (kp.jacobian_columns().transpose() * wrench - km.jacobian_columns().transpose() * wrench) / (2 * h);
            }
            EvalContext c;
            c.q = &q;
            if (wide) {
                robot.wide_frame_geometric_stiffness(frame, c, force, torque, stiffness);
            } else {
                FrameStiffness narrow = FrameStiffness::Zero();
                robot.add_frame_geometric_stiffness(frame, c, force, torque, narrow);
                stiffness = narrow.topLeftCorner(n, n);
            }
            CHECK((stiffness - dforce).norm() <= 1e-8 * (1.0 + dforce.norm()));
        }
    }
}
