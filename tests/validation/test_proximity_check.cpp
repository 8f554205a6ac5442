// The independent proximity checker (proximity_check.hpp) against known configurations, a
// golden-section minimisation, brute-force grids and the Lipschitz bound the contact tests use.
//
// The checker is what the contact validation tests trust to say that no two edges came closer
// than a bound, so it is checked here by methods that share nothing with it: the segment distance
// by golden section over t with the clamped projection for u written out again, and by a grid
// over (t, u); the point-triangle distance by a grid over barycentric coordinates. The random
// cases use a fixed seed, so a failure reproduces.
#include "proximity_check.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

using namespace soma;
using namespace soma::validation;

namespace {

/// min over t in [0, 1] of the distance from a0 + t e1 to segment b, by golden section. The
/// function is convex in t (the distance to a convex set, along a line), so the bracket keeps the
/// minimiser; 120 reductions by 0.618 shrink it to 1e-25, far below round-off, so the result is
/// the minimum to round-off (the distance is |e1|-Lipschitz in t).
double golden_section_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
    const Vec3 e1 = a1 - a0, e2 = b1 - b0;
    const auto g = [&](double t) {
        const Vec3 p = a0 + t * e1;
        const double e2_2 = e2.squaredNorm();
        const double u = e2_2 > 0.0 ? std::min(1.0, std::max(0.0, (p - b0).dot(e2) / e2_2)) : 0.0;
        return (p - b0 - u * e2).norm();
    };
    const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
    double lo = 0.0, hi = 1.0;
    double x1 = hi - ratio * (hi - lo), x2 = lo + ratio * (hi - lo);
    double g1 = g(x1), g2 = g(x2);
    for (int i = 0; i < 120; ++i) {
        if (g1 <= g2) {
            hi = x2;
            x2 = x1;
            g2 = g1;
            x1 = hi - ratio * (hi - lo);
            g1 = g(x1);
        } else {
            lo = x1;
            x1 = x2;
            g1 = g2;
            x2 = lo + ratio * (hi - lo);
            g2 = g(x2);
        }
    }
    return std::min({g1, g2, g(0.0), g(1.0)});
}

Vec3 random_point(std::mt19937& rng, double scale) {
    std::uniform_real_distribution<double> coordinate(-scale, scale);
    return Vec3(coordinate(rng), coordinate(rng), coordinate(rng));
}

}  // namespace

