// The discrete_rod Element through the SDK's dense test assembly (soma/testing/dense_assembly.hpp).
//
// Finite-difference tolerances as in test_spring_derivatives.cpp: step h = 1e-6 on O(0.1-1)
// coordinates, truncation O(h^2) ~ 1e-12 and round-off O(eps/h) ~ 1e-10 relative; we accept
// 1e-6 relative (max-norm). Derivatives are checked at the committed configuration: reference
// frames are transported from the committed tangents, so F and J are exact derivatives there
// (away from it they differ by O(tangent rotation in the step x twisting moment); see
// bend_twist_spring.hpp).
#include "discrete_rod.hpp"
#include "rod_frames.hpp"
#include "rod_geometry.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <ctime>
#include <cmath>
#include <iostream>
#include <numbers>
#include <numeric>
#include <random>

using namespace soma;
using namespace soma::rod;

namespace {

constexpr double kStep = 1e-6;
constexpr double kRelTol = 1e-6;

double relative_error(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric) {
    return soma::testing::max_relative_error(analytic, numeric);
}

RodMaterial soft_material() {
    RodMaterial m;
    m.density = 1200.0;
    m.youngs_modulus = 1e5;
    m.poisson_ratio = 0.5;
    return m;
}

RodDescription describe(std::vector<Vec3> x, CrossSection section = circular_cross_section(0.02)) {
    RodDescription d;
    d.positions = std::move(x);
    d.section = section;
    d.material = soft_material();
    return d;
}

std::vector<Index> identity_map(Index n) {
    std::vector<Index> map(static_cast<std::size_t>(n));
    std::iota(map.begin(), map.end(), 0);
    return map;
}

/// A rod bound to the identity map, with its initial state and a dense assembly.
struct BoundRod {
    DiscreteRod rod;
    Index n;
    VectorX q, v, a;
    testing::DenseAssembly dense;

    explicit BoundRod(RodDescription d) : rod(std::move(d)), n(rod.dof_count()), dense(n) {
        rod.bind(identity_map(n));
        rod.declare_pattern(dense.pattern());
        rod.initial_state(q, v);
        a = VectorX::Zero(n);
    }
    EvalContext context(const VectorX& at, double c_q = 1.0, double c_a = 0.0) const {
        EvalContext c;
        c.q = &at;
        c.v = &v;
        c.a = &a;
        c.coefficients = JacobianCoefficients{c_q, 0.0, c_a};
        return c;
    }
    VectorX residual(const VectorX& at) { return dense.evaluate(rod, context(at), false).first; }
    double energy(const VectorX& at) const { return rod.potential_energy(context(at)); }
    void commit(const VectorX& at) {
        State s;
        s.q = at;
        s.v = v;
        s.a = a;
        rod.commit_step(s);
    }
};

std::vector<Vec3> curved_points() {
    // A non-planar curve with non-uniform spacing (exercises the two-edge Voronoi length).
    return {Vec3(0.0, 0.0, 0.0),    Vec3(0.05, 0.01, 0.0),  Vec3(0.12, 0.03, 0.01),
            Vec3(0.16, 0.08, 0.03), Vec3(0.18, 0.15, 0.06), Vec3(0.17, 0.21, 0.1),
            Vec3(0.13, 0.25, 0.13)};
}

}  // namespace

TEST_CASE("DOF layout, groups and descriptions", "[discrete_rod][element]") {
    DiscreteRod rod(describe(line_nodes(Vec3(0, 0, 0), Vec3(1, 0, 0), 5)));
    CHECK(rod.dof_count() == 3 * 5 + 4);
    const auto groups = rod.dof_groups();
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].name == "nodes");
    CHECK(groups[0].count == 5);
    CHECK(groups[1].name == "edges");
    CHECK(groups[1].component_names == std::vector<std::string>{"twist"});
    CHECK(rod.group_dof("nodes", 4, 2) == 14);
    CHECK(rod.group_dof("edges", 3, 0) == 18);
    CHECK(rod.describe_dof(14) == "node 4 z");
    CHECK(rod.describe_dof(18) == "edge 3 twist");
    CHECK_THROWS(rod.group_dof("nodes", 5, 0));
    CHECK_THROWS(rod.group_dof("faces", 0, 0));
    // Built without a scene, errors name the type and the key (settings_errors.hpp).
    CHECK_THROWS_WITH(DiscreteRod(describe({Vec3(0, 0, 0), Vec3(1, 0, 0)})),
                      Catch::StartsWith("discrete_rod: geometry: a discrete rod needs at least 3 nodes"));
    CHECK_THROWS_WITH(DiscreteRod(describe({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0)})),
                      Catch::Contains("geometry: nodes 1 and 2 coincide"));
    CHECK_THROWS_WITH(DiscreteRod(describe({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 0, 0)})),
                      Catch::Contains("geometry: the rod folds back onto itself at node 1"));
    RodDescription soft = describe({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)});
    soft.material.youngs_modulus = 0.0;
    CHECK_THROWS_WITH(DiscreteRod(soft), Catch::Contains("material.youngs_modulus: must be positive"));
    soft.material.youngs_modulus = 1e6;
    soft.material.poisson_ratio = 0.7;
    CHECK_THROWS_WITH(DiscreteRod(soft), Catch::Contains("material.poisson_ratio: must be in [0, 0.5]"));
}

