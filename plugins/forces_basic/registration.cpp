// The forces_basic plugin's entry point: the parameter schemas of its forces and the
// translation of validated scene parameters into each force's settings struct.
#include "aerodynamic_drag.hpp"
#include "floor_contact.hpp"
#include "gravity.hpp"
#include "point_load.hpp"
#include "point_spring.hpp"
#include "rayleigh_damping.hpp"
#include "viscous_drag.hpp"

#include "soma/registry.hpp"

#include <memory>

namespace {

using namespace soma;
using namespace soma::forces_basic;

void declare_elements(ParameterSchema& schema) {
    schema.string_list("elements", "names of the elements acted on; empty: every element")
        .fallback(std::vector<std::string>{});
}

ParameterSchema gravity_schema() {
    const GravitySettings defaults;
    ParameterSchema schema("gravity",
                           "Uniform gravity with buoyancy (MAT-DiSMech §5.1): each point i gets the load "
                           "m_i ((rho - rho_med)/rho) g, scaled by the statics load factor. rho is the "
                           "element's density. An element that carries its own gravity (a gvs robot: its "
                           "`gravity` key) is skipped, with a note, and refused when named in `elements`.");
    schema.vec3("acceleration", "gravitational acceleration g").unit("m/s^2").fallback(defaults.acceleration);
    schema.real("medium_density", "density rho_med of the surrounding fluid, for buoyancy; 0: none")
        .unit("kg/m^3")
        .fallback(defaults.medium_density)
        .non_negative();
    declare_elements(schema);
    return schema;
}

ParameterSchema viscous_drag_schema() {
    ParameterSchema schema("viscous_drag",
                           "Viscous drag per unit rod length (MAT-DiSMech eq. 27-28): each rod point i gets "
                           "-eta dl_i v_i, dl_i its Voronoi length, v_i its absolute velocity. A drag of the "
                           "surrounding fluid, not a material viscosity: it slows rigid motion (a rod swinging "
                           "or falling as a whole) as much as bending; for vibrations that decay at a chosen "
                           "damping ratio use rayleigh_damping (docs/damping.md). Pure-shell points (dl = 0) get "
                           "none; use aerodynamic drag for surfaces. A gvs robot's rod points take it through "
                           "their map, dl_i their quadrature length.");
    schema.real("viscosity", "drag coefficient eta per unit rod length: each rod node gets -eta dl v "
                             "(N per m/s per m of rod)")
        .unit("Pa*s")
        .require()
        .positive();
    declare_elements(schema);
    return schema;
}

ParameterSchema aerodynamic_drag_schema() {
    ParameterSchema schema(
        "aerodynamic_drag",
        "Quadratic drag on surface triangles (MAT-DiSMech eq. 29): each node i of triangle k gets "
        "-(rho_med C_D/2)(A_k/3) sgn(u_i.n_k)(u_i.n_k)^2 n_k, with A_k the undeformed area, n_k the current "
        "unit normal and u_i the node velocity. A flat plate of area A moving at speed u along its normal "
        "feels (1/2) rho_med C_D A u^2. Not scaled by the load factor.");
    schema.real("medium_density", "density rho_med of the surrounding fluid (air about 1.2, water about 1000)")
        .unit("kg/m^3")
        .require()
        .positive();
    schema.real("drag_coefficient", "drag coefficient C_D of the surface (dimensionless)").require().positive().max_value(1e3);
    schema.string_list("elements", "names of the elements acted on (each must have triangles); empty: every element "
                                   "with triangles")
        .fallback(std::vector<std::string>{});
    return schema;
}

ParameterSchema floor_contact_schema() {
    const FloorContactSettings defaults;
    ParameterSchema schema(
        "floor_contact",
        "Smooth penalty contact with the plane normal.x = height, with smoothed Coulomb friction "
        "(MAT-DiSMech eq. 25-26). Energy per point k_c ((1/K1) log(1 + exp(-K1 gap)))^2, K1 = 15/band, "
        "gap = normal.x - radius - height; friction -mu gamma(|v_t|) |F_c| v_t/|v_t|, "
        "gamma(w) = tanh(7.5 w/slip_velocity).");
    schema.real("height", "offset of the floor along its normal (the floor height for normal +z)")
        .unit("m")
        .fallback(defaults.height);
    schema.vec3("normal", "floor normal, pointing out of the floor (normalised)").fallback(defaults.normal);
    schema.real("stiffness", "penalty stiffness k_c; the normal force at gap 0 is k_c ln2 band/15")
        .unit("N/m")
        .fallback(defaults.stiffness)
        .positive();
    schema.real("band", "contact band delta: the force acts for gap < band; default: each point's contact radius")
        .unit("m")
        .positive();
    schema.real("friction", "Coulomb friction coefficient mu; 0: frictionless")
        .fallback(defaults.friction)
        .non_negative()
        .max_value(100.0);
    schema.real("slip_velocity",
                "friction smoothing velocity v_tol: below it friction is a stiff viscous law (creep), "
                "above it Coulomb sliding")
        .unit("m/s")
        .fallback(defaults.slip_velocity)
        .positive();
    declare_elements(schema);
    return schema;
}

ParameterSchema point_load_schema() {
    ParameterSchema schema("point_load",
                           "A constant force on chosen nodes of one element, scaled by the statics load "
                           "factor (MAT-DiSMech §5.5). The nodes are given by index (`nodes`) or by position "
                           "(`at`): exactly one of the two.");
    schema.string("element", "name of the element loaded").require();
    schema.integer_list("nodes", "node indices; negative indices count from the end (-1: last node)");
    schema.vec3("at",
                "instead of `nodes`: load the node nearest to this position in the initial configuration "
                "(`soma check` prints the node chosen and its distance; `soma inspect` lists the nodes)")
        .unit("m");
    schema.vec3("force", "force applied to each listed node").unit("N").require();
    return schema;
}

}  // namespace