TEST_CASE("proximity: segment distance in known configurations", "[proximity]") {
    // Round-off of a few operations on coordinates of order 1: 1e-14 is hundreds of ulps.
    const double tol = 1e-14;
    const Vec3 o = Vec3::Zero();
    SECTION("perpendicular skew segments: the common perpendicular between their midpoints") {
        const auto d = segment_segment_distance(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, -1, 0.3), Vec3(0, 1, 0.3));
        CHECK(d.distance == Approx(0.3).margin(tol));
        CHECK(d.t == Approx(0.5).margin(tol));
        CHECK(d.u == Approx(0.5).margin(tol));
    }
    SECTION("parallel overlapping segments: their separation") {
        CHECK(segment_segment_distance(o, Vec3(2, 0, 0), Vec3(1, 1, 0), Vec3(3, 1, 0)).distance == Approx(1.0).margin(tol));
        // Antiparallel, and exactly parallel with no overlap (end to end, offset).
        CHECK(segment_segment_distance(o, Vec3(2, 0, 0), Vec3(3, 1, 0), Vec3(1, 1, 0)).distance == Approx(1.0).margin(tol));
        CHECK(segment_segment_distance(o, Vec3(1, 0, 0), Vec3(4, 4, 0), Vec3(5, 4, 0)).distance == Approx(5.0).margin(tol));
    }
    SECTION("collinear, disjoint: the gap between the ends") {
        CHECK(segment_segment_distance(o, Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(3, 0, 0)).distance == Approx(1.0).margin(tol));
    }
    SECTION("crossing segments: zero") {
        CHECK(segment_segment_distance(Vec3(-1, -1, 0), Vec3(1, 1, 0), Vec3(-1, 1, 0), Vec3(1, -1, 0)).distance <= tol);
    }
    SECTION("an end against the other's interior (T), and end to end") {
        const auto d = segment_segment_distance(o, Vec3(1, 0, 0), Vec3(2, -1, 1), Vec3(2, 1, 1));
        CHECK(d.distance == Approx(std::sqrt(2.0)).margin(tol));
        CHECK(d.t == 1.0);
        CHECK(d.u == Approx(0.5).margin(tol));
        CHECK(segment_segment_distance(o, Vec3(1, 0, 0), Vec3(2, 1, 0), Vec3(3, 5, 0)).distance == Approx(std::sqrt(2.0)).margin(tol));
    }
    SECTION("degenerate segments are points") {
        CHECK(segment_segment_distance(o, o, Vec3(1, 1, 0), Vec3(1, 1, 0)).distance == Approx(std::sqrt(2.0)).margin(tol));
        CHECK(segment_segment_distance(Vec3(0, 1, 0), Vec3(0, 1, 0), Vec3(-1, 0, 0), Vec3(1, 0, 0)).distance == Approx(1.0).margin(tol));
        CHECK(segment_segment_distance(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 1, 0)).distance == Approx(1.0).margin(tol));
    }
    SECTION("nearly parallel segments (1e-9 rad): the separation, without a spurious minimum") {
        // Over the overlap the separation varies by 1e-9 x length: the distance is the smallest.
        const double angle = 1e-9;
        const auto d = segment_segment_distance(o, Vec3(2, 0, 0), Vec3(1, 0.5, 0), Vec3(1 + 2 * std::cos(angle), 0.5 + 2 * std::sin(angle), 0));
        CHECK(d.distance == Approx(0.5).margin(tol));
    }
}

TEST_CASE("proximity: segment distance agrees with golden section and a grid on random pairs", "[proximity]") {
    std::mt19937 rng(20240611);
    for (int trial = 0; trial < 2000; ++trial) {
        // Segments of length ~1 around the origin, some nearly touching; every 4th pair is
        // nearly parallel (b = a shifted and turned by < 1e-6 rad) where the optimum is flat.
        const Vec3 a0 = random_point(rng, 1.0), a1 = random_point(rng, 1.0);
        Vec3 b0 = random_point(rng, 1.0), b1 = random_point(rng, 1.0);
        if (trial % 4 == 0) {
            const Vec3 shift = random_point(rng, 0.3);
            b0 = a0 + shift + random_point(rng, 1e-6);
            b1 = a1 + shift + random_point(rng, 1e-6);
        }
        const SegmentDistance d = segment_segment_distance(a0, a1, b0, b1);
        INFO("trial " << trial);
        // The reported points realise the distance (to round-off).
        CHECK((a0 + d.t * (a1 - a0) - b0 - d.u * (b1 - b0)).norm() == Approx(d.distance).margin(1e-14));
        // Golden section finds the minimum to round-off (see its comment): the two agree to
        // 1e-12 of the coordinates' scale (1), the accuracy the contact tests need (their
        // bounds are ~1e-3 of the rod radius).
        CHECK(d.distance == Approx(golden_section_distance(a0, a1, b0, b1)).margin(1e-12));
    }
    // A grid over (t, u) with n intervals: the exact minimum is below every grid value, and the
    // grid point nearest the minimiser is within (|e1| + |e2|)/(2n) of it.
    for (int trial = 0; trial < 100; ++trial) {
        const Vec3 a0 = random_point(rng, 1.0), a1 = random_point(rng, 1.0), b0 = random_point(rng, 1.0), b1 = random_point(rng, 1.0);
        const int n = 400;
        double grid = std::numeric_limits<double>::infinity();
        for (int i = 0; i <= n; ++i)
            for (int j = 0; j <= n; ++j)
                grid = std::min(grid, ((a0 + (a1 - a0) * i / n) - (b0 + (b1 - b0) * j / n)).norm());
        const double exact = segment_segment_distance(a0, a1, b0, b1).distance;
        INFO("trial " << trial);
        CHECK(exact <= grid + 1e-15);
        CHECK(grid - exact <= ((a1 - a0).norm() + (b1 - b0).norm()) / (2.0 * n));
    }
}

