// rod_joint and rod_shell_joint (MAT-DiSMech §3.2, Fig. 2(g), §3.4) through the SDK's dense test assembly.
//
// Networks are bound here as the kernel binds a scene: every element's local DOFs are numbered,
// the listed nodes are merged (shared_nodes), then the joints connect through a SceneView.
//
// Finite differences as in test_discrete_rod_element.cpp: central step h = 1e-6 on O(0.1-1)
// coordinates (truncation ~1e-12, round-off ~1e-10 relative), accepted at 1e-6 relative
// (max-norm). Derivatives are checked at the committed configuration (frames transported from the
// committed tangents, as the rod's own tests; see bend_twist_spring.hpp for why).
#include "discrete_rod.hpp"
#include "rod_geometry.hpp"
#include "rod_joint.hpp"
#include "rod_shell_joint.hpp"

#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/point_set.hpp"
#include "soma/testing/test_scene.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
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

RodDescription describe(std::vector<Vec3> x, bool symmetric = false, double radius = 0.02, double E = 1e5) {
    RodDescription d;
    d.positions = std::move(x);
    d.section = circular_cross_section(radius);
    d.material.density = 1200.0;
    d.material.youngs_modulus = E;
    d.material.poisson_ratio = 0.5;
    d.symmetric_jacobian = symmetric;
    return d;
}

/// A stand-in for a shell: points (3 DOFs each) and triangles, nothing else (all a joint reads).
std::unique_ptr<Element> fake_shell(const std::vector<Vec3>& x, std::vector<std::array<Index, 3>> triangles) {
    std::vector<soma::testing::PointSet::Point> points;
    for (const Vec3& p : x) points.push_back({p});
    return std::make_unique<soma::testing::PointSet>("shell", std::move(points), std::move(triangles));
}

/// Elements bound with shared nodes, the SDK's test scene over them, and a dense assembly of all
/// terms.
class Network final : public testing::TestScene {
public:
    Element& add(std::string name, std::unique_ptr<Element> element) {
        element->set_name(std::move(name));
        owned_.push_back(std::move(element));
        add_element(*owned_.back());
        return *owned_.back();
    }
    /// Node `na` of element `a` and node `nb` of element `b` are one node (negative: from the end).
    void share(std::size_t a, long na, std::size_t b, long nb) { shares_.push_back({a, na, b, nb}); }

    /// Numbers the DOFs (merging shared nodes), binds, sets the initial state, connects the
    /// joints, declares the patterns and commits the initial state.
    void build() {
        const std::vector<Element*>& views = elements();
        std::vector<Index> offset{0};
        for (auto* e : views) offset.push_back(offset.back() + e->dof_count());
        std::vector<Index> parent(static_cast<std::size_t>(offset.back()));
        std::iota(parent.begin(), parent.end(), 0);
        auto root = [&](Index i) {
            while (parent[i] != i) i = parent[i] = parent[parent[i]];
            return i;
        };
        for (const auto& s : shares_) {
            auto node = [&](std::size_t e, long n) {
                const Index count = views[e]->dof_groups()[0].count;
                return n < 0 ? n + count : n;
            };
            for (int c = 0; c < 3; ++c) {
                const Index ia = root(offset[s.a] + 3 * node(s.a, s.na) + c);
                const Index ib = root(offset[s.b] + 3 * node(s.b, s.nb) + c);
                parent[std::max(ia, ib)] = std::min(ia, ib);
            }
        }
        std::vector<Index> global(parent.size(), -1);
        n_ = 0;
        for (std::size_t i = 0; i < parent.size(); ++i)
            if (root(static_cast<Index>(i)) == static_cast<Index>(i)) global[i] = n_++;
        State initial;
        initial.q = VectorX::Zero(n_);
        initial.v = VectorX::Zero(n_);
        initial.a = VectorX::Zero(n_);
        for (std::size_t e = 0; e < views.size(); ++e) {
            std::vector<Index> map;
            for (Index l = offset[e]; l < offset[e + 1]; ++l) map.push_back(global[static_cast<std::size_t>(root(l))]);
            views[e]->bind(map);
            VectorX q, v;
            views[e]->initial_state(q, v);
            for (Index l = 0; l < q.size(); ++l) initial.q[views[e]->global_dof(l)] = q[l];
        }
        set_state(std::move(initial));
        for (auto* e : views) e->connect(*this);
        dense_ = std::make_unique<testing::DenseAssembly>(n_);
        for (auto* e : views) e->declare_pattern(dense_->pattern());
        commit(state().q);
    }

