// Validation: the fin-ray finger of configs/gvs/fin_ray_finger.yaml (Mathew et al., section 5.2),
// a planar closed-chain robot of 17 soft links, a prescribed prismatic actuator and 6 loop joints.
//
//  - Small actuation against an independent linear frame analysis of the same structure: the
//    sidewalls' links as Timoshenko beams (each link is loaded only at its ends, so its moment is
//    linear, its shear and axial forces constant: the scene's basis, linear bending with constant
//    shear and elongation, holds that state exactly, and so does the beam element), the ribs as
//    bars (hinged at both ends and unloaded between them, they carry an axial force only).
//  - The paper's actuation (3 mm): statics does not move with the load steps or with the basis
//    order; Newmark's dynamics at the actuator's peak equals the statics there (the response is
//    quasi-static); the six loops written as one `gvs_loop_joints` block (one derivative pass for
//    all their curvature) or as six `gvs_loop_joint` blocks give the same motion.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kYoung = 2.0e9, kPoisson = 0.35, kThickness = 1e-3, kWallDepth = 0.025, kRibDepth = 0.010;
constexpr double kWallLength = 0.03, kBaseWidth = 0.02;
constexpr long kTipNode = 38;  // wall_a6's end, where the sidewalls meet

std::filesystem::path finger_file() {
    const char* source = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(source != nullptr);
    return std::filesystem::path(source) / "configs" / "gvs" / "fin_ray_finger.yaml";
}

/// The finger's scene with \p overrides (`--set` form), no outputs, every link's bending of order
/// \p bending_order (the scene's: 1, linear).
std::unique_ptr<Simulation> finger(std::vector<std::string> overrides, int bending_order = 1) {
    std::ifstream file(finger_file());
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::string linear = "bending_z: 1", order = "bending_z: " + std::to_string(bending_order);
    for (auto at = text.find(linear); at != std::string::npos; at = text.find(linear, at + order.size()))
        text.replace(at, linear.size(), order);
    SceneDocument scene = load_scene_text(text, finger_file().string());
    overrides.push_back("outputs=[]");
    apply_overrides(scene, overrides);
    return std::make_unique<Simulation>(std::move(scene), plugin_registry());
}

std::string statics(double duration, int steps) {
    return "integrator={type: statics, dt: " + num(duration / steps) + ", ramp_time: " + num(duration) +
           ", newton: {absolute_tolerance: 1.0e-12}, adaptive: {enabled: false}}";
}

/// The tip's displacement in the finger's plane: (along the finger's axis, across it), i.e. world
/// (z, x) (the scene's base frame turns base x, the axis, to world z and base y to world x).
Eigen::Vector2d tip_displacement(const Simulation& simulation) {
    const double height = std::sqrt(kWallLength * kWallLength - 0.25 * kBaseWidth * kBaseWidth);
    const Vec3 tip = node_position(simulation, "finger", kTipNode);
    return {tip.z() - height, tip.x()};
}

