#pragma once
// Shared by the GVS inverse-dynamics tests: a smooth random strain basis, a hand-built soft rod,
// random rigid bodies and poses, and the hybrid tree that mixes every edge kind: root -> fixed ->
// revolute -> fixed [body] -> spherical -> fixed [body 2], and two soft rods from body 1 (one
// 4th-order Magnus, one 2nd-order and Kirchhoff).
#include "multibody_model.hpp"

#include <Eigen/Dense>
#include <Eigen/Geometry>

#include <array>
#include <cmath>
#include <random>
#include <vector>

namespace soma::gvs::testing {

inline constexpr double kSqrt3 = 1.7320508075688772;

/// A smooth strain basis for the tests: Phi_ij(X) = c0 + c1 X + c2 X^2 with random
/// coefficients on the active rows (any smooth Phi exercises the derivative formulas).
struct TestBasis {
    Eigen::MatrixXd c0, c1, c2;
    TestBasis(Index n, std::mt19937& rng, const std::array<bool, 6>& active) {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        c0.setZero(6, n);
        c1.setZero(6, n);
        c2.setZero(6, n);
        for (Index i = 0; i < 6; ++i)
            for (Index j = 0; j < n; ++j)
                if (active[static_cast<std::size_t>(i)]) {
                    c0(i, j) = u(rng);
                    c1(i, j) = u(rng);
                    c2(i, j) = u(rng);
                }
    }
    Matrix6X at(double X) const { return c0 + X * c1 + X * X * c2; }
};

/// A circular rod's screw inertia per unit length, rho diag(J, J/2, J/2, A, A, A).
inline Mat6 rod_inertia_per_length(double rho, double radius) {
    const double area = M_PI * radius * radius, polar = M_PI * std::pow(radius, 4) / 2.0;
    Vec6 d;
    d << polar, polar / 2, polar / 2, area, area, area;
    return rho * d.asDiagonal().toDenseMatrix();
}

/// Adds a soft rod of length L from point \p parent: 2-point Gauss quadrature on each of
/// \p segments equal pieces (points at the Gauss nodes, the tip with weight 0), coordinates
/// [first, first + n).
inline void add_soft_rod(MultibodyModel& model, Index parent, const TestBasis& basis, Index first, Index n, double L,
                  Index segments, MagnusOrder order, const Mat6& inertia_per_length) {
    std::vector<double> X{0.0}, w{0.0};
    const double piece = L / static_cast<double>(segments);
    for (Index s = 0; s < segments; ++s) {
        for (const double node : {-1.0 / kSqrt3, 1.0 / kSqrt3}) {
            X.push_back(piece * (static_cast<double>(s) + 0.5 + 0.5 * node));
            w.push_back(piece / 2.0);
        }
    }
    X.push_back(L);
    w.push_back(0.0);
    Vec6 xi_star;
    xi_star << 0.05, 0.0, 0.1, 1.0, 0.0, 0.0;  // a pre-curved, twisted reference
    Index at = parent;
    for (std::size_t a = 0; a + 1 < X.size(); ++a) {
        Edge edge;
        edge.kind = EdgeKind::soft_interval;
        edge.order = order;
        edge.first_dof = first;
        edge.dof_count = n;
        edge.h = X[a + 1] - X[a];
        const double z1 = order == MagnusOrder::fourth ? X[a] + (0.5 - kSqrt3 / 6.0) * edge.h : X[a] + 0.5 * edge.h;
        const double z2 = X[a] + (0.5 + kSqrt3 / 6.0) * edge.h;
        edge.phi_z1 = basis.at(z1);
        edge.phi_z2 = basis.at(z2);
        edge.xi_star_z1 = xi_star;
        edge.xi_star_z2 = xi_star;
        at = model.add_point(std::move(edge), at, w[a + 1] * inertia_per_length);
    }
}

/// A rigid body's spatial inertia at its centre of mass: diag(I, m I3) rotated to random axes.
inline Mat6 rigid_inertia(double mass, const Vec3& principal, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Mat3 R = Eigen::Quaterniond(Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized()).toRotationMatrix();
    Mat6 m = Mat6::Zero();
    m.topLeftCorner<3, 3>() = R * principal.asDiagonal() * R.transpose();
    m.bottomRightCorner<3, 3>() = mass * Mat3::Identity();
    return m;
}

inline Pose random_pose(std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Pose g;
    g.R = Eigen::Quaterniond(Eigen::Vector4d(u(rng), u(rng), u(rng), u(rng)).normalized()).toRotationMatrix();
    g.p = scale * Vec3(u(rng), u(rng), u(rng));
    return g;
}

/// root -> fixed -> revolute -> fixed (to the body's centre) [body] -> spherical -> fixed [body 2]
/// and two soft rods from body 1 (one 4th-order, one 2nd-order Magnus, the second Kirchhoff).
/// Points: 3 is body 1, 5 body 2, 6-10 rod a (tip 10), 11-15 rod b (tip 15); 16 in all.
struct HybridTree {
    static constexpr Index body_point = 3, link_point = 5, rod_a_first = 6, rod_b_first = 11, point_total = 16;
    MultibodyModel model;
    Index n = 0;
    explicit HybridTree(std::mt19937& rng) {
        const Index revolute = 0, spherical = 1, rod_a = 4, rod_b = 10;
        const Index n_a = 6, n_b = 5;
        model.dof_count = n = rod_b + n_b;
        model.root_pose = random_pose(rng, 0.1);
        Edge mount;
        mount.transform = random_pose(rng, 0.05);
        Index at = model.add_point(mount, 0, Mat6::Zero());
        Edge hinge;
        hinge.kind = EdgeKind::rigid_joint;
        hinge.first_dof = revolute;
        hinge.dof_count = 1;
        hinge.phi_z1 = Matrix6X::Zero(6, 1);
        hinge.phi_z1(1, 0) = 1.0;  // about the local y axis
        at = model.add_point(hinge, at, Mat6::Zero());
        Edge to_centre;
        to_centre.transform = random_pose(rng, 0.05);
        const Index body = model.add_point(to_centre, at, rigid_inertia(0.3, Vec3(2e-3, 3e-3, 4e-3), rng));
        Edge ball;
        ball.kind = EdgeKind::rigid_joint;
        ball.first_dof = spherical;
        ball.dof_count = 3;
        ball.phi_z1 = Matrix6X::Zero(6, 3);
        ball.phi_z1.topRows<3>().setIdentity();
        at = model.add_point(ball, body, Mat6::Zero());
        Edge link;
        link.transform = random_pose(rng, 0.04);
        model.add_point(link, at, rigid_inertia(0.1, Vec3(1e-3, 1e-3, 5e-4), rng));
        const Mat6 per_length = rod_inertia_per_length(1000.0, 0.01);
        add_soft_rod(model, body, TestBasis(n_a, rng, {true, true, true, true, true, true}), rod_a, n_a, 0.3, 2,
                     MagnusOrder::fourth, per_length);
        add_soft_rod(model, body, TestBasis(n_b, rng, {true, true, true, false, false, false}), rod_b, n_b, 0.2, 2,
                     MagnusOrder::second, per_length);
    }
};

/// A point-like bob of mass \p m and inertia \p Ic (about its centre) on a massless arm of
/// length \p l from a revolute joint about the world x axis; the arm hangs along -z at q = 0.
struct Pendulum {
    MultibodyModel model;
    Index bob = 0;
    Pendulum(double m, double l, double Ic) {
        model.dof_count = 1;
        Edge hinge;
        hinge.kind = EdgeKind::rigid_joint;
        hinge.dof_count = 1;
        hinge.phi_z1 = Matrix6X::Zero(6, 1);
        hinge.phi_z1(0, 0) = 1.0;
        const Index joint = model.add_point(hinge, 0, Mat6::Zero());
        Edge arm;
        arm.transform.p = Vec3(0.0, 0.0, -l);
        Mat6 inertia = Mat6::Zero();
        inertia.topLeftCorner<3, 3>() = Ic * Mat3::Identity();
        inertia.bottomRightCorner<3, 3>() = m * Mat3::Identity();
        bob = model.add_point(arm, joint, inertia);
    }
};

inline VectorX random_vector(Index n, std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX v(n);
    for (Index i = 0; i < n; ++i) v[i] = scale * u(rng);
    return v;
}

inline double relative_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / b.norm(); }

}  // namespace soma::gvs::testing