    void commit(const VectorX& q) {
        State s = state();
        s.q = q;
        for (auto* e : elements()) e->commit_step(s);
    }
    EvalContext context(const VectorX& q) const {
        EvalContext c = testing::TestScene::context();
        c.q = &q;
        return c;
    }
    /// Residual and Jacobian of one element (or of all when `term` is null).
    std::pair<VectorX, Eigen::MatrixXd> evaluate(const VectorX& q, Element* term = nullptr, bool jacobian = true) {
        VectorX F = VectorX::Zero(n_);
        Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n_, n_);
        for (auto* e : elements()) {
            if (term != nullptr && e != term) continue;
            auto [f, j] = dense_->evaluate(*e, context(q), jacobian);
            F += f;
            J += j;
        }
        return {F, J};
    }
    double energy(const VectorX& q, const Element* term = nullptr) const {
        double E = 0.0;
        for (auto* e : elements())
            if (term == nullptr || e == term) E += e->potential_energy(context(q));
        return E;
    }
    Index size() const { return n_; }
    const VectorX& q0() const { return state().q; }
    Element& element(std::size_t i) { return *elements()[i]; }

private:
    struct Share {
        std::size_t a;
        long na;
        std::size_t b;
        long nb;
    };
    std::vector<std::unique_ptr<Element>> owned_;
    std::vector<Share> shares_;
    Index n_ = 0;
    std::unique_ptr<testing::DenseAssembly> dense_;
};

/// A deformed, twisted configuration: every coordinate moved by up to `amplitude`, every twist
/// DOF (those not in `position_dofs`) set in [-0.5, 0.5] rad.
VectorX perturbed(const VectorX& q0, const std::vector<char>& is_position, double amplitude, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX q = q0;
    for (Index i = 0; i < q.size(); ++i) q[i] += is_position[static_cast<std::size_t>(i)] ? amplitude * u(rng) : 0.5 * u(rng);
    return q;
}

std::vector<char> position_mask(const Network& net) {
    std::vector<char> mask(static_cast<std::size_t>(net.size()), 0);
    for (auto* e : net.elements())
        for (const auto& d : e->geometry().point_dofs)
            for (Index g : d) mask[static_cast<std::size_t>(g)] = 1;
    return mask;
}

/// Checks F = FD of the element's energy and J = FD of F at q (committed first); with the
/// symmetric option J must be the symmetric part of the FD Jacobian.
void check_derivatives(Network& net, Element& joint, const VectorX& q) {
    net.commit(q);
    const auto [F, J] = net.evaluate(q, &joint);
    CHECK(F.norm() > 0.0);
    const VectorX F_fd = testing::finite_difference_jacobian(
        [&](const VectorX& x) { return VectorX::Constant(1, net.energy(x, &joint)); }, q, kStep).transpose();
    CHECK(relative_error(F, F_fd) < kRelTol);
    const Eigen::MatrixXd J_fd = testing::finite_difference_jacobian(
        [&](const VectorX& x) { return net.evaluate(x, &joint, false).first; }, q, kStep);
    if (joint.symmetric_jacobian()) {
        CHECK(relative_error(J, 0.5 * (J_fd + J_fd.transpose())) < kRelTol);
        CHECK(relative_error(J, J.transpose()) < 1e-14);
    } else {
        CHECK(relative_error(J, J_fd) < kRelTol);
        // With the transport's spin the exact Jacobian is the Hessian of an energy: symmetric up
        // to round-off even where twisting moments act (bend_twist_spring.hpp).
        CHECK(relative_error(J, J.transpose()) < 1e-10);
    }
}

std::vector<Vec3> reversed(std::vector<Vec3> x) {
    std::reverse(x.begin(), x.end());
    return x;
}

}  // namespace