/// The tip's displacement per unit actuator displacement from a linear frame analysis by the
/// direct stiffness method, in the finger's plane (x along its axis, y across): nodes a_0..a_6 on
/// sidewall a, b_0..b_5 on sidewall b (b_6 is a_6: the tip's weld holds both translations and the
/// rotation), 3 DOFs each (u, v, theta). b_0 is clamped; a_0 slides along x on the actuator by 1.
Eigen::Vector2d frame_analysis_tip() {
    const double shear_modulus = kYoung / (2.0 * (1.0 + kPoisson));
    const double height = std::sqrt(kWallLength * kWallLength - 0.25 * kBaseWidth * kBaseWidth);
    const auto a = [](int i) { return i; };
    const auto b = [](int i) { return i == 6 ? 6 : 7 + i; };
    std::vector<Eigen::Vector2d> x(13);
    for (int i = 0; i <= 6; ++i) {
        const double s = i / 6.0;
        x[static_cast<std::size_t>(a(i))] = Eigen::Vector2d(s * height, -0.5 * kBaseWidth * (1.0 - s));
        x[static_cast<std::size_t>(b(i))] = Eigen::Vector2d(s * height, 0.5 * kBaseWidth * (1.0 - s));
    }
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(39, 39);
    // A Timoshenko beam (shear coefficient 1, as the rod's G A) or, with EI = 0, a bar.
    const auto add_member = [&](int n1, int n2, double EA, double EI, double GA) {
        const Eigen::Vector2d d = x[static_cast<std::size_t>(n2)] - x[static_cast<std::size_t>(n1)];
        const double L = d.norm(), c = d.x() / L, s = d.y() / L;
        Eigen::Matrix<double, 6, 6> local = Eigen::Matrix<double, 6, 6>::Zero();
        local(0, 0) = local(3, 3) = EA / L;
        local(0, 3) = local(3, 0) = -EA / L;
        if (EI > 0.0) {
            const double phi = 12.0 * EI / (GA * L * L), f = EI / ((1.0 + phi) * L * L * L);
            const int v1 = 1, t1 = 2, v2 = 4, t2 = 5;
            local(v1, v1) = local(v2, v2) = 12 * f;
            local(v1, v2) = local(v2, v1) = -12 * f;
            local(v1, t1) = local(t1, v1) = local(v1, t2) = local(t2, v1) = 6 * L * f;
            local(v2, t1) = local(t1, v2) = local(v2, t2) = local(t2, v2) = -6 * L * f;
            local(t1, t1) = local(t2, t2) = (4.0 + phi) * L * L * f;
            local(t1, t2) = local(t2, t1) = (2.0 - phi) * L * L * f;
        }
        Eigen::Matrix<double, 6, 6> T = Eigen::Matrix<double, 6, 6>::Zero();
        for (int n = 0; n < 2; ++n) {
            T.block<2, 2>(3 * n, 3 * n) << c, s, -s, c;
            T(3 * n + 2, 3 * n + 2) = 1.0;
        }
        const Eigen::Matrix<double, 6, 6> global = T.transpose() * local * T;
        const int dofs[2] = {3 * n1, 3 * n2};
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) K.block<3, 3>(dofs[i], dofs[j]) += global.block<3, 3>(3 * i, 3 * j);
    };
    const double wall_area = kThickness * kWallDepth, wall_moment = kWallDepth * std::pow(kThickness, 3) / 12.0;
    for (int i = 1; i <= 6; ++i) {
        add_member(a(i - 1), a(i), kYoung * wall_area, kYoung * wall_moment, shear_modulus * wall_area);
        add_member(b(i - 1), b(i), kYoung * wall_area, kYoung * wall_moment, shear_modulus * wall_area);
    }
    for (int i = 1; i <= 5; ++i) add_member(a(i), b(i), kYoung * kThickness * kRibDepth, 0.0, 0.0);
    // Held: b_0's three DOFs, a_0's v and theta; a_0's u is the actuator (1).
    std::vector<int> held{3 * b(0), 3 * b(0) + 1, 3 * b(0) + 2, 1, 2, 0}, free;
    for (int i = 0; i < 39; ++i)
        if (std::find(held.begin(), held.end(), i) == held.end()) free.push_back(i);
    const auto n = static_cast<Eigen::Index>(free.size());
    Eigen::MatrixXd K_ff(n, n);
    Eigen::VectorXd rhs(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        rhs[i] = -K(free[static_cast<std::size_t>(i)], 0);
        for (Eigen::Index j = 0; j < n; ++j) K_ff(i, j) = K(free[static_cast<std::size_t>(i)], free[static_cast<std::size_t>(j)]);
    }
    const Eigen::VectorXd u = K_ff.partialPivLu().solve(rhs);
    Eigen::Vector2d tip;
    for (int k = 0; k < 2; ++k)
        tip[k] = u[std::find(free.begin(), free.end(), 3 * a(6) + k) - free.begin()];
    return tip;
}

}  // namespace

TEST_CASE("gvs fin-ray finger: a small actuation against a linear frame analysis of the same structure",
          "[validation][gvs]") {
    // Statics without gravity, the actuator at d = 1 and 2 um. The geometric nonlinearity moves the
    // tip's ratio to d by ~5e-5 per um (measured between the two: the axial ratio 0.499953 and
    // 0.499905), so the linear ratio is taken by extrapolation to d = 0, 2 r(d) - r(2 d), which
    // leaves O(d^2) ~ 1e-9. The frame analysis is exact for the same linear problem; the rod's
    // Magnus integration of an exact strain field is exact up to round-off. Tolerance 1e-7 of the
    // tip's displacement.
    const auto ratio = [](double d) {
        auto simulation = finger({"simulation.duration=1.0", statics(1.0, 1), "elements.finger.gravity=[0, 0, 0]",
                                  "elements.finger.prescribed=[{coordinates: [0], displacement: [\"" + num(d) + "*t\"]}]"});
        run_to_end(*simulation);
        return Eigen::Vector2d(tip_displacement(*simulation) / d);
    };
    const Eigen::Vector2d linear = 2.0 * ratio(1e-6) - ratio(2e-6);
    const Eigen::Vector2d frame = frame_analysis_tip();
    INFO("gvs " << linear.transpose() << ", frame analysis " << frame.transpose());
    CHECK(frame.norm() > 1.0);  // the fin-ray effect: the tip moves more than the actuator
    CHECK((linear - frame).norm() < 1e-7 * frame.norm());
}

