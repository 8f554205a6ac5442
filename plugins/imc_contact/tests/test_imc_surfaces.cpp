// IMC contact beyond edge pairs: node-triangle pairs between shells, and rigid bodies' shapes
// (sphere, capsule, box) reached through their mapped points. Residual against the energy's
// central differences, Jacobian in positions (the rotation as the step's tangent displacement)
// and in velocities against central differences of the residual, with friction.
#include "force_derivative_check.hpp"
#include "imc_contact.hpp"
#include "point_primitive_distance.hpp"

#include "../../rigid_body/rigid_body.hpp"

#include "soma/testing/dense_assembly.hpp"
#include "soma/testing/point_set.hpp"
#include "soma/testing/test_scene.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include <algorithm>

using namespace soma;
using namespace soma::imc_contact;
using Catch::Matchers::Contains;
using soma::imc_contact::testing::check_position_jacobian;
using soma::imc_contact::testing::check_residual_is_energy_gradient;
using soma::imc_contact::testing::check_velocity_jacobian;
using soma::imc_contact::testing::ForceAtDofs;

namespace {

using Polyline = soma::testing::PointSet;

Polyline::Point at(const Vec3& x, double radius) { return {x, 1.0, 0.0, radius}; }

constexpr double kStiffness = 1e5;  // N/m
constexpr double kMu = 0.4;
constexpr double kSlip = 1e-3;      // m/s

std::size_t count(const ImcContact& force, PairKind kind) {
    return static_cast<std::size_t>(std::count_if(force.candidates().begin(), force.candidates().end(),
                                                  [&](const ContactPair& p) { return p.kind == kind; }));
}

/// A scene of a rigid body (DOFs 0-5, its quaternion after every DOF) and one deformable
/// element, with configurations built from the DOFs as the kernel forms them within a step:
/// the rotation DOFs are the tangent displacement d from the step's start orientation.
struct RigidAndPoints {
    rigid_body::RigidBody body;
    Polyline points;
    soma::testing::TestScene scene;
    Index n = 0;  ///< DOFs
    double start[4] = {1, 0, 0, 0};
    VectorX q, v, a;

    RigidAndPoints(rigid_body::RigidBodyDescription description, Polyline element)
        : body(std::move(description)), points(std::move(element)), scene({&body, &points}) {
        const Index m = points.dof_count();
        n = 6 + m;
        std::vector<Index> rod_dofs(static_cast<std::size_t>(m));
        for (Index i = 0; i < m; ++i) rod_dofs[static_cast<std::size_t>(i)] = 6 + i;
        body.bind({0, 1, 2, 3, 4, 5}, {n});
        points.bind(rod_dofs);
        q = VectorX::Zero(n + 4);
        v = VectorX::Zero(n);
        a = VectorX::Zero(n);
        VectorX local_q = VectorX::Zero(6), local_v = VectorX::Zero(6);
        body.initial_state(local_q, local_v);
        q.head<3>() = local_q.head<3>();
        body.initial_block_configuration(0, start);
        local_q = VectorX::Zero(m);
        local_v = VectorX::Zero(m);
        points.initial_state(local_q, local_v);
        q.segment(6, m) = local_q;
        set_dofs(q.head(n));
        State state;
        state.q = q;
        state.v = v;
        state.a = a;
        scene.set_state(state);
    }
    /// q from the DOFs: the block's coordinates are start (+) d.
    void set_dofs(const VectorX& dofs) {
        q.head(n) = dofs;
        body.integrate_block(0, start, dofs.data() + 3, q.data() + n);
    }
};

/// Checks F against the energy and J (c_q and c_v parts) against central differences at the
/// scene's configuration with velocities \p v, for \p force bound to \p s (steps and tolerance:
/// force_derivative_check.hpp; rotations as the step's tangent displacement, ~1e-1 rad; dv's
/// tolerance floor 1e-12 N s/m).
void check_derivatives(ImcContact& force, RigidAndPoints& s, const VectorX& v) {
    const VectorX dofs = s.q.head(s.n);
    ForceAtDofs probe(force, s.n, [&s](const VectorX& x) {
        s.set_dofs(x);
        return VectorX(s.q);
    });
    check_position_jacobian(probe, dofs, &v);
    check_velocity_jacobian(probe, dofs, v, 1e-12);
    // Without friction the residual is the energy's gradient (in the step's coordinates).
    const VectorX zero = VectorX::Zero(s.n);
    check_residual_is_energy_gradient(probe, dofs, &zero);
    s.set_dofs(dofs);
}

rigid_body::RigidBodyDescription body_with(rigid_body::RigidShape shape) {
    rigid_body::RigidBodyDescription d;
    d.mass.mass = 1.0;
    d.mass.inertia = Mat3::Identity() * 1e-3;
    d.position = Vec3(0.001, -0.002, 0.0005);
    d.orientation = Quaternion(0.95, 0.1, -0.2, 0.15).normalized();
    d.shapes = {std::move(shape)};
    return d;
}

}  // namespace

