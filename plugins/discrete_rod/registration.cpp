// Registration of the `discrete_rod` element: its scene schema and the factory that translates
// validated Parameters into a RodDescription (the element itself never sees Parameters).
#include "discrete_rod.hpp"
#include "rod_frames.hpp"
#include "rod_geometry.hpp"
#include "rod_joint.hpp"
#include "rod_shell_joint.hpp"

#include "soma/input_limits.hpp"
#include "soma/rigid_transform.hpp"
#include "soma/soma.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace {

using soma::ParameterSchema;
using soma::Parameters;
using namespace soma::rod;

ParameterSchema geometry_line() {
    ParameterSchema s("line", "A straight rod from `from` to `to` with equally spaced nodes.");
    s.vec3("from", "position of the first node").unit("m").require();
    s.vec3("to", "position of the last node").unit("m").require();
    s.integer("nodes", "number of nodes (edges = nodes - 1)").require().range(3, soma::kMaxNodesPerElement);
    soma::add_transform_parameter(s);
    return s;
}

ParameterSchema geometry_helix() {
    ParameterSchema s("helix",
                      "A helix about the z axis (turn it with `transform`): x(phi) = center + (R cos phi, R sin phi, pitch phi/(2 pi)), phi from 0 "
                      "to 2 pi turns, nodes equally spaced in phi.");
    s.vec3("center", "point on the axis at phi = 0").unit("m").fallback(soma::Vec3(0.0, 0.0, 0.0));
    s.real("radius", "helix radius R").unit("m").require().positive();
    s.real("pitch", "rise along z per turn (negative: left-handed, 0: planar circle)").unit("m").require();
    s.real("turns", "number of turns").require().positive().max_value(1e6);
    s.integer("nodes", "number of nodes (edges = nodes - 1)").require().range(3, soma::kMaxNodesPerElement);
    soma::add_transform_parameter(s);
    return s;
}

ParameterSchema geometry_points() {
    ParameterSchema s("points", "Node positions given inline.");
    s.real_list("coordinates", "flat list x0, y0, z0, x1, y1, z1, ... (a multiple of 3, at least 9 numbers)")
        .unit("m")
        .require();
    soma::add_transform_parameter(s);
    return s;
}

ParameterSchema geometry_file() {
    ParameterSchema s("file", "Node positions read from a text file.");
    s.string("path", "file path, relative to the scene file's folder").require();
    s.string("format",
             "xyz: one node per line, x y z separated by whitespace and/or commas; '#' starts a "
             "comment; blank lines are skipped")
        .fallback(std::string("xyz"))
        .one_of_strings({"xyz"});
    soma::add_transform_parameter(s);
    return s;
}

ParameterSchema section_circle() {
    ParameterSchema s("circle",
                      "Solid circle: A = pi r^2, I1 = I2 = pi r^4/4, J = pi r^4/2; contact radius r. It bends "
                      "equally about m1 and m2: kappa1 > 0 bends the rod toward +m1, kappa2 > 0 toward +m2 (see "
                      "discrete_rod for the material frame).");
    s.real("radius", "radius r").unit("m").require().positive();
    return s;
}

ParameterSchema section_rectangle() {
    ParameterSchema s("rectangle",
                      "Solid rectangle, height h along the material director m1 and width b along m2: "
                      "A = b h, I1 = b h^3/12 (curvature kappa1, bending in the (t, m1) plane), "
                      "I2 = h b^3/12 (kappa2), J = b h^3/6 (reference code) unless torsion_constant is "
                      "given; contact radius h/2. The height is along m1 (see discrete_rod for the material "
                      "frame): a rod along +x has m1 = +z, so its height is vertical and its width along y.");
    s.real("width", "width b (along m2)").unit("m").require().positive();
    s.real("height", "height h (along m1)").unit("m").require().positive();
    s.real("torsion_constant", "override of the torsion constant J (thin strip: b h^3/3)")
        .unit("m^4")
        .positive();
    return s;
}

ParameterSchema material_schema() {
    ParameterSchema s("material", "Linear elastic isotropic material.");
    s.real("density", "mass density rho").unit("kg/m^3").require().positive();
    s.real("youngs_modulus", "Young's modulus E").unit("Pa").require().positive();
    s.real("poisson_ratio", "Poisson ratio nu, used for G = E/(2(1+nu))").fallback(0.5).range(0.0, 0.5);
    s.real("shear_modulus", "shear modulus G; overrides E/(2(1+nu)) when given").unit("Pa").positive();
    return s;
}

