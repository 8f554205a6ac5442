// URDF robots imported into scenes (plugins/urdf): the spatial arm of configs/rigid/spatial_arm.urdf
// held by prescribed coordinates against the holding torques of a recursive computation from the
// file's numbers; the same arm released under ncp_newton, stopped by its joint ranges; and an
// error in the blocks an import writes, located at the import's line; a link with two collision
// geometries, one a cylinder turned across the link, imported as a compound body whose contact
// points are where the URDF's poses put them, resting on the floor on the turned cylinder's side
// (docs/validation.md 12.5).
#include "scene_runner.hpp"

#include "soma/point_map.hpp"
#include "soma/rotation.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

std::string arm_file() {
    const char* source = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(source != nullptr);
    return std::string(source) + "/configs/rigid/spatial_arm.urdf";
}

/// URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll).
Eigen::Isometry3d pose(const Vec3& xyz, double roll, double pitch, double yaw) {
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    t.linear() = (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
                  Eigen::AngleAxisd(roll, Vec3::UnitX()))
                     .toRotationMatrix();
    t.translation() = xyz;
    return t;
}

/// A rigid body's pose from its coordinates (position, then the quaternion w, x, y, z).
Eigen::Isometry3d body_pose(const Simulation& sim, const std::string& name) {
    const Element* e = sim.find_element(name);
    REQUIRE(e != nullptr);
    const double* c = sim.state().q.data() + e->block_coordinate(0);
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    t.linear() = Quaternion(c[0], c[1], c[2], c[3]).toRotationMatrix();
    t.translation() = node_position(sim, name, 0);
    return t;
}

/// The spatial arm's holding efforts under gravity at the link frames given (world): the turret's
/// and the shoulder's torques and the slide's force, each minus the load of the parts hanging
/// from that joint, summed over the parts from the file's numbers (masses, centres of mass, axes).
std::array<double, 3> holding_efforts(const Eigen::Isometry3d& turret, const Eigen::Isometry3d& upper,
                                      const Eigen::Isometry3d& plate, const Eigen::Isometry3d& finger) {
    struct Part {
        double mass;
        Vec3 center;
        int joints_above;  // the joints it hangs from: 1 turret, 2 + shoulder, 3 + slide
    };
    const Part parts[] = {{2.0, turret * Vec3(0.01, 0.02, 0.05), 1},
                          {1.5, upper * Vec3(0.15, 0.01, 0.02), 2},
                          {0.3, plate * Vec3(0.01, 0, 0), 2},
                          {0.2, finger * Vec3(0.03, 0, 0), 3}};
    const Vec3 points[] = {turret.translation(), upper.translation(), finger.translation()};
    const Vec3 axes[] = {turret.linear() * Vec3::UnitZ(), upper.linear() * Vec3(0, 1, 0.2).normalized(),
                         plate.linear() * Vec3(1, 0, 0.5).normalized()};
    const Vec3 g(0, 0, -9.81);
    std::array<double, 3> expected{0, 0, 0};
    for (const Part& part : parts)
        for (std::size_t j = 0; j < static_cast<std::size_t>(part.joints_above); ++j)
            expected[j] -= j < 2 ? (part.center - points[j]).cross(part.mass * g).dot(axes[j])  // a torque
                                 : (part.mass * g).dot(axes[j]);                                // the slide's force
    return expected;
}

}  // namespace

TEST_CASE("urdf robots: a prescribed spatial arm holds with the recursive holding torques", "[validation][urdf]") {
    const std::string scene =
        "simulation: {duration: 0.02}\n"
        "integrator: {type: implicit_euler, dt: 0.01, newton: {absolute_tolerance: 1.0e-11, relative_tolerance: 0, "
        "constraint_tolerance: 1.0e-13}, adaptive: {enabled: false}}\n"
        "imports:\n"
        "  - {type: urdf, name: arm, file: '" + arm_file() + "', coordinates: {turret: '0', shoulder: '0', slide: '0'}}\n"
        "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto sim = build_scene(scene);
    REQUIRE(sim->elements().size() == 3);
    REQUIRE(step_once(*sim, 0.01));
    REQUIRE(step_once(*sim, 0.01));

    // The arm from the file's numbers: link frames by composing the joint origins, then each
    // part's centre of mass, each joint's point and axis in the world.
    const Eigen::Isometry3d turret = pose(Vec3(0.05, 0, 0.1), 0.3, 0, 0.3);
    const Eigen::Isometry3d upper = turret * pose(Vec3(0.02, 0.03, 0.12), 0.2, -0.1, 0.4);
    const Eigen::Isometry3d plate = upper * pose(Vec3(0.3, 0, 0), 0.5, 0, 0);
    const Eigen::Isometry3d finger = plate * pose(Vec3(0.02, 0.01, 0), 0, 0, 0);
    const std::array<double, 3> expected = holding_efforts(turret, upper, plate, finger);
    const VectorX& lambda = sim->constraint_multipliers();
    REQUIRE(lambda.size() == 18);
    for (int j = 0; j < 3; ++j) {
        INFO("joint " << j);
        // Newton's tolerance 1e-11 on forces of ~10 N: the multipliers to ~1e-10 relative.
        CHECK(lambda[6 * j + 5] == Approx(expected[j]).epsilon(1e-9));
        CHECK(std::abs(expected[j]) > 0.05);  // a load worth checking
    }
    CHECK((node_position(*sim, "arm/finger", 0) - finger.translation()).norm() < 1e-12);
}

