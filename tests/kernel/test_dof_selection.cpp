// Selections of `fixed` and `prescribed` entries by region: the edge DOFs a region holds
// (include_edges), unions of boxes and planes, agreeing overlaps, and the errors of conflicting ones.
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace soma;
using Catch::Matchers::Contains;

namespace {

std::unique_ptr<Simulation> build(const std::string& text) {
    return std::make_unique<Simulation>(load_scene_text(text, "scene.yaml"), builtin_registry());
}

std::string error_of(const std::string& text) {
    try {
        build(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

/// A straight rod of 11 nodes from x = 0 to x = 0.1 (node i at x = 0.01 i, edge i between nodes i and i + 1).
std::string rod(const std::string& extra) {
    return "  - {name: a, type: discrete_rod, geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 11}}, "
           "cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, youngs_modulus: 1.0e7}" +
           extra + "}\n";
}

const std::string header = "simulation: {duration: 0.1}\nintegrator: {type: implicit_euler, dt: 1.0e-2}\nelements:\n";

Index twist_dof(const Simulation& sim, Index edge) {
    const Element* a = sim.find_element("a");
    return a->global_dof(a->group_dof("edges", edge, 0));
}

void run(Simulation& sim) {
    while (sim.state().t < sim.end_time() - 1e-12) {
        sim.begin_attempt();
        REQUIRE(sim.integrator().step(sim, sim.nominal_dt()).converged);
    }
}

constexpr double kSide = 0.1;
constexpr int kCells = 4;

/// A square plate [0, 0.1]^2 in z = 0 as an OBJ grid of 4 x 4 quads (each fan-split along its
/// (i, j) - (i + 1, j + 1) diagonal by the reader): straight sides, so planes x = 0, x = 0.1,
/// y = 0, y = 0.1 hold exactly its 16 boundary nodes.
std::string square_mesh_file() {
    const auto path = std::filesystem::temp_directory_path() /
                      ("soma_test_square_" + std::to_string(::getpid()) + ".obj");
    std::ofstream out(path);
    for (int j = 0; j <= kCells; ++j)
        for (int i = 0; i <= kCells; ++i) out << "v " << kSide * i / kCells << " " << kSide * j / kCells << " 0\n";
    const auto id = [](int i, int j) { return 1 + i + (kCells + 1) * j; };
    for (int j = 0; j < kCells; ++j)
        for (int i = 0; i < kCells; ++i)
            out << "f " << id(i, j) << " " << id(i + 1, j) << " " << id(i + 1, j + 1) << " " << id(i, j + 1) << "\n";
    return path.string();
}

std::string square_plate(const std::string& type, const std::string& constraints) {
    return "simulation: {duration: 1.0}\n"
           "integrator: {type: statics, dt: 1.0, newton: {absolute_tolerance: 1.0e-12, relative_tolerance: 1.0e-12, "
           "max_iterations: 100}}\n"
           "elements:\n"
           "  - {name: plate, type: " + type + ", thickness: 1.0e-3, mesh: {file: {path: " + square_mesh_file() +
           "}}, material: {density: 1000, youngs_modulus: 1.0e8, poisson_ratio: 0.3}" + constraints + "}\n"
           "forces: [{type: gravity}]\n";
}

const std::string four_planes =
    "{point: [0, 0, 0], normal: [1, 0, 0]}, {point: [0.1, 0, 0], normal: [1, 0, 0]}, "
    "{point: [0, 0, 0], normal: [0, 1, 0]}, {point: [0, 0.1, 0], normal: [0, 1, 0]}";

bool on_boundary(const Simulation& sim, const Element& plate, Index node) {
    const auto& d = plate.geometry().point_dofs[static_cast<std::size_t>(node)];
    const double x = sim.state().q[d[0]], y = sim.state().q[d[1]];
    return std::abs(x) < 1e-12 || std::abs(y) < 1e-12 || std::abs(x - kSide) < 1e-12 || std::abs(y - kSide) < 1e-12;
}

}  // namespace

TEST_CASE("a region fixes its nodes and the twist of the rod edges inside it", "[kernel][dofs][selection]") {
    // The box x <= 0.025 holds nodes 0, 1, 2 and so edges 0 and 1 (edge 2 reaches node 3, outside).
    auto clamp = build(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.025, 1, 1]}}"));
    CHECK(clamp->free_dof_count() == clamp->dof_count() - 9 - 2);
    CHECK_FALSE(clamp->dof_is_free(twist_dof(*clamp, 0)));
    CHECK_FALSE(clamp->dof_is_free(twist_dof(*clamp, 1)));
    CHECK(clamp->dof_is_free(twist_dof(*clamp, 2)));

    auto nodes_only = build(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.025, 1, 1]}, include_edges: false}"));
    CHECK(nodes_only->free_dof_count() == nodes_only->dof_count() - 9);
    CHECK(nodes_only->dof_is_free(twist_dof(*nodes_only, 0)));

    // Nodes listed by index select no edge (as before regions selected edges).
    auto listed = build(header + rod(", fixed: {nodes: [0, 1, 2]}"));
    CHECK(listed->free_dof_count() == listed->dof_count() - 9);

    // A union: box and boxes and planes together; the edge between node 1 (in the box) and node 2 (on
    // the plane x = 0.02) is held by the union, the last edge by the second box.
    auto both_ends = build(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.015, 1, 1]}, "
                                        "boxes: [{min: [0.085, -1, -1], max: [1, 1, 1]}], "
                                        "planes: [{point: [0.02, 0, 0], normal: [1, 0, 0]}]}"));
    CHECK(both_ends->free_dof_count() == both_ends->dof_count() - 3 * 5 - 3);
    for (Index e : {0, 1, 9}) CHECK_FALSE(both_ends->dof_is_free(twist_dof(*both_ends, e)));
    for (Index e = 2; e < 9; ++e) CHECK(both_ends->dof_is_free(twist_dof(*both_ends, e)));
}

