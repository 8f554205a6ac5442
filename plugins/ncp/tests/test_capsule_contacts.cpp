// A capsule's side against another capsule and against a box's edges (capsule_contacts.hpp):
// crossed capsules, a capsule across a box's top edge, a capsule lying across a box with its ends
// overhanging (the bottom edges beneath are dropped by the depth rule), parallel and end-near
// configurations left to the end candidates, and random capsules against a box checked against
// an independent distance (golden-section minimisation of the point-to-box distance along the
// axis).
//
// Tolerances: coordinates are O(1) m, so gaps and normals carry round-off of a few 1e-16; 1e-12
// leaves a factor ~1000. The random oracle converges the distance along the axis to ~1e-15 m (the
// distance is convex along the axis; 200 golden-section steps shrink the bracket far below
// round-off), and its value is flat at the minimum, so 1e-9 m is ample and still far below any
// geometric error (the smallest feature is 0.02 m).
#include "../capsule_contacts.hpp"
#include "test_boxes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace {

using namespace soma;
using namespace soma::ncp;
using namespace soma::ncp::test;

constexpr double kMargin = 1e-3;  // ncp_contact's default margin (m)

CapsuleAxis capsule(const Vec3& centre, const Vec3& direction, double length, double radius) {
    const Vec3 half = 0.5 * length * direction.normalized();
    return {centre - half, centre + half, radius};
}

std::vector<EdgePair> pairs_of(const CapsuleAxis& a, const Box& b, double reach = kMargin) {
    std::vector<EdgePair> pairs;
    capsule_edge_pairs(a, b.features(), kMargin, reach, pairs);
    return pairs;
}

}  // namespace

TEST_CASE("capsule_side_pair: crossed capsules touch at their axes' common perpendicular", "[ncp][capsule]") {
    // a along x at height h over b, which lies along (cos phi, sin phi, 0): the axes are h apart
    // along z, at both centres.
    for (const double phi : {std::numbers::pi / 2, std::numbers::pi / 3, 0.2}) {
        INFO("phi " << phi);
        const double h = 0.13;
        const CapsuleAxis a = capsule(Vec3(0.1, -0.2, h), Vec3::UnitX(), 1.0, 0.05);
        const CapsuleAxis b = capsule(Vec3(0.1, -0.2, 0.0), Vec3(std::cos(phi), std::sin(phi), 0.0), 0.8, 0.07);
        EdgePair pair;
        REQUIRE(capsule_side_pair(a, b, kMargin, 1.0, Vec3::UnitZ(), pair));
        CHECK(pair.gap == Approx(h - 0.05 - 0.07).margin(1e-12));
        CHECK((pair.normal - Vec3::UnitZ()).norm() < 1e-12);  // out of b, towards a
        CHECK(pair.s == Approx(0.5).margin(1e-12));
        CHECK(pair.t == Approx(0.5).margin(1e-12));
        // Swapped, the normal turns: still out of the second towards the first.
        REQUIRE(capsule_side_pair(b, a, kMargin, 1.0, -Vec3::UnitZ(), pair));
        CHECK((pair.normal + Vec3::UnitZ()).norm() < 1e-12);
        // Beyond the reach: nothing.
        CHECK_FALSE(capsule_side_pair(a, b, kMargin, h - 0.12 - 1e-6, Vec3::UnitZ(), pair));
    }
    // Axes crossing exactly (capsules deep in each other): the normal is the axes' cross product,
    // signed by the direction from b towards a that the caller passes.
    const CapsuleAxis a = capsule(Vec3::Zero(), Vec3::UnitX(), 1.0, 0.05);
    const CapsuleAxis b = capsule(Vec3::Zero(), Vec3::UnitY(), 1.0, 0.05);
    EdgePair pair;
    REQUIRE(capsule_side_pair(a, b, kMargin, 1.0, Vec3(0.3, 0.1, -1.0), pair));
    CHECK((pair.normal + Vec3::UnitZ()).norm() < 1e-12);
    CHECK(pair.gap == Approx(-0.1).margin(1e-12));
    REQUIRE(capsule_side_pair(a, b, kMargin, 1.0, Vec3(0.3, 0.1, 1.0), pair));
    CHECK((pair.normal - Vec3::UnitZ()).norm() < 1e-12);
}

