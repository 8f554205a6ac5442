// The virtual joint (Mathew et al., Appendix C) of a soft interval, both Magnus orders, and of
// rigid joints (spherical, free): every rate against a central difference in time along
// q(t) = q + t qdot + t^2/2 qddot, every q-derivative block against central differences in q,
// (dS^T/dq) F against differences of S^T F, at a random configuration, at a straight rod
// (theta = 0 exactly), at a tiny curvature and past the series switch; and the fourth- and
// second-order twists against an accurate integration of g' = g xi^ with their convergence rates.
#include "../virtual_joint.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::gvs;

namespace {

Matrix6X random_matrix(std::mt19937& gen, Index cols, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Matrix6X m(6, cols);
    for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < 6; ++i) m(i, j) = scale * u(gen);
    return m;
}

VectorX random_vector(std::mt19937& gen, Index n, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX v(n);
    for (Index i = 0; i < n; ++i) v[i] = scale * u(gen);
    return v;
}

/// One joint under test: evaluates its kinematics and (dS^T/dq) F into fresh buffers.
struct JointUnderTest {
    std::string name;
    Index n = 0;
    std::function<void(const VectorX&, const VectorX&, const VectorX&, VirtualJointKinematics&)> evaluate;
    std::function<void(const VirtualJointKinematics&, const Vec6&, Eigen::Ref<Eigen::MatrixXd>)> add_dST;

    VirtualJointKinematics at(const VectorX& q, const VectorX& qdot, const VectorX& qddot) const {
        VirtualJointKinematics k;
        k.resize(n);
        evaluate(q, qdot, qddot, k);
        return k;
    }
};

JointUnderTest soft_joint(MagnusOrder order, double h, const Matrix6X& phi1, const Matrix6X& phi2, const Vec6& xs1,
                          const Vec6& xs2, const std::string& name) {
    JointUnderTest j;
    j.name = name;
    j.n = static_cast<Index>(phi1.cols());
    j.evaluate = [=](const VectorX& q, const VectorX& qd, const VectorX& qdd, VirtualJointKinematics& k) {
        evaluate_soft_joint(order, h, phi1, phi2, xs1, xs2, q, qd, qdd, k);
    };
    j.add_dST = [=](const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out) {
        add_dST_dq_times(order, h, phi1, phi2, k, F, out);
    };
    return j;
}

JointUnderTest rigid_joint(const Matrix6X& phi, const Vec6& xi_star, const std::string& name) {
    JointUnderTest j;
    j.name = name;
    j.n = static_cast<Index>(phi.cols());
    j.evaluate = [=](const VectorX& q, const VectorX& qd, const VectorX& qdd, VirtualJointKinematics& k) {
        evaluate_rigid_joint(phi, xi_star, q, qd, qdd, k);
    };
    j.add_dST = [](const VirtualJointKinematics& k, const Vec6& F, Eigen::Ref<Eigen::MatrixXd> out) {
        add_dST_dq_times_rigid(k, F, out);
    };
    return j;
}

/// A configuration to test at, with a label.
struct State {
    std::string name;
    VectorX q, qdot, qddot;
};

template <class A, class B>
double relative_error(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
    return (a - b).norm() / b.norm();
}

// Central differences with step 1e-6 on O(1) quantities: truncation eps^2 |f'''| ~ 1e-12, round-off
// 1e-16/eps ~ 1e-10 relative. 1e-7 leaves three orders of magnitude for less benign entries.
constexpr double kStep = 1e-6;
constexpr double kTolerance = 1e-7;