TEST_CASE("IMC node-triangle contact between two shells: derivatives with friction", "[imc][surfaces]") {
    // Sheet b's corner node hangs 0.3 band above the inside of sheet a's triangle (thickness
    // 1 mm each: h = 0.5 mm, gap measured from the mid-surfaces, 1 mm apart at contact).
    const double h = 0.5e-3, band = kDefaultBandRatio * h;
    for (double gap : {0.3 * band, -2.0 * band}) {
        Polyline a("a", {at(Vec3(0, 0, 0), h), at(Vec3(0.01, 0.001, 0.0005), h), at(Vec3(0.001, 0.01, -0.0004), h)},
                   std::vector<std::array<Index, 3>>{{0, 1, 2}});
        const double z = 2 * h + gap;  // the plane of a is tilted: place b's node above a's centroid region
        const Vec3 above(0.003, 0.003, 0.0);
        const Vec3 normal = Vec3(0.01, 0.001, 0.0005).cross(Vec3(0.001, 0.01, -0.0004)).normalized();
        const Vec3 tip = above + Vec3(0, 0, (normal.dot(above) * -1.0) / normal.z()) + z * normal;
        Polyline b("b", {at(tip, h), at(tip + Vec3(0.006, 0.002, 0.008), h), at(tip + Vec3(0.001, 0.007, 0.006), h)},
                   std::vector<std::array<Index, 3>>{{0, 1, 2}});
        auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
        ImcContactSettings settings{kStiffness};
        settings.friction = kMu;
        settings.slip_velocity = kSlip;
        ImcContact force(settings);
        force.bind(scene);
        INFO("gap " << gap);
        REQUIRE(count(force, PairKind::node_triangle) >= 1);
        // b's tip is inside a's face: the pair's class is the face.
        const auto x = [&](Index i) { return scene.state().q.segment<3>(3 * i); };
        CHECK(closest_triangle_feature(x(3), x(0), x(1), x(2)).feature == TriangleFeature::face);
        CHECK(closest_triangle_feature(x(3), x(0), x(1), x(2)).distance == Approx(z).epsilon(1e-9));

        const Index n = scene.dof_count();
        const VectorX q = scene.state().q;
        VectorX v = VectorX::Zero(n);
        for (Index i = 3; i < 6; ++i) v.segment<3>(3 * i) = Vec3(0.6e-3, -0.2e-3, -0.01);  // b slides (0.6 v_tol) and presses
        for (Index i = 0; i < 3; ++i) v.segment<3>(3 * i) = 0.05 * Vec3(-q[3 * i + 1], q[3 * i], 0.0);  // a turns
        // dF/dq and dF/dv against central differences (force_derivative_check.hpp).
        ForceAtDofs probe(force, n);
        check_position_jacobian(probe, q, &v);
        check_velocity_jacobian(probe, q, v);
        // The normal force on b's tip at rest is the penalty law's -E'(gap) along a's normal.
        const VectorX zero = VectorX::Zero(n);
        const VectorX r = probe.residual(q, &zero);
        const Vec3 on_tip = -r.segment<3>(9);
        CHECK(on_tip.normalized().dot(normal) == Approx(1.0).epsilon(1e-9));
    }
}

