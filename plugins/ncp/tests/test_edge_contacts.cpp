// Edge-edge contacts between convex polyhedra (edge_contacts.hpp): a box's edges, the Gauss-map
// arc test (Gregorius 2013), the closest points of two segments (Ericson 2005, section 5.1.9),
// and the pairs kept for crossed bars, stacked boxes, a box on a larger one, separated boxes, two
// boxes edge on edge at 45 degrees and a deep, spurious pair that the separating-axis rule drops.
//
// Tolerances: the boxes' coordinates are O(1) m, so positions, normals and gaps carry round-off
// of a few 1e-16; 1e-12 leaves a factor ~1000 and still fails on any geometric error (the
// smallest feature is 0.1 m, the smallest offset tested 1e-9 m is above it only in the stacked
// case, where only counts are checked).
#include "test_boxes.hpp"

#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace {

using namespace soma;
using namespace soma::ncp;
using namespace soma::ncp::test;

constexpr double kMargin = 1e-3;  // ncp_contact's default margin (m)

std::vector<EdgePair> pairs_of(const Box& a, const Box& b, double reach = kMargin) {
    std::vector<EdgePair> pairs;
    supporting_edge_pairs(a.features(), b.features(), kMargin, reach, pairs);
    return pairs;
}

Vec3 point_on(const Box& box, const PolyhedronEdge& edge, double s) {
    return (1.0 - s) * box.x[static_cast<std::size_t>(edge.points[0])] + s * box.x[static_cast<std::size_t>(edge.points[1])];
}

/// The supporting pairs of a and b (arcs intersect) with their gaps, before the ends and depth rules.
struct RawPair {
    double gap, s, t;
    double length_a, length_b;
};
std::vector<RawPair> supporting_pairs(const Box& a, const Box& b) {
    std::vector<RawPair> raw;
    for (std::size_t i = 0; i < a.edges.size(); ++i)
        for (std::size_t j = 0; j < b.edges.size(); ++j) {
            const PolyhedronEdge &ea = a.edges[i], &eb = b.edges[j];
            const Vec3 &a0 = a.x[static_cast<std::size_t>(ea.points[0])], &a1 = a.x[static_cast<std::size_t>(ea.points[1])];
            const Vec3 &b0 = b.x[static_cast<std::size_t>(eb.points[0])], &b1 = b.x[static_cast<std::size_t>(eb.points[1])];
            Vec3 n;
            if (!supporting_edge_normal(a1 - a0, a.normals[ea.faces[0]], a.normals[ea.faces[1]], a.edge_axes[i], b1 - b0,
                                        b.normals[eb.faces[0]], b.normals[eb.faces[1]], b.edge_axes[j], n))
                continue;
            double s = 0.0, t = 0.0;
            segment_closest_points(a0, a1, b0, b1, s, t);
            raw.push_back({n.dot((a0 + s * (a1 - a0)) - (b0 + t * (b1 - b0))), s, t, (a1 - a0).norm(), (b1 - b0).norm()});
        }
    return raw;
}

bool interior(const RawPair& p) {
    return p.s * p.length_a > kMargin && (1 - p.s) * p.length_a > kMargin && p.t * p.length_b > kMargin &&
           (1 - p.t) * p.length_b > kMargin;
}

double best_face_axis(const Box& a, const Box& b) {
    return std::max(face_separation(a.solid.faces, a.normals, a.x, b.solid.vertices, b.x),
                    face_separation(b.solid.faces, b.normals, b.x, a.solid.vertices, a.x));
}

}  // namespace