void check_joint(const JointUnderTest& joint, const State& s, std::mt19937& gen) {
    INFO(joint.name << " at " << s.name);
    const Index n = joint.n;
    const double e = kStep;
    const VirtualJointKinematics k = joint.at(s.q, s.qdot, s.qddot);

    // Along the trajectory q(t) = q + t qdot + t^2/2 qddot, qdot(t) = qdot + t qddot.
    auto at_time = [&](double t) {
        return joint.at(s.q + t * s.qdot + 0.5 * t * t * s.qddot, s.qdot + t * s.qddot, s.qddot);
    };
    const VirtualJointKinematics kp = at_time(e), km = at_time(-e);
    auto check = [&](const char* what, double err) {
        INFO(what << ": relative error " << err);
        CHECK(err < kTolerance);
    };
    check("Omega_dot = dOmega/dt", relative_error(Vec6((kp.Omega - km.Omega) / (2 * e)), k.Omega_dot));
    check("Omega_ddot = dOmega_dot/dt", relative_error(Vec6((kp.Omega_dot - km.Omega_dot) / (2 * e)), k.Omega_ddot));
    check("T_dot = dT/dt", relative_error(Mat6((kp.T - km.T) / (2 * e)), k.T_dot));
    check("S_dot = dS/dt", relative_error(Matrix6X((kp.S - km.S) / (2 * e)), k.S_dot));
    if (k.Z_dot.norm() > 0.0) {  // soft fourth order: Z depends on q
        check("Z_dot = dZ/dt", relative_error(Matrix6X((kp.Z - km.Z) / (2 * e)), k.Z_dot));
        check("Z_ddot = dZ_dot/dt", relative_error(Matrix6X((kp.Z_dot - km.Z_dot) / (2 * e)), k.Z_ddot));
    } else {  // Z constant: its rates vanish
        CHECK((kp.Z - km.Z).norm() == 0.0);
        CHECK(k.Z_ddot.norm() == 0.0);
    }

    // Exact relations between the outputs.
    CHECK((k.T - tangent(k.Omega)).norm() < 1e-15);
    CHECK((k.T_dot - tangent_dot(k.Omega, k.Omega_dot)).norm() < 1e-14);
    CHECK((k.S - k.T * k.Z).norm() < 1e-14 * k.S.norm());
    CHECK((k.Omega_dot - k.Z * s.qdot).norm() < 1e-14 * (1.0 + k.Omega_dot.norm()));
    CHECK((k.Omega_ddot - k.Z * s.qddot - k.Z_dot * s.qdot).norm() < 1e-14 * (1.0 + k.Omega_ddot.norm()));
    CHECK((to_matrix(k.g) - to_matrix(exp_twist(k.Omega))).norm() == 0.0);

    // q-derivatives, column by column.
    const Vec6 F = random_matrix(gen, 1, 2.0);
    Matrix6X z_fd(6, n), ds_qdot(6, n), ds_qddot(6, n), dsdot_qdot(6, n);
    Eigen::MatrixXd dst_fd(n, n);
    for (Index c = 0; c < n; ++c) {
        VectorX qp = s.q, qm = s.q;
        qp[c] += e;
        qm[c] -= e;
        const VirtualJointKinematics a = joint.at(qp, s.qdot, s.qddot), b = joint.at(qm, s.qdot, s.qddot);
        z_fd.col(c) = (a.Omega - b.Omega) / (2 * e);
        const Matrix6X dS = (a.S - b.S) / (2 * e);
        ds_qdot.col(c) = dS * s.qdot;
        ds_qddot.col(c) = dS * s.qddot;
        dsdot_qdot.col(c) = (a.S_dot - b.S_dot) / (2 * e) * s.qdot;
        dst_fd.col(c) = dS.transpose() * F;
    }
    check("Z = dOmega/dq", relative_error(z_fd, k.Z));
    check("(dS/dq) qdot", relative_error(ds_qdot, k.dS_dq_qdot));
    check("(dS/dq) qddot", relative_error(ds_qddot, k.dS_dq_qddot));
    check("(dSdot/dq) qdot", relative_error(dsdot_qdot, k.dSdot_dq_qdot));

    // add_dST_dq_times adds to what is there.
    Eigen::MatrixXd before(n, n);
    for (Index c = 0; c < n; ++c) before.col(c) = random_vector(gen, n, 1.0);
    Eigen::MatrixXd out = before;
    joint.add_dST(k, F, out);
    check("(dS^T/dq) F", relative_error(Eigen::MatrixXd(out - before), dst_fd));

    // Evaluating again into the same buffers gives the same numbers.
    VirtualJointKinematics again = k;
    joint.evaluate(s.q, s.qdot, s.qddot, again);
    CHECK(again.dSdot_dq_qdot == k.dSdot_dq_qdot);
    CHECK(again.S == k.S);
}

std::vector<State> states(std::mt19937& gen, Index n, double q_scale) {
    std::vector<State> out;
    out.push_back({"random q", random_vector(gen, n, q_scale), random_vector(gen, n, 1.0), random_vector(gen, n, 1.0)});
    out.push_back({"q = 0", VectorX::Zero(n), random_vector(gen, n, 1.0), random_vector(gen, n, 1.0)});
    out.push_back({"tiny q", random_vector(gen, n, 1e-7), random_vector(gen, n, 1.0), random_vector(gen, n, 1.0)});
    out.push_back({"zero rates", random_vector(gen, n, q_scale), VectorX::Zero(n), VectorX::Zero(n)});
    return out;
}

}  // namespace

