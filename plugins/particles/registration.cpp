// Registers `point_mass`.
#include "point_mass.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

using namespace soma;

SOMA_PLUGIN("particles") {
    ParameterSchema schema("point_mass",
                           "A point mass (payload, bead): three position DOFs, lumped mass, no internal energy. Join "
                           "it to rods or shells with `shared_nodes` (its only node is node 0).");
    schema.vec3("position", "initial position").unit("m").require();
    schema.real("mass", "mass").unit("kg").require().positive();
    schema.vec3("initial_velocity", "initial velocity").unit("m/s").fallback(Vec3(0, 0, 0));
    schema.real("radius", "contact radius (floor contact)").unit("m").fallback(0.0).non_negative();
    registry.add_element(std::move(schema), [](const Parameters& p) {
        particles::PointMassDescription d;
        d.position = p.vec3("position");
        d.mass = p.real("mass");
        d.velocity = p.vec3("initial_velocity");
        d.radius = p.real("radius");
        return std::make_unique<particles::PointMass>(d, scene_errors(p));
    });
}
