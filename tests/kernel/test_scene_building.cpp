// Building a simulation from a scene: shared nodes, fixed and prescribed DOFs, and every error
// found after validation (references between blocks), each pointing at its key in the file.
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace soma;
using Catch::Matchers::Contains;

namespace {

const TypeRegistry& registry() { return builtin_registry(); }

std::unique_ptr<Simulation> build(const std::string& text) {
    return std::make_unique<Simulation>(load_scene_text(text, "scene.yaml"), registry());
}

std::string rod(const std::string& name, const std::string& from, const std::string& to, int nodes,
                const std::string& extra = "") {
    return "  - {name: " + name + ", type: discrete_rod, geometry: {line: {from: " + from + ", to: " + to +
           ", nodes: " + std::to_string(nodes) +
           "}}, cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e7}" + extra +
           "}\n";
}

const std::string header = "simulation: {duration: 0.1}\nintegrator: {type: implicit_euler, dt: 1.0e-3}\nelements:\n";

void run(Simulation& sim) {
    while (sim.state().t < sim.end_time() - 1e-12) {
        sim.begin_attempt();
        REQUIRE(sim.integrator().step(sim, sim.nominal_dt()).converged);
    }
}

}  // namespace

TEST_CASE("two rods sharing a node hang like one rod", "[kernel][dofs]") {
    // A vertical rod hanging from its top node stays straight, so a rod split in two at a
    // shared node (a joint without bending stiffness) must give the same stretched shape.
    const std::string gravity = "forces: [{type: gravity}]\n";
    auto whole = build(header + rod("a", "[0, 0, 0]", "[0, 0, -0.2]", 21, ", fixed: {nodes: [0]}") + gravity);
    auto split = build(header + rod("a", "[0, 0, 0]", "[0, 0, -0.1]", 11, ", fixed: {nodes: [0]}") +
                       rod("b", "[0, 0, -0.1]", "[0, 0, -0.2]", 11) +
                       "shared_nodes: [{elements: [a, b], nodes: [-1, 0]}]\n" + gravity);
    CHECK(split->dof_count() == whole->dof_count());  // 21 nodes x 3 + 20 edges, in both
    run(*whole);
    run(*split);
    const auto& qw = whole->state().q;
    const auto& qs = split->state().q;
    const Element* b = split->find_element("b");
    const auto& tip_split = b->geometry().point_dofs.back();
    const auto& tip_whole = whole->find_element("a")->geometry().point_dofs.back();
    // Same discrete equations up to summation order: agreement to Newton tolerance scale.
    CHECK(qs[tip_split[2]] == Approx(qw[tip_whole[2]]).epsilon(1e-9));
    CHECK(qs[tip_split[2]] < -0.2);  // it did stretch and fall
}

TEST_CASE("a prescribed node follows its expression and a fixed node stays", "[kernel][dofs]") {
    auto sim = build(header +
                     rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                         ", fixed: {nodes: [0]}, prescribed: [{nodes: [-1], displacement: [\"0\", \"0\", \"0.01*sin(20*t)\"]}]"));
    run(*sim);
    const Element* a = sim->find_element("a");
    const auto& tip = a->geometry().point_dofs.back();
    const auto& root = a->geometry().point_dofs.front();
    CHECK(sim->state().q[tip[2]] == Approx(0.01 * std::sin(20 * 0.1)).margin(1e-15));
    CHECK(sim->state().q[tip[0]] == Approx(0.1).margin(1e-15));
    CHECK(sim->state().q[root[2]] == 0.0);
    CHECK(sim->free_dof_count() == sim->dof_count() - 6);
}

