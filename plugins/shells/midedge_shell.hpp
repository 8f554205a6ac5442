#pragma once
/// \file midedge_shell.hpp
/// \brief The `midedge_shell` Element: a thin shell on a triangle mesh with mid-edge normal
/// bending (MAT-DiSMech §3.3.2), edge stretching springs (eq. 9) and lumped mass.
///
/// Local DOFs (MAT-DiSMech §2): node positions x_0 .. x_{N-1} interleaved (3N), then one scalar
/// xi per mesh edge (Z), in the edge numbering of build_topology() (triangle_mesh.hpp).
/// DOF groups: "nodes" (x, y, z) and "edges" (xi), so a scene can fix xi (`fixed: {edges: [...]}`).
/// geometry().edges[e] is mesh edge e, i.e. item e of the "edges" group (n0 -> n1).
///
///     F += grad E_elastic(q) + M a,     J += c_q Hess E_elastic + c_a M
///     E_elastic = sum_edges E_stretch + sum_triangles E_midedge           (MAT-DiSMech eq. 8)
///
/// - Stretching: k_s = 2 E h l_bar / (1 - nu^2) per edge, the reference code's mid-edge value
///   (shell_stretching.hpp).
/// - Bending: midedge_bending.hpp (eq. 20 with the mid-edge frame tau^e taken from the current
///   configuration: the energy is a function of (x, xi) alone, so statics equilibria do not
///   depend on the number of load steps; exact gradient and Hessian). A triangle's bending
///   stencil holds its 3 nodes, its 3 xi and the opposite vertices of its interior edges'
///   neighbours (up to 21 DOFs).
/// - Mass: rho h A_bar / 3 per triangle on each of its nodes, on x, y and z. The xi
///   DOFs are massless and get no mass stencil: their rows of J hold only c_q times the bending
///   Hessian, so xi is quasi-static (determined by the Newton solve every step), as in the
///   reference code. Limitation: a solve with M alone is singular on the free xi DOFs, so
///   Newmark's initial acceleration (M a0 = f) and explicit schemes cannot be used with a
///   midedge_shell unless every xi is fixed; use implicit Euler, implicit midpoint or statics.
///   The scene builder refuses such a pairing (Integrator::solves_with_mass_alone).
/// - Held edges (clamps): an edge whose xi is fixed or prescribed (by index or by a region)
///   has its mid-edge normal held in the world at n^m = sqrt(1 - xi^2) n_bar + xi tau_bar, where
///   n_bar is the edge's initial normal (the average of its faces' initial normals, or its
///   face's normal on a boundary) and tau_bar = unit(e_bar x n_bar) (midedge_bending.hpp). Its
///   two nodes must be fixed or prescribed too (connect() refuses otherwise): a clamp holds the
///   edge and its normal. A clamp that translates keeps its normal; to turn the normal, prescribe
///   xi (it turns n^m about the initial edge direction).
/// - Natural shape: the initial geometry with xi_bar = 0.

#include "midedge_bending.hpp"
#include "shell_material.hpp"
#include "shell_stretching.hpp"
#include "triangle_mesh.hpp"

#include "soma/element.hpp"
#include "soma/settings_errors.hpp"

#include <array>
#include <vector>

namespace soma::shells {

/// Everything a midedge_shell is built from (the registration fills it from the scene).
struct MidedgeShellDescription {
    TriangleMesh mesh;                  ///< initial = natural configuration
    double thickness = 0.0;             ///< h (m)
    ShellMaterial material;             ///< rho, E and nu in [0, 0.5]
    Vec3 initial_velocity = Vec3::Zero();  ///< of every node (m/s); xi starts at rest
};

/// A thin shell with mid-edge normal bending.
class MidedgeShell final : public Element {
public:
    /// \brief Builds the shell in its natural state (topology, springs, masses, natural shape
    /// coefficients), with every xi free.
    /// \throws MeshError for an invalid mesh (triangle_mesh.hpp); fails through \p errors at the
    /// key of a non-positive constant or nu outside [0, 0.5].
    explicit MidedgeShell(MidedgeShellDescription description, const SettingsErrors& errors = SettingsErrors("midedge_shell"));

