// The state-dependent external loads of the GVS inverse dynamics (Mathew et al., section 6):
// world-frame point wrenches (eqs. 53-56), the sphere-in-cylinder Hertz contact (eqs. 57-61) and
// the hydrodynamics (eqs. 62-66: drag-lift, added mass, buoyancy). Their derivatives against
// central differences of ID on the hybrid tree of test_inverse_dynamics.cpp, then each load on a
// body whose answer is known by hand, then what must not change: ID without loads, M's symmetry.
#include "gvs_test_trees.hpp"
#include "inverse_dynamics.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>

using namespace soma;
using namespace soma::gvs;
using namespace soma::gvs::testing;

namespace {

const Vec3 kGravity(0.3, -0.2, -9.81);

struct Differences {
    Eigen::MatrixXd dq, dqdot;
};

/// Central differences of ID in q and qdot, step 1e-6; \p probe carries the data's inputs.
Differences central_differences(const MultibodyModel& model, MultibodyData& probe, const VectorX& q,
                                const VectorX& qdot, const VectorX& qddot, const Vec3& gravity) {
    const Index n = model.dof_count;
    const double step = 1e-6;
    Differences fd{Eigen::MatrixXd(n, n), Eigen::MatrixXd(n, n)};
    for (Index j = 0; j < n; ++j) {
        VectorX e = VectorX::Zero(n);
        e[j] = step;
        inverse_dynamics(model, probe, q + e, qdot, qddot, gravity);
        VectorX plus = probe.id;
        inverse_dynamics(model, probe, q - e, qdot, qddot, gravity);
        fd.dq.col(j) = (plus - probe.id) / (2.0 * step);
        inverse_dynamics(model, probe, q, qdot + e, qddot, gravity);
        plus = probe.id;
        inverse_dynamics(model, probe, q, qdot - e, qddot, gravity);
        fd.dqdot.col(j) = (plus - probe.id) / (2.0 * step);
    }
    return fd;
}

/// A random matrix with entries in [-scale, scale].
Mat6 random_mat6(std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    Mat6 m;
    for (Index i = 0; i < 6; ++i)
        for (Index j = 0; j < 6; ++j) m(i, j) = u(rng);
    return m;
}

/// Central differences: truncation ~ step^2 |ID'''| ~ 1e-12 and round-off ~ 1e-16 |ID| / step
/// ~ 1e-10, relative; a wrong term (ad* for ad in eq. 54, the contact's sign, a missing 𝓓*) is
/// an O(1) relative error. 1e-7 sits between them.
constexpr double kTolerance = 1e-7;

void check_derivatives(const MultibodyModel& model, MultibodyData& data, MultibodyData& probe, const VectorX& q,
                       const VectorX& qdot, const VectorX& qddot) {
    inverse_dynamics_derivatives(model, data, q, qdot, qddot, kGravity);
    inverse_dynamics(model, probe, q, qdot, qddot, kGravity);
    CHECK((probe.id - data.id).norm() <= 1e-13 * data.id.norm());
    const Differences fd = central_differences(model, probe, q, qdot, qddot, kGravity);
    const double error_q = relative_error(data.did_dq, fd.dq), error_qdot = relative_error(data.did_dqdot, fd.dqdot);
    INFO("dID/dq error " << error_q << ", dID/dqdot error " << error_qdot);
    CHECK(error_q < kTolerance);
    CHECK(error_qdot < kTolerance);
}

/// Points of the hybrid tree that carry loads: both bodies and every rod point.
std::vector<Index> loaded_points() {
    std::vector<Index> points{HybridTree::body_point, HybridTree::link_point};
    for (Index k = HybridTree::rod_a_first; k < HybridTree::point_total; ++k) points.push_back(k);
    return points;
}

}  // namespace