TEST_CASE("IMC contact with rigid shapes through their mapped points: derivatives with friction", "[imc][surfaces][rigid]") {
    const double r = 1e-3;  // rod radius
    const double band = kDefaultBandRatio * r;
    struct Case {
        const char* name;
        rigid_body::RigidShape shape;
        PairKind expected;
    };
    rigid_body::RigidShape sphere;
    sphere.kind = rigid_body::ShapeKind::sphere;
    sphere.radius = 0.01;
    rigid_body::RigidShape capsule;
    capsule.kind = rigid_body::ShapeKind::capsule;
    capsule.radius = 0.004;
    capsule.length = 0.03;
    rigid_body::RigidShape box;
    box.kind = rigid_body::ShapeKind::box;
    box.size = Vec3(0.03, 0.02, 0.016);
    box.center = Vec3(0.001, 0.0, -0.002);
    const Case cases[] = {{"sphere: its centre against the rod's edges", sphere, PairKind::node_edge},
                          {"capsule: its axis against the rod's edges", capsule, PairKind::edge_edge},
                          {"box: the rod's node over a face", box, PairKind::node_triangle}};
    for (const Case& c : cases)
        for (double gap : {0.3 * band, -2.0 * band}) {
            INFO(c.name << ", gap " << gap);
            // The rod crosses over the shape's top (world), its middle node right above the top point.
            rigid_body::RigidBodyDescription d = body_with(c.shape);
            // Top of the shape along world z through the body's centre, found from its surface.
            double top = 0.0;
            Vec3 centre = d.position + d.orientation * c.shape.center;
            if (c.shape.kind == rigid_body::ShapeKind::sphere) top = centre.z() + c.shape.radius;
            if (c.shape.kind == rigid_body::ShapeKind::capsule) {
                // Axis (body z) turned by the orientation: the surface's top is r above the axis's highest point.
                const Vec3 axis = d.orientation * Vec3::UnitZ();
                top = centre.z() + 0.5 * c.shape.length * std::abs(axis.z()) + c.shape.radius;
                centre += 0.5 * c.shape.length * (axis.z() > 0 ? axis : Vec3(-axis));
            }
            if (c.shape.kind == rigid_body::ShapeKind::box) {
                // Lay the box flat (identity orientation) so that the rod's node is above its top face.
                d.orientation = Quaternion::Identity();
                centre = d.position + c.shape.center;
                top = centre.z() + 0.5 * c.shape.size.z();
            }
            const double z = top + r + gap;
            Polyline rod = Polyline::chain(
                "rod", {centre + Vec3(-0.012, 0.002, z - centre.z()), Vec3(centre.x() + 0.0004, centre.y() - 0.0003, z),
                        centre + Vec3(0.011, -0.001, z - centre.z())},
                r);
            RigidAndPoints s(d, rod);
            ImcContactSettings settings{kStiffness};
            settings.friction = kMu;
            settings.slip_velocity = kSlip;
            ImcContact force(settings);
            force.bind(s.scene);
            REQUIRE(count(force, c.expected) >= 1);
            CHECK_FALSE(force.symmetric_jacobian());  // rigid bodies' maps make it unsymmetric
            VectorX v = VectorX::Zero(s.n);
            v << 0.002, -0.001, 0.0005, 0.3, -0.2, 0.5, 0.0004, 0.0002, -0.01, 0.0004, 0.0002, -0.01, 0.0004, 0.0002, -0.01;
            check_derivatives(force, s, v);
        }
}

TEST_CASE("IMC rigid surfaces: a box face's diagonal is not a contact edge and counts once", "[imc][surfaces][rigid]") {
    // A rod node right above a box's top-face diagonal: the two triangles of the face meet there.
    // The diagonal is a flat seam: no edge pair with it, and of the two node-triangle pairs only
    // one acts, so the force is the penalty law's, once.
    rigid_body::RigidShape box;
    box.kind = rigid_body::ShapeKind::box;
    box.size = Vec3(0.04, 0.04, 0.02);
    rigid_body::RigidBodyDescription d;
    d.mass.mass = 1.0;
    d.mass.inertia = Mat3::Identity() * 1e-3;
    d.shapes = {box};
    const double r = 1e-3;
    // Box corners: bit 0 -> x, bit 1 -> y; the top face (z = 0.01) is split along (-,-)..(+,+).
    Polyline rod = Polyline::chain("rod", {Vec3(-0.005, 0.005 - 0.004, 0.01 + r), Vec3(0.0, 0.0, 0.01 + r),
                                            Vec3(0.005, -0.005 + 0.004, 0.01 + r)},
                                   r);
    RigidAndPoints s(d, rod);
    ImcContact force(ImcContactSettings{kStiffness});
    force.bind(s.scene);
    // 12 box edges, no face diagonals (6 flat seams), + 2 rod edges.
    CHECK(force.mesh().edges().size() == 14);
    soma::testing::DenseAssembly dense(s.n);
    force.declare_pattern(dense.pattern());
    EvalContext c;
    c.q = &s.q;
    const VectorX residual = dense.evaluate(force, c, false).first;
    // The middle node sits at gap 0 above the face: force k ln2 band/15 upwards on it, and the
    // outer nodes are 1 mm above too (gap 0 as well): three nodes at gap 0, each once.
    const double expected = kStiffness * std::log(2.0) * (kDefaultBandRatio * r) / 15.0;
    for (Index i = 0; i < 3; ++i) {
        INFO("rod node " << i);
        CHECK(-residual[6 + 3 * i + 2] == Approx(expected).epsilon(1e-6));
    }
}

