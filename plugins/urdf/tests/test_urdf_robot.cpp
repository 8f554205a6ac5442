// The URDF reader and the scene text it gives: merged fixed links, world poses, mass properties,
// ranges and dampers as written in the file, and the refusals, each naming the link or joint.
#include "urdf_robot.hpp"
#include "urdf_scene.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include <Eigen/Geometry>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

using namespace soma;
using namespace soma::urdf;

namespace {

std::filesystem::path data_file(const std::string& name) {
    const char* source = std::getenv("SOMA_SOURCE_DIR");
    REQUIRE(source != nullptr);
    return std::filesystem::path(source) / "configs/rigid" / name;
}

/// URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll).
Mat3 rpy(double roll, double pitch, double yaw) {
    return (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
            Eigen::AngleAxisd(roll, Vec3::UnitX()))
        .toRotationMatrix();
}

/// A URDF written to a temporary file.
std::filesystem::path write_urdf(const std::string& name, const std::string& body) {
    const auto path = std::filesystem::temp_directory_path() / ("soma_urdf_test_" + name + ".urdf");
    std::ofstream(path) << "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n" << body << "</robot>\n";
    return path;
}

const std::string kInertial =
    "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial>";

/// A base and one link on a joint; `joint` and `link` hold the extra XML of each.
std::string one_joint(const std::string& type, const std::string& joint, const std::string& link,
                      const std::string& inertial = kInertial) {
    return "<link name=\"base\"/>\n<joint name=\"j\" type=\"" + type +
           "\"><parent link=\"base\"/><child link=\"l\"/><axis xyz=\"0 0 1\"/>" + joint + "</joint>\n<link name=\"l\">" +
           inertial + link + "</link>\n";
}

/// A palm fixed to the world with two prismatic fingers, `left` and `right` (whose <joint> gets \p right_extra).
std::string two_fingers(const std::string& right_extra) {
    return "<link name=\"palm\"/>\n"
           "<joint name=\"left\" type=\"prismatic\"><parent link=\"palm\"/><child link=\"l\"/><origin xyz=\"-0.05 0 0\"/>"
           "<axis xyz=\"1 0 0\"/><limit lower=\"-0.02\" upper=\"0.04\" effort=\"10\" velocity=\"1\"/></joint>\n"
           "<link name=\"l\">" + kInertial + "</link>\n"
           "<joint name=\"right\" type=\"prismatic\"><parent link=\"palm\"/><child link=\"r\"/><origin xyz=\"0.05 0 0\"/>"
           "<axis xyz=\"1 0 0\"/><limit lower=\"-0.04\" upper=\"0.02\" effort=\"10\" velocity=\"1\"/>" + right_extra +
           "</joint>\n"
           "<link name=\"r\">" + kInertial + "</link>\n";
}

std::string refusal(const std::filesystem::path& file, const SceneSettings& settings = {}, bool fixed_base = true) {
    ReadOptions options;
    options.fixed_base = fixed_base;
    try {
        robot_scene_text(read_urdf(file, options), settings);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(accepted)";
}

/// The refusal of a base and one link on a continuous joint, `link` holding the link's extra XML.
std::string link_refusal(const std::string& name, const std::string& link, const SceneSettings& settings) {
    return refusal(write_urdf(name, one_joint("continuous", "", link)), settings);
}

}  // namespace

TEST_CASE("urdf: the spatial arm's bodies, joints and mass properties are the file's", "[urdf]") {
    const Robot robot = read_urdf(data_file("spatial_arm.urdf"), {});
    CHECK(robot.name == "spatial_arm");
    REQUIRE(robot.bodies.size() == 3);  // base_link is the world; wrist_plate is merged into upper_arm
    CHECK(robot.bodies[0].name == "turret_link");
    CHECK(robot.bodies[1].links == std::vector<std::string>{"upper_arm", "wrist_plate"});
    CHECK(robot.bodies[2].name == "finger");
    CHECK(robot.bodies[0].mass == 2.0);
    CHECK(robot.bodies[1].mass == Approx(1.8).epsilon(1e-15));
    CHECK(robot.bodies[2].mass == 0.2);

    // World poses by composing the joint origins independently.
    const Eigen::Isometry3d turret = Eigen::Translation3d(0.05, 0, 0.1) * Eigen::Isometry3d(rpy(0.3, 0, 0.3));
    const Eigen::Isometry3d upper = turret * Eigen::Translation3d(0.02, 0.03, 0.12) * Eigen::Isometry3d(rpy(0.2, -0.1, 0.4));
    const Eigen::Isometry3d plate = upper * Eigen::Translation3d(0.3, 0, 0) * Eigen::Isometry3d(rpy(0.5, 0, 0));
    const Eigen::Isometry3d finger = plate * Eigen::Translation3d(0.02, 0.01, 0);
    // Products of a few rotations: agreement to rounding.
    CHECK((robot.bodies[0].pose.matrix() - turret.matrix()).norm() < 1e-14);
    CHECK((robot.bodies[1].pose.matrix() - upper.matrix()).norm() < 1e-14);
    CHECK((robot.bodies[2].pose.matrix() - finger.matrix()).norm() < 1e-14);

    // The turret's inertia turned from its inertial frame into the link's.
    Mat3 turret_inertia;
    turret_inertia << 0.02, 0.001, 0, 0.001, 0.03, 0.002, 0, 0.002, 0.025;
    const Mat3 r = rpy(0.1, 0.2, 0.3);
    CHECK((robot.bodies[0].inertia - r * turret_inertia * r.transpose()).norm() < 1e-15);
    CHECK((robot.bodies[0].center_of_mass - Vec3(0.01, 0.02, 0.05)).norm() < 1e-15);

    // The merged upper arm: second moments about the body origin summed, then moved to the
    // combined centre of mass (the parallel-axis theorem the other way round).
    const auto about_origin = [](double m, const Vec3& c, const Mat3& i) {
        return Mat3(i + m * (c.squaredNorm() * Mat3::Identity() - c * c.transpose()));
    };
    Mat3 arm_inertia, plate_inertia;
    arm_inertia << 0.005, 0, 0.001, 0, 0.04, 0, 0.001, 0, 0.04;
    plate_inertia = Vec3(0.0001, 0.0002, 0.0002).asDiagonal();
    const Mat3 ra = rpy(0, 0.3, 0), rp = rpy(0.5, 0, 0);
    const Vec3 arm_c(0.15, 0.01, 0.02), plate_c = Vec3(0.3, 0, 0) + rp * Vec3(0.01, 0, 0);
    const Mat3 total = about_origin(1.5, arm_c, ra * arm_inertia * ra.transpose()) +
                       about_origin(0.3, plate_c, rp * plate_inertia * rp.transpose());
    const Vec3 c = (1.5 * arm_c + 0.3 * plate_c) / 1.8;
    CHECK((robot.bodies[1].center_of_mass - c).norm() < 1e-15);
    CHECK((robot.bodies[1].inertia - (total - 1.8 * (c.squaredNorm() * Mat3::Identity() - c * c.transpose()))).norm() < 1e-15);

    REQUIRE(robot.joints.size() == 3);
    const RobotJoint& t = robot.joints[0];
    CHECK(t.name == "turret");
    CHECK(t.parent == -1);
    CHECK(t.child == 0);
    CHECK((t.at - turret.translation()).norm() < 1e-15);
    CHECK((t.axis - turret.linear() * Vec3::UnitZ()).norm() < 1e-15);
    CHECK(*t.lower == -2.0);
    CHECK(*t.upper == 2.0);
    CHECK(t.damping == 0.5);
    CHECK(robot.joints[1].parent == 0);
    CHECK((robot.joints[1].axis - upper.linear() * Vec3(0, 1, 0.2).normalized()).norm() < 1e-15);
    CHECK(robot.joints[2].kind == RobotJoint::Kind::prismatic);
    CHECK(robot.joints[2].parent == 1);  // the slide hangs on the plate, part of the upper arm's body
    CHECK((robot.joints[2].at - finger.translation()).norm() < 1e-14);
    CHECK(*robot.joints[2].lower == -0.05);
}

TEST_CASE("urdf: the scene text holds the bodies, joints, limits and dampers", "[urdf]") {
    ReadOptions options;
    options.position = Vec3(1, 2, 3);
    const Robot robot = read_urdf(data_file("spatial_arm.urdf"), options);
    SceneSettings settings;
    settings.prefix = "arm";
    settings.source = "spatial_arm.urdf";
    const YAML::Node scene = YAML::Load(robot_scene_text(robot, settings));
    REQUIRE(scene["elements"].size() == 3);
    const YAML::Node upper = scene["elements"][1];
    CHECK(upper["name"].as<std::string>() == "arm/upper_arm");
    CHECK(upper["mass"].as<double>() == robot.bodies[1].mass);  // shortest round-trip text: the same double
    CHECK(upper["position"][0].as<double>() == robot.bodies[1].pose.translation().x());
    CHECK(upper["position"][0].as<double>() > 1.0);  // placed at `position`
    // Each body's one collision geometry is its one part: the upper arm's box keeps the file's
    // sizes and is turned a quarter turn about z, as its <collision> origin says (rpy 0 0 pi/2:
    // the quaternion [cos(pi/4), 0, 0, sin(pi/4)], to the rounding of the rpy's conversions).
    CHECK(!upper["shape"]);  // the single-shape form is no longer written
    REQUIRE(upper["shapes"].size() == 1);
    const YAML::Node box = upper["shapes"][0];
    CHECK(box["shape"]["box"]["size"][0].as<double>() == 0.05);
    CHECK(box["shape"]["box"]["size"][1].as<double>() == 0.3);
    CHECK(box["center"][0].as<double>() == 0.15);
    const double half = std::sqrt(0.5);
    CHECK(std::abs(box["orientation"][0].as<double>() - half) < 1e-15);
    CHECK(std::abs(box["orientation"][1].as<double>()) < 1e-15);
    CHECK(std::abs(box["orientation"][2].as<double>()) < 1e-15);
    CHECK(std::abs(box["orientation"][3].as<double>() - half) < 1e-15);
    const YAML::Node turret = scene["elements"][0]["shapes"];
    REQUIRE(turret.size() == 1);
    CHECK(turret[0]["shape"]["cylinder"]["length"].as<double>() == 0.1);
    CHECK(turret[0]["center"][2].as<double>() == 0.05);
    // An origin without rpy is the identity, which converts to [1, 0, 0, 0] exactly.
    CHECK(turret[0]["orientation"][0].as<double>() == 1.0);
    CHECK(turret[0]["orientation"][3].as<double>() == 0.0);
    CHECK(scene["elements"][2]["shapes"][0]["shape"]["sphere"]["radius"].as<double>() == 0.02);
    CHECK(scene["elements"][2]["shapes"][0]["center"][0].as<double>() == 0.03);

    const YAML::Node constraints = scene["constraints"];
    REQUIRE(constraints.size() == 6);  // three joints, each with its range
    CHECK(constraints[0]["type"].as<std::string>() == "revolute_joint");
    CHECK(!constraints[0]["second"]);  // on the world: the base is fixed
    CHECK(constraints[1]["type"].as<std::string>() == "joint_limit");
    CHECK(constraints[1]["joint"].as<std::string>() == "arm/turret");
    CHECK(constraints[1]["lower"].as<double>() == -2.0);
    CHECK(constraints[3]["lower"].as<double>() == -1.5);
    CHECK(constraints[4]["type"].as<std::string>() == "prismatic_joint");
    CHECK(constraints[4]["second"]["element"].as<std::string>() == "arm/upper_arm");
    CHECK(constraints[5]["upper"].as<double>() == 0.05);
    REQUIRE(scene["forces"].size() == 1);
    CHECK(scene["forces"][0]["type"].as<std::string>() == "joint_drive");
    CHECK(scene["forces"][0]["damping"].as<double>() == 0.5);

    SECTION("a prescribed joint has no range or damper") {
        settings.coordinates = {{"turret", "0.1*t"}};
        const YAML::Node prescribed = YAML::Load(robot_scene_text(robot, settings));
        CHECK(prescribed["constraints"][0]["coordinate"].as<std::string>() == "0.1*t");
        CHECK(prescribed["constraints"].size() == 5);
        CHECK(!prescribed["forces"]);
    }
    SECTION("options leave out limits, dampers and shapes") {
        settings.limits = false;
        settings.joint_damping = false;
        settings.collision = false;
        const YAML::Node bare = YAML::Load(robot_scene_text(robot, settings));
        CHECK(bare["constraints"].size() == 3);
        CHECK(!bare["forces"]);
        CHECK(!bare["elements"][1]["shapes"]);
        CHECK(!bare["elements"][1]["shape"]);
    }
}

TEST_CASE("urdf: names with quotes and line breaks stay names in the scene text", "[urdf]") {
    // A name that ended its line could write blocks of its own (found by review).
    const auto file = std::filesystem::temp_directory_path() / "soma_urdf_test_names.urdf";
    std::ofstream(file) << "<?xml version=\"1.0\"?>\n<robot name=\"x&#10;outputs: 5\">\n<link name=\"base\"/>\n"
                           "<joint name=\"j&#10;k\" type=\"continuous\"><parent link=\"base\"/><child link=\"l&quot;\\\"/>"
                           "<axis xyz=\"0 0 1\"/></joint>\n<link name=\"l&quot;\\\">" + kInertial + "</link>\n</robot>\n";
    SceneSettings settings;
    settings.prefix = "r";
    const YAML::Node scene = YAML::Load(robot_scene_text(read_urdf(file, {}), settings));
    CHECK(!scene["outputs"]);
    CHECK(scene["elements"][0]["name"].as<std::string>() == "r/l\"\\");
    CHECK(scene["constraints"][0]["name"].as<std::string>() == "r/j\nk");
}

TEST_CASE("urdf: mesh names resolve against package_root and the URDF's folder", "[urdf]") {
    const auto file = write_urdf("meshes", one_joint("continuous", "",
                                                     "<collision><geometry><mesh filename=\"package://robo/m/hand.obj\" "
                                                     "scale=\"0.001 0.001 0.001\"/></geometry></collision>") +
                                               "<joint name=\"k\" type=\"continuous\"><parent link=\"l\"/><child "
                                               "link=\"n\"/><axis xyz=\"1 0 0\"/></joint>\n<link name=\"n\">" +
                                               kInertial +
                                               "<collision><origin xyz=\"0 0 0.5\" rpy=\"0 0.4 0\"/><geometry><mesh "
                                               "filename=\"parts/finger.OBJ\"/></geometry></collision></link>\n");
    ReadOptions options;
    options.package_root = "/opt/descriptions";
    const Robot robot = read_urdf(file, options);
    REQUIRE(robot.bodies.size() == 2);
    CHECK(robot.bodies[0].shapes.at(0).mesh == std::filesystem::path("/opt/descriptions/robo/m/hand.obj"));
    CHECK(robot.bodies[1].shapes.at(0).mesh == file.parent_path() / "parts/finger.OBJ");
    SceneSettings settings;
    settings.prefix = "r";
    const YAML::Node scene = YAML::Load(robot_scene_text(robot, settings));
    CHECK(scene["elements"][0]["shapes"][0]["shape"]["mesh"]["path"].as<std::string>() ==
          "/opt/descriptions/robo/m/hand.obj");
    CHECK(scene["elements"][0]["shapes"][0]["shape"]["mesh"]["scale"].as<double>() == 0.001);
    CHECK(scene["elements"][1]["shapes"][0]["center"][2].as<double>() == 0.5);
    // A turned mesh is a turned part (its vertices in the part's axes): Ry(0.4) is the quaternion
    // [cos 0.2, 0, sin 0.2, 0], to the roundings of rpy -> quaternion -> matrix -> quaternion.
    const YAML::Node finger = scene["elements"][1]["shapes"][0]["orientation"];
    CHECK(std::abs(finger[0].as<double>() - std::cos(0.2)) < 1e-15);
    CHECK(std::abs(finger[2].as<double>() - std::sin(0.2)) < 1e-15);
}

namespace {

/// The rotation of a written part's `orientation` [w, x, y, z].
Mat3 part_rotation(const YAML::Node& part) {
    const YAML::Node q = part["orientation"];
    REQUIRE(q.size() == 4);
    return Eigen::Quaterniond(q[0].as<double>(), q[1].as<double>(), q[2].as<double>(), q[3].as<double>())
        .toRotationMatrix();
}

Vec3 part_center(const YAML::Node& part) {
    return Vec3(part["center"][0].as<double>(), part["center"][1].as<double>(), part["center"][2].as<double>());
}

}  // namespace

TEST_CASE("urdf: every collision geometry of a body is a part, placed and turned as the file says", "[urdf]") {
    // Link l holds a box turned about z, a sphere and a cylinder turned to lie along -y; link m,
    // fixed to l by a turned joint, holds a cylinder turned again by its own origin. One body,
    // four parts: l's in file order, then m's.
    const auto file = write_urdf(
        "parts",
        one_joint("continuous", "",
                  "<collision><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 0.3\"/><geometry><box size=\"1 2 3\"/></geometry>"
                  "</collision>"
                  "<collision><origin xyz=\"0 0 -0.4\"/><geometry><sphere radius=\"0.2\"/></geometry></collision>"
                  "<collision><origin rpy=\"1.5707963267948966 0 0\"/><geometry><cylinder radius=\"0.05\" "
                  "length=\"0.6\"/></geometry></collision>") +
            "<joint name=\"mount\" type=\"fixed\"><parent link=\"l\"/><child link=\"m\"/>"
            "<origin xyz=\"0.5 0 0\" rpy=\"0.2 0.1 -0.4\"/></joint>\n"
            "<link name=\"m\"><collision><origin xyz=\"0 0 0.1\" rpy=\"0.3 0 0\"/><geometry><cylinder radius=\"0.02\" "
            "length=\"0.2\"/></geometry></collision></link>\n");
    const Robot robot = read_urdf(file, {});
    REQUIRE(robot.bodies.size() == 1);
    SceneSettings settings;
    settings.prefix = "r";
    const YAML::Node body = YAML::Load(robot_scene_text(robot, settings))["elements"][0];
    CHECK(!body["shape"]);
    CHECK(!body["shape_center"]);
    const YAML::Node parts = body["shapes"];
    REQUIRE(parts.size() == 4);

    // The box: the file's sizes as written (not permuted), its origin's translation as the centre,
    // and the quaternion of Rz(0.3), [cos 0.15, 0, 0, sin 0.15]. urdfdom turns rpy into a
    // quaternion, the reader into a matrix, the writer back into a quaternion: a few roundings of
    // numbers below 1, so 1e-15.
    CHECK(parts[0]["shape"]["box"]["size"][0].as<double>() == 1.0);
    CHECK(parts[0]["shape"]["box"]["size"][1].as<double>() == 2.0);
    CHECK(parts[0]["shape"]["box"]["size"][2].as<double>() == 3.0);
    CHECK(part_center(parts[0]) == Vec3(0.1, 0.2, 0.3));  // a translation times the identity: exact
    CHECK(std::abs(parts[0]["orientation"][0].as<double>() - std::cos(0.15)) < 1e-15);
    CHECK(std::abs(parts[0]["orientation"][1].as<double>()) < 1e-15);
    CHECK(std::abs(parts[0]["orientation"][2].as<double>()) < 1e-15);
    CHECK(std::abs(parts[0]["orientation"][3].as<double>() - std::sin(0.15)) < 1e-15);

    // The sphere, second in the file, is the second part.
    CHECK(parts[1]["shape"]["sphere"]["radius"].as<double>() == 0.2);
    CHECK(part_center(parts[1]) == Vec3(0, 0, -0.4));

    // The cylinder turned a quarter turn about x: its axis (the part's z) along the body's -y,
    // as URDF's cylinder lies along its frame's z. pi/2 written to 17 digits: 1e-15.
    CHECK(parts[2]["shape"]["cylinder"]["radius"].as<double>() == 0.05);
    CHECK(parts[2]["shape"]["cylinder"]["length"].as<double>() == 0.6);
    CHECK((part_rotation(parts[2]) * Vec3::UnitZ() - Vec3(0, -1, 0)).norm() < 1e-15);
    CHECK((part_rotation(parts[2]) - rpy(std::numbers::pi / 2, 0, 0)).norm() < 1e-15);

    // The merged link's cylinder: the fixed joint's placement composed with its own origin,
    // computed here independently. Products of two rotations: 1e-15.
    const Eigen::Isometry3d joint = Eigen::Translation3d(0.5, 0, 0) * Eigen::Isometry3d(rpy(0.2, 0.1, -0.4));
    const Eigen::Isometry3d placement = joint * Eigen::Translation3d(0, 0, 0.1) * Eigen::Isometry3d(rpy(0.3, 0, 0));
    CHECK(parts[3]["shape"]["cylinder"]["radius"].as<double>() == 0.02);
    CHECK((part_center(parts[3]) - placement.translation()).norm() < 1e-15);
    CHECK((part_rotation(parts[3]) - placement.linear()).norm() < 1e-15);
    // The case tells composition from its shortcuts: the joint's turn moves the centre from the
    // translations' sum and turns the part from its own origin's rpy.
    CHECK((placement.translation() - Vec3(0.5, 0, 0.1)).norm() > 0.01);
    CHECK((placement.linear() - rpy(0.3, 0, 0)).norm() > 0.1);

    // Written as shortest round-trip numbers: the scene reads back the reader's doubles exactly.
    for (std::size_t k = 0; k < 4; ++k) {
        INFO("part " << k);
        CHECK(part_center(parts[k]) == robot.bodies[0].shapes[k].placement.translation());
    }

    SECTION("a turn the matrix conversion gives with w < 0 is written with w >= 0") {
        // Rz(-3): the quaternion [cos 1.5, 0, 0, -sin 1.5] (-q is the same turn; Eigen's
        // conversion from this matrix gives the one with w < 0, and the writer flips it).
        const Robot turned = read_urdf(
            write_urdf("yaw3", one_joint("continuous", "",
                                         "<collision><origin rpy=\"0 0 -3\"/><geometry><box size=\"1 2 3\"/></geometry>"
                                         "</collision>")),
            {});
        const YAML::Node part = YAML::Load(robot_scene_text(turned, settings))["elements"][0]["shapes"][0];
        CHECK(std::abs(part["orientation"][0].as<double>() - std::cos(1.5)) < 1e-15);
        CHECK(std::abs(part["orientation"][3].as<double>() + std::sin(1.5)) < 1e-15);
    }
    SECTION("collision: false writes no parts") {
        settings.collision = false;
        const YAML::Node bare = YAML::Load(robot_scene_text(robot, settings))["elements"][0];
        CHECK(!bare["shapes"]);
        CHECK(!bare["shape"]);
    }
}

TEST_CASE("urdf: every visual geometry of a body is one of its visuals, placed as the file says", "[urdf]") {
    // Link l: a turned box visual and an STL mesh visual beside one collision box; link m, fixed
    // to l, a sphere visual. One body: two visuals of l in file order, then m's; the collision
    // part stays the only part.
    const auto file = write_urdf(
        "visuals",
        one_joint("continuous", "",
                  "<visual><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 0.3\"/><geometry><box size=\"1 2 3\"/></geometry>"
                  "<material name=\"grey\"/></visual>"
                  "<visual><geometry><mesh filename=\"meshes/l.STL\" scale=\"0.001 0.001 0.001\"/></geometry></visual>"
                  "<collision><geometry><box size=\"1 1 1\"/></geometry></collision>") +
            "<joint name=\"mount\" type=\"fixed\"><parent link=\"l\"/><child link=\"m\"/>"
            "<origin xyz=\"0.5 0 0\" rpy=\"0.2 0.1 -0.4\"/></joint>\n"
            "<link name=\"m\"><visual><origin xyz=\"0 0 0.1\"/><geometry><sphere radius=\"0.2\"/></geometry>"
            "</visual></link>\n");
    const Robot robot = read_urdf(file, {});
    REQUIRE(robot.bodies.size() == 1);
    SceneSettings settings;
    settings.prefix = "r";
    const YAML::Node body = YAML::Load(robot_scene_text(robot, settings))["elements"][0];
    REQUIRE(body["shapes"].size() == 1);
    const YAML::Node visuals = body["visuals"];
    REQUIRE(visuals.size() == 3);
    CHECK(visuals[0]["shape"]["box"]["size"][2].as<double>() == 3.0);
    CHECK(part_center(visuals[0]) == Vec3(0.1, 0.2, 0.3));
    CHECK((part_rotation(visuals[0]) - rpy(0, 0, 0.3)).norm() < 1e-15);
    // The mesh: resolved against the URDF's folder, its even scale kept.
    CHECK(visuals[1]["shape"]["mesh"]["path"].as<std::string>() == (file.parent_path() / "meshes/l.STL").string());
    CHECK(visuals[1]["shape"]["mesh"]["scale"].as<double>() == 0.001);
    // The merged link's sphere: the fixed joint's placement composed with its own origin.
    const Eigen::Isometry3d joint = Eigen::Translation3d(0.5, 0, 0) * Eigen::Isometry3d(rpy(0.2, 0.1, -0.4));
    CHECK(visuals[2]["shape"]["sphere"]["radius"].as<double>() == 0.2);
    CHECK((part_center(visuals[2]) - (joint * Vec3(0, 0, 0.1))).norm() < 1e-15);
    SECTION("visuals: false writes none, and the collision parts stay") {
        settings.visuals = false;
        const YAML::Node bare = YAML::Load(robot_scene_text(robot, settings))["elements"][0];
        CHECK(!bare["visuals"]);
        CHECK(bare["shapes"].size() == 1);
    }
}

TEST_CASE("urdf: a mimic of a leader built past half a turn with a non-integer multiplier is refused at "
          "initial_coordinates",
          "[urdf]") {
    // Two continuous joints, b mimicking a at 0.5: the coupling reads a's angle in (-pi, pi], so
    // a built at 4 rad would read 4 - 2 pi, and b, built at 2, would not be half of it.
    const std::string body =
        "<link name=\"palm\"/>\n"
        "<joint name=\"a\" type=\"continuous\"><parent link=\"palm\"/><child link=\"pa\"/><axis xyz=\"0 1 0\"/></joint>\n"
        "<link name=\"pa\">" + kInertial + "</link>\n"
        "<joint name=\"b\" type=\"continuous\"><parent link=\"palm\"/><child link=\"pb\"/><axis xyz=\"0 1 0\"/>"
        "<mimic joint=\"a\" multiplier=\"0.5\"/></joint>\n"
        "<link name=\"pb\">" + kInertial + "</link>\n";
    const auto file = write_urdf("mimic_wrap", body);
    ReadOptions options;
    options.initial_coordinates["a"] = 4.0;
    try {
        read_urdf(file, options);
        FAIL("accepted");
    } catch (const std::invalid_argument& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("initial_coordinates:") && Catch::Contains("start 'a' within (-pi, pi]"));
    }
    options.initial_coordinates["a"] = 3.0;  // within: b starts at 1.5
    const Robot robot = read_urdf(file, options);
    CHECK(robot.joints[1].initial == 1.5);
}