TEST_CASE("edge contacts: a box has 12 edges, each along an axis, and no face diagonal", "[ncp][edge_contacts]") {
    for (const Eigen::Matrix3d& r : {Eigen::Matrix3d(Eigen::Matrix3d::Identity()), rotation(0.7, Vec3(1, 2, 3))}) {
        const Box box = make_box(Vec3(1.0, 0.1, 0.2), r, Vec3(0.3, -0.2, 1.0));
        REQUIRE(box.edges.size() == 12);
        std::vector<int> per_corner(8, 0);
        for (const PolyhedronEdge& e : box.edges) {
            // A box's edge joins two corners that differ in one bit (one axis); a diagonal in two.
            const int differ = e.points[0] ^ e.points[1];
            CHECK((differ == 1 || differ == 2 || differ == 4));
            ++per_corner[static_cast<std::size_t>(e.points[0])];
            ++per_corner[static_cast<std::size_t>(e.points[1])];
            // Its two faces are perpendicular, and both contain it.
            const Vec3 &n0 = box.normals[e.faces[0]], &n1 = box.normals[e.faces[1]];
            CHECK(std::abs(n0.dot(n1)) < 1e-12);
            const Vec3 d = box.x[static_cast<std::size_t>(e.points[1])] - box.x[static_cast<std::size_t>(e.points[0])];
            CHECK(std::abs(n0.dot(d)) < 1e-12);
            CHECK(std::abs(n1.dot(d)) < 1e-12);
        }
        for (const int count : per_corner) CHECK(count == 3);
    }
    // Without the flat-face rule the six face diagonals are edges too (the rule is what drops them).
    const Box box = make_box(Vec3(1, 1, 1), Eigen::Matrix3d::Identity(), Vec3::Zero());
    CHECK(polyhedron_edges(box.solid.faces, box.x, -1.0).size() == 18);
}

TEST_CASE("edge contacts: the cone of an edge's face normals and the closest points of two segments",
          "[ncp][edge_contacts]") {
    const Vec3 z = Vec3::UnitZ(), x = Vec3::UnitX();
    CHECK(in_edge_cone((x + z).normalized(), z, x, edge_cone_axis(z, x)));
    CHECK(in_edge_cone(z, z, x, edge_cone_axis(z, x)));   // on the boundary: inclusive
    CHECK(in_edge_cone(x, z, x, edge_cone_axis(z, x)));
    CHECK_FALSE(in_edge_cone(-x, z, x, edge_cone_axis(z, x)));
    CHECK_FALSE(in_edge_cone((z - 1e-3 * x).normalized(), z, x, edge_cone_axis(z, x)));  // 1e-3 rad outside
    CHECK(in_edge_cone((z - 1e-7 * x).normalized(), z, x, edge_cone_axis(z, x)));        // within the tolerance 1e-6
    CHECK_FALSE(in_edge_cone((z - 1e-7 * x).normalized(), z, x, edge_cone_axis(z, x), 0.0));

    double s = 0.0, t = 0.0;
    // Crossing lines: x axis at z = 1 against y axis at z = 0, crossing at (0.25, 0.5).
    segment_closest_points(Vec3(-0.25, 0, 1), Vec3(0.75, 0, 1), Vec3(0.25, -0.5, 0), Vec3(0.25, 1.5, 0), s, t);
    CHECK(s == Approx(0.5).margin(1e-15));
    CHECK(t == Approx(0.25).margin(1e-15));
    // The lines cross beyond a's end: a's end and b's point nearest to it.
    segment_closest_points(Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(2, -1, 0), Vec3(2, 1, 0), s, t);
    CHECK(s == 1.0);
    CHECK(t == Approx(0.5).margin(1e-15));
    // Parallel and overlapping over [0.5, 1]: one pair of the closest points, b's start and a's
    // point above it, 1 m apart.
    segment_closest_points(Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0.5, 0, 0), Vec3(3, 0, 0), s, t);
    CHECK(s == Approx(0.5).margin(1e-15));
    CHECK(t == 0.0);
}