TEST_CASE("urdf robots: the spatial arm built in a pose (initial_coordinates) holds there with the recursive holding "
          "torques, its joints counting from the file's zero",
          "[validation][urdf]") {
    // The same arm as above, built at turret 0.4 rad, shoulder -0.3 rad and slide 0.02 m and held
    // there by constant prescribed coordinates. The expected link frames compose the file's joint
    // origins with each joint's motion (a turn about its axis, a slide along it, in the joint
    // frame), independently of the importer's walk.
    const double turret_angle = 0.4, shoulder_angle = -0.3, slide = 0.02;
    const std::string scene =
        "simulation: {duration: 0.02}\n"
        "integrator: {type: implicit_euler, dt: 0.01, newton: {absolute_tolerance: 1.0e-11, relative_tolerance: 0, "
        "constraint_tolerance: 1.0e-13}, adaptive: {enabled: false}}\n"
        "imports:\n"
        "  - {type: urdf, name: arm, file: '" + arm_file() + "', initial_coordinates: {turret: " + num(turret_angle) +
        ", shoulder: " + num(shoulder_angle) + ", slide: " + num(slide) + "},\n"
        "     coordinates: {turret: '" + num(turret_angle) + "', shoulder: '" + num(shoulder_angle) + "', slide: '" +
        num(slide) + "'}}\n"
        "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
    auto sim = build_scene(scene);
    const auto turn = [](double angle, const Vec3& axis) {
        Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
        t.linear() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
        return t;
    };
    Eigen::Isometry3d shift = Eigen::Isometry3d::Identity();
    shift.translation() = slide * Vec3(1, 0, 0.5).normalized();
    const Eigen::Isometry3d turret = pose(Vec3(0.05, 0, 0.1), 0.3, 0, 0.3) * turn(turret_angle, Vec3::UnitZ());
    const Eigen::Isometry3d upper = turret * pose(Vec3(0.02, 0.03, 0.12), 0.2, -0.1, 0.4) * turn(shoulder_angle, Vec3(0, 1, 0.2));
    const Eigen::Isometry3d plate = upper * pose(Vec3(0.3, 0, 0), 0.5, 0, 0);
    const Eigen::Isometry3d finger = plate * pose(Vec3(0.02, 0.01, 0), 0, 0, 0) * shift;
    // Built there: each body's frame (its first link's) where the composition puts it.
    for (const auto& [name, frame] : {std::pair{"arm/turret_link", turret}, std::pair{"arm/upper_arm", upper},
                                      std::pair{"arm/finger", finger}}) {
        INFO(name);
        const Eigen::Isometry3d built = body_pose(*sim, name);
        CHECK((built.translation() - frame.translation()).norm() < 1e-12);
        CHECK((built.linear() - frame.linear()).norm() < 1e-12);
    }
    REQUIRE(step_once(*sim, 0.01));
    REQUIRE(step_once(*sim, 0.01));
    const std::array<double, 3> expected = holding_efforts(turret, upper, plate, finger);
    const VectorX& lambda = sim->constraint_multipliers();
    REQUIRE(lambda.size() == 18);
    for (int j = 0; j < 3; ++j) {
        INFO("joint " << j);
        CHECK(lambda[6 * j + 5] == Approx(expected[j]).epsilon(1e-9));  // as above: Newton's 1e-11 on ~10 N
        CHECK(std::abs(expected[j]) > 0.05);
    }
    // Held: the finger where it was built (the prescribed rows to their 1e-13 tolerance).
    CHECK((node_position(*sim, "arm/finger", 0) - finger.translation()).norm() < 1e-12);

    // Refused: a start outside a joint's range (the shoulder's is [-1.5, 1.5]), a name that is no
    // moving joint, and a value that is not a number.
    const auto error_of = [&](const std::string& initial) -> std::string {
        try {
            build_scene("simulation: {duration: 0.01}\nintegrator: {type: implicit_euler, dt: 0.01}\nimports:\n"
                        "  - {type: urdf, name: arm, file: '" + arm_file() + "', initial_coordinates: " + initial + "}\n");
        } catch (const InputError& error) {
            return error.what();
        }
        return "accepted";
    };
    CHECK_THAT(error_of("{shoulder: 1.6}"), Catch::Matchers::Contains("excludes 1.6") &&
                                                Catch::Matchers::Contains("initial coordinate"));
    CHECK_THAT(error_of("{elbow: 0.1}"), Catch::Matchers::Contains("initial_coordinates") &&
                                             Catch::Matchers::Contains("no moving joint named 'elbow'"));
    CHECK_THAT(error_of("{shoulder: high}"), Catch::Matchers::Contains("'high' is not a number"));
    // A prescribed coordinate must start where the joint is built.
    try {
        build_scene("simulation: {duration: 0.01}\nintegrator: {type: implicit_euler, dt: 0.01}\nimports:\n"
                    "  - {type: urdf, name: arm, file: '" + arm_file() + "', initial_coordinates: {shoulder: 0.2}, "
                    "coordinates: {shoulder: '0'}}\n");
        FAIL("accepted");
    } catch (const InputError& error) {
        CHECK_THAT(error.what(), Catch::Matchers::Contains("must start where the joint is"));
    }
}