TEST_CASE("rod_joint: F and J match finite differences for every edge orientation", "[rod_joint][derivatives]") {
    // Rod a ends at the junction (its edge points INTO the node) or starts there (OUT); rod b
    // likewise; rod c (optional) passes through the junction (interior node: one edge in, one out).
    const std::vector<Vec3> arm_a{Vec3(-0.9, 0.1, 0.05), Vec3(-0.45, 0.12, -0.03), Vec3(0, 0, 0)};
    const std::vector<Vec3> arm_b{Vec3(0, 0, 0), Vec3(0.35, 0.3, 0.1), Vec3(0.6, 0.75, 0.05)};
    const std::vector<Vec3> through_c{Vec3(0.1, -0.6, 0.3), Vec3(0.05, -0.3, 0.15), Vec3(0, 0, 0),
                                      Vec3(-0.1, 0.2, 0.45), Vec3(-0.15, 0.3, 0.9)};
    struct Case {
        const char* name;
        bool a_into, b_out, with_c;
    };
    const Case c = GENERATE(Case{"into/out", true, true, false}, Case{"into/into", true, false, false},
                            Case{"out/out", false, true, false}, Case{"out/into", false, false, false},
                            Case{"into/out + interior", true, true, true}, Case{"out/into + interior", false, false, true});
    const bool symmetric = GENERATE(false, true);
    INFO(c.name << (symmetric ? ", symmetric Jacobian" : ", exact Jacobian"));
    Network net;
    net.add("a", std::make_unique<DiscreteRod>(describe(c.a_into ? arm_a : reversed(arm_a), symmetric)));
    net.add("b", std::make_unique<DiscreteRod>(describe(c.b_out ? arm_b : reversed(arm_b), symmetric, 0.015, 3e5)));
    RodJointDescription d;
    d.elements = {"a", "b"};
    d.nodes = {c.a_into ? -1 : 0, c.b_out ? 0 : -1};
    d.symmetric_jacobian = symmetric;
    if (c.with_c) {
        net.add("c", std::make_unique<DiscreteRod>(describe(through_c, symmetric)));
        d.elements.push_back("c");
        d.nodes.push_back(2);
    }
    auto& joint = static_cast<RodJoint&>(net.add("joint", std::make_unique<RodJoint>(d)));
    net.share(0, d.nodes[0], 1, d.nodes[1]);
    if (c.with_c) net.share(0, d.nodes[0], 2, 2);
    net.build();

    // Springs: C(n, 2) minus the interior rod's own pair; orientation signs per MAT-DiSMech §3.2, Fig. 2(g).
    const std::size_t edges = c.with_c ? 4 : 2;
    REQUIRE(joint.springs().springs().size() == edges * (edges - 1) / 2 - (c.with_c ? 1 : 0));
    const JointSpring& ab = joint.springs().springs()[0];
    CHECK(ab.sign_e == (c.a_into ? 1.0 : -1.0));
    CHECK(ab.sign_f == (c.b_out ? 1.0 : -1.0));

    // Stress-free initially.
    CHECK(net.energy(net.q0(), &joint) == Approx(0.0).margin(1e-20));
    CHECK(net.evaluate(net.q0(), &joint).first.cwiseAbs().maxCoeff() < 1e-12);

    const VectorX q = perturbed(net.q0(), position_mask(net), 0.08, 11);
    check_derivatives(net, joint, q);
}

TEST_CASE("rod_joint: the series stiffness of two different rods", "[rod_joint]") {
    Network net;
    net.add("a", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(-1, 0, 0), Vec3(0, 0, 0), 3))));       // l = 0.5
    net.add("b", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(0, 0, 0), Vec3(0, 0.75, 0), 4), false, 0.03)));  // l = 0.25
    auto& joint = static_cast<RodJoint&>(net.add("joint", std::make_unique<RodJoint>(RodJointDescription{{"a", "b"}, {-1, 0}})));
    net.share(0, -1, 1, 0);
    net.build();
    const auto& a = static_cast<DiscreteRod&>(net.element(0));
    const auto& b = static_cast<DiscreteRod&>(net.element(1));
    const double EIa = a.material().youngs_modulus * a.section().second_moment1;
    const double EIb = b.material().youngs_modulus * b.section().second_moment1;
    REQUIRE(joint.springs().springs().size() == 1);
    const BendTwistSpring& s = joint.springs().springs()[0].spring;
    CHECK(s.voronoi_length == Approx(0.375));
    CHECK(s.bend_stiffness1 == Approx(0.375 / (0.25 / EIa + 0.125 / EIb)).epsilon(1e-14));
    CHECK(s.twist_stiffness == Approx(0.375 / (0.25 / (a.material().shear() * a.section().torsion_constant) +
                                               0.125 / (b.material().shear() * b.section().torsion_constant))).epsilon(1e-14));
}

