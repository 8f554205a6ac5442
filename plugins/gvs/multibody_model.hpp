#pragma once
/// \file multibody_model.hpp
/// \brief A GVS multibody system as the recursive inverse dynamics sees it: a tree of
/// computational points joined by edges (Mathew et al., sections 2 and 5).
///
/// Every edge carries its child point's frame from its parent point's frame:
///  - a soft interval [X_a, X_a + h] of a Cosserat rod, a "virtual joint" whose twist Omega_a(q)
///    comes from the strain at the Zanna points (eq. C1) and which depends on all of the rod's
///    strain coordinates;
///  - a rigid joint, a fictitious rod on [0, 1] with constant strain xi = Phi q + xi*, which
///    depends on the joint's own coordinates;
///  - a fixed transform (no coordinates): a rigid link's offset, a rod's placement.
/// Points carry the screw inertia of what sits there, the quadrature weight included
/// (𝓜_k = w_k Mbar(X_k) on a rod, a rigid body's spatial inertia at its frame), in the point's own
/// frame. The model is immutable once built; GvsData holds every buffer an evaluation writes.
///
/// External loads: follower wrenches (constant in the point's frame) are an input of the data
/// (MultibodyData::external_wrench) at every point; the state-dependent loads of section 6 are
/// declared in the model, at the points that carry them (point_loads.hpp): world-frame wrenches
/// whose value is an input of the data (add_world_wrench), the sphere-in-cylinder contact
/// (add_wall_contact) and the hydrodynamics (add_hydrodynamics).
#include "column_ranges.hpp"
#include "point_loads.hpp"
#include "rod_discretization.hpp"
#include "screw_theory.hpp"
#include "virtual_joint.hpp"

#include <vector>

namespace soma::gvs {

enum class EdgeKind { soft_interval, rigid_joint, fixed_transform };

/// \brief One edge of the tree: point `parent` to the point whose index is the edge's index + 1.
struct Edge {
    EdgeKind kind = EdgeKind::fixed_transform;
    Index parent = 0;       ///< parent point (< child point: points are in topological order)
    Index first_dof = 0;    ///< the edge's coordinates are q[first_dof, first_dof + dof_count)
    Index dof_count = 0;    ///< a soft interval: its rod's DOFs; a rigid joint: its own; fixed: 0
    // Soft interval (eq. C1, C5): length and the basis and reference strain at the Zanna points
    // (second order: the midpoint in z1).
    MagnusOrder order = MagnusOrder::fourth;
    double h = 0.0;
    Matrix6X phi_z1, phi_z2;
    Vec6 xi_star_z1 = Vec6::Zero(), xi_star_z2 = Vec6::Zero();
    // Rigid joint: xi = Phi q + xi* (Phi in phi_z1, xi* in xi_star_z1).
    // Fixed transform: the child frame in the parent frame.
    Pose transform;
};

/// \brief The tree: root point 0 at a fixed pose, then one point per edge.
struct MultibodyModel {
    Index dof_count = 0;
    Pose root_pose;                 ///< point 0 in the world (fixed base)
    std::vector<Edge> edges;        ///< edge e ends at point e + 1
    std::vector<Mat6> inertia = std::vector<Mat6>(1, Mat6::Zero());  ///< 𝓜_k per point (the root's first),
                                                                     ///< weight included, in the point's frame,
                                                                     ///< plus the added mass (add_hydrodynamics)

    // State-dependent loads (Mathew et al., section 6); empty lists cost nothing.
    std::vector<Index> world_wrench_points;  ///< points with a world-frame wrench, one entry of
                                             ///< MultibodyData::world_wrench each (eq. 53)
    CylinderWall wall;                       ///< the wall the spheres of wall_contacts touch (eq. 57)
    std::vector<WallContact> wall_contacts;
    std::vector<PointHydrodynamics> hydrodynamics;  ///< at most one per point (eqs. 62-66)