ParameterSchema spring_schema() {
    ParameterSchema schema("spring",
                           "An axial spring-damper between two points, or a multi-point spring (a cable or tendon "
                           "sliding without friction over via points) through the points listed, each a point of "
                           "any element (a rod or shell node, a rigid body's origin, centre of mass, marker or "
                           "corner) or of the world. One tension F = stiffness (L - rest_length) + damping dL/dt, "
                           "with L the length through all the points, pulls along every segment (ArtiSynth technical "
                           "notes, sections 0.12 and 0.14), with its exact Jacobian. With tension_only, a cable: no "
                           "force when slack. CSV statistics: length, tension.");
    ParameterSchema point("point", "an end or a via point");
    point.string("element", "scene name of the element (absent: the world point `world`)");
    point.integer("node", "point index of the element (negative counts from the end; rigid_body: 0 origin, 1 centre of "
                          "mass, then its markers, then its shape's points); default 0");
    point.vec3("at", "instead of `node`: the element's point nearest this position as built").unit("m");
    point.vec3("world", "a fixed point of the world (instead of `element`)").unit("m");
    schema.map_list("points", "the ends and, between them, the via points, in order (2 or more)", std::move(point))
        .require();
    schema.real("stiffness", "k").unit("N/m").fallback(0.0).non_negative();
    schema.real("damping", "d, on the rate of the length").unit("N*s/m").fallback(0.0).non_negative();
    schema.real("rest_length", "r, the length at which the spring is slack; absent: its length as built").unit("m").non_negative();
    schema.boolean("tension_only", "a cable: it pulls, never pushes").fallback(false);
    return schema;
}

SOMA_PLUGIN("forces_basic") {
    registry.add_force(gravity_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        GravitySettings s;
        s.acceleration = p.vec3("acceleration");
        s.medium_density = p.real("medium_density");
        s.elements = p.string_list("elements");
        return std::make_unique<Gravity>(std::move(s), scene_errors(p));
    });
    registry.add_force(viscous_drag_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        ViscousDragSettings s;
        s.viscosity = p.real("viscosity");
        s.elements = p.string_list("elements");
        return std::make_unique<ViscousDrag>(std::move(s), scene_errors(p));
    });
    registry.add_force(aerodynamic_drag_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        AerodynamicDragSettings s;
        s.medium_density = p.real("medium_density");
        s.drag_coefficient = p.real("drag_coefficient");
        s.elements = p.string_list("elements");
        return std::make_unique<AerodynamicDrag>(std::move(s), scene_errors(p));
    });
    registry.add_force(floor_contact_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        FloorContactSettings s;
        s.height = p.real("height");
        s.normal = p.vec3("normal");
        s.stiffness = p.real("stiffness");
        if (p.has("band")) s.band = p.real("band");
        s.friction = p.real("friction");
        s.slip_velocity = p.real("slip_velocity");
        s.elements = p.string_list("elements");
        return std::make_unique<FloorContact>(std::move(s), scene_errors(p));
    });
    registry.add_force(point_load_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        PointLoadSettings s;
        s.element = p.string("element");
        if (p.has("nodes")) s.nodes = p.integer_list("nodes");
        if (p.has("at")) {
            s.at = p.vec3("at");
            s.where = p.location("at").str();
        }
        // Checked here so that an empty `nodes: []` and a missing `nodes` get the same message.
        if (!p.has("nodes") && !p.has("at"))
            p.fail("", "give the loaded nodes: `nodes: [indices]` or `at: [x, y, z]` (the node nearest a position)");
        s.force = p.vec3("force");
        return std::make_unique<PointLoad>(std::move(s), scene_errors(p));
    });
    registry.add_force(rayleigh_damping_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        return std::make_unique<RayleighDamping>(rayleigh_damping_settings(p), scene_errors(p));
    });
    registry.add_force(spring_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        PointSpringSettings s;
        for (const Parameters& block : p.blocks("points")) {
            SpringPoint point;
            if (block.has("element")) point.element = block.string("element");
            if (block.has("node")) point.node = block.integer("node");
            if (block.has("at")) point.at = block.vec3("at");
            if (block.has("node") && block.has("at")) block.fail("at", "give `node` or `at`, not both");
            if (block.has("world")) {
                if (block.has("element")) block.fail("world", "give `element` or `world`, not both");
                if (block.has("node") || block.has("at")) block.fail("world", "a world point takes no `node` or `at`");
                point.world = block.vec3("world");
            } else if (point.element.empty()) {
                block.fail("element", "needs `element` (with `node` or `at`) or `world`");
            }
            s.points.push_back(point);
        }
        s.stiffness = p.real("stiffness");
        s.damping = p.real("damping");
        if (p.has("rest_length")) s.rest_length = p.real("rest_length");
        s.tension_only = p.boolean("tension_only");
        s.where = p.location().str();
        return std::make_unique<PointSpring>(std::move(s), scene_errors(p));
    });
}