TEST_CASE("proximity: segment distance is 1-Lipschitz in each point (the contact tests' argument)", "[proximity]") {
    // Moving every endpoint by at most m moves every point of both segments by at most m, so the
    // distance changes by at most 2 m: the bound the knot test uses to rule out crossings between
    // sampled steps. Checked on the implementation, to round-off (1e-14).
    std::mt19937 rng(7);
    for (int trial = 0; trial < 2000; ++trial) {
        const Vec3 a0 = random_point(rng, 1.0), a1 = random_point(rng, 1.0), b0 = random_point(rng, 1.0), b1 = random_point(rng, 1.0);
        const double m = 1e-3;
        const auto move = [&](const Vec3& x) {
            Vec3 step = random_point(rng, 1.0);
            return Vec3(x + m * step / std::max(1.0, step.norm()));  // |step| <= m
        };
        const double before = segment_segment_distance(a0, a1, b0, b1).distance;
        const double after = segment_segment_distance(move(a0), move(a1), move(b0), move(b1)).distance;
        CHECK(std::abs(after - before) <= 2 * m + 1e-14);
    }
}

TEST_CASE("proximity: point-triangle distance, known cases and a barycentric grid", "[proximity]") {
    const double tol = 1e-14;  // round-off on coordinates of order 1
    const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
    CHECK(point_triangle_distance(Vec3(0.25, 0.25, 0.7), a, b, c) == Approx(0.7).margin(tol));   // above the interior
    CHECK(point_triangle_distance(Vec3(0.25, 0.25, -0.7), a, b, c) == Approx(0.7).margin(tol));  // below
    CHECK(point_triangle_distance(Vec3(0.5, -0.3, 0.4), a, b, c) == Approx(0.5).margin(tol));    // beside edge ab
    CHECK(point_triangle_distance(Vec3(-1, -1, 0), a, b, c) == Approx(std::sqrt(2.0)).margin(tol));  // nearest a corner
    CHECK(point_triangle_distance(Vec3(1, 1, 0), a, b, c) == Approx(std::sqrt(0.5)).margin(tol));    // across the hypotenuse
    CHECK(point_triangle_distance(Vec3(0.2, 0.2, 0), a, b, c) == 0.0);                                // in the triangle
    // A degenerate (collinear) triangle is its edges.
    CHECK(point_triangle_distance(Vec3(0.5, 1, 0), a, b, Vec3(2, 0, 0)) == Approx(1.0).margin(tol));

    std::mt19937 rng(11);
    for (int trial = 0; trial < 100; ++trial) {
        const Vec3 p = random_point(rng, 1.0), t0 = random_point(rng, 1.0), t1 = random_point(rng, 1.0), t2 = random_point(rng, 1.0);
        // Grid over barycentric coordinates (i, j, n - i - j)/n: the grid point nearest the
        // closest point is within max edge length / n of it.
        const int n = 400;
        double grid = std::numeric_limits<double>::infinity();
        for (int i = 0; i <= n; ++i)
            for (int j = 0; i + j <= n; ++j)
                grid = std::min(grid, (p - (t0 * i + t1 * j + t2 * (n - i - j)) / n).norm());
        const double exact = point_triangle_distance(p, t0, t1, t2);
        const double longest = std::max({(t1 - t0).norm(), (t2 - t1).norm(), (t0 - t2).norm()});
        INFO("trial " << trial);
        CHECK(exact <= grid + 1e-15);
        CHECK(grid - exact <= longest / n);
    }
}

TEST_CASE("proximity: point to a sphere's surface", "[proximity]") {
    CHECK(point_sphere_gap(Vec3(0, 0, 3), Vec3(0, 0, 1), 0.5) == Approx(1.5).margin(1e-15));
    CHECK(point_sphere_gap(Vec3(0, 0.2, 1), Vec3(0, 0, 1), 0.5) == Approx(-0.3).margin(1e-15));  // inside: negative
}

