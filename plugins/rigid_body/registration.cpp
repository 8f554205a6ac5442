// Registers `rigid_body` and `rigid_damping`.
#include "rigid_body.hpp"
#include "rigid_damping.hpp"

#include "soma/api.hpp"
#include "soma/stl_mesh.hpp"
#include "soma/registry.hpp"

#include <cmath>

using namespace soma;
using namespace soma::rigid_body;

namespace {

ParameterSchema shape_box() {
    ParameterSchema s("box", "a box centred on the shape's centre, edges along the shape's axes (the body's for "
                            "`shape`, the part's `orientation` in `shapes`)");
    s.vec3("size", "edge lengths along the shape's x, y, z").unit("m").require();
    return s;
}

ParameterSchema shape_sphere() {
    ParameterSchema s("sphere", "a sphere (floor contact: its centre with this radius, exact)");
    s.real("radius", "radius").unit("m").require().positive();
    return s;
}

ParameterSchema shape_cylinder() {
    ParameterSchema s("cylinder", "a solid cylinder along the shape's z axis (the body's for `shape`, the part's in "
                                 "`shapes`; contact: 32 points on each rim)");
    s.real("radius", "radius").unit("m").require().positive();
    s.real("length", "height along the shape's z axis").unit("m").require().positive();
    return s;
}

ParameterSchema shape_capsule() {
    ParameterSchema s("capsule", "a cylinder along the shape's z axis (the body's for `shape`, the part's in "
                                 "`shapes`) with hemispherical caps (contact: the caps' centres with this radius, exact)");
    s.real("radius", "radius of the cylinder and the caps").unit("m").require().positive();
    s.real("length", "length of the cylindrical part (the capsule is length + 2 radius long)").unit("m").require().positive();
    return s;
}

ParameterSchema shape_mesh() {
    ParameterSchema s("mesh", "a triangle mesh read from a Wavefront OBJ file (v and f lines; polygons are "
                              "fan-triangulated) or, when its name ends in .stl, an STL file (binary or ASCII; corners "
                              "with equal coordinates welded into one vertex), its vertices scaled about the file's origin and then placed at "
                              "`shape_center` (a part's: turned by its `orientation` and placed at its `center`). Contact and output points: its vertices (radius 0); its triangles are "
                              "drawn. With `density` the mesh must be closed and oriented outwards (every edge shared "
                              "by two triangles that run it in opposite directions, positive volume) and the mass "
                              "properties are those of the solid it bounds, exact (divergence theorem over tetrahedra)");
    s.string("path", "OBJ or STL file, relative to the scene file's folder").require();
    s.real("scale", "factor applied to the file's coordinates (e.g. 0.001 for a file in millimetres)")
        .positive()
        .max_value(1e6)
        .fallback(1.0);
    return s;
}

std::vector<ParameterSchema> shape_alternatives() {
    return {shape_box(), shape_sphere(), shape_cylinder(), shape_capsule(), shape_mesh()};
}

/// A shape placed in the body (a compound body's part, a visual): `shape`, `center`, `orientation`.
ParameterSchema placed_shape_schema(const std::string& name, const std::string& doc, const std::string& shape_doc) {
    ParameterSchema s(name, doc);
    s.one_of("shape", shape_doc, shape_alternatives()).require();
    s.vec3("center", "position of the " + name + "'s centre in body coordinates").unit("m").fallback(Vec3(0, 0, 0));
    s.real_list("orientation", "the " + name + "'s axes in body coordinates, a unit quaternion [w, x, y, z] (a "
                               "cylinder or capsule lies along its z axis)")
        .exact_size(4)
        .fallback(std::vector<double>{1.0, 0.0, 0.0, 0.0});
    return s;
}

/// A unit quaternion [w, x, y, z] typed by hand: unit to the digits written, so 1e-6 catches a
/// wrong entry.
Quaternion unit_quaternion(const Parameters& p, const std::string& key) {
    const auto q = p.real_list(key);
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(std::abs(norm - 1.0) <= 1e-6))
        p.fail(key, "must be a unit quaternion [w, x, y, z]: its norm is " + std::to_string(norm));
    return Quaternion(q[0], q[1], q[2], q[3]).normalized();
}

