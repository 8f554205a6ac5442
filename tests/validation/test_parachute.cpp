// Validation: the parachute example (MAT-DiSMech §7.1, Fig. 6; configs/shells/
// parachute.yaml) falls canopy-down at the terminal speed of its drag law.
//
// Scene: the example's (read from configs/shells/parachute.yaml, so the test checks the shipped
// file): hinge_shell hexagon of side 1 m (127 nodes, 216 triangles, A = 2.598 m^2, h = 1 mm,
// E = 1 GPa, rho = 1500), six discrete_rod ropes (11 edges, r = 1 mm, E = 10 MPa, nu = 0.5,
// rho = 1500) from the corners to a 0.13 kg point_mass 0.2 m below the centre, joined by
// shared_nodes; gravity 9.8; drag rho_med = 1, C_D = 10 on the canopy; implicit Euler dt = 1e-2 s.
// We run 3.5 s (the example runs 3 s) and measure over the last second, [2.5, 3.5] s.
//
// Stability (measured, and the reason the window ends at 3.5 s): the axisymmetric steady fall of
// this model is UNSTABLE. Departures from the six-fold symmetry, seeded by round-off, grow
// exponentially: the mass centre's horizontal offset grows e-fold every ~0.4 s (3e-13 m at
// 3.5 s with the example's eigen_lu), a faster non-axisymmetric mode (corner spread, e-fold
// ~0.1-0.2 s) makes the payload's speed swing from t ~ 5 s (2.05 -> 2.10 -> 2.27 m/s), and the
// canopy then glides sideways (0.1-0.3 m off axis at 10 s). With eigen_ldlt (quasi-Newton steps,
// a ~1e5 larger seed) the same happens ~1.5 s earlier. We report it rather than claim a steady
// state beyond 3.5 s; the drift assertion below (< 1e-5 m) checks that the test window ends well
// before the instability is visible.
//
// Drag law (MAT-DiSMech eq. 29): node i of triangle k feels -(rho C_D/2)(A_k/3) sgn(u_i.n_k)(u_i.n_k)^2
// n_k, A_k the undeformed area, n_k the current unit normal. For a body falling steadily at U
// (every node at velocity (0, 0, -U)) the vertical drag is (rho C_D/2) U^2 S with
//     S = sum_k A_k |n_z,k|^3,
// and the terminal speed is U = sqrt(2 M g/(rho C_D S)), M the total mass. Estimates:
//  - flat canopy (S = A): v_flat = sqrt(2 M g/(rho C_D A)) = 1.749 m/s with
//    M = 4.056 kg. It is a LOWER bound: S <= A for any shape.
//  - projected area of the deformed canopy A_p = sum_k a_k |n_z,k| (a_k the current area; the
//    triangles barely stretch, a_k ~ A_k): v_proj = sqrt(2 M g/(rho C_D A_p)). The drag counts
//    the normal velocity component squared and keeps only the vertical part of the normal force,
//    so S ~ sum A_k n_z^3 < A_p: a bowled canopy falls FASTER than v_proj. v_proj is reported,
//    but the band's upper end must be the speed the law itself gives for the final shape:
//  - v_shape = sqrt(2 M g/(rho C_D S)) with S computed from the final node positions.
// Measured (see the printout): the canopy bowls deeply (its corners end ~0.3 m below its centre,
// pulled in by the ropes; smallest n_z 0.45), projected area 2.256 m^2, S = 1.883 m^2:
// v_flat = 1.749, v_proj = 1.877, v_shape = 2.055 m/s; measured 2.054 m/s (-0.04% of v_shape),
// mean acceleration over the last second 3e-4 g.
// Assertions:
//  - canopy-down: after the transient (t >= 0.5 s) the canopy centre stays above the payload and
//    above every corner (an inverted bowl), every canopy normal keeps n_z > 0 (nothing flips);
//  - steady: the mean vertical acceleration of the mass centre over the last second is below
//    0.01 g (measured ~1e-3 g);
//  - the mass centre's mean descent speed over the last second lies in [v_flat, v_shape (1 + 2%)]
//    and within 2% of v_shape: at a steady fall the drag balances the weight, so the only
//    differences are the residual unsteadiness (the shape and the node velocities still breathe
//    slightly; the payload oscillates by ~0.02 m/s) and the change of shape over the window.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kDt = 1.0e-2;
constexpr double kDuration = 3.5;
constexpr double kG = 9.8, kRhoAir = 1.0, kCd = 10.0;
const char* const kElements[] = {"canopy", "payload", "rope0", "rope1", "rope2", "rope3", "rope4", "rope5"};
const long kCorners[] = {27, 6, 33, 54, 75, 96};