TEST_CASE("F matches FD of the energy and J matches FD of F at a deformed, twisted state", "[discrete_rod][element][derivatives]") {
    // Circle (EI1 = EI2) and rectangle (EI1 != EI2) sections.
    const CrossSection section = GENERATE(circular_cross_section(0.02), rectangular_cross_section(0.03, 0.01));
    BoundRod r(describe(helix_nodes(Vec3::Zero(), 0.1, 0.05, 0.6, 7), section));
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX q = r.q;
    for (Index i = 0; i < 3 * r.rod.node_count(); ++i) q(i) += 0.01 * u(rng);   // ~20% of an edge
    for (Index e = 0; e < r.rod.edge_count(); ++e) q(r.rod.twist_dof(e)) = 0.5 * u(rng);
    r.commit(q);  // frames transported from the natural state to q, reference twist updated

    const auto [F, J] = r.dense.evaluate(r.rod, r.context(q));
    const VectorX F_fd = testing::finite_difference_jacobian(
        [&](const VectorX& x) { return VectorX::Constant(1, r.energy(x)); }, q, kStep).transpose();
    CHECK(F.norm() > 0.0);
    CHECK(relative_error(F, F_fd) < kRelTol);
    const Eigen::MatrixXd J_fd = testing::finite_difference_jacobian([&](const VectorX& x) { return r.residual(x); }, q, kStep);
    CHECK(relative_error(J, J_fd) < kRelTol);

    // The exact Jacobian is the Hessian of the energy, symmetric up to round-off although
    // twisting moments act here (the transport's spin, bend_twist_spring.hpp); the symmetric
    // option assembles exactly its symmetric part (stretching and mass are symmetric).
    const double asym = (J - J.transpose()).cwiseAbs().maxCoeff() / J.cwiseAbs().maxCoeff();
    CHECK(asym < 1e-10);
    RodDescription d = describe(helix_nodes(Vec3::Zero(), 0.1, 0.05, 0.6, 7), section);
    d.symmetric_jacobian = true;
    BoundRod s(d);
    s.commit(q);
    const Eigen::MatrixXd Js = s.dense.evaluate(s.rod, s.context(q)).second;
    CHECK(s.rod.symmetric_jacobian());
    CHECK(relative_error(Js, 0.5 * (J + J.transpose())) < 1e-14);
}

TEST_CASE("F and J are exact derivatives away from the committed state (within a step)", "[discrete_rod][element][derivatives]") {
    // A Newton iterate of a time step: frames committed at q_n, evaluated at q != q_n with
    // tangents turned by ~0.1 rad. F must be the gradient of the energy there and J its
    // derivative, or Newton converges only linearly (the transport's spin, bend_twist_spring.hpp).
    BoundRod r(describe(helix_nodes(Vec3::Zero(), 0.1, 0.05, 0.6, 7)));
    std::mt19937 rng(8);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX q_n = r.q;
    for (Index e = 0; e < r.rod.edge_count(); ++e) q_n(r.rod.twist_dof(e)) = 0.5 * u(rng);
    r.commit(q_n);
    VectorX q = q_n;
    for (Index i = 0; i < 3 * r.rod.node_count(); ++i) q(i) += 0.005 * u(rng);
    for (Index e = 0; e < r.rod.edge_count(); ++e) q(r.rod.twist_dof(e)) += 0.1 * u(rng);

    const auto [F, J] = r.dense.evaluate(r.rod, r.context(q));
    const VectorX F_fd = testing::finite_difference_jacobian(
        [&](const VectorX& x) { return VectorX::Constant(1, r.energy(x)); }, q, kStep).transpose();
    CHECK(relative_error(F, F_fd) < kRelTol);
    const Eigen::MatrixXd J_fd = testing::finite_difference_jacobian([&](const VectorX& x) { return r.residual(x); }, q, kStep);
    CHECK(relative_error(J, J_fd) < kRelTol);
    CHECK((J - J.transpose()).cwiseAbs().maxCoeff() < 1e-10 * J.cwiseAbs().maxCoeff());
}