TEST_CASE("urdf: a mimic joint is a joint_coupling after every joint", "[urdf]") {
    const Robot robot = read_urdf(write_urdf("mimic_fingers", two_fingers("<mimic joint=\"left\" multiplier=\"-1\"/>")), {});
    REQUIRE(robot.joints.size() == 2);
    REQUIRE(robot.joints[1].mimic);
    CHECK(robot.joints[1].mimic->joint == "left");
    CHECK(robot.joints[1].mimic->multiplier == -1.0);
    SceneSettings settings;
    settings.prefix = "hand";
    const YAML::Node constraints = YAML::Load(robot_scene_text(robot, settings))["constraints"];
    // left, its limit, right, its limit, then the coupling.
    REQUIRE(constraints.size() == 5);
    const YAML::Node coupling = constraints[4];
    CHECK(coupling["type"].as<std::string>() == "joint_coupling");
    CHECK(coupling["name"].as<std::string>() == "hand/right/mimic");
    CHECK(coupling["leader"].as<std::string>() == "hand/left");
    CHECK(coupling["follower"].as<std::string>() == "hand/right");
    CHECK(coupling["multiplier"].as<double>() == -1.0);
}

TEST_CASE("urdf: a floating base is a free body and needs a mass", "[urdf]") {
    const auto file = write_urdf("float", "<link name=\"base\">" + kInertial + "</link>\n" +
                                              "<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/><child "
                                              "link=\"l\"/><axis xyz=\"0 1 0\"/></joint>\n<link name=\"l\">" +
                                              kInertial + "</link>\n");
    ReadOptions options;
    options.fixed_base = false;
    const Robot robot = read_urdf(file, options);
    REQUIRE(robot.bodies.size() == 2);
    CHECK(robot.joints.at(0).parent == 0);
    CHECK(refusal(write_urdf("float_massless", one_joint("continuous", "", ""))).find("(accepted)") == 0);
    CHECK(refusal(write_urdf("float_massless", one_joint("continuous", "", "")), {}, false)
              .find("link 'base' moves but has no mass") != std::string::npos);
}