namespace {

/// The arm imported with \p import_options (", key: value" pairs) and released under gravity for
/// 1.5 s under ncp_newton, with \p constraints (a `constraints:` list, or empty) written in the scene.
std::string released_arm_scene(const std::string& import_options, const std::string& constraints,
                               const std::string& integrator = "ncp_newton") {
    return "simulation: {duration: 1.5}\n"
           "integrator: {type: " + integrator + ", dt: 2.0e-3}\n"
           "imports:\n"
           "  - {type: urdf, name: arm, file: '" + arm_file() + "'" + import_options + "}\n" + constraints +
           "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
}

/// The largest shoulder angle and finger slide of the released arm over 1.5 s of \p scene.
std::pair<double, double> largest_shoulder_angle_and_slide(const std::string& scene) {
    auto sim = build_scene(scene);
    // The joints' coordinates from the bodies' poses: the shoulder's angle is the turn of the upper
    // arm relative to the turret; the slide is the finger's origin moved from the point of the
    // upper arm's body where it was built, along the slide's axis turned with that body.
    const Eigen::Isometry3d turret0 = body_pose(*sim, "arm/turret_link"), upper0 = body_pose(*sim, "arm/upper_arm"),
                            finger0 = body_pose(*sim, "arm/finger");
    const Mat3 relative0 = turret0.linear().transpose() * upper0.linear();
    const Vec3 slide_point = upper0.inverse() * finger0.translation();
    const Vec3 slide_axis = upper0.linear().transpose() * (finger0.linear() * Vec3(1, 0, 0.5).normalized());
    double largest_angle = 0.0, largest_slide = 0.0;
    while (sim->state().t < 1.5 - 1e-9) {
        REQUIRE(step_once(*sim, 2.0e-3));
        const Eigen::Isometry3d turret = body_pose(*sim, "arm/turret_link"), upper = body_pose(*sim, "arm/upper_arm"),
                                finger = body_pose(*sim, "arm/finger");
        const Eigen::AngleAxisd turn(relative0.transpose() * turret.linear().transpose() * upper.linear());
        largest_angle = std::max(largest_angle, turn.angle());
        largest_slide = std::max(largest_slide,
                                 std::abs((finger.translation() - upper * slide_point).dot(upper.linear() * slide_axis)));
    }
    return {largest_angle, largest_slide};
}

}  // namespace

TEST_CASE("urdf robots: the released arm falls onto its joint ranges under ncp_newton", "[validation][urdf]") {
    const auto [largest_angle, largest_slide] = largest_shoulder_angle_and_slide(released_arm_scene("", ""));
    INFO("largest shoulder angle " << largest_angle << " rad, largest slide " << largest_slide << " m");
    // The arm swings down onto a stop of the shoulder (1.5 rad) and the finger slides onto one of
    // its own (0.05 m); the stops hold to the gap tolerance of ncp_newton (1e-9 m, at the 1 m lever
    // of an angle stop 1e-9 rad), so 1e-8 bounds any overshoot.
    CHECK(largest_angle > 1.4);
    CHECK(largest_angle < 1.5 + 1e-8);
    CHECK(largest_slide > 0.045);
    CHECK(largest_slide < 0.05 + 1e-8);
}

