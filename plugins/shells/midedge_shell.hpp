#pragma once
/// \file midedge_shell.hpp
/// \brief The `midedge_shell` Element: a thin shell on a triangle mesh with mid-edge normal
/// bending (digest 000 §2.7), edge stretching springs (§2.1) and lumped mass (§1.3).
///
/// Local DOFs (digest 000 §1.2): node positions x_0 .. x_{N-1} interleaved (3N), then one scalar
/// xi per mesh edge (Z), in the edge numbering of build_topology() (triangle_mesh.hpp).
/// DOF groups: "nodes" (x, y, z) and "edges" (xi), so a scene can fix xi (`fixed: {edges: [...]}`).
/// geometry().edges[e] is mesh edge e, i.e. item e of the "edges" group (n0 -> n1).
///
///     F += grad E_elastic(q) + M a,     J += c_q Hess E_elastic + c_a M
///     E_elastic = sum_edges E_stretch + sum_triangles E_midedge           (digest eq. 8)
///
/// - Stretching: k_s = 2 E h l_bar / (1 - nu^2) per edge, the reference code's mid-edge value
///   (digest §2.0, §2.1; shell_stretching.hpp).
/// - Bending: midedge_bending.hpp (eq. 20, Appendix A with the digest's corrections, element
///   Hessian symmetrized). The assembled Jacobian is symmetric but approximate (c, t, A are held
///   constant in the derivatives): Newton converges linearly, fast while triangles keep their
///   shape (membrane-dominated thin shells), see the validation report.
/// - Mass (digest §1.3): rho h A_bar / 3 per triangle on each of its nodes, on x, y and z. The xi
///   DOFs are massless and get no mass stencil: their rows of J hold only c_q times the bending
///   Hessian, so xi is quasi-static (determined by the Newton solve every step), as in the
///   reference code. Limitation: a solve with M alone is singular on the free xi DOFs, so
///   Newmark's initial acceleration (M a0 = f) and explicit schemes cannot be used with a
///   midedge_shell unless every xi is fixed; use implicit Euler, implicit midpoint-type
///   schemes that do not start with M a0 = f, or statics.
/// - tau^{e,0} (digest §2.7): computed from the initial configuration at construction and
///   recomputed from the committed configuration in begin_step(), i.e. at the start of every
///   step attempt. As in the reference code xi is NOT re-projected onto the new tau^{e,0}: the
///   xi values carry over, an approximation that relies on small rotations per step (Grinspun
///   et al. 2006; digest §2.7 [C]). Within a step tau^{e,0} is constant, so an evaluation is a
///   pure function of q.
/// - Natural shape: the initial geometry with xi_bar = 0 (digest §2.7).

#include "midedge_bending.hpp"
#include "shell_material.hpp"
#include "shell_stretching.hpp"
#include "triangle_mesh.hpp"

#include "soma/element.hpp"

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
    /// \brief Builds the shell in its natural state (topology, springs, masses, tau^{e,0}, natural
    /// shape operator coefficients).
    /// \throws MeshError for an invalid mesh (triangle_mesh.hpp), std::invalid_argument for
    /// non-positive constants or nu outside [0, 0.5].
    explicit MidedgeShell(MidedgeShellDescription description);

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
    /// Recomputes tau^{e,0} from start.q (digest §2.7, "at the start of every time step").
    void begin_step(const State& start) override;

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
    /// Current tau^{e,0} of every mesh edge.
    const std::vector<Vec3>& edge_tau() const { return edge_tau_; }
    /// Bending energy alone (sum of E_midedge) at the global configuration q (valid after bind()).
    double bending_energy(const VectorX& q) const;
    /// Stretching energy alone at the global configuration q (valid after bind()).
    double stretching_energy(const VectorX& q) const;

protected:
    void on_bind() override;

private:
    /// Energy always; gradient (and Hessian when the assembly wants a Jacobian and c_q != 0)
    /// into `assembly` when it is not null. `parts` selects stretching (bit 0) and bending (bit 1).
    double evaluate(const VectorX& q, Assembly* assembly, double c_q, int parts = 3) const;
    /// tau^{e,0} from node positions given by `position(node)`.
    template <class Position>
    void refresh_edge_tau(const Position& position);
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
    std::vector<Vec3> edge_tau_;                ///< tau^{e,0} per edge
    std::vector<Vec3> face_normal_;             ///< work buffer of refresh_edge_tau (per triangle)

    // Global tables (on_bind) and stencils (declare_pattern).
    std::vector<std::array<Index, 3>> node_dofs_;
    std::vector<Index> xi_global_;
    std::vector<StencilId> stretch_stencil_, bend_stencil_, mass_stencil_;
    Geometry geometry_;
};

}  // namespace soma::shells
