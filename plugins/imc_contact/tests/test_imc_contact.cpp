// The imc_contact force (MAT-DiSMech §4, eq. 21-22) on polylines: its residual is the gradient
// of its energy and its Jacobian the derivative of its residual (central differences) in every
// contact class and in deep penetration; pairs are excluded by topology; candidates follow the
// motion through the growable pattern; bad settings are refused.
#include "edge_pair_distance.hpp"
#include "force_derivative_check.hpp"
#include "imc_contact.hpp"

#include "soma/smooth_contact_law.hpp"
#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/point_set.hpp"
#include "soma/testing/test_scene.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <numeric>

using namespace soma;
using namespace soma::imc_contact;
using Catch::Matchers::Contains;
using soma::imc_contact::testing::check_position_jacobian;
using soma::imc_contact::testing::check_residual_is_energy_gradient;
using soma::imc_contact::testing::check_velocity_jacobian;
using soma::imc_contact::testing::ForceAtDofs;

namespace {

using Polyline = soma::testing::PointSet;

/// A point of contact radius \p radius at \p x.
Polyline::Point at(const Vec3& x, double radius) { return {x, 1.0, 0.0, radius}; }

constexpr double kRadius = 1e-3;       // m: a rod of 1 mm radius
constexpr double kStiffness = 1e5;     // N/m
constexpr double kBand = kDefaultBandRatio * kRadius;

/// Two straight 2-edge rods: rod a along x through the origin, rod b along y at height z,
/// shifted by (dx, dy) in the plane: crossing (edge-edge) or, shifted past rod a's end, T-shaped
/// (point-edge) or corner to corner (point-point).
struct TwoRods {
    Polyline a, b;
    TwoRods(double z, double dx, double dy)
        : a(Polyline::chain("a", {Vec3(-0.01, 0, 0), Vec3(0.0005, 0.0002, 0), Vec3(0.01, 0, 0)}, kRadius)),
          b(Polyline::chain("b", {Vec3(dx, dy - 0.01, z), Vec3(dx + 0.0003, dy - 0.0001, z), Vec3(dx, dy + 0.01, z)},
                            kRadius)) {}
};

}  // namespace