ParameterSchema rigid_body_schema() {
    ParameterSchema s(
        "rigid_body",
        "A rigid body: position of its body frame's origin and orientation (a unit quaternion), moved by the "
        "Newton-Euler equations with gyroscopic terms. Its angular velocity DOFs are in body coordinates (the "
        "body's rotation rate about its own x, y, z axes: dq/dt = 1/2 q (0, omega), ArtiSynth technical notes "
        "section 0.2); `angular_velocity` below is read in the frame `angular_velocity_frame` names. Mass "
        "properties come from the shape and a density, or are given (mass, inertia about the centre of mass, "
        "centre of mass). DOF group `nodes` has one node, the body frame's origin (fix it to pin the body "
        "there: a ball joint to the world). Points for forces and output: point 0 is the origin, point 1 the centre of mass (it carries "
        "the weight), then the markers, then the shape's points (box: 8 corners; cylinder: 2 x 32 rim points; sphere and capsule: centres with "
        "their radius; mesh: its vertices), shape after shape for a compound body (`shapes`). Forces that act on points (gravity, floor contact and friction, point loads) act through "
        "the body's motion. The Jacobian is not symmetric: scenes with rigid bodies default to eigen_lu.");
    s.vec3("position", "initial position of the body frame's origin (world)").unit("m").require();
    s.real_list("orientation", "initial orientation, body to world, as a unit quaternion [w, x, y, z] "
                               "(rotation by angle a about unit axis u: [cos(a/2), sin(a/2) u])")
        .exact_size(4)
        .fallback(std::vector<double>{1.0, 0.0, 0.0, 0.0});
    s.vec3("velocity", "initial velocity of the body frame's origin (world)").unit("m/s").fallback(Vec3(0, 0, 0));
    s.vec3("angular_velocity", "initial angular velocity").unit("rad/s").fallback(Vec3(0, 0, 0));
    s.string("angular_velocity_frame", "coordinates of `angular_velocity`: world or body")
        .one_of_strings({"world", "body"})
        .fallback(std::string("world"));
    s.one_of("shape", "geometry for contact and output (and mass properties with `density`)", shape_alternatives());
    s.vec3("shape_center", "position of the shape's centre in body coordinates (with `shape`)").unit("m").fallback(Vec3(0, 0, 0));
    ParameterSchema part = placed_shape_schema("part", "one convex part of a compound body", "the part's geometry");
    s.map_list("shapes", "instead of `shape`: a compound body made of several parts (a table's top and legs), each "
                         "a convex solid for contact and drawn in the output; their contact and output points follow "
                         "one another in this order. With `density` the parts' mass properties add up (parts must "
                         "not overlap: a common volume counts twice, there and in the volume that buoyancy, "
                         "`gravity`'s medium_density, displaces); touching parts are fine",
               std::move(part));
    ParameterSchema visual = placed_shape_schema("visual", "a shape drawn with the body",
                                                 "the visual's geometry (a sphere or capsule is drawn tessellated)");
    s.map_list("visuals", "shapes drawn in the output with the body and nothing else: no mass, no contact, no points "
                          "(a detailed mesh beside coarse collision shapes, a URDF link's <visual>); a mesh need not be "
                          "closed, and what the shapes' descriptions say of contact points, density and shape_center "
                          "does not apply. In VTK frames their triangles carry cell data visual = 1",
               std::move(visual));
    s.real("density", "uniform density of the shape or shapes: mass properties from them (centre of mass at a "
                      "shape's centre; a mesh's at the centroid of the solid it bounds); exclusive with mass, inertia "
                      "and center_of_mass")
        .unit("kg/m^3")
        .positive();
    s.real("mass", "mass (with inertia; instead of density)").unit("kg").positive();
    s.real_list("inertia", "rotational inertia about the centre of mass in body axes: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] "
                           "(the tensor's entries, Ixy = -integral of x y dm)")
        .unit("kg m^2")
        .exact_size(6);
    s.vec3("center_of_mass", "centre of mass in body coordinates (with mass and inertia)").unit("m");
    ParameterSchema marker("marker", "a point fixed in the body");
    marker.vec3("position", "body coordinates").unit("m").require();
    s.map_list("markers", "extra points of the body, for joints, point loads and probes: marker i is point 2 + i "
                          "(node index in `ball_joint`, `point_load`, csv probes)",
               std::move(marker));
    return s;
}

/// The shape of key `shape` in \p p (a body's or a part's), centred at \p center.
RigidShape shape_from(const Parameters& p, const Vec3& center) {
    RigidShape shape;
    const std::string kind = p.choice("shape");
    const Parameters b = p.choice_block("shape");
    shape.center = center;
    if (kind == "box") {
        shape.kind = ShapeKind::box;
        shape.size = b.vec3("size");
        if (!(shape.size.minCoeff() > 0.0) || !shape.size.allFinite())
            b.fail("size", "every edge length must be positive and finite");
    } else if (kind == "sphere") {
        shape.kind = ShapeKind::sphere;
        shape.radius = b.real("radius");
    } else if (kind == "cylinder" || kind == "capsule") {
        shape.kind = kind == "cylinder" ? ShapeKind::cylinder : ShapeKind::capsule;
        shape.radius = b.real("radius");
        shape.length = b.real("length");
    } else if (kind == "mesh") {
        shape.kind = ShapeKind::mesh;
        try {
            ObjTriangles mesh = read_mesh_triangles(b.path("path"));
            const double scale = b.real("scale");
            for (const Vec3& x : mesh.positions) shape.vertices.push_back(scale * x);
            shape.triangles = std::move(mesh.triangles);
        } catch (const MeshFileError& error) {
            b.fail("path", error.what());
        }
    } else {
        p.fail("shape", "unknown shape '" + kind + "'");
    }
    return shape;
}

