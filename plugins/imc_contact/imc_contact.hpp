#pragma once
/// \file imc_contact.hpp
/// \brief Implicit contact between edges (IMC: MAT-DiSMech §4, eq. 21-24, after Choi et al.
/// 2021): a smooth penalty energy of the distance between every pair of nearby edges of rods,
/// rod networks and shells, self-contact included, and smoothed Coulomb friction, with their
/// exact Jacobians.
///
/// For edges i and j (rod edges, or the edges of shell triangles) with contact thicknesses
/// h_i, h_j (the mean contact radius of each edge's two nodes: a rod's cross-section radius,
/// half a shell's thickness) and Δ their distance in the pair's contact class
/// (edge_pair_distance.hpp):
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
/// **Friction** (eq. 23-24). The contact points p = x1 + t e1 and q = x3 + u e2 move with
/// v_rel = Σ_k α_k v_k (α = (1-t, t, -(1-u), -u)); with f_n = -E'(g) >= 0 and the normal
/// n̂ = (p - q)/Δ,
///
///     v_t = (I - n̂n̂ᵀ) v_rel,  w = |v_t|,   node k gets  -α_k μ f_n φ(w) v_t,  φ = γ(w)/w,
///
/// γ(w) = tanh(K2 w/2), K2 = 15/v_tol (eq. 23): the force on edge 1's contact point is
/// -μ γ f_n v̂_t, spread over its nodes by the contact point's weights, and the opposite on edge
/// 2 (the reference code's weights ‖f1s‖/f_n are these α). Its Jacobian is exact: d/dv through
/// v_t (φ P + ψ v_t v_tᵀ, smooth through v_t = 0); d/dq through f_n (E'' ∇Δ), through the
/// contact points' parameters (dt/dx, du/dx, which move both the weights and v_rel) and through
/// n̂. It is unsymmetric, and the reference code's sticking, sliding and zero-velocity regimes are
/// all this one smooth law (smooth_contact_law.hpp).
///
/// **Pairs.** Edges that share a node, or whose nodes are neighbours (joined by an edge), never
/// touch: they are excluded by the mesh's topology, not by index gaps, so rod networks and
/// shells work (MAT-DiSMech §4.4 notes the index rule assumes chains). At the start of every
/// step a broad phase (broad_phase.hpp) keeps the pairs whose distance is below h_i + h_j + the
/// candidate margin; within the step only those are evaluated. A pair that was not a candidate
/// cannot reach the band unless its edges approach by more than margin - δ, which needs a node to
/// move by half that: a solution where one did is refused (check_solution) and the step retried
/// with a smaller dt. The same bound keeps edges from passing through each other in one step.
///
/// **Sparsity.** Each candidate pair is a 12-DOF stencil. The kernel's pattern grows when a new
/// pair appears (contributor.hpp, pattern_changed) and the solver's symbolic analysis reruns
/// only when a new nonzero appears; evaluation allocates nothing.

#include "broad_phase.hpp"
#include "edge_pair_distance.hpp"

#include "soma/element.hpp"
#include "soma/force.hpp"
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
    std::optional<double> margin;        ///< candidate margin (m); empty: the largest pair thickness
    std::vector<std::string> elements;   ///< element names; empty: every element with edges or triangles
    bool self_contact = true;            ///< also pairs within one element
    double friction = 0.0;               ///< μ >= 0
    double slip_velocity = 1e-3;         ///< v_tol (m/s) > 0: K2 = 15/v_tol
};

/// MAT-DiSMech §4.4: the code's default band δ = 0.3125 r0 (K1 = 48 in scaled units).
inline constexpr double kDefaultBandRatio = 0.3125;

/// IMC contact between the edges of rods and shells (file comment).
class ImcContact final : public Force {
public:
    /// \brief Checks the settings (k > 0, δ > 0, margin > 0).
    explicit ImcContact(ImcContactSettings settings, SettingsErrors errors = SettingsErrors("imc_contact"));

