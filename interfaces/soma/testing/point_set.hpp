#pragma once
/// \file testing/point_set.hpp
/// \brief A test double for forces: free points with masses, Voronoi lengths and contact radii,
/// optionally joined by edges (a rod's centreline) and triangles (a shell's surface), with no
/// internal forces. Its points are identity-mapped, as a rod's or a shell's nodes.
///
/// Header-only, like dense_assembly.hpp, for in-tree and out-of-tree plugin tests:
/// \code
///   soma::testing::PointSet rod("rod", {{x0, m0, l0, r0}, {x1, m1, l1, r1}}, /*edges*/ {{0, 1}});
///   auto scene = soma::testing::TestScene::bound_in_order({&rod});
///   force.bind(scene);
/// \endcode

#include "soma/element.hpp"

#include <array>
#include <numeric>
#include <string>
#include <vector>

namespace soma::testing {

class PointSet final : public Element {
public:
    struct Point {
        Vec3 x = Vec3::Zero();
        double mass = 1.0;
        double length = 0.0;  ///< Voronoi length along rod edges (m); 0 for a pure-shell point
        double radius = 0.0;  ///< contact radius (m)
    };

    /// \brief Free points of density \p density (kg/m^3).
    PointSet(std::string name, std::vector<Point> points, double density = 1000.0) : points_(std::move(points)) {
        set_name(std::move(name));
        geometry_.density = density;
    }
    /// \brief Points with surface triangles (point indices): a particle sheet for surface forces.
    PointSet(std::string name, std::vector<Point> points, std::vector<std::array<Index, 3>> triangles,
             double density = 1000.0)
        : PointSet(std::move(name), std::move(points), density) {
        geometry_.triangles = std::move(triangles);
    }
    /// \brief Points joined by edges (point indices): a rod's centreline or a network.
    static PointSet with_edges(std::string name, std::vector<Point> points, std::vector<std::array<Index, 2>> edges) {
        PointSet set(std::move(name), std::move(points));
        set.geometry_.edges = std::move(edges);
        return set;
    }

    /// \brief A chain: points at \p positions, point i joined to point i + 1, each of radius \p radius.
    static PointSet chain(std::string name, const std::vector<Vec3>& positions, double radius) {
        std::vector<Point> points;
        std::vector<std::array<Index, 2>> edges;
        for (std::size_t i = 0; i < positions.size(); ++i) {
            points.push_back({positions[i], 1.0, 0.0, radius});
            if (i > 0) edges.push_back({static_cast<Index>(i) - 1, static_cast<Index>(i)});
        }
        return with_edges(std::move(name), std::move(points), std::move(edges));
    }

    /// Binds local DOF k to global DOF first + k.
    void bind_from(Index first) {
        std::vector<Index> map(static_cast<std::size_t>(dof_count()));
        std::iota(map.begin(), map.end(), first);
        bind(std::move(map));
    }

    Index dof_count() const override { return 3 * static_cast<Index>(points_.size()); }
    void initial_state(VectorX& q, VectorX& v) const override {
        q.resize(dof_count());
        v = VectorX::Zero(dof_count());
        for (std::size_t i = 0; i < points_.size(); ++i) q.segment<3>(3 * static_cast<Index>(i)) = points_[i].x;
    }
    std::vector<DofGroup> dof_groups() const override {
        return {DofGroup{"nodes", 3, static_cast<Index>(points_.size()), {"x", "y", "z"}}};
    }
    Index group_dof(const std::string&, Index item, int component) const override { return 3 * item + component; }
    std::string describe_dof(Index local) const override {
        return "point " + std::to_string(local / 3) + " " + "xyz"[local % 3];
    }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}

protected:
    void on_bind() override {
        geometry_.point_dofs.clear();
        geometry_.point_mass.clear();
        geometry_.point_length.clear();
        geometry_.point_radius.clear();
        for (std::size_t i = 0; i < points_.size(); ++i) {
            const Index k = 3 * static_cast<Index>(i);
            geometry_.point_dofs.push_back({global_dof(k), global_dof(k + 1), global_dof(k + 2)});
            geometry_.point_mass.push_back(points_[i].mass);
            geometry_.point_length.push_back(points_[i].length);
            geometry_.point_radius.push_back(points_[i].radius);
        }
    }

private:
    std::vector<Point> points_;
    Geometry geometry_;
};

}  // namespace soma::testing
