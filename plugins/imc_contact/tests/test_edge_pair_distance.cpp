// The distance between two edges (MAT-DiSMech §4.1): Lumelsky's closest points against a brute
// force search, and the smooth class distance's gradient and Hessian against central finite
// differences in every class and across the switches between classes.
#include "edge_pair_distance.hpp"
#include "pair_distance_check.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <cmath>
#include <random>

using namespace soma;
using namespace soma::imc_contact;

namespace {

using Points = VecN<12>;

Vec3 node(const Points& x, int k) { return x.segment<3>(3 * k); }

EdgePairDistance class_distance(const Points& x, EdgePairClass contact_class, bool with_hessian = true) {
    EdgePairDistance d;
    edge_pair_distance(node(x, 0), node(x, 1), node(x, 2), node(x, 3), contact_class, with_hessian, d);
    return d;
}

ClosestPoints closest(const Points& x) { return closest_points(node(x, 0), node(x, 1), node(x, 2), node(x, 3)); }

/// The segments' distance by a fine grid search refined by local Newton-free bisection: an
/// independent reference for Lumelsky's algorithm (accurate to ~1e-9 here).
double brute_force_distance(const Points& x) {
    const Vec3 a = node(x, 0), e1 = node(x, 1) - a, c = node(x, 2), e2 = node(x, 3) - c;
    const auto dist = [&](double t, double u) { return (a + t * e1 - c - u * e2).norm(); };
    double best = dist(0, 0), bt = 0, bu = 0;
    const int n = 200;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j)
            if (dist(double(i) / n, double(j) / n) < best) best = dist(double(i) / n, double(j) / n), bt = double(i) / n, bu = double(j) / n;
    // Refine by alternating exact 1-D minimisations (convex in each parameter).
    for (int it = 0; it < 200; ++it) {
        const Vec3 q = c + bu * e2;
        bt = std::clamp((q - a).dot(e1) / e1.squaredNorm(), 0.0, 1.0);
        const Vec3 p = a + bt * e1;
        bu = std::clamp((p - c).dot(e2) / e2.squaredNorm(), 0.0, 1.0);
    }
    return std::min(best, dist(bt, bu));
}

/// Random edge pairs of unit scale.
Points random_points(std::mt19937& rng) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    Points x;
    for (int i = 0; i < 12; ++i) x[i] = uniform(rng);
    return x;
}

void check_derivatives(const Points& x, EdgePairClass cls) {
    INFO("class (" << int(cls.edge1) << ", " << int(cls.edge2) << ")");
    testing::check_pair_derivatives<4>(x, edge_pair_class_map(cls));
}

}  // namespace

TEST_CASE("closest points of two segments match a brute-force search", "[imc][distance]") {
    std::mt19937 rng(7);
    int classes[3] = {0, 0, 0};
    for (int trial = 0; trial < 300; ++trial) {
        const Points x = random_points(rng);
        const ClosestPoints c = closest(x);
        // The grid search is within 1e-9 after refinement; Lumelsky is exact to round-off.
        CHECK(c.distance == Approx(brute_force_distance(x)).margin(1e-9));
        CHECK(c.t >= 0.0);
        CHECK(c.t <= 1.0);
        CHECK(c.u >= 0.0);
        CHECK(c.u <= 1.0);
        ++classes[c.contact_class.node_count()];
        // The class's smooth distance is the segment distance inside the class's region.
        CHECK(class_distance(x, c.contact_class, false).distance == Approx(c.distance).epsilon(1e-12));
    }
    // Random pairs reach every class (so the loop above tested all three).
    CHECK(classes[0] > 10);
    CHECK(classes[1] > 10);
    CHECK(classes[2] > 10);
}