TEST_CASE("rod_joint: a straight rod split in two is the unsplit rod", "[rod_joint]") {
    // Unsplit: 7 nodes from (0,0,0) to (0.6,0,0). Split: a = nodes 0..3, b = nodes 3..6, joined by
    // shared_nodes and a rod_joint at node 3. Same node masses (Voronoi halves add up), same
    // springs (equal rods: the series stiffness is the rod's), same frames (straight: both rods'
    // space-parallel frames coincide), so F and J agree at any configuration.
    const bool symmetric = GENERATE(false, true);
    INFO((symmetric ? "symmetric" : "exact") << " Jacobian");
    const auto x = line_nodes(Vec3(0, 0, 0), Vec3(0.6, 0, 0), 7);
    Network whole;
    whole.add("rod", std::make_unique<DiscreteRod>(describe(x, symmetric)));
    whole.build();
    Network split;
    split.add("a", std::make_unique<DiscreteRod>(describe({x.begin(), x.begin() + 4}, symmetric)));
    split.add("b", std::make_unique<DiscreteRod>(describe({x.begin() + 3, x.end()}, symmetric)));
    split.add("joint", std::make_unique<RodJoint>(RodJointDescription{{"a", "b"}, {-1, 0}, symmetric}));
    split.share(0, -1, 1, 0);
    split.build();
    REQUIRE(split.size() == whole.size());

    // Map each DOF of the unsplit rod to the split network's numbering.
    const auto& rod = static_cast<DiscreteRod&>(whole.element(0));
    const auto& a = static_cast<DiscreteRod&>(split.element(0));
    const auto& b = static_cast<DiscreteRod&>(split.element(1));
    std::vector<Index> map(static_cast<std::size_t>(whole.size()));
    for (Index i = 0; i < 7; ++i)
        for (int c = 0; c < 3; ++c)
            map[rod.node_global_dofs(i)[c]] = i < 4 ? a.node_global_dofs(i)[c] : b.node_global_dofs(i - 3)[c];
    for (Index e = 0; e < 6; ++e) map[rod.twist_global_dof(e)] = e < 3 ? a.twist_global_dof(e) : b.twist_global_dof(e - 3);
    auto to_split = [&](const VectorX& v) {
        VectorX w(v.size());
        for (Index i = 0; i < v.size(); ++i) w[map[i]] = v[i];
        return w;
    };

    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    VectorX q = whole.q0();
    for (Index i = 0; i < 7; ++i) q.segment<3>(3 * i) += Vec3(0.01 * u(rng), 0.2 * std::pow(0.1 * i, 2) + 0.01 * u(rng), 0.01 * u(rng));
    for (Index e = 0; e < 6; ++e) q[rod.twist_global_dof(e)] = 0.4 * u(rng);

    // Frames committed at the straight state, then at a bent one (the joint's commit path).
    for (int pass = 0; pass < 2; ++pass) {
        INFO("pass " << pass);
        const auto [F, J] = whole.evaluate(q);
        const auto [Fs, Js] = split.evaluate(to_split(q));
        CHECK(split.energy(to_split(q)) == Approx(whole.energy(q)).epsilon(1e-12));
        CHECK(relative_error(Fs, to_split(F)) < 1e-12);
        Eigen::MatrixXd Jmapped(J.rows(), J.cols());
        for (Index r = 0; r < J.rows(); ++r)
            for (Index c = 0; c < J.cols(); ++c) Jmapped(map[r], map[c]) = J(r, c);
        CHECK(relative_error(Js, Jmapped) < 1e-12);
        whole.commit(q);
        split.commit(to_split(q));
        for (Index i = 0; i < q.size(); ++i) q[i] += 0.003 * u(rng);
    }
}