TEST_CASE("urdf: refusals name the link or joint and the way out", "[urdf]") {
    SceneSettings settings;
    settings.prefix = "r";
    CHECK_THAT(refusal(write_urdf("missing_mass", one_joint("continuous", "", "", ""))),
               Catch::Contains("link 'l' moves but has no mass"));
    CHECK_THAT(refusal(write_urdf("flat_inertia",
                                  one_joint("continuous", "", "",
                                            "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" "
                                            "iyy=\"0.01\" iyz=\"0\" izz=\"0\"/></inertial>"))),
               Catch::Contains("link 'l': its inertia about its centre of mass is not positive definite"));
    CHECK_THAT(refusal(write_urdf("impossible_inertia",
                                  one_joint("continuous", "", "",
                                            "<inertial><mass value=\"1\"/><inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" "
                                            "iyy=\"0.01\" iyz=\"0\" izz=\"0.03\"/></inertial>"))),
               Catch::Contains("link 'l': its principal moments of inertia 0.01, 0.01, 0.03 kg m^2 violate I1 + I2 >= I3"));
    CHECK_THAT(refusal(write_urdf("mimic", one_joint("continuous", "<mimic joint=\"k\"/>", ""))),
               Catch::Contains("joint 'j' mimics joint 'k', which is not a moving joint of the robot"));
    CHECK_THAT(refusal(write_urdf("mimic_offset", two_fingers("<mimic joint=\"left\" multiplier=\"-1\" offset=\"0.01\"/>"))),
               Catch::Contains("joint 'right' mimics joint 'left' with offset 0.01") &&
                   Catch::Contains("without an offset"));
    CHECK_THAT(refusal(write_urdf("mimic_zero", two_fingers("<mimic joint=\"left\" multiplier=\"0\"/>"))),
               Catch::Contains("with multiplier 0: make it a fixed joint"));
    settings.coordinates["right"] = "0.01*t^2";
    CHECK_THAT(refusal(write_urdf("mimic_prescribed", two_fingers("<mimic joint=\"left\" multiplier=\"-1\"/>")), settings),
               Catch::Contains("joint 'right' mimics joint 'left'") && Catch::Contains("prescribe 'left' instead"));
    settings.coordinates.clear();
    CHECK_THAT(refusal(write_urdf("zero_axis", "<link name=\"base\"/>\n<joint name=\"j\" type=\"continuous\"><parent "
                                               "link=\"base\"/><child link=\"l\"/><axis xyz=\"0 0 0\"/></joint>\n"
                                               "<link name=\"l\">" + kInertial + "</link>\n")),
               Catch::Contains("joint 'j': its axis is zero"));
    CHECK_THAT(refusal(write_urdf("range", one_joint("revolute", "<limit lower=\"0.2\" upper=\"1\" effort=\"1\" "
                                                                 "velocity=\"1\"/>", "")), settings),
               Catch::Contains("joint 'j': its range [0.2, 1] excludes 0") && Catch::Contains("limits: false"));
    CHECK_THAT(refusal(write_urdf("friction", one_joint("continuous", "<dynamics friction=\"0.3\"/>", "")), settings),
               Catch::Contains("joint 'j' has dry friction 0.3") && Catch::Contains("ignore_joint_friction: true"));
    settings.ignore_joint_friction = true;
    CHECK(refusal(write_urdf("friction", one_joint("continuous", "<dynamics friction=\"0.3\"/>", "")), settings) ==
          "(accepted)");
    CHECK_THAT(link_refusal("dae", "<collision><geometry><mesh filename=\"hand.dae\"/></geometry>"
                                                   "</collision>", settings),
               Catch::Contains("link 'l': its collision mesh") &&
                   Catch::Contains("hand.dae' is neither a Wavefront OBJ nor an STL file") &&
                   Catch::Contains("collision: false"));
    CHECK_THAT(link_refusal("visual_dae", "<visual><geometry><mesh filename=\"hand.DAE\"/></geometry></visual>",
                            settings),
               Catch::Contains("link 'l': its visual mesh") && Catch::Contains("neither a Wavefront OBJ nor an STL") &&
                   Catch::Contains("visuals: false"));
    CHECK_THAT(link_refusal("visual_scale", "<visual><geometry><mesh filename=\"hand.stl\" scale=\"1 1 2\"/>"
                                            "</geometry></visual>", settings),
               Catch::Contains("link 'l': its visual mesh's scale [1, 1, 2]") && Catch::Contains("visuals: false"));
    CHECK_THAT(link_refusal("uneven_scale", "<collision><geometry><mesh filename=\"hand.obj\" scale=\"1 2 1\"/>"
                                            "</geometry></collision>", settings),
               Catch::Contains("link 'l': its collision mesh's scale [1, 2, 1] is not one positive factor") &&
                   Catch::Contains("collision: false"));
    CHECK_THAT(link_refusal("package", "<collision><geometry><mesh filename=\"package://robo/m.obj\"/>"
                                                       "</geometry></collision>", settings),
               Catch::Contains("give the import a package_root, the folder that holds the package 'robo'") &&
                   Catch::Contains("collision: false"));
    // A visual mesh named by its package (a COLLADA file, as many robots' are): refused with the
    // way out named, and not even looked for when visuals are left out.
    const auto package_visual = write_urdf(
        "package_visual", one_joint("continuous", "", "<visual><geometry><mesh filename=\"package://robo/m.dae\"/>"
                                                      "</geometry></visual>"));
    CHECK_THAT(refusal(package_visual, settings), Catch::Contains("the visual mesh 'package://robo/m.dae'") &&
                                                      Catch::Contains("visuals: false"));
    ReadOptions no_visuals;
    no_visuals.visuals = false;
    SceneSettings without = settings;
    without.visuals = false;
    CHECK(read_urdf(package_visual, no_visuals).bodies.at(0).visuals.empty());
    CHECK_NOTHROW(robot_scene_text(read_urdf(package_visual, no_visuals), without));
    settings.coordinates = {{"nope", "0"}};
    CHECK_THAT(link_refusal("coordinate", "", settings),
               Catch::Contains("coordinates: the robot has no moving joint named 'nope'"));
    settings.coordinates = {{"j", "0"}};
    CHECK_THAT(refusal(write_urdf("planar_coordinate", one_joint("planar", "", "")), settings),
               Catch::Contains("joint 'j' is not revolute, continuous or prismatic"));
    // urdfdom's own message, not a bare "cannot parse".
    CHECK_THAT(refusal(write_urdf("no_child", "<link name=\"base\"/>\n<joint name=\"j\" type=\"continuous\"><parent "
                                              "link=\"base\"/><child link=\"ghost\"/></joint>\n")),
               Catch::Contains("not a valid URDF: ") && Catch::Contains("ghost"));
    CHECK_THAT(refusal(write_urdf("xml", "<link name=\"base\">\n")), Catch::Contains("not a valid URDF"));
    // Errors urdfdom reports and then passes over (it drops the <inertial>) fail the read too.
    CHECK_THAT(refusal(write_urdf("mass_text", one_joint("continuous", "", "",
                                                         "<inertial><mass value=\"abc\"/><inertia ixx=\"1\" ixy=\"0\" "
                                                         "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>"))),
               Catch::Contains("not a valid URDF: Inertial: mass [abc] is not a float"));
    CHECK_THAT(refusal(write_urdf("short_origin",
                                  one_joint("continuous", "", "",
                                            "<inertial><origin xyz=\"1 2\"/><mass value=\"1\"/><inertia ixx=\"1\" "
                                            "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>"))),
               Catch::Contains("Parser found 2 elements but 3 expected"));
    // Found by review: a link reached twice (a loop, or two parents) recursed forever or was
    // counted twice; an empty or reversed range left the joint free; a robot of one fixed link
    // wrote no element.
    const std::string link = "<link name=\"b\">" + kInertial + "</link>\n";
    const auto joint = [](const std::string& name, const std::string& type, const std::string& parent,
                          const std::string& child) {
        return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent + "\"/><child link=\"" +
               child + "\"/><axis xyz=\"0 0 1\"/></joint>\n";
    };
    CHECK_THAT(refusal(write_urdf("loop", "<link name=\"a\"/>\n" + link + "<link name=\"c\">" + kInertial + "</link>\n" +
                                              joint("j1", "continuous", "a", "b") + joint("j2", "continuous", "b", "c") +
                                              joint("j3", "continuous", "c", "b"))),
               Catch::Contains("link 'b' is reached twice from the root"));
    CHECK_THAT(refusal(write_urdf("empty_range", one_joint("revolute", "<limit effort=\"1\" velocity=\"1\"/>", ""))),
               Catch::Contains("joint 'j': its range [0, 0] is empty"));
    CHECK_THAT(refusal(write_urdf("reversed_range",
                                  one_joint("prismatic", "<limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/>", ""))),
               Catch::Contains("joint 'j': its range [1, -1] is empty"));
    CHECK_THAT(refusal(write_urdf("one_link", "<link name=\"only\">" + kInertial + "</link>\n")),
               Catch::Contains("the robot has no moving link: with fixed_base every link fixed to the root link 'only'"));
    CHECK_THAT(refusal(std::filesystem::temp_directory_path() / "soma_no_such.urdf"),
               Catch::Contains("soma_no_such.urdf"));
}
