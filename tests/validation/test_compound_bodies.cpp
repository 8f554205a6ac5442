// Validation: compound rigid bodies (`rigid_body` with `shapes`, a list of convex parts) in
// contact through ncp_contact and ncp_newton. A table (a top on four legs) is not convex: what
// stands between its legs must not be pushed out, and what it lands on must meet the right part.
//
// References are statics: at rest the contacts carry the weights exactly (the floor's normal
// forces sum to m g to ncp_newton's force tolerance), and a body held by hard contacts stays where
// its geometry puts it (gaps held to gap_tolerance, 1e-9 m).
#include "scene_runner.hpp"

#include "soma/point_map.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

constexpr double kG = 9.81;

// The table of scripts/make_table_pile.py: a 0.6 x 0.4 x 0.025 m top on four 0.03 x 0.03 x
// 0.475 m legs, 0.5 m tall; here its body frame is at the legs' feet.
constexpr double kLegLength = 0.475, kDensity = 600.0;
constexpr double kTableVolume = 0.6 * 0.4 * 0.025 + 4 * 0.03 * 0.03 * 0.475;

std::string table(const std::string& name, const std::string& position) {
    return "  - name: " + name + "\n"
           "    type: rigid_body\n"
           "    position: " + position + "\n"
           "    density: " + num(kDensity) + "\n"
           "    shapes:\n"
           "      - {shape: {box: {size: [0.6, 0.4, 0.025]}}, center: [0, 0, 0.4875]}\n"
           "      - {shape: {box: {size: [0.03, 0.03, 0.475]}}, center: [0.27, 0.17, 0.2375]}\n"
           "      - {shape: {box: {size: [0.03, 0.03, 0.475]}}, center: [-0.27, 0.17, 0.2375]}\n"
           "      - {shape: {box: {size: [0.03, 0.03, 0.475]}}, center: [0.27, -0.17, 0.2375]}\n"
           "      - {shape: {box: {size: [0.03, 0.03, 0.475]}}, center: [-0.27, -0.17, 0.2375]}\n";
}

std::string scene(const std::string& elements, double duration) {
    return "simulation: {duration: " + num(duration) + "}\n"
           "integrator: {type: ncp_newton, dt: 0.0083}\n"
           "elements:\n" + elements +
           "forces:\n"
           "  - {type: gravity, acceleration: [0, 0, " + num(-kG) + "]}\n"
           "constraints:\n"
           "  - {name: contact, type: ncp_contact, floor: {}, friction: 0.7}\n";
}

