#include "inverse_dynamics.hpp"

#include <stdexcept>
#include <string>

namespace soma::gvs {
namespace {

/// The columns [r.first, r.first + r.count) of a 6 x n block.
template <class Block>
auto columns_of(Block& block, const ColumnRange& r) {
    return block.middleCols(r.first, r.count);
}

/// The kinematics of edge e at (q, qdot, qddot): its joint data and g_{p,c}.
void evaluate_edge(const Edge& edge, VirtualJointKinematics& joint, Pose& transform, const VectorX& q,
                   const VectorX& qdot, const VectorX& qddot, JointOutputs outputs) {
    switch (edge.kind) {
    case EdgeKind::fixed_transform:
        transform = edge.transform;
        return;
    case EdgeKind::soft_interval:
        evaluate_soft_joint(edge.order, edge.h, edge.phi_z1, edge.phi_z2, edge.xi_star_z1, edge.xi_star_z2,
                            q.segment(edge.first_dof, edge.dof_count), qdot.segment(edge.first_dof, edge.dof_count),
                            qddot.segment(edge.first_dof, edge.dof_count), joint, outputs);
        break;
    case EdgeKind::rigid_joint:
        evaluate_rigid_joint(edge.phi_z1, edge.xi_star_z1, q.segment(edge.first_dof, edge.dof_count),
                             qdot.segment(edge.first_dof, edge.dof_count), qddot.segment(edge.first_dof, edge.dof_count),
                             joint, outputs);
        break;
    }
    transform = joint.g;
}

/// Forward pass: poses, twists and accelerations of every point (eq. 2 in the form of the
/// RNEA: eta^+ = eta + S qdot, etadot^+ = etadot + S qddot + ad_eta S qdot + Sdot qdot), and with
/// derivatives the blocks R, Q, Y (eqs. 20b, 20c, 26) and their accumulations (eqs. 22a, 22b,
/// 28a, 28b). \p at_rest (qdot = qddot = 0, no gravity): R = Q = 0, so the joints are evaluated
/// without their derivative blocks and only S^B is accumulated (R^B, Q^B are set to zero).
void forward_pass(const MultibodyModel& model, MultibodyData& d, const VectorX& q, const VectorX& qdot,
                  const VectorX& qddot, const Vec6& gravity_twist, bool derivatives, bool rates = true,
                  bool at_rest = false) {
    d.pose[0] = model.root_pose;
    d.eta[0].setZero();
    d.eta_dot[0].setZero();
    if (derivatives) {
        d.r_b[0].setZero();
        d.q_b[0].setZero();
        d.s_b[0].setZero();
        d.y_b[0].setZero();
    }
    for (std::size_t e = 0; e < model.edges.size(); ++e) {
        const Edge& edge = model.edges[e];
        const auto c = static_cast<std::size_t>(e + 1);
        const auto p = static_cast<std::size_t>(edge.parent);
        VirtualJointKinematics& joint = d.joint[e];
        evaluate_edge(edge, joint, d.edge_transform[e], q, qdot, qddot,
                      derivatives && !at_rest ? JointOutputs::derivatives : JointOutputs::kinematics);
        const bool moves = edge.dof_count > 0;
        d.eta_plus[e] = d.eta[p];
        d.eta_dot_plus[e] = d.eta_dot[p];
        Vec6 s_qdot = Vec6::Zero();
        if (moves) {
            const auto qd = qdot.segment(edge.first_dof, edge.dof_count);
            const auto qdd = qddot.segment(edge.first_dof, edge.dof_count);
            s_qdot.noalias() = joint.S * qd;
            d.eta_plus[e] += s_qdot;
            d.eta_dot_plus[e].noalias() += joint.S * qdd + ad(d.eta[p]) * s_qdot;
            d.eta_dot_plus[e].noalias() += joint.S_dot * qd;
        }
        d.pose[c] = compose(d.pose[p], d.edge_transform[e]);
        const Mat6 to_child = Ad_inverse(d.edge_transform[e]);
        d.eta[c].noalias() = to_child * d.eta_plus[e];
        d.eta_dot[c].noalias() = to_child * d.eta_dot_plus[e];
        if (!derivatives) continue;

        const Index first = edge.first_dof, n = edge.dof_count;
        if (moves && !at_rest) {
            const Mat6 ad_eta_plus = ad(d.eta_plus[e]);
            const Mat6 ad_eta = ad(d.eta[p]);
            // eq. 20b: R = ad_{eta^+} S + (dS/dq) qdot
            d.r[e].noalias() = ad_eta_plus * joint.S;
            d.r[e] += joint.dS_dq_qdot;
            // eq. 20c, with the gravity term's minus sign (the paper's eq. D12 prints a plus)
            const Vec6 local_gravity = Ad_inverse(d.pose[p]) * gravity_twist;
            d.q_block[e].noalias() = (ad(d.eta_dot_plus[e]) - ad(local_gravity)) * joint.S;
            d.q_block[e].noalias() += ad_eta_plus * d.r[e];
            d.q_block[e].noalias() += ad_eta * joint.dS_dq_qdot;
            d.q_block[e] += joint.dSdot_dq_qdot + joint.dS_dq_qddot;
            // eq. 26 in the form of eq. D51: Y = ad_{eta^+} S + ad_eta S + (dS/dq) qdot + Sdot
            if (rates) {
                d.y[e].noalias() = (ad_eta_plus + ad_eta) * joint.S;
                d.y[e] += joint.dS_dq_qdot + joint.S_dot;
            }
        }
        // eqs. 22a, 22b, 28a, 28b: (.)^B_c = Ad^{-1}_{g_pc} ((.)^B_p + [0 (.)_e 0]), in the
        // columns of the point's path only (the parent's block is zero outside its own path).
        // The edge's own columns lie inside one range of the path: there the parent's block and
        // the edge's are added before the one product.
        const ColumnRanges& path = d.path_columns[c];
        const auto accumulate = [&](const Matrix6X& at_parent, const Matrix6X* own, Matrix6X& at_child) {
            for (const ColumnRange& r : path) {
                if (!moves || first >= r.first + r.count || first + n <= r.first) {
                    columns_of(at_child, r).noalias() = to_child * columns_of(at_parent, r);
                    continue;
                }
                const ColumnRange before{r.first, first - r.first}, after{first + n, r.first + r.count - first - n};
                columns_of(at_child, before).noalias() = to_child * columns_of(at_parent, before);
                d.work.middleCols(first, n) = at_parent.middleCols(first, n) + *own;
                at_child.middleCols(first, n).noalias() = to_child * d.work.middleCols(first, n);
                columns_of(at_child, after).noalias() = to_child * columns_of(at_parent, after);
            }
        };
        if (at_rest) {
            for (const ColumnRange& r : path) {
                columns_of(d.r_b[c], r).setZero();
                columns_of(d.q_b[c], r).setZero();
            }
            accumulate(d.s_b[p], &joint.S, d.s_b[c]);
            continue;
        }
        accumulate(d.r_b[p], &d.r[e], d.r_b[c]);
        accumulate(d.q_b[p], &d.q_block[e], d.q_b[c]);
        accumulate(d.s_b[p], &joint.S, d.s_b[c]);
        if (rates) accumulate(d.y_b[p], &d.y[e], d.y_b[c]);
    }
}

/// The wrench of each point (eq. 16) and, with derivatives, 𝓝_k (eq. 20a), as the start of the
/// backward sums.
void point_wrenches(const MultibodyModel& model, MultibodyData& d, const Vec6& gravity_twist, bool derivatives) {
    for (Index k = 0; k < model.point_count(); ++k) {
        const auto i = static_cast<std::size_t>(k);
        const Mat6& m = model.inertia[i];
        const Vec6 momentum = m * d.eta[i];
        d.wrench[i].noalias() = m * d.eta_dot[i] + coad(d.eta[i]) * momentum;
        d.wrench[i].noalias() -= m * (Ad_inverse(d.pose[i]) * gravity_twist);
        d.wrench[i] -= d.external_wrench[i];
        d.wrench_sum[i] = d.wrench[i];
        if (!derivatives) continue;
        d.n_sum[i].noalias() = coad_bar(momentum) + coad(d.eta[i]) * m;
        d.n_sum[i].noalias() -= m * ad(d.eta[i]);
        d.m_sum[i] = m;
        for (const ColumnRange& r : d.load_columns[i]) columns_of(d.u_sum[i], r).setZero();
        for (const ColumnRange& r : d.subtree_columns[i]) {
            columns_of(d.v_sum[i], r).setZero();
            columns_of(d.w_sum[i], r).setZero();
        }
    }
}

/// The state-dependent loads of section 6 (point_loads.hpp), after point_wrenches. Each load's
/// dF_k/dq enters the backward pass through (dF/dq)^C (Mathew et al., eqs. 55, 56): its recursion
/// is U^S's (eq. 22f), so the 6 x n block seeds the point's U sum; the drag's derivative is 𝓓*_k
/// added to 𝓝_k (eq. 66), which carries it to dID/dq (with R^B) and dID/dqdot (with S^B).
/// A load rotated with the point, F_k = blockdiag(R^T, R^T) F_g, has dF_k/dq = ad_{F_k} I_theta J_k
/// (Mathew et al., eq. 54 with ad, not ad* as printed: d(R^T f) = (R^T f)~ dw), J_k = S^B_k.
void point_loads(const MultibodyModel& model, MultibodyData& d, const Vec3& gravity, bool derivatives) {
    for (std::size_t slot = 0; slot < model.world_wrench_points.size(); ++slot)
        subtract_world_wrench(d, model.world_wrench_points[slot], d.world_wrench[slot], derivatives);
    for (const WallContact& contact : model.wall_contacts) {
        const auto i = static_cast<std::size_t>(contact.point);
        const Mat3& R = d.pose[i].R;
        Mat3 dforce_dr;
        const Vec3 world = cylinder_wall_force(model.wall, contact.sphere_radius, d.pose[i].p,
                                               derivatives ? &dforce_dr : nullptr);
        if (world.isZero(0.0)) continue;  // delta <= 0 (eq. 57)
        const Vec3 local = R.transpose() * world;
        d.wrench[i].tail<3>() -= local;
        d.wrench_sum[i].tail<3>() -= local;
        if (!derivatives) continue;
        // (Mathew et al., eqs. 59, 60, D88): dF_k/dq = ad_{F_k} I_theta J_k + R^T (df/dr) R J_v
        const Mat3 stiffness = R.transpose() * dforce_dr * R;
        const Mat3 turn = skew(local);
        d.include_load_columns(contact.point, contact.point);  // a no-op unless the model gained the load since
        for (const ColumnRange& r : d.path_columns[i]) {  // J_k's columns (in load_columns: the model's loads)
            columns_of(d.u_sum[i], r).bottomRows<3>().noalias() -= turn * columns_of(d.s_b[i], r).topRows<3>();
            columns_of(d.u_sum[i], r).bottomRows<3>().noalias() -= stiffness * columns_of(d.s_b[i], r).bottomRows<3>();
        }
    }
    for (const PointHydrodynamics& fluid : model.hydrodynamics) {
        const auto i = static_cast<std::size_t>(fluid.point);
        // Added mass and buoyancy: + C_k Ad^{-1}_{g_k} G, G = [0; g] (add_hydrodynamics)
        const Vec3 local_gravity = d.pose[i].R.transpose() * gravity;
        const Vec6 correction = fluid.gravity_correction.rightCols<3>() * local_gravity;
        d.wrench[i] += correction;
        d.wrench_sum[i] += correction;
        // Drag-lift: the fluid's wrench is -F_D (eq. 62), so F_k gains +F_D
        Mat6 drag_derivative;
        const Vec6 drag = drag_wrench(fluid.drag, d.eta[i], derivatives ? &drag_derivative : nullptr);
        d.wrench[i] += drag;
        d.wrench_sum[i] += drag;
        if (!derivatives) continue;
        // d(Ad^{-1}_{g_k} G)/dq = ad_{Ad^{-1}_{g_k} G} J_k = [0; (R^T g)~ J_w]
        d.include_load_columns(fluid.point, fluid.point);  // a no-op unless the model gained the load since
        const Eigen::Matrix<double, 6, 3> rotate_gravity = fluid.gravity_correction.rightCols<3>() * skew(local_gravity);
        for (const ColumnRange& r : d.path_columns[i])
            columns_of(d.u_sum[i], r).noalias() += rotate_gravity * columns_of(d.s_b[i], r).topRows<3>();
        d.n_sum[i] += drag_derivative;  // (Mathew et al., eq. 66)
    }
}

/// Backward pass: F^C (eq. 22c) and ID (eq. 14); with derivatives the composites 𝓝^C, 𝓜^C
/// (eqs. 22d, 22e), the sums U^S + P^S, V^S, W^S (eqs. 22f, 22g, 28c, 33) and the rows of
/// dID/dq, dID/dqdot and M of each edge (eqs. 21, 27, 32; section 5, eqs. 39-42, for the tree).
/// Each 6 x n product runs over the columns where its blocks can be non-zero: the parent's path
/// for R^B, Q^B, S^B, Y^B, the child's subtree for V^S, W^S and its load columns for U^S + P^S.
/// \p at_rest (forward_pass's): R^B = Q^B = 0, so the inertial composites are skipped and dID/dq is
/// the loads' U^S, P^S and (dS^T/dq) F^C alone.
void backward_pass(const MultibodyModel& model, MultibodyData& d, bool derivatives, bool rates = true,
                   bool at_rest = false) {
    d.id.setZero();
    if (derivatives) d.did_dq.setZero();
    if (derivatives && rates) {
        d.did_dqdot.setZero();
        d.mass.setZero();
    }
    for (std::size_t e = model.edges.size(); e-- > 0;) {
        const Edge& edge = model.edges[e];
        const auto c = static_cast<std::size_t>(e + 1);
        const auto p = static_cast<std::size_t>(edge.parent);
        const VirtualJointKinematics& joint = d.joint[e];
        const Mat6 to_parent = coAd(d.edge_transform[e]);   // Ad*_{g_pc}
        const Mat6 to_child = Ad_inverse(d.edge_transform[e]);
        const Vec6 f_c = to_parent * d.wrench_sum[c];
        const Index first = edge.first_dof, n = edge.dof_count;
        if (n > 0) d.id.segment(first, n).noalias() += joint.S.transpose() * f_c;
        d.wrench_sum[p] += f_c;
        if (!derivatives) continue;

        const bool inertial = !at_rest;
        Mat6 n_c = Mat6::Zero(), m_c = Mat6::Zero();
        if (inertial) {
            n_c.noalias() = to_parent * d.n_sum[c] * to_child;
            m_c.noalias() = to_parent * d.m_sum[c] * to_child;
        }
        const ColumnRanges& path = d.path_columns[p];
        const ColumnRanges& subtree = d.subtree_columns[c];
        const ColumnRanges& loaded = d.load_columns[c];
        for (const ColumnRange& r : loaded) columns_of(d.u_edge, r).noalias() = to_parent * columns_of(d.u_sum[c], r);
        if (rates) {
            for (const ColumnRange& r : subtree) {
                columns_of(d.v_edge, r).noalias() = to_parent * columns_of(d.v_sum[c], r);
                columns_of(d.w_edge, r).noalias() = to_parent * columns_of(d.w_sum[c], r);
            }
        }
        if (n > 0) {  // the edge's own columns are in the child's subtree columns
            if (inertial) d.u_edge.middleCols(first, n).noalias() += n_c * d.r[e] + m_c * d.q_block[e];
            d.u_edge.middleCols(first, n).noalias() += coad_bar(f_c) * joint.S;  // P^S (eq. 22g)
            if (rates) {
                d.v_edge.middleCols(first, n).noalias() += n_c * joint.S + m_c * d.y[e];
                d.w_edge.middleCols(first, n).noalias() += m_c * joint.S;
            }

            // eq. 21: dID_e/dq = (dS^T/dq) F^C + S^T (𝓝^C R^B + 𝓜^C Q^B + U^S + P^S): the bracket
            // gathered in d.work over the union of the parent's path and the child's load columns,
            // then one projection by S^T.
            const auto s_t = joint.S.transpose();
            ColumnRanges& columns = d.scratch_columns;
            columns.clear();
            if (inertial) columns.add(path);
            columns.add(loaded);
            for (const ColumnRange& r : columns) columns_of(d.work, r).setZero();
            if (inertial) {
                for (const ColumnRange& r : path) {
                    columns_of(d.work, r).noalias() += n_c * columns_of(d.r_b[p], r);
                    columns_of(d.work, r).noalias() += m_c * columns_of(d.q_b[p], r);
                }
            }
            for (const ColumnRange& r : loaded) columns_of(d.work, r) += columns_of(d.u_edge, r);
            auto did_dq = d.did_dq.middleRows(first, n);
            for (const ColumnRange& r : columns) columns_of(did_dq, r).noalias() += s_t.lazyProduct(columns_of(d.work, r));
            const auto own = d.did_dq.block(first, first, n, n);
            if (edge.kind == EdgeKind::soft_interval)
                add_dST_dq_times(edge.order, edge.h, edge.phi_z1, edge.phi_z2, joint, f_c, own);
            else
                add_dST_dq_times_rigid(joint, f_c, own);

            if (rates) {
                // eq. 27: dID_e/dqdot = S^T (𝓝^C S^B + 𝓜^C Y^B + V^S) and eq. 32: dID_e/dqddot =
                // S^T (𝓜^C S^B + W^S), over the parent's path and the child's subtree.
                columns.clear();
                columns.add(path);
                columns.add(subtree);
                auto did_dqdot = d.did_dqdot.middleRows(first, n);
                for (const ColumnRange& r : columns) columns_of(d.work, r).setZero();
                for (const ColumnRange& r : path) {
                    columns_of(d.work, r).noalias() += n_c * columns_of(d.s_b[p], r);
                    columns_of(d.work, r).noalias() += m_c * columns_of(d.y_b[p], r);
                }
                for (const ColumnRange& r : subtree) columns_of(d.work, r) += columns_of(d.v_edge, r);
                for (const ColumnRange& r : columns) columns_of(did_dqdot, r).noalias() += s_t.lazyProduct(columns_of(d.work, r));
                auto mass = d.mass.middleRows(first, n);
                for (const ColumnRange& r : columns) columns_of(d.work, r).setZero();
                for (const ColumnRange& r : path) columns_of(d.work, r).noalias() += m_c * columns_of(d.s_b[p], r);
                for (const ColumnRange& r : subtree) columns_of(d.work, r) += columns_of(d.w_edge, r);
                for (const ColumnRange& r : columns) columns_of(mass, r).noalias() += s_t.lazyProduct(columns_of(d.work, r));
            }
        }
        if (inertial) {
            d.n_sum[p] += n_c;
            d.m_sum[p] += m_c;
        }
        // The parent's sets contain the child's (MultibodyData::load_columns).
        for (const ColumnRange& r : loaded) columns_of(d.u_sum[p], r) += columns_of(d.u_edge, r);
        if (!rates) continue;
        for (const ColumnRange& r : subtree) {
            columns_of(d.v_sum[p], r) += columns_of(d.v_edge, r);
            columns_of(d.w_sum[p], r) += columns_of(d.w_edge, r);
        }
    }
}

/// Refuses a data struct built for another model (or a model grown since) and wrong sizes: O(1).
void check_call(const MultibodyModel& model, const MultibodyData& data, const VectorX& q, const VectorX& qdot,
                const VectorX& qddot) {
    const Index n = model.dof_count;
    if (q.size() != n || qdot.size() != n || qddot.size() != n)
        throw std::invalid_argument("GVS inverse dynamics: q, qdot, qddot have " + std::to_string(q.size()) + ", " +
                                    std::to_string(qdot.size()) + ", " + std::to_string(qddot.size()) +
                                    " entries for a model of " + std::to_string(n) + " coordinates");
    if (data.dof_count != n || data.edge_count != static_cast<Index>(model.edges.size()) ||
        data.pose.size() != static_cast<std::size_t>(model.point_count()) ||
        data.world_wrench.size() != model.world_wrench_points.size())
        throw std::invalid_argument("GVS inverse dynamics: the data was built for another model (or the model "
                                    "gained points, coordinates or loads since): build MultibodyData again");
}

Vec6 gravity_twist_of(const Vec3& gravity) {
    Vec6 g = Vec6::Zero();
    g.tail<3>() = gravity;
    return g;
}

}  // namespace

void subtract_world_wrench(MultibodyData& d, Index point, const Vec6& world, bool derivatives) {
    const auto i = static_cast<std::size_t>(point);
    const Mat3& R = d.pose[i].R;
    Vec6 local;  // (Mathew et al., eq. 53)
    local.head<3>().noalias() = R.transpose() * world.head<3>();
    local.tail<3>().noalias() = R.transpose() * world.tail<3>();
    d.wrench[i] -= local;
    d.wrench_sum[i] -= local;
    if (!derivatives) return;
    d.include_load_columns(point, point);
    const Mat3 moment_turn = skew(local.head<3>()), force_turn = skew(local.tail<3>());
    for (const ColumnRange& r : d.path_columns[i]) {
        const auto rotation = columns_of(d.s_b[i], r).topRows<3>();
        columns_of(d.u_sum[i], r).topRows<3>().noalias() -= moment_turn * rotation;
        columns_of(d.u_sum[i], r).bottomRows<3>().noalias() -= force_turn * rotation;
    }
}

void forward_kinematics(const MultibodyModel& model, MultibodyData& data, const VectorX& q, const VectorX& qdot,
                        const VectorX& qddot, bool derivatives) {
    check_call(model, data, q, qdot, qddot);
    data.derivatives_valid = false;
    data.rate_derivatives_valid = false;
    forward_pass(model, data, q, qdot, qddot, Vec6::Zero(), derivatives, false);
}

void inverse_dynamics(const MultibodyModel& model, MultibodyData& data, const VectorX& q, const VectorX& qdot,
                      const VectorX& qddot, const Vec3& gravity, const KinematicLoads* loads) {
    check_call(model, data, q, qdot, qddot);
    data.derivatives_valid = false;
    data.rate_derivatives_valid = false;
    const Vec6 g = gravity_twist_of(gravity);
    forward_pass(model, data, q, qdot, qddot, g, false);
    point_wrenches(model, data, g, false);
    if (model.has_point_loads()) point_loads(model, data, gravity, false);
    if (loads != nullptr) loads->apply(model, data, false);
    backward_pass(model, data, false);
}

void inverse_dynamics_derivatives(const MultibodyModel& model, MultibodyData& data, const VectorX& q,
                                  const VectorX& qdot, const VectorX& qddot, const Vec3& gravity,
                                  const KinematicLoads* loads, DerivativeSet which) {
    check_call(model, data, q, qdot, qddot);
    data.derivatives_valid = false;
    data.rate_derivatives_valid = false;
    const bool rates = which == DerivativeSet::all;
    const bool at_rest = which == DerivativeSet::static_loads;
    if (at_rest && (!qdot.isZero(0.0) || !qddot.isZero(0.0) || !gravity.isZero(0.0)))
        throw std::invalid_argument("GVS inverse dynamics: DerivativeSet::static_loads needs qdot = qddot = 0 and no "
                                    "gravity (a tree at rest); use DerivativeSet::position");
    const Vec6 g = gravity_twist_of(gravity);
    forward_pass(model, data, q, qdot, qddot, g, true, rates, at_rest);
    point_wrenches(model, data, g, true);
    if (model.has_point_loads()) point_loads(model, data, gravity, true);
    if (loads != nullptr) loads->apply(model, data, true);
    backward_pass(model, data, true, rates, at_rest);
    data.derivatives_valid = true;
    data.rate_derivatives_valid = rates;
}

}  // namespace soma::gvs