TEST_CASE("urdf robots: with limit_stiffness the ranges are penalty stops, under implicit Euler", "[validation][urdf]") {
    // The released arm of the case above with joint_stop springs (2000 N m/rad, 2e5 N/m) in place
    // of the complementarity stops. It passes each stop by a little and comes back: the overshoot
    // is the impact's, sqrt(I w^2 / k) at most, measured 5.1 mrad and 0.11 mm; 0.05 rad and 1 mm
    // bound it, and the joints reach their stops.
    const auto [largest_angle, largest_slide] = largest_shoulder_angle_and_slide(released_arm_scene(
        ", limit_stiffness: 2000, limit_damping: 2.0e4, slide_limit_stiffness: 2.0e5, slide_limit_damping: 1.0e7", "",
        "implicit_euler"));
    INFO("largest shoulder angle " << largest_angle << " rad, largest slide " << largest_slide << " m");
    CHECK(largest_angle > 1.5);
    CHECK(largest_angle < 1.55);
    CHECK(largest_slide > 0.05);
    CHECK(largest_slide < 0.051);
    // A prismatic range without its stiffness is refused, as are the stops' keys without
    // limit_stiffness and limit_stiffness without the ranges.
    CHECK_THROWS_WITH(build_scene(released_arm_scene(", limit_stiffness: 2000", "", "implicit_euler")),
                      Catch::Contains("slide_limit_stiffness"));
    CHECK_THROWS_WITH(build_scene(released_arm_scene(", limit_damping: 5", "", "implicit_euler")),
                      Catch::Contains("limit_damping") && Catch::Contains("give limit_stiffness too"));
    CHECK_THROWS_WITH(build_scene(released_arm_scene(", limits: false, limit_stiffness: 2000", "", "implicit_euler")),
                      Catch::Contains("limit_stiffness") && Catch::Contains("limits: false"));
}

TEST_CASE("urdf robots: the scene's own joint_limit blocks bound imported joints", "[validation][urdf]") {
    // The import writes no limits (limits: false); the scene's constraints, listed before the
    // joints the import appends, narrow the shoulder to 1.2 rad and the slide to 0.03 m.
    const auto [largest_angle, largest_slide] = largest_shoulder_angle_and_slide(released_arm_scene(
        ", limits: false",
        "constraints:\n"
        "  - {type: joint_limit, joint: arm/shoulder, lower: -1.2, upper: 1.2}\n"
        "  - {type: joint_limit, joint: arm/slide, lower: -0.03, upper: 0.03}\n"));
    INFO("largest shoulder angle " << largest_angle << " rad, largest slide " << largest_slide << " m");
    // The same tolerance as the file's own ranges above.
    CHECK(largest_angle > 1.1);
    CHECK(largest_angle < 1.2 + 1e-8);
    CHECK(largest_slide > 0.025);
    CHECK(largest_slide < 0.03 + 1e-8);
}

TEST_CASE("urdf robots: the scene's own joint_coupling couples two imported joints", "[validation][urdf]") {
    // The shoulder follows twice the turret's angle: a coupling the file does not have, listed in
    // the scene before the joints the import appends (an import's joints bind first). Released
    // without ranges under implicit Euler, gravity swings the upper arm and, through the coupling,
    // turns the turret.
    auto sim = build_scene(released_arm_scene(
        ", limits: false",
        "constraints:\n"
        "  - {type: joint_coupling, name: double, leader: arm/turret, follower: arm/shoulder, multiplier: 2}\n",
        "implicit_euler"));
    const Eigen::Isometry3d turret0 = body_pose(*sim, "arm/turret_link"), upper0 = body_pose(*sim, "arm/upper_arm");
    const Mat3 relative0 = turret0.linear().transpose() * upper0.linear();
    double largest_turret = 0.0, largest_mismatch = 0.0;
    while (sim->state().t < 1.5 - 1e-9) {
        REQUIRE(step_once(*sim, 2.0e-3));
        const Eigen::Isometry3d turret = body_pose(*sim, "arm/turret_link"), upper = body_pose(*sim, "arm/upper_arm");
        // Both angles stay below half a turn (the turret reaches 1.25 rad, the shoulder 2.5), so
        // their sizes are the coordinates' up to sign.
        const double turret_angle = Eigen::AngleAxisd(turret0.linear().transpose() * turret.linear()).angle();
        const double shoulder_angle =
            Eigen::AngleAxisd(relative0.transpose() * turret.linear().transpose() * upper.linear()).angle();
        largest_turret = std::max(largest_turret, turret_angle);
        largest_mismatch = std::max(largest_mismatch, std::abs(shoulder_angle - 2.0 * turret_angle));
    }
    INFO("largest turret angle " << largest_turret << " rad, largest |shoulder - 2 turret| " << largest_mismatch);
    CHECK(largest_turret > 0.2);  // it moved
    // The coupling's row is held to the Newton constraint tolerance (1e-10 rad); 1e-8 bounds it
    // with the round-off of angles read back from the bodies' poses.
    CHECK(largest_mismatch < 1e-8);
}