std::string read_example() {
    // The source tree: SOMA_SOURCE_DIR (set by ctest), else this file's location.
    const char* root = std::getenv("SOMA_SOURCE_DIR");
    const std::filesystem::path source =
        root != nullptr ? std::filesystem::path(root) : std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
    const std::filesystem::path path = source / "configs" / "shells" / "parachute.yaml";
    std::ifstream file(path);
    INFO("example scene " << path);
    REQUIRE(file.good());
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

int advance(Simulation& sim, double dt, int depth = 0) {
    if (step_once(sim, dt)) return 0;
    INFO("t = " << sim.state().t << " s, dt = " << dt);
    REQUIRE(depth < 6);
    return 1 + advance(sim, 0.5 * dt, depth + 1) + advance(sim, 0.5 * dt, depth + 1);
}

}  // namespace

TEST_CASE("parachute (MAT-DiSMech §7.1, Fig. 6): canopy-down fall at the terminal speed of the drag law",
          "[validation][shells][rods][drag][parachute]") {
    const auto start = std::chrono::steady_clock::now();
    auto sim = build_scene(read_example(), "parachute.yaml");
    const Element* canopy = sim->find_element("canopy");
    REQUIRE(canopy != nullptr);
    const auto& triangles = canopy->geometry().triangles;
    REQUIRE(triangles.size() == 216);

    // Total mass (each element's lumped masses are its own; a shared node gets the sum), the
    // undeformed canopy triangle areas, and the corner positions.
    double mass = 0.0;
    for (const char* name : kElements) {
        const Element* e = sim->find_element(name);
        REQUIRE(e != nullptr);
        for (double m : e->geometry().point_mass) mass += m;
    }
    std::vector<double> rest_area;
    double area = 0.0;
    for (const auto& t : triangles) {
        const Vec3 a = node_position(*sim, "canopy", t[0]), b = node_position(*sim, "canopy", t[1]),
                   c = node_position(*sim, "canopy", t[2]);
        rest_area.push_back(0.5 * (b - a).cross(c - a).norm());
        area += rest_area.back();
    }
    CHECK(area == Approx(1.5 * std::sqrt(3.0)).epsilon(1e-12));
    for (int k = 0; k < 6; ++k) {
        const Vec3 corner = node_position(*sim, "canopy", kCorners[k]);
        CHECK((corner - Vec3(std::cos(k * std::numbers::pi / 3), std::sin(k * std::numbers::pi / 3), 0.0)).norm() < 1e-12);
        CHECK((node_position(*sim, "rope" + std::to_string(k), 0) - corner).norm() == 0.0);
        CHECK((node_position(*sim, "rope" + std::to_string(k), -1) - node_position(*sim, "payload", 0)).norm() == 0.0);
    }
    const double v_flat = std::sqrt(2.0 * mass * kG / (kRhoAir * kCd * area));
    std::printf("parachute: total mass %.4f kg, canopy area %.4f m^2, flat-canopy terminal speed %.4f m/s\n", mass,
                area, v_flat);
    CHECK(mass == Approx(4.056).epsilon(1e-3));
    CHECK(v_flat == Approx(1.75).epsilon(2e-3));

    auto centre_of_mass = [&] {
        Vec3 c = Vec3::Zero();
        double m = 0.0;
        for (const char* name : kElements) {
            const Element* e = sim->find_element(name);
            const auto& masses = e->geometry().point_mass;
            for (std::size_t i = 0; i < masses.size(); ++i) {
                c += masses[i] * node_position(*sim, name, static_cast<long>(i));
                m += masses[i];
            }
        }
        return Vec3(c / m);
    };
    auto momentum_velocity = [&] {
        Vec3 p = Vec3::Zero();
        double m = 0.0;
        for (const char* name : kElements) {
            const Element* e = sim->find_element(name);
            const auto& masses = e->geometry().point_mass;
            for (std::size_t i = 0; i < masses.size(); ++i) {
                p += masses[i] * node_velocity(*sim, name, static_cast<long>(i));
                m += masses[i];
            }
        }
        return Vec3(p / m);
    };

    const int steps = static_cast<int>(std::lround(kDuration / kDt));
    const int window = static_cast<int>(std::lround(1.0 / kDt));  // the last second
    int retries = 0;
    double min_lift = 1e300, min_bowl = 1e300;  // centre - payload, centre - lowest corner (t >= 0.5 s)
    Vec3 com_start_window = Vec3::Zero(), v_start_window = Vec3::Zero();
    for (int k = 0; k < steps; ++k) {
        retries += advance(*sim, kDt);
        const double t = sim->state().t;
        const double centre_z = node_position(*sim, "canopy", 0).z();
        if (t >= 0.5 - 1e-9) {
            min_lift = std::min(min_lift, centre_z - node_position(*sim, "payload", 0).z());
            for (long c : kCorners) min_bowl = std::min(min_bowl, centre_z - node_position(*sim, "canopy", c).z());
        }
        if (k + 1 == steps - window) com_start_window = centre_of_mass(), v_start_window = momentum_velocity();
        if ((k + 1) % 25 == 0)
            std::printf("parachute: t = %.2f s  payload z %.4f vz %.4f  canopy centre z %.4f vz %.4f  mass-centre vz "
                        "%.4f m/s, mass-centre horizontal offset %.2e m\n",
                        t, node_position(*sim, "payload", 0).z(), node_velocity(*sim, "payload", 0).z(), centre_z,
                        node_velocity(*sim, "canopy", 0).z(), momentum_velocity().z(),
                        std::hypot(centre_of_mass().x(), centre_of_mass().y()));
    }
    REQUIRE(sim->state().t == Approx(kDuration).epsilon(1e-12));

    // Late-time descent: mean speed and mean acceleration of the mass centre over the last second.
    const Vec3 com_end = centre_of_mass(), v_end = momentum_velocity();
    const double speed = (com_start_window.z() - com_end.z()) / 1.0;
    const double acceleration = (v_end.z() - v_start_window.z()) / 1.0;
    const double drift = std::hypot(com_end.x(), com_end.y());

    // The final shape: S = sum A_k |n_z|^3 (drag law), projected area, smallest n_z.
    double S = 0.0, projected = 0.0, min_nz = 1.0;
    for (std::size_t k = 0; k < triangles.size(); ++k) {
        const auto& t = triangles[k];
        const Vec3 a = node_position(*sim, "canopy", t[0]), b = node_position(*sim, "canopy", t[1]),
                   c = node_position(*sim, "canopy", t[2]);
        const Vec3 n2 = (b - a).cross(c - a);
        const double nz = n2.z() / n2.norm();
        min_nz = std::min(min_nz, nz);
        S += rest_area[k] * std::pow(std::abs(nz), 3);
        projected += 0.5 * std::abs(n2.z());
    }
    const double v_proj = std::sqrt(2.0 * mass * kG / (kRhoAir * kCd * projected));
    const double v_shape = std::sqrt(2.0 * mass * kG / (kRhoAir * kCd * S));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("parachute: after %.1f s (%d steps, %d retried as half steps): last-second mean descent speed %.4f m/s, "
                "mean acceleration %+.4f m/s^2 (%.2e g), horizontal drift %.2e m; centre above payload >= %.4f m, above "
                "corners >= %.4f m (t >= 0.5 s); final shape: projected area %.4f m^2, S = sum A_k |n_z|^3 = %.4f "
                "m^2, min n_z %.3f; v_flat %.4f, v_proj %.4f, v_shape %.4f m/s; measured/v_shape - 1 = %+.3f%%; %.2f s "
                "wall\n",
                kDuration, steps, retries, speed, acceleration, std::abs(acceleration) / kG, drift, min_lift, min_bowl,
                projected, S, min_nz, v_flat, v_proj, v_shape, 100.0 * (speed / v_shape - 1.0), seconds);

    // Canopy-down: the canopy centre above the payload and above the corners, no flipped triangle.
    CHECK(min_lift > 0.1);
    CHECK(min_bowl > 0.0);
    CHECK(min_nz > 0.0);
    // Steady fall, straight down.
    CHECK(std::abs(acceleration) < 0.01 * kG);
    CHECK(drift < 1e-5);
    // Terminal speed in the band of the drag law.
    CHECK(speed >= v_flat);
    CHECK(speed <= 1.02 * v_shape);
    CHECK(speed == Approx(v_shape).epsilon(0.02));
}