TEST_CASE("the residual-only evaluation assembles the residual of the full one, bit for bit", "[discrete_rod][element]") {
    // Newton trial points are evaluated without the Jacobian (no Hessians computed); the residual
    // must not depend on that choice, for either form of the bend-twist Jacobian.
    for (bool symmetric : {false, true}) {
        INFO("symmetric_jacobian " << symmetric);
        RodDescription d = describe(curved_points());
        d.symmetric_jacobian = symmetric;
        BoundRod r(std::move(d));
        VectorX q = r.q;
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> u(-0.01, 0.01);
        for (Index i = 0; i < q.size(); ++i) q(i) += u(rng);
        for (Index e = 0; e < r.rod.edge_count(); ++e) q(r.rod.twist_dof(e)) += 0.2 * static_cast<double>(e);
        const auto [F_full, J] = r.dense.evaluate(r.rod, r.context(q), true);
        const VectorX F_only = r.residual(q);
        CHECK((F_full.array() == F_only.array()).all());
        if (symmetric) CHECK(relative_error(J, J.transpose()) == 0.0);
    }
}

TEST_CASE("inertia: F gains M a, J gains c_a M, kinetic energy is 1/2 v^T M v", "[discrete_rod][element]") {
    BoundRod r(describe(curved_points()));
    const VectorX F0 = r.residual(r.q);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (Index i = 0; i < r.n; ++i) r.a(i) = u(rng);
    VectorX M(r.n);
    for (Index i = 0; i < r.rod.node_count(); ++i) M.segment<3>(3 * i).setConstant(r.rod.node_masses()[static_cast<std::size_t>(i)]);
    for (Index e = 0; e < r.rod.edge_count(); ++e) M(r.rod.twist_dof(e)) = r.rod.edge_inertias()[static_cast<std::size_t>(e)];
    const auto [F, J] = r.dense.evaluate(r.rod, r.context(r.q, 0.0, 2.5));
    CHECK(relative_error(F - F0, M.cwiseProduct(r.a)) < 1e-14);
    CHECK(relative_error(J, Eigen::MatrixXd((2.5 * M).asDiagonal())) < 1e-14);
    for (Index i = 0; i < r.n; ++i) r.v(i) = u(rng);
    CHECK(r.rod.kinetic_energy(r.context(r.q)) == Approx(0.5 * r.v.dot(M.cwiseProduct(r.v))).epsilon(1e-14));
}

TEST_CASE("global DOF numbering: F and J follow the local-to-global map", "[discrete_rod][element]") {
    BoundRod local(describe(curved_points()));
    DiscreteRod rod(describe(curved_points()));
    const Index n = rod.dof_count();
    std::vector<Index> map(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) map[static_cast<std::size_t>(i)] = (n - 1 - i) + 2;  // reversed, offset
    rod.bind(map);
    testing::DenseAssembly dense(n + 2);
    rod.declare_pattern(dense.pattern());
    VectorX q = VectorX::Zero(n + 2), q_local = local.q;
    q_local(local.rod.twist_dof(2)) = 0.3;
    q_local(4) += 0.01;
    for (Index i = 0; i < n; ++i) q(map[static_cast<std::size_t>(i)]) = q_local(i);
    VectorX zero = VectorX::Zero(n + 2);
    EvalContext c;
    c.q = &q;
    c.v = &zero;
    c.a = &zero;
    const auto [F, J] = dense.evaluate(rod, c);
    const auto [F_local, J_local] = local.dense.evaluate(local.rod, local.context(q_local));
    for (Index i = 0; i < n; ++i) {
        CHECK(F(map[static_cast<std::size_t>(i)]) == F_local(i));
        for (Index j = 0; j < n; ++j) CHECK(J(map[static_cast<std::size_t>(i)], map[static_cast<std::size_t>(j)]) == J_local(i, j));
    }
    CHECK(rod.geometry().point_dofs[0] == std::array<Index, 3>{map[0], map[1], map[2]});
}

TEST_CASE("zero force and energy in the natural configuration", "[discrete_rod][element]") {
    const CrossSection section = circular_cross_section(0.02);
    const double EA = soft_material().youngs_modulus * section.area;
    for (const auto& [name, x] : {std::pair{"helix", helix_nodes(Vec3(0.1, 0.2, 0.0), 0.1, 0.04, 1.5, 30)},
                                  std::pair{"curved points", curved_points()}}) {
        INFO(name);
        BoundRod r(describe(x, section));
        const VectorX F = r.residual(r.q);
        // Round-off only: strains of ~1e-16 times the largest stiffness scale EA (N).
        CHECK(F.cwiseAbs().maxCoeff() < 1e-12 * EA);
        CHECK(std::abs(r.energy(r.q)) < 1e-24 * EA);
        CHECK(r.rod.bend_twist_springs()[3].rest_kappa1 != 0.0);  // the natural shape is curved
    }
}