TEST_CASE("GVS external loads: world-frame wrenches, derivatives against central differences", "[gvs][loads]") {
    std::mt19937 rng(21);
    const HybridTree tree(rng);
    MultibodyModel model = tree.model;
    for (const Index k : {HybridTree::body_point, HybridTree::link_point, Index{8}, Index{10}, Index{13}, Index{15}})
        add_world_wrench(model, k);
    MultibodyData data(model), probe(model), follower(tree.model);
    for (std::size_t slot = 0; slot < model.world_wrench_points.size(); ++slot) {
        data.world_wrench[slot] = random_vector(6, rng, 1.0);
        probe.world_wrench[slot] = data.world_wrench[slot];
    }
    const VectorX q = random_vector(tree.n, rng, 0.5), qdot = random_vector(tree.n, rng, 1.0),
                  qddot = random_vector(tree.n, rng, 1.0);
    check_derivatives(model, data, probe, q, qdot, qddot);
    // At a given state a world wrench is the follower wrench blockdiag(R^T, R^T) F_g (eq. 53).
    for (std::size_t slot = 0; slot < model.world_wrench_points.size(); ++slot) {
        const auto i = static_cast<std::size_t>(model.world_wrench_points[slot]);
        const Mat3 Rt = data.pose[i].R.transpose();
        follower.external_wrench[i] << Rt * data.world_wrench[slot].head<3>(), Rt * data.world_wrench[slot].tail<3>();
    }
    inverse_dynamics(tree.model, follower, q, qdot, qddot, kGravity);
    CHECK((follower.id - data.id).norm() <= 1e-13 * data.id.norm());
}

TEST_CASE("GVS external loads: cylinder-wall contact, derivatives against central differences", "[gvs][loads]") {
    std::mt19937 rng(23);
    const HybridTree tree(rng);
    const VectorX q = random_vector(tree.n, rng, 0.5), qdot = random_vector(tree.n, rng, 1.0),
                  qddot = random_vector(tree.n, rng, 1.0);
    // Where the points are: the wall goes between them, so that some press into it and some do not.
    MultibodyData plain(tree.model);
    inverse_dynamics(tree.model, plain, q, qdot, qddot, kGravity);
    const std::vector<Index> points = loaded_points();
    const auto sphere_radius = [](Index k) { return k >= HybridTree::rod_a_first ? 0.01 : 0.03; };
    std::vector<double> reach;  // |C_1 r_k| + r_k: delta_k = reach_k - r_cyl
    for (const Index k : points)
        reach.push_back(plain.pose[static_cast<std::size_t>(k)].p.head<2>().norm() + sphere_radius(k));
    std::vector<double> sorted = reach;
    std::sort(sorted.begin(), sorted.end());
    // The widest gap in the middle half of the sorted reaches: several points in contact, the
    // rest free, all far (in units of the 1e-6 step) from the kink at delta = 0.
    std::size_t gap = sorted.size() / 4;
    for (std::size_t i = sorted.size() / 4; i < 3 * sorted.size() / 4; ++i)
        if (sorted[i + 1] - sorted[i] > sorted[gap + 1] - sorted[gap]) gap = i;
    const double wall_radius = 0.5 * (sorted[gap] + sorted[gap + 1]);

    for (const bool active : {true, false}) {
        INFO("contact " << (active ? "active" : "inactive"));
        MultibodyModel model = tree.model;
        model.wall = CylinderWall{active ? wall_radius : 10.0, 50.0, 1.5};
        for (const Index k : points) add_wall_contact(model, k, sphere_radius(k));
        int pressed = 0;
        double closest = 1.0;
        for (const double r : reach) {
            pressed += r > model.wall.radius ? 1 : 0;
            closest = std::min(closest, std::abs(r - model.wall.radius));
        }
        if (active) {
            REQUIRE(pressed >= 3);
            REQUIRE(closest > 1e-3);
        }
        MultibodyData data(model), probe(model);
        check_derivatives(model, data, probe, q, qdot, qddot);
        if (!active) CHECK(data.id == plain.id);
        else CHECK((data.id - plain.id).norm() > 1e-2 * plain.id.norm());
    }
}