TEST_CASE("contact classes of simple configurations", "[imc][distance]") {
    // Crossed edges 0.1 apart: edge-edge at the middles.
    const ClosestPoints crossed =
        closest_points(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, -1, 0.1), Vec3(0, 1, 0.1));
    CHECK(crossed.contact_class == EdgePairClass{EdgeEnd::free, EdgeEnd::free});
    CHECK(crossed.distance == Approx(0.1).epsilon(1e-14));
    CHECK(crossed.t == Approx(0.5));
    CHECK(crossed.u == Approx(0.5));
    // A T: the end of edge 2 above the middle of edge 1: point (edge 2's first node) to edge.
    const ClosestPoints tee = closest_points(Vec3(-1, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 0.1), Vec3(0, 0, 1));
    CHECK(tee.contact_class == EdgePairClass{EdgeEnd::free, EdgeEnd::first});
    CHECK(tee.distance == Approx(0.1).epsilon(1e-14));
    // End to end: point-point.
    const ClosestPoints ends = closest_points(Vec3(-1, 0, 0), Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(1, 0, 0));
    CHECK(ends.contact_class == EdgePairClass{EdgeEnd::second, EdgeEnd::first});
    CHECK(ends.distance == Approx(0.1).epsilon(1e-14));
    // Parallel overlapping edges: the parallel branch, a point-edge class at the same distance.
    const ClosestPoints parallel = closest_points(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, 0, 0.1), Vec3(1.5, 0, 0.1));
    CHECK(parallel.contact_class.node_count() == 1);
    CHECK(parallel.distance == Approx(0.1).epsilon(1e-14));
}

TEST_CASE("the class distance's gradient and Hessian match finite differences in every class", "[imc][distance]") {
    std::mt19937 rng(11);
    const EdgePairClass classes[] = {
        {EdgeEnd::free, EdgeEnd::free},     {EdgeEnd::free, EdgeEnd::first},  {EdgeEnd::second, EdgeEnd::free},
        {EdgeEnd::first, EdgeEnd::second},  {EdgeEnd::second, EdgeEnd::second}};
    for (const EdgePairClass& cls : classes)
        for (int trial = 0; trial < 20; ++trial) {
            const Points x = random_points(rng);
            if (class_distance(x, cls, false).distance < 0.05) continue;  // keep Δ''' bounded (see check)
            check_derivatives(x, cls);
        }
    // Close edges at a contact's scale: crossed rods of radius 1 mm, axes 2.1 mm apart.
    Points crossed;
    crossed << -0.01, 0.001, 0, 0.012, -0.002, 0.0005, 0.0003, -0.01, 0.0021, -0.0004, 0.011, 0.0019;
    const EdgePairClass cls = closest(crossed).contact_class;
    REQUIRE(cls == EdgePairClass{EdgeEnd::free, EdgeEnd::free});
    const EdgePairDistance d = class_distance(crossed, cls);
    const double h = 1e-9;  // coordinates of 1e-2: the same relative step as above
    MatN<12> fd;
    for (int i = 0; i < 12; ++i) {
        Points p = crossed, m = crossed;
        p[i] += h;
        m[i] -= h;
        fd.col(i) = (class_distance(p, cls).gradient - class_distance(m, cls).gradient) / (2 * h);
    }
    CHECK((d.hessian - fd).norm() <= 1e-6 * d.hessian.norm());
}

TEST_CASE("the distance is C1 across the switch from edge-edge to point-edge", "[imc][distance]") {
    // Edge 2 slides along its own direction until its closest point reaches its first node:
    // x3 = (s, -1, 0.1) .. x4 = (s, 1, 0.1) crossing edge 1 from (-1, 0, 0) to (1, 0, 0) turns
    // into a T as edge 2 is moved past the crossing, at offset y0 = 0.
    const auto at = [](double y0) {
        Points x;
        x << -1, 0, 0, 1, 0, 0, 0.3, y0, 0.1, 0.3, y0 + 2.0, 0.1;
        return x;
    };
    const Points before = at(-1e-7), after = at(1e-7);  // closest point of edge 2 just inside / at its first node
    const ClosestPoints cb = closest(before), ca = closest(after);
    CHECK(cb.contact_class == EdgePairClass{EdgeEnd::free, EdgeEnd::free});
    CHECK(ca.contact_class == EdgePairClass{EdgeEnd::free, EdgeEnd::first});
    const EdgePairDistance db = class_distance(before, cb.contact_class), da = class_distance(after, ca.contact_class);
    // Value and gradient continuous: the two configurations are 2e-7 apart and |∇²Δ| <~ 2/Δ = 20
    // here, so the gradients differ by at most ~4e-6 (a jump, as in a C0 switch, would be O(1)).
    CHECK(db.distance == Approx(da.distance).margin(1e-12));
    CHECK((db.gradient - da.gradient).norm() < 1e-5);
    // The true segment distance (class chosen at each point) is differentiable at the switch:
    // central differences across it agree with the gradient of either side to within
    // h |[∇²Δ]| / 2 <~ 1e-7 * 20 / 2 = 1e-6 (the Hessian's jump; round-off adds ~1e-9), where a kink
    // would leave an O(1) error.
    const Points mid = at(0.0);
    const EdgePairDistance dm = class_distance(mid, closest(mid).contact_class);
    const double h = 1e-7;
    for (int i = 0; i < 12; ++i) {
        Points p = mid, m = mid;
        p[i] += h;
        m[i] -= h;
        const double fd = (closest(p).distance - closest(m).distance) / (2 * h);
        CHECK(fd == Approx(dm.gradient[i]).margin(2e-6));
    }
}

