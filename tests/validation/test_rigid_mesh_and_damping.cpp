// Validation: rigid bodies with mesh shapes and rigid_damping, through whole scenes.
//
//  - A closed OBJ cube with a density has the cube's mass and rests on the floor on a face, its
//    centre at half its edge (within the contact band).
//  - rigid_damping on a free body (no gravity, centre of mass at the body origin): implicit Euler
//    gives v_{n+1} = v_n - h c_t/m v_{n+1}, so v_n = v_0 (1 + h c_t/m)^-n exactly, and for a spin
//    about a principal axis omega_n = omega_0 (1 + h c_r/I)^-n (omega x J omega vanishes).
//  - Located errors: an unreadable mesh file, an open mesh with a density, rigid_damping on an
//    element that is not a rigid body.
#include "scene_runner.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace soma;
using namespace soma::validation;

namespace {

/// Writes \p text to a file in the temporary folder and returns its path.
std::string temporary_file(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / name;
    std::ofstream(path) << text;
    return path.string();
}

/// A cube of edge `edge` centred on the origin, quads counter-clockwise from outside.
std::string cube_obj(double edge, bool with_top = true) {
    std::ostringstream s;
    const double h = 0.5 * edge;
    for (int k = 0; k < 8; ++k)
        s << "v " << ((k & 1) ? h : -h) << " " << ((k & 2) ? h : -h) << " " << ((k & 4) ? h : -h) << "\n";
    // Vertex k + 1: bit 0 -> x, bit 1 -> y, bit 2 -> z.
    s << "f 1 3 4 2\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
    if (with_top) s << "f 5 6 8 7\n";
    return s.str();
}

std::string integrator_block() {
    return "integrator: {type: implicit_euler, dt: 1.0e-3, newton: {absolute_tolerance: 1.0e-11, relative_tolerance: 0}, "
           "adaptive: {enabled: false}}\n";
}

}  // namespace

TEST_CASE("rigid body: a closed OBJ cube has the cube's mass and rests on a face", "[validation][rigid_body][mesh]") {
    const std::string path = temporary_file("soma_validation_cube.obj", cube_obj(100.0));
    auto sim = build_scene("simulation: {duration: 0.5}\n" + integrator_block() +
                           "elements:\n"
                           "  - name: body\n"
                           "    type: rigid_body\n"
                           "    position: [0, 0, 0.06]\n"
                           "    shape: {mesh: {path: " + path + ", scale: 0.001}}\n"  // a 100 mm file: 0.1 m
                           "    density: 1000\n"
                           "forces:\n"
                           "  - {type: gravity}\n"
                           "  - {type: floor_contact, height: 0, stiffness: 1.0e5, band: 1.0e-3, friction: 0.5, "
                           "slip_velocity: 1.0e-4}\n");
    const Element* body = sim->find_element("body");
    REQUIRE(body != nullptr);
    // 0.1^3 m^3 at 1000 kg/m^3; the polyhedral integrals are exact up to round-off.
    CHECK(body->geometry().point_mass[1] == Approx(1.0).epsilon(1e-12));
    // Points: origin, centre of mass, then the 8 vertices.
    CHECK(body->geometry().point_dofs.size() == 10);
    CHECK(body->geometry().triangles.size() == 12);
    run_to_end(*sim);
    // The centre sits at the half edge, inside the 1 mm penalty band (a 1 kg cube sinks
    // m g / (4 corners' stiffness) ~ 0.1 mm at most into it).
    CHECK(std::abs(node_position(*sim, "body", 1).z() - 0.05) < 1e-3);
    CHECK(node_velocity(*sim, "body", 1).norm() < 1e-3);
}