ParameterSchema discrete_rod_schema() {
    ParameterSchema s(
        "discrete_rod",
        "Discrete elastic rod (Bergou et al. 2010, as in MAT-DiSMech): stretching (EA), bending "
        "(EI1, EI2) and twisting (GJ) with natural curvature and twist taken from the initial "
        "geometry, lumped mass. DOFs: group `nodes` (x, y, z per node) and group `edges` "
        "(one twist angle per edge, rad: the turn of the material frame about the edge from its reference "
        "frame; edge i joins nodes i and i + 1). A region (box, plane) in `fixed` or `prescribed` selects the "
        "nodes in it and the twist of every edge whose two nodes it holds: a clamp. "

        "Material frame (m1, m2, t = m1 x m2) at t = 0: the first edge gets m1 = "
        "unit(t0 x (0,1,0)), or unit(t0 x (0,0,-1)) when the first edge is along y, m2 = t0 x m1; the other "
        "edges get it by parallel transport along the rod (no twist); a geometry `transform` rotates this "
        "frame with the rod. So a rod along +x has m1 = +z, m2 = -y; along +y, m1 = -x, m2 = +z; along +z, "
        "m1 = -x, m2 = -y. A positive natural curvature kappa1 bends the rod toward +m1, kappa2 toward +m2 "
        "(actuation channel natural_curvature); a rectangle's height is along m1, its width along m2.");
    s.one_of("geometry", "initial (and natural, stress-free) shape of the rod",
             {geometry_line(), geometry_helix(), geometry_points(), geometry_file()})
        .require();
    s.one_of("cross_section", "uniform cross-section", {section_circle(), section_rectangle()}).require();
    s.map("material", "material constants", material_schema()).require();
    s.vec3("initial_velocity", "initial velocity of every node").unit("m/s").fallback(soma::Vec3(0.0, 0.0, 0.0));
    ParameterSchema planar("planar", "Planar mode of a discrete rod.");
    planar.vec3("normal", "the plane's normal: along x, y or z, e.g. [0, 0, 1] (length and sign do not matter)")
        .require();
    s.map("planar",
          "planar mode: the rod moves only in the plane through its initial shape normal to `normal`. It holds the "
          "out-of-plane position component of every node and the twist of every edge at their initial values, as "
          "`fixed` would (selecting them again in `fixed` agrees; prescribing them is an error). The normal must be "
          "a coordinate axis: holding a component along another direction would need a constraint, which this mode "
          "does not add. The initial rod, and its initial_velocity, must lie in the plane",
          std::move(planar));
    s.boolean("symmetric_jacobian",
              "the exact Jacobian is the Hessian of the rod's energy (the reference frames' transport spin "
              "included), symmetric up to round-off, so Newton is quadratic either way. true (default): assemble "
              "its symmetric part, exactly symmetric, for eigen_ldlt (the default) and other solvers that read "
              "one triangle. false: assemble it as computed; the rod then counts as unsymmetric, so the "
              "default linear solver becomes eigen_lu")
        .fallback(true);
    return s;
}

/// Node positions of the geometry block, before its transform.
std::vector<soma::Vec3> untransformed_positions(const Parameters& p) {
    const std::string kind = p.choice("geometry");
    const Parameters g = p.choice_block("geometry");
    try {
        if (kind == "line") return line_nodes(g.vec3("from"), g.vec3("to"), g.integer("nodes"));
        if (kind == "helix")
            return helix_nodes(g.vec3("center"), g.real("radius"), g.real("pitch"), g.real("turns"),
                               g.integer("nodes"));
        if (kind == "points") {
            const std::vector<double> c = g.real_list("coordinates");
            return nodes_from_coordinates(c);
        }
        if (kind == "file") return read_xyz_file(g.path("path"));
    } catch (const std::invalid_argument& error) {
        const std::string key = kind == "points" ? "coordinates" : kind == "file" ? "path" : "nodes";
        g.fail(key, error.what());
    }
    p.fail("geometry", "unknown geometry '" + kind + "'");
}