TEST_CASE("urdf robots: an error in the blocks an import writes names the import and its line", "[validation][urdf]") {
    const std::string scene =
        "simulation: {duration: 0.02}\n"
        "integrator: {type: ncp_newton, dt: 0.01}\n"
        "elements:\n"
        "  - {name: arm/finger, type: rigid_body, position: [0, 0, 0], mass: 1, inertia: [1, 1, 1, 0, 0, 0]}\n"
        "imports:\n"
        "  - {type: urdf, name: arm, file: '" + arm_file() + "'}\n";
    // The third generated element clashes with the written one: located at the import (line 6,
    // column 5 of the scene) and at the line of its text that writes it (line 5: a comment, the
    // list key, then one body per line).
    CHECK_THROWS_WITH(build_scene(scene, "arm.yaml"),
                      Catch::Contains("imports.arm (urdf at arm.yaml:6:5):5:") &&
                          Catch::Contains("duplicate element name 'arm/finger'"));
    // A problem with the file itself is located at the import's `file` key.
    CHECK_THROWS_WITH(build_scene("simulation: {duration: 0.02}\n"
                                  "integrator: {type: ncp_newton, dt: 0.01}\n"
                                  "elements: [{name: b, type: rigid_body, position: [0, 0, 0], mass: 1, "
                                  "inertia: [1, 1, 1, 0, 0, 0]}]\n"
                                  "imports: [{type: urdf, name: arm, file: no_such.urdf}]\n",
                                  "missing.yaml"),
                      Catch::StartsWith("missing.yaml:4:") && Catch::Contains("imports[0].file") &&
                          Catch::Contains("no_such.urdf"));
}