TEST_CASE("gvs fin-ray finger: statics whatever the load steps and basis order, dynamics at the actuator's peak, "
          "loops in one block or six",
          "[validation][gvs]") {
    // The scene's actuation, 3 sin^2(pi t / 2.5) mm, peaks at t = 1.25 s.
    const auto statics_tip = [](int steps, int bending_order = 1) {
        auto simulation = finger({"simulation.duration=1.25", statics(1.25, steps)}, bending_order);
        run_to_end(*simulation);
        return tip_displacement(*simulation);
    };
    const Eigen::Vector2d peak = statics_tip(1);
    // The tip swings 4.2 mm across, more than the actuator's 3 mm, and rises 1.1 mm.
    CHECK(peak.y() > 0.004);
    CHECK(peak.x() > 0.001);
    // Load steps: Newton's tolerance (1e-12 N against stiffnesses of 1e4 N/m and more).
    CHECK((statics_tip(5) - peak).norm() < 1e-10 * peak.norm());
    // Basis order: a link loaded at its ends has a moment linear in its deformed position, so
    // linear bending holds it but for the bend of the link and its weight; quadratic and cubic
    // bending converge (measured: 1 -> 2 moves the tip by 1.5e-6 of the swing, 2 -> 3 by 1e-7).
    const Eigen::Vector2d quadratic = statics_tip(1, 2), cubic = statics_tip(1, 3);
    CHECK((quadratic - peak).norm() < 1e-5 * peak.norm());
    CHECK((cubic - quadratic).norm() < 0.2 * (quadratic - peak).norm());

    // Dynamics (Newmark, h = 0.01 s, the scene's): at the peak the actuator is at rest; the lag
    // of the response is bounded by the inertial load at the peak, m |d''| = 1.6e-3 kg x
    // 2 (pi/2.5)^2 3 mm = 1.5e-5 N, over the finger's lateral stiffness (~500 N/m at the tip),
    // 3e-8 m, 1e-5 of the swing (measured: 2e-9).
    auto dynamic = finger({"simulation.duration=1.25"});
    run_to_end(*dynamic);
    CHECK((tip_displacement(*dynamic) - peak).norm() < 1e-5 * peak.norm());

    // One derivative pass for all the loops' curvature is the sum of one pass per loop: the same
    // motion with six `gvs_loop_joint` blocks, to Newton's tolerance (the balance test's 3e-8 of
    // the forces, ~3e-11 m of the tip's motion here: tested 1e-10 m; measured below 1e-12).
    auto joined = finger({"simulation.duration=0.3"});
    run_to_end(*joined);
    // Frame b turned about z onto frame a, as in the scene: by pi/2 + alpha at a rib, 2 alpha at the tip.
    const double alpha = std::asin(0.5 * kBaseWidth / kWallLength);
    const auto about_z = [](double angle) {
        return "[" + num(std::cos(0.5 * angle)) + ", 0, 0, " + num(std::sin(0.5 * angle)) + "]";
    };
    std::string separate = "constraints=[";
    for (int i = 1; i <= 5; ++i)
        separate += "{type: gvs_loop_joint, element: finger, joint: revolute, planar: true, a: {link: rib" +
                    std::to_string(i) + ", at: end}, b: {link: wall_b" + std::to_string(i) +
                    ", at: end, offset_orientation: " + about_z(0.5 * M_PI + alpha) + "}}, ";
    separate += "{type: gvs_loop_joint, element: finger, joint: weld, planar: true, a: {link: wall_a6, at: end}, "
                "b: {link: wall_b6, at: end, offset_orientation: " + about_z(2.0 * alpha) + "}}]";
    auto split = finger({"simulation.duration=0.3", separate});
    run_to_end(*split);
    CHECK(split->state().q.size() == joined->state().q.size());
    CHECK((tip_displacement(*split) - tip_displacement(*joined)).norm() < 1e-10);
}