TEST_CASE("errors found while building point at the key", "[kernel][errors]") {
    auto error_of = [](const std::string& text) -> std::string {
        try {
            build(text);
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    };
    const std::string a = rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11);
    CHECK_THAT(error_of(header + a + rod("a", "[0, 1, 0]", "[0.1, 1, 0]", 11)),
               Contains("scene.yaml:5:") && Contains("elements[1].name: duplicate element name 'a'"));
    CHECK_THAT(error_of(header + a + rod("b", "[0, 1, 0]", "[0.1, 1, 0]", 11) +
                        "shared_nodes: [{elements: [a, b], nodes: [-1, 0]}]\n"),
               Contains("shared DOF 'node 0 x' starts at 0 in this element but at 0.1 in 'a'"));
    CHECK_THAT(error_of(header + a + "shared_nodes: [{elements: [a, c], nodes: [-1, 0]}]\n"),
               Contains("shared_nodes[0].elements: no element named 'c'"));
    CHECK_THAT(error_of(header + a + "shared_nodes: [{elements: [a], nodes: [-1, 0]}]\n"),
               Contains("shared_nodes[0].nodes: needs one node per element: 1 elements but 2 nodes"));
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11, ", fixed: {edges: [10]}")),
               Contains("elements[0].fixed.edges: edge index 10 is out of range: this element has 10 edges"));
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                                     ", prescribed: [{nodes: [1], displacement: [\"t\"]}]")),
               Contains("elements[0].prescribed[0].displacement: nodes have 3 components (x, y, z), but 1 "
                        "expressions are given"));
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                                     ", prescribed: [{edges: [1], displacement: [\"sin(t\"]}]")),
               Contains("elements[0].prescribed[0].displacement: invalid expression 'sin(t'"));
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                                     ", prescribed: [{edges: [1], displacement: [\"omega*t\"]}]")),
               Contains("invalid expression 'omega*t'") && Contains("the only variable is t"));
    CHECK_THAT(error_of("simulation: {duration: 0.1}\nintegrator: {type: implicit_euler, dt: 1.0}\nelements:\n" + a),
               Contains("scene.yaml:2:") && Contains("integrator.dt: dt = 1 is longer than the simulated duration 0.1"));
    CHECK_THAT(error_of(header + a + "forces: [{type: point_load, element: b, nodes: [0], force: [0, 0, 1]}]\n"),
               Contains("forces[0].element") && Contains("'b'"));
}

TEST_CASE("nodes selected by box and by plane", "[kernel][dofs]") {
    // 11 nodes along x from 0 to 0.1: the box x <= 0.025 holds nodes 0, 1, 2 and the twist of edges
    // 0 and 1 (test_dof_selection.cpp); the plane x = 0.1 holds the last node.
    auto sim = build(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                                  ", fixed: {box: {min: [-1, -1, -1], max: [0.025, 1, 1]}}, prescribed: [{plane: {point: "
                                  "[0.1, 0, 0], normal: [2, 0, 0]}, displacement: [\"0\", \"0\", \"t\"]}]"));
    CHECK(sim->free_dof_count() == sim->dof_count() - 9 - 2 - 3);
    const auto error_of = [](const std::string& text) -> std::string {
        try {
            build(text);
        } catch (const InputError& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11, ", fixed: {box: {min: [1, 1, 1], max: [2, 2, 2]}}")),
               Contains("elements[0].fixed.box: selects no node of element 'a'"));
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                                     ", fixed: {nodes: [0]}, prescribed: [{nodes: [0], displacement: [\"0\", \"0\", \"t\"]}]")),
               Contains("elements[0].prescribed[0].nodes: node 0 x is already fixed"));
    CHECK_THAT(error_of(header + rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                                     ", fixed: {plane: {point: [0, 0, 0], normal: [0, 0, 0]}}")),
               Contains("elements[0].fixed.plane.normal: the normal must not be zero"));
}

TEST_CASE("prescribed DOFs carry their motion's velocity with every integrator", "[kernel][dofs]") {
    for (const std::string integrator : {"implicit_euler", "implicit_midpoint", "newmark"}) {
        INFO(integrator);
        auto sim = build("simulation: {duration: 0.1}\nintegrator: {type: " + integrator +
                         ", dt: 1.0e-3}\nelements:\n" +
                         rod("a", "[0, 0, 0]", "[0.1, 0, 0]", 11,
                             ", fixed: {nodes: [0]}, prescribed: [{nodes: [-1], displacement: [\"0\", \"0\", "
                             "\"0.01*sin(20*t)\"]}]"));
        const auto& tip = sim->find_element("a")->geometry().point_dofs.back();
        CHECK(sim->state().v[tip[2]] == Approx(0.2).margin(1e-9));  // d/dt 0.01 sin(20 t) at t = 0
        run(*sim);
        // Central differences with h = 1e-4 s: error h^2/6 * |x'''| = 1.3e-8 m/s.
        CHECK(sim->state().v[tip[2]] == Approx(0.2 * std::cos(2.0)).margin(1e-7));
        CHECK(sim->state().a[tip[2]] == Approx(-4.0 * std::sin(2.0)).margin(1e-4));
    }
}
