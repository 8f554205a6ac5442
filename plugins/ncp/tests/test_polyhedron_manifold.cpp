// The contact manifold of two convex polyhedra (polyhedron_manifold.hpp): a box's faces as
// loops, the separating axis against an independent separating-axis test over the 15 axes of two
// boxes (Gottschalk et al. 1996), and the clipped contact points of stacked, sunk, turned and
// edge-on-edge boxes.
//
// Tolerances: the boxes' coordinates are O(1) m, so positions, normals and gaps carry round-off
// of a few 1e-16; 1e-12 leaves a factor ~1000 and still fails on any geometric error (the
// smallest offset tested is 1e-4 m).
#include "../polyhedron_manifold.hpp"
#include "test_boxes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace {

using namespace soma;
using namespace soma::ncp;
using namespace soma::ncp::test;

constexpr double kMargin = 1e-3;

/// A box with its faces (polyhedron_faces) beside its features.
struct ShapedBox {
    Box box;
    std::vector<PolyhedronFace> faces;
    explicit ShapedBox(Box b) : box(std::move(b)), faces(polyhedron_faces(box.solid.faces, box.x)) {}
    PolyhedronShape shape() const { return {box.features(), faces}; }
};

Vec3 position_of(const Box& box, const ContactEnd& end) {
    Vec3 x = Vec3::Zero();
    for (int j = 0; j < end.count; ++j)
        x += end.weights[static_cast<std::size_t>(j)] * box.x[static_cast<std::size_t>(end.points[static_cast<std::size_t>(j)])];
    return x;
}

std::vector<ManifoldPoint> manifold_of(const ShapedBox& a, const ShapedBox& b, double reach = kMargin,
                                       SeparatingAxis* axis_out = nullptr) {
    const SeparatingAxis axis = separating_axis(a.shape(), b.shape(), 0.1 * kMargin, kMargin);
    if (axis_out) *axis_out = axis;
    std::vector<ManifoldPoint> points;
    const PolyhedronShape shape_a = a.shape(), shape_b = b.shape();
    PairSeparation separation_now(shape_a, shape_b);
    contact_manifold(shape_a, shape_b, axis, reach, kMargin, 1e-12, separation_now, points);
    return points;
}

/// The exact separating-axis value of two boxes over their 15 axes (3 + 3 face normals, 9 edge
/// cross products), from their corners alone: the largest over axes u of the gap between their
/// projections (negative: the smallest overlap).
double box_separation(const Box& a, const Box& b) {
    const auto axes_of = [](const Box& box) {
        return std::array<Vec3, 3>{(box.x[1] - box.x[0]).normalized(), (box.x[2] - box.x[0]).normalized(),
                                   (box.x[4] - box.x[0]).normalized()};
    };
    std::vector<Vec3> axes;
    for (const Vec3& u : axes_of(a)) axes.push_back(u);
    for (const Vec3& u : axes_of(b)) axes.push_back(u);
    for (const Vec3& u : axes_of(a))
        for (const Vec3& w : axes_of(b))
            if (u.cross(w).norm() > 1e-6) axes.push_back(u.cross(w).normalized());
    double best = -std::numeric_limits<double>::infinity();
    for (const Vec3& u : axes) {
        double low_a = std::numeric_limits<double>::infinity(), high_a = -low_a, low_b = low_a, high_b = -low_a;
        for (const Vec3& x : a.x) low_a = std::min(low_a, u.dot(x)), high_a = std::max(high_a, u.dot(x));
        for (const Vec3& x : b.x) low_b = std::min(low_b, u.dot(x)), high_b = std::max(high_b, u.dot(x));
        best = std::max(best, std::max(low_b - high_a, low_a - high_b));
    }
    return best;
}

/// The area of a convex polygon of points in the plane normal to \p n, taken in angular order.
double polygon_area(std::vector<Vec3> points, const Vec3& n) {
    Vec3 centre = Vec3::Zero();
    for (const Vec3& x : points) centre += x;
    centre /= static_cast<double>(points.size());
    Vec3 t1, t2;
    contact_tangents(n, t1, t2);
    std::sort(points.begin(), points.end(), [&](const Vec3& p, const Vec3& q) {
        return std::atan2(t2.dot(p - centre), t1.dot(p - centre)) < std::atan2(t2.dot(q - centre), t1.dot(q - centre));
    });
    double area = 0.0;
    for (std::size_t k = 0; k < points.size(); ++k)
        area += n.dot((points[k] - centre).cross(points[(k + 1) % points.size()] - centre));
    return 0.5 * std::abs(area);
}

}  // namespace

