// Registers `ball_joint`, `clamp`, the frame joints (`revolute_joint`, ...), `joint_limit`, `joint_stop`, `joint_coupling`, `joint_drive` and
// `frame_spring`.
#include "ball_joint.hpp"
#include "clamp.hpp"
#include "frame_joint.hpp"
#include "frame_spring.hpp"
#include "joint_coupling.hpp"
#include "joint_drive.hpp"
#include "joint_stop.hpp"
#include "joint_limit.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"
#include "soma/time_function.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <numbers>
#include <stdexcept>

using namespace soma;
using namespace soma::joints;

namespace {

ParameterSchema end_schema(const std::string& name, bool world_allowed) {
    ParameterSchema s(name, "one end of the joint");
    s.string("element", std::string("scene name of the element") + (world_allowed ? " (absent: the world point `world`)" : ""));
    s.integer("node", "point index of the element (negative counts from the end; rigid_body: 0 origin, 1 centre of "
                      "mass, then its markers); default 0");
    s.vec3("at", "instead of `node`: the element's point nearest this position in the initial configuration").unit("m");
    if (world_allowed) s.vec3("world", "a fixed point of the world (instead of `element`)").unit("m");
    return s;
}

JointEnd read_end(const Parameters& p, bool world_allowed) {
    JointEnd end;
    if (p.has("element")) end.element = p.string("element");
    if (p.has("node")) end.node = p.integer("node");
    if (p.has("at")) end.at = p.vec3("at");
    if (p.has("node") && p.has("at")) p.fail("at", "give `node` or `at`, not both");
    if (world_allowed && p.has("world")) {
        if (p.has("element")) p.fail("world", "give `element` or `world`, not both");
        end.world = p.vec3("world");
    } else if (end.element.empty()) {
        p.fail("element", world_allowed ? "needs `element` (with `node` or `at`) or `world`" : "needs `element`");
    }
    return end;
}

ParameterSchema clamp_end_schema(const std::string& name, bool world_allowed) {
    ParameterSchema s(name, "one end of the clamp: a frame of an element" + std::string(world_allowed ? ", or the world" : ""));
    s.string("element", std::string("scene name of the element") + (world_allowed ? " (absent: the world frame at `world`)" : ""));
    s.string("frame", "the element's frame by name (default: its first): discrete_rod `start` (material frame of the first "
                      "edge at node 0) or `end` (of the last edge at the last node); rigid_body `body` (body frame at "
                      "its origin), `center_of_mass`, or `marker_k` (body axes at marker k); gvs `base`, `<link>` "
                      "(the link's frame after its joint) or `<link>.end` (its end frame)");
    if (world_allowed)
        s.vec3("world", "instead of `element`: a fixed frame of the world with its origin here and the world's axes").unit("m");
    return s;
}

ClampEnd read_clamp_end(const Parameters& p, bool world_allowed) {
    ClampEnd end;
    if (p.has("element")) end.element = p.string("element");
    if (p.has("frame")) end.frame = p.string("frame");
    if (world_allowed && p.has("world")) {
        if (p.has("element")) p.fail("world", "give `element` or `world`, not both");
        if (p.has("frame")) p.fail("frame", "a world end has the world's axes: `frame` names an element's frame");
        end.world = p.vec3("world");
    } else if (end.element.empty()) {
        p.fail("element", world_allowed ? "needs `element` (with `frame`) or `world`" : "needs `element`");
    }
    return end;
}

ParameterSchema frame_end_schema(const std::string& name, const std::string& doc) {
    ParameterSchema s(name, doc);
    s.string("element", "scene name of the element").require();
    s.string("frame", "the element's frame by name (default: its first): rigid_body `body` (its body frame), "
                      "`center_of_mass` or `marker_k`; discrete_rod `start` or `end`; gvs `base`, `<link>` or "
                      "`<link>.end`");
    return s;
}

FrameEnd read_frame_end(const Parameters& p) {
    FrameEnd end;
    end.element = p.string("element");
    if (p.has("frame")) end.frame = p.string("frame");
    return end;
}

/// Parses the expression at \p key of \p p (errors, now or when evaluated, point at the key).
TimeFunction time_function_at(const Parameters& p, const std::string& key) {
    return parse_time_function(p.string(key), p.location(key));
}

/// `row_compliance`: one compliance per constraint row (ArtiSynth's per-row compliance, section
/// 0.11), \p rows of them in the order \p order, instead of the per-kind keys.
void declare_row_compliance(ParameterSchema& s, int rows, const std::string& order, const std::string& replaced) {
    s.real_list("row_compliance", "one inverse stiffness per constraint row, " + std::to_string(rows) +
                                      " values in the row order " + order +
                                      " (m/N on a translation row, rad/(N m) on a rotation row; 0: that row hard); "
                                      "replaces " + replaced + ", e.g. a joint stiff along one axis and soft along "
                                      "another")
        .exact_size(rows)
        .non_negative()
        .max_value(1e6);
}

/// The written `row_compliance`, or empty; refused beside any of \p per_kind_keys.
std::vector<double> read_row_compliance(const Parameters& p, std::initializer_list<const char*> per_kind_keys) {
    if (!p.has("row_compliance")) return {};
    for (const char* key : per_kind_keys)
        if (p.has(key))
            p.fail("row_compliance", std::string("give row_compliance or ") + key +
                                         ", not both (row_compliance sets every row's compliance)");
    return p.real_list("row_compliance");
}

struct FrameJointDoc {
    JointType type;
    const char* rows;       ///< what the joint holds and leaves free
    int row_count;          ///< its rows, the prescribed coordinate's not counted
    const char* row_order;  ///< d = o_1 - o_2 and the joint frames' axes x_i, y_i, z_i (frame_joint.hpp)
};

void add_frame_joint(Registry& registry, const FrameJointDoc& doc) {
    const JointType type = doc.type;
    const std::string name = std::string(joint_type_name(type)) + "_joint";
    const bool has_axis = type != JointType::spherical && type != JointType::fixed;
    const bool has_rotation_rows = type != JointType::spherical;
    std::string text = std::string("A ") + joint_type_name(type) + " joint between a frame of one element (`first`: a "
                       "rigid body, a rod's end, a gvs link) and a frame of another element or the world (`second` "
                       "absent). " + doc.rows +
                       " The joint's point `at`" + (has_axis ? " and `axis` are" : " is") +
                       " given in the world in the configuration as built, where the joint holds by construction; the "
                       "joint frames ride on the two element frames from there. Constraint rows solved with Lagrange "
                       "multipliers (forces in N on translation rows, torques in N m on rotation rows); with "
                       "compliances the rows are springs (ArtiSynth technical notes, section 0.11). Integrators: those "
                       "that treat equality constraints (all built-in ones).";
    ParameterSchema s(name, text);
    s.map("first", "the first end (the moving side: its coordinate is measured from the second)",
          frame_end_schema("first", "a frame of an element"))
        .require();
    s.map("second", "the second end; absent: the world", frame_end_schema("second", "a frame of an element"));
    s.vec3("at", "the joint's point, world, as built").unit("m").require();
    if (has_axis)
        s.vec3("axis", type == JointType::planar ? "the normal of the plane of motion, world, as built (need not be unit)"
                       : type == JointType::universal ? "the first element's axis of rotation, world, as built"
                                                      : "the joint's axis, world, as built (need not be unit)")
            .require();
    if (type == JointType::universal)
        s.vec3("second_axis", "the second element's axis of rotation, world, as built; perpendicular to `axis`").require();
    s.real("compliance", "inverse stiffness of the translation rows; 0: hard").unit("m/N").fallback(0.0).non_negative();
    if (has_rotation_rows)
        s.real("rotational_compliance", "inverse stiffness of the rotation rows (small angles); 0: hard")
            .unit("rad/(N m)")
            .fallback(0.0)
            .non_negative();
    declare_row_compliance(s, doc.row_count, doc.row_order,
                           has_rotation_rows ? "compliance and rotational_compliance" : "compliance");
    if (has_single_coordinate(type))
        s.real("initial_coordinate",
               type == JointType::revolute
                   ? "the joint's angle in the configuration as built: the joint counts from it, so a mechanism built "
                     "in a pose keeps the zero of its description (its `coordinate`, limits, stops, drives and "
                     "couplings read the angle so counted)"
                   : "the joint's slide in the configuration as built: the joint counts from it (its `coordinate`, "
                     "limits, stops, drives and couplings read the slide so counted)")
            .unit(type == JointType::revolute ? "rad" : "m")
            .fallback(0.0);
    if (has_single_coordinate(type))
        s.string("coordinate",
                 type == JointType::revolute
                     ? "prescribes the joint angle (rad, the first frame turned from the second about `axis`, "
                       "`initial_coordinate` as built) as an expression of t (muparser: sin, cos, min, max, ...; _pi): one more row whose "
                       "multiplier is the actuation torque (N m). Must start at `initial_coordinate` and at the joint's rate; the "
                       "difference is taken modulo a turn, so a motor may turn without end. With newmark, whose "
                       "initial acceleration does not see the target's, start it with zero acceleration too"
                     : "prescribes the slide (m, the first frame's point moved from the second's along `axis`, "
                       "`initial_coordinate` as built) as an expression of t (muparser): one more row whose multiplier is the actuation force "
                       "(N). Must start at `initial_coordinate` and at the joint's rate (with newmark, at zero acceleration too)");
    registry.add_constraint(std::move(s), [type, has_axis, has_rotation_rows](const Parameters& p) {
        FrameJointSettings settings;
        settings.type = type;
        settings.first = read_frame_end(p.block("first"));
        if (p.has("second")) settings.second = read_frame_end(p.block("second"));
        settings.at = p.vec3("at");
        if (has_axis) settings.axis = p.vec3("axis");
        if (type == JointType::universal) settings.second_axis = p.vec3("second_axis");
        settings.compliance = p.real("compliance");
        if (has_rotation_rows) settings.rotational_compliance = p.real("rotational_compliance");
        settings.row_compliance = has_rotation_rows ? read_row_compliance(p, {"compliance", "rotational_compliance"})
                                                    : read_row_compliance(p, {"compliance"});
        if (has_single_coordinate(type)) settings.initial_coordinate = p.real("initial_coordinate");
        if (has_single_coordinate(type) && p.has("coordinate")) {
            settings.coordinate = time_function_at(p, "coordinate");
            settings.coordinate_text = p.string("coordinate");
        }
        return std::make_unique<FrameJoint>(std::move(settings), p);
    });
}

}  // namespace

