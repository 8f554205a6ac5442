// The warm start's contact matching (contact_warm_start.hpp): a new contact takes the forces of
// the kept contact whose normal row has its columns and lies within 5 % of it; the friction
// force keeps its generalised force D^T lambda_f across a turn of the tangents and is clipped
// to the new cone; contacts without a match, or on another layout of the unknowns, are left
// alone; a checkpoint round trip keeps everything.
#include "../contact_warm_start.hpp"

#include "soma/checkpoint.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <cmath>
#include <vector>

using namespace soma;
using namespace soma::ncp;

namespace {

using RowMatrix = ContactWarmStart::RowMatrix;

/// A contact of a rigid body (DOFs 6 b .. 6 b + 5) at lever arm r with normal n: its normal row
/// [n, r x n] and tangent rows [t_k, r x t_k] for the tangents t1, t2 turned by \p turn about n.
struct BodyContact {
    int body;
    Vec3 arm, normal;
    double turn = 0.0;
};

void rows_of(const std::vector<BodyContact>& contacts, Index unknowns, RowMatrix& normal, RowMatrix& tangent) {
    std::vector<Eigen::Triplet<double, Index>> n, t;
    for (std::size_t i = 0; i < contacts.size(); ++i) {
        const BodyContact& c = contacts[i];
        const Vec3 axis = std::abs(c.normal.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
        Vec3 t1 = axis.cross(c.normal).normalized();
        t1 = Eigen::AngleAxis<double>(c.turn, c.normal) * t1;
        const Vec3 t2 = c.normal.cross(t1);
        const auto row = [&](std::vector<Eigen::Triplet<double, Index>>& out, Index r, const Vec3& d) {
            const Vec3 moment = c.arm.cross(d);
            for (int k = 0; k < 3; ++k) {
                out.emplace_back(r, 6 * c.body + k, d[k]);
                out.emplace_back(r, 6 * c.body + 3 + k, moment[k]);
            }
        };
        row(n, static_cast<Index>(i), c.normal);
        row(t, static_cast<Index>(2 * i), t1);
        row(t, static_cast<Index>(2 * i + 1), t2);
    }
    normal.resize(static_cast<Index>(contacts.size()), unknowns);
    normal.setFromTriplets(n.begin(), n.end());
    tangent.resize(static_cast<Index>(2 * contacts.size()), unknowns);
    tangent.setFromTriplets(t.begin(), t.end());
}

/// The world friction force of contact i: lambda_1 t1 + lambda_2 t2 (the translation part of its rows).
Vec3 world_friction(const RowMatrix& tangent, const VectorX& lambda_f, Index i) {
    Vec3 f = Vec3::Zero();
    for (Index k = 0; k < 2; ++k)
        for (RowMatrix::InnerIterator it(tangent, 2 * i + k); it; ++it)
            if (it.col() % 6 < 3) f[it.col() % 6] += it.value() * lambda_f[2 * i + k];
    return f;
}

}  // namespace

TEST_CASE("contact warm start: each contact finds its own among the kept ones, in any order", "[ncp][warm_start]") {
    // Four corners of a block on body 1 against a face (normal +z), and a floor contact of body 0.
    const Vec3 up = Vec3::UnitZ();
    std::vector<BodyContact> old = {{1, {0.2, 0.1, -0.1}, up},  {1, {-0.2, 0.1, -0.1}, up}, {1, {-0.2, -0.1, -0.1}, up},
                                    {1, {0.2, -0.1, -0.1}, up}, {0, {0.0, 0.0, -0.5}, up}};
    RowMatrix normal, tangent;
    rows_of(old, 12, normal, tangent);
    const VectorX lambda_n = (VectorX(5) << 10.0, 20.0, 30.0, 40.0, 50.0).finished();
    VectorX lambda_f(10);
    lambda_f << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;
    ContactWarmStart warm;
    CHECK_FALSE(warm.kept());
    warm.keep(normal, tangent, lambda_n, lambda_f);
    REQUIRE(warm.kept());

    // The next step: the same contacts in reverse order, each moved by 1 mm (well within 5 % of
    // a row's norm, about 1.0), and a new contact at another corner (no match).
    std::vector<BodyContact> next;
    for (auto it = old.rbegin(); it != old.rend(); ++it) next.push_back({it->body, it->arm + Vec3(1e-3, 0, 0), up});
    next.push_back({1, {0.2, 0.1, 0.1}, -up});
    RowMatrix normal2, tangent2;
    rows_of(next, 12, normal2, tangent2);
    const VectorX mu = VectorX::Constant(6, 1.0);  // wide cones: no clipping here
    VectorX lambda_n2 = VectorX::Zero(6), lambda_f2 = VectorX::Zero(12);
    CHECK(warm.apply(normal2, tangent2, mu, lambda_n2, lambda_f2) == 5);
    for (Index i = 0; i < 5; ++i) {
        CHECK(lambda_n2[i] == lambda_n[4 - i]);
        // The tangents are the same but the lever arms moved by 1 mm in about 0.25 m, so the
        // generalised forces [t, r x t] lambda differ by that order: the least-squares fit keeps
        // each component to about 4e-3 of its size (measured 2e-4); unmoved, it keeps it exactly
        // (the next test).
        CHECK(lambda_f2[2 * i] == Approx(lambda_f[2 * (4 - i)]).epsilon(4e-3));
        CHECK(lambda_f2[2 * i + 1] == Approx(lambda_f[2 * (4 - i) + 1]).epsilon(4e-3));
    }
    CHECK(lambda_n2[5] == 0.0);
    CHECK(lambda_f2[10] == 0.0);
    CHECK(lambda_f2[11] == 0.0);
}

TEST_CASE("contact warm start: the friction force keeps its direction in the world when the tangents turn, and is "
          "clipped to the new cone",
          "[ncp][warm_start]") {
    const Vec3 n = Vec3(0.1, -0.2, 1.0).normalized();
    RowMatrix normal, tangent;
    rows_of({{0, {0.3, -0.1, -0.2}, n, 0.0}}, 6, normal, tangent);
    const VectorX lambda_n = VectorX::Constant(1, 10.0);
    const VectorX lambda_f = (VectorX(2) << 3.0, -4.0).finished();  // |f| = 5 N
    ContactWarmStart warm;
    warm.keep(normal, tangent, lambda_n, lambda_f);
    const Vec3 f_old = world_friction(tangent, lambda_f, 0);

    // The same contact with its tangents turned by 0.7 rad about the normal.
    RowMatrix normal2, tangent2;
    rows_of({{0, {0.3, -0.1, -0.2}, n, 0.7}}, 6, normal2, tangent2);
    VectorX lambda_n2 = VectorX::Zero(1), lambda_f2 = VectorX::Zero(2);
    REQUIRE(warm.apply(normal2, tangent2, VectorX::Constant(1, 0.6), lambda_n2, lambda_f2) == 1);
    CHECK((world_friction(tangent2, lambda_f2, 0) - f_old).norm() < 1e-12);  // 5 N inside the cone 0.6 x 10 N

    // Under mu = 0.3 the cone holds 3 N: the force keeps its direction and is cut to the cone's edge.
    lambda_n2.setZero();
    lambda_f2.setZero();
    REQUIRE(warm.apply(normal2, tangent2, VectorX::Constant(1, 0.3), lambda_n2, lambda_f2) == 1);
    const Vec3 f = world_friction(tangent2, lambda_f2, 0);
    CHECK(f.norm() == Approx(3.0).epsilon(1e-12));
    CHECK((f.normalized() - f_old.normalized()).norm() < 1e-12);
}

TEST_CASE("contact warm start: another normal, other DOFs or another layout of the unknowns match nothing",
          "[ncp][warm_start]") {
    RowMatrix normal, tangent;
    rows_of({{0, {0.0, 0.0, -0.5}, Vec3::UnitZ()}}, 12, normal, tangent);
    ContactWarmStart warm;
    warm.keep(normal, tangent, VectorX::Constant(1, 9.81), VectorX::Zero(2));
    const auto matches = [&](const BodyContact& c, Index unknowns) {
        RowMatrix n2, t2;
        rows_of({c}, unknowns, n2, t2);
        VectorX lambda_n = VectorX::Zero(1), lambda_f = VectorX::Zero(2);
        const Index matched = warm.apply(n2, t2, VectorX::Constant(1, 0.5), lambda_n, lambda_f);
        CHECK(lambda_n[0] == (matched == 1 ? 9.81 : 0.0));
        return matched;
    };
    // The row [n, r x n] has norm sqrt(1 + 0.25): 5 % of it is 0.056. A normal turned by 0.04 rad
    // moves the row by about 0.045 and matches; by 0.08 rad, by 0.089, and does not.
    CHECK(matches({0, {0.0, 0.0, -0.5}, Eigen::AngleAxis<double>(0.04, Vec3::UnitX()) * Vec3::UnitZ()}, 12) == 1);
    CHECK(matches({0, {0.0, 0.0, -0.5}, Eigen::AngleAxis<double>(0.08, Vec3::UnitX()) * Vec3::UnitZ()}, 12) == 0);
    CHECK(matches({1, {0.0, 0.0, -0.5}, Vec3::UnitZ()}, 12) == 0);  // another body
    CHECK(matches({0, {0.0, 0.0, -0.5}, Vec3::UnitZ()}, 18) == 0);  // the unknowns laid out anew
    warm.clear();
    CHECK_FALSE(warm.kept());
    CHECK(matches({0, {0.0, 0.0, -0.5}, Vec3::UnitZ()}, 12) == 0);
}

TEST_CASE("contact warm start: a checkpoint keeps the contacts and forces", "[ncp][warm_start]") {
    RowMatrix normal, tangent;
    rows_of({{0, {0.1, 0.2, -0.5}, Vec3::UnitZ()}, {1, {-0.1, 0.0, 0.4}, -Vec3::UnitY()}}, 12, normal, tangent);
    ContactWarmStart warm;
    const VectorX lambda_n = (VectorX(2) << 4.0, 7.0).finished();
    const VectorX lambda_f = (VectorX(4) << 0.5, -0.25, 1.5, 2.0).finished();
    warm.keep(normal, tangent, lambda_n, lambda_f);
    std::vector<CheckpointRecord> section;
    CheckpointWriter out(section);
    warm.save_checkpoint(out);
    ContactWarmStart restored;
    CheckpointReader in(section, "integrator");
    restored.restore_checkpoint(in);
    CHECK(in.finished());
    VectorX a_n = VectorX::Zero(2), a_f = VectorX::Zero(4), b_n = VectorX::Zero(2), b_f = VectorX::Zero(4);
    const VectorX mu = VectorX::Constant(2, 0.5);
    CHECK(warm.apply(normal, tangent, mu, a_n, a_f) == 2);
    CHECK(restored.apply(normal, tangent, mu, b_n, b_f) == 2);
    CHECK(a_n == b_n);
    CHECK(a_f == b_f);
    CHECK(a_n == lambda_n);

    // Nothing kept: the record says so, and the restored warm start keeps nothing.
    std::vector<CheckpointRecord> empty_section;
    CheckpointWriter empty_out(empty_section);
    ContactWarmStart().save_checkpoint(empty_out);
    CheckpointReader empty_in(empty_section, "integrator");
    restored.restore_checkpoint(empty_in);
    CHECK(empty_in.finished());
    CHECK_FALSE(restored.kept());
}