TEST_CASE("proximity: rod chains exclude neighbouring edges, as the contact plugin does", "[proximity]") {
    const double l = 1.0, h = 0.2;
    SECTION("a straight chain: only edges three apart or more are pairs") {
        std::vector<Vec3> chain;
        for (int k = 0; k < 6; ++k) chain.emplace_back(k * l, 0, 0);
        ContactMesh mesh = rod_chains({chain}, {std::vector<double>(5, h)});
        // Edges i, j with j >= i + 3: (0,3), (0,4), (1,4). (0,2) is excluded: edge 1 joins
        // their nodes 1 and 2.
        CHECK_FALSE(mesh.edges_excluded(0, 3));
        CHECK(mesh.edges_excluded(0, 2));
        CHECK(mesh.edges_excluded(0, 1));
        const Proximity p = edge_edge_proximity(mesh);
        CHECK(p.pairs == 3);
        CHECK(p.closest.distance == Approx(2 * l).margin(1e-14));  // edge 0 ends at x = 1, edge 3 starts at x = 3
        CHECK(p.closest.gap == Approx(2 * l - 2 * h).margin(1e-14));
    }
    SECTION("a hairpin: the closest pair faces it across the fold") {
        // Two legs s = 0.5 apart joined by a fold of two long edges out to x = 6; nodes 0..4 on
        // the lower leg, 6..10 back along the upper one. Across the fold the nearest pairs are
        // the legs' (the fold's edges are more than 1 from every non-excluded edge).
        const double s = 0.5;
        std::vector<Vec3> chain;
        for (int k = 0; k <= 4; ++k) chain.emplace_back(k * l, 0, 0);
        chain.emplace_back(6 * l, 0, 0.5 * s);
        for (int k = 4; k >= 0; --k) chain.emplace_back(k * l, 0, s);
        std::vector<double> thickness(chain.size() - 1, h);
        thickness[0] = 0.1;  // vary it: the smallest gap is then another pair than the smallest distance
        ContactMesh mesh = rod_chains({chain}, {thickness});
        const Proximity p = edge_edge_proximity(mesh);
        CHECK(p.closest.distance == Approx(s).margin(1e-14));
        CHECK(p.tightest.gap == Approx(s - 2 * h).margin(1e-14));
        CHECK(p.closest.gap >= p.tightest.gap);
        // The pair of smallest gap is not the thin edge 0's.
        CHECK(p.tightest.first != 0);
    }
    SECTION("two chains: self and cross pairs are selected apart") {
        std::vector<Vec3> lower, upper;
        for (int k = 0; k < 5; ++k) {
            lower.emplace_back(k * l, 0, 0);
            upper.emplace_back(2 * l, k * l - 2 * l, 0.3);  // crosses the lower chain at node 2
        }
        ContactMesh mesh = rod_chains({lower, upper}, {std::vector<double>(4, h), std::vector<double>(4, h)});
        const Proximity across = edge_edge_proximity(mesh, PairSet::across_elements);
        CHECK(across.pairs == 16);
        CHECK(across.closest.distance == Approx(0.3).margin(1e-14));
        const Proximity self = edge_edge_proximity(mesh, PairSet::self);
        CHECK(self.pairs == 2);  // (0, 3) in each chain
        CHECK(self.closest.distance == Approx(2 * l).margin(1e-14));
    }
}