TEST_CASE("a rigidly rotated rod has zero elastic energy and force", "[discrete_rod][element]") {
    const std::vector<Vec3> x0 = helix_nodes(Vec3::Zero(), 0.1, 0.06, 1.0, 16);
    BoundRod r(describe(x0));
    const Mat3 R = Eigen::AngleAxisd(2.0, Vec3(0.3, 0.8, -0.5).normalized()).toRotationMatrix();
    const Vec3 shift(0.3, -0.2, 1.0);
    VectorX q = r.q;
    for (Index i = 0; i < r.rod.node_count(); ++i) q.segment<3>(3 * i) = R * x0[static_cast<std::size_t>(i)] + shift;
    const double E_unturned = r.energy(q);
    // The reference frames are transported to the rotated tangents; the material frames rotate
    // with the body when each theta is the angle from the transported director to R a1(0).
    const auto a1 = r.rod.reference_directors(q);
    for (Index e = 0; e < r.rod.edge_count(); ++e) {
        const auto ue = static_cast<std::size_t>(e);
        const Vec3 t = (q.segment<3>(3 * e + 3) - q.segment<3>(3 * e)).normalized();
        q(r.rod.twist_dof(e)) = signed_angle(a1[ue], R * r.rod.committed_reference_director()[ue], t);
    }
    const double EI = soft_material().youngs_modulus * circular_cross_section(0.02).second_moment1;
    const double dl = r.rod.bend_twist_springs()[0].voronoi_length;
    // Energy scale EI/dl (J per unit curvature^2) and force scale EI/dl^2; round-off in the
    // curvatures and twists is ~1e-15, so we expect energies ~1e-30 EI/dl and forces ~1e-15 EI/dl^2.
    CHECK(E_unturned > 1e-6 * EI / dl);  // the test is not trivial: without the thetas, twist
    CHECK(r.energy(q) < 1e-24 * EI / dl);
    CHECK(r.residual(q).cwiseAbs().maxCoeff() < 1e-10 * EI / (dl * dl));
}

TEST_CASE("lumped masses total rho A L and twist inertias rho (I1 + I2) L", "[discrete_rod][element]") {
    const CrossSection section = rectangular_cross_section(0.02, 0.004);
    BoundRod r(describe(curved_points(), section));
    double L = 0.0;
    const auto x = curved_points();
    for (std::size_t i = 0; i + 1 < x.size(); ++i) L += (x[i + 1] - x[i]).norm();
    const auto& m = r.rod.node_masses();
    const auto& I = r.rod.edge_inertias();
    const double rho = soft_material().density;
    CHECK(std::accumulate(m.begin(), m.end(), 0.0) == Approx(rho * section.area * L).epsilon(1e-14));
    CHECK(std::accumulate(I.begin(), I.end(), 0.0) ==
          Approx(rho * (section.second_moment1 + section.second_moment2) * L).epsilon(1e-14));
    const Geometry& g = r.rod.geometry();
    CHECK(g.point_mass == m);
    CHECK(std::accumulate(g.point_length.begin(), g.point_length.end(), 0.0) == Approx(L).epsilon(1e-14));
    CHECK(g.edges.size() == x.size() - 1);
    CHECK(g.point_radius[0] == Approx(0.002));
    CHECK(g.density == rho);
    r.v.setZero();
    for (Index i = 0; i < r.rod.node_count(); ++i) r.v.segment<3>(3 * i) = Vec3(1.0, -2.0, 0.5);
    CHECK(r.rod.kinetic_energy(r.context(r.q)) == Approx(0.5 * rho * section.area * L * 5.25).epsilon(1e-14));
}

TEST_CASE("twisting a straight rod by dtheta stores 1/2 GJ/L dtheta^2", "[discrete_rod][element]") {
    // 11 nodes, 10 edges of length l. Twist angles live on edges, so the twisted length is the
    // distance between the midpoints of the first and last edges: L_t = 9 l.
    const Index nodes = 11;
    const double length = 1.0, l = length / (nodes - 1), L_t = length - l, dtheta = 0.8;
    RodDescription d = describe(line_nodes(Vec3(0, 0, 0), Vec3(length, 0, 0), nodes));
    d.material.poisson_ratio = 0.3;
    BoundRod r(d);
    const double GJ = d.material.youngs_modulus / (2.0 * 1.3) * d.section.torsion_constant;
    // Clamp theta of the first edge at 0, turn the last by dtheta, solve for the interior twist
    // angles with one Newton step (the energy is quadratic in theta on a straight rod).
    VectorX q = r.q;
    const Index first = r.rod.twist_dof(0), last = r.rod.twist_dof(r.rod.edge_count() - 1);
    q(last) = dtheta;
    const auto [F, J] = r.dense.evaluate(r.rod, r.context(q));
    const Index m = last - first - 1;
    const VectorX step = J.block(first + 1, first + 1, m, m).ldlt().solve(-F.segment(first + 1, m));
    q.segment(first + 1, m) += step;
    for (Index e = 0; e < r.rod.edge_count(); ++e)
        CHECK(q(r.rod.twist_dof(e)) == Approx(dtheta * e / (r.rod.edge_count() - 1)).margin(1e-12));
    CHECK(r.energy(q) == Approx(0.5 * GJ / L_t * dtheta * dtheta).epsilon(1e-12));
    const VectorX F1 = r.residual(q);
    CHECK(F1.head(3 * nodes).cwiseAbs().maxCoeff() < 1e-12 * GJ / l);  // no bending or stretching force
    CHECK(F1(last) == Approx(GJ / L_t * dtheta).epsilon(1e-12));       // end torque GJ dtheta / L
}