TEST_CASE("edge contacts: crossed bars touching meet at the four crossing points, normal out of the lower",
          "[ncp][edge_contacts]") {
    // Bar A (1 x 0.1 x 0.1) along x lying on bar B along y: A's bottom z = 0.05 = B's top. No
    // corner of either is over the other's face; the bottom edges of A cross the top edges of B
    // at (+-0.05, +-0.05, 0.05).
    for (const bool turned : {false, true}) {
        // Turned: the whole scene rotated about a generic axis, so that the faces' parallelism holds
        // only to round-off and the arcs meet within the cone tolerance, not exactly.
        INFO("turned " << turned);
        const Eigen::Matrix3d r = turned ? rotation(1.1, Vec3(-2, 1, 3)) : Eigen::Matrix3d(Eigen::Matrix3d::Identity());
        const Vec3 shift(0.2, -0.3, 0.4);
        const Box a = make_box(Vec3(1, 0.1, 0.1), r, shift + r * Vec3(0, 0, 0.1));
        const Box b = make_box(Vec3(0.1, 1, 0.1), r, shift);
        const std::vector<EdgePair> pairs = pairs_of(a, b);
        REQUIRE(pairs.size() == 4);
        std::vector<Vec3> expected = {Vec3(0.05, 0.05, 0.05), Vec3(0.05, -0.05, 0.05), Vec3(-0.05, 0.05, 0.05),
                                      Vec3(-0.05, -0.05, 0.05)};
        for (const EdgePair& p : pairs) {
            CHECK((p.normal - r * Vec3::UnitZ()).norm() < 1e-12);  // out of B (below), towards A
            CHECK(std::abs(p.gap) < 1e-12);
            const Vec3 pa = point_on(a, a.edges[p.edge_a], p.s), pb = point_on(b, b.edges[p.edge_b], p.t);
            CHECK((pa - pb).norm() < 1e-12);
            const Vec3 local = r.transpose() * (pa - shift);
            const auto hit = std::find_if(expected.begin(), expected.end(), [&](const Vec3& e) { return (e - local).norm() < 1e-12; });
            CHECK(hit != expected.end());
            if (hit != expected.end()) expected.erase(hit);
        }
        CHECK(expected.empty());  // each crossing point once
        // Swapped, the same four with the normal out of A, downwards.
        const std::vector<EdgePair> swapped = pairs_of(b, a);
        REQUIRE(swapped.size() == 4);
        for (const EdgePair& p : swapped) CHECK((p.normal + r * Vec3::UnitZ()).norm() < 1e-12);
    }
    // Sunk 5 mm into B, the pairs are the true contact (their depth is the best face axis's), kept.
    const Box a = make_box(Vec3(1, 0.1, 0.1), Eigen::Matrix3d::Identity(), Vec3(0, 0, 0.095));
    const Box b = make_box(Vec3(0.1, 1, 0.1), Eigen::Matrix3d::Identity(), Vec3::Zero());
    CHECK(best_face_axis(a, b) == Approx(-0.005).margin(1e-12));
    const std::vector<EdgePair> sunk = pairs_of(a, b);
    REQUIRE(sunk.size() == 4);
    for (const EdgePair& p : sunk) CHECK(p.gap == Approx(-0.005).margin(1e-12));
}

TEST_CASE("edge contacts: none between two equal boxes stacked exactly, a small box on a large one, or boxes apart",
          "[ncp][edge_contacts]") {
    const Eigen::Matrix3d identity = Eigen::Matrix3d::Identity();
    // The heavy stack's situation: unit cubes, one on the other. Their edges coincide (parallel) or
    // meet at the corners; arcs of non-parallel edges do meet there (gap 0): the ends rule drops them.
    const Box low = make_box(Vec3(1, 1, 1), identity, Vec3(0, 0, 0.5));
    const Box high = make_box(Vec3(1, 1, 1), identity, Vec3(0, 0, 1.5));
    const std::vector<RawPair> raw = supporting_pairs(high, low);
    const auto touching = std::count_if(raw.begin(), raw.end(), [](const RawPair& p) { return std::abs(p.gap) <= kMargin; });
    CHECK(touching > 0);  // the arcs and the gap alone would keep them
    CHECK(std::none_of(raw.begin(), raw.end(), [](const RawPair& p) { return std::abs(p.gap) <= kMargin && interior(p); }));
    CHECK(pairs_of(high, low).empty());
    CHECK(pairs_of(low, high).empty());
    // Settled by the solver's tolerances (1e-9 m sunk and shifted, 1e-9 rad turned): still none.
    const Box settled = make_box(Vec3(1, 1, 1), rotation(1e-9, Vec3(1, 1, 1)), Vec3(1e-9, -1e-9, 1.5 - 1e-9));
    CHECK(pairs_of(settled, low).empty());

    // A 0.5 m cube centred on a unit cube: its bottom edges lie inside the top face.
    const Box small = make_box(Vec3(0.5, 0.5, 0.5), identity, Vec3(0, 0, 1.25));
    CHECK(pairs_of(small, low).empty());

    // Crossed bars 2 mm apart: beyond the margin (1 mm), none; with a reach of 3 mm (the margin and
    // the step's motion) the four crossing pairs, 2 mm apart.
    const Box bar_a = make_box(Vec3(1, 0.1, 0.1), identity, Vec3(0, 0, 0.102));
    const Box bar_b = make_box(Vec3(0.1, 1, 0.1), identity, Vec3::Zero());
    CHECK(pairs_of(bar_a, bar_b).empty());
    const std::vector<EdgePair> within = pairs_of(bar_a, bar_b, 3e-3);
    REQUIRE(within.size() == 4);
    for (const EdgePair& p : within) CHECK(p.gap == Approx(0.002).margin(1e-12));
}