/// Applies the geometry's `transform` to the positions of `d` and, when it rotates, turns the
/// first material director with the rod (rod_frames.hpp default of the untransformed rod), so
/// that the cross-section keeps its place relative to the rod's shape.
void apply_transform(const Parameters& p, RodDescription& d) {
    const soma::RigidTransform transform = soma::transform_from(p.choice_block("geometry"));
    const soma::Vec3 first_edge = d.positions[1] - d.positions[0];
    if (transform.rotates() && first_edge.norm() > 0.0)
        d.first_director = transform.rotate(default_first_director(first_edge.normalized()));
    for (soma::Vec3& x : d.positions) x = transform.apply(x);
}

/// The cross-section; refused when it is wider than the rod is long (`radius: 1e9` on a 0.1 m
/// rod): a rod model describes a slender body, and such a typo would run with absurd stiffness.
CrossSection section_from(const Parameters& p, const std::vector<soma::Vec3>& positions) {
    const Parameters s = p.choice_block("cross_section");
    const bool circle = p.choice("cross_section") == "circle";
    double length = 0.0;
    for (std::size_t i = 1; i < positions.size(); ++i) length += (positions[i] - positions[i - 1]).norm();
    const std::string key = circle ? "radius" : s.real("width") > s.real("height") ? "width" : "height";
    const double width = circle ? 2.0 * s.real("radius") : s.real(key);
    if (width > length) {
        std::ostringstream message;
        message << key << " = " << s.real(key) << " m makes the cross-section " << width
                << " m wide, wider than the rod is long (" << length
                << " m): a discrete rod is a slender body; check the units (SI: metres)";
        s.fail(key, message.str());
    }
    if (circle) return circular_cross_section(s.real("radius"));
    std::optional<double> j;
    if (s.has("torsion_constant")) j = s.real("torsion_constant");
    return rectangular_cross_section(s.real("width"), s.real("height"), j);
}

/// \brief The coordinate axis normal to a planar rod's plane.
/// Fails at `planar.normal` unless it is a nonzero multiple of a coordinate axis, and at `planar` unless
/// every node lies in the plane through the first node (to round-off of the rod's size).
int planar_axis(const Parameters& planar, const std::vector<soma::Vec3>& positions) {
    static const char* axes[] = {"x", "y", "z"};
    const soma::Vec3 normal = planar.vec3("normal");
    int axis = -1, nonzero = 0;
    for (int c = 0; c < 3; ++c)
        if (normal[c] != 0.0) {
            axis = c;
            ++nonzero;
        }
    if (nonzero != 1) {
        std::ostringstream message;
        message << "[" << normal[0] << ", " << normal[1] << ", " << normal[2]
                << "] is not along a coordinate axis: a planar rod holds one position component of every node, so the "
                   "normal must be along x, y or z (e.g. [0, 0, 1]); to move in another plane, build the rod in a "
                   "coordinate plane and turn the whole scene";
        planar.fail("normal", message.str());
    }
    double size = 0.0;
    for (const soma::Vec3& x : positions) size = std::max(size, (x - positions.front()).norm());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        const double off = positions[i][axis] - positions.front()[axis];
        if (std::abs(off) > 1e-9 * size) {
            std::ostringstream message;
            message << "the rod does not lie in a plane normal to " << axes[axis] << ": node " << i << " is " << off
                    << " m off the plane " << axes[axis] << " = " << positions.front()[axis] << " through node 0";
            planar.fail("", message.str());
        }
    }
    return axis;
}

std::unique_ptr<soma::Element> make_discrete_rod(const Parameters& p) {
    RodDescription d;
    d.positions = untransformed_positions(p);
    apply_transform(p, d);
    d.section = section_from(p, d.positions);
    const Parameters m = p.block("material");
    d.material.density = m.real("density");
    d.material.youngs_modulus = m.real("youngs_modulus");
    d.material.poisson_ratio = m.real("poisson_ratio");
    if (m.has("shear_modulus")) d.material.shear_modulus = m.real("shear_modulus");
    d.initial_velocity = p.vec3("initial_velocity");
    d.symmetric_jacobian = p.boolean("symmetric_jacobian");
    if (p.has("planar")) {
        d.planar_axis = planar_axis(p.block("planar"), d.positions);
        if (d.initial_velocity[*d.planar_axis] != 0.0)
            p.fail("initial_velocity", "has a component along the planar normal, which the plane holds at 0: give an "
                                       "initial velocity in the plane");
    }
    return std::make_unique<DiscreteRod>(std::move(d), soma::scene_errors(p));
}