TEST_CASE("commit: the energy at the committed state is unchanged, reject keeps the frames", "[discrete_rod][element]") {
    BoundRod r(describe(curved_points()));
    VectorX q = r.q;
    q.head(3 * r.rod.node_count()) += 0.005 * VectorX::LinSpaced(3 * r.rod.node_count(), -1.0, 1.0);
    q(r.rod.twist_dof(1)) = 0.2;
    const double before = r.energy(q);
    r.rod.reject_step();
    CHECK(r.energy(q) == before);
    r.commit(q);
    CHECK(r.energy(q) == Approx(before).epsilon(1e-13));
}

TEST_CASE("the reference twist accumulates without 2 pi jumps over many rotations", "[discrete_rod][element]") {
    // A curved planar arc turning by 150 degrees, spun rigidly about the x axis for 3 turns in
    // 1-degree steps, committing every step. The tangents sweep cones of different opening, so the
    // reference twists change by 2 pi (cos b_f - cos b_e) per turn (holonomy) and leave (-pi, pi].
    // The material frames follow the body (theta unwrapped step by step), so the elastic energy
    // must stay zero: any 2 pi jump of a reference twist would show up as a huge twist energy.
    std::vector<Vec3> x0;
    const int nodes = 7;
    for (int i = 0; i < nodes; ++i) {
        const double phi = (150.0 * std::numbers::pi / 180.0) * i / (nodes - 1);
        x0.emplace_back(0.1 * std::sin(phi), 0.1 * (1.0 - std::cos(phi)), 0.0);
    }
    BoundRod r(describe(x0));
    const auto m1_0 = r.rod.committed_reference_director();  // theta = 0: material = reference
    const auto twist_0 = r.rod.committed_reference_twist();
    const double EI = soft_material().youngs_modulus * circular_cross_section(0.02).second_moment1;
    const double dl = r.rod.bend_twist_springs()[0].voronoi_length;

    VectorX q = r.q;
    const int steps = 3 * 360;
    double max_energy = 0.0, max_step_change = 0.0, max_accumulated = 0.0;
    for (int s = 1; s <= steps; ++s) {
        const Mat3 R = Eigen::AngleAxisd(s * std::numbers::pi / 180.0, Vec3::UnitX()).toRotationMatrix();
        for (Index i = 0; i < r.rod.node_count(); ++i) q.segment<3>(3 * i) = R * x0[static_cast<std::size_t>(i)];
        const auto a1 = r.rod.reference_directors(q);
        for (Index e = 0; e < r.rod.edge_count(); ++e) {
            const auto ue = static_cast<std::size_t>(e);
            const Vec3 t = (q.segment<3>(3 * e + 3) - q.segment<3>(3 * e)).normalized();
            const double raw = signed_angle(a1[ue], R * m1_0[ue], t);
            double& theta = q(r.rod.twist_dof(e));
            theta += std::remainder(raw - theta, 2.0 * std::numbers::pi);  // unwrap
        }
        max_energy = std::max(max_energy, r.energy(q));
        const auto previous = r.rod.committed_reference_twist();
        r.commit(q);
        const auto& now = r.rod.committed_reference_twist();
        for (std::size_t k = 0; k < now.size(); ++k) {
            max_step_change = std::max(max_step_change, std::abs(now[k] - previous[k]));
            max_accumulated = std::max(max_accumulated, std::abs(now[k] - twist_0[k]));
        }
    }
    INFO("max accumulated reference twist " << max_accumulated);
    CHECK(max_accumulated > std::numbers::pi);  // the twists really left (-pi, pi]
    CHECK(max_step_change < 0.05);              // continuous: small per 1-degree step
    CHECK(max_energy < 1e-20 * EI / dl);        // round-off accumulated over 1080 commits
}