TEST_CASE("proximity: a sheet folded onto itself", "[proximity]") {
    // A grid of 9 x 3 nodes (x = 0..8, y = 0..2), two triangles per unit square, folded at
    // x = 4 into a U: x <= 4 stays at z = 0, the column x = 5 stands over x = 4 at height s (the
    // crease's triangles are vertical), and x = 6..8 come back over x = 3..1. A node of the upper
    // half over a node of the lower half is s from the lower triangles at that node.
    const double s = 0.4, h = 0.05;
    ContactMesh mesh;
    const auto index = [](int x, int y) { return static_cast<Index>(y * 9 + x); };
    for (int y = 0; y <= 2; ++y)
        for (int x = 0; x <= 8; ++x) {
            mesh.nodes.push_back(x <= 4 ? Vec3(x, y, 0) : Vec3(9 - x, y, s));
            mesh.node_thickness.push_back(h);
            mesh.node_element.push_back(0);
        }
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 8; ++x) {
            mesh.triangles.push_back({index(x, y), index(x + 1, y), index(x + 1, y + 1)});
            mesh.triangles.push_back({index(x, y), index(x + 1, y + 1), index(x, y + 1)});
            mesh.triangle_element.insert(mesh.triangle_element.end(), {0, 0});
        }
    // The triangles' edges, each once.
    std::set<std::pair<Index, Index>> seen;
    for (const auto& t : mesh.triangles)
        for (int k = 0; k < 3; ++k) {
            const Index a = t[static_cast<std::size_t>(k)], b = t[static_cast<std::size_t>((k + 1) % 3)];
            if (!seen.insert({std::min(a, b), std::max(a, b)}).second) continue;
            mesh.edges.push_back({a, b});
            mesh.edge_thickness.push_back(h);
            mesh.edge_element.push_back(0);
        }
    mesh.build_adjacency();
    // A node is never paired with a triangle it is a corner of or next to.
    CHECK(mesh.node_triangle_excluded(index(0, 0), 0));
    CHECK(mesh.node_triangle_excluded(index(2, 1), 0));  // a neighbour of corner (1, 1)
    CHECK_FALSE(mesh.node_triangle_excluded(index(3, 0), 0));
    const Proximity nt = node_triangle_proximity(mesh);
    CHECK(nt.closest.distance == Approx(s).margin(1e-14));
    CHECK(nt.tightest.gap == Approx(s - 2 * h).margin(1e-14));
    // The closest node and triangle lie on opposite halves: the node at one height, the
    // triangle's three corners at the other.
    REQUIRE(nt.closest.first >= 0);
    const double node_z = mesh.nodes[static_cast<std::size_t>(nt.closest.first)].z();
    for (const Index corner : mesh.triangles[static_cast<std::size_t>(nt.closest.second)])
        CHECK(std::abs(mesh.nodes[static_cast<std::size_t>(corner)].z() - node_z) == Approx(s).margin(1e-15));
    const Proximity ee = edge_edge_proximity(mesh);
    CHECK(ee.closest.distance == Approx(s).margin(1e-14));
    // Unfolded (flat), a node's neighbours are the six around it (the diagonals run from (x, y)
    // to (x + 1, y + 1)); the nearest corner of a triangle with no neighbour among its corners is
    // across the other diagonal, (x + 1, y - 1): sqrt(2) away.
    for (auto& node : mesh.nodes) node.z() = 0.0;
    for (int y = 0; y <= 2; ++y)
        for (int x = 5; x <= 8; ++x) mesh.nodes[static_cast<std::size_t>(index(x, y))].x() = x;
    CHECK(node_triangle_proximity(mesh).closest.distance == Approx(std::sqrt(2.0)).margin(1e-14));
}