TEST_CASE("GVS external loads: drag-lift, added mass and buoyancy, derivatives against central differences",
          "[gvs][loads]") {
    std::mt19937 rng(29);
    const HybridTree tree(rng);
    MultibodyModel model = tree.model;
    for (const Index k : loaded_points()) {
        const Mat6 b = random_mat6(rng, 0.1);
        const Mat6 added_mass = 0.1 * model.inertia[static_cast<std::size_t>(k)] + b * b.transpose() * 1e-2;
        add_hydrodynamics(model, k, random_mat6(rng, 0.5), added_mass, 0.8);
    }
    MultibodyData data(model), probe(model);
    SECTION("random velocities") {
        for (int trial = 0; trial < 2; ++trial) {
            const VectorX q = random_vector(tree.n, rng, 0.5), qdot = random_vector(tree.n, rng, 1.0),
                          qddot = random_vector(tree.n, rng, 1.0);
            check_derivatives(model, data, probe, q, qdot, qddot);
        }
    }
    SECTION("a point at rest, eta_k = 0: the derivative of F_D there is zero") {
        // With eta_k = 0, F_D = 𝓓 |v| eta is O(|eta|^2) and its derivative zero, but |v| v is odd,
        // so a central difference of step h along e_j carries h |c_v| J_k^T 𝓓 c exactly up to
        // O(h^2), c = d eta_k/dx e_j (dqdot: J_k e_j; dq: R^B_k e_j). That term is taken out of
        // the differences, which then must match to 1e-7 as elsewhere (without it, 6e-6).
        const VectorX q = random_vector(tree.n, rng, 0.5), qddot = random_vector(tree.n, rng, 1.0);
        VectorX qdot = random_vector(tree.n, rng, 1.0);
        const std::size_t k = 8;
        inverse_dynamics_derivatives(model, data, q, qdot, qddot, kGravity);
        const Eigen::MatrixXd J = data.s_b[k];
        qdot -= J.transpose() * (J * J.transpose()).ldlt().solve(J * qdot);  // into J_k's null space
        inverse_dynamics_derivatives(model, data, q, qdot, qddot, kGravity);
        REQUIRE(data.eta[k].norm() < 1e-14);
        REQUIRE(model.hydrodynamics[k - 4].point == Index(k));
        const Mat6& drag = model.hydrodynamics[k - 4].drag;
        Differences fd = central_differences(model, probe, q, qdot, qddot, kGravity);
        const double step = 1e-6;
        for (Index j = 0; j < tree.n; ++j) {
            const Vec6 c_qdot = J.col(j), c_q = data.r_b[k].col(j);
            fd.dqdot.col(j) -= step * c_qdot.tail<3>().norm() * (J.transpose() * (drag * c_qdot));
            fd.dq.col(j) -= step * c_q.tail<3>().norm() * (J.transpose() * (drag * c_q));
        }
        const double error_q = relative_error(data.did_dq, fd.dq), error_qdot = relative_error(data.did_dqdot, fd.dqdot);
        INFO("dID/dq error " << error_q << ", dID/dqdot error " << error_qdot);
        CHECK(error_q < kTolerance);
        CHECK(error_qdot < kTolerance);
    }
}

