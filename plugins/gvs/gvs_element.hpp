#pragma once
/// \file gvs_element.hpp
/// \brief A hybrid soft-rigid robot as one element: soft links as Geometric Variable Strain
/// Cosserat rods and rigid links on rigid joints, in a tree (Mathew et al., sections 2-6).
///
/// Its DOFs are the generalised coordinates q: the joints' coordinates and the rods' strain
/// coordinates (link_tree.hpp), a vector space. The residual is the paper's equation of motion
/// (eq. 35) with the actuation on the left,
///
///     F(q, qdot, qddot) = ID(q, qdot, qddot) + K q + D qdot - B(q) u
///
/// where ID = M qddot - F(q, qdot) is the recursive inverse dynamics with gravity and the
/// wall contact (eqs. 8, 57), K and D the rods' generalised stiffness and damping (D64, D65) and B u
/// the cables' and the joints' generalised forces (D60, D66). Its Jacobian is exact, from one
/// forward and one backward pass (eqs. 23, 29, 34, 36):
///
///     J = c_q (dID/dq + K - (dB/dq) u) + c_v (dID/dqdot + D) + c_a M,
///
/// non-zero where one coordinate's edge is on the other's path from the root: one stencil per
/// root-to-leaf path (sibling branches leave zero blocks), each entry formed directly.
/// Statics (v = a = 0) solves ID(q, 0, 0) + K q - B u = 0 (eq. 13).
///
/// Loads scale with the statics load factor: gravity, the cable tensions, the joint forces and the
/// world wrenches. In a fluid (section 6.3) each immersed point also carries drag-lift, added mass
/// and buoyancy; the kinetic energy then includes the added mass's.
/// The points (the root, every joint frame and rod point) are mapped points: outputs read them,
/// and the kernel's point forces (point loads, floor contact, viscous drag) and ball joints act
/// on them through point_kinematics; clamps hold its frames (the base, each link's frame and end
/// frame) through frame_kinematics. A point depends on every coordinate from the base to it, so
/// it is a wide point (point_kinematics.hpp) over all the element's DOFs; the geometric stiffness
/// of a force f at point k, d(J_k^T f)/dq, is -dID/dq of the tree at rest carrying f alone (one
/// derivative pass per point and Jacobian). Gravity stays the element's own key
/// (Geometry::weight_at_points is false: a rigid link's centre of mass lies off its frame point).

#include "field_expression.hpp"
#include "link_tree.hpp"

#include "soma/element.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace soma::gvs {

/// \brief A wrench given in the world frame at a link's frame or end frame, a function of time
/// (Mathew et al., section 6.1, eq. 53): the parallel robot's load on its platform.
struct WorldWrenchLoad {
    Index link = 0;
    bool at_end = true;                          ///< the link's end frame (else its frame)
    std::array<TimeFunction, 6> wrench;          ///< moment (N m), then force (N), world axes
};

struct GvsElementDescription {
    RobotDescription robot;
    Vec3 gravity = Vec3::Zero();          ///< m/s^2, world
    VectorX initial_tension;              ///< one per cable (N, >= 0), links in order; empty: 0
    std::optional<CylinderWall> wall;     ///< Hertz contact with a cylinder about the world z axis (section 6.2)
    std::vector<Index> wall_links;        ///< the soft links whose points touch it (spheres of the section's radius)
    std::vector<WorldWrenchLoad> wrenches;
    double fluid_density = 0.0;           ///< rho_w (kg/m^3) for the links that declare a fluid (section 6.3)
};

class GvsElement final : public Element {
public:
    /// \throws std::invalid_argument "link 'name': ..." for what the tree refuses (link_tree.hpp), or
    ///   for tensions of the wrong number, negative or not finite, or a wall link that is not soft.
    explicit GvsElement(GvsElementDescription description);

    Index dof_count() const override { return tree_.model.dof_count; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return false; }

    void point_kinematics(Index point, const EvalContext& context, PointKinematics& out) const override;
    void add_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                       PointStiffness& stiffness) const override;
    void wide_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                        Eigen::MatrixXd& stiffness) const override;
    /// Frames: `base`, then per link `<link>` (its frame after the joint) and `<link>.end`.
    Index frame_count() const override;
    std::string frame_name(Index frame) const override;
    Index frame_point(Index frame) const override;
    void frame_kinematics(Index frame, const EvalContext& context, FrameKinematics& out) const override;
    void add_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force, const Vec3& torque,
                                       FrameStiffness& stiffness) const override;
    void wide_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force, const Vec3& torque,
                                        Eigen::MatrixXd& stiffness) const override;
    void point_states(const VectorX& q, const VectorX& v, std::span<Vec3> positions,
                      std::span<Vec3> velocities) const override;
    void point_state(Index point, const VectorX& q, const VectorX& v, Vec3& x, Vec3& xdot) const override;

    std::vector<ActuationChannel> actuation_channels() const override;
    double actuation(const std::string& channel, Index item, int component) const override;
    void set_actuation(const std::string& channel, Index item, int component, double value) override;
    Vec3 actuation_point(const std::string& channel, Index item) const override;

    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// Refuses a solution where a spherical or free joint's rotation vector reached 2 pi, where
    /// exponential coordinates are singular (the step is then retried smaller, then the run stops).
    std::string check_solution(const EvalContext& context) const override;

    const LinkTree& tree() const { return tree_; }
    const GvsElementDescription& description() const { return description_; }
    /// Number of cables over all links.
    Index cable_count() const { return static_cast<Index>(tension_.size()); }