std::string error_of(const std::string& yaml) {
    try {
        build_scene(yaml);
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

// ---- the table pile's oracle ----
struct Box {
    Vec3 centre;
    std::array<Vec3, 3> axis;  ///< unit
    Vec3 half;                 ///< half extents along the axes
};

constexpr int kParts = 5;

/// The box parts of every table at the current state.
std::vector<std::array<Box, kParts>> table_boxes(const Simulation& simulation) {
    std::vector<std::array<Box, kParts>> out;
    for (const auto& element : simulation.elements()) {
        std::array<Box, kParts> boxes;
        for (int k = 0; k < kParts; ++k) {
            std::array<Vec3, 8> c;
            for (int i = 0; i < 8; ++i) c[static_cast<std::size_t>(i)] = point_position(*element, 2 + 8 * k + i, simulation.state().q);
            Box& b = boxes[static_cast<std::size_t>(k)];
            b.centre = Vec3::Zero();
            for (const Vec3& x : c) b.centre += x / 8.0;
            for (int a = 0; a < 3; ++a) {
                const Vec3 edge = c[static_cast<std::size_t>(1 << a)] - c[0];  // corner bit a: + along axis a
                b.half[a] = 0.5 * edge.norm();
                b.axis[static_cast<std::size_t>(a)] = edge.normalized();
            }
        }
        out.push_back(boxes);
    }
    return out;
}

/// Penetration depth of two boxes: 0 when some axis separates them, else the smallest overlap.
double penetration(const Box& a, const Box& b) {
    const Vec3 d = b.centre - a.centre;
    double depth = std::numeric_limits<double>::infinity();
    const auto test = [&](const Vec3& axis) {
        const double length = axis.norm();
        if (length < 1e-9) return;  // parallel edges: their cross product is no axis
        const Vec3 l = axis / length;
        double reach = 0.0;
        for (int i = 0; i < 3; ++i)
            reach += a.half[i] * std::abs(a.axis[static_cast<std::size_t>(i)].dot(l)) +
                     b.half[i] * std::abs(b.axis[static_cast<std::size_t>(i)].dot(l));
        depth = std::min(depth, reach - std::abs(d.dot(l)));
    };
    for (const Vec3& axis : a.axis) test(axis);
    for (const Vec3& axis : b.axis) test(axis);
    for (const Vec3& u : a.axis)
        for (const Vec3& v : b.axis) test(u.cross(v));
    return std::max(depth, 0.0);
}

struct Penetrations {
    double between = 0.0;  ///< the deepest overlap of two tables' parts (m)
    double floor = 0.0;    ///< the deepest corner below the floor (m)
    std::string where;     ///< the tables and parts of `between`, and the time
    std::string floor_where;  ///< the table and part of `floor`, and the time
};

/// The pile's penetrations at the current state: every pair of parts of two tables, every corner.
Penetrations pile_penetrations(const Simulation& simulation) {
    Penetrations out;
    const auto boxes = table_boxes(simulation);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        for (const Box& b : boxes[i])
            for (int k = 0; k < 8; ++k) {
                Vec3 corner = b.centre;
                for (int a = 0; a < 3; ++a) corner += ((k >> a) & 1 ? 1.0 : -1.0) * b.half[a] * b.axis[static_cast<std::size_t>(a)];
                if (-corner.z() > out.floor) {
                    out.floor = -corner.z();
                    out.floor_where = "table " + std::to_string(i) + " (part " + std::to_string(&b - boxes[i].data()) +
                                      ") at t = " + std::to_string(simulation.state().t);
                }
            }
        for (std::size_t j = i + 1; j < boxes.size(); ++j)
            for (std::size_t k = 0; k < kParts; ++k)
                for (std::size_t l = 0; l < kParts; ++l) {
                    const Box& a = boxes[i][k];
                    const Box& b = boxes[j][l];
                    if ((a.centre - b.centre).norm() >= a.half.norm() + b.half.norm()) continue;
                    if (const double depth = penetration(a, b); depth > out.between) {
                        out.between = depth;
                        out.where = "tables " + std::to_string(i) + " (part " + std::to_string(k) + ") and " +
                                    std::to_string(j) + " (part " + std::to_string(l) + ") at t = " +
                                    std::to_string(simulation.state().t);
                    }
                }
    }
    return out;
}

}  // namespace

TEST_CASE("compound bodies: a table stands on its legs over a box between them, and its weight is its parts' volume "
          "times the density",
          "[compound][ncp][validation]") {
    // The box (0.1 m cube, 0.1 m tall) stands under the top (its underside 0.475 m up) between the
    // legs: inside the table's convex hull, outside every part. A convex hull would push it out.
    auto simulation = build_scene(scene(table("table", "[0, 0, 0]") +
                                            "  - {name: box, type: rigid_body, position: [0.05, -0.02, 0.05], density: 500, "
                                            "shape: {box: {size: [0.1, 0.1, 0.1]}}}\n",
                                        0.5));
    run_to_end(*simulation);
    // Resting contacts hold their gaps to gap_tolerance (1e-9 m): the bodies stay where they were.
    CHECK(std::abs(node_position(*simulation, "table", 0).z()) < 1e-8);
    CHECK((node_position(*simulation, "box", 0) - Vec3(0.05, -0.02, 0.05)).norm() < 1e-8);
    CHECK(node_velocity(*simulation, "box", 0).norm() < 1e-8);
    // The floor carries both: the table's mass is its parts' volume times the density (the parts
    // touch and do not overlap). The balance holds to the force tolerance (1e-8 relative).
    const Constraint& contact = *simulation->constraint_terms().at(0);
    const double weight = (kDensity * kTableVolume + 500.0 * 1e-3) * kG;
    CHECK(contact.statistic(2) == Approx(weight).epsilon(1e-7));
}