    // ---- Element ----
    Index dof_count() const override { return 3 * node_count_ + edge_count_; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    /// Mesh edge e spans its two end nodes (a region holding both selects its xi).
    std::vector<Index> item_nodes(const std::string& group, Index item) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;

    // ---- Contributor ----
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return true; }
    /// Holds the mid-edge normals of the edges whose xi the scene fixes or prescribes.
    void connect(const SceneView& scene) override;

    // ---- read access (tests, observers) ----
    Index node_count() const { return node_count_; }
    Index edge_count() const { return edge_count_; }
    Index triangle_count() const { return static_cast<Index>(triangles_.size()); }
    /// Local DOF of xi of mesh edge e.
    Index xi_dof(Index edge) const { return 3 * node_count_ + edge; }
    const MeshTopology& topology() const { return topology_; }
    const std::vector<MidedgeTriangle>& bending_triangles() const { return triangles_; }
    const std::vector<EdgeSpring>& stretching_springs() const { return springs_; }
    const std::vector<double>& node_masses() const { return node_mass_; }
    /// \brief Holds the mid-edge normals of these edges (see the file comment); connect() calls
    /// it with the edges whose xi is not free. Call before declare_pattern().
    /// \throws std::out_of_range for an edge index out of range.
    void hold_edges(const std::vector<Index>& edges);
    /// Whether edge e's mid-edge normal is held.
    bool edge_held(Index edge) const { return held_[static_cast<std::size_t>(edge)] != 0; }
    /// The wing node across local edge k of triangle t (the neighbour's opposite vertex), -1 on a
    /// boundary edge.
    Index wing_node(Index triangle, int k) const { return wing_node_[static_cast<std::size_t>(triangle)][static_cast<std::size_t>(k)]; }
    /// Bending energy alone (sum of E_midedge) at the global configuration q (valid after bind()).
    double bending_energy(const VectorX& q) const;
    /// Bending energy of one triangle at the global configuration q (valid after bind()).
    double bending_energy(const VectorX& q, Index triangle) const;
    /// Stretching energy alone at the global configuration q (valid after bind()).
    double stretching_energy(const VectorX& q) const;

protected:
    void on_bind() override;

private:
    /// Energy always; gradient (and Hessian when the assembly wants a Jacobian and c_q != 0)
    /// into `assembly` when it is not null. `parts` selects stretching (bit 0) and bending (bit 1).
    double evaluate(const VectorX& q, Assembly* assembly, double c_q, int parts = 3) const;
    /// Edge kinds and natural coefficients of every bending triangle (from held_).
    void prepare_bending();
    /// The bending stencil of triangle t at configuration q.
    MidedgeStencil bending_stencil(const VectorX& q, std::size_t t) const;
    Vec3 node_position(const VectorX& q, Index node) const {
        const auto& d = node_dofs_[static_cast<std::size_t>(node)];
        return Vec3(q[d[0]], q[d[1]], q[d[2]]);
    }

    Index node_count_ = 0;
    Index edge_count_ = 0;
    TriangleMesh mesh_;
    MeshTopology topology_;
    double thickness_ = 0.0;
    ShellMaterial material_;
    Vec3 initial_velocity_ = Vec3::Zero();

    std::vector<EdgeSpring> springs_;           ///< per edge
    std::vector<MidedgeTriangle> triangles_;    ///< per triangle
    std::vector<double> node_mass_;             ///< per node
    std::vector<std::array<Index, 3>> wing_node_;  ///< per triangle and local edge, -1 on a boundary
    std::vector<char> held_;                    ///< per edge: mid-edge normal held (a clamp)
    std::vector<Vec3> rest_edge_normal_;        ///< per edge: initial n_c (average of its faces' normals)
    std::vector<Vec3> rest_edge_direction_;     ///< per edge: initial unit direction n0 -> n1

    // Global tables (on_bind) and stencils (declare_pattern).
    std::vector<std::array<Index, 3>> node_dofs_;
    std::vector<Index> xi_global_;
    std::vector<StencilId> stretch_stencil_, bend_stencil_, mass_stencil_;
    Geometry geometry_;
};

}  // namespace soma::shells