namespace {

// A roller: one link holding a cylinder turned to lie along the link's x axis (rpy pi/2, p, pi/2
// takes the cylinder's z to the link's x, and p rolls it about that axis: p = pi/32, half the
// angle between two of the 32 rim points Soma puts on each end, lays a face of the rim polygon
// flat under the link) and, beyond the cylinder's +x end, a box turned 0.3 rad about x. Its
// half diagonal across y and z, 0.0354 m, clears the rim polygon's inner radius
// 0.04 cos(pi/32) = 0.0398 m, so the roller rests on the cylinder alone.
constexpr double kRadius = 0.04, kLength = 0.3, kRoll = std::numbers::pi / 32, kMass = 1.2;
const Vec3 kBoxSize(0.06, 0.05, 0.05), kBoxCenter(0.18, 0, 0);
constexpr double kBoxTurn = 0.3;

std::string roller_file() {
    const auto path = std::filesystem::temp_directory_path() / "soma_urdf_roller.urdf";
    std::ofstream(path)
        << "<?xml version=\"1.0\"?>\n<robot name=\"roller\">\n  <link name=\"drum\">\n"
           "    <inertial><origin xyz=\"0.02 0 0\"/><mass value=\"" << num(kMass) << "\"/>"
           "<inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>\n"
           "    <collision><origin rpy=\"" << num(std::numbers::pi / 2) << " " << num(kRoll) << " "
        << num(std::numbers::pi / 2) << "\"/><geometry><cylinder radius=\"" << num(kRadius) << "\" length=\""
        << num(kLength) << "\"/></geometry></collision>\n"
           "    <collision><origin xyz=\"" << num(kBoxCenter.x()) << " 0 0\" rpy=\"" << num(kBoxTurn)
        << " 0 0\"/><geometry><box size=\"" << num(kBoxSize.x()) << " " << num(kBoxSize.y()) << " "
        << num(kBoxSize.z()) << "\"/></geometry></collision>\n  </link>\n</robot>\n";
    return path.string();
}

/// The roller imported as a free body at \p position, turned by \p orientation, over a floor
/// with ncp_contact, for \p duration seconds.
std::string roller_scene(const Vec3& position, const Quaternion& orientation, double duration) {
    return "simulation: {duration: " + num(duration) + "}\n"
           "integrator: {type: ncp_newton, dt: 2.0e-3}\n"
           "imports:\n"
           "  - {type: urdf, name: r, file: '" + roller_file() + "', fixed_base: false, position: [" +
           num(position.x()) + ", " + num(position.y()) + ", " + num(position.z()) + "], orientation: [" +
           num(orientation.w()) + ", " + num(orientation.x()) + ", " + num(orientation.y()) + ", " +
           num(orientation.z()) + "]}\n"
           "constraints: [{name: contact, type: ncp_contact, floor: {}, friction: 0.5}]\n"
           "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n";
}

/// The contact points of the roller's body: its 2 x 32 cylinder rim points, then its box's 8
/// corners (the parts in the URDF's order), world, from the URDF's poses alone: the link at
/// \p link in the world, each <collision> origin's rpy composed by hand, the rim point k of an
/// end at angle 2 pi k / 32 about the cylinder's own z, corner k's bits 0, 1, 2 the signs of x, y, z.
std::vector<Vec3> roller_points(const Eigen::Isometry3d& link) {
    std::vector<Vec3> points;
    const Eigen::Isometry3d cylinder = link * pose(Vec3::Zero(), std::numbers::pi / 2, kRoll, std::numbers::pi / 2);
    for (int end = 0; end < 2; ++end)
        for (int k = 0; k < 32; ++k) {
            const double phi = 2.0 * std::numbers::pi * k / 32;
            points.push_back(cylinder * Vec3(kRadius * std::cos(phi), kRadius * std::sin(phi),
                                             (end == 0 ? -0.5 : 0.5) * kLength));
        }
    const Eigen::Isometry3d box = link * pose(kBoxCenter, kBoxTurn, 0, 0);
    for (int k = 0; k < 8; ++k) {
        const Vec3 h = 0.5 * kBoxSize;
        points.push_back(box * Vec3((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z()));
    }
    return points;
}

}  // namespace

TEST_CASE("urdf robots: a link's two collision geometries, one turned across it, are a compound body whose points "
          "are where the URDF puts them",
          "[validation][urdf]") {
    // The roller placed anywhere, turned 0.7 rad about (1, 2, 3): the body's points at the
    // initial state against the URDF's poses composed independently.
    const Vec3 position(0.3, -0.2, 0.5);
    const Quaternion orientation(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    auto sim = build_scene(roller_scene(position, orientation, 0.1));
    const Element* drum = sim->find_element("r/drum");
    REQUIRE(drum != nullptr);
    // Point 0 the origin, 1 the centre of mass, then the parts' points in the URDF's order.
    REQUIRE(drum->geometry().point_radius.size() == 2 + 64 + 8);
    Eigen::Isometry3d link = Eigen::Isometry3d::Identity();
    link.linear() = orientation.toRotationMatrix();
    link.translation() = position;
    const std::vector<Vec3> expected = roller_points(link);
    std::vector<Vec3> points;
    for (std::size_t k = 0; k < expected.size(); ++k)
        points.push_back(point_position(*drum, static_cast<Index>(2 + k), sim->state().q));
    double largest = 0.0;
    for (std::size_t k = 0; k < expected.size(); ++k) largest = std::max(largest, (points[k] - expected[k]).norm());
    INFO("largest distance from the URDF's points " << largest << " m");
    // Points 0.2 m from the origin through a few products of rotations, each rounding ~1e-16
    // (the quaternion written to 17 digits reads back within one rounding): 1e-12 leaves room.
    CHECK(largest < 1e-12);
    // The body's cylinder lies along the link's x axis: opposite rim points of its two ends (k and
    // k + 16) average to the end centres, 0.3 m apart along it.
    const Vec3 axis = (points[32] + points[48] - points[0] - points[16]) / 2.0;
    CHECK((axis - kLength * (link.linear() * Vec3::UnitX())).norm() < 1e-12);
}

TEST_CASE("urdf robots: the imported roller rests on the floor on its turned cylinder's side", "[validation][urdf]") {
    // Dropped 2 mm onto the floor, axis level: it lands on the rim polygon's face under it (two
    // points of each end, at the polygon's inner radius r cos(pi/32) below the axis) and stays.
    const double rest = kRadius * std::cos(std::numbers::pi / 32);
    auto sim = build_scene(roller_scene(Vec3(0, 0, rest + 2e-3), Quaternion::Identity(), 0.6));
    run_to_end(*sim);
    const Element* drum = sim->find_element("r/drum");
    REQUIRE(drum != nullptr);
    const Eigen::Isometry3d link = body_pose(*sim, "r/drum");
    // The gaps hold to ncp_newton's gap tolerance, 1e-9 m: the axis at r cos(pi/32), level.
    CHECK(link.translation().z() == Approx(rest).margin(1e-8));
    CHECK(std::abs((link.linear() * Vec3::UnitX()).z()) < 1e-7);  // 1e-8 m over the 0.3 m length
    CHECK(node_velocity(*sim, "r/drum", 0).norm() < 1e-6);
    // Lowest points: the cylinder's, on the floor; the box's lowest corner, turned 0.3 rad about
    // the axis, 0.025 (cos 0.3 + sin 0.3) = 0.031 m below the axis, so 8.5 mm above the floor.
    double cylinder_low = std::numeric_limits<double>::infinity(), box_low = cylinder_low;
    for (Index k = 2; k < 2 + 64; ++k) cylinder_low = std::min(cylinder_low, point_position(*drum, k, sim->state().q).z());
    for (Index k = 2 + 64; k < 2 + 72; ++k) box_low = std::min(box_low, point_position(*drum, k, sim->state().q).z());
    CHECK(std::abs(cylinder_low) < 1e-8);
    CHECK(box_low == Approx(rest - 0.5 * kBoxSize.z() * (std::cos(kBoxTurn) + std::sin(kBoxTurn))).margin(1e-8));
    // The floor carries the roller's weight, to the force tolerance (1e-8 relative).
    CHECK(sim->constraint_terms().at(0)->statistic(2) == Approx(kMass * 9.81).epsilon(1e-7));
}

TEST_CASE("urdf robots: a link's visual STL mesh and box are drawn where the URDF puts them, and add no point",
          "[validation][urdf]") {
    // The roller's link with two <visual>s: a binary STL corner tetrahedron (unit legs) scaled
    // by 0.5 at (0.1, 0, 0.02) turned 0.4 rad about z, and a box. Its contact points stay the
    // collision parts' (2 + 64 + 8), and the visual vertices are the link's pose times the
    // visual origin times the scaled file corners, composed here by hand.
    const auto folder = std::filesystem::temp_directory_path() / "soma_urdf_visuals";
    std::filesystem::create_directories(folder);
    {
        std::ofstream stl(folder / "corner.stl", std::ios::binary);
        stl << std::string(80, ' ');
        const std::uint32_t count = 4;
        stl.write(reinterpret_cast<const char*>(&count), 4);
        const float corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        const int triangles[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
        for (const auto& t : triangles) {
            const float normal[3] = {0, 0, 0};
            stl.write(reinterpret_cast<const char*>(normal), 12);
            for (int k = 0; k < 3; ++k) stl.write(reinterpret_cast<const char*>(corners[t[k]]), 12);
            const std::uint16_t attribute = 0;
            stl.write(reinterpret_cast<const char*>(&attribute), 2);
        }
    }
    std::ifstream original(roller_file());
    std::string urdf((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
    const std::string visuals =
        "    <visual><origin xyz=\"0.1 0 0.02\" rpy=\"0 0 0.4\"/><geometry><mesh filename=\"corner.stl\" "
        "scale=\"0.5 0.5 0.5\"/></geometry></visual>\n"
        "    <visual><geometry><box size=\"0.3 0.08 0.08\"/></geometry></visual>\n  </link>";
    urdf.replace(urdf.find("  </link>"), 9, visuals);
    std::ofstream(folder / "roller.urdf") << urdf;
    std::string scene = roller_scene(Vec3(0.3, -0.2, 0.5), Quaternion(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())), 0.1);
    scene.replace(scene.find(roller_file()), roller_file().size(), (folder / "roller.urdf").string());
    auto sim = build_scene(scene);
    const Element* drum = sim->find_element("r/drum");
    REQUIRE(drum != nullptr);
    CHECK(drum->geometry().point_radius.size() == 2 + 64 + 8);
    DisplaySurface surface;
    drum->display_surface(sim->state().q, sim->state().v, surface);
    REQUIRE(surface.vertices.size() == 4 + 8);
    CHECK(surface.triangles.size() == 4 + 12);
    Eigen::Isometry3d link = Eigen::Isometry3d::Identity();
    link.linear() = Quaternion(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())).toRotationMatrix();
    link.translation() = Vec3(0.3, -0.2, 0.5);
    const Eigen::Isometry3d visual = link * pose(Vec3(0.1, 0, 0.02), 0, 0, 0.4);
    const Vec3 corners[4] = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
    // The welded vertices come in the order the file first names them: each corner is one of them.
    for (const Vec3& corner : corners) {
        double nearest = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < 4; ++k) nearest = std::min(nearest, (surface.vertices[k] - visual * (0.5 * corner)).norm());
        CHECK(nearest < 1e-12);
    }
}

TEST_CASE("urdf robots: mimic joints follow their leaders (a prescribed finger pair, a swinging pair at twice the "
          "angle)",
          "[validation][urdf]") {
    // A palm fixed to the world holds two prismatic fingers along x, `right` mimicking `left` with
    // multiplier -1 (they close together), and two pendulums turning about y, `b` mimicking `a`
    // with multiplier 2. `left` is prescribed; the pendulums swing under gravity, b's weight
    // acting on a through the coupling. Each coupling is one hard row, held to Newton's constraint
    // tolerance (1e-10), so each follower's coordinate is its multiple of the leader's to 1e-9.
    const std::string inertial_aside =
        "<inertial><origin xyz=\"0.1 0 0\"/><mass value=\"0.5\"/><inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" "
        "iyy=\"0.001\" iyz=\"0\" izz=\"0.001\"/></inertial>";
    const std::string inertial = "<inertial><mass value=\"0.1\"/><inertia ixx=\"0.0001\" ixy=\"0\" ixz=\"0\" "
                                 "iyy=\"0.0001\" iyz=\"0\" izz=\"0.0001\"/></inertial>";
    const auto joint = [](const std::string& name, const std::string& type, const std::string& child,
                          const std::string& xyz, const std::string& axis, const std::string& extra) {
        return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"palm\"/><child link=\"" + child +
               "\"/><origin xyz=\"" + xyz + "\" rpy=\"0.3 0 0\"/><axis xyz=\"" + axis + "\"/>" + extra + "</joint>\n";
    };
    const std::string range = "<limit lower=\"-0.05\" upper=\"0.05\" effort=\"10\" velocity=\"1\"/>";
    const auto file = std::filesystem::temp_directory_path() / "soma_validation_mimic_hand.urdf";
    std::ofstream(file) << "<?xml version=\"1.0\"?>\n<robot name=\"hand\">\n<link name=\"palm\"/>\n"
                        << joint("left", "prismatic", "l", "-0.05 0 0", "1 0 0", range)
                        << joint("right", "prismatic", "r", "0.05 0 0", "1 0 0",
                                 range + "<mimic joint=\"left\" multiplier=\"-1\"/>")
                        << joint("a", "continuous", "pa", "0 0.2 0", "0 1 0", "")
                        << joint("b", "continuous", "pb", "0 0.4 0", "0 1 0", "<mimic joint=\"a\" multiplier=\"2\"/>")
                        << "<link name=\"l\">" << inertial << "</link>\n<link name=\"r\">" << inertial << "</link>\n"
                        << "<link name=\"pa\">" << inertial_aside << "</link>\n<link name=\"pb\">" << inertial_aside
                        << "</link>\n</robot>\n";
    auto sim = build_scene("simulation: {duration: 1.0}\n"
                           "integrator: {type: implicit_euler, dt: 1.0e-3}\n"
                           "imports:\n"
                           "  - {type: urdf, name: hand, file: '" + file.string() + "', "
                           "limits: false, coordinates: {left: '0.01*(1-cos(2*t))'}}\n"
                           "forces: [{type: gravity, acceleration: [0, 0, -9.81]}]\n");
    const Eigen::Isometry3d l0 = body_pose(*sim, "hand/l"), r0 = body_pose(*sim, "hand/r"),
                            a0 = body_pose(*sim, "hand/pa"), b0 = body_pose(*sim, "hand/pb");
    // The joint axes in the world: the joints' frames are turned 0.3 rad about x.
    const Mat3 turn = Eigen::AngleAxisd(0.3, Vec3::UnitX()).toRotationMatrix();
    const Vec3 slide_axis = turn * Vec3::UnitX(), hinge_axis = turn * Vec3::UnitY();
    // The signed turn of a body about the hinge axis since it was built.
    const auto angle = [&](const Eigen::Isometry3d& now, const Eigen::Isometry3d& built) {
        const Eigen::AngleAxisd turned(Mat3(now.linear() * built.linear().transpose()));
        return turned.angle() * turned.axis().dot(hinge_axis);
    };
    double largest_slide_error = 0.0, largest_angle_error = 0.0, largest_angle = 0.0;
    while (sim->state().t < 1.0 - 1e-9) {
        REQUIRE(step_once(*sim, 1.0e-3));
        const double left = (body_pose(*sim, "hand/l").translation() - l0.translation()).dot(slide_axis);
        const double right = (body_pose(*sim, "hand/r").translation() - r0.translation()).dot(slide_axis);
        largest_slide_error = std::max(largest_slide_error, std::abs(right + left));
        const double theta_a = angle(body_pose(*sim, "hand/pa"), a0), theta_b = angle(body_pose(*sim, "hand/pb"), b0);
        // b's angle is measured in (-pi, pi]: compared modulo a turn.
        largest_angle_error =
            std::max(largest_angle_error, std::abs(std::remainder(theta_b - 2.0 * theta_a, 2.0 * std::numbers::pi)));
        largest_angle = std::max(largest_angle, std::abs(theta_a));
        const double t = sim->state().t;
        REQUIRE(left == Approx(0.01 * (1.0 - std::cos(2.0 * t))).margin(1e-9));
    }
    INFO("largest leader angle " << largest_angle << " rad");
    CHECK(largest_slide_error < 1e-9);
    CHECK(largest_angle_error < 1e-9);
    // The pendulums were built level (their centres of mass 0.1 m beside the axis) and swing down.
    CHECK(largest_angle > 0.5);
}
