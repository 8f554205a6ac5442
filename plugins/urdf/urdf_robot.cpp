// Reading a URDF robot into bodies and joints (urdf_robot.hpp).
#include "urdf_robot.hpp"

#include "soma/input_file.hpp"

#include <console_bridge/console.h>
#include <fmt/format.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace soma::urdf {

namespace {

/// Collects urdfdom's error messages (it reports through console_bridge) so that a failed parse
/// says why, and nothing is printed meanwhile. urdfdom also reports errors it then passes over
/// (an <inertial> with a mass that is not a number is dropped and the link left massless), so an
/// error message fails the read even when a model came back.
class MessageCollector final : public console_bridge::OutputHandler {
public:
    MessageCollector() { console_bridge::useOutputHandler(this); }
    ~MessageCollector() override { console_bridge::restorePreviousOutputHandler(); }
    MessageCollector(const MessageCollector&) = delete;
    MessageCollector& operator=(const MessageCollector&) = delete;
    void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
        if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) messages_ += (messages_.empty() ? "" : "; ") + text;
    }
    const std::string& messages() const { return messages_; }

private:
    std::string messages_;
};

Eigen::Isometry3d isometry_of(const ::urdf::Pose& pose) {
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    Eigen::Quaterniond q(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z);
    t.linear() = q.normalized().toRotationMatrix();
    t.translation() = Vec3(pose.position.x, pose.position.y, pose.position.z);
    return t;
}

Vec3 vec_of(const ::urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& message) {
    throw std::invalid_argument(file.string() + ": " + message);
}

/// A mesh's file name as written (`package://NAME/...`, `file://...` or a path relative to the
/// URDF's folder), resolved.
std::filesystem::path resolve_mesh(const std::string& name, const std::filesystem::path& file,
                                   const ReadOptions& options, const std::string& link, const std::string& tag) {
    const std::string package = "package://", local = "file://";
    if (name.rfind(package, 0) == 0) {
        if (options.package_root.empty())
            fail(file, fmt::format("link '{}': the {} mesh '{}' is named by its ROS package: give the import a "
                                   "package_root, the folder that holds the package '{}' (or import with {}: false)",
                                   link, tag, name,
                                   name.substr(package.size(), name.find('/', package.size()) - package.size()),
                                   tag == "collision" ? "collision" : "visuals"));
        return options.package_root / name.substr(package.size());
    }
    std::filesystem::path path = name.rfind(local, 0) == 0 ? name.substr(local.size()) : name;
    return path.is_relative() ? file.parent_path() / path : path;
}

/// The geometry of a <collision> or <visual> (\p tag) at \p origin in its link's frame.
RobotShape shape_of(const ::urdf::Pose& origin, const ::urdf::GeometrySharedPtr& geometry, const char* tag,
                    const Eigen::Isometry3d& link_in_body, const std::filesystem::path& file,
                    const ReadOptions& options, const std::string& link) {
    RobotShape shape;
    shape.link = link;
    shape.placement = link_in_body * isometry_of(origin);
    if (!geometry) fail(file, fmt::format("link '{}': a <{}> without a geometry", link, tag));
    switch (geometry->type) {
        case ::urdf::Geometry::BOX:
            shape.kind = RobotShape::Kind::box;
            shape.size = vec_of(static_cast<const ::urdf::Box&>(*geometry).dim);
            break;
        case ::urdf::Geometry::SPHERE:
            shape.kind = RobotShape::Kind::sphere;
            shape.radius = static_cast<const ::urdf::Sphere&>(*geometry).radius;
            break;
        case ::urdf::Geometry::CYLINDER: {
            const auto& c = static_cast<const ::urdf::Cylinder&>(*geometry);
            shape.kind = RobotShape::Kind::cylinder;
            shape.radius = c.radius;
            shape.length = c.length;
            break;
        }
        case ::urdf::Geometry::MESH: {
            const auto& m = static_cast<const ::urdf::Mesh&>(*geometry);
            shape.kind = RobotShape::Kind::mesh;
            shape.mesh = resolve_mesh(m.filename, file, options, link, tag);
            shape.scale = vec_of(m.scale);
            break;
        }
    }
    return shape;
}

/// The inertia tensor of <inertia> (its entries, ixy = -integral of x y dm, as Soma's).
Mat3 inertia_of(const ::urdf::Inertial& in) {
    Mat3 i;
    i << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    return i;
}

/// Adds a link's mass and inertia to its body (parallel-axis theorem about the joint centre).
struct MassSum {
    double mass = 0.0;
    Vec3 moment = Vec3::Zero();  ///< sum of m c
    std::vector<std::tuple<double, Vec3, Mat3>> parts;  ///< (m, c, I about c), body frame
};

}  // namespace