TEST_CASE("GVS external loads: drag at a point spinning in place, v = 0 and w != 0: one-sided derivatives",
          "[gvs][loads]") {
    // F_D = 𝓓 |v| [w; v] has the kink 𝓓 [w; 0] |v| at v = 0, where the analytical derivative is
    // the symmetric one (𝓓* = 0). A one-sided difference of step h along e_j adds
    // J_k^T 𝓓 [w; 0] |c_v|, c = d eta_k/dx e_j (dqdot: J_k e_j; dq: R^B_k e_j), up to O(h) (Kane:
    // a point wrench enters ID as J_k^T F_k). v must be exactly zero: at |v| ~ 1e-15 the exact
    // derivative is the one-sided one along the round-off's direction, O(1) away from either.
    // The body: a hinge about x, an arm to (0, 0, -l), a slider along the arm's y; at s = 0 and
    // sdot = -l thetadot the body spins about x without translating: v = (0, l thetadot + sdot,
    // s thetadot) = 0, and dv/ds = (0, 0, thetadot) makes a kink in q as well.
    const double l = 0.5, w = 0.8;
    MultibodyModel model;
    model.dof_count = 2;
    Edge hinge;
    hinge.kind = EdgeKind::rigid_joint;
    hinge.dof_count = 1;
    hinge.phi_z1 = Matrix6X::Zero(6, 1);
    hinge.phi_z1(0, 0) = 1.0;
    Index at = model.add_point(hinge, 0, Mat6::Zero());
    Edge arm;
    arm.transform.p = Vec3(0.0, 0.0, -l);
    at = model.add_point(arm, at, Mat6::Zero());
    Edge slider;
    slider.kind = EdgeKind::rigid_joint;
    slider.first_dof = 1;
    slider.dof_count = 1;
    slider.phi_z1 = Matrix6X::Zero(6, 1);
    slider.phi_z1(4, 0) = 1.0;
    Mat6 inertia = Mat6::Zero();
    inertia.diagonal() << 1e-2, 2e-2, 3e-2, 1.0, 1.0, 1.0;
    const Index body = model.add_point(slider, at, inertia);
    std::mt19937 rng(43);
    const Mat6 drag = random_mat6(rng, 1.0);
    add_hydrodynamics(model, body, drag, Mat6::Zero(), 0.0);
    MultibodyData data(model), probe(model);
    const VectorX q = (VectorX(2) << 0.3, 0.0).finished(), qdot = (VectorX(2) << w, -l * w).finished(),
                  qddot = (VectorX(2) << 0.2, -0.7).finished();
    inverse_dynamics_derivatives(model, data, q, qdot, qddot, kGravity);
    const auto k = static_cast<std::size_t>(body);
    REQUIRE(data.eta[k].tail<3>().isZero(0.0));
    REQUIRE(data.eta[k][0] == Approx(w));
    Vec6 spin = Vec6::Zero();
    spin.head<3>() = data.eta[k].head<3>();
    const VectorX kink_direction = data.s_b[k].transpose() * (drag * spin);
    const double h = 1e-7;
    double worst = 0.0;
    for (Index j = 0; j < 2; ++j) {
        VectorX e = VectorX::Zero(2);
        e[j] = h;
        for (const bool in_q : {false, true}) {
            const double slope = (in_q ? data.r_b[k] : data.s_b[k]).bottomRows<3>().col(j).norm();
            inverse_dynamics(model, probe, in_q ? VectorX(q + e) : q, in_q ? qdot : VectorX(qdot + e), qddot, kGravity);
            const VectorX plus = probe.id;
            inverse_dynamics(model, probe, in_q ? VectorX(q - e) : q, in_q ? qdot : VectorX(qdot - e), qddot, kGravity);
            const VectorX minus = probe.id;
            const VectorX analytic = in_q ? data.did_dq.col(j) : data.did_dqdot.col(j);
            const VectorX forward = (plus - data.id) / h, backward = (data.id - minus) / h;
            const VectorX kink = slope * kink_direction;
            const double scale = kink.norm() + analytic.norm();
            worst = std::max(worst, (forward - analytic - kink).norm() / scale);
            worst = std::max(worst, (backward - analytic + kink).norm() / scale);
            // theta leaves v at zero; thetadot, sdot and s do not: O(1) kinks
            if (in_q && j == 0) CHECK(kink.isZero(0.0));
            else CHECK(kink.norm() > 1e-2);
        }
    }
    // The mismatch is O(h) = 1e-7
    // curvature and round-off 1e-16 |ID| / h ~ 1e-9; a kink of the wrong size or sign, or a
    // nonzero derivative at the point, is O(1).
    INFO("worst one-sided mismatch " << worst);
    CHECK(worst < 1e-5);
}

