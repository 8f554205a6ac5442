#pragma once
/// \file imc_contact.hpp
/// \brief Implicit contact (IMC: MAT-DiSMech §4, eq. 21-24, after Choi et al. 2021): a smooth
/// penalty energy of the distance between every pair of nearby contact primitives of rods, rod
/// networks, shells and rigid bodies' shapes, self-contact included, and smoothed Coulomb
/// friction, with their exact Jacobians.
///
/// **Pairs of primitives** (contact_mesh.hpp): edge-edge (the paper's), node-triangle (beyond
/// the paper: shells touch shells, rods touch the inside of triangles; with edge-edge it gives
/// the distance between triangle meshes), and node-edge and node-node for isolated nodes (a rigid
/// sphere's centre). For a pair with contact thicknesses h_i, h_j (a rod's cross-section radius,
/// half a shell's thickness, a sphere's radius, 0 for a rigid mesh) and Δ their distance in the
/// pair's contact class (pair_distance.hpp, edge_pair_distance.hpp, point_primitive_distance.hpp):
///
///     gap  g = Δ - (h_i + h_j)
///     E    = k s(g)²,   s(g) = (1/K1) log(1 + e^{-K1 g}),   K1 = 15/δ        (eq. 21)
///     F   += E'(g) ∇Δ,   J += c_q (E''(g) ∇Δ ∇Δᵀ + E'(g) ∇²Δ)                  (eq. 22)
///
/// The paper writes E piecewise, (2r0 - Δ)² below the band and 0 above it, with the softplus
/// square inside; that square differs from the pieces by about e^{-15} of their value at the
/// band's edges, so one smooth formula is used throughout (smooth_contact_law.hpp, shared with
/// floor contact). The paper evaluates E in coordinates scaled by the rod radius r0, with an
/// energy-valued stiffness k_c: this k (N/m) is k_c / r0². As in the reference code a pair is
/// skipped for g >= δ, where E'(g) < 3e-13 of its value at g = 0.
///
/// An edge pair of two triangle edges is multiplied by a mollifier that fades it out as the
/// edges turn parallel (edge_pair_distance.hpp: IPC's, Li et al. 2020 §4.3), where its distance
/// is ill-conditioned and node-triangle pairs hold the layers apart.
///
/// **Friction** (eq. 23-24) acts at the contact points of every pair (pair_friction.hpp).
///
/// **Which pairs.** Primitives that share a node, or whose nodes are neighbours (joined by an
/// edge), never touch: they are excluded by the mesh's topology, not by index gaps, so rod
/// networks and shells work (MAT-DiSMech §4.4 notes the index rule assumes chains). A rigid body
/// never touches itself. `pairs` restricts contact to chosen pairs of elements. At the start of
/// every step a broad phase (box_tree.hpp) keeps the pairs whose distance is below
/// h_i + h_j + the candidate margin; within the step only those are evaluated. A pair's distance
/// falls within a step by at most u_i + u_j, its primitives' largest node motions. While no node
/// moves more than (margin - δ)/2 no other pair can reach the band; beyond that, a solution in
/// which a pair that was not a candidate may have entered the band, or a candidate pair's cores
/// may have met (passed through each other), is refused (check_solution) and the step retried
/// with a smaller dt.
///
/// **Rigid bodies** take part through their mapped points (point_map.hpp): a pair's residual
/// and Jacobian, computed in world coordinates over its nodes, reach the body's DOFs through
/// each point's Jacobians and the map's geometric stiffness.
///
/// **Sparsity.** Each candidate pair is one stencil (the union of its nodes' DOFs, at most 15).
/// The kernel's pattern grows when a new pair appears (contributor.hpp, pattern_changed) and the
/// solver's symbolic analysis reruns only when a new nonzero appears; evaluation allocates nothing.

#include "box_tree.hpp"
#include "contact_mesh.hpp"
#include "edge_pair_distance.hpp"
#include "pair_friction.hpp"

#include "soma/force.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/settings_errors.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace soma::imc_contact {

/// The settings of an `imc_contact` force.
struct ImcContactSettings {
    double stiffness = 0.0;              ///< k (N/m); required
    std::optional<double> band;          ///< δ (m); empty: kDefaultBandRatio x the smallest contact thickness
    std::optional<double> margin;        ///< candidate margin (m); empty: 2 max(largest thickness, band)
    std::vector<std::string> elements;   ///< element names; empty: every element with a surface
    bool self_contact = true;            ///< also pairs within one element (without `pairs`)
    double friction = 0.0;               ///< μ >= 0
    double slip_velocity = 1e-3;         ///< v_tol (m/s) > 0: K2 = 15/v_tol
    /// element pairs in contact (a pair of one name twice: that element's self-contact); empty:
    /// every pair of the selected elements, and self-contact by `self_contact`
    std::vector<std::pair<std::string, std::string>> pairs;
};

