// The hinge_shell Element through the SDK's dense test assembly (soma/testing/dense_assembly.hpp):
// F against finite differences of the energy, J against finite differences of F, the lumped
// mass, rigid-motion invariance, the stress-free natural state, and the actuation channel.
//
// Tolerances: central differences with step h = 1e-7 on coordinates O(0.1), truncation
// O(h^2 |f'''|) ~ 1e-12 relative and round-off O(eps |E| / h) ~ 1e-9 relative; we accept 1e-6
// relative (max-norm), as in test_hinge_bending.cpp. The thickness (h = 0.03 on 0.1 m edges) keeps
// bending forces within two orders of the stretching forces, so a wrong bending term would show
// far above the tolerance in the combined F and J.
#include "hinge_shell.hpp"
#include "mesh_input.hpp"

#include "soma/testing/dense_assembly.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <numeric>
#include <random>

using namespace soma;
using namespace soma::shells;

namespace {

constexpr double kStep = 1e-7;
constexpr double kRelTol = 1e-6;

double relative_error(const Eigen::MatrixXd& analytic, const Eigen::MatrixXd& numeric) {
    return soma::testing::max_relative_error(analytic, numeric);
}

std::vector<Index> identity_map(Index n) {
    std::vector<Index> map(static_cast<std::size_t>(n));
    std::iota(map.begin(), map.end(), 0);
    return map;
}

HingeShellDescription describe(TriangleMesh mesh, double thickness = 0.03) {
    HingeShellDescription d;
    d.mesh = std::move(mesh);
    d.thickness = thickness;
    d.material.density = 1200.0;
    d.material.youngs_modulus = 1e5;
    return d;
}

/// A shell bound to the identity map, its initial state and a dense assembly.
struct Fixture {
    HingeShell shell;
    VectorX q0, v0;
    testing::DenseAssembly dense;

    explicit Fixture(HingeShellDescription d) : shell(std::move(d)), dense(shell.dof_count()) {
        shell.bind(identity_map(shell.dof_count()));
        shell.initial_state(q0, v0);
        shell.declare_pattern(dense.pattern());
    }

    EvalContext context(const VectorX& q, const VectorX* a = nullptr, JacobianCoefficients w = {1.0, 0.0, 0.0}) const {
        EvalContext c;
        c.q = &q;
        c.v = &v0;
        c.a = a;
        c.coefficients = w;
        return c;
    }
    double energy(const VectorX& q) const { return shell.potential_energy(context(q)); }
    VectorX force(const VectorX& q) { return dense.evaluate(shell, context(q), false).first; }
};

/// A small curved sheet: a 0.3 x 0.25 rectangle with 0.1 m triangles, bent into a cylinder
/// section and perturbed, so that the natural state is curved (non-zero natural angles).
TriangleMesh curved_sheet() {
    TriangleMesh m = rectangle_mesh(Vec3(0, 0, 0), 0.3, 0.25, 0.1);
    for (Vec3& x : m.positions) x.z() = 0.8 * x.x() * x.x() - 0.3 * x.y() * x.x();
    return m;
}

VectorX perturbed(const VectorX& q, unsigned seed, double amplitude) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-amplitude, amplitude);
    VectorX p = q;
    for (Index i = 0; i < p.size(); ++i) p(i) += u(rng);
    return p;
}

}  // namespace

