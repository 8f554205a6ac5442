#pragma once
/// \file urdf_robot.hpp
/// \brief A URDF robot read into the bodies and joints a scene holds: links joined by fixed
/// joints merged into one body (their masses and inertias combined), every pose in the world in
/// the configuration the robot is built in: the URDF's zero configuration moved by the initial
/// coordinates given, from which Soma's joints count.

#include "soma/types.hpp"

#include <Eigen/Geometry>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace soma::urdf {

/// A collision or visual geometry of a link, placed in its body's frame.
struct RobotShape {
    enum class Kind { box, sphere, cylinder, mesh } kind = Kind::box;
    std::string link;              ///< the link it belongs to (for messages)
    Eigen::Isometry3d placement;   ///< geometry frame in the body frame
    Vec3 size = Vec3::Zero();      ///< box: edge lengths
    double radius = 0.0;           ///< sphere, cylinder
    double length = 0.0;           ///< cylinder (along the geometry frame's z)
    std::filesystem::path mesh;    ///< mesh: the file, resolved
    Vec3 scale = Vec3::Ones();     ///< mesh: the file's scale per axis
};

/// One body: a link and the links fixed to it.
struct RobotBody {
    std::string name;                ///< its first link's name
    std::vector<std::string> links;  ///< the links merged into it (first: its own)
    Eigen::Isometry3d pose;          ///< body frame (the first link's frame) in the world, as built (initial coordinates)
    double mass = 0.0;
    Vec3 center_of_mass = Vec3::Zero();  ///< body frame
    Mat3 inertia = Mat3::Zero();         ///< about the centre of mass, body axes
    std::vector<RobotShape> shapes;   ///< <collision> geometries
    std::vector<RobotShape> visuals;  ///< <visual> geometries
};

/// One moving joint between two bodies (fixed joints merge their links instead).
struct RobotJoint {
    enum class Kind { revolute, continuous, prismatic, planar, floating } kind = Kind::revolute;
    std::string name;
    int parent = -1;  ///< body index; -1: the world (the fixed base)
    int child = 0;
    Vec3 at = Vec3::Zero();    ///< the joint frame's origin, world, as built (on the parent: its own coordinate does not move it)
    Vec3 axis = Vec3::UnitX();  ///< unit axis, world, as built (planar: the plane's normal)
    double initial = 0.0;       ///< its coordinate as built (rad or m; a mimic joint's: multiplier times its leader's)
    std::optional<double> lower, upper;  ///< the range in <limit>, when it has one
    double damping = 0.0;   ///< <dynamics damping>
    double friction = 0.0;  ///< <dynamics friction>
    /// <mimic>: this joint's coordinate is multiplier times that of the joint named (offset 0).
    struct Mimic {
        std::string joint;
        double multiplier = 1.0;
    };
    std::optional<Mimic> mimic;
};

struct Robot {
    std::string name;  ///< <robot name>
    std::vector<RobotBody> bodies;
    std::vector<RobotJoint> joints;  ///< parents before children
};

/// Where the robot stands and how its files are found.
struct ReadOptions {
    Vec3 position = Vec3::Zero();                       ///< root link's origin, world
    Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();
    bool fixed_base = true;                              ///< the root link (and links fixed to it) is the world
    std::filesystem::path package_root;                  ///< `package://NAME/x` is package_root/NAME/x
    bool collision = true;                               ///< read the <collision> geometries (else none)
    bool visuals = true;                                 ///< read the <visual> geometries (else none)
    /// Joint name -> coordinate (rad or m from the zero configuration) the robot is built at;
    /// joints not named are at 0, a mimic joint at its multiplier times its leader's.
    std::map<std::string, double> initial_coordinates;
};

/// Reads a URDF file with urdfdom. Throws std::invalid_argument naming the file and the link or
/// joint at fault: XML or URDF errors (urdfdom's messages), a mimic joint that cannot be coupled,
/// a moving body with no mass or with an inertia no body has (not positive definite, or I1 + I2 <
/// I3), a zero joint axis; an initial coordinate for no revolute, continuous or prismatic joint,
/// or for a mimic joint (a message beginning "initial_coordinates:").
Robot read_urdf(const std::filesystem::path& file, const ReadOptions& options);

/// The same from the file's text (the fuzz target's entry); `file` names it in messages and
/// resolves relative mesh names.
Robot read_urdf_text(const std::string& text, const std::filesystem::path& file, const ReadOptions& options);

}  // namespace soma::urdf
