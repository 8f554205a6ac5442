#pragma once
/// \file discrete_rod.hpp
/// \brief The `discrete_rod` Element: a Discrete Elastic Rod (Bergou et al. 2010) as in
/// MAT-DiSMech (digest 000 §1-2).
///
/// Local DOFs: node positions x_0 .. x_{N-1} interleaved (3N), then one twist angle theta per
/// edge (N-1). Residual and Jacobian contributions (assembly.hpp):
///
///     F += grad E_elastic(q) + M a,          J += c_q Hess E_elastic + c_a M
///
///     E_elastic = sum_edges E_stretch + sum_interior_nodes (E_bend + E_twist)   (digest eq. 8)
///
/// M is the lumped mass (digest 000 §1.3): node mass rho A dl_i (Voronoi length dl_i), edge twist
/// inertia rho (I1 + I2) l_e (polar moment of area times density times rest length; for a circle
/// 1/2 m r^2, for a rectangle m (b^2 + h^2)/12).
///
/// Reference frames (digest 000 §2.2, §2.4): space-parallel at t = 0; at every evaluation they
/// are time-parallel transported from the committed (start-of-step) tangents to the current
/// ones and the reference twist is updated from its committed value, so an evaluation is a pure
/// function of q. commit_step() stores the frames, tangents and reference twists of the end
/// state; reject_step() leaves the committed ones untouched.

#include "bend_twist_spring.hpp"
#include "rod_description.hpp"
#include "stretching_spring.hpp"

#include "soma/element.hpp"

#include <array>
#include <vector>

namespace soma::rod {

/// A discrete elastic rod with N nodes and N-1 edges (an open chain).
class DiscreteRod final : public Element {
public:
    /// \brief Builds the rod in its natural state: rest lengths, Voronoi lengths, masses,
    /// stiffnesses, space-parallel reference frames, natural curvatures and twists.
    /// \throws std::invalid_argument when the description cannot make a rod (fewer than 3
    /// nodes, a zero-length edge, a fold-back of 180 degrees, non-positive constants).
    explicit DiscreteRod(RodDescription description);

    // ---- Element ----
    Index dof_count() const override { return 3 * node_count_ + edge_count_; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;

    // ---- Contributor ----
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return symmetric_jacobian_; }
    void commit_step(const State& end) override;
    void reject_step() override {}

    // ---- rod-specific read access (tests, observers) ----
    Index node_count() const { return node_count_; }
    Index edge_count() const { return edge_count_; }
    /// Local DOF of the twist angle of edge e.
    Index twist_dof(Index edge) const { return 3 * node_count_ + edge; }
    const std::vector<StretchingSpring>& stretching_springs() const { return stretching_; }
    const std::vector<BendTwistSpring>& bend_twist_springs() const { return bend_twist_; }
    const std::vector<double>& node_masses() const { return node_mass_; }
    const std::vector<double>& edge_inertias() const { return edge_inertia_; }
    /// Committed reference twist of the spring at interior node k+1 (between edges k, k+1).
    const std::vector<double>& committed_reference_twist() const { return reference_twist_; }
    /// Committed reference director a1 and tangent of each edge.
    const std::vector<Vec3>& committed_reference_director() const { return director_; }
    const std::vector<Vec3>& committed_tangent() const { return tangent_; }
    /// \brief Current reference directors a1 of every edge at the global configuration q
    /// (time-parallel transported from the committed ones), for output and tests.
    std::vector<Vec3> reference_directors(const VectorX& q) const;

protected:
    void on_bind() override;

private:
    /// Shared loop of the evaluations: energy always, gradient/Hessian into `assembly` when
    /// not null (with the Hessian when it wants one).
    double evaluate(const VectorX& q, Assembly* assembly, double c_q) const;
    Vec3 node_position(const VectorX& q, Index node) const {
        const auto& d = node_dofs_[static_cast<std::size_t>(node)];
        return Vec3(q[d[0]], q[d[1]], q[d[2]]);
    }

    Index node_count_ = 0;
    Index edge_count_ = 0;
    std::vector<Vec3> initial_positions_;
    Vec3 initial_velocity_ = Vec3::Zero();
    CrossSection section_;
    RodMaterial material_;
    bool symmetric_jacobian_ = false;

    // Rest state (built by the constructor).
    std::vector<StretchingSpring> stretching_;  ///< one per edge
    std::vector<BendTwistSpring> bend_twist_;   ///< one per interior node (node k+1 -> index k)
    std::vector<double> voronoi_length_;        ///< per node
    std::vector<double> node_mass_;             ///< per node
    std::vector<double> edge_inertia_;          ///< per edge

    // Committed frames (digest 000 §2.2, §2.4).
    std::vector<Vec3> tangent_;           ///< per edge
    std::vector<Vec3> director_;          ///< a1 per edge
    std::vector<double> reference_twist_; ///< per interior node

    // Global tables (built by on_bind) and stencils (declare_pattern).
    std::vector<std::array<Index, 3>> node_dofs_;
    std::vector<Index> edge_dof_;
    std::vector<StencilId> stretch_stencil_, bend_twist_stencil_, node_mass_stencil_,
        edge_mass_stencil_;
    Geometry geometry_;
};

}  // namespace soma::rod
