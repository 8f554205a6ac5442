// A point against a convex polyhedron (contact_solids.hpp): the face each rule of FaceChoice
// picks, the nearest surface point beyond an edge, the velocity field's spanning vertices, and
// the face crossings of two plates lying across each other (edge_contacts.hpp).
//
// Tolerances: coordinates are O(1) m, so positions, normals and distances carry round-off of a
// few 1e-16; 1e-12 leaves a factor ~1000 and fails on any geometric error (the smallest
// feature tested is 2 mm).
#include "test_boxes.hpp"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

namespace {

using namespace soma;
using namespace soma::ncp;
using namespace soma::ncp::test;

Vec3 surface_point(const Box& box, const SolidProximity& p) {
    Vec3 x = Vec3::Zero();
    for (int k = 0; k < p.surface.count; ++k)
        x += p.surface.weights[static_cast<std::size_t>(k)] * box.x[static_cast<std::size_t>(p.surface.points[static_cast<std::size_t>(k)])];
    return x;
}

/// The face (index into solid.faces) whose outward normal is \p n.
int face_along(const Box& box, const Vec3& n) {
    for (std::size_t f = 0; f < box.solid.faces.size(); ++f)
        if ((triangle_normal(box.x, box.solid.faces[f]) - n).norm() < 1e-12) return static_cast<int>(f);
    return -1;
}

constexpr double kMargin = 1e-3;

}  // namespace

TEST_CASE("contact solids: a point beyond a box's edge meets the edge, along the line to it", "[ncp][contact_solids]") {
    // A 1 m cube at the origin; a point 3 cm beyond its top face and 4 cm beyond its +x face:
    // the nearest surface point is on the top +x edge, 5 cm away, and the normal is (4, 0, 3)/5.
    // The farthest plane alone (the old rule) said 4 cm along +x.
    const Box box = make_box(Vec3(1, 1, 1), Eigen::Matrix3d::Identity(), Vec3::Zero());
    FaceChoice choice;
    choice.tie = kMargin;
    const Vec3 x(0.54, 0.1, 0.53);
    const SolidProximity p = solid_proximity(box.solid, box.x, box.normals, x, choice);
    CHECK(p.distance == Approx(0.05).margin(1e-12));
    CHECK((p.normal - Vec3(0.8, 0.0, 0.6)).norm() < 1e-12);
    CHECK((surface_point(box, p) - Vec3(0.5, 0.1, 0.5)).norm() < 1e-12);
    // Over the top face's inside, the face's own normal and plane distance, exactly.
    const SolidProximity over = solid_proximity(box.solid, box.x, box.normals, Vec3(0.2, -0.1, 0.53), choice);
    CHECK(over.distance == Approx(0.03).margin(1e-12));
    CHECK((over.normal - Vec3::UnitZ()).norm() < 1e-15);
    // Past a reach of 3.9 cm (its farthest plane is 4 cm off), the point is not searched: its
    // distance is that plane's, a lower bound of the 5 cm, and it has no surface point; within a
    // reach of 4.1 cm it is the same as without one.
    const SolidProximity beyond = solid_proximity(box.solid, box.x, box.normals, x, choice, 0.039);
    CHECK(beyond.surface.count == 0);
    CHECK(beyond.distance == Approx(0.04).margin(1e-12));
    CHECK(beyond.distance <= p.distance);
    const SolidProximity within = solid_proximity(box.solid, box.x, box.normals, x, choice, 0.041);
    CHECK(within.surface.count == 3);
    CHECK(within.distance == p.distance);
}