TEST_CASE("IMC element pairs: only the chosen pairs touch", "[imc][surfaces]") {
    const double r = 1e-3;
    Polyline a = Polyline::chain("a", {Vec3(-0.01, 0, 0), Vec3(0.01, 0, 0)}, r);
    Polyline b = Polyline::chain("b", {Vec3(0, -0.01, 2 * r), Vec3(0, 0.01, 2 * r)}, r);
    Polyline c = Polyline::chain("c", {Vec3(-0.01, 0.001, 3.5 * r), Vec3(0.01, 0.001, 3.5 * r)}, r);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b, &c});
    ImcContactSettings all{kStiffness};
    ImcContact every(all);
    every.bind(scene);
    CHECK(every.candidates().size() == 3);  // a-b, b-c, and a-c (3.5 mm apart: within 2r + margin 2r)
    ImcContactSettings chosen{kStiffness};
    chosen.pairs = {{"a", "b"}};
    ImcContact only(chosen);
    only.bind(scene);
    REQUIRE(only.candidates().size() == 1);
    CHECK(only.mesh().edges()[static_cast<std::size_t>(only.candidates()[0].first)].element !=
          only.mesh().edges()[static_cast<std::size_t>(only.candidates()[0].second)].element);
    chosen.pairs = {{"a", "nope"}};
    ImcContact unknown(chosen);
    CHECK_THROWS_WITH(unknown.bind(scene), Contains("no element named 'nope'"));
    chosen.elements = {"a"};
    CHECK_THROWS_WITH(ImcContact(chosen), Contains("not both"));
}

TEST_CASE("IMC two stacked shells with aligned edges: parallel edge pairs fade, derivatives exact", "[imc][surfaces]") {
    // Two identical squares of two triangles, the upper turned by 0.01 rad and lifted to 0.3 band
    // above contact: its edges lie over the lower's nearly parallel (sin² ~ 1e-4 < 1e-3), the case
    // where edge-edge distances are ill-conditioned. The edge pairs are mollified; node-triangle
    // pairs carry the contact. Residual against the energy and the Jacobian against central
    // differences with friction.
    const double h = 0.5e-3, band = kDefaultBandRatio * h;
    const double turn = 0.01;
    // The upper square turns about its centre and shifts by a generic offset, so that no node of
    // one lies exactly over a vertex or an edge of the other (a class boundary, where the Hessian jumps).
    const auto square = [&](const char* name, double z, double angle) {
        const Mat3 r = Eigen::AngleAxisd(angle, Vec3::UnitZ()).toRotationMatrix();
        const Vec3 o = Vec3(0.0005, 0.0003, 0) - r * Vec3(0.005, 0.005, 0) + Vec3(0.005, 0.005, 0) +
                       (angle != 0.0 ? Vec3(0.00031, 0.00017, 0) : Vec3::Zero());
        return Polyline(name,
                        {at(r * Vec3(0, 0, 0) + o + Vec3(0, 0, z), h), at(r * Vec3(0.01, 0, 0) + o + Vec3(0, 0, z), h),
                         at(r * Vec3(0.01, 0.01, 0) + o + Vec3(0, 0, z), h), at(r * Vec3(0, 0.01, 0) + o + Vec3(0, 0, z), h)},
                        std::vector<std::array<Index, 3>>{{0, 1, 2}, {0, 2, 3}});
    };
    Polyline a = square("a", 0.0, 0.0), b = square("b", 2 * h + 0.3 * band, turn);
    auto scene = soma::testing::TestScene::bound_in_order({&a, &b});
    ImcContactSettings settings{kStiffness};
    settings.friction = kMu;
    settings.slip_velocity = kSlip;
    settings.self_contact = false;
    ImcContact force(settings);
    force.bind(scene);
    const VectorX q = scene.state().q;
    int mollified = 0;
    for (const ContactPair& pair : force.candidates()) {
        if (pair.kind != PairKind::edge_edge) continue;
        const ContactEdge& e = force.mesh().edges()[static_cast<std::size_t>(pair.first)];
        const ContactEdge& f = force.mesh().edges()[static_cast<std::size_t>(pair.second)];
        CHECK((e.surface && f.surface));
        ParallelMollifier m;
        const auto x = [&](Index n) { return Vec3(q.segment<3>(3 * n)); };
        parallel_mollifier(x(e.nodes[0]), x(e.nodes[1]), x(f.nodes[0]), x(f.nodes[1]),
                           kParallelMollifierRatio * e.rest_length2 * f.rest_length2, m);
        if (m.value < 1.0) ++mollified;
    }
    CHECK(mollified >= 4);  // each side over its twin
    CHECK(count(force, PairKind::node_triangle) >= 4);

    const Index n = scene.dof_count();
    VectorX v = VectorX::Zero(n);
    for (Index i = 4; i < 8; ++i) v.segment<3>(3 * i) = Vec3(0.5e-3, 0.2e-3, -0.01);
    // As in the shell case above, and F against the energy's gradient.
    ForceAtDofs probe(force, n);
    check_position_jacobian(probe, q, &v);
    check_velocity_jacobian(probe, q, v);
    const VectorX zero = VectorX::Zero(n);
    check_residual_is_energy_gradient(probe, q, &zero);
}
