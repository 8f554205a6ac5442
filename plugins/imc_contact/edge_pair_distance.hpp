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
/// **Derivatives** are those of every pair kind (pair_distance.hpp): the envelope theorem for the
/// gradient, implicit differentiation of the free parameters' optimality for the Hessian; the tests
/// compare them with central differences in every class and across the switches.

#include "pair_distance.hpp"

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

/// The smooth distance of an edge pair in its class (pair_distance.hpp, N = 4 nodes x1..x4):
/// α = (1 - t, t, -(1 - u), -u), so t = α_2 and u = -α_4.
using EdgePairDistance = PairDistance<4>;

/// \brief The class map of \p contact_class: α⁰ holds the parameters at their ends, the free
/// ones are directions (-1, 1, 0, 0) for t and (0, 0, 1, -1) for u.
PairClassMap<4> edge_pair_class_map(EdgePairClass contact_class);

/// \brief Δ of class \p contact_class at (x1, x2, x3, x4) with its gradient and, when
/// \p with_hessian, its Hessian and the parameters' gradients. Δ must be > 0: the caller skips touching axes.
inline void edge_pair_distance(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4,
                               EdgePairClass contact_class, bool with_hessian, EdgePairDistance& out) {
    pair_distance<4>({x1, x2, x3, x4}, edge_pair_class_map(contact_class), with_hessian, out);
}

/// A factor that fades an edge pair's contact out as the edges turn parallel, with its derivatives
/// with respect to (x1, x2, x3, x4) (IPC's edge-edge mollifier: Li et al. 2020, "Incremental
/// Potential Contact", §4.3 and eq. 23):
///
///     m(c) = -c²/ε² + 2c/ε  for c < ε,  1 otherwise,    c = |e1 x e2|²,
///
/// ε = 10⁻³ |e1|²|e2|² at rest. Near-parallel edges make the edge-edge class's distance
/// ill-conditioned (its Hessian grows like 1/sin²θ), which stalls Newton when two layers of a
/// mesh lie on each other with their edges aligned. Where both edges bound triangles, the
/// node-triangle pairs hold the distance of parallel edges (a node of one edge against a triangle
/// beside the other), so the edge pair may fade out there (contact_mesh.hpp: surface edges).
struct ParallelMollifier {
    double value = 1.0;
    VecN<12> gradient = VecN<12>::Zero();
    MatN<12> hessian = MatN<12>::Zero();
};

/// \brief m and its derivatives at (x1, x2, x3, x4) for threshold \p epsilon (file comment).
void parallel_mollifier(const Vec3& x1, const Vec3& x2, const Vec3& x3, const Vec3& x4, double epsilon,
                        ParallelMollifier& out);

/// IPC's threshold ratio: ε = kParallelMollifierRatio |e1|²|e2|² at rest.
inline constexpr double kParallelMollifierRatio = 1e-3;

}  // namespace soma::imc_contact