TEST_CASE("four planes clamp a square plate: nodes and the xi of the edges they hold", "[kernel][dofs][selection]") {
    // The four sides meet at the corners: each corner node is selected by two planes (once fixed).
    auto sim = build(square_plate("midedge_shell", ", fixed: {planes: [" + four_planes + "]}"));
    const Element& plate = *sim->find_element("plate");
    Index constrained = 0, held_edges = 0, corner_edges = 0;
    for (Index n = 0; n < static_cast<Index>(plate.geometry().point_dofs.size()); ++n) {
        const bool boundary = on_boundary(*sim, plate, n);
        constrained += boundary ? 3 : 0;
        for (Index dof : plate.geometry().point_dofs[static_cast<std::size_t>(n)]) CHECK(sim->dof_is_free(dof) != boundary);
    }
    for (Index e = 0; e < static_cast<Index>(plate.geometry().edges.size()); ++e) {
        const auto& ends = plate.geometry().edges[static_cast<std::size_t>(e)];
        const bool held = on_boundary(*sim, plate, ends[0]) && on_boundary(*sim, plate, ends[1]);
        CHECK(sim->dof_is_free(plate.global_dof(plate.group_dof("edges", e, 0))) != held);
        held_edges += held ? 1 : 0;
        // A diagonal from one side to the next (corners (0.1, 0) and (0, 0.1)): its ends lie on two
        // different planes, so only the union of the entry's regions holds it.
        const auto& d0 = plate.geometry().point_dofs[static_cast<std::size_t>(ends[0])];
        const auto& d1 = plate.geometry().point_dofs[static_cast<std::size_t>(ends[1])];
        if (held && sim->state().q[d0[0]] != sim->state().q[d1[0]] && sim->state().q[d0[1]] != sim->state().q[d1[1]])
            ++corner_edges;
    }
    CHECK(constrained == 3 * 4 * kCells);
    CHECK(held_edges == 4 * kCells + 2);
    CHECK(corner_edges == 2);
    CHECK(sim->free_dof_count() == sim->dof_count() - constrained - held_edges);

    // The same clamp as one prescribed entry at rest: the same DOFs are eliminated at the same
    // values (the edges its regions hold keep their initial xi), so the equilibrium is the same.
    auto moving = build(square_plate("midedge_shell", ", prescribed: [{planes: [" + four_planes +
                                                          "], displacement: [\"0\", \"0\", \"0\"]}]"));
    for (Index dof = 0; dof < sim->dof_count(); ++dof) CHECK(moving->dof_is_free(dof) == sim->dof_is_free(dof));
    run(*sim);
    run(*moving);
    // The center node (0.05, 0.05) sags; both clamps give the same equilibrium (same equations).
    const Index center = (kCells + 1) * (kCells / 2) + kCells / 2;
    const Index w = plate.geometry().point_dofs[static_cast<std::size_t>(center)][2];
    CHECK(sim->state().q[w] < -1e-6);
    CHECK(moving->state().q[w] == Approx(sim->state().q[w]).epsilon(1e-10));

    // Four entries, one plane each: the corner nodes are prescribed twice with the same expressions
    // (they agree). Each entry's regions hold only the edges along its own side, so the two corner
    // diagonals keep a free xi.
    std::string entries;
    for (const char* plane : {"{point: [0, 0, 0], normal: [1, 0, 0]}", "{point: [0.1, 0, 0], normal: [1, 0, 0]}",
                              "{point: [0, 0, 0], normal: [0, 1, 0]}", "{point: [0, 0.1, 0], normal: [0, 1, 0]}"})
        entries += std::string(entries.empty() ? "" : ", ") + "{plane: " + plane + ", displacement: [\"0\", \"0\", \"0\"]}";
    auto four_entries = build(square_plate("midedge_shell", ", prescribed: [" + entries + "]"));
    CHECK(four_entries->free_dof_count() == sim->free_dof_count() + corner_edges);

    // A hinge shell has no edge DOFs: the planes fix its boundary nodes only.
    auto hinge = build(square_plate("hinge_shell", ", fixed: {planes: [" + four_planes + "]}"));
    CHECK(hinge->free_dof_count() == hinge->dof_count() - 3 * 4 * kCells);
}