ParameterSchema rod_joint_schema() {
    ParameterSchema s(
        "rod_joint",
        "Bending and twisting across a junction of discrete rods (rod networks, MAT-DiSMech). The listed "
        "nodes must also be merged by `shared_nodes` (the joint checks it). One bend-twist spring couples every "
        "pair of rod edges at the node that belong to different rods (or to different ends of one rod closing a "
        "loop), with the orientation rule of MAT-DiSMech §3.2; stiffness: the series (length-weighted harmonic) mean of the "
        "two rods' EI1, EI2, GJ; natural curvature and twist from the initial geometry (the initial network is "
        "stress-free). Owns no DOFs and no mass. Without it a shared node is a ball joint.");
    s.string_list("elements", "names of the discrete_rod elements meeting at the junction (at least 2)").require();
    s.integer_list("nodes", "junction node of each rod, in the same order (negative counts from the end)").require();
    s.boolean("symmetric_jacobian",
              "as discrete_rod's option of the same name: the spring Hessians are symmetric up to round-off; "
              "true assembles their exactly symmetric part, false assembles them as computed and counts the "
              "joint as unsymmetric (default linear solver eigen_lu)")
        .fallback(true);
    return s;
}

ParameterSchema rod_shell_joint_schema() {
    ParameterSchema s(
        "rod_shell_joint",
        "A rod end clamped into a shell (MAT-DiSMech §3.4): the rod node and the shell node must also be merged "
        "by `shared_nodes` (the joint checks it). Every shell edge of the triangles around the node becomes "
        "rod-like: the joint owns its twist angle (DOF group `edges`, component twist, initial 0, twist inertia "
        "rho (I1 + I2) l with the rod's density and section) and couples every pair of rod-like edges meeting "
        "at a node with a bend-twist spring of the rod's EI1, EI2, GJ (as the reference code), natural shape = "
        "initial geometry. Without it the shared node is a ball joint. Two joints on the same shell must not "
        "share a triangle edge around their nodes (each would own its own twist of that edge and double the "
        "springs at shared vertices): keep joint nodes at least two edges apart. The joint has no nodes of its "
        "own: select its edges' twists by index (`fixed: {edges: [...]}`, in the order the joint finds the "
        "shell edges); a region is refused, and a region in the shell's `fixed` does not reach them.");
    s.string("rod", "name of the discrete_rod").require();
    s.integer("rod_node", "rod node at the joint (negative counts from the end)").fallback(-1L);
    s.string("shell", "name of the hinge_shell or midedge_shell element").require();
    s.integer("shell_node", "shell node at the joint (negative counts from the end)").require();
    s.integer("edge_slots",
              "twist DOFs reserved for the shell edges around the node (DOFs are numbered before the joint sees "
              "the mesh): at least the number of edges of the triangles around shell_node (the joint says how "
              "many when it is too small); unused slots are decoupled DOFs held at 0")
        .fallback(24L)
        .min_value(1);
    s.boolean("symmetric_jacobian",
              "as discrete_rod's option of the same name: the spring Hessians are symmetric up to round-off; "
              "true assembles their exactly symmetric part, false assembles them as computed and counts the "
              "joint as unsymmetric (default linear solver eigen_lu)")
        .fallback(true);
    return s;
}

std::unique_ptr<soma::Element> make_rod_joint(const Parameters& p) {
    RodJointDescription d;
    d.elements = p.string_list("elements");
    d.nodes = p.integer_list("nodes");
    d.symmetric_jacobian = p.boolean("symmetric_jacobian");
    return std::make_unique<RodJoint>(std::move(d), soma::scene_errors(p));
}

std::unique_ptr<soma::Element> make_rod_shell_joint(const Parameters& p) {
    RodShellJointDescription d;
    d.rod = p.string("rod");
    d.rod_node = p.integer("rod_node");
    d.shell = p.string("shell");
    d.shell_node = p.integer("shell_node");
    d.edge_slots = static_cast<soma::Index>(p.integer("edge_slots"));
    d.symmetric_jacobian = p.boolean("symmetric_jacobian");
    return std::make_unique<RodShellJoint>(std::move(d), soma::scene_errors(p));
}

}  // namespace

SOMA_PLUGIN("discrete_rod") {
    registry.add_element(discrete_rod_schema(), make_discrete_rod);
    registry.add_element(rod_joint_schema(), make_rod_joint);
    registry.add_element(rod_shell_joint_schema(), make_rod_shell_joint);
}