TEST_CASE("manifold: a box has 6 faces, each a loop of 4 corners counter-clockwise from outside", "[ncp][manifold]") {
    const Box box = make_box(Vec3(1.0, 0.1, 0.2), rotation(0.7, Vec3(1, 2, 3)), Vec3(0.3, -0.2, 1.0));
    const std::vector<PolyhedronFace> faces = polyhedron_faces(box.solid.faces, box.x);
    REQUIRE(faces.size() == 6);
    std::vector<int> per_corner(8, 0);
    for (const PolyhedronFace& face : faces) {
        REQUIRE(face.loop.size() == 4);
        REQUIRE(face.triangles.size() == 2);
        const Vec3& n = box.normals[face.triangles[0]];
        for (std::size_t k = 0; k < 4; ++k) {
            ++per_corner[static_cast<std::size_t>(face.loop[k])];
            const Vec3& x0 = box.x[static_cast<std::size_t>(face.loop[k])];
            const Vec3& x1 = box.x[static_cast<std::size_t>(face.loop[(k + 1) % 4])];
            const Vec3& x2 = box.x[static_cast<std::size_t>(face.loop[(k + 2) % 4])];
            CHECK(n.dot((x1 - x0).cross(x2 - x1)) > 0.0);  // turning left about the outward normal
            CHECK(std::abs(n.dot(x1 - x0)) < 1e-12);      // in the face's plane
        }
    }
    CHECK(std::all_of(per_corner.begin(), per_corner.end(), [](int count) { return count == 3; }));
}

TEST_CASE("manifold: two equal boxes stacked touch at the four corners, named apart", "[ncp][manifold]") {
    for (const double turn : {0.0, 0.9}) {
        const Eigen::Matrix3d r = rotation(turn, Vec3(0.3, -0.5, 1.0));
        const ShapedBox lower(make_box(Vec3(1.0, 1.0, 1.0), r, Vec3::Zero()));
        const ShapedBox upper(make_box(Vec3(1.0, 1.0, 1.0), r, r * Vec3(0, 0, 1)));
        SeparatingAxis axis;
        const std::vector<ManifoldPoint> points = manifold_of(upper, lower, kMargin, &axis);
        CHECK(axis.kind != SeparatingAxis::Kind::edges);
        CHECK(std::abs(axis.separation) < 1e-12);
        REQUIRE(points.size() == 4);
        std::set<std::size_t> names;
        for (const ManifoldPoint& p : points) {
            names.insert(p.name);
            CHECK((p.normal - r * Vec3::UnitZ()).norm() < 1e-12);  // out of the lower (B)
            CHECK(std::abs(p.gap) < 1e-12);
            // At corners of both: each end on the plane between them, at |x|, |y| = 0.5 in the boxes' frame.
            const Vec3 local = r.transpose() * position_of(upper.box, p.a);
            CHECK(std::abs(std::abs(local.x()) - 0.5) < 1e-12);
            CHECK(std::abs(std::abs(local.y()) - 0.5) < 1e-12);
            CHECK(std::abs(local.z() - 0.5) < 1e-12);
            CHECK((position_of(upper.box, p.a) - position_of(lower.box, p.b)).norm() < 1e-12);
        }
        CHECK(names.size() == 4);
    }
}

TEST_CASE("manifold: a small cube sunk into a large one's top touches at its four bottom corners", "[ncp][manifold]") {
    const ShapedBox large(make_box(Vec3(1.0, 1.0, 1.0), Eigen::Matrix3d::Identity(), Vec3::Zero()));
    const ShapedBox small(make_box(Vec3(0.5, 0.5, 0.5), rotation(0.3, Vec3::UnitZ()), Vec3(0.1, -0.05, 0.75 - 1e-3)));
    for (const bool swapped : {false, true}) {
        const std::vector<ManifoldPoint> points = swapped ? manifold_of(large, small) : manifold_of(small, large);
        REQUIRE(points.size() == 4);
        for (const ManifoldPoint& p : points) {
            CHECK(std::abs(p.gap + 1e-3) < 1e-12);
            CHECK((p.normal - (swapped ? -1.0 : 1.0) * Vec3::UnitZ()).norm() < 1e-12);
            const Vec3 corner = position_of(small.box, swapped ? p.b : p.a);
            CHECK(std::abs(corner.z() - (0.5 - 1e-3)) < 1e-12);  // the small cube's bottom
            CHECK(std::abs(position_of(large.box, swapped ? p.a : p.b).z() - 0.5) < 1e-12);  // its foot on the top
            CHECK(std::abs(std::abs((corner - Vec3(0.1, -0.05, 0)).head<2>().norm()) - 0.25 * std::sqrt(2.0)) < 1e-12);
        }
    }
}