    Index point_count() const { return static_cast<Index>(inertia.size()); }
    /// \brief Whether any state-dependent load is declared (else the inverse dynamics skips them).
    bool has_point_loads() const {
        return !world_wrench_points.empty() || !wall_contacts.empty() || !hydrodynamics.empty();
    }
    /// \brief Appends a point reached from \p parent through \p edge; returns its index.
    Index add_point(Edge edge, Index parent, const Mat6& point_inertia);
};

/// \brief Declares a wrench F_g given in the world frame (moment about the point, then force) at
/// \p point: it acts as F_k = blockdiag(R_k^T, R_k^T) F_g (Mathew et al., eq. 53). Its value is an
/// input, MultibodyData::world_wrench[slot] (zero by default).
/// \return the slot, the index of this entry in model.world_wrench_points.
Index add_world_wrench(MultibodyModel& model, Index point);

/// \brief Declares a sphere of radius \p sphere_radius at \p point that touches model.wall
/// (Mathew et al., section 6.2). Set model.wall first: the sphere must be smaller than the
/// cylinder, k_c >= 0 and p >= 1 (for p < 1 the force has no derivative at first touch).
void add_wall_contact(MultibodyModel& model, Index point, double sphere_radius);

/// \brief Declares the fluid's action at \p point (Mathew et al., section 6.3): the drag-lift
/// matrix 𝓓_k (eq. 62), the added mass 𝓜_A,k (added to model.inertia[point], so it enters every
/// inertial term, M included) and the density ratio rho_w / rho_b of the buoyancy.
///
/// Gravity stays with the body's mass: the weight at the point becomes
/// (1 - rho_w / rho_b) 𝓜_k Ad^{-1}_{g_k} G, the paper's a_G' = (1 - rho_w / rho_b) a_G applied to
/// this point only, and the added mass weighs nothing. Both are one extra wrench,
/// (𝓜_A,k + (rho_w / rho_b) 𝓜_k) Ad^{-1}_{g_k} G, so that the gravity argument of the inverse
/// dynamics stays the true g for the points out of the fluid. The buoyancy acts where the
/// point's weight does: at its centre of mass (a homogeneous, fully immersed body).
/// All three are in the point's frame, quadrature weight included. Call once per point, after the
/// point's inertia is final.
void add_hydrodynamics(MultibodyModel& model, Index point, const Mat6& drag, const Mat6& added_mass,
                       double density_ratio);

/// \brief As add_hydrodynamics, with the buoyancy given as the spatial inertia of the fluid the
/// point displaces (its mass rho_w V at the displaced volume's centroid, point frame): the wrench
/// (𝓜_A,k + \p displaced) Ad^{-1}_{g_k} G takes back the added mass's weight and adds the buoyancy.
/// For a point that carries several bodies (a rigid link's inertia on its parent's frame) the
/// caller sums their drag, added mass and displaced fluid.
void add_point_hydrodynamics(MultibodyModel& model, Index point, const Mat6& drag, const Mat6& added_mass,
                             const Mat6& displaced);

/// \brief Appends a soft rod whose base is point \p parent (the rod's X = 0 frame is that
/// point's frame): one soft interval per interval of \p rod, each ending at a computational point
/// with inertia w_k Mbar(X_k). The rod's strain coordinates are q[first_dof, first_dof + n).
/// \return the index of the rod's first computational point after its base (X_1); the rod's
/// points are that index and the next rod.point_count() - 2.
Index add_soft_rod(MultibodyModel& model, Index parent, const RodDiscretization& rod, Index first_dof);

/// \brief Everything one evaluation of the inverse dynamics and its derivatives writes, sized once
/// for a model (no allocation per evaluation). Per-point quantities are in the point's frame;
/// per-edge quantities in the edge's parent frame.
struct MultibodyData {
    /// \throws std::invalid_argument when the model's coordinates are not laid out as disjoint
    /// ranges (shared only by the intervals of one rod) covering [0, dof_count).
    explicit MultibodyData(const MultibodyModel& model);

