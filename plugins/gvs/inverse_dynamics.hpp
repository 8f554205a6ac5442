#pragma once
/// \file inverse_dynamics.hpp
/// \brief Recursive Newton-Euler inverse dynamics of a GVS multibody tree and its analytical
/// derivatives, in one forward and one backward pass (Mathew et al., sections 4 and 5).
///
///     ID(q, qdot, qddot) = M(q) qddot - F(q, qdot)                               (eq. 8)
///
/// F holds the Coriolis, centrifugal, gravity and applied point wrenches; the rods' elastic and
/// viscous forces and the actuation (tau of eq. 35) are not part of ID. Conventions: twists and
/// wrenches angular part first; a point's wrench F_k (eq. 16) is inertial minus external, in the
/// point's frame; the gravity twist is G = [0; g] with g in the world frame. Algorithms are free
/// functions over an immutable model and a data struct that owns every buffer (no allocation).
#include "multibody_model.hpp"

namespace soma::gvs {

/// \brief Loads that depend on the kinematics of the same evaluation (a loop closure's wrench
/// depends on the poses of its two points), applied between the forward and the backward pass.
///
/// apply() runs after the forward pass (data.pose, data.eta, data.eta_dot and, with derivatives,
/// data.s_b and data.r_b are set, data.y_b with DerivativeSet::all only) and after the point wrenches. An external wrench F_ext
/// at point k is subtracted from data.wrench[k] and data.wrench_sum[k] (F_k is inertial minus
/// external, eq. 16); with derivatives, its dF_ext/dq (6 x n, point frame) is subtracted from
/// data.u_sum[k], whose recursion is (dF/dq)^C's (Mathew et al., eqs. 55, 56), after declaring
/// the columns it occupies (MultibodyData::include_load_columns: k's path, and the other point's
/// path for a load that couples two points): the backward pass reads u_sum[k] in those columns
/// only. The transport of F_ext along the tree needs nothing more. apply() must not allocate.
class KinematicLoads {
public:
    virtual ~KinematicLoads() = default;
    virtual void apply(const MultibodyModel& model, MultibodyData& data, bool derivatives) const = 0;
};

/// \brief ID(q, qdot, qddot) into data.id (section 3), with the follower wrenches in
/// data.external_wrench, the world-frame wrenches in data.world_wrench and the model's contact
/// and hydrodynamic loads (section 6). Also fills the kinematics: data.pose, data.eta, data.eta_dot.
/// \p loads, when given, adds its wrenches (KinematicLoads).
void inverse_dynamics(const MultibodyModel& model, MultibodyData& data, const VectorX& q, const VectorX& qdot,
                      const VectorX& qddot, const Vec3& gravity, const KinematicLoads* loads = nullptr);

/// Which derivatives inverse_dynamics_derivatives computes.
enum class DerivativeSet {
    all,       ///< dID/dq, dID/dqdot and M
    position,  ///< dID/dq alone: Y^B, V^S, W^S and the rows of dID/dqdot and M are skipped, and
               ///< data.did_dqdot, data.mass, data.y_b are left as they were
               ///< (data.rate_derivatives_valid false)
    /// dID/dq of the tree at rest (qdot = qddot = 0, gravity zero, else std::invalid_argument):
    /// ID is then minus the applied loads' generalised force, -sum_k J_k^T F_k, and dID/dq its
    /// stiffness (a point load's geometric stiffness, a loop closure's curvature). R^B = Q^B = 0
    /// there, so the joints are evaluated without their derivative blocks, R^B and Q^B are set to
    /// zero without products, and the inertial composites are skipped; the rest as `position`.
    static_loads,
};

/// \brief ID, dID/dq, dID/dqdot and M = dID/dqddot into data.id, data.did_dq, data.did_dqdot
/// and data.mass (eqs. 21-23, 27-29, 32-34; errata: the gravity term of eq. 20c carries a minus
/// sign). The follower wrenches (constant in the point's frame) add no derivative; the
/// world-frame wrenches (eqs. 53-56, with ad for the ad* printed in eq. 54), the wall contact
/// (eqs. 57-61) and the drag-lift, added mass and buoyancy (eqs. 62-66) add theirs. Also fills data.s_b (the points' body Jacobians J_k) and data.y_b, data.r_b
/// (dJ_k/dt qdot = (Y^B_k - R^B_k) qdot). \p loads, when given, adds its wrenches and their
/// derivatives (KinematicLoads).
void inverse_dynamics_derivatives(const MultibodyModel& model, MultibodyData& data, const VectorX& q,
                                  const VectorX& qdot, const VectorX& qddot, const Vec3& gravity,
                                  const KinematicLoads* loads = nullptr, DerivativeSet which = DerivativeSet::all);

/// \brief The forward pass alone (no loads, no backward pass) at (q, qdot, qddot) without gravity:
/// data.pose, data.eta, data.eta_dot and, with \p derivatives, the points' body Jacobians J_k
/// (data.s_b) and the derivatives of their twists d eta_k/dq (data.r_b, eqs. 20b, 22a; not Y^B). What a
/// point's world velocity and its derivatives need (GvsElement::point_kinematics); data.id and the
/// derivative matrices are left as they were, and data.derivatives_valid false.
void forward_kinematics(const MultibodyModel& model, MultibodyData& data, const VectorX& q, const VectorX& qdot,
                        const VectorX& qddot, bool derivatives);

/// \brief Applies a wrench F_g given in the world frame (moment about the point, then force) at
/// \p point, between the forward and the backward pass: F_k = blockdiag(R_k^T, R_k^T) F_g is
/// subtracted from the point's wrench (eq. 53) and, with \p derivatives, its dF_k/dq =
/// ad_{F_k} I_theta J_k (eq. 54, with ad for the printed ad*) from data.u_sum[point]. For the
/// model's world wrenches and for KinematicLoads::apply.
void subtract_world_wrench(MultibodyData& data, Index point, const Vec6& world, bool derivatives);

}  // namespace soma::gvs
