#pragma once
/// \file discrete_rod.hpp
/// \brief The `discrete_rod` Element: a Discrete Elastic Rod (Bergou et al. 2010) as in
/// MAT-DiSMech (§2-3).
///
/// Local DOFs: node positions x_0 .. x_{N-1} interleaved (3N), then one twist angle theta per
/// edge (N-1). Residual and Jacobian contributions (assembly.hpp):
///
///     F += grad E_elastic(q) + M a,          J += c_q Hess E_elastic + c_a M
///
///     E_elastic = sum_edges E_stretch + sum_interior_nodes (E_bend + E_twist)   (MAT-DiSMech eq. 8)
///
/// M is the lumped mass (MAT-DiSMech §2): node mass rho A dl_i (Voronoi length dl_i), edge twist
/// inertia rho (I1 + I2) l_e (polar moment of area times density times rest length; for a circle
/// 1/2 m r^2, for a rectangle m (b^2 + h^2)/12).
///
/// Reference frames (MAT-DiSMech §3.2): space-parallel at t = 0; at every evaluation they
/// are time-parallel transported from the committed (start-of-step) tangents to the current
/// ones and the reference twist is updated from its committed value, so an evaluation is a pure
/// function of q. commit_step() stores the frames, tangents and reference twists of the end
/// state; reject_step() leaves the committed ones untouched.
///
/// Actuation channels (element.hpp; MAT-DiSMech eq. 14 and 16, §6.1 "Actuation"), one item per
/// bend-twist spring k (at interior node k+1, actuation_point = its initial position):
///
///  - "natural_curvature", components kappa1, kappa2 (1/m): the PHYSICAL curvature vector
///    (kappa1, kappa2) of the natural shape at the node, in the material frame (kappa1 bends in
///    the (t, m1) plane). It is converted to the spring's discrete, dimensionless natural
///    curvature as the exact turning of a circular arc of that curvature over the spring's
///    Voronoi length dl (|kb| of MAT-DiSMech eq. 11 is 2 tan(phi/2) for a turning angle phi):
///
///        kappa_bar_i = kappa_i * 2 tan(|kappa| dl / 2) / |kappa|      (-> kappa_i dl as |kappa| -> 0)
///
///    For bending in one material plane (kappa2 = 0) this is kappa_bar1 = 2 tan(kappa1 dl / 2).
///    The vector form is exact for an arc bending in any direction (the discrete kappa_i are the
///    components of kb = 2 tan(phi/2) b along the material directors); a per-component
///    2 tan(kappa_i dl / 2) would not be. Reading converts back:
///    kappa_i = kappa_bar_i * 2 atan(|kappa_bar| / 2) / (|kappa_bar| dl). The turning angle
///    |kappa| dl must stay below pi (a fold-back): set_actuation throws std::domain_error
///    otherwise. The initial value is the curvature of the initial geometry.
///  - "natural_twist", component tau (rad/m): the natural twist RATE relative to the initial
///    state, tau_bar = tau_bar_0 + tau dl. The discrete twist theta_f - theta_e + m_ref measures
///    how far the material frame turns about the tangent from one edge to the next beyond
///    parallel transport; the initial material frames are the space-parallel (Bishop) frames
///    with theta = 0, which are twist-free, and tau_bar_0 = m_ref(t = 0) is their reference twist
///    (zero up to round-off). Keeping tau_bar_0 makes 0 the initial, stress-free value for any
///    initial frame. The twist needs no arc conversion: a uniform twist rate turns the frame by
///    exactly tau dl between edge midpoints dl apart.

#include "bend_twist_spring.hpp"
#include "rod_description.hpp"
#include "rod_end_frames.hpp"
#include "stretching_spring.hpp"

#include "soma/element.hpp"
#include "soma/settings_errors.hpp"

#include <array>
#include <optional>
#include <vector>

namespace soma::rod {

/// A discrete elastic rod with N nodes and N-1 edges (an open chain).
class DiscreteRod final : public Element {
public:
    /// \brief Builds the rod in its natural state: rest lengths, Voronoi lengths, masses,
    /// stiffnesses, space-parallel reference frames, natural curvatures and twists.
    /// Fails through \p errors, at the scene key responsible, when the description cannot make a
    /// rod (fewer than 3 nodes, a zero-length edge, a fold-back of 180 degrees, non-positive constants).
    explicit DiscreteRod(RodDescription description, const SettingsErrors& errors = SettingsErrors("discrete_rod"));