TEST_CASE("GVS external loads: all at once, derivatives against central differences", "[gvs][loads]") {
    std::mt19937 rng(31);
    const HybridTree tree(rng);
    MultibodyModel model = tree.model;
    model.wall = CylinderWall{0.2, 20.0, 2.0};
    for (const Index k : loaded_points()) {
        add_world_wrench(model, k);
        add_wall_contact(model, k, 0.02);
        const Mat6 b = random_mat6(rng, 0.1);
        add_hydrodynamics(model, k, random_mat6(rng, 0.5), b * b.transpose(), 1.1);
    }
    MultibodyData data(model), probe(model);
    for (auto& w : data.world_wrench) w = random_vector(6, rng, 1.0);
    probe.world_wrench = data.world_wrench;
    const VectorX q = random_vector(tree.n, rng, 0.5), qdot = random_vector(tree.n, rng, 1.0),
                  qddot = random_vector(tree.n, rng, 1.0);
    check_derivatives(model, data, probe, q, qdot, qddot);
    // M with added mass: symmetric, positive definite and Kane's sum J^T (𝓜 + 𝓜_A) J.
    Eigen::MatrixXd kane = Eigen::MatrixXd::Zero(tree.n, tree.n);
    for (Index k = 0; k < model.point_count(); ++k) {
        const auto i = static_cast<std::size_t>(k);
        kane += data.s_b[i].transpose() * model.inertia[i] * data.s_b[i];
    }
    CHECK(relative_error(data.mass, kane) < 1e-12);
    CHECK(relative_error(data.mass.transpose(), data.mass) < 1e-12);
    CHECK(Eigen::LLT<Eigen::MatrixXd>(data.mass).info() == Eigen::Success);
}

TEST_CASE("GVS external loads: a pendulum held by a constant world force, by hand", "[gvs][loads]") {
    // The pendulum of test_inverse_dynamics.cpp (hinge about world x, arm along -z at theta = 0,
    // gravity -z) with a world wrench [mu; f] at the bob, r = (0, l sin, -l cos):
    //   ID = I theta'' + m g l sin - (l sin f_z + l cos f_y + mu_x),
    //   dID/dtheta = m g l cos - l cos f_z + l sin f_y.
    // A follower force would turn with the arm and give another dID/dtheta.
    const double m = 2.0, l = 0.5, Ic = 0.01, g = 9.81;
    Pendulum pendulum(m, l, Ic);
    MultibodyModel& model = pendulum.model;
    const Index slot = add_world_wrench(model, pendulum.bob);
    MultibodyData data(model);
    const double fy = 7.0, fz = -3.0, mux = 0.4;
    data.world_wrench[static_cast<std::size_t>(slot)] << mux, 0.2, -0.1, 0.5, fy, fz;
    for (const double theta : {0.0, 0.3, -1.2}) {
        const double theta_ddot = -1.3;
        inverse_dynamics_derivatives(model, data, VectorX::Constant(1, theta), VectorX::Constant(1, 0.7),
                                     VectorX::Constant(1, theta_ddot), Vec3(0.0, 0.0, -g));
        const double s = std::sin(theta), c = std::cos(theta);
        const double expected = (Ic + m * l * l) * theta_ddot + m * g * l * s - (l * s * fz + l * c * fy + mux);
        CHECK(data.id[0] == Approx(expected).epsilon(1e-13).margin(1e-13));
        CHECK(data.did_dq(0, 0) == Approx(m * g * l * c - l * c * fz + l * s * fy).epsilon(1e-13).margin(1e-13));
    }
    // The static balance with f = (0, f_y, 0): tan(theta) = f_y / (m g), no torque needed.
    data.world_wrench[static_cast<std::size_t>(slot)] << 0.0, 0.0, 0.0, 0.0, fy, 0.0;
    const double balance = std::atan2(fy, m * g);
    inverse_dynamics(model, data, VectorX::Constant(1, balance), VectorX::Zero(1), VectorX::Zero(1),
                     Vec3(0.0, 0.0, -g));
    CHECK(std::abs(data.id[0]) < 1e-14 * m * g * l);
}

