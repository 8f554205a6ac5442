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

/// \brief ID(q, qdot, qddot) into data.id (section 3), with the applied wrenches in
/// data.external_wrench. Also fills the kinematics: data.pose, data.eta, data.eta_dot.
void inverse_dynamics(const MultibodyModel& model, MultibodyData& data, const VectorX& q, const VectorX& qdot,
                      const VectorX& qddot, const Vec3& gravity);

/// \brief ID, dID/dq, dID/dqdot and M = dID/dqddot into data.id, data.did_dq, data.did_dqdot
/// and data.mass (eqs. 21-23, 27-29, 32-34; errata: the gravity term of eq. 20c carries a minus
/// sign). The applied wrenches are follower wrenches (constant in the point's frame), so they add
/// no derivative. Also fills data.s_b (the points' body Jacobians J_k) and data.y_b, data.r_b
/// (dJ_k/dt qdot = (Y^B_k - R^B_k) qdot).
void inverse_dynamics_derivatives(const MultibodyModel& model, MultibodyData& data, const VectorX& q,
                                  const VectorX& qdot, const VectorX& qddot, const Vec3& gravity);

}  // namespace soma::gvs