TEST_CASE("a moving clamp carries the twist of its edges; opting out lets the twist be prescribed",
          "[kernel][dofs][selection]") {
    const std::string end_box = "box: {min: [0.085, -1, -1], max: [1, 1, 1]}";
    auto moving = build(header + rod(", fixed: {nodes: [0, 1], edges: [0]}, prescribed: [{" + end_box +
                                     ", displacement: [\"0\", \"0\", \"0.01*t\"]}]"));
    CHECK(moving->free_dof_count() == moving->dof_count() - 7 - 7);
    run(*moving);
    const Element* a = moving->find_element("a");
    CHECK(moving->state().q[a->geometry().point_dofs.back()[2]] == Approx(0.001).margin(1e-15));
    CHECK(moving->state().q[twist_dof(*moving, 9)] == 0.0);  // held at its initial value

    auto twisted = build(header + rod(", fixed: {nodes: [0, 1], edges: [0]}, prescribed: [{" + end_box +
                                      ", include_edges: false, displacement: [\"0\", \"0\", \"0.01*t\"]}, "
                                      "{edges: [-1], displacement: [\"2*t\"]}]"));
    run(*twisted);
    CHECK(twisted->state().q[twist_dof(*twisted, 9)] == Approx(0.2).margin(1e-15));
}

