// The imc_contact plugin's entry point: the parameter schema of the `imc_contact` force and the
// translation of its validated parameters into ImcContactSettings.
#include "imc_contact.hpp"

#include "soma/registry.hpp"

#include <memory>

namespace {

using namespace soma;
using namespace soma::imc_contact;

ParameterSchema imc_contact_schema() {
    const ImcContactSettings defaults;
    ParameterSchema schema(
        "imc_contact",
        "Implicit contact (IMC, MAT-DiSMech §4, eq. 21-22) between rods, rod networks, shells and rigid bodies' "
        "shapes, self-contact included: pairs of edges (the paper's), node-triangle pairs (shells against shells "
        "and rods), and a rigid sphere's centre against edges, triangles and other spheres. Energy per pair "
        "k ((1/K1) log(1 + exp(-K1 gap)))^2, K1 = 15/band, gap = distance between the primitives - (h_i + h_j), "
        "h the contact thickness (rod radius, half the shell thickness, sphere or capsule radius, 0 for a rigid "
        "box, cylinder or mesh surface). Primitives that share a node or have neighbouring nodes never touch; a "
        "rigid body never touches itself. Smoothed Coulomb friction (eq. 23-24): -mu gamma(|v_t|) f_n v_t/|v_t| "
        "at the contact points, gamma(w) = tanh(7.5 w/slip_velocity).");
    schema.real("stiffness",
                "penalty stiffness k: the contact force at gap 0 is k ln2 band/15 and grows to about "
                "2 k |gap| in deep penetration. The paper's energy-valued k_c (coordinates scaled by the rod "
                "radius r0) is k r0^2")
        .unit("N/m")
        .require()
        .positive();
    schema.real("band",
                "contact band delta: the force acts for gap < band; default: 0.3125 x the thinnest contact "
                "thickness of a rod, shell or sphere (the paper's code default); required when only rigid meshes "
                "(thickness 0) are in contact")
        .unit("m")
        .positive();
    schema.real("margin",
                "candidate margin: pairs closer than h_i + h_j + margin at the start of a step are evaluated "
                "during it; a step in which another pair may have come within the band (its primitives "
                "moved more than its gap at the start less the band) is retried at a smaller dt. Default: "
                "2 max(h_max, band), h_max the largest contact thickness")
        .unit("m")
        .positive();
    schema.string_list("elements",
                       "names of the elements in contact, every pair of them touching; empty: every element with "
                       "edges, triangles or a contact radius")
        .fallback(std::vector<std::string>{});
    ParameterSchema pair("pair", "two elements that touch each other");
    pair.string_list("between", "the two element names; the same name twice: that element's self-contact")
        .require()
        .exact_size(2);
    schema.map_list("pairs",
                    "only these pairs of elements touch (instead of `elements`); self_contact is then not used: "
                    "list an element twice for its self-contact",
                    std::move(pair));
    schema.boolean("self_contact", "also pairs within one element (a knot, a shell folding onto itself); without `pairs`")
        .fallback(defaults.self_contact);
    schema.real("friction", "Coulomb friction coefficient mu; 0: frictionless")
        .fallback(defaults.friction)
        .non_negative()
        .max_value(100.0);
    schema.real("slip_velocity",
                "friction smoothing velocity v_tol: below it friction is a stiff viscous law (creep at "
                "about 0.07 v_tol under half the friction limit), above it Coulomb sliding")
        .unit("m/s")
        .fallback(defaults.slip_velocity)
        .positive();
    return schema;
}

}  // namespace

SOMA_PLUGIN("imc_contact") {
    registry.add_force(imc_contact_schema(), [](const Parameters& p) -> std::unique_ptr<Force> {
        ImcContactSettings s;
        s.stiffness = p.real("stiffness");
        if (p.has("band")) s.band = p.real("band");
        if (p.has("margin")) s.margin = p.real("margin");
        s.elements = p.string_list("elements");
        for (const Parameters& pair : p.blocks("pairs")) {
            const std::vector<std::string> names = pair.string_list("between");
            s.pairs.emplace_back(names[0], names[1]);
        }
        s.self_contact = p.boolean("self_contact");
        s.friction = p.real("friction");
        s.slip_velocity = p.real("slip_velocity");
        return std::make_unique<ImcContact>(std::move(s), scene_errors(p));
    });
}
