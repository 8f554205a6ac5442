// Registers `ball_joint` and `clamp`.
#include "ball_joint.hpp"
#include "clamp.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <numbers>

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
    registry.add_constraint(std::move(s), [](const Parameters& p) {
        BallJointSettings settings;
        settings.first = read_end(p.block("first"), false);
        settings.second = read_end(p.block("second"), true);
        settings.compliance = p.real("compliance");
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
    ParameterSchema offset("rotation_offset", "a rotation about an axis (right-hand rule)");
    offset.vec3("axis", "rotation axis (need not be unit length; must not be zero)").require();
    offset.real("angle_deg", "rotation angle").unit("deg").require();
    c.map("rotation_offset",
          "R_o: the rotation of the first frame relative to the second that the clamp holds (R_2^T R_1 = R_o, in the "
          "second frame's axes). Default: the initial relative rotation. A hard clamp must hold it initially; a "
          "compliant one starts pre-loaded",
          std::move(offset));
    registry.add_constraint(std::move(c), [](const Parameters& p) {
        ClampSettings settings;
        settings.first = read_clamp_end(p.block("first"), false);
        settings.second = read_clamp_end(p.block("second"), true);
        settings.compliance = p.real("compliance");
        settings.rotational_compliance = p.real("rotational_compliance");
        if (p.has("rotation_offset")) {
            const Parameters o = p.block("rotation_offset");
            const Vec3 axis = o.vec3("axis");
            if (!(axis.norm() > 0.0) || !std::isfinite(axis.norm())) o.fail("axis", "the rotation axis must be a finite, non-zero vector");
            settings.rotation_offset =
                Eigen::AngleAxisd(o.real("angle_deg") * std::numbers::pi / 180.0, axis.normalized()).toRotationMatrix();
        }
        return std::make_unique<Clamp>(std::move(settings), p);
    });
}