TEST_CASE("capsule_side_pair leaves parallel capsules and contacts near an end to the end candidates", "[ncp][capsule]") {
    EdgePair pair;
    // Side by side, parallel: their ends meet the other's axis (point candidates).
    CHECK_FALSE(capsule_side_pair(capsule(Vec3(0, 0, 0.1), Vec3::UnitX(), 1.0, 0.05),
                                  capsule(Vec3::Zero(), Vec3::UnitX(), 1.0, 0.05), kMargin, 1.0, Vec3::UnitZ(), pair));
    // a's end over b's middle (its closest point 0.5 mm from a's end, within the margin).
    CHECK_FALSE(capsule_side_pair(capsule(Vec3(0.4995, 0, 0.1), Vec3::UnitX(), 1.0, 0.05),
                                  capsule(Vec3::Zero(), Vec3::UnitY(), 1.0, 0.05), kMargin, 1.0, Vec3::UnitZ(), pair));
    // 2 mm in from a's end, beyond the margin: the side.
    CHECK(capsule_side_pair(capsule(Vec3(0.498, 0, 0.1), Vec3::UnitX(), 1.0, 0.05),
                            capsule(Vec3::Zero(), Vec3::UnitY(), 1.0, 0.05), kMargin, 1.0, Vec3::UnitZ(), pair));
    // Past the end: closest points clamped to a's end.
    CHECK_FALSE(capsule_side_pair(capsule(Vec3(0.6, 0, 0.1), Vec3::UnitX(), 1.0, 0.05),
                                  capsule(Vec3::Zero(), Vec3::UnitY(), 1.0, 0.05), kMargin, 1.0, Vec3::UnitZ(), pair));
}

TEST_CASE("capsule_edge_pairs: a capsule leaning over a box's top edge, and one lying across a box", "[ncp][capsule]") {
    const Box box = make_box(Vec3(1, 1, 1), Eigen::Matrix3d::Identity(), Vec3::Zero());
    // Leaning at 45 degrees over the top edge x = z = 0.5 (along y): its axis passes c (1, 0, 1)
    // from the edge, normal (1, 0, 1)/sqrt 2; its ends are 0.35 m clear of the box.
    const double c = 0.03, r = 0.02;
    const std::vector<EdgePair> leaning =
        pairs_of(capsule(Vec3(0.5 + c, 0.1, 0.5 + c), Vec3(1, 0, -1), 1.0, r), box, 1.0);
    REQUIRE(leaning.size() == 1);
    CHECK(leaning[0].gap == Approx(c * std::numbers::sqrt2 - r).margin(1e-12));
    CHECK((leaning[0].normal - Vec3(1, 0, 1).normalized()).norm() < 1e-12);
    CHECK(leaning[0].s == Approx(0.5).margin(1e-12));
    const PolyhedronEdge& edge = box.edges[leaning[0].edge_b];
    const Vec3 on_edge = (1.0 - leaning[0].t) * box.x[static_cast<std::size_t>(edge.points[0])] +
                         leaning[0].t * box.x[static_cast<std::size_t>(edge.points[1])];
    CHECK((on_edge - Vec3(0.5, 0.1, 0.5)).norm() < 1e-12);
    // Tilted the other way, above the top (its lower end 3 cm over the top face): its axis's
    // perpendicular to the edge, +-(-1, 0, 1)/sqrt 2, lies outside the edge's cone; the face is
    // nearer, and its lower end meets it.
    CHECK(pairs_of(capsule(Vec3(0.5, 0.1, 0.5 + 0.5 / std::numbers::sqrt2 + 0.05), Vec3(1, 0, 1), 1.0, r), box, 1.0).empty());

    // Lying across the top, 0.5 mm into it, its ends 0.5 m beyond: the two top edges it crosses
    // (normal +z, gap -0.5 mm). The bottom edges beneath are supporting pairs too (n = -z), a
    // metre deep: the depth rule drops them.
    for (const double turn : {0.0, 0.4}) {
        const std::vector<EdgePair> lying =
            pairs_of(capsule(Vec3(0, 0.1, 0.5 + r - 5e-4), Vec3(std::cos(turn), std::sin(turn), 0), 2.0, r), box, 2.0);
        REQUIRE(lying.size() == 2);
        for (const EdgePair& p : lying) {
            CHECK(p.gap == Approx(-5e-4).margin(1e-12));
            CHECK((p.normal - Vec3::UnitZ()).norm() < 1e-12);
        }
    }
    // Parallel to an edge: the ends' business.
    CHECK(pairs_of(capsule(Vec3(0.52, 0, 0.52), Vec3::UnitY(), 0.5, r), box, 1.0).empty());
}