TEST_CASE("assembly cost per node", "[discrete_rod][.benchmark]") {
    // Not a pass/fail test: prints the time of one residual + Jacobian evaluation per node, with a
    // scatter into private per-stencil blocks (the kernel's cached-pattern cost model).
    const Index nodes = 2000;
    DiscreteRod rod(describe(helix_nodes(Vec3::Zero(), 0.1, 0.02, 20.0, nodes)));
    const Index n = rod.dof_count();
    rod.bind(identity_map(n));
    struct Blocks final : PatternBuilder {
        std::vector<Index> begin{0}, dofs, scatter_begin{0}, scatter;
        StencilId add_stencil(std::span<const Index> d) override {
            const Index k = static_cast<Index>(d.size());
            for (Index i : d) dofs.push_back(i);
            begin.push_back(static_cast<Index>(dofs.size()));
            const Index base = static_cast<Index>(scatter.size());
            for (Index i = 0; i < k * k; ++i) scatter.push_back(base + i);
            scatter_begin.push_back(static_cast<Index>(scatter.size()));
            return static_cast<StencilId>(begin.size() - 2);
        }
    } blocks;
    rod.declare_pattern(blocks);
    VectorX q, v;
    rod.initial_state(q, v);
    q(3 * nodes + 5) = 0.1;
    VectorX a = VectorX::Zero(n), F = VectorX::Zero(n);
    std::vector<double> values(blocks.scatter.size(), 0.0);
    Assembly assembly;
    assembly.residual = F.data();
    assembly.jacobian_values = values.data();
    assembly.stencil_dof_begin = blocks.begin.data();
    assembly.stencil_dofs = blocks.dofs.data();
    assembly.stencil_scatter_begin = blocks.scatter_begin.data();
    assembly.scatter = blocks.scatter.data();
    EvalContext c;
    c.q = &q;
    c.v = &v;
    c.a = &a;
    c.coefficients = JacobianCoefficients{1e-4, 1e-2, 1.0};
    // Thread CPU time, not wall time: the build machines are shared and often oversubscribed.
    const auto cpu_seconds = [] {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    };
    // Residual + Jacobian (a Newton iterate), then the residual alone (a line-search trial point:
    // the kernel passes no Jacobian values). Under callgrind, each section is one repeatable
    // instruction count: `valgrind --tool=callgrind discrete_rod_tests "assembly cost per node"
    // -c "residual + Jacobian"`.
    const int repeats = 200;
    const auto measure = [&](const char* what) {
        const double start = cpu_seconds();
        for (int i = 0; i < repeats; ++i) rod.add_residual_and_jacobian(c, assembly);
        const double seconds = cpu_seconds() - start;
        std::cout << "discrete_rod assembly: " << 1e9 * seconds / (repeats * nodes)
                  << " ns (thread CPU time) per node per " << what << " evaluation\n";
    };
    SECTION("residual + Jacobian") { measure("residual + Jacobian"); }
    SECTION("residual only") {
        assembly.jacobian_values = nullptr;
        measure("residual-only");
    }
    CHECK(F.allFinite());
}

// ---- actuation channels (discrete_rod.hpp; MAT-DiSMech eq. 14 and 16, §6.1) ----------------------------

TEST_CASE("actuation channels: names, items, components, points", "[discrete_rod][actuation]") {
    DiscreteRod rod(describe(line_nodes(Vec3(0, 0, 0), Vec3(1, 0, 0), 6)));
    const auto channels = rod.actuation_channels();
    REQUIRE(channels.size() == 2);
    CHECK(channels[0].name == "natural_curvature");
    CHECK(channels[0].count == 4);  // one per bend-twist spring = interior node
    CHECK(channels[0].component_names == std::vector<std::string>{"kappa1", "kappa2"});
    CHECK(channels[0].unit == "1/m");
    CHECK(channels[1].name == "natural_twist");
    CHECK(channels[1].count == 4);
    CHECK(channels[1].component_names == std::vector<std::string>{"tau"});
    CHECK(channels[1].unit == "rad/m");
    CHECK((rod.actuation_point("natural_curvature", 0) - Vec3(0.2, 0, 0)).norm() < 1e-15);  // node 1
    CHECK((rod.actuation_point("natural_twist", 3) - Vec3(0.8, 0, 0)).norm() < 1e-15);      // node 4
    // A straight rod starts with zero natural curvature and twist.
    for (Index k = 0; k < 4; ++k) {
        CHECK(rod.actuation("natural_curvature", k, 0) == 0.0);
        CHECK(rod.actuation("natural_curvature", k, 1) == 0.0);
        CHECK(rod.actuation("natural_twist", k, 0) == 0.0);
    }
    CHECK_THROWS_AS(rod.actuation("natural_hinge_angle", 0, 0), std::out_of_range);
    CHECK_THROWS_AS(rod.set_actuation("natural_curvature", 4, 0, 1.0), std::out_of_range);
    CHECK_THROWS_AS(rod.set_actuation("natural_curvature", -1, 0, 1.0), std::out_of_range);
    CHECK_THROWS_AS(rod.set_actuation("natural_curvature", 0, 2, 1.0), std::out_of_range);
    CHECK_THROWS_AS(rod.set_actuation("natural_twist", 0, 1, 1.0), std::out_of_range);
    CHECK_THROWS_AS(rod.actuation_point("natural_twist", 4), std::out_of_range);
    CHECK_THROWS_AS(rod.set_actuation("natural_twist", 0, 0, std::nan("")), std::domain_error);
    // dl = 0.2 m: |kappa| dl must stay below pi.
    CHECK_THROWS_AS(rod.set_actuation("natural_curvature", 0, 0, std::numbers::pi / 0.2), std::domain_error);
    CHECK_NOTHROW(rod.set_actuation("natural_curvature", 0, 0, 0.99 * std::numbers::pi / 0.2));
}