TEST_CASE("rod_joint: T and Y junctions are stress-free initially", "[rod_joint]") {
    // T: a rod passing through the junction (interior node) and a stem ending there. Y: three
    // rod ends at 120 degrees, out of plane.
    const bool tee = GENERATE(true, false);
    INFO((tee ? "T junction" : "Y junction"));
    Network net;
    RodJointDescription d;
    if (tee) {
        net.add("bar", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(-0.4, 0, 0), Vec3(0.4, 0, 0), 5))));
        net.add("stem", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(0, 0, 0), Vec3(0, -0.5, 0.1), 4))));
        d = RodJointDescription{{"bar", "stem"}, {2, 0}};
        net.share(0, 2, 1, 0);
    } else {
        // arm1 reversed (its junction node is its last) to mix orientations.
        const Vec3 o(0.1, 0.2, 0.3);
        for (int k = 0; k < 3; ++k) {
            const double phi = 2.0 * std::numbers::pi * k / 3.0;
            auto pts = line_nodes(o, o + Vec3(0.5 * std::cos(phi), 0.5 * std::sin(phi), 0.2), 4);
            if (k == 1) pts = reversed(pts);
            net.add("arm" + std::to_string(k), std::make_unique<DiscreteRod>(describe(pts)));
            d.elements.push_back("arm" + std::to_string(k));
            d.nodes.push_back(k == 1 ? -1 : 0);
        }
        net.share(0, 0, 1, -1);
        net.share(0, 0, 2, 0);
    }
    auto& joint = static_cast<RodJoint&>(net.add("joint", std::make_unique<RodJoint>(d)));
    net.build();
    CHECK(joint.springs().springs().size() == (tee ? 2u : 3u));
    const auto [F, J] = net.evaluate(net.q0());
    CHECK(F.cwiseAbs().maxCoeff() < 1e-12);
    CHECK(net.energy(net.q0()) == Approx(0.0).margin(1e-20));
    // ... and the junction is stiff: rotating one arm rigidly about the junction costs energy.
    VectorX q = net.q0();
    const auto& moved = static_cast<DiscreteRod&>(net.element(1));
    const Vec3 c(q[moved.node_global_dofs(tee ? 0 : moved.node_count() - 1)[0]],
                 q[moved.node_global_dofs(tee ? 0 : moved.node_count() - 1)[1]],
                 q[moved.node_global_dofs(tee ? 0 : moved.node_count() - 1)[2]]);
    const Eigen::Matrix3d R = Eigen::AngleAxisd(0.1, Vec3(0, 0, 1)).toRotationMatrix();
    for (Index i = 0; i < moved.node_count(); ++i) {
        const auto& g = moved.node_global_dofs(i);
        const Vec3 x = R * (Vec3(q[g[0]], q[g[1]], q[g[2]]) - c) + c;
        for (int k = 0; k < 3; ++k) q[g[k]] = x[k];
    }
    CHECK(net.energy(q, &joint) > 1e-8);
}

TEST_CASE("rod_joint: the junction must be one node", "[rod_joint]") {
    Network net;
    net.add("a", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(-1, 0, 0), Vec3(0, 0, 0), 3))));
    net.add("b", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(0, 0, 0), Vec3(0, 1, 0), 3))));
    net.add("joint", std::make_unique<RodJoint>(RodJointDescription{{"a", "b"}, {-1, 0}}));
    // No share: same position, different DOFs.
    CHECK_THROWS_WITH(net.build(), Catch::Contains("are different nodes") && Catch::Contains("shared_nodes"));
    Network wrong;
    wrong.add("a", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(-1, 0, 0), Vec3(0, 0, 0), 3))));
    wrong.add("joint", std::make_unique<RodJoint>(RodJointDescription{{"a", "nope"}, {-1, 0}}));
    CHECK_THROWS_WITH(wrong.build(), Catch::Contains("no element named 'nope'"));
    CHECK_THROWS(RodJoint(RodJointDescription{{"a"}, {0}}));
    CHECK_THROWS(RodJoint(RodJointDescription{{"a", "b"}, {0}}));
}

namespace {

/// A fan of triangles around point 0 at the origin (a plate in the x-y plane, slightly warped so
/// that nothing is degenerate), rod perpendicular-ish ending at the fan center.
struct ShellJointNetwork {
    Network net;
    RodShellJoint* joint = nullptr;

    ShellJointNetwork(int fan_triangles, bool closed_fan, bool symmetric, bool rod_into = true) {
        std::vector<Vec3> x{Vec3(0, 0, 0)};
        const int rim = closed_fan ? fan_triangles : fan_triangles + 1;
        for (int k = 0; k < rim; ++k) {
            const double phi = 2.0 * std::numbers::pi * k / 6.0 + 0.1;
            x.emplace_back(0.1 * std::cos(phi), 0.1 * std::sin(phi), 0.004 * k * (k % 2 ? 1 : -1));
        }
        std::vector<std::array<Index, 3>> tri;
        for (int k = 0; k < fan_triangles; ++k) tri.push_back({0, 1 + k, 1 + (k + 1) % rim});
        std::vector<Vec3> rod_points{Vec3(0.01, 0.02, 0.2), Vec3(0.005, 0.01, 0.1), Vec3(0, 0, 0)};
        if (!rod_into) std::reverse(rod_points.begin(), rod_points.end());
        net.add("rod", std::make_unique<DiscreteRod>(describe(rod_points, symmetric, 0.01, 2e6)));
        net.add("shell", fake_shell(x, tri));
        RodShellJointDescription d;
        d.rod = "rod";
        d.rod_node = rod_into ? -1 : 0;
        d.shell = "shell";
        d.shell_node = 0;
        d.edge_slots = 14;
        d.symmetric_jacobian = symmetric;
        joint = &static_cast<RodShellJoint&>(net.add("joint", std::make_unique<RodShellJoint>(d)));
        net.share(0, d.rod_node, 1, 0);
        net.build();
    }
};

}  // namespace