TEST_CASE("Soft virtual joint, fourth order: rates and q-derivatives against finite differences", "[gvs]") {
    std::mt19937 gen(11);
    const Index n = 5;
    const Vec6 straight(0, 0, 0, 1, 0, 0);
    const Matrix6X phi1 = random_matrix(gen, n, 1.0), phi2 = random_matrix(gen, n, 1.0);
    const JointUnderTest joint = soft_joint(MagnusOrder::fourth, 0.4, phi1, phi2, straight, straight, "soft, 4th order");
    for (const State& s : states(gen, n, 1.0)) {
        if (s.name == "zero rates") continue;  // relative errors of zero blocks: below
        check_joint(joint, s, gen);
    }
    // A straight rod at q = 0 has theta = 0 exactly (the commutator of equal strains vanishes).
    const VirtualJointKinematics straight_rod = joint.at(VectorX::Zero(n), VectorX::Zero(n), VectorX::Zero(n));
    CHECK(straight_rod.Omega == 0.4 * straight);
    CHECK(straight_rod.T == Mat6::Identity() + 0.5 * ad(straight_rod.Omega));  // ad^2 = 0 for a translation
    // At rest all the rate-dependent blocks vanish.
    const State rest = states(gen, n, 1.0)[3];
    const VirtualJointKinematics k = joint.at(rest.q, rest.qdot, rest.qddot);
    CHECK(k.Omega_dot.norm() == 0.0);
    CHECK(k.S_dot.norm() == 0.0);
    CHECK(k.dS_dq_qdot.norm() == 0.0);
    CHECK(k.dSdot_dq_qdot.norm() == 0.0);
    // Strong curvature: theta above the series switch (closed-form coefficients).
    const JointUnderTest curved = soft_joint(MagnusOrder::fourth, 1.0, phi1, phi2, Vec6(2.0, -1.0, 1.5, 1, 0, 0),
                                             Vec6(2.5, -0.5, 1.0, 1, 0, 0), "soft, 4th order, theta > 2");
    const State large{"large q", random_vector(gen, n, 0.5), random_vector(gen, n, 1.0), random_vector(gen, n, 1.0)};
    CHECK(curved.at(large.q, large.qdot, large.qddot).Omega.head<3>().norm() > detail::kSeriesAngle);
    check_joint(curved, large, gen);
}

TEST_CASE("Soft virtual joint, second order: rates and q-derivatives against finite differences", "[gvs]") {
    std::mt19937 gen(12);
    const Index n = 4;
    const Vec6 straight(0, 0, 0, 1, 0, 0);
    const Matrix6X phi_mid = random_matrix(gen, n, 1.0);
    const Matrix6X unused = random_matrix(gen, n, 1.0);
    const JointUnderTest joint =
        soft_joint(MagnusOrder::second, 0.3, phi_mid, unused, straight, Vec6::Constant(7.0), "soft, 2nd order");
    for (const State& s : states(gen, n, 1.0))
        if (s.name != "zero rates") check_joint(joint, s, gen);
    // The midpoint rule reads z1 only.
    const State s = states(gen, n, 1.0)[0];
    const VirtualJointKinematics k = joint.at(s.q, s.qdot, s.qddot);
    CHECK((k.Omega - 0.3 * (phi_mid * s.q + straight)).norm() < 1e-15);
    CHECK((k.Z - 0.3 * phi_mid).norm() == 0.0);
}

TEST_CASE("Rigid joints (spherical, free): rates and q-derivatives against finite differences", "[gvs]") {
    std::mt19937 gen(13);
    Matrix6X spherical = Matrix6X::Zero(6, 3);
    spherical.topRows<3>().setIdentity();
    const Matrix6X free = Matrix6X::Identity(6, 6);
    const JointUnderTest joints[] = {rigid_joint(spherical, Vec6::Zero(), "spherical joint"),
                                     rigid_joint(free, Vec6::Zero(), "free joint"),
                                     rigid_joint(free, Vec6(0, 0, 0, 0.5, 0, 0), "free joint with offset")};
    for (const JointUnderTest& joint : joints) {
        for (const State& s : states(gen, joint.n, 1.0))
            if (s.name != "zero rates") check_joint(joint, s, gen);
        // Past the switch: rotation angle 2.5 rad.
        State big{"theta = 2.5", random_vector(gen, joint.n, 1.0), random_vector(gen, joint.n, 1.0),
                  random_vector(gen, joint.n, 1.0)};
        big.q.head<3>() *= 2.5 / big.q.head<3>().norm();
        check_joint(joint, big, gen);
    }
    // The free joint: S = T, and the pose is exp of the coordinates.
    const VectorX q = random_vector(gen, 6, 1.0), v = random_vector(gen, 6, 1.0);
    const VirtualJointKinematics k = joints[1].at(q, v, v);
    CHECK((k.S - tangent(q)).norm() < 1e-15);
}