TEST_CASE("rigid body: rigid_damping decays speed and spin at the implicit-Euler rates", "[validation][rigid_body]") {
    const double m = 2.0, I = 0.05, c_t = 0.6, c_r = 0.02, h = 1e-3;
    auto sim = build_scene("simulation: {duration: 0.2}\n" + integrator_block() +
                           "elements:\n"
                           "  - name: body\n"
                           "    type: rigid_body\n"
                           "    position: [0, 0, 0]\n"
                           "    velocity: [1.0, -0.5, 0.25]\n"
                           "    angular_velocity: [0, 0, 3.0]\n"
                           "    mass: 2.0\n"
                           "    inertia: [0.04, 0.045, 0.05, 0, 0, 0]\n"
                           "forces:\n"
                           "  - {type: rigid_damping, linear_damping: 0.6, angular_damping: 0.02}\n");
    const Element& body = *sim->find_element("body");
    const int steps = 200;
    for (int n = 0; n < steps; ++n) REQUIRE(step_once(*sim, h));
    // The centre of mass is the body origin, so v_c = p' is a DOF and the discrete decay is exact;
    // the spin is about a principal axis. (The map's dependence on the configuration is covered
    // by the finite-difference test of plugins/rigid_body/tests/test_rigid_damping.cpp.)
    const double omega = sim->state().v[body.global_dof(5)];
    // Newton converges to 1e-11: the discrete solution is reproduced to ~1e-9 relative.
    CHECK(omega == Approx(3.0 * std::pow(1.0 + h * c_r / I, -steps)).epsilon(1e-9));
    CHECK(std::abs(sim->state().v[body.global_dof(3)]) < 1e-12);
    const Vec3 expected = Vec3(1.0, -0.5, 0.25) * std::pow(1.0 + h * c_t / m, -steps);
    CHECK((node_velocity(*sim, "body", 1) - expected).norm() < 1e-9 * expected.norm());
}

TEST_CASE("rigid body: mesh and rigid_damping errors point at the input", "[validation][rigid_body][mesh]") {
    const auto scene = [](const std::string& shape_and_mass, const std::string& forces = "") {
        return "simulation: {duration: 0.01}\n" + integrator_block() +
               "elements:\n"
               "  - name: body\n"
               "    type: rigid_body\n"
               "    position: [0, 0, 1]\n" +
               shape_and_mass + (forces.empty() ? "" : "forces:\n" + forces);
    };
    CHECK_THROWS_WITH(build_scene(scene("    shape: {mesh: {path: /nonexistent/body.obj}}\n    density: 1000\n")),
                      Catch::Contains("test.yaml:7:20: elements[0].shape.mesh.path: /nonexistent/body.obj:0: mesh file not found"));
    const std::string open = temporary_file("soma_validation_open_cube.obj", cube_obj(0.1, false));
    CHECK_THROWS_WITH(build_scene(scene("    shape: {mesh: {path: " + open + "}}\n    density: 1000\n")),
                      Catch::Contains("shape.mesh.path: mass properties from a density need a closed solid") &&
                          Catch::Contains("not closed"));
    // With given mass properties an open mesh is only contact points and triangles: accepted.
    CHECK_NOTHROW(build_scene(scene("    shape: {mesh: {path: " + open + "}}\n    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n")));
    const std::string sphere = "    shape: {sphere: {radius: 0.1}}\n    density: 1000\n";
    CHECK_THROWS_WITH(build_scene(scene(sphere, "  - {type: rigid_damping, linear_damping: 1, elements: [nobody]}\n")),
                      Catch::Contains("forces[0].elements: no element named 'nobody'"));
    CHECK_THROWS_WITH(build_scene(scene(sphere, "  - {type: rigid_damping}\n")),
                      Catch::Contains("forces[0].linear_damping: linear_damping and angular_damping are both zero"));
    CHECK_THROWS_WITH(build_scene("simulation: {duration: 0.01}\n" + integrator_block() +
                                  "elements:\n"
                                  "  - {name: ball, type: point_mass, position: [0, 0, 1], mass: 1}\n"
                                  "forces:\n"
                                  "  - {type: rigid_damping, angular_damping: 1, elements: [ball]}\n"),
                      Catch::Contains("forces[0].elements: element 'ball' is not a rigid_body"));
}