    Index dof_count = 0;   ///< the model's, when this data was built (checked at every call)
    Index edge_count = 0;
    /// True after inverse_dynamics_derivatives (J_k in s_b, R^B, Q^B, Y^B filled), false after
    /// inverse_dynamics: what reads the Jacobians checks it.
    bool derivatives_valid = false;
    /// True when the last derivative pass also filled dID/dqdot, M and Y^B (DerivativeSet::all).
    bool rate_derivatives_valid = false;

    std::vector<VirtualJointKinematics> joint;  ///< per edge (fixed transforms: unused)
    std::vector<Pose> edge_transform;           ///< g_{p,c} per edge
    std::vector<Pose> pose;                     ///< g_k per point, in the world
    std::vector<Vec6> eta, eta_dot;             ///< twist and its rate at each point (eq. 2)
    std::vector<Vec6> eta_plus, eta_dot_plus;   ///< the child's twist and rate in the parent frame
    std::vector<Vec6> external_wrench;          ///< applied wrench at each point, point frame (input)
    std::vector<Vec6> world_wrench;             ///< F_g per entry of model.world_wrench_points, world
                                                ///< frame (input, eq. 53)

    // Branch-induced sparsity: the columns in which each point's 6 x n blocks can be non-zero
    // (column_ranges.hpp). Columns outside them are zero and never written.
    std::vector<Index> parent_point;             ///< per point; -1 at the root
    std::vector<ColumnRange> edge_columns;       ///< per edge, its own coordinates
    /// Per point, the coordinates of the edges from the root to the point: R^B, Q^B, S^B, Y^B.
    std::vector<ColumnRanges> path_columns;
    /// Per point, the coordinates of the edge into the point and of every edge below it: V^S, W^S
    /// (the root's: all coordinates).
    std::vector<ColumnRanges> subtree_columns;
    /// Per point, subtree_columns plus the columns of the load derivatives seeded in the point's
    /// subtree (a point load's dF_k/dq lies in its path's columns; a loop closure's in both of its
    /// points' paths): U^S. Invariant: a parent's set contains each child's.
    std::vector<ColumnRanges> load_columns;
    /// \brief Declares that a load at \p point has a derivative in the path columns of \p depends_on
    /// (the point itself for a load that moves with it): widens load_columns of the point and
    /// of its ancestors where needed. Call before seeding u_sum[point] (KinematicLoads::apply):
    /// a seed outside load_columns would be lost. Allocates nothing (capacity reserved at build).
    void include_load_columns(Index point, Index depends_on);
    ColumnRanges scratch_columns;  ///< one edge's union of column sets (backward pass)

    // Backward pass (eqs. 15, 16, 22c-e): point wrench and composites accumulated at each point.
    std::vector<Vec6> wrench;                   ///< F_k (eq. 16), external wrench subtracted
    std::vector<Vec6> wrench_sum;               ///< F_k + the F^C of the edges leaving k
    std::vector<Mat6> n_sum, m_sum;             ///< 𝓝_k (drag's 𝓓*_k included, eq. 66), 𝓜_k plus
                                                ///< the edges' composites

    // Derivative blocks (eqs. 20b, 20c, 26), per edge, 6 x the edge's DOFs.
    std::vector<Matrix6X> r, q_block, y;
    // Forward accumulations (eqs. 22a, 22b, 28a, 28b), per point, 6 x n.
    std::vector<Matrix6X> r_b, q_b, s_b, y_b;
    // Backward sums of the edges leaving each point (eqs. 22f, 22g, 28c, 33), 6 x n. u_sum holds
    // U^S + P^S: the two are transported alike and appear only as their sum (eq. 21).
    std::vector<Matrix6X> u_sum, v_sum, w_sum;
    Matrix6X u_edge, v_edge, w_edge, work;  ///< one edge's U^S + P^S, V^S, W^S

    VectorX id;                 ///< ID(q, qdot, qddot) (eq. 8)
    Eigen::MatrixXd did_dq;     ///< dID/dq (eq. 23)
    Eigen::MatrixXd did_dqdot;  ///< dID/dqdot (eq. 29)
    Eigen::MatrixXd mass;       ///< M = dID/dqddot (eq. 34)
};

}  // namespace soma::gvs
