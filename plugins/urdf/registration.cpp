// Registers the import `urdf`: a robot of a URDF file as rigid bodies, joints, joint limits and
// joint dampers.
#include "urdf_robot.hpp"
#include "urdf_scene.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

#include <cmath>
#include <stdexcept>

using namespace soma;

namespace {

ParameterSchema urdf_schema() {
    ParameterSchema s(
        "urdf",
        "A robot read from a URDF file (with urdfdom): each link a rigid_body with the link's mass, centre of mass and "
        "inertia (links joined by fixed joints merged into one body, their inertias combined), each revolute, "
        "continuous, prismatic and planar joint a revolute_joint, prismatic_joint or planar_joint, a floating joint "
        "nothing (a free body). The robot is built at `initial_coordinates` (the URDF's zero configuration by "
        "default), and each joint counts its coordinate as URDF does, from the zero configuration (the child link "
        "turned or moved from the parent about the joint axis; its `initial_coordinate`). Joint ranges become joint_limit stops (integrator ncp_newton), or joint_stop penalty stops with limit_stiffness, a <mimic> joint a joint_coupling "
        "NAME/joint/mimic (its multiplier; an offset is refused), <dynamics damping> a joint_drive "
        "with that damping, every collision geometry (box, sphere, cylinder, OBJ or STL mesh) of a body's links a part "
        "of its `shapes`, placed and turned as its <collision> origin says, and every visual geometry one of its "
        "`visuals` (drawn in the VTK output, nothing else). Names are "
        "NAME/link and NAME/joint (limits NAME/joint/limit, dampers NAME/joint/damping), so drives, springs, contacts "
        "and outputs of the scene can name them. Not read: materials and colours, effort and velocity limits, safety "
        "controllers, transmissions and <gazebo> tags; with a fixed base, the base's collision and visual geometry (it "
        "is the world: add a fixed rigid_body for contact with it); a planar joint's "
        "damping. Refused with the "
        "link or joint named: a link reached twice (a loop), an empty range, a moving link with no mass, "
        "dry joint friction (unless "
        "ignore_joint_friction) and a collision or visual mesh a rigid_body cannot hold (neither OBJ nor STL, or "
        "scaled unevenly; unless collision: false or visuals: false). "
        "`soma imports SCENE` prints the blocks written.");
    s.string("file", "the URDF file, relative to the scene file's folder").require();
    s.vec3("position", "where the root link's origin stands, world").unit("m").fallback(Vec3(0, 0, 0));
    s.real_list("orientation", "the root link's orientation, body to world, as a unit quaternion [w, x, y, z]")
        .exact_size(4)
        .fallback(std::vector<double>{1, 0, 0, 0});
    s.boolean("fixed_base", "the root link, and every link fixed to it, is part of the world (a robot bolted down: "
                            "no body is made for it, its joints hold their child links to the world); false: the "
                            "root link is a free body")
        .fallback(true);
    s.boolean("limits", "the ranges of revolute and prismatic joints as joint_limit stops (they need the integrator "
                        "ncp_newton), or as joint_stop penalty stops with `limit_stiffness`; the range must hold 0, "
                        "where the robot is built")
        .fallback(true);
    s.real("limit_stiffness", "write the ranges as joint_stop penalty stops, which every integrator takes, instead of "
                              "joint_limit rows (ncp_newton only): the stiffness of a revolute joint's stops (N m/rad)")
        .positive();
    s.real("slide_limit_stiffness", "with limit_stiffness: the stiffness of a prismatic joint's stops (N/m); needed "
                                    "when the robot has a prismatic range")
        .positive();
    s.real("limit_damping", "with limit_stiffness: a revolute stop's damping per unit of penetration (joint_stop's "
                            "`damping`, N m s/rad^2)")
        .fallback(0.0)
        .non_negative();
    s.real("slide_limit_damping", "with limit_stiffness: a prismatic stop's damping per unit of penetration (N s/m^2)")
        .fallback(0.0)
        .non_negative();
    s.boolean("joint_damping", "a joint's <dynamics damping> as a joint_drive with that damping (N m s/rad or N s/m)")
        .fallback(true);
    s.boolean("ignore_joint_friction", "leave out <dynamics friction> (dry joint friction, not modelled) instead of "
                                       "refusing the file")
        .fallback(false);
    s.boolean("collision", "each body's <collision> geometries as the parts of its `shapes` (for contact and "
                           "output), one part per geometry: the body's own link's first, then those of the links fixed "
                           "to it, each link's in file order; each at its <collision> origin and turned as it says; a "
                           "mesh must be OBJ or STL (convex, for ncp_contact) and evenly scaled; false: bodies without shapes")
        .fallback(true);
    s.boolean("visuals", "each body's <visual> geometries as its `visuals` (drawn in the output: no mass, no contact), "
                         "in the order of `collision`'s parts; a mesh must be OBJ or STL (COLLADA .dae is not read: "
                         "convert it, or set this false) and evenly scaled; false: bodies drawn as their collision "
                         "shapes")
        .fallback(true);
    s.string("package_root", "the folder that holds the ROS packages `package://NAME/...` mesh names point into "
                             "(`package://NAME/x` is package_root/NAME/x), relative to the scene file's folder")
        .fallback(std::string{});
    s.free_map("coordinates", "joints moved along a prescribed coordinate: joint name (as in the URDF): expression "
                              "of t (rad or m from the zero configuration; muparser), the `coordinate` of its joint "
                              "block (no limit or damper is written for it), e.g. `{shoulder: '0.5*sin(t)'}`; it must "
                              "start at the joint's initial coordinate");
    s.free_map("initial_coordinates",
               "the configuration the robot is built in: joint name (as in the URDF): its coordinate (rad or m from "
               "the zero configuration), e.g. `{shoulder: -0.5, slide: 0.02}`; joints not named start at 0, a mimic "
               "joint at its multiplier times its leader's. The bodies are placed there, and each joint still "
               "counts from the URDF's zero (its `initial_coordinate`), so ranges, `coordinates` and drives keep "
               "the file's numbers");
    return s;
}

std::string import_urdf(const Parameters& p) {
    const auto q = p.real_list("orientation");
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    // A quaternion typed by hand is unit to the digits written; 1e-6 catches a wrong entry.
    if (!(std::abs(norm - 1.0) <= 1e-6))
        p.fail("orientation", "must be a unit quaternion [w, x, y, z]: its norm is " + std::to_string(norm));
    urdf::ReadOptions read;
    read.position = p.vec3("position");
    read.orientation = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized();
    read.fixed_base = p.boolean("fixed_base");
    read.collision = p.boolean("collision");  // geometry left out is not even looked for (its files need not exist)
    read.visuals = p.boolean("visuals");
    if (!p.string("package_root").empty()) read.package_root = p.path("package_root");
    for (const auto& [joint, text] : p.free_map("initial_coordinates")) {
        // A number in the scene's own syntax (YAML reals), nothing after it.
        std::size_t used = 0;
        double value = 0.0;
        try {
            value = std::stod(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || text.find_first_not_of(" \t", used) != std::string::npos || !std::isfinite(value))
            p.fail("initial_coordinates", "joint '" + joint + "': '" + text + "' is not a number (rad or m)");
        read.initial_coordinates[joint] = value;
    }
    urdf::Robot robot;
    try {
        robot = urdf::read_urdf(p.path("file"), read);
    } catch (const std::invalid_argument& e) {
        const bool initial = std::string(e.what()).rfind("initial_coordinates:", 0) == 0;
        p.fail(initial ? "initial_coordinates" : "file", e.what());
    }
    urdf::SceneSettings settings;
    settings.prefix = p.string("name");
    settings.source = p.string("file");
    settings.limits = p.boolean("limits");
    if (p.has("limit_stiffness")) settings.limit_stiffness = p.real("limit_stiffness");
    if (p.has("limit_stiffness") && !settings.limits)
        p.fail("limit_stiffness", "gives the ranges' penalty stops, but `limits: false` writes no range");
    for (const char* key : {"slide_limit_stiffness", "limit_damping", "slide_limit_damping"})
        if (p.has(key) && !p.has("limit_stiffness"))
            p.fail(key, "applies to penalty stops: give limit_stiffness too");
    if (p.has("slide_limit_stiffness")) settings.slide_limit_stiffness = p.real("slide_limit_stiffness");
    settings.slide_limit_damping = p.real("slide_limit_damping");
    settings.limit_damping = p.real("limit_damping");
    settings.joint_damping = p.boolean("joint_damping");
    settings.collision = p.boolean("collision");
    settings.visuals = p.boolean("visuals");
    settings.ignore_joint_friction = p.boolean("ignore_joint_friction");
    settings.coordinates = p.free_map("coordinates");
    try {
        return urdf::robot_scene_text(robot, settings);
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        p.fail(what.rfind("coordinates:", 0) == 0           ? "coordinates"
               : what.rfind("initial_coordinates:", 0) == 0 ? "initial_coordinates"
                                                            : "file",
               p.string("file") + ": " + what);
    }
}

}  // namespace

SOMA_PLUGIN("urdf") {
    registry.add_importer(urdf_schema(), import_urdf);
}