TEST_CASE("proximity: the box bound skips no pair that matters (against a plain search)", "[proximity]") {
    // A 12 x 6 grid sheet, two triangles per square, its nodes moved at random by up to 0.8 of
    // the spacing (a crumpled sheet whose triangles come close and cross), with a thickness that
    // varies per node so that the closest and the tightest pairs differ. The proximity functions
    // skip pairs by their boxes; the plain loop here evaluates every non-excluded pair. The box
    // distance is a lower bound of the pair's, so both give the same minima, to round-off (1e-15
    // on coordinates of order 10).
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> thickness(0.01, 0.2);
    for (int trial = 0; trial < 20; ++trial) {
        ContactMesh mesh;
        const int nx = 12, ny = 6;
        const auto index = [&](int x, int y) { return static_cast<Index>(y * (nx + 1) + x); };
        for (int y = 0; y <= ny; ++y)
            for (int x = 0; x <= nx; ++x) {
                mesh.nodes.push_back(Vec3(x, y, 0) + random_point(rng, 0.8));
                mesh.node_thickness.push_back(thickness(rng));
                mesh.node_element.push_back(x < nx / 2 ? 0 : 1);  // two elements, for the pair sets
            }
        std::set<std::pair<Index, Index>> seen;
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const Index element = x < nx / 2 ? 0 : 1;
                for (const std::array<Index, 3> t : {std::array<Index, 3>{index(x, y), index(x + 1, y), index(x + 1, y + 1)},
                                                     std::array<Index, 3>{index(x, y), index(x + 1, y + 1), index(x, y + 1)}}) {
                    mesh.triangles.push_back(t);
                    mesh.triangle_element.push_back(element);
                    for (int k = 0; k < 3; ++k) {
                        const Index a = t[static_cast<std::size_t>(k)], b = t[static_cast<std::size_t>((k + 1) % 3)];
                        if (!seen.insert({std::min(a, b), std::max(a, b)}).second) continue;
                        mesh.edges.push_back({a, b});
                        mesh.edge_thickness.push_back(0.5 * (mesh.node_thickness[static_cast<std::size_t>(a)] +
                                                             mesh.node_thickness[static_cast<std::size_t>(b)]));
                        mesh.edge_element.push_back(element);
                    }
                }
            }
        mesh.build_adjacency();
        const auto node = [&](Index n) { return mesh.nodes[static_cast<std::size_t>(n)]; };
        for (const PairSet set : {PairSet::all, PairSet::self, PairSet::across_elements}) {
            const auto take = [&](Index a, Index b) {
                return set == PairSet::all || (set == PairSet::self) == (a == b);
            };
            double closest = std::numeric_limits<double>::infinity(), tightest = closest;
            std::size_t pairs = 0;
            for (std::size_t i = 0; i < mesh.edges.size(); ++i)
                for (std::size_t j = i + 1; j < mesh.edges.size(); ++j) {
                    if (!take(mesh.edge_element[i], mesh.edge_element[j])) continue;
                    if (mesh.edges_excluded(static_cast<Index>(i), static_cast<Index>(j))) continue;
                    const auto &a = mesh.edges[i], &b = mesh.edges[j];
                    const double d = segment_segment_distance(node(a[0]), node(a[1]), node(b[0]), node(b[1])).distance;
                    closest = std::min(closest, d);
                    tightest = std::min(tightest, d - mesh.edge_thickness[i] - mesh.edge_thickness[j]);
                    ++pairs;
                }
            const Proximity ee = edge_edge_proximity(mesh, set);
            INFO("trial " << trial << ", pair set " << static_cast<int>(set));
            CHECK(ee.pairs == pairs);
            CHECK(ee.closest.distance == Approx(closest).margin(1e-15));
            CHECK(ee.tightest.gap == Approx(tightest).margin(1e-15));

            closest = tightest = std::numeric_limits<double>::infinity();
            pairs = 0;
            for (std::size_t k = 0; k < mesh.triangles.size(); ++k) {
                const auto& t = mesh.triangles[k];
                const double h = (mesh.node_thickness[static_cast<std::size_t>(t[0])] + mesh.node_thickness[static_cast<std::size_t>(t[1])] +
                                  mesh.node_thickness[static_cast<std::size_t>(t[2])]) / 3.0;
                for (std::size_t p = 0; p < mesh.nodes.size(); ++p) {
                    if (!take(mesh.node_element[p], mesh.triangle_element[k])) continue;
                    if (mesh.node_triangle_excluded(static_cast<Index>(p), static_cast<Index>(k))) continue;
                    const double d = point_triangle_distance(mesh.nodes[p], node(t[0]), node(t[1]), node(t[2]));
                    closest = std::min(closest, d);
                    tightest = std::min(tightest, d - mesh.node_thickness[p] - h);
                    ++pairs;
                }
            }
            const Proximity nt = node_triangle_proximity(mesh, set);
            CHECK(nt.pairs == pairs);
            CHECK(nt.closest.distance == Approx(closest).margin(1e-15));
            CHECK(nt.tightest.gap == Approx(tightest).margin(1e-15));
        }
    }
}