namespace {

VectorX vec2(double a, double b) {
    VectorX v(2);
    v << a, b;
    return v;
}

/// A body of mass m on two prismatic joints along the world x and y axes from the origin (at
/// height z0): it sits at (q_0, q_1, z0) with the world's orientation.
MultibodyModel sliding_body(double m, double z0) {
    MultibodyModel model;
    model.dof_count = 2;
    model.root_pose.p = Vec3(0.0, 0.0, z0);
    Index at = 0;
    for (Index axis = 0; axis < 2; ++axis) {
        Edge slide;
        slide.kind = EdgeKind::rigid_joint;
        slide.first_dof = axis;
        slide.dof_count = 1;
        slide.phi_z1 = Matrix6X::Zero(6, 1);
        slide.phi_z1(3 + axis, 0) = 1.0;
        Mat6 inertia = Mat6::Zero();
        if (axis == 1) inertia.diagonal() << 1e-3, 2e-3, 3e-3, m, m, m;
        at = model.add_point(slide, at, inertia);
    }
    return model;
}

}  // namespace

TEST_CASE("GVS external loads: drag, added mass and buoyancy on a translating body, by hand", "[gvs][loads]") {
    // Moving along x at speed v: eta = [0; v, 0, 0], F_D = 𝓓 |v| eta, so
    //   ID_x = (m + m_A) a + c_x |v| v + (1 - rho_w / rho_b) m g0     (gravity -g0 along x),
    //   dID_x/dqdot_x = 2 c_x |v|, M_xx = m + m_A.
    const double m = 1.5, ma = 0.4, cx = 0.8, ratio = 0.6, g0 = 9.81;
    MultibodyModel model = sliding_body(m, 0.0);
    Mat6 drag = Mat6::Zero();
    drag.diagonal() << 0.01, 0.01, 0.01, cx, 2.0, 3.0;
    Mat6 added = Mat6::Zero();
    added.diagonal() << 1e-4, 1e-4, 1e-4, ma, ma, ma;
    add_hydrodynamics(model, 2, drag, added, ratio);
    MultibodyData data(model);
    for (const double v : {1.7, -0.6, 0.0}) {
        const double a = 0.9;
        for (const double gravity : {0.0, g0}) {
            inverse_dynamics_derivatives(model, data, vec2(0.3, -0.2), vec2(v, 0.0), vec2(a, 0.0),
                                         Vec3(-gravity, 0.0, 0.0));
            const double expected = (m + ma) * a + cx * std::abs(v) * v + (1.0 - ratio) * m * gravity;
            CHECK(data.id[0] == Approx(expected).epsilon(1e-14));
            CHECK(data.id[1] == Approx(0.0).margin(1e-14));
            CHECK(data.did_dqdot(0, 0) == Approx(2.0 * cx * std::abs(v)).margin(1e-14));
            CHECK(data.mass(0, 0) == Approx(m + ma).epsilon(1e-14));
        }
    }
}

