#pragma once
/// \file edge_pair_distance.hpp
/// \brief The distance between two edges (segments) and its first two derivatives with respect
/// to their four end points, the geometry of IMC contact (MAT-DiSMech §4.1).
///
/// Edge 1 runs from x1 to x2 and edge 2 from x3 to x4; a point of each is
///
///     p(t) = x1 + t e1,  q(u) = x3 + u e2,   e1 = x2 - x1, e2 = x4 - x3,   t, u in [0, 1].
///
/// **Closest points and contact class.** Lumelsky's algorithm (MAT-DiSMech §4.1) gives the
/// closest parameters (t, u) of the two segments. A parameter clamped to an end (0 or 1) makes
/// that edge's "point" a node: the class is point-point (both at ends), point-edge (one) or
/// edge-edge (neither). Nearly parallel edges (|e1 x e2|² <= 1e-12 |e1|²|e2|²), whose
/// edge-edge optimum is ill-defined, take Lumelsky's parallel branch (t = 0) and so a point-edge
/// class.
///
/// **Smooth distance of a class.** Within a class, the parameters held at an end stay there and
/// the free ones take their unconstrained optimum, so the distance is the class's smooth
/// function of MAT-DiSMech §4.1: |x1 - x3| (point-point), the distance from a node to the other
/// edge's line (point-edge), and |(x1 - x3)·(e1 x e2)| / |e1 x e2| (edge-edge), each extended
/// past its class's region. The three agree in value and gradient where the class switches (the
/// free parameter's optimum reaches the end there), so the contact energy is C¹ across switches.
///
/// **Derivatives**, with r = p - q = Σ_k α_k x_k, α = (1-t, t, -(1-u), -u), and D = |r|²:
///
///     ∇D  = 2 αᵀ ⊗ r                                (envelope theorem: ∂D/∂s = 0 at the optimum)
///     ∇²D = 2 (α αᵀ ⊗ I) - G H⁻¹ Gᵀ                 (implicit differentiation of ∂D/∂s = 0)
///
/// with s the free parameters, H = ∂²D/∂s² (H_tt = 2|e1|², H_uu = 2|e2|², H_tu = -2 e1·e2) and
/// G = ∂²D/∂x∂s (12 x |s|): ∂²D/∂x_k∂t = 2(α_k e1 + β_k r), β = (-1, 1, 0, 0);
/// ∂²D/∂x_k∂u = -2(α_k e2 + γ_k r), γ = (0, 0, -1, 1). Then Δ = √D,
/// ∇Δ = ∇D/(2Δ), ∇²Δ = ∇²D/(2Δ) - ∇Δ ∇Δᵀ/Δ. The free parameters' own derivatives,
/// ds/dx = -H⁻¹ Gᵀ, are what friction needs (its contact points move along the edges). These are
/// closed forms; the tests compare them with central differences in every class and across the
/// switches.

#include "soma/types.hpp"

namespace soma::imc_contact {

/// How one edge's closest point sits: at its first node, its second node, or inside (free).
enum class EdgeEnd : signed char { first = 0, second = 1, free = -1 };

/// The contact class of an edge pair: where each edge's closest point sits.
struct EdgePairClass {
    EdgeEnd edge1 = EdgeEnd::free;
    EdgeEnd edge2 = EdgeEnd::free;

    /// Number of nodes among the closest points: 2 point-point, 1 point-edge, 0 edge-edge.
    int node_count() const { return (edge1 != EdgeEnd::free) + (edge2 != EdgeEnd::free); }
    bool operator==(const EdgePairClass&) const = default;
};

/// The closest points of two segments.
struct ClosestPoints {
    double t = 0.0;  ///< parameter on edge 1, in [0, 1]
    double u = 0.0;  ///< parameter on edge 2, in [0, 1]
    double distance = 0.0;
    EdgePairClass contact_class;
};

/// \brief Closest points of segments [x1, x2] and [x3, x4] by Lumelsky's algorithm
/// (MAT-DiSMech §4.1), with their contact class.
ClosestPoints closest_points(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4);

/// The class's smooth distance and its derivatives with respect to (x1, x2, x3, x4).
struct EdgePairDistance {
    double distance = 0.0;  ///< Δ (m)
    double t = 0.0;         ///< the class's parameters (a free one may leave [0, 1])
    double u = 0.0;
    Vec3 normal;            ///< n̂ = (p - q)/Δ: from edge 2's closest point to edge 1's
    VecN<12> gradient;      ///< ∇Δ
    MatN<12> hessian;       ///< ∇²Δ (only when requested)
    VecN<12> t_gradient;    ///< dt/dx (0 when t is held at an end; only when the Hessian is requested)
    VecN<12> u_gradient;    ///< du/dx (likewise)
};

/// \brief Δ of class \p contact_class at (x1, x2, x3, x4) with its gradient and, when
/// \p with_hessian, its Hessian and the parameters' gradients (file comment). Δ must be > 0: the caller skips touching axes.
void edge_pair_distance(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4, EdgePairClass contact_class,
                        bool with_hessian, EdgePairDistance& out);

}  // namespace soma::imc_contact