TEST_CASE("overlapping selections: agreeing ones are allowed, conflicting ones are located errors",
          "[kernel][dofs][selection][errors]") {
    // The same node prescribed by two entries with the same expressions (spaces aside).
    auto same = build(header + rod(", prescribed: [{nodes: [-1], displacement: [\"0\", \"0\", \"0.1*t\"]}, "
                                   "{plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}, displacement: [\"0\", \"0\", \" 0.1 * t\"]}]"));
    CHECK(same->free_dof_count() == same->dof_count() - 3);

    CHECK_THAT(error_of(header + rod(", prescribed: [{nodes: [-1], displacement: [\"0\", \"0\", \"t\"]}, "
                                     "{plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}, displacement: [\"0\", \"0\", \"2*t\"]}]")),
               Contains("elements[0].prescribed[1].plane: node 10 z is already prescribed by elements[0].prescribed[0] "
                        "(displacement 't'), here '2*t': two prescriptions of one DOF must be the same expression"));
    CHECK_THAT(error_of(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.005, 1, 1]}}, "
                                     "prescribed: [{planes: [{point: [0, 0, 0], normal: [1, 0, 0]}], "
                                     "displacement: [\"0\", \"0\", \"t\"]}]")),
               Contains("elements[0].prescribed[0].planes[0]: node 0 x is already fixed by elements[0].fixed: a DOF is "
                        "either fixed or prescribed"));
    // An edge the fixed region holds, prescribed by index.
    CHECK_THAT(error_of(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.015, 1, 1]}}, "
                                     "prescribed: [{edges: [0], displacement: [\"t\"]}]")),
               Contains("elements[0].prescribed[0].edges: edge 0 twist is already held fixed by the regions of "
                        "elements[0].fixed (include_edges: false there leaves it free to prescribe)"));
    // An edge prescribed by index, then held by a later entry's region.
    CHECK_THAT(error_of(header + rod(", prescribed: [{edges: [-1], displacement: [\"t\"]}, "
                                     "{box: {min: [0.085, -1, -1], max: [1, 1, 1]}, displacement: [\"0\", \"0\", \"t\"]}]")),
               Contains("elements[0].prescribed[1].include_edges: edge 9 twist, held fixed by this entry's regions, is "
                        "already prescribed by elements[0].prescribed[0] (displacement 't'): a DOF is either fixed or "
                        "prescribed (include_edges: false here leaves it to that prescription)"));
    CHECK_THAT(error_of(header + rod(", fixed: {boxes: [{min: [-1, -1, -1], max: [0.005, 1, 1]}, "
                                     "{min: [1, 1, 1], max: [2, 2, 2]}]}")),
               Contains("elements[0].fixed.boxes[1]: selects no node of element 'a'"));
    CHECK_THAT(error_of(header + rod(", fixed: {planes: [{point: [0, 0, 0], normal: [0, 0, 0]}]}")),
               Contains("elements[0].fixed.planes[0].normal: the normal must not be zero"));
    CHECK_THAT(error_of(header + rod(", fixed: {planes: [{point: [0.5, 0, 0], normal: [1, 0, 0], tolerance: 0.01}]}")),
               Contains("elements[0].fixed.planes[0]: selects no node of element 'a' (tolerance 0.01 m)"));
    // An element without nodes (a rod joint owns no DOFs) cannot be selected by region.
    CHECK_THAT(error_of(header + rod("") +
                        "  - {name: b, type: discrete_rod, geometry: {line: {from: [0.1, 0, 0], to: [0.1, 0.1, 0], "
                        "nodes: 5}}, cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, "
                        "youngs_modulus: 1.0e7}}\n"
                        "  - {name: j, type: rod_joint, elements: [a, b], nodes: [-1, 0], "
                        "fixed: {box: {min: [-1, -1, -1], max: [1, 1, 1]}}}\n"
                        "shared_nodes: [{elements: [a, b], nodes: [-1, 0]}]\n"),
               Contains("elements[2].fixed.box: element type 'rod_joint' has no nodes: a region selects nodes and the "
                        "edges between them"));
}

namespace {

Index node_dof(const Simulation& sim, Index node, int component) {
    const Element* a = sim.find_element("a");
    return a->global_dof(a->group_dof("nodes", node, component));
}

}  // namespace

TEST_CASE("components constrain only the named components: a pin, a roller, a symmetry plane",
          "[kernel][dofs][selection][components]") {
    // The old single map and a list of entries: node 0 pinned (all 3), node 10 on a roller along x.
    auto pin_roller = build(header + rod(", fixed: [{nodes: [0]}, {nodes: [-1], components: [z, y]}]"));
    CHECK(pin_roller->free_dof_count() == pin_roller->dof_count() - 3 - 2);
    for (int c = 0; c < 3; ++c) CHECK_FALSE(pin_roller->dof_is_free(node_dof(*pin_roller, 0, c)));
    CHECK(pin_roller->dof_is_free(node_dof(*pin_roller, 10, 0)));
    CHECK_FALSE(pin_roller->dof_is_free(node_dof(*pin_roller, 10, 1)));
    CHECK_FALSE(pin_roller->dof_is_free(node_dof(*pin_roller, 10, 2)));

    // A symmetry plane x = 0: the x of the node on it, and no edge twist (a partial hold is no clamp).
    auto symmetry = build(header + rod(", fixed: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}, components: [x]}"));
    CHECK(symmetry->free_dof_count() == symmetry->dof_count() - 1);
    CHECK_FALSE(symmetry->dof_is_free(node_dof(*symmetry, 0, 0)));
    CHECK(symmetry->dof_is_free(twist_dof(*symmetry, 0)));
    // A box of three nodes with all components listed: the nodes, still no edges.
    auto box_nodes =
        build(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.025, 1, 1]}, components: [x, y, z]}"));
    CHECK(box_nodes->free_dof_count() == box_nodes->dof_count() - 9);

    // Two entries selecting the same component agree (fixed once).
    auto twice = build(header + rod(", fixed: [{nodes: [-1], components: [y]}, {nodes: [-1], components: [y, z]}]"));
    CHECK(twice->free_dof_count() == twice->dof_count() - 2);
}