TEST_CASE("compound bodies: a table dropped onto a pillar lands on its top's underside, legs in the air",
          "[compound][ncp][validation]") {
    // A 0.6 m pillar under the table's centre: the top (underside 0.475 m above the feet) lands on
    // it before the 0.475 m legs reach the floor, so the table rests with its feet 0.125 m up.
    const double pillar = 0.6;
    auto simulation = build_scene(
        scene(table("table", "[0, 0, 0.2]") +
                  "  - {name: pillar, type: rigid_body, position: [0, 0, 0.3], density: 2000, "
                  "shape: {box: {size: [0.1, 0.1, " + num(pillar) + "]}}}\n",
              1.0));
    run_to_end(*simulation);
    CHECK(node_position(*simulation, "table", 0).z() == Approx(pillar - kLegLength).margin(1e-8));
    CHECK(node_velocity(*simulation, "table", 0).norm() < 1e-6);
    // Centred: it landed flat, and nothing pushed it sideways (symmetric to round-off).
    const Vec3 feet = node_position(*simulation, "table", 0);
    CHECK(std::hypot(feet.x(), feet.y()) < 1e-9);
    // The statistic sums every contact's normal force: the floor carries the pillar and the table
    // on it, and the pillar's top carries the table once more.
    const Constraint& contact = *simulation->constraint_terms().at(0);
    const double table_weight = kDensity * kTableVolume * kG, pillar_weight = 2000.0 * 0.1 * 0.1 * pillar * kG;
    CHECK(contact.statistic(2) == Approx(pillar_weight + 2.0 * table_weight).epsilon(1e-7));
}

TEST_CASE("compound bodies: located errors for shapes given wrongly", "[compound][validation]") {
    const std::string body = "  - {name: b, type: rigid_body, position: [0, 0, 1], density: 1000, ";
    CHECK_THAT(error_of(scene(body + "shape: {sphere: {radius: 0.1}}, shapes: [{shape: {sphere: {radius: 0.1}}}]}\n", 0.1)),
               Catch::Contains("elements[0].shapes") && Catch::Contains("not both"));
    CHECK_THAT(error_of(scene(body + "shape_center: [0, 0, 1], shapes: [{shape: {sphere: {radius: 0.1}}}]}\n", 0.1)),
               Catch::Contains("elements[0].shape_center") && Catch::Contains("its own `center`"));
    CHECK_THAT(error_of(scene(body + "shapes: []}\n", 0.1)), Catch::Contains("elements[0].shapes"));
    CHECK_THAT(error_of(scene(body + "shapes: [{shape: {sphere: {radius: 0.1}}, orientation: [1, 0, 0.5, 0]}]}\n", 0.1)),
               Catch::Contains("elements[0].shapes[0].orientation") && Catch::Contains("unit quaternion"));
    CHECK_THAT(error_of(scene(body + "shapes: [{center: [0, 0, 1]}]}\n", 0.1)),
               Catch::Contains("elements[0].shapes[0]") && Catch::Contains("shape"));

    // A part that is not convex is refused at the contact, naming the part.
    const auto dir = std::filesystem::temp_directory_path() / "soma_compound_meshes";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "open.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n";
    const auto l_shape = std::filesystem::path(std::getenv("SOMA_SOURCE_DIR")) / "tests/validation/meshes/l_shape.obj";
    const std::string concave = error_of(scene(body + "shapes: [{shape: {box: {size: [1, 1, 1]}}, center: [5, 0, 0]}, "
                                                      "{shape: {mesh: {path: " + l_shape.string() + "}}}]}\n",
                                               0.1));
    CHECK_THAT(concave, Catch::Contains("constraints[0]") && Catch::Contains("'b': its triangle mesh (part 1 of 2) is not convex"));
    // A part's open mesh cannot give mass properties from a density: located at that part's path.
    CHECK_THAT(error_of(scene(body + "shapes: [{shape: {box: {size: [1, 1, 1]}}}, "
                                     "{shape: {mesh: {path: " + (dir / "open.obj").string() + "}}}]}\n",
                              0.1)),
               Catch::Contains("elements[0].shapes[1].shape.mesh.path") && Catch::Contains("closed solid"));
}