Robot read_urdf(const std::filesystem::path& file, const ReadOptions& options) {
    std::ostringstream text;
    text << open_input_file(file, "URDF file").rdbuf();
    return read_urdf_text(text.str(), file, options);
}

Robot read_urdf_text(const std::string& text, const std::filesystem::path& file, const ReadOptions& options) {
    ::urdf::ModelInterfaceSharedPtr model;
    {
        MessageCollector messages;
        model = ::urdf::parseURDF(text);
        if (!model || !messages.messages().empty())
            fail(file, "not a valid URDF" + (messages.messages().empty() ? std::string() : ": " + messages.messages()));
    }
    const ::urdf::LinkConstSharedPtr root = model->getRoot();
    if (!root) fail(file, "the URDF has no root link");

    Robot robot;
    robot.name = model->getName();
    std::vector<MassSum> sums;
    std::map<std::string, int> body_of;  // link -> body index; -1: the world

    // A new body whose first link is `link`, at `pose`; its index.
    const auto add_body = [&](const std::string& link, const Eigen::Isometry3d& pose) {
        RobotBody b;
        b.name = link;
        b.links.push_back(link);
        b.pose = pose;
        robot.bodies.push_back(std::move(b));
        sums.emplace_back();
        return static_cast<int>(robot.bodies.size()) - 1;
    };

    Eigen::Isometry3d base = Eigen::Isometry3d::Identity();
    base.linear() = options.orientation.normalized().toRotationMatrix();
    base.translation() = options.position;

    // Depth first from the root: a body's parent comes before it.
    std::function<void(const ::urdf::Link&, const Eigen::Isometry3d&, int, const Eigen::Isometry3d&)> visit =
        [&](const ::urdf::Link& link, const Eigen::Isometry3d& world, int body, const Eigen::Isometry3d& in_body) {
            // urdfdom accepts a link that is the child of two joints (a loop, or two parents) when
            // the root is still unique: walking it twice would recurse forever or count it twice.
            if (!body_of.emplace(link.name, body).second)
                fail(file, fmt::format("link '{}' is reached twice from the root (the child of two joints): a "
                                       "kinematic loop, which a URDF tree cannot hold",
                                       link.name));
            if (body >= 0) {
                RobotBody& b = robot.bodies[static_cast<std::size_t>(body)];
                if (link.name != b.name) b.links.push_back(link.name);  // fixed to the body's first link
                if (link.inertial && link.inertial->mass > 0.0) {
                    const Eigen::Isometry3d frame = in_body * isometry_of(link.inertial->origin);
                    const Mat3 r = frame.linear();
                    const double m = link.inertial->mass;
                    sums[static_cast<std::size_t>(body)].mass += m;
                    sums[static_cast<std::size_t>(body)].moment += m * frame.translation();
                    sums[static_cast<std::size_t>(body)].parts.emplace_back(m, frame.translation(),
                                                                           r * inertia_of(*link.inertial) * r.transpose());
                }
                for (const auto& collision : link.collision_array)
                    if (collision && options.collision)
                        b.shapes.push_back(
                            shape_of(collision->origin, collision->geometry, "collision", in_body, file, options, link.name));
                for (const auto& visual : link.visual_array)
                    if (visual && options.visuals)
                        b.visuals.push_back(
                            shape_of(visual->origin, visual->geometry, "visual", in_body, file, options, link.name));
            }
            for (const auto& joint : link.child_joints) {
                const ::urdf::LinkConstSharedPtr child = model->getLink(joint->child_link_name);
                if (!child) fail(file, fmt::format("joint '{}': no link named '{}'", joint->name, joint->child_link_name));
                const Eigen::Isometry3d joint_frame = world * isometry_of(joint->parent_to_joint_origin_transform);
                if (joint->type == ::urdf::Joint::FIXED) {
                    visit(*child, joint_frame, body, in_body * isometry_of(joint->parent_to_joint_origin_transform));
                    continue;
                }
                RobotJoint j;
                j.name = joint->name;
                switch (joint->type) {
                    case ::urdf::Joint::REVOLUTE: j.kind = RobotJoint::Kind::revolute; break;
                    case ::urdf::Joint::CONTINUOUS: j.kind = RobotJoint::Kind::continuous; break;
                    case ::urdf::Joint::PRISMATIC: j.kind = RobotJoint::Kind::prismatic; break;
                    case ::urdf::Joint::PLANAR: j.kind = RobotJoint::Kind::planar; break;
                    case ::urdf::Joint::FLOATING: j.kind = RobotJoint::Kind::floating; break;
                    default: fail(file, fmt::format("joint '{}' has an unknown type", joint->name));
                }
                const Vec3 axis = vec_of(joint->axis);
                if (j.kind != RobotJoint::Kind::floating && !(axis.norm() > 0.0))
                    fail(file, fmt::format("joint '{}': its axis is zero", joint->name));
                j.parent = body;
                j.at = joint_frame.translation();
                if (axis.norm() > 0.0) j.axis = joint_frame.linear() * axis.normalized();
                if (joint->limits && (j.kind == RobotJoint::Kind::revolute || j.kind == RobotJoint::Kind::prismatic)) {
                    // An empty or reversed range (lower and upper default to 0 when a <limit> leaves
                    // them out) would hold the joint, or nothing: neither is what a moving joint means.
                    if (!(joint->limits->lower < joint->limits->upper))
                        fail(file, fmt::format("joint '{}': its range [{}, {}] is empty (lower must be below upper; "
                                               "a <limit> without them gives [0, 0]): write the range, or make the "
                                               "joint fixed or continuous",
                                               joint->name, joint->limits->lower, joint->limits->upper));
                    j.lower = joint->limits->lower;
                    j.upper = joint->limits->upper;
                }
                if (joint->dynamics) {
                    j.damping = joint->dynamics->damping;
                    j.friction = joint->dynamics->friction;
                }
                if (joint->mimic) {
                    // The coupling is follower = multiplier x leader, without an offset.
                    if (joint->mimic->offset != 0.0)
                        fail(file, fmt::format("joint '{}' mimics joint '{}' with offset {}: Soma's joint_coupling "
                                               "holds follower = multiplier x leader, without an offset",
                                               joint->name, joint->mimic->joint_name, joint->mimic->offset));
                    if (joint->mimic->multiplier == 0.0)
                        fail(file, fmt::format("joint '{}' mimics joint '{}' with multiplier 0: make it a fixed joint",
                                               joint->name, joint->mimic->joint_name));
                    j.mimic = RobotJoint::Mimic{joint->mimic->joint_name, joint->mimic->multiplier};
                }
                // Built at its initial coordinate: the child's frame is the joint frame moved along
                // the axis (prismatic) or turned about it (revolute, continuous).
                const auto given = [&](const std::string& name) {
                    const auto it = options.initial_coordinates.find(name);
                    return it == options.initial_coordinates.end() ? 0.0 : it->second;
                };
                j.initial = j.mimic ? j.mimic->multiplier * given(j.mimic->joint) : given(j.name);
                Eigen::Isometry3d motion = Eigen::Isometry3d::Identity();
                if (j.kind == RobotJoint::Kind::prismatic) motion.translation() = j.initial * axis.normalized();
                if (j.kind == RobotJoint::Kind::revolute || j.kind == RobotJoint::Kind::continuous)
                    motion.linear() = Eigen::AngleAxisd(j.initial, axis.normalized()).toRotationMatrix();
                const Eigen::Isometry3d child_frame = joint_frame * motion;
                j.child = add_body(child->name, child_frame);
                robot.joints.push_back(j);
                visit(*child, child_frame, j.child, Eigen::Isometry3d::Identity());
            }
        };

    visit(*root, base, options.fixed_base ? -1 : add_body(root->name, base), Eigen::Isometry3d::Identity());
    // A mimic joint and the joint it mimics each have one coordinate (revolute, continuous, prismatic).
    const auto single_coordinate = [](RobotJoint::Kind kind) {
        return kind == RobotJoint::Kind::revolute || kind == RobotJoint::Kind::continuous ||
               kind == RobotJoint::Kind::prismatic;
    };
    for (const RobotJoint& j : robot.joints) {
        if (!j.mimic) continue;
        if (!single_coordinate(j.kind))
            fail(file, fmt::format("joint '{}' mimics joint '{}' but is not revolute, continuous or prismatic: only a "
                                   "single coordinate can follow another",
                                   j.name, j.mimic->joint));
        const auto leader = std::find_if(robot.joints.begin(), robot.joints.end(),
                                         [&](const RobotJoint& other) { return other.name == j.mimic->joint; });
        if (leader == robot.joints.end())
            fail(file, fmt::format("joint '{}' mimics joint '{}', which is not a moving joint of the robot (a fixed "
                                   "joint merges its links and has no coordinate)",
                                   j.name, j.mimic->joint));
        if (!single_coordinate(leader->kind))
            fail(file, fmt::format("joint '{}' mimics joint '{}', which is not revolute, continuous or prismatic",
                                   j.name, j.mimic->joint));
        if (leader->mimic)
            fail(file, fmt::format("joint '{}' mimics joint '{}', which itself mimics '{}': mimic the first joint of "
                                   "the chain directly",
                                   j.name, j.mimic->joint, leader->mimic->joint));
    }
    // Each initial coordinate names a joint with one coordinate that does not follow another.
    for (const auto& [name, value] : options.initial_coordinates) {
        const std::string& joint = name;  // not a structured binding: clang 14 cannot capture one
        const auto j = std::find_if(robot.joints.begin(), robot.joints.end(),
                                    [&](const RobotJoint& candidate) { return candidate.name == joint; });
        if (j == robot.joints.end())
            throw std::invalid_argument(fmt::format("initial_coordinates: the robot has no moving joint named '{}' (fixed "
                                                    "joints merge their links and have no coordinate)",
                                                    joint));
        if (!single_coordinate(j->kind))
            throw std::invalid_argument(fmt::format("initial_coordinates: joint '{}' is not revolute, continuous or "
                                                    "prismatic, so it has no single coordinate to start at",
                                                    joint));
        if (j->mimic)
            throw std::invalid_argument(fmt::format("initial_coordinates: joint '{}' mimics joint '{}', so it starts at "
                                                    "{} times that joint's coordinate: give '{}' instead",
                                                    joint, j->mimic->joint, j->mimic->multiplier, j->mimic->joint));
        if (!std::isfinite(value))
            throw std::invalid_argument(fmt::format("initial_coordinates: joint '{}' is given {}", joint, value));
    }
    // A mimic's coupling reads a revolute leader's angle in (-pi, pi]: a non-integer multiple of
    // the angle so read is not the multiple of one built beyond it (joint_coupling.hpp).
    for (const RobotJoint& j : robot.joints) {
        if (!j.mimic) continue;
        const auto leader = std::find_if(robot.joints.begin(), robot.joints.end(),
                                         [&](const RobotJoint& other) { return other.name == j.mimic->joint; });
        const bool angle = leader->kind != RobotJoint::Kind::prismatic;
        const double m = j.mimic->multiplier;
        if (angle && std::abs(leader->initial) > std::numbers::pi && m != std::round(m))
            throw std::invalid_argument(fmt::format("initial_coordinates: joint '{}' starts at {} rad, beyond half a turn, "
                                                    "and joint '{}' mimics it with multiplier {}: the coupling reads the "
                                                    "angle in (-pi, pi], where {} times it is not {} times {}; start '{}' "
                                                    "within (-pi, pi]",
                                                    leader->name, leader->initial, j.name, m, m, m, leader->initial,
                                                    leader->name));
    }
    if (robot.bodies.empty())
        fail(file, fmt::format("the robot has no moving link: with fixed_base every link fixed to the root link '{}' "
                               "is part of the world",
                               root->name));

    // Each body's mass properties about its combined centre of mass.
    for (std::size_t k = 0; k < robot.bodies.size(); ++k) {
        RobotBody& b = robot.bodies[k];
        const MassSum& s = sums[k];
        std::string links = b.links.size() == 1 ? fmt::format("link '{}'", b.name) : fmt::format("link '{}' (with the links fixed to it:", b.name);
        if (b.links.size() > 1) {
            for (std::size_t i = 1; i < b.links.size(); ++i) links += fmt::format(" '{}'", b.links[i]);
            links += ")";
        }
        if (!(s.mass > 0.0))
            fail(file, fmt::format("{} moves but has no mass (no <inertial> with a mass > 0): give it an <inertial>, or "
                                   "fix it to a link that has one (a massless link between two joints makes the mass "
                                   "matrix singular)",
                                   links));
        b.mass = s.mass;
        b.center_of_mass = s.moment / s.mass;
        for (const auto& [m, c, i] : s.parts) {
            const Vec3 d = c - b.center_of_mass;
            b.inertia += i + m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
        }
        const Eigen::SelfAdjointEigenSolver<Mat3> principal(b.inertia);
        if (!(principal.eigenvalues().minCoeff() > 0.0))
            fail(file, fmt::format("{}: its inertia about its centre of mass is not positive definite (principal "
                                   "moments {:.6g}, {:.6g}, {:.6g} kg m^2): a rigid body needs three positive moments",
                                   links, principal.eigenvalues()[0], principal.eigenvalues()[1],
                                   principal.eigenvalues()[2]));
        // As rigid_body checks (I1 + I2 >= I3 for any mass distribution), said here with the link.
        const Vec3 moments = principal.eigenvalues();
        if (moments[0] + moments[1] < moments[2] * (1.0 - 1e-12))
            fail(file, fmt::format("{}: its principal moments of inertia {:.6g}, {:.6g}, {:.6g} kg m^2 violate "
                                   "I1 + I2 >= I3, so no mass distribution has them: correct the <inertia>",
                                   links, moments[0], moments[1], moments[2]));
    }
    return robot;
}

}  // namespace soma::urdf
