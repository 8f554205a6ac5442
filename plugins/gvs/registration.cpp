// Registers `gvs`: a hybrid soft-rigid robot of GVS Cosserat rods, rigid links and rigid joints.
#include "field_expression.hpp"
#include "gvs_element.hpp"
#include "loop_joint_constraint.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <map>

using namespace soma;
using namespace soma::gvs;

namespace {

const std::vector<std::string> kJointTypes{"fixed",       "revolute", "prismatic", "helical",
                                           "cylindrical", "planar",   "spherical", "free"};
const std::vector<std::string> kFamilies{"legendre", "monomial", "chebyshev", "piecewise_linear", "custom"};

ParameterSchema joint_schema() {
    ParameterSchema s("joint", "the rigid joint from the joint frame to the link frame, xi = Phi q (Mathew et al., "
                               "section 5): its coordinates are DOFs of the element");
    s.string("type", "fixed (no coordinates), revolute [a; 0], prismatic [0; a], helical [a; pitch a], cylindrical "
                     "(rotation about and translation along a), planar (rotation about the normal a, translation in "
                     "the plane), spherical (rotation vector, 3), free (exponential coordinates of SE(3), 6)")
        .one_of_strings(kJointTypes)
        .require();
    s.vec3("axis", "the joint's axis (revolute, prismatic, helical, cylindrical) or the plane's normal (planar), in "
                   "the joint frame; normalised")
        .fallback(Vec3(0, 0, 1));
    s.real("pitch", "helical: translation along the axis per radian").unit("m/rad").fallback(0.0);
    s.real_list("initial", "initial joint coordinates (rad for rotations, m for translations); default 0");
    return s;
}

ParameterSchema rigid_schema() {
    ParameterSchema s("rigid", "a rigid link: its mass properties in the link frame and its end frame");
    s.real("mass", "mass (0: a massless connector)").unit("kg").non_negative().require();
    s.real_list("inertia", "rotational inertia about the centre of mass in link axes: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]")
        .unit("kg m^2")
        .exact_size(6)
        .fallback(std::vector<double>{0, 0, 0, 0, 0, 0});
    s.vec3("center_of_mass", "centre of mass in the link frame").unit("m").fallback(Vec3(0, 0, 0));
    s.vec3("end_position", "origin of the link's end frame (where children attach) in the link frame")
        .unit("m")
        .fallback(Vec3(0, 0, 0));
    s.real_list("end_orientation", "the end frame's orientation in the link frame, a unit quaternion [w, x, y, z]")
        .exact_size(4)
        .fallback(std::vector<double>{1, 0, 0, 0});
    ParameterSchema fluid("fluid", "the link is immersed in the element's fluid (Mathew et al., section 6.3): drag-lift "
                                   "wrench -D |v| eta at the link frame's origin (eta = [omega; v] in the link frame, "
                                   "eq. 62), added mass, and buoyancy rho_w V g at the centre of mass (a link of "
                                   "mass 0 may float)");
    fluid.real_list("drag", "diag D: [rotations x, y, z (N m s^2), translations x, y, z (N s^2/m^2 = kg/m)]")
        .exact_size(6)
        .require();
    fluid.real_list("added_mass", "diag of the added mass: [rotations (kg m^2), translations (kg)]")
        .exact_size(6)
        .fallback(std::vector<double>{0, 0, 0, 0, 0, 0});
    fluid.real("volume", "volume displaced (buoyancy)").unit("m^3").non_negative().require();
    s.map("fluid", "immersion in the element's fluid (needs fluid_density)", std::move(fluid));
    return s;
}

ParameterSchema section_circular() {
    ParameterSchema s("circular", "a circle; J_x = J_y + J_z = pi r^4 / 2");
    s.string("radius", "r(X): a number or an expression of X (m from the rod's base) and L").unit("m").require();
    return s;
}

ParameterSchema section_rectangular() {
    ParameterSchema s("rectangular", "a rectangle, width along the section's y axis, height along z; torsion by "
                                     "Saint-Venant's series");
    s.string("width", "w(X): a number or an expression of X and L").unit("m").require();
    s.string("height", "h(X): a number or an expression of X and L").unit("m").require();
    return s;
}

ParameterSchema strains_schema() {
    ParameterSchema s("strains", "the active strain components and the order of each (absent: frozen at the "
                                 "reference strain). Polynomial families: order k gives k + 1 coordinates; "
                                 "piecewise_linear: k elements give k + 1; custom: as many as its functions");
    for (int c = 0; c < kStrainComponents; ++c)
        s.integer(std::string(strain_component_name(c)), "order of this component").min_value(0);
    return s;
}

ParameterSchema custom_schema() {
    ParameterSchema s("custom_functions", "the basis functions of each active component for family custom: "
                                          "expressions of X (m) and L, as many as the component's order + 1");
    for (int c = 0; c < kStrainComponents; ++c)
        s.string_list(std::string(strain_component_name(c)), "functions of this component");
    return s;
}

ParameterSchema cable_schema() {
    ParameterSchema s("cable", "a cable routed through the rod at (y(X), z(X)) in the cross-section frame, fixed "
                               "at the rod's tip; pulled with a tension T >= 0 it bends the rod towards itself "
                               "(Mathew et al., eqs. D60-D63)");
    s.string("y", "y(X): an expression of X and L").unit("m").require();
    s.string("z", "z(X): an expression of X and L").unit("m").require();
    s.real("tension", "initial tension (an `actuation` controller drives channel cable_tension)")
        .unit("N")
        .non_negative()
        .fallback(0.0);
    return s;
}

ParameterSchema soft_schema() {
    ParameterSchema s("soft", "a soft link: a Cosserat rod along the link frame's x axis in the Geometric Variable "
                              "Strain model, xi(X) = Phi(X) q + xi*(X) (Mathew et al., eq. 1)");
    s.real("length", "L").unit("m").positive().require();
    s.one_of("section", "the cross-section, possibly tapered", {section_circular(), section_rectangular()});
    s.real("young_modulus", "E").unit("Pa").positive().require();
    s.real("poisson_ratio", "nu: G = E / (2 (1 + nu))").range(-1.0, 0.5).fallback(0.5);
    s.real("density", "rho").unit("kg/m^3").positive().require();
    s.real("damping", "material damping v: Upsilon = v diag(J_x, 3 J_y, 3 J_z, 3 A, A, A) (Mathew et al., D65)")
        .unit("Pa s")
        .non_negative()
        .fallback(0.0);
    s.string("basis", "the family of every active component").one_of_strings(kFamilies).fallback(std::string("legendre"));
    s.map("strains", "the active strain components and their orders", strains_schema()).require();
    s.map("custom_functions", "basis functions for family custom", custom_schema());
    s.string_list("reference_strain", "xi*(X): six expressions of X and L, [k_x, k_y, k_z, v_x, v_y, v_z] (1/m and "
                                      "dimensionless): the rod's stress-free shape; default straight")
        .exact_size(6)
        .fallback(std::vector<std::string>{"0", "0", "0", "1", "0", "0"});
    s.integer("gauss_points", "Gauss points of the quadrature (eq. 3); the rod has gauss_points + 2 points")
        .range(1, kMaxGaussPoints)
        .fallback(5L);
    s.integer("magnus_order", "order of the Magnus expansion between points: 4 (Zanna collocation) or 2")
        .range(2, 4)
        .fallback(4L);
    s.map_list("cables", "cables routed through the rod", cable_schema());
    ParameterSchema fluid("fluid", "the rod is immersed in the element's fluid (Mathew et al., section 6.3, with "
                                   "Morison's slender-body coefficients: the paper gives none): per unit length, drag "
                                   "1/2 rho_w (2 r) [pi C_t, C_d, C_d] |v| v on the section's velocity (x along the "
                                   "rod), added mass C_a rho_w pi r^2 across the rod, buoyancy rho_w / rho of the "
                                   "weight");
    fluid.real("drag_coefficient", "C_d, cross-flow").non_negative().fallback(1.2);
    fluid.real("tangential_drag_coefficient", "C_t, along the rod").non_negative().fallback(0.0);
    fluid.real("added_mass_coefficient", "C_a (1 for a circular cylinder)").non_negative().fallback(1.0);
    s.map("fluid", "immersion in the element's fluid (needs fluid_density)", std::move(fluid));
    return s;
}

ParameterSchema link_schema() {
    ParameterSchema s("link", "a link: a joint from its parent's end frame, then a rigid or a soft body");
    s.string("name", "name of the link (for `parent`, `wall` and messages)").require();
    s.string("parent", "`base` or the name of an earlier link, whose end frame the joint hangs from; default: the "
                       "previous link (the base for the first)");
    s.vec3("offset_position", "origin of the joint frame in the parent's end frame").unit("m").fallback(Vec3(0, 0, 0));
    s.real_list("offset_orientation", "the joint frame's orientation in the parent's end frame, a unit quaternion "
                                      "[w, x, y, z]")
        .exact_size(4)
        .fallback(std::vector<double>{1, 0, 0, 0});
    s.map("joint", "the joint (default fixed)", joint_schema());
    s.map("rigid", "a rigid body (exclusive with soft)", rigid_schema());
    s.map("soft", "a soft rod (exclusive with rigid)", soft_schema());
    return s;
}

ParameterSchema wall_schema() {
    ParameterSchema s("wall", "Hertz contact of the soft links' points, spheres of the section's radius (a "
                              "rectangle's: the radius of the circle of its area), with the "
                              "inside of a cylinder about the world z axis: f = k_c delta^p towards the axis for an "
                              "overlap delta (Mathew et al., section 6.2, eq. 57)");
    s.real("radius", "r_cyl").unit("m").positive().require();
    s.real("stiffness", "k_c").unit("N/m^p").positive().require();
    s.real("exponent", "p (>= 1; 1.5 for Hertz)").min_value(1.0).fallback(1.5);
    s.string_list("links", "the soft links that touch the wall").non_empty().require();
    return s;
}

ParameterSchema gvs_schema() {
    ParameterSchema s(
        "gvs",
        "A hybrid soft-rigid robot in the Geometric Variable Strain model (Mathew, Boyer, Lebastard, Renda, "
        "'Analytical Derivatives for Efficient Mechanical Simulations of Hybrid Soft Rigid Robots'): a tree "
        "of links, each a rigid joint from its parent's end frame followed by a rigid body or a soft Cosserat rod "
        "whose strain is a combination of basis functions. DOFs: the joints' coordinates and the rods' strain "
        "coordinates, link by link (group `coordinates`). The residual is the recursive inverse dynamics plus the "
        "rods' elasticity and damping minus the actuation, with its exact Jacobian (eqs. 23, 29, 34, 35). "
        "Actuation channels: cable_tension (one item per cable, N) and joint_force (one item per joint "
        "coordinate); joint coordinates are prescribed or fixed by the `coordinates` key of `prescribed` and "
        "`fixed` (`soma inspect` lists what each coordinate is). Points (output): the base, every offset, joint and "
        "end frame, and every rod point (Gauss points and tip); frames (for clamp): base, <link>, <link>.end. The "
        "scene's point_load, floor_contact, viscous_drag, ball_joint and clamp act on them with exact Jacobians; its "
        "gravity is its own `gravity` key (exact for offset centres of mass: the scene's gravity force skips it), "
        "imc_contact cannot reach it yet; its own loads are `wrenches`, `wall` and `fluid`. Closed chains: the "
        "constraint `gvs_loop_joint`.");
    s.vec3("base_position", "origin of the base frame (world)").unit("m").fallback(Vec3(0, 0, 0));
    s.real_list("base_orientation", "orientation of the base frame (world), a unit quaternion [w, x, y, z]")
        .exact_size(4)
        .fallback(std::vector<double>{1, 0, 0, 0});
    s.vec3("gravity", "gravitational acceleration acting on the robot (world)").unit("m/s^2").require();
    s.map_list("links", "the links, parents before children", link_schema()).non_empty().require();
    s.map("wall", "contact with a cylinder wall", wall_schema());
    ParameterSchema wrench("wrench", "a wrench given in world axes at a link's frame or end frame (Mathew et al., "
                                     "section 6.1, eq. 53), functions of time");
    wrench.string("link", "the link it acts on").require();
    wrench.string("at", "where: end (the link's end frame; a rod's tip) or frame (the link frame; a rod's base)")
        .one_of_strings({"end", "frame"})
        .fallback(std::string("end"));
    wrench.string_list("force", "three expressions of t (N, world x, y, z)")
        .exact_size(3)
        .fallback(std::vector<std::string>{"0", "0", "0"});
    wrench.string_list("moment", "three expressions of t (N m, world x, y, z)")
        .exact_size(3)
        .fallback(std::vector<std::string>{"0", "0", "0"});
    s.map_list("wrenches", "world-frame wrenches on links (they scale with the statics load factor)", std::move(wrench));
    s.real("fluid_density", "rho_w of the fluid the links with a `fluid` block are immersed in").unit("kg/m^3").non_negative().fallback(0.0);
    return s;
}

Pose pose_from(const Parameters& p, const std::string& position, const std::string& orientation) {
    const auto q = p.real_list(orientation);
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    // A quaternion typed by hand is unit to the digits written; 1e-6 catches a wrong entry.
    if (!(std::abs(norm - 1.0) <= 1e-6))
        p.fail(orientation, "must be a unit quaternion [w, x, y, z]: its norm is " + std::to_string(norm));
    Pose pose;
    pose.R = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
    pose.p = p.vec3(position);
    return pose;
}

ScalarField field(const Parameters& p, const std::string& key, double length) {
    try {
        return parse_field(p.string(key), length);
    } catch (const std::invalid_argument& e) {
        p.fail(key, e.what());
    }
}

SoftLinkBody soft_body(const Parameters& p) {
    const double L = p.real("length");
    const std::string family_text = p.string("basis");
    const auto family = static_cast<BasisFamily>(
        std::find(kFamilies.begin(), kFamilies.end(), family_text) - kFamilies.begin());
    StrainModeSelection modes;
    const Parameters strains = p.block("strains");
    for (int c = 0; c < kStrainComponents; ++c) {
        const std::string key(strain_component_name(c));
        if (strains.has(key)) modes.order[static_cast<std::size_t>(c)] = static_cast<int>(strains.integer(key));
    }
    if (*std::max_element(modes.order.begin(), modes.order.end()) < 0)
        p.fail("strains", "a soft link needs at least one active strain component (torsion, bending_y, bending_z, "
                          "elongation, shear_y, shear_z) with its order");
    CustomBasisFunctions custom;
    if (p.has("custom_functions")) {
        if (family != BasisFamily::custom) p.fail("custom_functions", "is read only with basis: custom");
        const Parameters functions = p.block("custom_functions");
        for (int c = 0; c < kStrainComponents; ++c) {
            const std::string key(strain_component_name(c));
            if (!functions.has(key)) continue;
            for (const std::string& text : functions.string_list(key)) {
                try {
                    custom[static_cast<std::size_t>(c)].push_back(parse_field(text, L));
                } catch (const std::invalid_argument& e) {
                    functions.fail(key, e.what());
                }
            }
        }
    }
    std::optional<StrainBasis> basis;
    try {
        basis.emplace(family, modes, L, custom);
    } catch (const std::invalid_argument& e) {
        p.fail(family == BasisFamily::custom && p.has("custom_functions") ? "custom_functions" : "strains", e.what());
    }

    SectionProfile section;
    if (!p.has("section")) p.fail("section", "a soft link needs its cross-section: circular or rectangular");
    const Parameters shape = p.choice_block("section");
    if (p.choice("section") == "circular")
        section = CircularProfile{field(shape, "radius", L)};
    else
        section = RectangularProfile{field(shape, "width", L), field(shape, "height", L)};

    std::array<ScalarField, 6> reference;
    const auto reference_text = p.string_list("reference_strain");
    for (std::size_t c = 0; c < 6; ++c) {
        try {
            reference[c] = parse_field(reference_text[c], L);
        } catch (const std::invalid_argument& e) {
            p.fail("reference_strain", "component " + std::to_string(c) + ": " + e.what());
        }
    }

    SoftLinkBody body{RodDescription{std::move(*basis), std::move(section),
                                     RodMaterial{p.real("young_modulus"), p.real("poisson_ratio"), p.real("density"),
                                                 p.real("damping")},
                                     static_cast<int>(p.integer("gauss_points")),
                                     p.integer("magnus_order") == 2 ? MagnusOrder::second : MagnusOrder::fourth,
                                     [reference](double X) {
                                         Vec6 xi;
                                         for (int c = 0; c < 6; ++c) xi[c] = reference[static_cast<std::size_t>(c)](X);
                                         return xi;
                                     }},
                      {}};
    if (p.integer("magnus_order") == 3) p.fail("magnus_order", "must be 4 (Zanna collocation) or 2 (midpoint)");
    for (const Parameters& cable : p.blocks("cables")) {
        ScalarField y = field(cable, "y", L), z = field(cable, "z", L);
        body.cables.push_back(CableRoute{y, z, derivative_of(y, L), derivative_of(z, L)});
    }
    return body;
}

std::unique_ptr<Element> make_gvs(const Parameters& p) {
    GvsElementDescription d;
    d.robot.base = pose_from(p, "base_position", "base_orientation");
    d.gravity = p.vec3("gravity");
    const std::vector<Parameters> link_blocks = p.blocks("links");
    std::map<std::string, Index> index_of;
    std::vector<double> tensions;
    for (std::size_t i = 0; i < link_blocks.size(); ++i) {
        const Parameters& b = link_blocks[i];
        LinkDescription link;
        link.name = b.string("name");
        if (link.name == "base") b.fail("name", "`base` names the robot's base frame: choose another name");
        if (index_of.count(link.name)) b.fail("name", "two links are named '" + link.name + "'");
        link.parent = static_cast<Index>(i) - 1;
        if (b.has("parent")) {
            const std::string parent = b.string("parent");
            if (parent == "base")
                link.parent = -1;
            else if (const auto it = index_of.find(parent); it != index_of.end())
                link.parent = it->second;
            else
                b.fail("parent", "no earlier link is named '" + parent + "' (links are listed parents first)");
        }
        link.offset = pose_from(b, "offset_position", "offset_orientation");
        if (b.has("joint")) {
            const Parameters j = b.block("joint");
            const std::string type = j.string("type");
            link.joint.type = static_cast<JointType>(std::find(kJointTypes.begin(), kJointTypes.end(), type) -
                                                     kJointTypes.begin());
            link.joint.axis = j.vec3("axis");
            link.joint.pitch = j.real("pitch");
            if (j.has("initial")) {
                const auto initial = j.real_list("initial");
                link.initial_joint = Eigen::Map<const VectorX>(initial.data(), static_cast<Index>(initial.size()));
            }
            try {
                const Matrix6X phi = joint_basis(link.joint);
                if (link.initial_joint.size() != 0 && link.initial_joint.size() != phi.cols())
                    j.fail("initial", "a " + type + " joint has " + std::to_string(phi.cols()) + " coordinates, " +
                                          std::to_string(link.initial_joint.size()) + " values are given");
            } catch (const std::invalid_argument& e) {
                j.fail("axis", e.what());
            }
        }
        if (b.has("rigid") == b.has("soft"))
            b.fail(b.has("rigid") ? "soft" : "rigid", "a link is either rigid or soft: give exactly one of the two");
        if (b.has("rigid")) {
            const Parameters r = b.block("rigid");
            RigidLinkBody body;
            body.mass = r.real("mass");
            const auto I = r.real_list("inertia");
            body.inertia << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
            body.center_of_mass = r.vec3("center_of_mass");
            body.end = pose_from(r, "end_position", "end_orientation");
            if (r.has("fluid")) {
                const Parameters f = r.block("fluid");
                const auto drag = f.real_list("drag"), added = f.real_list("added_mass");
                RigidLinkFluid fluid;
                fluid.drag = Eigen::Map<const Vec6>(drag.data());
                fluid.added_mass = Eigen::Map<const Vec6>(added.data());
                fluid.volume = f.real("volume");
                if (!(fluid.drag.minCoeff() >= 0.0)) f.fail("drag", "every coefficient must be >= 0");
                if (!(fluid.added_mass.minCoeff() >= 0.0)) f.fail("added_mass", "every entry must be >= 0");
                if (!(p.real("fluid_density") > 0.0))
                    p.fail("fluid_density", "link '" + link.name + "' is immersed (its `fluid`): set the fluid's density");
                body.fluid = fluid;
            }
            link.body = body;
        } else {
            const Parameters s = b.block("soft");
            link.body = soft_body(s);
            if (s.has("fluid")) {
                const Parameters f = s.block("fluid");
                if (!(p.real("fluid_density") > 0.0))
                    p.fail("fluid_density", "link '" + link.name + "' is immersed (its `fluid`): set the fluid's density");
                std::get<SoftLinkBody>(link.body).fluid = SoftLinkFluid{
                    f.real("drag_coefficient"), f.real("tangential_drag_coefficient"), f.real("added_mass_coefficient")};
            }
            for (const Parameters& cable : s.blocks("cables")) tensions.push_back(cable.real("tension"));
        }
        index_of[link.name] = static_cast<Index>(i);
        d.robot.links.push_back(std::move(link));
    }
    d.initial_tension = Eigen::Map<const VectorX>(tensions.data(), static_cast<Index>(tensions.size()));
    d.fluid_density = p.real("fluid_density");
    for (const Parameters& w : p.blocks("wrenches")) {
        WorldWrenchLoad load;
        const std::string name = w.string("link");
        const auto it = index_of.find(name);
        if (it == index_of.end()) w.fail("link", "no link is named '" + name + "'");
        load.link = it->second;
        load.at_end = w.string("at") == "end";
        const auto moment = w.string_list("moment"), force = w.string_list("force");
        for (std::size_t c = 0; c < 6; ++c) {
            const std::string& text = c < 3 ? moment[c] : force[c - 3];
            const std::string key = c < 3 ? "moment" : "force";
            try {
                // A value that is not finite during the run stops it at this key (the run ends
                // with its diagnosis and keeps its outputs), instead of a NaN residual.
                load.wrench[c] = [value = parse_time_function(text), where = w.location(key), text,
                                  component = c % 3](double t) {
                    const double v = value(t);
                    if (!std::isfinite(v))
                        throw InputError(where, "component " + std::to_string(component) + " ('" + text +
                                                    "') is not finite at t = " + std::to_string(t) + " s");
                    return v;
                };
            } catch (const std::invalid_argument& e) {
                w.fail(key, e.what());
            }
        }
        d.wrenches.push_back(std::move(load));
    }
    if (p.has("wall")) {
        const Parameters w = p.block("wall");
        d.wall = CylinderWall{w.real("radius"), w.real("stiffness"), w.real("exponent")};
        for (const std::string& name : w.string_list("links")) {
            const auto it = index_of.find(name);
            if (it != index_of.end() &&
                std::find(d.wall_links.begin(), d.wall_links.end(), it->second) != d.wall_links.end())
                w.fail("links", "link '" + name + "' is listed twice");
            if (it == index_of.end()) w.fail("links", "no link is named '" + name + "'");
            if (!std::holds_alternative<SoftLinkBody>(d.robot.links[static_cast<std::size_t>(it->second)].body))
                w.fail("links", "link '" + name + "' is rigid: only soft links touch the wall");
            d.wall_links.push_back(it->second);
        }
    }
    try {
        return std::make_unique<GvsElement>(std::move(d));
    } catch (const std::invalid_argument& e) {
        // "link 'name': ..." points at that link's body; anything else at the links.
        const std::string what = e.what();
        for (std::size_t i = 0; i < link_blocks.size(); ++i) {
            const std::string prefix = "link '" + link_blocks[i].string("name") + "': ";
            if (what.rfind(prefix, 0) == 0)
                link_blocks[i].fail(link_blocks[i].has("soft") ? "soft" : "rigid", what.substr(prefix.size()));
        }
        p.fail(p.has("wall") ? "wall" : "links", what);
    }
}

ParameterSchema loop_end_schema(const std::string& name, const std::string& doc) {
    ParameterSchema s(name, doc);
    s.string("link", "a link of the element, or `base` (the robot's base frame, fixed)").require();
    s.string("at", "the link's frame (for a rod: its base) or its end frame (a rod's tip)")
        .one_of_strings({"frame", "end"})
        .fallback(std::string("frame"));
    s.vec3("offset_position", "origin of the joint's frame in that frame").unit("m").fallback(Vec3(0, 0, 0));
    s.real_list("offset_orientation", "the joint frame's orientation in that frame, a unit quaternion [w, x, y, z]")
        .exact_size(4)
        .fallback(std::vector<double>{1, 0, 0, 0});
    return s;
}

constexpr const char* kLoopJointRows =
    "rows e = Phi_perp^T log(g_BA), position Jacobian de/dq, force Jacobian A and the constraint's curvature "
    "d(A^T lambda)/dq, all exact, solved with Lagrange multipliers (Mathew et al., section 5.2, the index-3 form of "
    "eq. 52). The frames must coincide in the initial configuration (but for the free directions), and the relative "
    "rotation must stay below half a turn (log(g_BA) changes branch at pi). Integrators: those that treat equality "
    "constraints (all built-in ones: statics, implicit_euler, implicit_midpoint, newmark, bdf2; the midpoint rule "
    "holds the rows at the "
    "step's midpoint, so they drift slightly at its end).";

/// The keys of one loop joint, shared by `gvs_loop_joint` and the items of `gvs_loop_joints`.
void add_loop_joint_keys(ParameterSchema& s) {
    s.string("joint", "weld, revolute or spherical").one_of_strings({"weld", "revolute", "spherical"}).require();
    s.vec3("axis", "revolute: the free rotation's axis in frame b").fallback(Vec3(0, 0, 1));
    s.boolean("planar", "the robot moves in frame b's xy-plane (rods bending about z only, joints about z): hold only "
                        "the joint's in-plane directions (weld: x, y and the rotation about z; revolute about z and "
                        "spherical: x, y), since no coordinate moves the others")
        .fallback(false);
    s.map("a", "frame a", loop_end_schema("a", "frame a: where on the robot")).require();
    s.map("b", "frame b (the constrained directions are in this frame)", loop_end_schema("b", "frame b: where on the robot"))
        .require();
}

ParameterSchema loop_joint_schema() {
    ParameterSchema s("gvs_loop_joint",
                      std::string("A closed chain of a gvs robot: frames a and b, fixed to two links, joined by a weld "
                                  "(6 rows), a revolute joint (5: all but the rotation about `axis`) or a spherical "
                                  "joint (3: the translations), or their in-plane rows (`planar`): ") +
                          kLoopJointRows +
                          " A robot with several loops is faster with one `gvs_loop_joints` block (one derivative "
                          "pass for all of them).");
    s.string("element", "the gvs element").require();
    add_loop_joint_keys(s);
    return s;
}

ParameterSchema loop_joints_schema() {
    ParameterSchema s("gvs_loop_joints",
                      std::string("Several closed chains of one gvs robot (each item as a `gvs_loop_joint`), whose "
                                  "curvature comes from one derivative pass of the robot's tree for all of them "
                                  "instead of one pass per loop: ") +
                          kLoopJointRows);
    s.string("element", "the gvs element").require();
    ParameterSchema joint("joint", "a loop joint: frames a and b and what the joint holds");
    add_loop_joint_keys(joint);
    s.map_list("joints", "the loop joints", std::move(joint)).non_empty().require();
    return s;
}

LoopJointEnd loop_end(const Parameters& p) {
    return LoopJointEnd{p.string("link"), p.string("at") == "end", pose_from(p, "offset_position", "offset_orientation")};
}

LoopJointSettings loop_joint_settings(const Parameters& p) {
    LoopJointSettings s;
    s.joint = p.string("joint");
    s.axis = p.vec3("axis");
    s.planar = p.boolean("planar");
    if (p.has("axis") && s.joint != "revolute")
        p.fail("axis", "only a revolute loop joint has an axis (this one is a " + s.joint + ")");
    s.a = loop_end(p.block("a"));
    s.b = loop_end(p.block("b"));
    s.parameters = p;
    return s;
}

}  // namespace

SOMA_PLUGIN("gvs") {
    registry.add_element(gvs_schema(), make_gvs);
    registry.add_constraint(loop_joint_schema(), [](const Parameters& p) -> std::unique_ptr<Constraint> {
        return std::make_unique<LoopJointConstraint>(p.string("element"), std::vector{loop_joint_settings(p)}, p);
    });
    registry.add_constraint(loop_joints_schema(), [](const Parameters& p) -> std::unique_ptr<Constraint> {
        std::vector<LoopJointSettings> joints;
        for (const Parameters& joint : p.blocks("joints")) joints.push_back(loop_joint_settings(joint));
        return std::make_unique<LoopJointConstraint>(p.string("element"), std::move(joints), p);
    });
}