TEST_CASE("capsule_edge_pairs agree with the exact distance of random capsules to a box", "[ncp][capsule]") {
    // Oracle: the distance from the axis to the box, minimised along the axis by golden section
    // (convex: the distance to a convex set along a line), and the box's closest feature there
    // (coordinates clamped in its frame: two clamped is an edge). Whenever that minimum is inside
    // the axis and on an edge's inside (both by more than the margin), the pairs must contain it
    // with that gap; any pair's gap is a distance between two points of the solids, so never
    // below the true one.
    std::mt19937 random(7);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const Vec3 size(0.6, 0.4, 0.3);
    const Eigen::Matrix3d turn = rotation(0.7, Vec3(1, 2, 3));
    const Vec3 centre(0.1, -0.2, 0.3);
    const Box box = make_box(size, turn, centre);
    const auto box_distance = [&](const Vec3& x, int& clamped) {
        const Vec3 local = turn.transpose() * (x - centre);
        clamped = 0;
        Vec3 nearest = local;
        for (int k = 0; k < 3; ++k) {
            const double h = 0.5 * size[k];
            if (std::abs(local[k]) > h) {
                nearest[k] = std::copysign(h, local[k]);
                ++clamped;
            }
        }
        return (local - nearest).norm();
    };
    int edges_expected = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const Vec3 middle = centre + Vec3(0.6 * unit(random), 0.5 * unit(random), 0.45 * unit(random));
        const Vec3 direction(unit(random), unit(random), unit(random));
        if (direction.norm() < 0.1) continue;
        const CapsuleAxis a = capsule(middle, direction, 0.3 + 0.5 * std::abs(unit(random)), 0.02 + 0.03 * std::abs(unit(random)));
        const Vec3 da = a.end1 - a.end0;
        int clamped = 0;
        const auto f = [&](double s) { return box_distance(a.end0 + s * da, clamped); };
        double lo = 0.0, hi = 1.0;
        const double golden = 0.5 * (std::sqrt(5.0) - 1.0);
        for (int k = 0; k < 200; ++k) {
            const double m1 = hi - golden * (hi - lo), m2 = lo + golden * (hi - lo);
            if (f(m1) < f(m2)) hi = m2; else lo = m1;
        }
        const double s = 0.5 * (lo + hi);
        const double distance = f(s);
        if (!(distance > 1e-6)) continue;  // the axis inside the box: the oracle has no depth
        const double gap = distance - a.radius;
        const std::vector<EdgePair> pairs = pairs_of(a, box, 10.0);
        for (const EdgePair& p : pairs) CHECK(p.gap >= gap - 1e-9);
        // On an edge, inside the axis and the edge by more than the margin (and by 10 margins from
        // the borders of the classification, where round-off in the oracle could flip it).
        const Vec3 local = turn.transpose() * (a.end0 + s * da - centre);
        bool clear = s * da.norm() > 10 * kMargin && (1.0 - s) * da.norm() > 10 * kMargin;
        for (int k = 0; k < 3; ++k) clear = clear && std::abs(std::abs(local[k]) - 0.5 * size[k]) > 10 * kMargin;
        if (clamped != 2 || !clear) continue;
        ++edges_expected;
        INFO("trial " << trial << ", distance " << distance);
        REQUIRE_FALSE(pairs.empty());
        double smallest = pairs[0].gap;
        for (const EdgePair& p : pairs) smallest = std::min(smallest, p.gap);
        CHECK(smallest == Approx(gap).margin(1e-9));
    }
    // The draw must exercise the edges (measured: several hundred of the 4000).
    CHECK(edges_expected > 100);
}