TEST_CASE("manifold: plates lying flat across each other touch at the corners of their overlap", "[ncp][manifold]") {
    // Two equal squares turned 45 degrees about their common centre overlap in a regular octagon
    // of area 2 (sqrt 2 - 1) L^2: its 8 corners are edge crossings, none a corner of either.
    const double side = 0.6;
    const ShapedBox lower(make_box(Vec3(side, side, 0.025), Eigen::Matrix3d::Identity(), Vec3::Zero()));
    const ShapedBox upper(make_box(Vec3(side, side, 0.025), rotation(std::acos(-1.0) / 4, Vec3::UnitZ()), Vec3(0, 0, 0.025)));
    const std::vector<ManifoldPoint> points = manifold_of(upper, lower);
    REQUIRE(points.size() == 8);
    std::vector<Vec3> corners;
    std::set<std::size_t> names;
    for (const ManifoldPoint& p : points) {
        names.insert(p.name);
        CHECK(std::abs(p.gap) < 1e-12);
        const Vec3 x = position_of(upper.box, p.a);
        corners.push_back(x);
        // Inside both squares (to round-off) and on an edge of each.
        const Vec3 turned = rotation(-std::acos(-1.0) / 4, Vec3::UnitZ()) * x;
        CHECK(std::max(std::abs(x.x()), std::abs(x.y())) < 0.5 * side + 1e-12);
        CHECK(std::max(std::abs(turned.x()), std::abs(turned.y())) < 0.5 * side + 1e-12);
        CHECK(std::abs(std::max(std::abs(x.x()), std::abs(x.y())) - 0.5 * side) < 1e-12);
        CHECK(std::abs(std::max(std::abs(turned.x()), std::abs(turned.y())) - 0.5 * side) < 1e-12);
    }
    CHECK(polygon_area(corners, Vec3::UnitZ()) == Approx(2.0 * (std::sqrt(2.0) - 1.0) * side * side).epsilon(1e-12));
    CHECK(names.size() == 8);  // each crossing its own contact
    // The same geometry looked at again names the same points.
    const std::vector<ManifoldPoint> again = manifold_of(upper, lower);
    REQUIRE(again.size() == points.size());
    for (std::size_t k = 0; k < points.size(); ++k) CHECK(again[k].name == points[k].name);
}

