#pragma once
/// \file compound_double_pendulum.hpp
/// \brief A double pendulum of two rigid bars swinging in the x-z plane about y, as scene text, and
/// its reduced two-angle equations of motion integrated independently by RK4.

#include "scene_runner.hpp"

#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace soma::validation {

inline constexpr double kG = 9.81;

struct Bar {
    double length, side = 0.04, density = 500.0;
    double mass() const { return density * side * side * length; }
    double inertia() const { return mass() * (side * side + length * length) / 12.0; }  // about its centre, y axis
};

/// Reduced double compound pendulum: angles phi_i of the bars from the downward vertical (bar
/// direction (-sin phi, 0, -cos phi)), Lagrange's equations, RK4.
struct ReducedPendulum {
    Bar b1, b2;
    double phi1, phi2, w1 = 0.0, w2 = 0.0;
    void accelerations(double p1, double p2, double v1, double v2, double& a1, double& a2) const {
        const double m1 = b1.mass(), m2 = b2.mass(), L1 = b1.length, l1 = b1.length / 2, l2 = b2.length / 2;
        const double M11 = b1.inertia() + m1 * l1 * l1 + m2 * L1 * L1;
        const double M12 = m2 * L1 * l2 * std::cos(p1 - p2);
        const double M22 = b2.inertia() + m2 * l2 * l2;
        const double f1 = -m2 * L1 * l2 * std::sin(p1 - p2) * v2 * v2 - (m1 * l1 + m2 * L1) * kG * std::sin(p1);
        const double f2 = m2 * L1 * l2 * std::sin(p1 - p2) * v1 * v1 - m2 * l2 * kG * std::sin(p2);
        const double det = M11 * M22 - M12 * M12;
        a1 = (M22 * f1 - M12 * f2) / det;
        a2 = (M11 * f2 - M12 * f1) / det;
    }
    void step(double h) {
        double k[4][4];
        const double y[4] = {phi1, phi2, w1, w2};
        for (int s = 0; s < 4; ++s) {
            const double c = s == 0 ? 0.0 : (s == 3 ? 1.0 : 0.5);
            double z[4];
            for (int i = 0; i < 4; ++i) z[i] = y[i] + (s == 0 ? 0.0 : c * h * k[s - 1][i]);
            k[s][0] = z[2];
            k[s][1] = z[3];
            accelerations(z[0], z[1], z[2], z[3], k[s][2], k[s][3]);
        }
        double* out[4] = {&phi1, &phi2, &w1, &w2};
        for (int i = 0; i < 4; ++i) *out[i] = y[i] + h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
};

/// The two ball joints of the shipped scene: bar 1's origin to the world, bar 2's to bar 1's tip.
inline const std::string kBallJoints =
    "  - {type: ball_joint, name: pivot, first: {element: bar1, node: 0}, second: {world: [0, 0, 0]}}\n"
    "  - {type: ball_joint, name: elbow, first: {element: bar2, node: 0}, second: {element: bar1, node: 2}}\n";

inline std::string orientation_about_y(double angle) {
    return "[" + num(std::cos(angle / 2)) + ", 0, " + num(std::sin(angle / 2)) + ", 0]";
}

/// The double pendulum as scene text: bar 1's body origin at the pivot (the world origin), bar 2's
/// at bar 1's tip (bar 1's marker, point 2). \p constraints: the joints' `constraints:` entries
/// (default: two ball joints).
inline std::string double_pendulum_scene(const Bar& b1, const Bar& b2, double phi1, double phi2, double dt, double duration,
                                         const std::string& integrator = "implicit_midpoint",
                                         const std::string& constraints = kBallJoints, double lateral_gravity = 0.0) {
    const Vec3 tip(-b1.length * std::sin(phi1), 0.0, -b1.length * std::cos(phi1));
    const auto bar = [&](const std::string& name, const Bar& b, const Vec3& at, double phi, bool marker) {
        return "  - name: " + name + "\n"
               "    type: rigid_body\n"
               "    position: [" + num(at.x()) + ", " + num(at.y()) + ", " + num(at.z()) + "]\n"
               "    orientation: " + orientation_about_y(phi) + "\n"
               "    shape: {box: {size: [" + num(b.side) + ", " + num(b.side) + ", " + num(b.length) + "]}}\n"
               "    shape_center: [0, 0, " + num(-b.length / 2) + "]\n"
               "    density: " + num(b.density) + "\n" +
               (marker ? "    markers: [{position: [0, 0, " + num(-b.length) + "]}]\n" : std::string());
    };
    return "simulation: {duration: " + num(duration) + "}\n"
           "integrator: {type: " + integrator + ", dt: " + num(dt) +
           ", newton: {absolute_tolerance: 1.0e-11, relative_tolerance: 0, constraint_tolerance: 1.0e-13}, "
           "adaptive: {enabled: false}}\n"
           "elements:\n" + bar("bar1", b1, Vec3::Zero(), phi1, true) + bar("bar2", b2, tip, phi2, false) +
           "constraints:\n" + constraints +
           "forces: [{type: gravity, acceleration: [0, " + num(lateral_gravity) + ", " + num(-kG) + "]}]\n";
}

inline double bar_angle(const Simulation& sim, const std::string& name) {
    const Element* e = sim.find_element(name);
    const double* c = sim.state().q.data() + e->block_coordinate(0);
    const Mat3 R = Quaternion(c[0], c[1], c[2], c[3]).toRotationMatrix();
    return std::atan2(R(0, 2), R(2, 2));  // the bar points along -R e_z = (-sin phi, 0, -cos phi)
}

/// The double pendulum from 0.8 and 0.3 rad, 2 s at h = 1 ms, against the reduced equations (RK4
/// at h/10): the largest angle error and the largest end-of-step elbow gap. Checks each step that
/// the planar motion stays planar.
struct ReducedComparison {
    std::unique_ptr<Simulation> sim;
    double worst_angle = 0.0, worst_joint = 0.0;
};
/// \p lateral_gravity: a component of gravity along y, across the plane of the motion (hinges
/// about y carry it; the reduced equations do not see it).
inline ReducedComparison compare_with_reduced(const std::string& integrator, const std::string& constraints = kBallJoints,
                                              double lateral_gravity = 0.0) {
    const Bar b1{0.5}, b2{0.4};
    const double phi1 = 0.8, phi2 = 0.3, dt = 1e-3;
    ReducedComparison out{build_scene(double_pendulum_scene(b1, b2, phi1, phi2, dt, 2.0, integrator, constraints, lateral_gravity))};
    Simulation& sim = *out.sim;
    ReducedPendulum reference{b1, b2, phi1, phi2};
    for (int n = 1; n <= 2000; ++n) {
        REQUIRE(step_once(sim, dt));
        for (int s = 0; s < 10; ++s) reference.step(dt / 10);
        out.worst_angle = std::max({out.worst_angle, std::abs(bar_angle(sim, "bar1") - reference.phi1),
                                    std::abs(bar_angle(sim, "bar2") - reference.phi2)});
        out.worst_joint = std::max(out.worst_joint, (node_position(sim, "bar2", 0) - node_position(sim, "bar1", 2)).norm());
        CHECK(std::abs(node_position(sim, "bar2", 1).y()) < 1e-12);  // planar motion stays planar
    }
    return out;
}

}  // namespace soma::validation