TEST_CASE("GVS external loads: a sphere pressed into the cylinder wall, by hand", "[gvs][loads]") {
    // The body at (rho, y, z0) with a sphere of radius r_s, the wall r_cyl about the z axis:
    // delta = |(rho, y)| + r_s - r_cyl and the wall pushes back towards the axis with k_c delta^p,
    // which the joints must hold: at y = 0, ID = (k_c delta^p, 0), dID_x/dq_x = k_c p delta^(p-1)
    // and, from the force turning with the normal, dID_y/dq_y = k_c delta^p / rho.
    const double kc = 1e5, p = 1.5, r_cyl = 0.15, r_s = 0.01;
    MultibodyModel model = sliding_body(0.5, 0.7);  // the height along the axis does not matter
    model.wall = CylinderWall{r_cyl, kc, p};
    add_wall_contact(model, 2, r_s);
    MultibodyData data(model);
    for (const double delta : {1e-3, 4e-3}) {
        const double rho = r_cyl - r_s + delta;
        inverse_dynamics_derivatives(model, data, vec2(rho, 0.0), VectorX::Zero(2), VectorX::Zero(2), Vec3::Zero());
        CHECK(data.id[0] == Approx(kc * std::pow(delta, p)).epsilon(1e-12));
        CHECK(data.id[1] == Approx(0.0).margin(1e-12));
        CHECK(data.did_dq(0, 0) == Approx(kc * p * std::pow(delta, p - 1.0)).epsilon(1e-12));
        CHECK(data.did_dq(1, 1) == Approx(kc * std::pow(delta, p) / rho).epsilon(1e-12));
        CHECK(std::abs(data.did_dq(0, 1)) + std::abs(data.did_dq(1, 0)) < 1e-12 * data.did_dq(0, 0));
        // On the other side of the axis the wall pushes the other way.
        inverse_dynamics(model, data, vec2(-rho, 0.0), VectorX::Zero(2), VectorX::Zero(2), Vec3::Zero());
        CHECK(data.id[0] == Approx(-kc * std::pow(delta, p)).epsilon(1e-12));
    }
    // Not touching: no force, no stiffness.
    inverse_dynamics_derivatives(model, data, vec2(r_cyl - r_s - 1e-3, 0.0), VectorX::Zero(2), VectorX::Zero(2), Vec3::Zero());
    CHECK(data.id.isZero(0.0));
    CHECK(data.did_dq.isZero(0.0));
}

TEST_CASE("GVS external loads: declared but zero, ID and its derivatives are bit-identical", "[gvs][loads]") {
    // World wrenches left at zero, a wall out of reach, hydrodynamics with zero coefficients:
    // every load adds an exact zero, so nothing may change in the last bit.
    std::mt19937 rng(37);
    const HybridTree tree(rng);
    MultibodyModel model = tree.model;
    model.wall = CylinderWall{10.0, 1e5, 1.5};
    for (const Index k : loaded_points()) {
        add_world_wrench(model, k);
        add_wall_contact(model, k, 0.01);
        add_hydrodynamics(model, k, Mat6::Zero(), Mat6::Zero(), 0.0);
    }
    MultibodyData loaded(model), plain(tree.model);
    const VectorX q = random_vector(tree.n, rng, 0.5), qdot = random_vector(tree.n, rng, 1.0),
                  qddot = random_vector(tree.n, rng, 1.0);
    inverse_dynamics_derivatives(model, loaded, q, qdot, qddot, kGravity);
    inverse_dynamics_derivatives(tree.model, plain, q, qdot, qddot, kGravity);
    CHECK(loaded.id == plain.id);
    CHECK(loaded.did_dq == plain.did_dq);
    CHECK(loaded.did_dqdot == plain.did_dqdot);
    CHECK(loaded.mass == plain.mass);
}

TEST_CASE("GVS external loads: the model rejects what it cannot evaluate", "[gvs][loads]") {
    std::mt19937 rng(41);
    const HybridTree tree(rng);
    MultibodyModel model = tree.model;
    CHECK_THROWS_AS(add_world_wrench(model, 99), std::invalid_argument);
    CHECK_THROWS_AS(add_wall_contact(model, 6, 0.01), std::invalid_argument);  // no wall yet
    model.wall = CylinderWall{0.2, 1e3, 0.5};
    CHECK_THROWS_AS(add_wall_contact(model, 6, 0.01), std::invalid_argument);  // p < 1
    model.wall.exponent = 1.5;
    CHECK_THROWS_AS(add_wall_contact(model, 6, 0.3), std::invalid_argument);  // sphere > cylinder
    add_hydrodynamics(model, 6, Mat6::Zero(), Mat6::Zero(), 1.0);
    CHECK_THROWS_AS(add_hydrodynamics(model, 6, Mat6::Zero(), Mat6::Zero(), 1.0), std::invalid_argument);
}