SOMA_PLUGIN("joints") {
    ParameterSchema s("ball_joint",
                      "A ball (spherical) joint: holds a point of one element at a point of another element, or at a "
                      "fixed point of the world, with three constraint rows x_1 - x_2 = 0 solved with Lagrange "
                      "multipliers (the joint force, N). The points may be rod or shell nodes or rigid-body points, so "
                      "it joins two bodies, hangs a body from a rod's node, or pins a point in space. The two points "
                      "must coincide initially. With `compliance` the joint is a zero-length spring of stiffness "
                      "1/compliance between them (ArtiSynth technical notes, section 0.11). Integrators: "
                      "those that treat equality constraints (all built-in ones).");
    s.map("first", "the first end", end_schema("first", false)).require();
    s.map("second", "the second end", end_schema("second", true)).require();
    s.real("compliance", "inverse stiffness; 0: a hard joint").unit("m/N").fallback(0.0).non_negative();
    declare_row_compliance(s, 3, "[x, y, z] (the world components of x_1 - x_2)", "compliance");
    s.string("eliminate", "when the joint is hard and an end is a node (a rod, shell or particle node: its position is "
                          "its DOFs), that node's DOFs and the three rows can be taken out of each linear solve (the "
                          "null-space reduction of an attachment; the first end if both are nodes, the second where "
                          "another joint eliminates the first): the same solution "
                          "from a smaller matrix without the saddle point of multiplier rows. auto: where that lets "
                          "a symmetric factorization solve the scene (a linear_solver without the saddle_point "
                          "capability, such as eigen_ldlt or cholmod, or the default for a scene whose Jacobian is "
                          "symmetric, which then becomes eigen_ldlt); with LU the multiplier rows are as cheap. "
                          "true: always; false: never")
        .fallback(std::string("auto"))
        .one_of_strings({"auto", "true", "false"});
    registry.add_constraint(std::move(s), [](const Parameters& p) {
        BallJointSettings settings;
        const std::string eliminate = p.string("eliminate");
        settings.eliminate = eliminate == "true"    ? BallJointSettings::Elimination::always
                             : eliminate == "false" ? BallJointSettings::Elimination::never
                                                    : BallJointSettings::Elimination::automatic;
        settings.first = read_end(p.block("first"), false);
        settings.second = read_end(p.block("second"), true);
        settings.compliance = p.real("compliance");
        settings.row_compliance = read_row_compliance(p, {"compliance"});
        return std::make_unique<BallJoint>(std::move(settings), p);
    });

    ParameterSchema c("clamp",
                      "A clamp (weld): holds a frame of one element at a frame of another element, or of the world, in "
                      "position and rotation, so forces, bending moments and twist pass through it: a rod's end "
                      "clamped into a rigid body, a body welded to another, a rod end clamped in space. Six constraint "
                      "rows solved with Lagrange multipliers: x_1 - x_2 = 0 (the force, N) and 1/2 vee(Q - Q^T) = 0 "
                      "with Q = R_1 R_o^T R_2^T (sin(angle) times the axis of the rotation still separating the frames; "
                      "the torque, N m). The frames' origins must coincide initially; R_o, the relative rotation "
                      "R_2^T R_1 held, is by default the initial one, so a clamp holds the scene as built. With "
                      "compliances the clamp is a zero-length spring of stiffness 1/compliance and, for small angles, "
                      "a torsion spring of stiffness 1/rotational_compliance (ArtiSynth technical notes, section 0.11; "
                      "at an angle phi the torque is sin(2 phi)/(2 rotational_compliance)). Integrators: "
                      "those that treat equality constraints (all built-in ones).");
    c.map("first", "the first end", clamp_end_schema("first", false)).require();
    c.map("second", "the second end", clamp_end_schema("second", true)).require();
    c.real("compliance", "translational inverse stiffness; 0: hard").unit("m/N").fallback(0.0).non_negative();
    c.real("rotational_compliance", "rotational inverse stiffness (small angles); 0: hard")
        .unit("rad/(N m)")
        .fallback(0.0)
        .non_negative();
    declare_row_compliance(c, 6,
                           "[x, y, z, rx, ry, rz] (the world components of x_1 - x_2, then those of the rotation "
                           "vee(Q - Q^T)/2)",
                           "compliance and rotational_compliance");
    ParameterSchema offset("rotation_offset", "a rotation about an axis (right-hand rule)");
    offset.vec3("axis", "rotation axis (need not be unit length; must not be zero)").require();
    offset.real("angle_deg", "rotation angle").unit("deg").require();
    c.map("rotation_offset",
          "R_o: the rotation of the first frame relative to the second that the clamp holds (R_2^T R_1 = R_o, in the "
          "second frame's axes). Default: the initial relative rotation. A hard clamp must hold it initially (with "
          "row_compliance, each rotation row of compliance 0 must); a compliant one starts pre-loaded",
          std::move(offset));
    registry.add_constraint(std::move(c), [](const Parameters& p) {
        ClampSettings settings;
        settings.first = read_clamp_end(p.block("first"), false);
        settings.second = read_clamp_end(p.block("second"), true);
        settings.compliance = p.real("compliance");
        settings.rotational_compliance = p.real("rotational_compliance");
        settings.row_compliance = read_row_compliance(p, {"compliance", "rotational_compliance"});
        if (p.has("rotation_offset")) {
            const Parameters o = p.block("rotation_offset");
            const Vec3 axis = o.vec3("axis");
            if (!(axis.norm() > 0.0) || !std::isfinite(axis.norm())) o.fail("axis", "the rotation axis must be a finite, non-zero vector");
            settings.rotation_offset =
                Eigen::AngleAxisd(o.real("angle_deg") * std::numbers::pi / 180.0, axis.normalized()).toRotationMatrix();
        }
        return std::make_unique<Clamp>(std::move(settings), p);
    });

    const FrameJointDoc joints[] = {
        {JointType::spherical, "Holds the two joint points together (3 rows); the frames turn freely.", 3,
         "[d_x, d_y, d_z] (d = o_1 - o_2, world)"},
        {JointType::revolute,
         "A hinge: holds the points together and the axes aligned (5 rows); the first frame turns about the axis. "
         "Its coordinate is that angle (`initial_coordinate` as built, 0 by default).",
         5, "[d_x, d_y, d_z, z_1.x_2, z_1.y_2] (d = o_1 - o_2, world; x_i, y_i, z_i the joint frames' axes, z along "
            "`axis`)"},
        {JointType::universal,
         "A Cardan joint: holds the points together and the first element's axis (`axis`) perpendicular to the "
         "second's (`second_axis`) (4 rows): two rotations are free.",
         4, "[d_x, d_y, d_z, z_1.x_2] (d = o_1 - o_2, world; z along `axis`, x along `second_axis`)"},
        {JointType::prismatic,
         "A slider: holds the rotation and the point on the axis (5 rows); the first frame slides along the axis. Its "
         "coordinate is that slide (`initial_coordinate` as built, 0 by default).",
         5, "[x_2.d, y_2.d, z_1.x_2, z_1.y_2, x_1.y_2] (d = o_1 - o_2; x_i, y_i, z_i the joint frames' axes, z along "
            "`axis`)"},
        {JointType::cylindrical,
         "Holds the axes aligned and the point on the axis (4 rows): the first frame slides along the axis and turns "
         "about it.",
         4, "[x_2.d, y_2.d, z_1.x_2, z_1.y_2] (d = o_1 - o_2; z along `axis`)"},
        {JointType::planar,
         "Holds the axes aligned (the plane's normal) and the point in the plane (3 rows): the first frame moves in the "
         "plane and turns about its normal.",
         3, "[z_2.d, z_1.x_2, z_1.y_2] (d = o_1 - o_2; z along `axis`, the plane's normal)"},
        {JointType::fixed,
         "A weld at an offset point: holds the points together and the rotation (6 rows). Unlike `clamp`, the element "
         "frames need not meet: the joint is at `at`.",
         6, "[d_x, d_y, d_z, z_1.x_2, z_1.y_2, x_1.y_2] (d = o_1 - o_2, world; x_i, y_i, z_i the joint frames' axes, z "
            "along `axis`)"},
    };
    for (const FrameJointDoc& doc : joints) add_frame_joint(registry, doc);

    ParameterSchema drive("joint_drive",
                          "A PD actuator on the coordinate of a revolute_joint or prismatic_joint: the torque (or force) "
                          "-stiffness (theta - target(t)) - damping (theta' - target_velocity(t)) along the joint's "
                          "coordinate, on the first frame and its reaction on the second (the angle's error taken modulo a "
                          "turn). With stiffness and damping it tracks the target as a servo; with stiffness alone it is "
                          "a torsion spring about a rest angle. CSV statistics: coordinate, error, effort. Its Jacobian "
                          "leaves out how a frame's velocity turns with its DOFs at fixed v (documented in "
                          "docs/architecture.md), which costs Newton iterations, not accuracy.");
    drive.string("joint", "scene name of the revolute_joint or prismatic_joint").require();
    drive.real("stiffness", "proportional gain k (N m/rad for an angle, N/m for a slide)").fallback(0.0).non_negative();
    drive.real("damping", "derivative gain d (N m s/rad or N s/m)").fallback(0.0).non_negative();
    drive.string("target", "the target coordinate as an expression of t (rad or m; muparser)").fallback(std::string("0"));
    drive.string("target_velocity", "the target's rate as an expression of t (rad/s or m/s); absent: 0, so the damping "
                                    "resists the joint's rate (a setpoint servo)");
    registry.add_force(std::move(drive), [](const Parameters& p) {
        JointDriveSettings settings;
        settings.joint = p.string("joint");
        settings.stiffness = p.real("stiffness");
        settings.damping = p.real("damping");
        settings.target = time_function_at(p, "target");
        if (p.has("target_velocity")) settings.target_velocity = time_function_at(p, "target_velocity");
        return std::make_unique<JointDrive>(std::move(settings), scene_errors(p));
    });

    ParameterSchema limit("joint_limit",
                          "The range of a revolute_joint's angle or a prismatic_joint's slide: stops the joint cannot "
                          "pass, as unilateral (complementarity) rows that push back only as hard as they are pushed, "
                          "for the integrator ncp_newton. Each stop near the coordinate at a step's start is a contact "
                          "between a point of the first frame and one of the second: for a slide the joint points, "
                          "for an angle a point 1 m from the axis on the first frame against where it stands at the "
                          "stop (its normal force, N, is the stop's torque, N m). Statistics as a contact constraint's "
                          "(contacts, active_contacts, normal_force, friction_force). The coordinate as built (the "
                          "joint's `initial_coordinate`, 0 by default) must lie within the range.");
    limit.string("joint", "scene name of the revolute_joint or prismatic_joint (listed anywhere: limits bind after "
                          "the joints)").require();
    limit.real("lower", "lowest coordinate (rad, the joint's angle followed across turns, or m; as the joint counts "
                        "it, from its zero: `initial_coordinate` as built)");
    limit.real("upper", "highest coordinate (rad or m). A revolute range is at most a turn wide; one stop alone "
                        "blocks both ways, as a pin does (with lower only, the joint turns up to lower + 2 pi)");
    limit.real("margin", "a stop within this distance of the coordinate (now or predicted over twice the step) becomes "
                         "a row (rad or m)")
        .fallback(0.01)
        .positive();
    registry.add_constraint(std::move(limit), [](const Parameters& p) {
        JointLimitSettings settings;
        settings.joint = p.string("joint");
        if (p.has("lower")) settings.lower = p.real("lower");
        if (p.has("upper")) settings.upper = p.real("upper");
        settings.margin = p.real("margin");
        return std::make_unique<JointLimit>(std::move(settings), scene_errors(p));
    });

    ParameterSchema stop("joint_stop",
                         "The range of a revolute_joint's angle or a prismatic_joint's slide held by penalty stops, for "
                         "every integrator (joint_limit holds it exactly, for ncp_newton): past a stop the joint meets "
                         "a spring-damper, torque (or force) -(stiffness e + damping |e| rate) along the coordinate, e the "
                         "penetration past the stop (Hunt and Crossley's damping: it grows from 0 as the stop "
                         "engages, so the force is continuous; a stop pushes and never pulls); within the range nothing. "
                         "Energy stiffness e^2/2. The stops overshoot by about the load over the stiffness. The "
                         "coordinate as built (the joint's `initial_coordinate`) must lie within the range; a revolute range is narrower than "
                         "a turn, and the angle is read within the turn centred on it. CSV statistics: coordinate, "
                         "penetration, effort.");
    stop.string("joint", "scene name of the revolute_joint or prismatic_joint").require();
    stop.real("lower", "lowest coordinate (rad or m, as the joint counts it)").require();
    stop.real("upper", "highest coordinate (rad or m)").require();
    stop.real("stiffness", "the stops' stiffness (N m/rad for an angle, N/m for a slide)").require().positive();
    stop.real("damping", "their damping per unit of penetration (N m s/rad^2 or N s/m^2)").fallback(0.0).non_negative();
    registry.add_force(std::move(stop), [](const Parameters& p) {
        JointStopSettings settings;
        settings.joint = p.string("joint");
        settings.lower = p.real("lower");
        settings.upper = p.real("upper");
        settings.stiffness = p.real("stiffness");
        settings.damping = p.real("damping");
        return std::make_unique<JointStop>(std::move(settings), scene_errors(p));
    });

    ParameterSchema coupling("joint_coupling",
                             "Couples the coordinates of two revolute_joint or prismatic_joint constraints, listed before "
                             "it or written by an import: follower = multiplier x leader (a URDF mimic joint, a gear, two fingers moved as one), "
                             "as one constraint row whose multiplier is the follower's effort (N m or N); the leader "
                             "carries -multiplier times it, so the coupling does no work. It must hold as built (the joints' `initial_coordinate`s). "
                             "An angle is measured in (-pi, pi]: with an integer multiplier (and a revolute follower) the "
                             "coupling holds across the wrap; with another, while the leader's angle stays within (-pi, pi). The follower must "
                             "not prescribe its coordinate; the leader may (it then drives both). List it after both "
                             "joints; an import's joints bind before the scene's own constraints, so the scene may "
                             "couple an imported robot's joints (its own couplings come from its URDF <mimic> tags).");
    coupling.string("leader", "scene name of the joint whose coordinate is followed").require();
    coupling.string("follower", "scene name of the joint that follows it").require();
    coupling.real("multiplier", "the follower's coordinate per unit of the leader's (rad/rad, m/m, or mixed); not 0")
        .fallback(1.0);
    coupling.real("compliance", "the row's compliance (the follower's unit per N m or N): 0 holds it exactly, > 0 "
                                "makes it a spring of stiffness 1/compliance")
        .fallback(0.0)
        .non_negative();
    registry.add_constraint(std::move(coupling), [](const Parameters& p) {
        JointCouplingSettings settings;
        settings.leader = p.string("leader");
        settings.follower = p.string("follower");
        settings.multiplier = p.real("multiplier");
        settings.compliance = p.real("compliance");
        return std::make_unique<JointCoupling>(std::move(settings), scene_errors(p));
    });

    ParameterSchema spring("frame_spring",
                           "A six-DOF spring-damper between a frame of one element (a rigid body, a rod's end, a gvs "
                           "link) and a frame of another or the world (`second` absent), holding their relative pose as "
                           "built at the point `at` (ArtiSynth technical notes, section 0.22), isotropic: energy "
                           "stiffness |d|^2/2 + rotational_stiffness |psi|^2/2 with d the separation of the two frames' "
                           "points and psi the rotation vector between their axes; dampers on the rate of d and on the "
                           "relative angular velocity. Exact stiffness Jacobian (unsymmetric in the rotations); the "
                           "damping's leaves out how a frame's velocity turns with its DOFs at fixed v (slower Newton "
                           "with rod-end frames). psi is the shortest rotation: past half a turn the spring pulls the "
                           "other way round; for a winding spring use a revolute_joint with a joint_drive.");
    spring.map("first", "the first end", frame_end_schema("first", "a frame of an element")).require();
    spring.map("second", "the second end; absent: the world", frame_end_schema("second", "a frame of an element"));
    spring.vec3("at", "the spring's point, world, as built; absent: the first frame's origin").unit("m");
    spring.real("stiffness", "k_t").unit("N/m").fallback(0.0).non_negative();
    spring.real("rotational_stiffness", "k_r").unit("N m/rad").fallback(0.0).non_negative();
    spring.real("damping", "d_t, on the rate of the separation").unit("N s/m").fallback(0.0).non_negative();
    spring.real("rotational_damping", "d_r, on the relative angular velocity").unit("N m s/rad").fallback(0.0).non_negative();
    registry.add_force(std::move(spring), [](const Parameters& p) {
        FrameSpringSettings settings;
        settings.first = read_frame_end(p.block("first"));
        if (p.has("second")) settings.second = read_frame_end(p.block("second"));
        if (p.has("at")) settings.at = p.vec3("at");
        settings.stiffness = p.real("stiffness");
        settings.rotational_stiffness = p.real("rotational_stiffness");
        settings.damping = p.real("damping");
        settings.rotational_damping = p.real("rotational_damping");
        return std::make_unique<FrameSpring>(std::move(settings), p);
    });
}
