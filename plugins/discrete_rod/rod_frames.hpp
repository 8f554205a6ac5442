#pragma once
/// \file rod_frames.hpp
/// \brief Frames of a discrete elastic rod: parallel transport, signed angles, rotations,
/// space- and time-parallel reference frames, reference twist, material frames
/// (MAT-DiSMech §3.2 and eq. 15; Bergou et al. 2010).
///
/// Every edge carries an orthonormal reference frame {a1, a2, t} adapted to its tangent t, and a
/// material frame {m1, m2, t} obtained by turning the reference frame by the edge's twist angle
/// theta about t. Reference frames are carried from one time step to the next by time-parallel
/// transport; the reference twist (the twist of the reference frames from one edge to the next)
/// is updated incrementally so that it never jumps by 2 pi.

#include "soma/types.hpp"

#include <span>

namespace soma::rod {

/// \brief Parallel transport of u from the unit tangent t1 to the unit tangent t2
/// (MAT-DiSMech §3.2): the rotation about b = t1 x t2 that maps t1 to t2.
///
///     P(u) = (u.t1) t2 + (u.n1) n2 + (u.b) b,   b = unit(t1 x t2), n_i = t_i x b.
///
/// Computed in the equivalent Rodrigues form c u + b x u + (b.u) b / (1 + c), b = t1 x t2,
/// c = t1.t2 (no square root). Returns u when t1 = t2. Undefined for antiparallel tangents.
/// \param[in] u  vector to transport
/// \param[in] t1 unit tangent it is attached to
/// \param[in] t2 unit tangent to transport it to
Vec3 parallel_transport(const Vec3& u, const Vec3& t1, const Vec3& t2);

/// \brief Signed angle from u to v about the axis n (MAT-DiSMech's reference code).
///
/// For u and v orthogonal to the unit vector n this is the reference code's
/// `atan2(|u x v|, u.v) sign(n.(u x v))`; it is computed as `atan2(n.(u x v), u.v)`, which is
/// the same number there and smooth when u x v vanishes. Result in (-pi, pi].
double signed_angle(const Vec3& u, const Vec3& v, const Vec3& n);

/// \brief Rotation of v about the unit axis z by the angle phi (Rodrigues' formula):
/// `cos(phi) v + sin(phi) z x v + (z.v)(1 - cos(phi)) z`.
Vec3 rotate_about_axis(const Vec3& v, const Vec3& z, double phi);

/// \brief The default first director of a rod whose first edge has the unit tangent t0
/// (MAT-DiSMech §3.2): unit(t0 x (0,1,0)), or unit(t0 x (0,0,-1)) when t0 is within 1e-6 of
/// the y axis. For a rod along +x it is +z; along +y, -x; along +z, -x.
Vec3 default_first_director(const Vec3& t0);

/// \brief Space-parallel reference frames at t = 0 (MAT-DiSMech §3.2).
///
/// a1 of the first edge is `first` (projected orthogonal to t_0 and normalised), by default
/// default_first_director(t_0); each following a1 is the previous one parallel-transported to the
/// next tangent.
/// \param[in]  tangents unit tangents of the edges, in order along the rod
/// \param[out] a1       first reference director of each edge (same size); a2 = t x a1
/// \param[in]  first    a1 of the first edge; must not be parallel to t_0
void space_parallel_frames(std::span<const Vec3> tangents, std::span<Vec3> a1);
void space_parallel_frames(std::span<const Vec3> tangents, std::span<Vec3> a1, const Vec3& first);

/// \brief Time-parallel transport of a reference director (MAT-DiSMech §3.2): a1 committed at the
/// start of the step with tangent t_old, carried to the current tangent t_new, then projected
/// orthogonal to t_new and normalised (to remove round-off drift).
Vec3 time_parallel_transport(const Vec3& a1_old, const Vec3& t_old, const Vec3& t_new);

/// \brief Incremental reference twist between edge e and the next edge f (MAT-DiSMech eq. 15).
///
///     u = Rot(t_f, previous) P_{t_e -> t_f}(a1_e),   twist = previous + angle(u, a1_f; t_f)
///
/// `previous` is the committed reference twist; the result differs from it by less than pi, so
/// the twist is continuous in time (it never jumps by 2 pi).
/// \param[in] a1_e, t_e  current reference director and tangent of the incoming edge
/// \param[in] a1_f, t_f  current reference director and tangent of the outgoing edge
/// \param[in] previous   the committed reference twist of this pair of edges (rad)
/// \return the reference twist (rad)
double reference_twist(const Vec3& a1_e, const Vec3& t_e, const Vec3& a1_f, const Vec3& t_f,
                       double previous);

/// \brief Material frame (MAT-DiSMech §3.2): the reference frame turned by theta about t.
///
///     m1 = cos(theta) a1 + sin(theta) a2,   m2 = -sin(theta) a1 + cos(theta) a2
void material_frame(const Vec3& a1, const Vec3& a2, double theta, Vec3& m1, Vec3& m2);

}  // namespace soma::rod