/// The shape of a placed_shape_schema block: at its `center`, turned by its `orientation`.
RigidShape placed_shape(const Parameters& p) {
    RigidShape shape = shape_from(p, p.vec3("center"));
    shape.orientation = unit_quaternion(p, "orientation");
    return shape;
}

std::unique_ptr<Element> make_rigid_body(const Parameters& p) {
    RigidBodyDescription d;
    d.position = p.vec3("position");
    d.orientation = unit_quaternion(p, "orientation");
    d.velocity = p.vec3("velocity");
    const Vec3 omega = p.vec3("angular_velocity");
    d.angular_velocity = p.string("angular_velocity_frame") == "world" ? Vec3(d.orientation.conjugate() * omega) : omega;
    if (p.has("shape") && p.has("shapes")) p.fail("shapes", "give either `shape` (one) or `shapes` (a list of parts), not both");
    if (p.has("shapes") && p.has("shape_center"))
        p.fail("shape_center", "a part of `shapes` has its own `center`; shape_center places the single `shape`");
    // Where each shape's mesh file was given, for located errors about it.
    std::vector<Parameters> shape_blocks;
    if (p.has("shape")) {
        d.shapes.push_back(shape_from(p, p.vec3("shape_center")));
        shape_blocks.push_back(p);
    }
    for (const Parameters& part : p.blocks("shapes")) {
        d.shapes.push_back(placed_shape(part));
        shape_blocks.push_back(part);
    }
    if (p.has("shapes") && d.shapes.empty()) p.fail("shapes", "a compound body needs at least one part");
    for (const Parameters& marker : p.blocks("markers")) d.markers.push_back(marker.vec3("position"));
    for (const Parameters& visual : p.blocks("visuals")) d.visuals.push_back(placed_shape(visual));

    const bool explicit_mass = p.has("mass") || p.has("inertia") || p.has("center_of_mass");
    if (p.has("density")) {
        if (explicit_mass)
            p.fail(p.has("mass") ? "mass" : p.has("inertia") ? "inertia" : "center_of_mass",
                   "give either density (mass properties from the shape) or mass and inertia, not both");
        if (d.shapes.empty()) p.fail("density", "mass properties from a density need a shape");
        for (std::size_t k = 0; k < d.shapes.size(); ++k) {
            if (d.shapes[k].kind != ShapeKind::mesh) continue;
            try {
                check_closed_mesh(d.shapes[k].vertices, d.shapes[k].triangles);
            } catch (const std::invalid_argument& error) {
                shape_blocks[k].choice_block("shape").fail(
                    "path", std::string("mass properties from a density need a closed solid: ") + error.what());
            }
        }
        d.mass = compound_mass_properties(d.shapes, p.real("density"));
    } else {
        if (!p.has("mass") || !p.has("inertia"))
            p.fail(p.has("mass") ? "inertia" : "mass",
                   "a rigid body needs its mass properties: density (with a shape), or mass and inertia");
        d.mass.mass = p.real("mass");
        const auto i = p.real_list("inertia");
        d.mass.inertia << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
        d.mass.center_of_mass = p.has("center_of_mass") ? p.vec3("center_of_mass") : Vec3::Zero();
    }
    try {
        return std::make_unique<RigidBody>(std::move(d));
    } catch (const std::invalid_argument& error) {
        p.fail(p.has("density") ? "density" : "inertia", error.what());
    }
}

ParameterSchema rigid_damping_schema() {
    ParameterSchema s(
        "rigid_damping",
        "Viscous damping of rigid bodies: a force -linear_damping v_c at the centre of mass (v_c its velocity) and a "
        "torque -angular_damping omega about it, as the linear and angular damping of rigid-body engines; it "
        "dissipates linear_damping |v_c|^2 + angular_damping |omega|^2 and does not depend on where the body frame's "
        "origin is. A free body's speed and spin decay as exp(-linear_damping t / m) and, about a principal axis, "
        "exp(-angular_damping t / I). For rods use viscous_drag (per unit length), for surfaces aerodynamic_drag.");
    s.real("linear_damping", "c_t: force per unit velocity of the centre of mass").unit("N*s/m").non_negative().fallback(0.0);
    s.real("angular_damping", "c_r: torque per unit angular velocity").unit("N*m*s/rad").non_negative().fallback(0.0);
    s.string_list("elements", "names of the rigid bodies damped; empty: every rigid_body")
        .fallback(std::vector<std::string>{});
    return s;
}

std::unique_ptr<Force> make_rigid_damping(const Parameters& p) {
    RigidDampingSettings s;
    s.linear_damping = p.real("linear_damping");
    s.angular_damping = p.real("angular_damping");
    s.elements = p.string_list("elements");
    return std::make_unique<RigidDamping>(
        std::move(s), SettingsErrors("rigid_damping", [p](const std::string& key, const std::string& message) {
            p.fail(key, message);
        }));
}

}  // namespace

SOMA_PLUGIN("rigid_body") {
    registry.add_element(rigid_body_schema(), make_rigid_body);
    registry.add_force(rigid_damping_schema(), make_rigid_damping);
}