/// MAT-DiSMech §4.4: the code's default band δ = 0.3125 r0 (K1 = 48 in scaled units).
inline constexpr double kDefaultBandRatio = 0.3125;

/// The kinds of primitive pairs (file comment).
enum class PairKind : unsigned char { edge_edge, node_triangle, node_edge, node_node };

/// A candidate pair: edge-edge (edge, edge), node-triangle (node, triangle), node-edge (isolated
/// node, edge), node-node (isolated node, isolated node); indices into the contact mesh.
struct ContactPair {
    PairKind kind = PairKind::edge_edge;
    Index first = 0;
    Index second = 0;
    auto operator<=>(const ContactPair&) const = default;
};

/// Most DOFs one pair's stencil spans: a rigid body's node (6) against a shell triangle (9).
inline constexpr int kMaxPairDofs = 15;

/// IMC contact between rods, shells and rigid shapes (file comment).
class ImcContact final : public Force {
public:
    /// \brief Checks the settings (k > 0, δ > 0, margin > 0).
    explicit ImcContact(ImcContactSettings settings, SettingsErrors errors = SettingsErrors("imc_contact"));

    /// \brief Collects the contact primitives and their topology, and finds the initial candidates.
    void bind(const SceneView& scene) override;
    /// \brief One stencil per candidate pair.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief One stencil per candidate pair not yet declared; pairs that separated stay
    /// declared. False (declare everything again) when those exceed a quarter of the candidates
    /// and 16.
    bool declare_added_stencils(PatternBuilder& pattern) override;
    /// \brief Contact energy gradient and Hessian (and friction) of every candidate pair inside the band.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief Σ E over the candidate pairs.
    double potential_energy(const EvalContext& context) const override;
    /// \brief Finds the candidate pairs at the step's start (broad phase).
    void begin_step(const State& start) override;
    /// \brief True when a candidate pair has no stencil yet.
    bool pattern_changed() const override { return pattern_changed_; }
    /// \brief Refuses a solution in which two primitives may have met unseen, once some node moved
    /// more than (margin - band)/2 (below that no pair that was not a candidate can reach the band):
    /// a candidate pair whose motions u_i + u_j reach its distance at the step's start (passed
    /// through each other), or a pair that was not a candidate whose gap at the start less
    /// u_i + u_j is below the band.
    std::string check_solution(const EvalContext& context) const override;
    bool is_penalty_contact() const override { return true; }
    /// \brief candidate_pairs, active_pairs (gap < band), normal_force (Σ f_n, N) and deepest_gap
    /// (the smallest gap among the candidates, m; NaN without candidates).
    std::vector<TermStatistic> statistics() const override;
    double statistic(std::size_t index, const EvalContext& context) const override;
    /// \brief False with friction or rigid bodies (their Jacobians are unsymmetric).
    bool symmetric_jacobian() const override { return settings_.friction == 0.0 && !has_mapped_nodes_; }