TEST_CASE("IMC residual and Jacobian match finite differences in every contact class", "[imc]") {
    // Axes 2r apart plus a gap: in the band (0.2 band), at contact (0), and in deep penetration
    // (-3 band, where E'' is the penalty spring 2k).
    struct Case {
        const char* name;
        double dx, dy;
        int nodes_in_class;
    };
    const Case cases[] = {{"crossing: edge-edge", 0.001, 0.0015, 0},
                          {"rod b's end over rod a: point-edge", 0.002, 0.0105, 1},
                          {"rod b's end over rod a's end: point-point", 0.0102, 0.0105, 2}};
    for (const Case& c : cases)
        for (double gap : {0.2 * kBand, 0.0, -3.0 * kBand}) {
            TwoRods rods(2 * kRadius + gap, c.dx, c.dy);
            auto scene = soma::testing::TestScene::bound_in_order({&rods.a, &rods.b});
            ImcContact force({kStiffness, {}, {}, {}, true});
            force.bind(scene);
            const VectorX& q = scene.state().q;
            REQUIRE(force.candidates().size() >= 1);
            INFO(c.name << ", gap " << gap);
            // The closest pair is in the class the case is named for.
            ClosestPoints nearest;
            nearest.distance = 1.0;
            for (const ContactPair& pair : force.candidates()) {
                REQUIRE(pair.kind == PairKind::edge_edge);  // rods only: edge pairs
                const auto& ea = force.mesh().edges()[static_cast<std::size_t>(pair.first)];
                const auto& eb = force.mesh().edges()[static_cast<std::size_t>(pair.second)];
                const auto x = [&](Index node) { return q.segment<3>(3 * node); };
                const ClosestPoints cp = closest_points(x(ea.nodes[0]), x(ea.nodes[1]), x(eb.nodes[0]), x(eb.nodes[1]));
                if (cp.distance < nearest.distance) nearest = cp;
            }
            CHECK(nearest.contact_class.node_count() == c.nodes_in_class);
            // F against the energy's gradient and J against F's central differences (steps and
            // tolerance: force_derivative_check.hpp; here k K1 ~ 5e10 N/m²).
            ForceAtDofs probe(force, scene.dof_count());
            const VectorX residual = check_residual_is_energy_gradient(probe, q);
            const Eigen::MatrixXd jacobian = check_position_jacobian(probe, q);
            // Frictionless contact is conservative: J is symmetric.
            CHECK((jacobian - jacobian.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * jacobian.cwiseAbs().maxCoeff());
            // Newton's third law: the contact forces on the two rods cancel, in every direction.
            Vec3 total = Vec3::Zero();
            for (Index i = 0; i < scene.dof_count() / 3; ++i) total += residual.segment<3>(3 * i);
            CHECK(total.norm() <= 1e-12 * residual.norm());
        }
}

TEST_CASE("IMC friction: Jacobian over q and v matches finite differences when sticking and sliding", "[imc][friction]") {
    // Rod b moves over rod a with velocity v_b (a normal part, which friction ignores, plus a
    // tangential one): sticking |v_t| = 0.3 v_tol, sliding 20 v_tol, and v_t = 0 exactly.
    constexpr double kSlip = 1e-3;
    constexpr double kMu = 0.4;
    struct Case {
        const char* name;
        double dx, dy;
    };
    const Case cases[] = {{"edge-edge", 0.001, 0.0015}, {"point-edge", 0.002, 0.0105}, {"point-point", 0.0102, 0.0105}};
    const Vec3 tangential_direction = Vec3(0.6, 0.8, 0.0);
    for (const Case& c : cases)
        for (double speed : {0.3 * kSlip, 20 * kSlip, 0.0})
            for (double gap : {0.3 * kBand, -2.0 * kBand}) {
                TwoRods rods(2 * kRadius + gap, c.dx, c.dy);
                auto scene = soma::testing::TestScene::bound_in_order({&rods.a, &rods.b});
                ImcContactSettings settings{kStiffness, {}, {}, {}, true};
                settings.friction = kMu;
                settings.slip_velocity = kSlip;
                ImcContact force(settings);
                force.bind(scene);
                const Index n = scene.dof_count();
                const VectorX q = scene.state().q;
                VectorX v = VectorX::Zero(n);
                for (Index i = 3; i < 6; ++i) v.segment<3>(3 * i) = speed * tangential_direction + Vec3(0, 0, -0.01);
                // Rod a turns slowly about z, so that its contact point moves too.
                for (Index i = 0; i < 3; ++i) v.segment<3>(3 * i) = 0.05 * Vec3(-q[3 * i + 1], q[3 * i], 0.0);

                // dF/dq and dF/dv against central differences (steps and tolerance:
                // force_derivative_check.hpp); dv's tolerance floor 1e-12 N s/m where v_t = 0.
                INFO(c.name << ", |v_t| " << speed << ", gap " << gap);
                ForceAtDofs probe(force, n);
                check_position_jacobian(probe, q, &v);
                const Eigen::MatrixXd dv = check_velocity_jacobian(probe, q, v, 1e-12);
                CHECK(dv.cwiseAbs().maxCoeff() > 0.0);

                // Friction dissipates: its power -F_fr·v is never positive.
                ImcContact frictionless({kStiffness, {}, {}, {}, true});
                frictionless.bind(scene);
                ForceAtDofs without_friction(frictionless, n);
                const VectorX friction_residual = probe.residual(q, &v) - without_friction.residual(q, &v);
                CHECK(friction_residual.dot(v) >= -1e-15 * friction_residual.norm() * v.norm());
            }
}

TEST_CASE("IMC friction while sliding is mu times the normal force", "[imc][friction]") {
    // Straight rods crossing at gap 0 (one pair in the band); rod b slides along x at 20 v_tol:
    // γ = tanh(150) = 1 to double precision, so the tangential force on b is μ f_n against its
    // motion, f_n = k ln2 band/15.
    constexpr double kSlip = 1e-3;
    Polyline a = Polyline::chain("a", {Vec3(-0.01, 0, 0), Vec3(0.004, 0, 0), Vec3(0.01, 0, 0)}, kRadius);
    Polyline b = Polyline::chain("b", {Vec3(0, -0.01, 2 * kRadius), Vec3(0, 0.004, 2 * kRadius), Vec3(0, 0.01, 2 * kRadius)},
                                 kRadius);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    ImcContactSettings settings{kStiffness, {}, {}, {}, true};
    settings.friction = 0.5;
    settings.slip_velocity = kSlip;
    ImcContact force(settings);
    force.bind(scene);
    VectorX v = VectorX::Zero(scene.dof_count());
    for (Index i = 3; i < 6; ++i) v[3 * i] = 20 * kSlip;
    EvalContext context = scene.context();
    context.v = &v;
    soma::testing::DenseAssembly dense(scene.dof_count());
    force.declare_pattern(dense.pattern());
    const VectorX residual = dense.evaluate(force, context, false).first;
    Vec3 on_b = Vec3::Zero(), on_a = Vec3::Zero();
    for (Index i = 0; i < 3; ++i) on_a -= residual.segment<3>(3 * i);
    for (Index i = 3; i < 6; ++i) on_b -= residual.segment<3>(3 * i);
    const double normal = kStiffness * std::log(2.0) * kBand / 15.0;
    CHECK(on_b.x() == Approx(-0.5 * normal).epsilon(1e-12));
    CHECK(on_b.z() == Approx(normal).epsilon(1e-12));
    CHECK((on_a + on_b).norm() <= 1e-12 * normal);  // action and reaction
    CHECK_FALSE(force.symmetric_jacobian());
}

TEST_CASE("IMC pushes the rods apart with the penalty law's force", "[imc]") {
    // Crossing rods at gap 0: the force on rod b is +z of magnitude -E'(0) = k ln2 band/15 (the
    // contact law at the contact surface), split over rod b's nodes by the closest-point weights.
    // Straight rods crossing at the origin, their middle nodes 4 mm away: one pair in the band.
    Polyline a = Polyline::chain("a", {Vec3(-0.01, 0, 0), Vec3(0.004, 0, 0), Vec3(0.01, 0, 0)}, kRadius);
    Polyline b = Polyline::chain("b", {Vec3(0, -0.01, 2 * kRadius), Vec3(0, 0.004, 2 * kRadius), Vec3(0, 0.01, 2 * kRadius)},
                                 kRadius);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    ImcContact force({kStiffness, {}, {}, {}, true});
    force.bind(scene);
    soma::testing::DenseAssembly dense(scene.dof_count());
    force.declare_pattern(dense.pattern());
    const VectorX residual = dense.evaluate(force, scene.context(), false).first;
    Vec3 on_b = Vec3::Zero();
    for (Index i = 3; i < 6; ++i) on_b -= residual.segment<3>(3 * i);  // force = -residual
    const double expected = kStiffness * std::log(2.0) * kBand / 15.0;
    CHECK(on_b.z() == Approx(expected).epsilon(1e-9));
    CHECK(std::hypot(on_b.x(), on_b.y()) <= 1e-9 * expected);
}

TEST_CASE("IMC excludes pairs by topology: shared nodes and neighbouring nodes", "[imc]") {
    // A chain folded into a tight zigzag: every edge is within contact distance of every other.
    // Edges i and i+1 share a node and edges i and i+2 have neighbouring nodes: never pairs.
    // Edges i and i+3 and beyond are pairs.
    std::vector<Vec3> nodes;
    for (int i = 0; i < 7; ++i) nodes.emplace_back(0.0, (i % 2) * 0.5 * kRadius, i * 0.1 * kRadius);
    Polyline zigzag = Polyline::chain("zigzag", nodes, kRadius);
    auto scene = soma::testing::TestScene::bound_in_order({&zigzag});
    ImcContact force({kStiffness, {}, {}, {}, true});
    force.bind(scene);
    std::vector<ContactPair> expected;
    for (Index i = 0; i < 6; ++i)
        for (Index j = i + 3; j < 6; ++j) expected.push_back({PairKind::edge_edge, i, j});
    CHECK(force.candidates() == expected);

    SECTION("without self-contact a single element has no pairs") {
        ImcContact no_self({kStiffness, {}, {}, {}, false});
        no_self.bind(scene);
        CHECK(no_self.candidates().empty());
    }
    SECTION("a network: three branches meeting at a shared node") {
        // Star with arms along +x, +y, -x; edges on different arms next to the centre share
        // it or neighbour it, so the near-centre part gives no pairs however close.
        Polyline star = Polyline::with_edges(
            "star",
            {at(Vec3(0, 0, 0), kRadius), at(Vec3(kRadius, 0, 0), kRadius), at(Vec3(2 * kRadius, 0, 0), kRadius),
             at(Vec3(0, kRadius, 0), kRadius), at(Vec3(0, 2 * kRadius, 0), kRadius), at(Vec3(-kRadius, 0, 0), kRadius),
             at(Vec3(-2 * kRadius, 0, 0), kRadius)},
            {{0, 1}, {1, 2}, {0, 3}, {3, 4}, {0, 5}, {5, 6}});
        auto star_scene = soma::testing::TestScene::bound_in_order({&star});
        ImcContact star_force({kStiffness, {}, {}, {}, true});
        star_force.bind(star_scene);
        // Only the outer edges of two arms have no node within one edge of each other.
        CHECK(star_force.candidates().size() == 3);
        for (const ContactPair& pair : star_force.candidates()) {
            CHECK(pair.first % 2 == 1);
            CHECK(pair.second % 2 == 1);
        }
    }
}

TEST_CASE("IMC candidates follow the motion: a new pair asks for a new pattern", "[imc]") {
    // Rod b starts far above rod a: no candidates. Moved down to touching, the next step's
    // broad phase finds the pair and pattern_changed() is true until it is declared.
    TwoRods rods(0.05, 0.0, 0.0);
    auto scene = soma::testing::TestScene::bound_in_order({&rods.a, &rods.b});
    ImcContact force({kStiffness, {}, {}, {}, true});
    force.bind(scene);
    CHECK(force.candidates().empty());
    soma::testing::DenseAssembly dense(scene.dof_count());
    force.declare_pattern(dense.pattern());
    CHECK_FALSE(force.pattern_changed());

    State near = scene.state();
    for (Index i = 3; i < 6; ++i) near.q[3 * i + 2] = 2 * kRadius + 0.5 * kBand;
    force.begin_step(near);
    CHECK(force.candidates().size() == 4);  // each edge of b over each edge of a, crossing near the middle
    CHECK(force.pattern_changed());
    dense.clear();
    force.declare_pattern(dense.pattern());
    CHECK_FALSE(force.pattern_changed());
    // The same candidates again: the declared stencils serve, no new pattern.
    force.begin_step(near);
    CHECK_FALSE(force.pattern_changed());
    EvalContext context;
    context.q = &near.q;
    CHECK(dense.evaluate(force, context, false).first.norm() > 0.0);
}

TEST_CASE("IMC contact on a shell's triangle edges", "[imc]") {
    // Two triangles (a square of side 4 mm, thickness 1 mm: h = 0.5 mm) and a rod across it
    // 0.5 mm + 1 mm above: the rod touches the triangles' edges, and the shared diagonal counts
    // once. Margin 0.5 mm: pairs closer than 1.5 + 0.5 mm are candidates.
    const double half = 0.5e-3;
    Polyline sheet("sheet",
                   {at(Vec3(0, 0, 0), half), at(Vec3(0.004, 0, 0), half), at(Vec3(0.004, 0.004, 0), half),
                    at(Vec3(0, 0.004, 0), half)},
                   std::vector<std::array<Index, 3>>{{0, 1, 2}, {0, 2, 3}});
    Polyline rod = Polyline::chain("rod", {Vec3(-0.001, 0.002, half + kRadius), Vec3(0.005, 0.0021, half + kRadius)},
                                   kRadius);
    auto scene = soma::testing::TestScene::bound_in_order({&sheet, &rod});
    ImcContact force({kStiffness, {}, 0.5e-3, {}, false});
    force.bind(scene);
    CHECK(force.mesh().edges().size() == 6);  // 5 sheet edges (the diagonal once) + 1 rod edge
    CHECK(force.mesh().triangles().size() == 2);
    const auto count = [&](PairKind kind) {
        return std::count_if(force.candidates().begin(), force.candidates().end(),
                             [&](const ContactPair& p) { return p.kind == kind; });
    };
    // The rod crosses three sheet edges (x = 0, the diagonal, x = 4 mm); it passes the
    // others (y = 0, y = 4 mm) 2.5 mm away, beyond the margin.
    CHECK(count(PairKind::edge_edge) == 3);
    // Each rod end, 1 mm outside the square and 1.5 mm above it, is 1.8 mm from the triangle whose
    // side it faces (within h + h_rod + margin = 2 mm) and 2.6 mm from the other (beyond).
    CHECK(count(PairKind::node_triangle) == 2);
    CHECK(force.band() == Approx(kDefaultBandRatio * half));
}

TEST_CASE("IMC refuses a solution in which pairs may have met unseen, and only then", "[imc]") {
    // Margin 1 mm, band 0.3 mm, rods of 1 mm radius crossing at heights z apart: the edges lie in
    // the planes z = 0 and z, the two that cross in plan z apart, the others up to 2 % farther. A
    // pair's distance falls by at most u_a + u_b in a step, its primitives' largest node motions.
    const auto check = [](double z, double up_a, double down_b) {
        TwoRods rods(z, 0.0, 0.0);
        auto scene = soma::testing::TestScene::bound_in_order({&rods.a, &rods.b});
        ImcContact force({kStiffness, 0.3e-3, 1e-3, {}, true});
        force.bind(scene);
        const State start = scene.state();
        VectorX q = start.q;
        for (Index node = 0; node < 3; ++node) q[3 * node + 2] += up_a;    // rod a: points 0-2
        for (Index node = 3; node < 6; ++node) q[3 * node + 2] -= down_b;  // rod b: points 3-5
        EvalContext context;
        context.q = &q;
        context.step_start = &start;
        return std::pair<std::size_t, std::string>{force.candidates().size(), force.check_solution(context)};
    };
    SECTION("a pair beyond the margin: refused once it may have reached the band") {
        // Gap 1.2 mm, not a candidate: it reaches the band when the rods close 0.9 mm.
        CHECK(check(3.2e-3, 0.0, 0.0).first == 0);
        CHECK(check(3.2e-3, 0.0, 0.8e-3).second.empty());  // 0.8 mm, more than (margin - band)/2
        CHECK(check(3.2e-3, 0.4e-3, 0.45e-3).second.empty());
        const std::string refused = check(3.2e-3, 0.0, 0.95e-3).second;
        CHECK_THAT(refused, Contains("of 'a' and") && Contains("of 'b' were not a candidate pair") &&
                                Contains("(gap 0.0012") && Contains("moved 0 and 0.00095 m"));
        CHECK_THAT(check(3.2e-3, 0.5e-3, 0.45e-3).second, Contains("were not a candidate pair"));
    }
    SECTION("nodes far from every other primitive move as far as they like") {
        CHECK(check(0.05, 0.0, 5e-3).second.empty());
        CHECK(check(0.05, 20e-3, 20e-3).second.empty());
    }
    SECTION("a candidate pair: refused once the cores may have met") {
        // 2.5 mm apart (gap 0.5 mm): every edge pair is a candidate.
        CHECK(check(2.5e-3, 0.0, 0.0).first == 4);
        CHECK(check(2.5e-3, 0.0, 2.4e-3).second.empty());  // deep in the band, but not through
        CHECK(check(2.5e-3, 1.2e-3, 1.2e-3).second.empty());
        CHECK_THAT(check(2.5e-3, 0.0, 2.6e-3).second,
                   Contains("may have passed through each other") && Contains("were 0.0025") &&
                       Contains("moved 0 and 0.0026 m"));
    }
    SECTION("a margin that does not exceed the band leaves no room to move: refused at bind") {
        TwoRods rods(0.05, 0.0, 0.0);
        auto scene = soma::testing::TestScene::bound_in_order({&rods.a, &rods.b});
        ImcContact tight({kStiffness, 1e-3, 1e-3, {}, true});
        CHECK_THROWS_WITH(tight.bind(scene), Contains("margin") && Contains("must exceed the band"));
    }
}

TEST_CASE("IMC refuses settings and elements it cannot use", "[imc]") {
    CHECK_THROWS_WITH(ImcContact({0.0, {}, {}, {}, true}), Contains("stiffness") && Contains("must be > 0"));
    CHECK_THROWS_WITH(ImcContact({1.0, -1.0, {}, {}, true}), Contains("band"));
    CHECK_THROWS_WITH(ImcContact({1.0, {}, 0.0, {}, true}), Contains("margin"));
    CHECK_THROWS_WITH(ImcContact({1.0, {}, {}, {}, true, -0.1}), Contains("friction"));
    CHECK_THROWS_WITH(ImcContact({1.0, {}, {}, {}, true, 0.1, 0.0}), Contains("slip_velocity"));
    // Points with no radius, edges or triangles have nothing to touch with (points with a radius
    // would be spheres).
    Polyline bare("bare", {at(Vec3::Zero(), 0.0), at(Vec3::UnitX(), 0.0)});
    Polyline thin = Polyline::chain("thin", {Vec3::Zero(), Vec3::UnitX()}, 0.0);
    auto scene = soma::testing::TestScene::bound_in_order({&bare, &thin});
    ImcContact named({1.0, {}, {}, {"bare"}, true});
    CHECK_THROWS_WITH(named.bind(scene), Contains("'bare' has no edges, triangles or contact radius"));
    ImcContact all({1.0, {}, {}, {}, true});
    CHECK_THROWS_WITH(all.bind(scene), Contains("contact radius 0"));
    ImcContact unknown({1.0, {}, {}, {"nope"}, true});
    CHECK_THROWS_WITH(unknown.bind(scene), Contains("no element named 'nope'"));
}

TEST_CASE("IMC notes pairs that start inside each other, with a hint for rods with short edges", "[imc]") {
    // A straight rod of radius 1 mm with 0.8 mm edges: edges three apart are 1.6 mm apart, less
    // than 2r: they overlap from the start.
    std::vector<Vec3> nodes;
    for (int i = 0; i < 8; ++i) nodes.emplace_back(0.8e-3 * i, 0.0, 0.0);
    Polyline rod = Polyline::chain("rod", nodes, kRadius);
    auto scene = soma::testing::TestScene::bound_in_order({&rod});
    ImcContact force({kStiffness, {}, {}, {}, true});
    force.bind(scene);
    REQUIRE(scene.notes.size() == 1);
    CHECK_THAT(scene.notes[0], Contains("start inside each other") && Contains("overlaps by 0.0004 m") &&
                                   Contains("edges are shorter than about its radius + band/2"));
    // A straight rod whose edges three apart sit inside the band but not inside each other: a
    // note that they push from the start. Edges of 1.03 mm: 2.06 mm apart, 2r = 2 mm, band 0.31 mm.
    nodes.clear();
    for (int i = 0; i < 8; ++i) nodes.emplace_back(1.03e-3 * i, 0.0, 0.0);
    Polyline close = Polyline::chain("close", nodes, kRadius);
    auto close_scene = soma::testing::TestScene::bound_in_order({&close});
    ImcContact pushing({kStiffness, {}, {}, {}, true});
    pushing.bind(close_scene);
    REQUIRE(close_scene.notes.size() == 1);
    CHECK_THAT(close_scene.notes[0], Contains("start within the band") && Contains("at gap 6e-05 m") &&
                                         Contains("edges are shorter than about its radius + band/2"));
    // Rods that start apart: no note.
    TwoRods apart(0.05, 0.0, 0.0);
    auto clear = soma::testing::TestScene::bound_in_order({&apart.a, &apart.b});
    ImcContact quiet({kStiffness, {}, {}, {}, true});
    quiet.bind(clear);
    CHECK(clear.notes.empty());
}

TEST_CASE("IMC statistics: candidate and active pairs, total normal force, deepest gap", "[imc]") {
    // Crossing rods at gap 0.3 band: one pair in the band among the candidates.
    Polyline a = Polyline::chain("a", {Vec3(-0.01, 0, 0), Vec3(0.004, 0, 0), Vec3(0.01, 0, 0)}, kRadius);
    const double gap = 0.3 * kBand;
    Polyline b = Polyline::chain("b", {Vec3(0, -0.01, 2 * kRadius + gap), Vec3(0, 0.004, 2 * kRadius + gap),
                                       Vec3(0, 0.01, 2 * kRadius + gap)},
                                 kRadius);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    ImcContact force({kStiffness, {}, {}, {}, true});
    force.bind(scene);
    const auto stats = force.statistics();
    REQUIRE(stats.size() == 4);
    CHECK(stats[0].name == "candidate_pairs");
    const EvalContext context = scene.context();
    CHECK(force.statistic(0, context) == static_cast<double>(force.candidates().size()));
    CHECK(force.statistic(1, context) == 1.0);  // only the crossing edges (0 of a, 0 of b) are in the band
    const PenaltyEnergy e = penalty_energy(gap, kStiffness, kContactSmoothingWidth / kBand);
    CHECK(force.statistic(2, context) == Approx(-e.gradient).epsilon(1e-9));
    CHECK(force.statistic(3, context) == Approx(gap).epsilon(1e-9));
    // Far apart: no candidates, no force, no gap.
    TwoRods apart(0.05, 0.0, 0.0);
    auto clear = soma::testing::TestScene::bound_in_order({&apart.a, &apart.b});
    ImcContact quiet({kStiffness, {}, {}, {}, true});
    quiet.bind(clear);
    CHECK(quiet.statistic(1, clear.context()) == 0.0);
    CHECK(std::isnan(quiet.statistic(3, clear.context())));
}