    /// \brief Collects the contact edges and their topology, and finds the initial candidates.
    void bind(const SceneView& scene) override;
    /// \brief One 12-DOF stencil per candidate pair.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief Contact energy gradient and Hessian of every candidate pair inside the band.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief Σ E over the candidate pairs.
    double potential_energy(const EvalContext& context) const override;
    /// \brief Finds the candidate pairs at the step's start (broad phase).
    void begin_step(const State& start) override;
    /// \brief True when a candidate pair has no stencil yet.
    bool pattern_changed() const override { return pattern_changed_; }
    /// \brief Refuses a solution in which a contact node moved more than (margin - band)/2 from
    /// the step's start: two edges could then have closed the margin and entered the band (or
    /// passed through each other) without being a candidate pair.
    std::string check_solution(const EvalContext& context) const override;
    bool is_penalty_contact() const override { return true; }
    /// \brief False with friction (its Jacobian is unsymmetric).
    bool symmetric_jacobian() const override { return settings_.friction == 0.0; }

    /// One edge able to touch others.
    struct ContactEdge {
        std::array<Index, 2> nodes{};  ///< contact-node indices (into the force's node table)
        double thickness = 0.0;        ///< h: the mean contact radius of its two nodes (m)
        Index element = 0;             ///< index among the selected elements
    };
    /// The edges in contact (for tests and diagnostics).
    const std::vector<ContactEdge>& edges() const { return edges_; }
    /// The candidate pairs (edge indices, first < second) found at the last step start.
    const std::vector<std::pair<Index, Index>>& candidates() const { return candidates_; }
    /// The band δ in use (m).
    double band() const { return band_; }
    /// The candidate margin in use (m).
    double margin() const { return margin_; }

private:
    /// Builds the contact-node table, the edges and the node adjacency of \p elements.
    void collect_edges(const std::vector<const Element*>& elements);
    /// The candidate pairs at configuration \p q (broad phase, topology, distance).
    void find_candidates(const VectorX& q);
    /// True when edges \p a and \p b share a node or have neighbouring nodes.
    bool excluded(const ContactEdge& a, const ContactEdge& b) const;
    /// Adds pair \p stencil's friction to F and, with \p jacobian, its c_q and c_v parts.
    void add_friction(const EvalContext& context, const ContactEdge& a, const ContactEdge& b,
                      const EdgePairDistance& d, double normal_force, double normal_force_slope, Assembly& assembly,
                      StencilId stencil, MatN<12>* jacobian) const;
    Vec3 node_position(Index node, const VectorX& q) const {
        const auto& d = node_dofs_[static_cast<std::size_t>(node)];
        return Vec3(q[d[0]], q[d[1]], q[d[2]]);
    }

    ImcContactSettings settings_;
    SettingsErrors errors_;
    double band_ = 0.0;
    double sharpness_ = 0.0;  ///< K1 = 15/δ
    double friction_sharpness_ = 0.0;  ///< K2 = 15/v_tol
    double margin_ = 0.0;

    std::vector<std::array<Index, 3>> node_dofs_;   ///< global DOFs of each contact node (shared nodes once)
    std::vector<std::pair<const Element*, Index>> node_origin_;  ///< an element and point index of each node, for messages
    std::vector<Index> neighbour_begin_;            ///< node n's neighbours: neighbours_[begin[n] .. begin[n+1])
    std::vector<Index> neighbours_;                 ///< sorted per node
    std::vector<ContactEdge> edges_;

    // Per step (buffers kept between steps).
    BoxGrid grid_;
    std::vector<Box> boxes_;
    std::vector<std::pair<Index, Index>> overlapping_;
    std::vector<std::pair<Index, Index>> candidates_;
    std::vector<std::pair<Index, Index>> declared_;  ///< the pairs of the declared stencils, sorted
    std::vector<StencilId> declared_stencils_;
    std::vector<StencilId> candidate_stencils_;      ///< stencil of each candidate
    bool pattern_changed_ = false;
};

}  // namespace soma::imc_contact