TEST_CASE("prescribed components: one expression per listed component, in the listed order",
          "[kernel][dofs][selection][components]") {
    // Node 10 moves along z at 0.01 m/s and is held in x (the listed order: z, then x); y stays free.
    auto sim = build(header + rod(", fixed: {nodes: [0, 1], edges: [0]}, prescribed: "
                                  "[{nodes: [-1], components: [z, x], displacement: [\"0.01*t\", \"0\"]}]"));
    CHECK(sim->free_dof_count() == sim->dof_count() - 7 - 2);
    CHECK(sim->dof_is_free(node_dof(*sim, 10, 1)));
    run(*sim);
    CHECK(sim->state().q[node_dof(*sim, 10, 2)] == Approx(0.001).margin(1e-15));
    CHECK(sim->state().q[node_dof(*sim, 10, 0)] == 0.1);  // held at its initial x exactly

    // A component fixed in one entry and another component of the same node prescribed: no conflict.
    auto split = build(header + rod(", fixed: [{nodes: [0, 1], edges: [0]}, {nodes: [-1], components: [y, z]}], "
                                    "prescribed: [{nodes: [-1], components: [x], displacement: [\"-0.01*t\"]}]"));
    run(*split);
    CHECK(split->state().q[node_dof(*split, 10, 0)] == Approx(0.099).margin(1e-15));
}

TEST_CASE("components: located errors", "[kernel][dofs][selection][components][errors]") {
    CHECK_THAT(error_of(header + rod(", fixed: {nodes: [-1], components: [y, w]}")),
               Contains("elements[0].fixed.components: unknown component 'w': the nodes of element type "
                        "'discrete_rod' have components x, y, z"));
    CHECK_THAT(error_of(header + rod(", fixed: [{nodes: [0]}, {nodes: [-1], components: [y, y]}]")),
               Contains("elements[0].fixed[1].components: component 'y' is listed twice"));
    CHECK_THAT(error_of(header + rod(", fixed: {nodes: [-1], components: []}")),
               Contains("elements[0].fixed.components: lists no component"));
    CHECK_THAT(error_of(header + rod(", fixed: {nodes: [-1], edges: [0], components: [y]}")),
               Contains("elements[0].fixed.components: components select node components, but this entry also lists "
                        "`edges`"));
    CHECK_THAT(error_of(header + rod(", fixed: {box: {min: [-1, -1, -1], max: [0.025, 1, 1]}, components: [y], "
                                     "include_edges: true}")),
               Contains("elements[0].fixed.include_edges: an entry with `components` constrains only part of its "
                        "nodes, which is not a clamp"));
    CHECK_THAT(error_of(header + rod(", prescribed: [{nodes: [-1], components: [z], "
                                     "displacement: [\"0\", \"0\", \"t\"]}]")),
               Contains("elements[0].prescribed[0].displacement: `components` lists 1 component(s), but 3 expressions "
                        "are given: one per listed component"));
    // A component both fixed and prescribed: the overlap rules of whole nodes apply per component.
    CHECK_THAT(error_of(header + rod(", fixed: [{nodes: [0]}, {nodes: [-1], components: [y, z]}], "
                                     "prescribed: [{nodes: [-1], components: [x, z], displacement: [\"t\", \"t\"]}]")),
               Contains("elements[0].prescribed[0].nodes: node 10 z is already fixed by elements[0].fixed[1]: a DOF is "
                        "either fixed or prescribed"));
    CHECK_THAT(error_of(header + rod(", prescribed: [{nodes: [-1], components: [y], displacement: [\"t\"]}, "
                                     "{nodes: [-1], components: [y], displacement: [\"2*t\"]}]")),
               Contains("elements[0].prescribed[1].nodes: node 10 y is already prescribed by elements[0].prescribed[0] "
                        "(displacement 't'), here '2*t'"));
    // An element without nodes (a rod joint owns no DOFs of its own nodes) has no components to select.
    CHECK_THAT(error_of(header + rod("") +
                        "  - {name: b, type: discrete_rod, geometry: {line: {from: [0.1, 0, 0], to: [0.1, 0.1, 0], "
                        "nodes: 5}}, cross_section: {circle: {radius: 1.0e-3}}, material: {density: 1000, "
                        "youngs_modulus: 1.0e7}}\n"
                        "  - {name: j, type: rod_joint, elements: [a, b], nodes: [-1, 0], fixed: {components: [x]}}\n"
                        "shared_nodes: [{elements: [a, b], nodes: [-1, 0]}]\n"),
               Contains("elements[2].fixed.components: element type 'rod_joint' has no nodes to select components of"));
    // A list entry that is not a map is a schema error at the entry.
    CHECK_THAT(error_of(header + rod(", fixed: [{nodes: [0]}, 3]")), Contains("elements[0].fixed[1]"));
}