TEST_CASE("edge contacts: a box edge up under a box edge down at 90 degrees touch at one point", "[ncp][edge_contacts]") {
    // Lower cube (0.2 m) turned 45 degrees about x: its top edge runs along x at z = 0.2/sqrt(2).
    // Upper cube turned 45 degrees about y: its bottom edge runs along y, placed on that edge.
    const double a = 0.2, reach = a / std::numbers::sqrt2;
    const Box lower = make_box(Vec3(a, a, a), rotation(std::numbers::pi / 4, Vec3::UnitX()), Vec3::Zero());
    const Box upper = make_box(Vec3(a, a, a), rotation(std::numbers::pi / 4, Vec3::UnitY()), Vec3(0, 0, 2 * reach));
    const std::vector<EdgePair> pairs = pairs_of(upper, lower);
    REQUIRE(pairs.size() == 1);
    const EdgePair& p = pairs[0];
    CHECK((p.normal - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(std::abs(p.gap) < 1e-12);
    CHECK(p.s == Approx(0.5).margin(1e-12));  // the middle of both edges
    CHECK(p.t == Approx(0.5).margin(1e-12));
    CHECK((point_on(upper, upper.edges[p.edge_a], p.s) - Vec3(0, 0, reach)).norm() < 1e-12);
    CHECK((point_on(lower, lower.edges[p.edge_b], p.t) - Vec3(0, 0, reach)).norm() < 1e-12);
    // The corners are 0.1 m from the other box: the vertex-face search finds nothing here.
    CHECK(best_face_axis(upper, lower) < -0.05);
}

TEST_CASE("edge contacts: a deep pair along an edge axis is spurious when a face axis is shallower",
          "[ncp][edge_contacts]") {
    // A 0.5 m cube turned 45 degrees about z, sunk 5 mm into the top of a 2 x 2 x 1 m box. Its
    // vertical edges against the large top's edges, and its bottom edges against the large box's
    // vertical edges, are supporting pairs whose closest points are inside both edges, with gaps
    // of about -1.35 m and -1.66 m: along those axes the boxes overlap deeply, but the contact is
    // the top face's, 5 mm deep (the corners of the small cube, found by the vertex-face search).
    const Box large = make_box(Vec3(2, 2, 1), Eigen::Matrix3d::Identity(), Vec3(0, 0, 0.5));
    const Box small = make_box(Vec3(0.5, 0.5, 0.5), rotation(std::numbers::pi / 4, Vec3::UnitZ()), Vec3(0, 0, 1.245));
    const double face_axis = best_face_axis(small, large);
    CHECK(face_axis == Approx(-0.005).margin(1e-12));
    const std::vector<RawPair> raw = supporting_pairs(small, large);
    std::size_t spurious = 0;
    for (const RawPair& p : raw)
        if (interior(p) && p.gap <= kMargin) {
            CHECK(p.gap < face_axis - 1.0);  // all of them far deeper than the face axis
            ++spurious;
        }
    CHECK(spurious == 8);  // four vertical edges x their nearest top edge, four bottom edges x a vertical edge
    CHECK(pairs_of(small, large).empty());
    CHECK(pairs_of(large, small).empty());
}

namespace {

/// The separating-axis value of two boxes over their 15 axes (3 + 3 face normals, 9 edge cross
/// products), from their corners alone: the largest separation of their projections, which for
/// boxes is the distance apart or, negative, the penetration depth (Gottschalk et al. 1996).
double box_separation(const Box& a, const Box& b) {
    const auto axes_of = [](const Box& box) {
        return std::array<Vec3, 3>{(box.x[1] - box.x[0]).normalized(), (box.x[2] - box.x[0]).normalized(),
                                   (box.x[4] - box.x[0]).normalized()};
    };
    const auto ua = axes_of(a), ub = axes_of(b);
    std::vector<Vec3> axes(ua.begin(), ua.end());
    axes.insert(axes.end(), ub.begin(), ub.end());
    for (const Vec3& u : ua)
        for (const Vec3& v : ub)
            if (u.cross(v).norm() > 1e-9) axes.push_back(u.cross(v).normalized());
    double best = -std::numeric_limits<double>::infinity();
    for (const Vec3& l : axes) {
        double a_low = std::numeric_limits<double>::infinity(), a_high = -a_low, b_low = a_low, b_high = -a_low;
        for (const Vec3& p : a.x) {
            a_low = std::min(a_low, l.dot(p));
            a_high = std::max(a_high, l.dot(p));
        }
        for (const Vec3& p : b.x) {
            b_low = std::min(b_low, l.dot(p));
            b_high = std::max(b_high, l.dot(p));
        }
        best = std::max(best, std::max(b_low - a_high, a_low - b_high));
    }
    return best;
}

}  // namespace

TEST_CASE("edge contacts: no kept pair is deeper than the two boxes' penetration (random boxes, exact depth by the "
          "separating-axis theorem)",
          "[edge_contacts]") {
    // Random sizes, turns and directions; the second box slid along its direction until the
    // boxes overlap by a chosen depth (bisection on the 15-axis value). The rule keeps a pair only
    // if it is not deeper than the shallowest axis by more than the margin, faces' and edges'
    // alike (with the face axes alone, about 1 in 120 kept pairs was spurious at depths up to
    // 2 cm, up to 2.7 mm deeper than the boxes' penetration).
    std::mt19937 random(20261129);
    std::uniform_real_distribution<double> unit(-1.0, 1.0), size(0.1, 1.0), depth(0.0, 0.02);
    const auto direction = [&] {
        Vec3 v;
        do v = Vec3(unit(random), unit(random), unit(random));
        while (v.norm() < 0.1 || v.norm() > 1.0);
        return Vec3(v.normalized());
    };
    int kept = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const Box a = make_box(Vec3(size(random), size(random), size(random)), rotation(3.0 * unit(random), direction()), Vec3::Zero());
        const Vec3 b_size(size(random), size(random), size(random));
        const Eigen::Matrix3d b_turn = rotation(3.0 * unit(random), direction());
        const Vec3 along = direction();
        const double target = -depth(random);
        double near = 0.0, far = 3.0;  // at 0 they overlap deeply, at 3 m they are apart
        for (int k = 0; k < 60; ++k) {
            const double mid = 0.5 * (near + far);
            (box_separation(a, make_box(b_size, b_turn, mid * along)) < target ? near : far) = mid;
        }
        const Box b = make_box(b_size, b_turn, far * along);
        const double separation = box_separation(a, b);
        for (const EdgePair& pair : pairs_of(a, b, 0.05)) {
            ++kept;
            INFO("trial " << trial << ": pair gap " << pair.gap << ", boxes' separation " << separation);
            // Round-off of O(1) m coordinates: 1e-12.
            CHECK(pair.gap >= separation - kMargin - 1e-12);
        }
    }
    CHECK(kept > 1000);  // the check saw pairs (measured: see the docs' section 11.5)
}