TEST_CASE("contact solids: a point driven into a plate near its end meets the face it came through", "[ncp][contact_solids]") {
    // A plate 1 x 1 x 0.025 m; a point 1.5 mm under its top and 1 mm inside its +x end face, that
    // came down through the top at 0.3 m/s (motion 2 h v over h = 8.3 ms: 5 mm). Nearest, it
    // belongs to the end face; by its motion, to the top.
    const Box plate = make_box(Vec3(1, 1, 0.025), Eigen::Matrix3d::Identity(), Vec3::Zero());
    const Vec3 x(0.499, 0.0, 0.0125 - 0.0015);
    FaceChoice choice;
    choice.tie = kMargin;
    choice.approach = Vec3::UnitX();  // the other body's centroid lies along +x (tables side by side)
    const SolidProximity nearest = solid_proximity(plate.solid, plate.x, plate.normals, x, choice);
    CHECK((nearest.normal - Vec3::UnitX()).norm() < 1e-12);
    CHECK(nearest.distance == Approx(-0.001).margin(1e-12));
    choice.motion = Vec3(0, 0, -2.0 * 0.0083 * 0.3);
    const SolidProximity entered = solid_proximity(plate.solid, plate.x, plate.normals, x, choice);
    CHECK((entered.normal - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(entered.distance == Approx(-0.0015).margin(1e-12));
    // A motion within the tie (round-off at rest) is no direction: the nearest face again.
    choice.motion = Vec3(0, 0, -0.5 * kMargin);
    CHECK((solid_proximity(plate.solid, plate.x, plate.normals, x, choice).normal - Vec3::UnitX()).norm() < 1e-12);
    // Sliding along the top, inside all the way back: no entry within the span, the nearest face.
    choice.motion = Vec3(-0.005, 0, 0);
    CHECK((solid_proximity(plate.solid, plate.x, plate.normals, x, choice).normal - Vec3::UnitX()).norm() < 1e-12);
}

TEST_CASE("contact solids: a point moving away from a plate, or leaving it, is not sent through it", "[ncp][contact_solids]") {
    // The plate of the case above. The motion spans 2 h v back and ahead (h = 8.3 ms, v = 2 m/s
    // up: 3.3 cm), longer than the plate is thick, so extrapolated back the line crosses it whole.
    const Box plate = make_box(Vec3(1, 1, 0.025), Eigen::Matrix3d::Identity(), Vec3::Zero());
    FaceChoice choice;
    choice.tie = kMargin;
    choice.approach = -Vec3::UnitZ();  // the other body's centroid lies below: rule (4) alone would pick the underside
    choice.motion = Vec3(0, 0, 2.0 * 0.0083 * 2.0);
    // On the top, moving up (a corner bouncing off the plate): it entered nothing; the line left
    // the plate by now. Its face is the top, at distance 0 (the entry would be the underside, 2.5 cm "deep").
    const SolidProximity on_top = solid_proximity(plate.solid, plate.x, plate.normals, Vec3(0.2, 0.1, 0.0125), choice);
    CHECK((on_top.normal - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(std::abs(on_top.distance) < 1e-12);
    // 0.4 mm inside, moving up and out: the exit (the top, 0.4 mm along the line) is nearer than
    // where the line entered (the underside, 2.1 cm back): the top.
    const SolidProximity leaving = solid_proximity(plate.solid, plate.x, plate.normals, Vec3(0.2, 0.1, 0.0125 - 4e-4), choice);
    CHECK((leaving.normal - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(leaving.distance == Approx(-4e-4).margin(1e-12));
    // 4 mm above, moving up: outside and moving away, the nearest point (rule 3), on the top.
    const SolidProximity above = solid_proximity(plate.solid, plate.x, plate.normals, Vec3(0.2, 0.1, 0.0165), choice);
    CHECK((above.normal - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(above.distance == Approx(0.004).margin(1e-12));
    // Moving down instead, 0.4 mm in: it entered by the top (0.4 mm back), nearer than the exit.
    choice.motion = -choice.motion;
    const SolidProximity entering = solid_proximity(plate.solid, plate.x, plate.normals, Vec3(0.2, 0.1, 0.0125 - 4e-4), choice);
    CHECK((entering.normal - Vec3::UnitZ()).norm() < 1e-12);
}

TEST_CASE("contact solids: a corner meets the pair's separating face where it lies over it", "[ncp][contact_solids]") {
    // A leg (0.03 x 0.03 x 0.4 m) beside a plate's +x end, 2 mm into it sideways, its lower end
    // 1 cm below the plate's top: the best separating face of the plate for the leg is the +x end
    // face (-2 mm), not the top (-1 cm). The leg's lowest corner inside the plate (2 mm inside the
    // end face, 1 cm under the top) meets the end face, by the nearest-face rule and as the
    // reference; a point beyond the reference face's extent does not meet its extended plane.
    const Box plate = make_box(Vec3(1, 1, 0.025), Eigen::Matrix3d::Identity(), Vec3::Zero());
    const Box leg = make_box(Vec3(0.03, 0.03, 0.4), Eigen::Matrix3d::Identity(), Vec3(0.5 + 0.015 - 0.002, 0, 0.0125 - 0.01 + 0.2));
    const auto [face, separation] = best_separating_face(plate.solid, plate.x, plate.normals, leg.solid.vertices, leg.x);
    CHECK(separation == Approx(-0.002).margin(1e-12));
    REQUIRE(face >= 0);
    CHECK((triangle_normal(plate.x, plate.solid.faces[static_cast<std::size_t>(face)]) - Vec3::UnitX()).norm() < 1e-12);
    // The leg's faces separate the plate's corners no better (its -x face by the same 2 mm: ties
    // go to the solid's face, as ncp_contact takes them).
    CHECK(best_separating_face(leg.solid, leg.x, leg.normals, plate.solid.vertices, plate.x).second <= separation + 1e-15);
    const Vec3 corner = leg.x[0];  // -x, -y, -z: 2 mm inside the end face, 1 cm under the top
    FaceChoice choice;
    choice.tie = kMargin;
    choice.approach = Vec3::UnitZ();
    CHECK((solid_proximity(plate.solid, plate.x, plate.normals, corner, choice).normal - Vec3::UnitX()).norm() < 1e-12);
    choice.reference = face;
    const SolidProximity p = solid_proximity(plate.solid, plate.x, plate.normals, corner, choice);
    CHECK((p.normal - Vec3::UnitX()).norm() < 1e-12);
    CHECK(p.distance == Approx(-0.002).margin(1e-12));
    // A point far from the reference face's extent is not held on its extended plane.
    choice.reference = face_along(plate, Vec3::UnitZ());
    const Vec3 beside(0.6, 0.0, 0.0);  // 10 cm beyond the +x end, at the top's height
    const SolidProximity far = solid_proximity(plate.solid, plate.x, plate.normals, beside, choice);
    CHECK(far.distance == Approx(0.1).margin(1e-12));
    CHECK((far.normal - Vec3::UnitX()).norm() < 1e-12);
}

TEST_CASE("contact solids: four spanning vertices of a box, fewer of a flat or collinear set", "[ncp][contact_solids]") {
    const Box box = make_box(Vec3(1, 2, 3), rotation(0.7, Vec3(1, 2, 3)), Vec3(0.1, 0.2, 0.3));
    const std::vector<Index> four = spanning_vertices(box.solid.vertices, box.x);
    REQUIRE(four.size() == 4);
    const Vec3 a = box.x[static_cast<std::size_t>(four[1])] - box.x[static_cast<std::size_t>(four[0])];
    const Vec3 b = box.x[static_cast<std::size_t>(four[2])] - box.x[static_cast<std::size_t>(four[0])];
    const Vec3 c = box.x[static_cast<std::size_t>(four[3])] - box.x[static_cast<std::size_t>(four[0])];
    CHECK(std::abs(a.cross(b).dot(c)) > 1.0);  // a tetrahedron of volume > 1/6 m^3 (the box holds 6 m^3)
    const std::vector<Vec3> flat = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(1, 1, 0)};
    CHECK(spanning_vertices({0, 1, 2, 3}, flat).size() == 3);
    const std::vector<Vec3> line = {Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(2, 2, 2)};
    CHECK(spanning_vertices({0, 1, 2}, line).size() == 2);
}

TEST_CASE("face crossings: a plate across another, tilted, meets it where their edges cross", "[ncp][edge_contacts]") {
    // A: 1 x 1 x 0.1 m, top at z = 0.05. B: a 1.6 x 0.2 x 0.1 m plank turned 45 degrees about z
    // and 2 degrees about its long axis, lowered until its lowest long edge is 2 mm above A's top
    // face. Its bottom face's long edges cross A's top edges near A's corners. The lower long edge
    // supports the plank (its arc holds -z): its two crossings are supporting pairs, normal +z.
    // The higher one's are not (the faces are not parallel: the arcs are apart), and only the
    // face crossings find them: two more points, each on B's edge along B's bottom normal from a
    // point of A's top edge.
    const Eigen::Matrix3d turn = rotation(std::numbers::pi / 4, Vec3::UnitZ()) * rotation(2.0 * std::numbers::pi / 180.0, Vec3::UnitX());
    Box b = make_box(Vec3(1.6, 0.2, 0.1), turn, Vec3::Zero());
    double lowest = 1.0;
    for (const Vec3& p : b.x) lowest = std::min(lowest, p.z());
    b = make_box(Vec3(1.6, 0.2, 0.1), turn, Vec3(0, 0, 0.05 + 0.002 - lowest));
    const Box a = make_box(Vec3(1, 1, 0.1), Eigen::Matrix3d::Identity(), Vec3::Zero());
    const double reach = 0.02;  // the margin and a step's motion
    std::vector<EdgePair> supporting;
    supporting_edge_pairs(b.features(), a.features(), kMargin, reach, supporting);
    REQUIRE(supporting.size() == 2);
    for (const EdgePair& p : supporting) CHECK((p.normal - Vec3::UnitZ()).norm() < 1e-12);
    std::vector<EdgePair> pairs;
    supporting_edge_pairs(b.features(), a.features(), kMargin, reach, pairs, true);
    REQUIRE(pairs.size() == 4);
    int crossings = 0;
    for (const EdgePair& p : pairs) {
        const auto same = [&](const EdgePair& q) { return q.edge_a == p.edge_a && q.edge_b == p.edge_b; };
        if (std::any_of(supporting.begin(), supporting.end(), same)) continue;
        ++crossings;
        const PolyhedronEdge& eb = b.edges[p.edge_a];  // b is the first polyhedron here
        const PolyhedronEdge& ea = a.edges[p.edge_b];
        const Vec3 on_b = (1 - p.s) * b.x[static_cast<std::size_t>(eb.points[0])] + p.s * b.x[static_cast<std::size_t>(eb.points[1])];
        const Vec3 on_a = (1 - p.t) * a.x[static_cast<std::size_t>(ea.points[0])] + p.t * a.x[static_cast<std::size_t>(ea.points[1])];
        // The reference face is b's (the first's) bottom, the normal out of a towards b: the
        // plank's bottom normal negated. Each pair's gap is along it, between the two points.
        const Vec3 bottom = turn * -Vec3::UnitZ();
        CHECK((p.normal + bottom).norm() < 1e-12);
        CHECK(p.gap == Approx(p.normal.dot(on_b - on_a)).margin(1e-12));
        CHECK(p.gap > 0.0);
        CHECK(p.gap < 0.02);
        // a's point on a's top edge, b's point on b's bottom face, the two along b's bottom normal.
        CHECK(on_a.z() == Approx(0.05).margin(1e-12));
        CHECK(std::max(std::abs(on_a.x()), std::abs(on_a.y())) == Approx(0.5).margin(1e-12));
        CHECK((on_b - on_a).cross(bottom).norm() < 1e-12);
        CHECK(p.s > 0.0);
        CHECK(p.s < 1.0);
        CHECK(p.t > 0.0);
        CHECK(p.t < 1.0);
    }
    CHECK(crossings == 2);
}
