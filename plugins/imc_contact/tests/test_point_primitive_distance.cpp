// A node against a triangle, an edge and a node: the closest feature against an independent
// search, and every class's distance derivatives against central differences, across the switch
// from the face to an edge too.
#include "pair_distance_check.hpp"
#include "point_primitive_distance.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <random>

using namespace soma;
using namespace soma::imc_contact;
using soma::imc_contact::testing::check_pair_derivatives;
using soma::imc_contact::testing::class_distance;

namespace {

using NodeTriangle = VecN<12>;  // (p, a, b, c)

Vec3 node(const NodeTriangle& x, int k) { return x.segment<3>(3 * k); }

TriangleClosest closest(const NodeTriangle& x) { return closest_triangle_feature(node(x, 0), node(x, 1), node(x, 2), node(x, 3)); }

/// The node's distance to the triangle by a grid over barycentric coordinates refined by
/// alternating exact 1-D minimisations over the edges: an independent reference (~1e-9).
double brute_force_distance(const NodeTriangle& x) {
    const Vec3 p = node(x, 0), a = node(x, 1), b = node(x, 2), c = node(x, 3);
    double best = (p - a).norm();
    const int n = 300;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; i + j <= n; ++j) {
            const double s = double(i) / n, t = double(j) / n;
            best = std::min(best, (p - a - s * (b - a) - t * (c - a)).norm());
        }
    // Refine: the exact distance is either to the plane (projection inside) or to an edge.
    const Vec3 normal = (b - a).cross(c - a).normalized();
    const Vec3 projected = p - normal.dot(p - a) * normal;
    const double area = (b - a).cross(c - a).norm();
    const double wa = (b - projected).cross(c - projected).dot(normal) / area;
    const double wb = (c - projected).cross(a - projected).dot(normal) / area;
    if (wa >= 0 && wb >= 0 && wa + wb <= 1) best = std::min(best, std::abs(normal.dot(p - a)));
    const auto segment = [&](const Vec3& u, const Vec3& v) {
        const double s = std::clamp((p - u).dot(v - u) / (v - u).squaredNorm(), 0.0, 1.0);
        return (p - u - s * (v - u)).norm();
    };
    return std::min({best, segment(a, b), segment(b, c), segment(c, a)});
}

NodeTriangle random_points(std::mt19937& rng) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    NodeTriangle x;
    for (int i = 0; i < 12; ++i) x[i] = uniform(rng);
    return x;
}

const TriangleFeature kFeatures[] = {TriangleFeature::face,     TriangleFeature::edge_ab,  TriangleFeature::edge_bc,
                                     TriangleFeature::edge_ca,  TriangleFeature::vertex_a, TriangleFeature::vertex_b,
                                     TriangleFeature::vertex_c};

}  // namespace

TEST_CASE("a node's closest triangle feature matches an independent search", "[imc][distance]") {
    std::mt19937 rng(3);
    int seen[7] = {};
    for (int trial = 0; trial < 400; ++trial) {
        const NodeTriangle x = random_points(rng);
        const TriangleClosest c = closest(x);
        // The reference is exact where the projection is inside, else ~1e-9 from the grid's refinement.
        CHECK(c.distance == Approx(brute_force_distance(x)).margin(1e-9));
        // The feature's class distance is the node's distance to the triangle.
        CHECK(class_distance<4>(x, node_triangle_class_map(c.feature), false).distance == Approx(c.distance).epsilon(1e-10));
        ++seen[static_cast<int>(c.feature)];
    }
    for (int f = 0; f < 7; ++f) {
        INFO("feature " << f);
        CHECK(seen[f] > 5);  // random configurations reach every feature, so all were compared
    }
}

TEST_CASE("simple node-triangle configurations", "[imc][distance]") {
    const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
    CHECK(closest_triangle_feature(Vec3(0.2, 0.2, 0.1), a, b, c).feature == TriangleFeature::face);
    CHECK(closest_triangle_feature(Vec3(0.2, 0.2, 0.1), a, b, c).distance == Approx(0.1).epsilon(1e-14));
    CHECK(closest_triangle_feature(Vec3(0.5, -0.3, 0.4), a, b, c).feature == TriangleFeature::edge_ab);
    CHECK(closest_triangle_feature(Vec3(0.5, -0.3, 0.4), a, b, c).distance == Approx(0.5).epsilon(1e-14));
    CHECK(closest_triangle_feature(Vec3(0.8, 0.8, 0), a, b, c).feature == TriangleFeature::edge_bc);
    CHECK(closest_triangle_feature(Vec3(-0.5, 0.5, 0), a, b, c).feature == TriangleFeature::edge_ca);
    CHECK(closest_triangle_feature(Vec3(-1, -1, 0), a, b, c).feature == TriangleFeature::vertex_a);
    CHECK(closest_triangle_feature(Vec3(2, -0.1, 0), a, b, c).feature == TriangleFeature::vertex_b);
    CHECK(closest_triangle_feature(Vec3(-0.1, 2, 0), a, b, c).feature == TriangleFeature::vertex_c);
    // A degenerate (collinear) triangle has no face: its closest edge.
    const TriangleClosest flat = closest_triangle_feature(Vec3(0.5, 0.1, 0), a, b, Vec3(2, 0, 0));
    CHECK(flat.feature != TriangleFeature::face);
    CHECK(flat.distance == Approx(0.1).epsilon(1e-14));
}