TEST_CASE("hinge_shell: F is the gradient of the energy and J its Hessian (c_q = 1)", "[hinge_shell][fd]") {
    Fixture f(describe(curved_sheet()));
    REQUIRE(f.shell.topology().hinges.size() > 10);
    for (unsigned seed : {1u, 2u, 3u}) {
        INFO("seed " << seed);
        const VectorX q = perturbed(f.q0, seed, 0.02);
        const auto [F, J] = f.dense.evaluate(f.shell, f.context(q));
        const Eigen::MatrixXd dE = testing::finite_difference_jacobian(
            [&](const VectorX& x) { return VectorX::Constant(1, f.energy(x)); }, q, kStep);
        CHECK(relative_error(F, dE.transpose()) < kRelTol);
        const Eigen::MatrixXd dF = testing::finite_difference_jacobian([&](const VectorX& x) { return f.force(x); }, q, kStep);
        CHECK(relative_error(J, dF) < kRelTol);
        CHECK((J - J.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * J.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("hinge_shell: the initial state is stress-free and rigid motions cost nothing", "[hinge_shell]") {
    Fixture f(describe(curved_sheet()));
    const auto [F0, J0] = f.dense.evaluate(f.shell, f.context(f.q0));
    // Forces scale: k_s * (a 1% strain) for the 0.1 m edges.
    const double force_scale = f.shell.edge_springs()[0].stiffness * 0.01;
    CHECK(F0.cwiseAbs().maxCoeff() < 1e-12 * force_scale);
    CHECK(f.energy(f.q0) < 1e-25);

    const Mat3 R = Eigen::AngleAxisd(1.1, Vec3(0.3, -0.5, 0.8).normalized()).toRotationMatrix();
    const Vec3 shift(0.4, -1.0, 2.0);
    VectorX q = f.q0;
    for (Index i = 0; i < f.shell.node_count(); ++i) q.segment<3>(3 * i) = R * f.q0.segment<3>(3 * i) + shift;
    CHECK(f.force(q).cwiseAbs().maxCoeff() < 1e-10 * force_scale);
    CHECK(f.energy(q) < 1e-20);

    // A flat sheet is stress-free too (natural angles 0, phi = 0).
    Fixture flat(describe(rectangle_mesh(Vec3(0, 0, 0), 0.3, 0.25, 0.1)));
    for (const HingeSpring& s : flat.shell.hinge_springs()) CHECK(s.natural_angle == 0.0);
    CHECK(flat.force(flat.q0).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("hinge_shell: lumped mass rho h A/3, M a and c_a M", "[hinge_shell][mass]") {
    const TriangleMesh mesh = regular_polygon_mesh(Vec3(0, 0, 0), 0.5, 6, 0.1);
    Fixture f(describe(mesh, 0.002));
    const double area = total_area(f.shell.topology());
    CHECK(area == Approx(1.5 * std::sqrt(3.0) * 0.25).epsilon(1e-12));
    double total = 0.0;
    for (double m : f.shell.node_masses()) total += m;
    CHECK(total == Approx(1200.0 * 0.002 * area).epsilon(1e-12));
    // The hexagon's center node touches 6 triangles of area sqrt(3)/4 a^2.
    CHECK(f.shell.node_masses()[0] == Approx(6.0 * 1200.0 * 0.002 * std::sqrt(3.0) / 4.0 * 0.01 / 3.0).epsilon(1e-12));

    // c_a = 1 only: J is the lumped mass; F = grad E + M a.
    VectorX a = perturbed(VectorX::Zero(f.shell.dof_count()), 5, 1.0);
    const auto [F, J] = f.dense.evaluate(f.shell, f.context(f.q0, &a, {0.0, 0.0, 1.0}));
    Eigen::VectorXd M(f.shell.dof_count());
    for (Index i = 0; i < f.shell.node_count(); ++i) M.segment<3>(3 * i).setConstant(f.shell.node_masses()[i]);
    CHECK((J - Eigen::MatrixXd(M.asDiagonal())).cwiseAbs().maxCoeff() == 0.0);
    CHECK((F - M.cwiseProduct(a)).cwiseAbs().maxCoeff() < 1e-15 * M.maxCoeff());

    // Kinetic energy 1/2 v^T M v.
    const VectorX v = perturbed(VectorX::Zero(f.shell.dof_count()), 6, 1.0);
    EvalContext c = f.context(f.q0);
    c.v = &v;
    CHECK(f.shell.kinetic_energy(c) == Approx(0.5 * v.dot(M.cwiseProduct(v))).epsilon(1e-13));
}

TEST_CASE("hinge_shell: geometry for forces and output", "[hinge_shell]") {
    const TriangleMesh mesh = rectangle_mesh(Vec3(0, 0, 0), 0.3, 0.25, 0.1);
    HingeShell shell(describe(mesh, 0.004));
    std::vector<Index> map(static_cast<std::size_t>(shell.dof_count()));
    for (std::size_t i = 0; i < map.size(); ++i) map[i] = static_cast<Index>(2 * i + 7);  // any global numbering
    shell.bind(map);
    const Geometry& g = shell.geometry();
    REQUIRE(g.point_dofs.size() == mesh.positions.size());
    CHECK(g.point_dofs[2] == std::array<Index, 3>{2 * 6 + 7, 2 * 7 + 7, 2 * 8 + 7});
    CHECK(g.triangles == mesh.triangles);
    CHECK(g.edges.size() == shell.topology().edges.size());
    for (std::size_t i = 0; i < mesh.positions.size(); ++i) {
        CHECK(g.point_length[i] == 0.0);
        CHECK(g.point_radius[i] == 0.002);
        CHECK(g.point_mass[i] == shell.node_masses()[i]);
    }
    CHECK(g.density == 1200.0);
    const auto groups = shell.dof_groups();
    REQUIRE(groups.size() == 1);
    CHECK(groups[0].name == "nodes");
    CHECK(groups[0].count == shell.node_count());
    CHECK(shell.group_dof("nodes", 4, 2) == 14);
    CHECK(shell.describe_dof(14) == "node 4 z");
    CHECK_THROWS_AS(shell.group_dof("edges", 0, 0), std::out_of_range);
}

TEST_CASE("hinge_shell: stiffness values (the reference code's lattice values, not those printed in MAT-DiSMech)", "[hinge_shell]") {
    Fixture f(describe(rectangle_mesh(Vec3(0, 0, 0), 0.3, 0.25, 0.1), 0.004));
    const double E = 1e5, h = 0.004;
    for (std::size_t e = 0; e < f.shell.edge_springs().size(); ++e)
        CHECK(f.shell.edge_springs()[e].stiffness ==
              Approx(std::sqrt(3.0) / 2.0 * E * h * f.shell.topology().edge_lengths[e]).epsilon(1e-14));
    for (const HingeSpring& s : f.shell.hinge_springs())
        CHECK(s.stiffness == Approx(2.0 / std::sqrt(3.0) * E * h * h * h / 12.0).epsilon(1e-14));
}

TEST_CASE("hinge_shell: natural_hinge_angle actuation channel", "[hinge_shell][actuation]") {
    // One hinge: edge 0 -> 1 along x, wings 2 (y > 0) and 3 (y < 0).
    TriangleMesh m;
    m.positions = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, 0.8, 0), Vec3(0.5, -0.8, 0)};
    m.triangles = {{0, 1, 2}, {1, 0, 3}};
    Fixture f(describe(m, 0.05));
    const auto channels = f.shell.actuation_channels();
    REQUIRE(channels.size() == 1);
    CHECK(channels[0].name == "natural_hinge_angle");
    CHECK(channels[0].count == 1);
    CHECK(channels[0].component_names == std::vector<std::string>{"phi"});
    CHECK(channels[0].unit == "rad");
    CHECK(f.shell.actuation("natural_hinge_angle", 0, 0) == 0.0);
    CHECK(f.shell.actuation_point("natural_hinge_angle", 0).isApprox(Vec3(0.5, 0, 0)));
    CHECK_THROWS_AS(f.shell.actuation("natural_curvature", 0, 0), std::out_of_range);
    CHECK_THROWS_AS(f.shell.set_actuation("natural_hinge_angle", 1, 0, 0.1), std::out_of_range);
    // Hinge angles live in (-pi, pi]: a natural angle outside could never be reached.
    CHECK_THROWS_AS(f.shell.set_actuation("natural_hinge_angle", 0, 0, 3.2), std::domain_error);
    CHECK_THROWS_AS(f.shell.set_actuation("natural_hinge_angle", 0, 0, -3.2), std::domain_error);
    f.shell.set_actuation("natural_hinge_angle", 0, 0, 3.1);
    CHECK(f.shell.actuation("natural_hinge_angle", 0, 0) == 3.1);

    const double phi_bar = 0.6;
    f.shell.set_actuation("natural_hinge_angle", 0, 0, phi_bar);
    CHECK(f.shell.actuation("natural_hinge_angle", 0, 0) == phi_bar);
    // The flat sheet is no longer in equilibrium ...
    CHECK(f.force(f.q0).norm() > 1e-3);
    // ... the sheet folded rigidly to phi = phi_bar (wing 3 rotated about the edge, lengths kept) is.
    VectorX q = f.q0;
    const Vec3 w = Eigen::AngleAxisd(phi_bar, Vec3::UnitX()) * Vec3(0.5, -0.8, 0.0);
    q.segment<3>(9) = w;
    CHECK(hinge_angle(q.segment<3>(0), q.segment<3>(3), q.segment<3>(6), q.segment<3>(9)) == Approx(phi_bar).epsilon(1e-14));
    CHECK(f.force(q).cwiseAbs().maxCoeff() < 1e-12 * f.force(f.q0).cwiseAbs().maxCoeff());
}

TEST_CASE("hinge_shell: invalid descriptions are refused", "[hinge_shell]") {
    HingeShellDescription d = describe(rectangle_mesh(Vec3(0, 0, 0), 0.3, 0.25, 0.1));
    d.thickness = 0.0;
    CHECK_THROWS_WITH(HingeShell(d), Catch::StartsWith("hinge_shell: thickness: must be positive"));
    d = describe(rectangle_mesh(Vec3(0, 0, 0), 0.3, 0.25, 0.1));
    d.mesh.positions.push_back(Vec3(5, 5, 5));
    CHECK_THROWS_AS(HingeShell(d), MeshError);
}
