// The scene blocks of a URDF robot (urdf_scene.hpp).
#include "urdf_scene.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace soma::urdf {

namespace {

/// A YAML double-quoted string (names and paths may hold any character: control characters are
/// escaped, so a name cannot end its line and write a block of its own).
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') out += std::string("\\") + c;
        else if (byte < 0x20 || byte == 0x7f) out += fmt::format("\\x{:02x}", byte);
        else out += c;
    }
    return out + "\"";
}

/// Numbers in their shortest round-trip form: the scene reads back the same doubles.
std::string num(double x) { return fmt::format("{}", x); }
std::string vec(const Vec3& v) { return fmt::format("[{}, {}, {}]", num(v.x()), num(v.y()), num(v.z())); }

[[noreturn]] void refuse(const std::string& message) { throw std::invalid_argument(message); }

/// A rotation as a unit quaternion [w, x, y, z], w >= 0 (q and -q are the same rotation).
std::string quaternion(const Mat3& r) {
    Eigen::Quaterniond q(r);
    q.normalize();
    if (q.w() < 0.0) q.coeffs() = -q.coeffs();
    return fmt::format("[{}, {}, {}, {}]", num(q.w()), num(q.x()), num(q.y()), num(q.z()));
}

/// The geometry of a part, in the part's axes: a URDF box's edges, a cylinder's axis (its z) and
/// a mesh's coordinates are those of its <collision> (<visual>: \p tag) frame, as are a
/// rigid_body part's.
std::string part_geometry(const RobotShape& shape, const std::string& tag) {
    const std::string hint = "; import it with " + std::string(tag == "collision" ? "collision" : "visuals") + ": false";
    switch (shape.kind) {
        case RobotShape::Kind::sphere: return fmt::format("{{sphere: {{radius: {}}}}}", num(shape.radius));
        case RobotShape::Kind::box: return fmt::format("{{box: {{size: {}}}}}", vec(shape.size));
        case RobotShape::Kind::cylinder:
            return fmt::format("{{cylinder: {{radius: {}, length: {}}}}}", num(shape.radius), num(shape.length));
        case RobotShape::Kind::mesh: {
            std::string extension = shape.mesh.extension().string();
            std::transform(extension.begin(), extension.end(), extension.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (extension != ".obj" && extension != ".stl")
                refuse(fmt::format("link '{}': its {} mesh '{}' is neither a Wavefront OBJ nor an STL file, the mesh "
                                   "formats a rigid_body reads (convert it, e.g. with meshlab or blender){}",
                                   shape.link, tag, shape.mesh.string(), hint));
            if (std::abs(shape.scale.x() - shape.scale.y()) > 1e-12 * std::abs(shape.scale.x()) ||
                std::abs(shape.scale.x() - shape.scale.z()) > 1e-12 * std::abs(shape.scale.x()) ||
                !(shape.scale.x() > 0.0))
                refuse(fmt::format("link '{}': its {} mesh's scale {} is not one positive factor for all "
                                   "three axes, the only scaling a rigid_body's mesh takes{}",
                                   shape.link, tag, vec(shape.scale), hint));
            return fmt::format("{{mesh: {{path: {}, scale: {}}}}}", quoted(shape.mesh.string()), num(shape.scale.x()));
        }
    }
    return {};
}

/// One part of a body's `shapes` (`visuals`): the geometry at its <collision> (<visual>: \p tag)
/// frame's origin, turned as that frame is from the body's.
std::string part_block(const RobotShape& shape, const std::string& tag) {
    return fmt::format("{{shape: {}, center: {}, orientation: {}}}", part_geometry(shape, tag),
                       vec(shape.placement.translation()), quaternion(shape.placement.linear()));
}

std::string body_block(const RobotBody& body, const SceneSettings& settings) {
    const Mat3& i = body.inertia;
    std::string shapes;
    if (settings.collision && !body.shapes.empty()) {
        for (const RobotShape& s : body.shapes) shapes += (shapes.empty() ? ", shapes: [" : ", ") + part_block(s, "collision");
        shapes += "]";
    }
    if (settings.visuals && !body.visuals.empty()) {
        std::string visuals;
        for (const RobotShape& s : body.visuals) visuals += (visuals.empty() ? ", visuals: [" : ", ") + part_block(s, "visual");
        shapes += visuals + "]";
    }
    return fmt::format("  - {{name: {}, type: rigid_body, position: {}, orientation: {}, mass: {}, "
                       "center_of_mass: {}, inertia: [{}, {}, {}, {}, {}, {}]{}}}\n",
                       quoted(settings.prefix + "/" + body.name), vec(body.pose.translation()),
                       quaternion(body.pose.linear()), num(body.mass), vec(body.center_of_mass), num(i(0, 0)),
                       num(i(1, 1)), num(i(2, 2)), num(i(0, 1)), num(i(0, 2)), num(i(1, 2)), shapes);
}

const char* joint_type(RobotJoint::Kind kind) {
    switch (kind) {
        case RobotJoint::Kind::revolute:
        case RobotJoint::Kind::continuous: return "revolute_joint";
        case RobotJoint::Kind::prismatic: return "prismatic_joint";
        case RobotJoint::Kind::planar: return "planar_joint";
        case RobotJoint::Kind::floating: break;
    }
    return nullptr;
}

bool has_coordinate(RobotJoint::Kind kind) {
    return kind == RobotJoint::Kind::revolute || kind == RobotJoint::Kind::continuous ||
           kind == RobotJoint::Kind::prismatic;
}

}  // namespace