TEST_CASE("rod_shell_joint: the springs of Fig. 2(g) and of a closed fan", "[rod_shell_joint]") {
    // One triangle: 3 rod-like shell edges, 5 springs (MAT-DiSMech §3.4, Fig. 2(g)).
    ShellJointNetwork one(1, false, false);
    CHECK(one.joint->joint_edge_count() == 3);
    CHECK(one.joint->springs().springs().size() == 5);
    // A closed fan of 6 triangles around an interior node: 6 spokes + 6 rim edges; at the center
    // 1 rod edge + 6 spokes give C(7, 2) = 21 springs, at each rim vertex C(3, 2) = 3.
    ShellJointNetwork fan(6, true, false);
    CHECK(fan.joint->joint_edge_count() == 12);
    CHECK(fan.joint->springs().springs().size() == 21 + 6 * 3);
    CHECK(fan.joint->dof_count() == 14);
    CHECK(fan.joint->describe_dof(13) == "unused joint edge slot 13 twist");
    // Twist inertia rho (I1 + I2) l with the rod's section.
    const auto& rod = static_cast<DiscreteRod&>(fan.net.element(0));
    CHECK(fan.joint->edge_inertias()[0] ==
          Approx(rod.material().density * rod.section().polar_moment() * 0.1).epsilon(1e-12));
}

TEST_CASE("rod_shell_joint: zero force initially; F and J match finite differences", "[rod_shell_joint][derivatives]") {
    const int triangles = GENERATE(1, 3, 6);
    const bool symmetric = GENERATE(false, true);
    const bool rod_into = GENERATE(true, false);
    INFO(triangles << " triangles, " << (symmetric ? "symmetric" : "exact") << " Jacobian, rod edge "
                   << (rod_into ? "into" : "out of") << " the joint");
    ShellJointNetwork s(triangles, triangles == 6, symmetric, rod_into);
    Element& joint = *s.joint;
    const auto [F0, J0] = s.net.evaluate(s.net.q0(), &joint);
    CHECK(F0.cwiseAbs().maxCoeff() < 1e-12);
    CHECK(s.net.energy(s.net.q0(), &joint) == Approx(0.0).margin(1e-20));

    // Deform by up to 10% of the shell edge length and twist every theta (unused slots included).
    const VectorX q = perturbed(s.net.q0(), position_mask(s.net), 0.01, 7);
    check_derivatives(s.net, joint, q);
}

TEST_CASE("rod_shell_joint: the rod and shell nodes must be one node", "[rod_shell_joint]") {
    Network net;
    net.add("rod", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(0, 0, 1), Vec3(0, 0, 0), 3))));
    net.add("shell", fake_shell(std::vector<Vec3>{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)},
                                                 std::vector<std::array<Index, 3>>{{0, 1, 2}}));
    RodShellJointDescription d{"rod", -1, "shell", 0, 2, true};
    net.add("joint", std::make_unique<RodShellJoint>(d));
    CHECK_THROWS_WITH(net.build(), Catch::Contains("different nodes"));
    Network small;
    small.add("rod", std::make_unique<DiscreteRod>(describe(line_nodes(Vec3(0, 0, 1), Vec3(0, 0, 0), 3))));
    small.add("shell", fake_shell(std::vector<Vec3>{Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)},
                                                   std::vector<std::array<Index, 3>>{{0, 1, 2}}));
    small.add("joint", std::make_unique<RodShellJoint>(d));  // 2 slots for 3 edges
    small.share(0, -1, 1, 0);
    CHECK_THROWS_WITH(small.build(), Catch::Contains("set edge_slots: 3"));
}