    // ---- Element ----
    Index dof_count() const override { return 3 * node_count_ + edge_count_; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    /// Edge e spans nodes e and e + 1 (a region holding both selects its twist).
    std::vector<Index> item_nodes(const std::string& group, Index item) const override;
    /// \brief Planar mode (RodDescription::planar_axis): key "planar", the out-of-plane component of
    /// every node and the twist of every edge. Otherwise none.
    HeldDofs held_dofs() const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;
    /// \brief "natural_curvature" (kappa1, kappa2 in 1/m) and "natural_twist" (tau in rad/m),
    /// one item per bend-twist spring (see the file comment).
    std::vector<ActuationChannel> actuation_channels() const override;
    /// \brief The current natural curvature (physical, 1/m) or twist rate (rad/m) of spring `item`.
    double actuation(const std::string& channel, Index item, int component) const override;
    /// \brief Sets the natural curvature or twist rate of spring `item` (no allocation).
    /// \throws std::out_of_range for an unknown channel, item or component;
    /// std::domain_error for a non-finite value or a curvature turning by pi or more.
    void set_actuation(const std::string& channel, Index item, int component, double value) override;
    /// \brief Initial position of the spring's center node (node item + 1).
    Vec3 actuation_point(const std::string& channel, Index item) const override;
    /// \brief natural_curvature: {D1, D2}, the directions a positive kappa1 and kappa2 of spring
    /// k bend the rod toward, at the initial configuration (theta = 0):
    ///
    ///     D1 = 1/2 (m2_e + m2_f) x t,   D2 = t x 1/2 (m1_e + m1_f),   t = unit(t_e + t_f)
    ///
    /// From kappa1 = 1/2 (m2_e + m2_f) . kb and kappa2 = -1/2 (m1_e + m1_f) . kb
    /// (bend_twist_spring.hpp): a turn by phi toward the unit direction d (d orthogonal to t) has
    /// kb = 2 tan(phi/2) t x d, hence kappa_i = 2 tan(phi/2) d . D_i. For a straight rod
    /// D1 = m1, D2 = m2. Other channels: none.
    std::vector<Vec3> actuation_directions(const std::string& channel, Index item) const override;

    /// \brief Two frames (rod_end_frames.hpp): 0 "start", the material frame {m1, m2, t} of the first
    /// edge with node 0 as origin; 1 "end", that of the last edge with the last node as origin.
    /// t points from the first node toward the last at both ends.
    Index frame_count() const override { return 2; }
    std::string frame_name(Index frame) const override;
    Index frame_point(Index frame) const override;
    void frame_kinematics(Index frame, const EvalContext& context, FrameKinematics& out) const override;
    void add_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force, const Vec3& torque,
                                       FrameStiffness& stiffness) const override;

    // ---- Contributor ----
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return symmetric_jacobian_; }
    void commit_step(const State& end) override;
    /// The committed tangents, reference directors and reference twists.
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;
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
    /// Cross-section and material (joints take their stiffness and twist inertia from them).
    const CrossSection& section() const { return section_; }
    const RodMaterial& material() const { return material_; }
    /// Rest length |e_bar| of edge e (m).
    double rest_length(Index edge) const { return stretching_[static_cast<std::size_t>(edge)].rest_length; }
    /// Global DOFs of node i (x, y, z) and of the twist of edge e (valid after bind()).
    const std::array<Index, 3>& node_global_dofs(Index node) const { return node_dofs_[static_cast<std::size_t>(node)]; }
    Index twist_global_dof(Index edge) const { return edge_dof_[static_cast<std::size_t>(edge)]; }
    /// \brief Current reference directors a1 of every edge at the global configuration q
    /// (time-parallel transported from the committed ones), for output and tests.
    std::vector<Vec3> reference_directors(const VectorX& q) const;

protected:
    void on_bind() override;

private:
    /// Shared loop of the evaluations: energy always, gradient/Hessian into `assembly` when
    /// not null (with the Hessian when it wants one).
    double evaluate(const VectorX& q, Assembly* assembly, double c_q) const;
    /// The spring behind an actuation item; throws std::out_of_range for a bad channel/item/component.
    std::size_t actuation_spring(const std::string& channel, Index item, int component) const;
    /// The end edge of frame \p frame and what its material frame depends on at \p q.
    EdgeFrameInput end_frame_input(Index frame, const VectorX& q) const;
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
    std::optional<int> planar_axis_;

    // Rest state (built by the constructor).
    std::vector<StretchingSpring> stretching_;  ///< one per edge
    std::vector<BendTwistSpring> bend_twist_;   ///< one per interior node (node k+1 -> index k)
    std::vector<double> voronoi_length_;        ///< per node
    std::vector<double> node_mass_;             ///< per node
    std::vector<double> edge_inertia_;          ///< per edge
    std::vector<double> initial_rest_twist_;    ///< tau_bar_0 per spring: zero of "natural_twist"
    std::vector<std::array<Vec3, 2>> bend_directions_;  ///< {D1, D2} per spring (actuation_directions)

    // Committed frames (MAT-DiSMech §3.2, eq. 15).
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