namespace {

/// A polynomial strain field xi(X) = Phi(X) q + xi*, Phi(X) = [I, X I, X^2 I, X^3 I] (n = 24).
Matrix6X polynomial_basis(double X) {
    Matrix6X phi(6, 24);
    double power = 1.0;
    for (Index d = 0; d < 4; ++d) {
        phi.middleCols<6>(6 * d) = power * Mat6::Identity();
        power *= X;
    }
    return phi;
}

/// g(X_a + h) in the frame at X_a by classical RK4 on g' = g xi^ with 2000 steps: local errors
/// (h/2000)^5 |xi|^5 ~ 1e-20, round-off ~1e-14 after 2000 steps.
Pose integrate_strain(const VectorX& q, const Vec6& xi_star, double X_a, double h) {
    auto rhs = [&](double X, const Eigen::Matrix4d& g) { return Eigen::Matrix4d(g * hat(polynomial_basis(X) * q + xi_star)); };
    Eigen::Matrix4d g = Eigen::Matrix4d::Identity();
    const int steps = 2000;
    const double dx = h / steps;
    for (int i = 0; i < steps; ++i) {
        const double X = X_a + i * dx;
        const Eigen::Matrix4d k1 = rhs(X, g);
        const Eigen::Matrix4d k2 = rhs(X + dx / 2, g + dx / 2 * k1);
        const Eigen::Matrix4d k3 = rhs(X + dx / 2, g + dx / 2 * k2);
        const Eigen::Matrix4d k4 = rhs(X + dx, g + dx * k3);
        g += dx / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    return Pose{g.topLeftCorner<3, 3>(), g.topRightCorner<3, 1>()};
}

/// |log(g_ref^{-1} exp(Omega^))| for one interval with the given Magnus order.
double magnus_error(MagnusOrder order, const VectorX& q, const Vec6& xi_star, double X_a, double h) {
    const double z1 = X_a + (0.5 - std::sqrt(3.0) / 6.0) * h, z2 = X_a + (0.5 + std::sqrt(3.0) / 6.0) * h;
    const Matrix6X phi1 = order == MagnusOrder::fourth ? polynomial_basis(z1) : polynomial_basis(X_a + h / 2);
    const Matrix6X phi2 = polynomial_basis(z2);
    VirtualJointKinematics k;
    k.resize(24);
    const VectorX zero = VectorX::Zero(24);
    evaluate_soft_joint(order, h, phi1, phi2, xi_star, xi_star, q, zero, zero, k);
    return log_pose(compose(inverse(integrate_strain(q, xi_star, X_a, h)), k.g)).norm();
}

}  // namespace

TEST_CASE("Magnus twists against an integration of g' = g xi^: errors O(h^5) and O(h^3)", "[gvs]") {
    std::mt19937 gen(14);
    const Vec6 straight(0, 0, 0, 1, 0, 0);
    // Curvature and shear of order 5 varying strongly along X (X^3 terms): the truncation errors
    // (fourth order: 1.3e-5 at h = 0.1, 3.4e-10 at h = 0.0125) stay far above the reference's
    // round-off (1e-14).
    const VectorX q = random_vector(gen, 24, 5.0);
    const double X_a = 0.3;
    double previous4 = 0.0, previous2 = 0.0;
    for (const double h : {0.1, 0.05, 0.025, 0.0125}) {
        const double e4 = magnus_error(MagnusOrder::fourth, q, straight, X_a, h);
        const double e2 = magnus_error(MagnusOrder::second, q, straight, X_a, h);
        INFO("h = " << h << ": fourth-order error " << e4 << ", second-order error " << e2);
        CHECK(e4 < e2);
        if (previous4 > 0.0) {
            // Halving h divides a local error O(h^5) by 32 and O(h^3) by 8. The next terms of the
            // expansions still show (measured ratios 34.6, 33.2, 32.6 and 8.70, 8.37, 8.19), so
            // the bounds allow about 10%.
            INFO("ratios " << previous4 / e4 << ", " << previous2 / e2);
            CHECK(previous4 / e4 > 30.0);
            CHECK(previous4 / e4 < 36.0);
            CHECK(previous2 / e2 > 7.5);
            CHECK(previous2 / e2 < 9.0);
        }
        previous4 = e4;
        previous2 = e2;
    }
}
