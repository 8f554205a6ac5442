#pragma once
/// \file hinge_shell.hpp
/// \brief The `hinge_shell` Element: a thin shell on a triangle mesh with edge stretching springs
/// (MAT-DiSMech §3.1, eq. 9-10) and discrete hinge bending (§3.3.1, eq. 17), lumped mass (§2).
///
/// Local DOFs: node positions x_0 .. x_{N-1} interleaved (3N). Residual and Jacobian
/// (assembly.hpp):
///
///     F += grad E(q) + M a,        J += c_q Hess E + c_a M
///
///     E = sum_edges 1/2 k_s eps^2 l_bar + sum_hinges 1/2 k_b (phi - phi_bar)^2
///
/// - k_s = (sqrt(3)/2) E h l_bar per edge and k_b = (2/sqrt(3)) E h^3/12 per hinge: the reference
///   code's values, which match spring-lattice theory (the paper prints half of each, after
///   MAT-DiSMech eq. 10 and eq. 17). The
///   Poisson ratio does not enter this model; its response depends on the mesh.
/// - Node mass: sum over the triangles at the node of rho h A_bar/3 (MAT-DiSMech §2, lumped as in its reference code).
/// - Natural hinge angles phi_bar from the initial geometry (the initial shape is stress-free);
///   the actuation channel "natural_hinge_angle" (one item per hinge, component "phi", rad)
///   lets controllers change them over time (MAT-DiSMech §7.1, Fig. 5 manta ray).

#include "hinge_bending.hpp"
#include "shell_material.hpp"
#include "shell_stretching.hpp"
#include "triangle_mesh.hpp"

#include "soma/element.hpp"
#include "soma/settings_errors.hpp"

#include <array>
#include <vector>

namespace soma::shells {

/// Everything needed to build a HingeShell (what the scene's `hinge_shell` block is translated
/// to). The initial configuration is the natural, stress-free state.
struct HingeShellDescription {
    TriangleMesh mesh;            ///< positions (m) and triangles (0-based)
    double thickness = 0.0;       ///< h (m)
    ShellMaterial material;
    Vec3 initial_velocity = Vec3::Zero();  ///< same velocity for every node (m/s)
};

/// Discrete hinge shell.
class HingeShell final : public Element {
public:
    /// Name of the actuation channel of the natural hinge angles.
    static constexpr const char* kNaturalHingeAngle = "natural_hinge_angle";

    /// \brief Builds the shell in its natural state.
    /// \throws MeshError for an invalid mesh (triangle_mesh.hpp); fails through \p errors at the
    /// key of a non-positive thickness or material constant.
    explicit HingeShell(HingeShellDescription description, const SettingsErrors& errors = SettingsErrors("hinge_shell"));

    // ---- Element ----
    Index dof_count() const override { return 3 * node_count(); }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;
    std::vector<ActuationChannel> actuation_channels() const override;
    double actuation(const std::string& channel, Index item, int component) const override;
    void set_actuation(const std::string& channel, Index item, int component, double value) override;
    Vec3 actuation_point(const std::string& channel, Index item) const override;

    // ---- Contributor ----
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;

    // ---- read access (tests, observers) ----
    Index node_count() const { return static_cast<Index>(positions_.size()); }
    const MeshTopology& topology() const { return topology_; }
    const std::vector<std::array<Index, 3>>& triangles() const { return triangles_; }
    const std::vector<EdgeSpring>& edge_springs() const { return edge_springs_; }
    const std::vector<HingeSpring>& hinge_springs() const { return hinge_springs_; }
    const std::vector<double>& node_masses() const { return node_mass_; }
    double thickness() const { return thickness_; }

protected:
    void on_bind() override;

private:
    double evaluate(const VectorX& q, Assembly* assembly, double c_q) const;
    Vec3 node_position(const VectorX& q, Index node) const {
        const auto& d = node_dofs_[static_cast<std::size_t>(node)];
        return Vec3(q[d[0]], q[d[1]], q[d[2]]);
    }
    void check_channel(const std::string& channel, Index item, int component) const;

    std::vector<Vec3> positions_;
    std::vector<std::array<Index, 3>> triangles_;
    MeshTopology topology_;
    double thickness_ = 0.0;
    ShellMaterial material_;
    Vec3 initial_velocity_ = Vec3::Zero();

    std::vector<EdgeSpring> edge_springs_;    ///< one per mesh edge
    std::vector<HingeSpring> hinge_springs_;  ///< one per hinge (interior edge)
    std::vector<double> node_mass_;

    std::vector<std::array<Index, 3>> node_dofs_;
    std::vector<StencilId> edge_stencil_, hinge_stencil_, mass_stencil_;
    Geometry geometry_;
};

}  // namespace soma::shells