TEST_CASE("node-triangle, node-edge and node-node distances match finite differences in every class",
          "[imc][distance]") {
    std::mt19937 rng(5);
    for (const TriangleFeature feature : kFeatures)
        for (int trial = 0; trial < 15; ++trial) {
            const NodeTriangle x = random_points(rng);
            const PairClassMap<4> map = node_triangle_class_map(feature);
            if (class_distance<4>(x, map, false).distance < 0.05) continue;  // keep Δ''' bounded (pair_distance_check.hpp)
            INFO("feature " << static_cast<int>(feature));
            check_pair_derivatives<4>(x, map);
        }
    for (const EdgeEnd end : {EdgeEnd::first, EdgeEnd::second, EdgeEnd::free})
        for (int trial = 0; trial < 15; ++trial) {
            const VecN<9> x = random_points(rng).head<9>();
            if (class_distance<3>(x, node_edge_class_map(end), false).distance < 0.05) continue;
            check_pair_derivatives<3>(x, node_edge_class_map(end));
        }
    VecN<6> two;
    two << 0.1, 0.2, 0.3, -0.4, 0.5, 0.6;
    check_pair_derivatives<2>(two, node_node_class_map());
    // A shell-contact scale: a node 1.2 mm above a 10 mm triangle.
    NodeTriangle close;
    close << 0.003, 0.002, 0.0012, 0, 0, 0, 0.01, 0.001, 0.0002, 0.0005, 0.009, -0.0003;
    REQUIRE(closest(close).feature == TriangleFeature::face);
    const PairDistance<4> d = class_distance<4>(close, node_triangle_class_map(TriangleFeature::face));
    const double h = 1e-9;  // coordinates of 1e-2: the same relative step as the unit-scale checks
    MatN<12> fd;
    for (int i = 0; i < 12; ++i) {
        NodeTriangle p = close, m = close;
        p[i] += h;
        m[i] -= h;
        fd.col(i) = (class_distance<4>(p, node_triangle_class_map(TriangleFeature::face)).gradient -
                     class_distance<4>(m, node_triangle_class_map(TriangleFeature::face)).gradient) /
                    (2 * h);
    }
    CHECK((d.hessian - fd).norm() <= 1e-6 * d.hessian.norm());
}

TEST_CASE("the node-triangle distance is C1 across the switch from the face to an edge", "[imc][distance]") {
    // The node at (x, -y0, 0.1) above triangle a = (0,0,0), b = (1,0,0), c = (0,1,0) crosses the
    // plane y = 0 above edge ab: face region for y0 < 0, edge ab's for y0 > 0.
    const auto at = [](double y0) {
        NodeTriangle x;
        x << 0.4, -y0, 0.1, 0, 0, 0, 1, 0, 0, 0, 1, 0;
        return x;
    };
    const NodeTriangle before = at(-1e-7), after = at(1e-7);
    REQUIRE(closest(before).feature == TriangleFeature::face);
    REQUIRE(closest(after).feature == TriangleFeature::edge_ab);
    const PairDistance<4> db = class_distance<4>(before, node_triangle_class_map(TriangleFeature::face));
    const PairDistance<4> da = class_distance<4>(after, node_triangle_class_map(TriangleFeature::edge_ab));
    // The configurations are 2e-7 apart and |∇²Δ| <~ 2/Δ = 20: gradients within ~4e-6 (a jump is O(1)).
    CHECK(db.distance == Approx(da.distance).margin(1e-12));
    CHECK((db.gradient - da.gradient).norm() < 1e-5);
    // Central differences of the true distance across the switch agree with either side's gradient to
    // h |[∇²Δ]|/2 <~ 1e-6 (the Hessian's jump), where a kink would leave an O(1) error.
    const NodeTriangle mid = at(0.0);
    const PairDistance<4> dm = class_distance<4>(mid, node_triangle_class_map(closest(mid).feature));
    const double h = 1e-7;
    for (int i = 0; i < 12; ++i) {
        NodeTriangle p = mid, m = mid;
        p[i] += h;
        m[i] -= h;
        CHECK((closest(p).distance - closest(m).distance) / (2 * h) == Approx(dm.gradient[i]).margin(2e-6));
    }
}