    /// The contact primitives (for tests and diagnostics).
    const ContactMesh& mesh() const { return mesh_; }
    /// The candidate pairs found at the last step start, sorted.
    const std::vector<ContactPair>& candidates() const { return candidates_; }
    /// The band δ in use (m).
    double band() const { return band_; }
    /// The candidate margin in use (m).
    double margin() const { return margin_; }

private:
    /// Notes the pairs that overlap (gap < 0) or push (gap < band) in the initial configuration, with the closest.
    void report_initial_overlaps(const SceneView& scene) const;
    /// The elements in contact, and which pairs of them may touch (allowed_).
    std::vector<const Element*> select_contact_elements(const SceneView& scene);
    /// The broad phase's trees and boxes (FCL refits its trees when the boxes move).
    struct BroadPhase {
        BoxTree edge_tree, triangle_tree, node_tree, isolated_tree;
        std::vector<Box> edge_boxes, triangle_boxes, node_boxes;
        std::vector<std::pair<Index, Index>> overlapping;
    };
    /// Every pair of primitives whose boxes at \p positions overlap, each box grown by the
    /// primitive's thickness + the largest \p reach of its nodes: edge-edge, node-triangle, and the
    /// isolated nodes' node-edge and node-node, each kind's pairs sorted and the kinds in
    /// PairKind's order; topology and distance are the caller's to test.
    void overlapping_primitives(const std::vector<Vec3>& positions, const std::vector<double>& reach, BroadPhase& work,
                                std::vector<ContactPair>& out) const;
    /// The pair's distance (its primitives' closest points, rigid flat seams included) at \p positions.
    double start_distance(const ContactPair& pair, const std::vector<Vec3>& positions) const;
    /// The candidate pairs at configuration \p q (broad phase, topology, distance).
    void find_candidates(const VectorX& q);
    /// True when the pair's primitives may touch (elements allowed, not adjacent).
    bool may_touch(const ContactPair& pair) const;
    /// The pair's nodes (first the first primitive's) and their count.
    int pair_nodes(const ContactPair& pair, std::array<Index, 4>& nodes) const;
    /// The pair's summed contact thickness.
    double pair_thickness(const ContactPair& pair) const;
    /// The stencil's DOFs of a pair, and where each node's DOFs sit in it.
    struct StencilLayout {
        int size = 0;
        std::array<Index, kMaxPairDofs> dofs{};
        std::array<std::array<int, kMaxPointDofs>, 4> slot{};
    };
    StencilLayout stencil_layout(const std::array<Index, 4>& nodes, int count) const;
    StencilId declare_pair(PatternBuilder& pattern, const ContactPair& pair) const;
    /// True when the declared pairs that are no longer candidates should be dropped.
    bool declared_list_too_long() const;
    /// Position (and velocity) of node \p n at the current evaluation.
    Vec3 node_position(Index n, const VectorX& q) const;
    Vec3 node_velocity(Index n, const VectorX& v) const;
    /// Evaluates one pair in class \p map and adds its residual and Jacobian.
    template <int N>
    void add_pair(const EvalContext& context, const std::array<Index, 4>& nodes, const PairClassMap<N>& map,
                  double thickness, StencilId stencil, Assembly& assembly, const ParallelMollifier* mollifier) const;
    /// The parallel mollifier of edge pair \p pair at \p x; false when it does not apply (not
    /// both surface edges) or is 1 (edge_pair_distance.hpp).
    bool parallel_mollifier_of(const ContactPair& pair, const std::array<Vec3, 4>& x, ParallelMollifier& out) const;
    /// Calls visit(pair, x, gap) for each candidate whose class applies at \p q (x: its nodes'
    /// positions; gap: its distance less the thicknesses): the loop of the energy, the statistics
    /// and the bind note.
    template <class Visit>
    void for_each_candidate_gap(const VectorX& q, Visit&& visit) const;
    /// The parallel mollifier's factor of \p pair at \p x (1 where it does not apply).
    double mollifier_factor(const ContactPair& pair, const std::array<Vec3, 4>& x) const;
    /// Adds a pair's world-frame residual and derivatives through its nodes' maps.
    template <int N>
    void scatter(const EvalContext& context, const std::array<Index, 4>& nodes, const PairResidual<N>& residual,
                 bool with_velocity_derivative, StencilId stencil, Assembly& assembly) const;
    /// The pair's current contact class and distance; false when it is outside the band (or its
    /// closest feature is a rigid surface's flat seam, left to the neighbouring face).
    struct PairClass {
        int node_count = 0;
        double distance = 0.0;
        PairClassMap<4> map4;
        PairClassMap<3> map3;
        PairClassMap<2> map2;
    };
    bool classify(const ContactPair& pair, const std::array<Vec3, 4>& positions, PairClass& out) const;

    ImcContactSettings settings_;
    SettingsErrors errors_;
    double band_ = 0.0;
    double sharpness_ = 0.0;  ///< K1 = 15/δ
    FrictionLaw friction_;
    double margin_ = 0.0;

    ContactMesh mesh_;
    std::vector<char> allowed_;   ///< element pair (i, j) may touch: allowed_[i * count + j]
    Index element_count_ = 0;
    std::vector<Index> all_nodes_;    ///< 0, 1, ..., the nodes (those boxed against the triangles)
    bool has_mapped_nodes_ = false;

    // Per step (buffers kept between steps).
    BroadPhase broad_phase_;
    std::vector<double> candidate_reach_;  ///< margin/2 per node: the candidates' box grow
    std::vector<ContactPair> box_pairs_;   ///< the broad phase's pairs, before topology and distance
    std::vector<Vec3> positions_;          ///< node positions at the step's start
    std::vector<ContactPair> candidates_;
    std::vector<double> candidate_distances_;  ///< each candidate's distance at the step's start
    std::vector<ContactPair> declared_;  ///< the pairs of the declared stencils, sorted
    std::vector<StencilId> declared_stencils_;
    std::vector<StencilId> candidate_stencils_;  ///< stencil of each candidate
    bool pattern_changed_ = false;
    /// Mapped nodes' kinematics at the current evaluation (index: node; identity nodes unused).
    mutable std::vector<PointKinematics> kinematics_;
    ParallelMollifier mollifier_;  ///< scratch of the evaluation loop
};

}  // namespace soma::imc_contact