TEST_CASE("a planar rod holds its out-of-plane components and twists", "[kernel][dofs][planar]") {
    auto planar =
        build(header + rod(", planar: {normal: [0, 0, -2]}, fixed: [{nodes: [0]}, {nodes: [-1], components: [y]}]"));
    // 11 z components and 10 twists held by the plane, node 0's x and y, node 10's y (z agreed).
    CHECK(planar->free_dof_count() == planar->dof_count() - 11 - 10 - 2 - 1);
    for (Index n = 0; n < 11; ++n) CHECK_FALSE(planar->dof_is_free(node_dof(*planar, n, 2)));
    for (Index e = 0; e < 10; ++e) CHECK_FALSE(planar->dof_is_free(twist_dof(*planar, e)));
    CHECK(planar->dof_is_free(node_dof(*planar, 5, 0)));
    CHECK(planar->dof_is_free(node_dof(*planar, 5, 1)));

    // A load with an out-of-plane part moves the rod in the plane only.
    auto loaded = build(header + rod(", planar: {normal: [0, 0, 1]}, fixed: {nodes: [0, 1]}") +
                        "forces: [{type: point_load, element: a, nodes: [-1], force: [0, 1.0e-4, 1.0e-4]}]\n");
    run(*loaded);
    CHECK(loaded->state().q[node_dof(*loaded, 10, 1)] > 1e-4);
    for (Index n = 0; n < 11; ++n) CHECK(loaded->state().q[node_dof(*loaded, n, 2)] == 0.0);
    for (Index e = 0; e < 10; ++e) CHECK(loaded->state().q[twist_dof(*loaded, e)] == 0.0);
}

TEST_CASE("planar rods: located errors", "[kernel][dofs][planar][errors]") {
    CHECK_THAT(error_of(header + rod(", planar: {normal: [1, 1, 0]}")),
               Contains("elements[0].planar.normal: [1, 1, 0] is not along a coordinate axis: a planar rod holds one "
                        "position component of every node"));
    CHECK_THAT(error_of(header + rod(", planar: {normal: [0, 0, 0]}")),
               Contains("elements[0].planar.normal: [0, 0, 0] is not along a coordinate axis"));
    CHECK_THAT(error_of(header + rod(", planar: {normal: [0, 0, 1]}, initial_velocity: [0, 0.1, 0.1]")),
               Contains("elements[0].initial_velocity: has a component along the planar normal"));
    CHECK_THAT(error_of(header + rod(", planar: {normal: [1, 0, 0]}")),
               Contains("elements[0].planar: the rod does not lie in a plane normal to x: node 1 is 0.01 m off the "
                        "plane x = 0 through node 0"));
    CHECK_THAT(error_of(header + rod(", planar: {normal: [0, 0, 1]}, "
                                     "prescribed: [{nodes: [-1], components: [z], displacement: [\"t\"]}]")),
               Contains("elements[0].prescribed[0].nodes: node 10 z is already fixed by elements[0].planar: a DOF is "
                        "either fixed or prescribed"));
    CHECK_THAT(error_of(header + rod(", planar: {normal: [0, 0, 1]}, "
                                     "prescribed: [{edges: [3], displacement: [\"t\"]}]")),
               Contains("elements[0].prescribed[0].edges: edge 3 twist is already fixed by elements[0].planar"));
}