TEST_CASE("the parallel mollifier and its derivatives match finite differences and fade in C1", "[imc][distance]") {
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    int checked = 0;
    for (int trial = 0; trial < 40; ++trial) {
        // Nearly parallel edges: edge 2 is edge 1 turned by a small random angle and moved away.
        Points x = random_points(rng);
        const Vec3 e1 = node(x, 1) - node(x, 0);
        const Vec3 turn = 0.02 * Vec3(uniform(rng), uniform(rng), uniform(rng));
        const Vec3 e2 = e1 + turn.cross(e1);
        x.segment<3>(9) = node(x, 2) + e2;
        const double epsilon = kParallelMollifierRatio * e1.squaredNorm() * e2.squaredNorm();
        const auto at = [&](const Points& p) {
            ParallelMollifier m;
            parallel_mollifier(node(p, 0), node(p, 1), node(p, 2), node(p, 3), epsilon, m);
            return m;
        };
        const ParallelMollifier m = at(x);
        if (!(m.value < 1.0)) continue;
        ++checked;
        // Step 1e-7 on unit coordinates: m is a quadratic in c, itself a quartic of x: truncation
        // ~h² |m'''| and round-off ~1e-16 |m'|/h, both below 1e-6 of the derivatives' size.
        const double h = 1e-7;
        VecN<12> fd_gradient;
        MatN<12> fd_hessian;
        for (int i = 0; i < 12; ++i) {
            Points p = x, q = x;
            p[i] += h;
            q[i] -= h;
            const ParallelMollifier mp = at(p), mq = at(q);
            fd_gradient[i] = (mp.value - mq.value) / (2 * h);
            fd_hessian.col(i) = (mp.gradient - mq.gradient) / (2 * h);
        }
        CHECK((m.gradient - fd_gradient).norm() <= 1e-6 * m.gradient.norm());
        CHECK((m.hessian - fd_hessian).norm() <= 1e-6 * m.hessian.norm());
        CHECK(m.value > 0.0);
    }
    CHECK(checked > 20);  // most trials turned by 0.02 rad at most are below the threshold
    // Exactly parallel: 0; beyond the threshold: 1 with zero derivatives, and at it m' = 0 (C1).
    ParallelMollifier m;
    parallel_mollifier(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 1), Vec3(1, 0, 1), 1e-3, m);
    CHECK(m.value == 0.0);
    parallel_mollifier(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 1), Vec3(0, 1, 1), 1e-3, m);
    CHECK(m.value == 1.0);
    CHECK(m.gradient.norm() == 0.0);
    // c = |e1 x e2|² = sin²θ for unit edges: at c just below ε the slope 2(ε - c)/ε² is ~0.
    const double angle = std::asin(std::sqrt(1e-3 * (1 - 1e-9)));
    parallel_mollifier(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 1), Vec3(std::cos(angle), std::sin(angle), 1), 1e-3, m);
    CHECK(m.value == Approx(1.0).margin(1e-12));
    CHECK(m.gradient.norm() < 1e-5);
}