TEST_CASE("manifold: a cube edge down across one edge up touches at one point between the edges", "[ncp][manifold]") {
    const double h = 0.1 * std::sqrt(2.0);  // half the diagonal of a 0.2 m cube's face
    const double pi = std::acos(-1.0);
    const ShapedBox lower(make_box(Vec3(0.2, 0.2, 0.2), rotation(pi / 4, Vec3::UnitX()), Vec3::Zero()));
    const ShapedBox upper(make_box(Vec3(0.2, 0.2, 0.2), rotation(pi / 4, Vec3::UnitY()), Vec3(0, 0, 2 * h - 1e-4)));
    SeparatingAxis axis;
    const std::vector<ManifoldPoint> points = manifold_of(upper, lower, kMargin, &axis);
    CHECK(axis.kind == SeparatingAxis::Kind::edges);
    CHECK(std::abs(axis.separation + 1e-4) < 1e-12);
    REQUIRE(points.size() == 1);
    CHECK((points[0].normal - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(std::abs(points[0].gap + 1e-4) < 1e-12);
    CHECK((position_of(upper.box, points[0].a) - Vec3(0, 0, h - 1e-4)).norm() < 1e-12);
    CHECK((position_of(lower.box, points[0].b) - Vec3(0, 0, h)).norm() < 1e-12);
}

TEST_CASE("manifold: a box tilted onto a corner over a face keeps only what is within the reach", "[ncp][manifold]") {
    // Turned about a generic axis, 1e-4 m above the large box's top at its lowest corner: the
    // incident face (the most opposed to +z) is clipped whole, and of its four corners only the
    // lowest is within the margin.
    const ShapedBox large(make_box(Vec3(2.0, 2.0, 1.0), Eigen::Matrix3d::Identity(), Vec3::Zero()));
    const Eigen::Matrix3d r = rotation(0.5, Vec3(1.0, 0.7, 0.2));
    ShapedBox tilted(make_box(Vec3(0.3, 0.2, 0.1), r, Vec3::Zero()));
    double lowest = std::numeric_limits<double>::infinity();
    for (const Vec3& x : tilted.box.x) lowest = std::min(lowest, x.z());
    tilted = ShapedBox(make_box(Vec3(0.3, 0.2, 0.1), r, Vec3(0.1, 0.2, 0.5 + 1e-4 - lowest)));
    const std::vector<ManifoldPoint> points = manifold_of(tilted, large);
    REQUIRE(points.size() == 1);
    CHECK(std::abs(points[0].gap - 1e-4) < 1e-12);
    CHECK(std::abs(position_of(tilted.box, points[0].a).z() - (0.5 + 1e-4)) < 1e-12);
    // With an unbounded reach, all four corners of the incident face.
    CHECK(manifold_of(tilted, large, std::numeric_limits<double>::infinity()).size() == 4);
}

/// Whether a face axis's face has the other's incident face within kOpposedFaceAngle of facing it
/// (separating_axis then keeps the face over a better edge pair).
bool facing(const ShapedBox& a, const ShapedBox& b, const SeparatingAxis& axis) {
    if (axis.kind == SeparatingAxis::Kind::edges) return false;
    const ShapedBox& reference = axis.kind == SeparatingAxis::Kind::face_of_a ? a : b;
    const ShapedBox& incident = axis.kind == SeparatingAxis::Kind::face_of_a ? b : a;
    const Vec3& n = reference.box.normals[reference.faces[axis.face].triangles[0]];
    double most_opposed = 1.0;
    for (const Vec3& m : incident.box.normals) most_opposed = std::min(most_opposed, n.dot(m));
    return most_opposed <= -std::cos(kOpposedFaceAngle);
}

TEST_CASE("manifold: random overlapping boxes: the axis is the exact separating axis's, no point deeper", "[ncp][manifold]") {
    // 2000 pairs of boxes (sizes 0.1 to 1 m, random turns) slid together to a random depth up to
    // 2 cm. The axis must be the separating-axis theorem's value (over faces and supporting edge
    // pairs, which are the Minkowski difference's face normals, so the same maximum as the 15
    // axes), or a face within the edge preference below it, or a face nearly facing the other's
    // while the overlap along it is within the margin; no manifold point may be deeper than the
    // overlap by more than the margin (the depth rule); and an overlapping pair has at least one
    // point.
    std::mt19937 random(20261207);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const auto draw = [&](double low, double high) { return low + (high - low) * unit(random); };
    const auto turn = [&] { return rotation(draw(0, 3.14159), Vec3(draw(-1, 1), draw(-1, 1), draw(-1, 1))); };
    int edge_axes = 0, face_axes = 0, facing_axes = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const ShapedBox a(make_box(Vec3(draw(0.1, 1), draw(0.1, 1), draw(0.1, 1)), turn(), Vec3::Zero()));
        const Vec3 direction = Vec3(draw(-1, 1), draw(-1, 1), draw(-1, 1)).normalized();
        const Vec3 size(draw(0.1, 1), draw(0.1, 1), draw(0.1, 1));
        const Eigen::Matrix3d r = turn();
        // Slide b along the direction until the boxes just touch (bisection on the exact value), then in by the depth.
        double apart = 3.0, touching = 0.0;
        for (int k = 0; k < 60; ++k) {
            const double mid = 0.5 * (apart + touching);
            (box_separation(a.box, make_box(size, r, mid * direction)) > 0.0 ? apart : touching) = mid;
        }
        const ShapedBox b(make_box(size, r, (apart - draw(0.0, 0.02)) * direction));
        const double exact = box_separation(a.box, b.box);
        SeparatingAxis axis;
        const std::vector<ManifoldPoint> points = manifold_of(a, b, std::numeric_limits<double>::infinity(), &axis);
        CHECK(axis.separation <= exact + 1e-12);
        if (facing(a, b, axis) && axis.separation >= -kMargin) ++facing_axes;
        else CHECK(axis.separation >= exact - 0.1 * kMargin - 1e-12);
        if (axis.kind == SeparatingAxis::Kind::edges) {
            ++edge_axes;
            CHECK(std::abs(axis.separation - exact) < 1e-12);  // an edge axis wins only as the best
        } else {
            ++face_axes;
        }
        CHECK(!points.empty());
        for (const ManifoldPoint& p : points) {
            CHECK(p.gap >= exact - kMargin - 1e-12);
            CHECK(std::abs(p.gap - p.normal.dot(position_of(a.box, p.a) - position_of(b.box, p.b))) < 1e-12);
        }
    }
    // Every kind is exercised.
    CHECK(edge_axes > 100);
    CHECK(face_axes > 100);
    CHECK(facing_axes > 10);
}

TEST_CASE("manifold: the closing axis: a cube beside a plate's side, rising into its underside, meets the underside",
          "[ncp][manifold]") {
    // A 0.6 x 0.4 x 0.025 m plate and a 0.03 m cube 5 mm beyond the plate's +x side and 2.5 mm
    // below its underside, moving by (-0.03, 0, 0.005) m over the predicted span: the side's gap
    // closes at 1/6 of it, the underside's at 1/2 (the cube's top and the edges along it with
    // it), so the pair touches on the underside. The separating axis now is the side (5 mm).
    const ShapedBox plate(make_box(Vec3(0.6, 0.4, 0.025), Eigen::Matrix3d::Identity(), Vec3::Zero()));
    const ShapedBox cube(make_box(Vec3(0.03, 0.03, 0.03), Eigen::Matrix3d::Identity(), Vec3(0.32, 0, -0.03)));
    const Vec3 motion(-0.03, 0, 0.005);
    std::vector<Vec3> plate_ahead = plate.box.x, cube_ahead = cube.box.x;
    for (Vec3& x : cube_ahead) x += motion;
    const auto normal = [&](const ShapedBox& owner, std::size_t face) { return owner.box.normals[owner.faces[face].triangles[0]]; };

    const SeparatingAxis now = separating_axis(plate.shape(), cube.shape(), 0.1 * kMargin, kMargin);
    REQUIRE(now.kind == SeparatingAxis::Kind::face_of_a);
    CHECK((normal(plate, now.face) - Vec3::UnitX()).norm() < 1e-12);
    CHECK(std::abs(now.separation - 0.005) < 1e-12);

    const SeparatingAxis closing = closing_axis(plate.shape(), cube.shape(), plate_ahead, cube_ahead, 0.1 * kMargin, kMargin);
    // The plate's underside or the cube's top: the same axis, closing at the same time to round-off.
    REQUIRE(closing.kind != SeparatingAxis::Kind::edges);
    const Vec3 out_of_cube = closing.kind == SeparatingAxis::Kind::face_of_a ? Vec3(-normal(plate, closing.face))
                                                                             : normal(cube, closing.face);
    CHECK((out_of_cube - Vec3::UnitZ()).norm() < 1e-12);
    CHECK(std::abs(closing.separation - 0.0025) < 1e-12);  // its gap now
    // Now the cube is not under the plate: nothing over the underside, and the axis says so.
    const PolyhedronShape plate_shape = plate.shape(), cube_shape = cube.shape();
    PairSeparation apart_now(plate_shape, cube_shape);
    std::vector<ManifoldPoint> points;
    CHECK(!contact_manifold(plate_shape, cube_shape, closing, 1.0, kMargin, 1e-12, apart_now, points));
    CHECK(points.empty());
    // Moved under the plate's edge: the cube's top clipped to the plate's side, at 2.5 mm.
    const ShapedBox moved(make_box(Vec3(0.03, 0.03, 0.03), Eigen::Matrix3d::Identity(), Vec3(0.31, 0, -0.03)));
    const PolyhedronShape moved_shape = moved.shape();
    PairSeparation under_now(plate_shape, moved_shape);
    REQUIRE(contact_manifold(plate_shape, moved_shape, closing, 1.0, kMargin, 1e-12, under_now, points));
    REQUIRE(points.size() == 4);
    for (const ManifoldPoint& p : points) {
        CHECK(std::abs(p.gap - 0.0025) < 1e-12);
        CHECK((p.normal - Vec3::UnitZ()).norm() < 1e-12);  // out of B, the cube, towards the plate
        CHECK(position_of(moved.box, p.b).x() <= 0.3 + 1e-12);
        CHECK(position_of(plate.box, p.a).x() <= 0.3 + 1e-12);
    }

    // Where some axis keeps them apart over the whole motion, the axis now.
    for (Vec3& x : cube_ahead) x -= 0.75 * motion;  // a quarter of the motion: the underside stays 1.25 mm clear
    const SeparatingAxis apart = closing_axis(plate.shape(), cube.shape(), plate_ahead, cube_ahead, 0.1 * kMargin, kMargin);
    CHECK(apart.kind == now.kind);
    CHECK(apart.face == now.face);
}
