// Registers `ball_joint`.
#include "ball_joint.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

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

}  // namespace

SOMA_PLUGIN("joints") {
    ParameterSchema s("ball_joint",
                      "A ball (spherical) joint: holds a point of one element at a point of another element, or at a "
                      "fixed point of the world, with three constraint rows x_1 - x_2 = 0 solved with Lagrange "
                      "multipliers (the joint force, N). The points may be rod or shell nodes or rigid-body points, so "
                      "it joins two bodies, hangs a body from a rod's node, or pins a point in space. The two points "
                      "must coincide initially. With `compliance` the joint is a zero-length spring of stiffness "
                      "1/compliance between them (ArtiSynth technical notes, section 0.11). Integrators: "
                      "implicit_euler, implicit_midpoint, statics.");
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
}