// The table pile of Macklin et al. 2019 (section 10, Table 2: 54 tables of 4.7 kg,
// mu = 0.7, h = 8.3 ms; scripts/make_table_pile.py says how the paper's unpublished tables and drop
// were chosen). The paper's claim: Krylov-solved non-smooth Newton "forms stable piles" without
// interpenetration.
//
// At the scene's settings the deepest overlap of two tables over the run is 0.18 mm (bound 0.3 mm)
// and the floor's 8 um. The pile is chaotic, and not every variant of the settings meets the bound
// yet: a margin of 2 mm or a gap tolerance of 1e-6 m leads to an edge crossing near a corner,
// which is left to the corner (docs/validation.md 11.6), and 2.4 or 0.5 mm. (It ran hidden, tag
// [.], until the face a corner meets was taken from the step's start and a point moving away
// stopped "entering" a plate by its far side: one step left two tops 0.41 mm into each other.)
//
// The oracle is independent of the contact generation: every pair of box parts of two tables is
// tested for overlap by the separating-axis theorem over their 15 axes (3 + 3 face normals, 9 edge
// cross products), which for two boxes gives the exact penetration depth (the smallest overlap
// over the axes; Gottschalk et al. 1996), and every corner against the floor. The boxes are
// rebuilt from each table's corner points (rigid_body's documented point order: the origin, the
// centre of mass, then each part's 8 corners), so the oracle reads what the element shows, not
// its internals.
TEST_CASE("ncp_newton: the paper's table pile of 54 tables comes to rest without interpenetration",
          "[table_pile][ncp][compound][validation]") {
    std::filesystem::path scene = std::filesystem::path(std::getenv("SOMA_SOURCE_DIR")) / "tests/validation/table_pile/table_pile.yaml";
    // A variant of the scene (another margin, gap tolerance, step, contact generation) under the
    // same oracle: `SOMA_TABLE_PILE_SCENE=variant.yaml validation_compound_bodies "[table_pile]"`
    // (docs/validation.md 11.6 lists the variants measured).
    if (const char* variant = std::getenv("SOMA_TABLE_PILE_SCENE")) scene = variant;
    std::ifstream file(scene);
    REQUIRE(file);
    const std::string yaml((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    auto simulation = build_scene(yaml, scene.string());
    const auto tables = static_cast<int>(simulation->elements().size());
    REQUIRE(tables == 54);

    RunOptions options;
    options.progress = false;
    options.observe = false;
    TimeLoop loop(*simulation, options);
    Penetrations deepest;  // over the run, after every step
    const auto table_name = [](int t) { return "table_" + std::string(t < 10 ? "0" : "") + std::to_string(t); };
    const double settled_from = 4.0;  // s: the scene runs 5 s; the last second must show no motion
    std::vector<Vec3> settled;        // each table's origin at settled_from
    while (!loop.at_end()) {
        INFO("t = " << simulation->state().t << ": " << loop.diagnosis());
        REQUIRE(loop.step());
        if (settled.empty() && simulation->state().t >= settled_from - 1e-9)
            for (int t = 0; t < tables; ++t) settled.push_back(node_position(*simulation, table_name(t), 0));
        const Penetrations now = pile_penetrations(*simulation);
        if (now.between > deepest.between) {
            deepest.between = now.between;
            deepest.where = now.where;
        }
        if (now.floor > deepest.floor) {
            deepest.floor = now.floor;
            deepest.floor_where = now.floor_where;
        }
    }
    const Penetrations final_state = pile_penetrations(*simulation);
    UNSCOPED_INFO("at the end: between tables " << final_state.between << " m (" << final_state.where << "), into the floor "
                                                << final_state.floor << " m");
    const RunSummary summary = loop.summary();
    UNSCOPED_INFO("steps " << summary.steps << ", Newton " << summary.newton_iterations << ", retries "
                           << summary.retries << "; deepest between tables " << deepest.between
                           << " m (" << deepest.where << "), into the floor " << deepest.floor << " m ("
                           << deepest.floor_where << ")");
    // The paper's bound for the heavy stack, 1 % of the thinnest size (a leg's 0.03 m: 3e-4 m).
    CHECK(deepest.between < 3e-4);
    CHECK(deepest.floor < 3e-4);
    // A stable pile: over the last second no table's origin moved 1 mm (1 mm/s on average). Its
    // speed at an instant is no measure: each step leaves its gaps within the scene's
    // gap_tolerance (1e-5 m), a velocity error of up to 1e-5 / h = 1.2 mm/s that the next step
    // takes back (measured: tables resting on three contacts jitter at 2 to 3 mm/s in place).
    REQUIRE(settled.size() == static_cast<std::size_t>(tables));
    double moved = 0.0, fastest = 0.0;
    int moving = -1;
    for (int t = 0; t < tables; ++t) {
        if (const double d = (node_position(*simulation, table_name(t), 0) - settled[static_cast<std::size_t>(t)]).norm(); d > moved) {
            moved = d;
            moving = t;
        }
        fastest = std::max(fastest, node_velocity(*simulation, table_name(t), 0).norm());
    }
    UNSCOPED_INFO("moved over the last second " << moved << " m (" << table_name(moving) << "); fastest at the end "
                                                 << fastest << " m/s");
    CHECK(moved < 1e-3);
}