TEST_CASE("actuation round trip: physical curvature <-> discrete arc curvature, twist rate", "[discrete_rod][actuation]") {
    const Index nodes = 11;
    DiscreteRod rod(describe(line_nodes(Vec3(0, 0, 0), Vec3(0.5, 0, 0), nodes)));
    const double dl = 0.05;
    // Planar: kappa_bar1 = 2 tan(kappa1 dl / 2) exactly (|kb| of MAT-DiSMech eq. 11 is 2 tan(phi/2)).
    rod.set_actuation("natural_curvature", 2, 0, 12.0);
    CHECK(rod.bend_twist_springs()[2].rest_kappa1 == Approx(2.0 * std::tan(12.0 * dl / 2.0)).epsilon(1e-15));
    CHECK(rod.bend_twist_springs()[2].rest_kappa2 == 0.0);
    CHECK(rod.actuation("natural_curvature", 2, 0) == Approx(12.0).epsilon(1e-14));
    // Two components: the discrete vector has magnitude 2 tan(|kappa| dl/2) and the same direction.
    rod.set_actuation("natural_curvature", 2, 1, -5.0);
    const auto& s = rod.bend_twist_springs()[2];
    CHECK(std::hypot(s.rest_kappa1, s.rest_kappa2) == Approx(2.0 * std::tan(13.0 * dl / 2.0)).epsilon(1e-14));
    CHECK(s.rest_kappa2 / s.rest_kappa1 == Approx(-5.0 / 12.0).epsilon(1e-14));
    CHECK(rod.actuation("natural_curvature", 2, 0) == Approx(12.0).epsilon(1e-14));
    CHECK(rod.actuation("natural_curvature", 2, 1) == Approx(-5.0).epsilon(1e-14));
    // Other springs untouched; tiny curvatures (series branch) round-trip too.
    CHECK(rod.actuation("natural_curvature", 1, 0) == 0.0);
    rod.set_actuation("natural_curvature", 4, 1, 1e-9);
    CHECK(rod.actuation("natural_curvature", 4, 1) == Approx(1e-9).epsilon(1e-14));
    CHECK(rod.bend_twist_springs()[4].rest_kappa2 == Approx(1e-9 * dl).epsilon(1e-14));
    // Twist rate: tau_bar = tau_bar_0 + tau dl.
    const double tau0 = rod.bend_twist_springs()[5].rest_twist;
    rod.set_actuation("natural_twist", 5, 0, 3.0);
    CHECK(rod.bend_twist_springs()[5].rest_twist == Approx(tau0 + 3.0 * dl).epsilon(1e-15));
    CHECK(rod.actuation("natural_twist", 5, 0) == Approx(3.0).epsilon(1e-14));
}

TEST_CASE("actuation reads back the curvature of a curved initial shape", "[discrete_rod][actuation]") {
    // A planar circular arc (helix of pitch 0) of radius R: 24 edges over 0.75 turn, so every
    // interior node turns by phi = 2 pi 0.75/24 and every edge is a chord c = 2 R sin(phi/2)
    // (= the Voronoi length). The arc reading is |kappa| = phi / c (-> 1/R as the mesh is refined).
    const double R = 0.1;
    const long nodes = 25;  // 24 edges over 0.75 turn
    const double phi = 2.0 * std::numbers::pi * 0.75 / 24.0;
    DiscreteRod rod(describe(helix_nodes(Vec3::Zero(), R, 0.0, 0.75, nodes)));
    const double chord = 2.0 * R * std::sin(phi / 2.0);
    for (Index k = 0; k < rod.edge_count() - 1; ++k) {
        const double k1 = rod.actuation("natural_curvature", k, 0), k2 = rod.actuation("natural_curvature", k, 1);
        CHECK(std::hypot(k1, k2) == Approx(phi / chord).epsilon(1e-13));
        CHECK(std::abs(rod.actuation("natural_twist", k, 0)) < 1e-12);
    }
}