std::string robot_scene_text(const Robot& robot, const SceneSettings& settings) {
    for (const auto& prescribed : settings.coordinates) {
        const std::string& name = prescribed.first;  // not a structured binding: clang 14 cannot capture one
        const auto j = std::find_if(robot.joints.begin(), robot.joints.end(),
                                    [&](const RobotJoint& joint) { return joint.name == name; });
        if (j == robot.joints.end())
            refuse(fmt::format("coordinates: the robot has no moving joint named '{}' (fixed joints merge their links "
                               "and have no coordinate)",
                               name));
        if (!has_coordinate(j->kind))
            refuse(fmt::format("coordinates: joint '{}' is not revolute, continuous or prismatic, so it has no single "
                               "coordinate to prescribe",
                               name));
    }

    for (const RobotJoint& j : robot.joints)
        if (j.mimic && settings.coordinates.count(j.name))
            refuse(fmt::format("coordinates: joint '{}' mimics joint '{}', so its coordinate follows that joint's: "
                               "prescribe '{}' instead",
                               j.name, j.mimic->joint, j.mimic->joint));

    std::string elements, constraints, forces, couplings;
    for (const RobotBody& body : robot.bodies) elements += body_block(body, settings);
    const auto element = [&](int body) { return quoted(settings.prefix + "/" + robot.bodies[static_cast<std::size_t>(body)].name); };
    for (const RobotJoint& j : robot.joints) {
        if (j.kind == RobotJoint::Kind::floating) continue;  // a free body: no rows
        const std::string name = settings.prefix + "/" + j.name;
        const auto prescribed = settings.coordinates.find(j.name);
        constraints += fmt::format("  - {{type: {}, name: {}, first: {{element: {}}}{}, at: {}, axis: {}{}{}}}\n",
                                   joint_type(j.kind), quoted(name), element(j.child),
                                   j.parent >= 0 ? ", second: {element: " + element(j.parent) + "}" : "", vec(j.at),
                                   vec(j.axis), j.initial != 0.0 ? ", initial_coordinate: " + num(j.initial) : "",
                                   prescribed != settings.coordinates.end()
                                       ? ", coordinate: " + quoted(prescribed->second)
                                       : "");
        if (j.mimic)  // after every joint: the one it follows may come later in the tree
            couplings += fmt::format("  - {{type: joint_coupling, name: {}, leader: {}, follower: {}, multiplier: {}}}\n",
                                     quoted(name + "/mimic"), quoted(settings.prefix + "/" + j.mimic->joint),
                                     quoted(name), num(j.mimic->multiplier));
        if (prescribed != settings.coordinates.end()) continue;  // its motion is given: no range, damping or friction
        if (settings.limits && j.lower && j.upper) {
            if (!(*j.lower <= j.initial && j.initial <= *j.upper))
                refuse(fmt::format("{}joint '{}': its range [{}, {}] excludes {}, the coordinate the robot is built at "
                                   "(its initial coordinate, 0 unless given); start it inside, or import it with "
                                   "limits: false",
                                   j.initial != 0.0 ? "initial_coordinates: " : "", j.name, num(*j.lower), num(*j.upper),
                                   num(j.initial)));
            if (j.kind == RobotJoint::Kind::revolute && *j.upper - *j.lower >= 2.0 * std::numbers::pi)
                refuse(fmt::format("joint '{}': its range [{}, {}] is a turn wide or more, which a {} does not hold; "
                                   "import it with limits: false",
                                   j.name, num(*j.lower), num(*j.upper),
                                   settings.limit_stiffness ? "joint_stop" : "joint_limit"));
            if (settings.limit_stiffness) {
                const bool slide = j.kind == RobotJoint::Kind::prismatic;
                if (slide && !settings.slide_limit_stiffness)
                    refuse(fmt::format("joint '{}' is prismatic with a range: give slide_limit_stiffness (N/m) for its "
                                       "penalty stops",
                                       j.name));
                forces += fmt::format("  - {{type: joint_stop, name: {}, joint: {}, lower: {}, upper: {}, stiffness: {}, "
                                      "damping: {}}}\n",
                                      quoted(name + "/limit"), quoted(name), num(*j.lower), num(*j.upper),
                                      num(slide ? *settings.slide_limit_stiffness : *settings.limit_stiffness),
                                      num(slide ? settings.slide_limit_damping : settings.limit_damping));
            } else
                constraints += fmt::format("  - {{type: joint_limit, name: {}, joint: {}, lower: {}, upper: {}}}\n",
                                           quoted(name + "/limit"), quoted(name), num(*j.lower), num(*j.upper));
        }
        if (settings.joint_damping && j.damping > 0.0 && has_coordinate(j.kind))
            forces += fmt::format("  - {{type: joint_drive, name: {}, joint: {}, damping: {}}}\n",
                                  quoted(name + "/damping"), quoted(name), num(j.damping));
        if (j.friction > 0.0 && !settings.ignore_joint_friction)
            refuse(fmt::format("joint '{}' has dry friction {} in its <dynamics>, which Soma's joints do not model; "
                               "import it with ignore_joint_friction: true to leave it out",
                               j.name, num(j.friction)));
    }
    constraints += couplings;
    std::string text = fmt::format("# robot {} from {}\n", quoted(robot.name), quoted(settings.source));
    text += elements.empty() ? "elements: []\n" : "elements:\n" + elements;
    if (!constraints.empty()) text += "constraints:\n" + constraints;
    if (!forces.empty()) text += "forces:\n" + forces;
    return text;
}

}  // namespace soma::urdf