protected:
    void on_bind() override;

private:
    /// Copies the element's coordinates (and rates) out of the global vectors; null: zero.
    void gather(const EvalContext& context);
    /// Fills output_data_'s kinematics at (q, v) (global vectors).
    void output_kinematics(const VectorX& q, const VectorX* v) const;
    void check_channel(const std::string& channel, Index item, int component) const;
    /// Copies the element's coordinates out of global \p q into \p local.
    void gather_coordinates(const VectorX& q, VectorX& local) const;
    /// d(J_k^T [tau; f])/dq of point \p point for a world torque and force at the iterate of \p context.
    void point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& torque, const Vec3& force,
                                   Eigen::MatrixXd& stiffness) const;
    struct PointMap;
    /// The point map's forward pass at the iterate of \p context (run again only when q or v changed).
    PointMap& point_map_at(const EvalContext& context) const;

    GvsElementDescription description_;
    LinkTree tree_;
    MultibodyData data_;                  // the Newton iterations'
    mutable MultibodyData output_data_;   // energies and outputs (const queries)
    Geometry geometry_;
    std::vector<std::string> dof_names_;
    std::vector<Vec3> initial_points_;    // point positions at q0, for actuation points
    std::vector<double> buoyant_mass_;    // per point: the displaced fluid's mass (kg), for the potential energy
    std::vector<Vec3> buoyant_moment_;    // per point: its mass times its centroid (kg m, point frame)

    // Actuation: cables of link l are tension_[cable_first_[l], + cable count); joint forces at
    // their coordinates in joint_force_ (zero elsewhere).
    VectorX tension_;
    std::vector<Index> cable_first_;
    std::vector<Index> cable_link_;
    std::vector<Index> joint_coordinates_;  // local DOFs of the joints' coordinates, in order
    VectorX joint_force_;
    std::vector<std::optional<JointActuation>> joint_actuation_;  // per link
    std::vector<Index> wrench_slots_;  // per description_.wrenches: its entry of MultibodyData::world_wrench

    // Buffers (sized once).
    VectorX q_, v_, a_, residual_, actuation_force_, scaled_;
    VectorX force_scale_, term_;  // the rows' force scales and one term of the residual
    Eigen::MatrixXd actuation_jacobian_;
    mutable VectorX output_q_, output_v_, output_zero_;

    // The kernel's point map (point_kinematics): one forward pass per iterate, reused for every
    // point while (q, v) stay the same; and the load-free tree whose dID/dq under a point force is
    // that force's geometric stiffness. Built on the first query (at bind, by a force's stencil).
    struct PointMap {
        explicit PointMap(const MultibodyModel& tree);
        MultibodyModel bare;            // the tree without its state-dependent loads
        MultibodyData kinematics, stiffness;
        VectorX q, v, scratch_q, scratch_v;
        Eigen::MatrixXd narrow_stiffness;  // add_point_geometric_stiffness (<= kMaxPointDofs coordinates)
        bool valid = false;
    };
    mutable std::optional<PointMap> point_map_;

    // The Jacobian's sparsity: two coordinates couple only when one's edge is on the other's path
    // from the root (branch-induced sparsity, column_ranges.hpp), so the element declares one
    // stencil per root-to-leaf path. Each Jacobian entry and residual row is added through the
    // first stencil that holds it (the others add zero there).
    struct PathStencil {
        StencilId id = 0;
        std::vector<Index> dofs;                       // local coordinates, ascending
        std::vector<std::pair<Index, Index>> entries;  // (row, column) in the stencil that this one adds
        std::vector<Index> rows;                       // residual rows (in the stencil) this one adds
        Eigen::MatrixXd jacobian;                      // the stencil's block: its entries, zero elsewhere
        VectorX residual;
        VectorX force_scale;  // the residual rows' force scales (Assembly::residual_scale)
    };
    std::vector<PathStencil> stencils_;
};

}  // namespace soma::gvs