TEST_CASE("natural curvature: a straight rod is loaded until it bends into the stress-free polygon", "[discrete_rod][actuation]") {
    const Index nodes = 21;
    const double length = 0.1, l = length / (nodes - 1);
    RodDescription d = describe(line_nodes(Vec3(0, 0, 0), Vec3(length, 0, 0), nodes), circular_cross_section(1e-3));
    d.material.youngs_modulus = 20e9;
    BoundRod r(d);
    const double EI = 20e9 * d.section.second_moment1;
    const double kappa = 15.0;  // 1/m
    for (Index k = 0; k + 2 < nodes; ++k) r.rod.set_actuation("natural_curvature", k, 0, kappa);
    const double kappa_bar = 2.0 * std::tan(kappa * l / 2.0);
    // Straight: nonzero force, energy sum 1/2 EI/dl kappa_bar^2.
    const VectorX F0 = r.residual(r.q);
    CHECK(F0.cwiseAbs().maxCoeff() > 1e-3 * EI * kappa_bar / (l * l));
    CHECK(r.energy(r.q) == Approx((nodes - 2) * 0.5 * EI / l * kappa_bar * kappa_bar).epsilon(1e-12));
    // The polygon whose every interior node turns by phi = kappa l toward +m1 = +z (the initial
    // space-parallel director of a rod along +x is t x y = +z; kappa1 > 0 bends toward +m1).
    const double phi = kappa * l;
    VectorX q = r.q;
    Vec3 x = Vec3::Zero();
    for (Index e = 0; e < nodes - 1; ++e) {
        x += l * Vec3(std::cos(e * phi), 0.0, std::sin(e * phi));
        q.segment<3>(3 * (e + 1)) = x;
    }
    // Round-off: curvatures and strains carry ~1e-16 relative errors; the force scale is
    // EA ~ 6e4 N (stretching) and EI kappa_bar / l^2 ~ 1e-2 N (bending).
    CHECK(r.energy(q) < 1e-24 * EI / l);
    const VectorX F1 = r.residual(q);
    CHECK(F1.cwiseAbs().maxCoeff() < 1e-9 * F0.cwiseAbs().maxCoeff());
    // Bent the other way (toward -z) it is not stress-free.
    for (Index i = 0; i < nodes; ++i) q(3 * i + 2) = -q(3 * i + 2);
    CHECK(r.residual(q).cwiseAbs().maxCoeff() > 1e-3 * F0.cwiseAbs().maxCoeff());
}

TEST_CASE("natural twist: a straight rod is twisted until theta grows by tau dl per edge", "[discrete_rod][actuation]") {
    const Index nodes = 11;
    const double length = 1.0, l = length / (nodes - 1), tau = 0.7;  // rad/m
    BoundRod r(describe(line_nodes(Vec3(0, 0, 0), Vec3(length, 0, 0), nodes)));
    for (Index k = 0; k + 2 < nodes; ++k) r.rod.set_actuation("natural_twist", k, 0, tau);
    const VectorX F0 = r.residual(r.q);
    // E = 1/2 GJ/l (theta_1 - theta_0 - tau l)^2 at the first spring: dE/dtheta_0 = GJ tau at theta = 0.
    const double GJ = r.rod.bend_twist_springs()[0].twist_stiffness;
    CHECK(F0(r.rod.twist_dof(0)) == Approx(GJ * tau).epsilon(1e-12));
    VectorX q = r.q;
    for (Index e = 0; e < nodes - 1; ++e) q(r.rod.twist_dof(e)) = tau * l * e;
    CHECK(r.energy(q) < 1e-28);
    CHECK(r.residual(q).cwiseAbs().maxCoeff() < 1e-12 * std::abs(F0(r.rod.twist_dof(0))));
}

TEST_CASE("discrete_rod: actuation directions are the directions the natural curvature bends toward",
          "[discrete_rod][actuation]") {
    // On a curved rod (helix) the initial natural curvature of each spring must be
    // |kb| (d.D1, d.D2) with d the unit direction the rod turns toward (kb = |kb| t x d,
    // t = unit(t_e + t_f)): the derivation in discrete_rod.hpp, exact at the initial state.
    const std::vector<Vec3> x = helix_nodes(Vec3::Zero(), 0.1, 0.05, 0.6, 9);
    DiscreteRod rod(describe(x));
    for (Index k = 0; k + 2 < static_cast<Index>(x.size()); ++k) {
        const auto uk = static_cast<std::size_t>(k);
        const Vec3 e = x[uk + 1] - x[uk], f = x[uk + 2] - x[uk + 1];
        const Vec3 kb = curvature_binormal(e, f);
        const Vec3 t = (e.normalized() + f.normalized()).normalized();
        const Vec3 d = kb.cross(t).normalized();
        const std::vector<Vec3> D = rod.actuation_directions("natural_curvature", k);
        REQUIRE(D.size() == 2);
        const BendTwistSpring& s = rod.bend_twist_springs()[uk];
        CHECK(s.rest_kappa1 == Approx(kb.norm() * d.dot(D[0])).margin(1e-14));
        CHECK(s.rest_kappa2 == Approx(kb.norm() * d.dot(D[1])).margin(1e-14));
        CHECK(std::abs(D[0].dot(t)) < 1e-14);
        CHECK(std::abs(D[1].dot(t)) < 1e-14);
    }
    CHECK(rod.actuation_directions("natural_twist", 0).empty());
    CHECK_THROWS_AS(rod.actuation_directions("natural_curvature", 7), std::out_of_range);
    // A given first director that is parallel to the first edge is refused.
    RodDescription bad = describe(x);
    bad.first_director = x[1] - x[0];
    CHECK_THROWS_WITH(DiscreteRod(bad), Catch::Contains("geometry: the first material director"));
}
