#pragma once
/// \file frame_joint.hpp
/// \brief The joints of a multibody system between frames of elements (rigid bodies, rod ends,
/// gvs links) or a frame and the world: spherical, revolute, universal, prismatic, cylindrical,
/// planar and fixed, as constraint rows solved with Lagrange multipliers.
///
/// The scene gives the joint's point `at` and `axis` in the world, in the configuration as built;
/// both joint frames (joint_rows.hpp) start there with the same axes: z along `axis`, x along
/// `second_axis` (a universal joint) or an axis perpendicular to it. So every row is zero as
/// built and each joint coordinate starts at its `initial_coordinate` (0 by default: a robot
/// built in a pose gives each joint's angle or slide there, so that it counts from its zero). The rows (d = o_1 - o_2; x_i, y_i, z_i the
/// joint frames' axes):
///
///     spherical    d = 0 (world components)
///     revolute     d = 0,  z_1.x_2 = z_1.y_2 = 0                     coordinate: the angle about z
///     universal    d = 0,  z_1.x_2 = 0 (first turns about z_1, second about x_2)
///     prismatic    x_2.d = y_2.d = 0,  z_1.x_2 = z_1.y_2 = x_1.y_2 = 0   coordinate: z_2.d
///     cylindrical  x_2.d = y_2.d = 0,  z_1.x_2 = z_1.y_2 = 0
///     planar       z_2.d = 0,  z_1.x_2 = z_1.y_2 = 0 (motion in the plane normal to z)
///     fixed        d = 0,  z_1.x_2 = z_1.y_2 = x_1.y_2 = 0
///
/// Translation rows are lengths (multiplier: a force, N); rotation rows are, for small angles,
/// the angle between two axes (multiplier: a torque, N m). Each holds near the built alignment;
/// the products also vanish with an axis turned by a half turn, which a joint never reaches
/// under load. A revolute joint's angle is atan2(x_1.y_2, x_1.x_2), the first frame turned
/// from the second about z; a prismatic joint's slide is z_2.d, the first frame's point moved
/// from the second's along the axis. With `coordinate` (an expression of t) the joint adds the
/// row "coordinate - target(t) = 0" (the angle's difference wrapped into (-pi, pi], so a motor
/// may turn without end): the joint is driven by its motion, and that row's multiplier is the
/// actuation torque or force. Compliances make the rows springs (ArtiSynth technical notes,
/// section 0.11): C + alpha lambda = 0.

#include "frame_pair.hpp"

#include "soma/constraint.hpp"
#include "soma/parameters.hpp"

#include <array>
#include <functional>
#include <optional>
#include "soma/settings_errors.hpp"

#include <string>
#include <vector>

namespace soma::joints {

enum class JointType { spherical, revolute, universal, prismatic, cylindrical, planar, fixed };

/// The scene name of a joint type ("revolute").
const char* joint_type_name(JointType type);
/// Whether the type has one coordinate a scene may prescribe or drive (revolute, prismatic).
bool has_single_coordinate(JointType type);

struct FrameJointSettings {
    JointType type = JointType::revolute;
    FrameEnd first, second;  ///< second.element empty: the world
    Vec3 at = Vec3::Zero();  ///< the joint's point, world, as built
    Vec3 axis = Vec3::UnitZ();
    std::optional<Vec3> second_axis;  ///< universal: the second element's axis (perpendicular to axis)
    double compliance = 0.0;             ///< translation rows, m/N
    double rotational_compliance = 0.0;  ///< rotation rows, rad/(N m)
    /// One per row in the type's row order (above), the prescribed coordinate's not counted;
    /// empty: compliance and rotational_compliance.
    std::vector<double> row_compliance;
    /// The coordinate (rad or m) in the configuration as built: the joint counts from it (a robot
    /// built in a pose keeps the zero of its description). Revolute and prismatic joints.
    double initial_coordinate = 0.0;
    /// The prescribed coordinate (rad or m) as a function of time, and its text for messages.
    std::function<double(double)> coordinate;
    std::string coordinate_text;
};

/// The joint's coordinate at one iterate, with what a drive needs (joint_drive.hpp). Vectors and
/// matrices over the joint's DOFs (dofs()).
struct JointCoordinate {
    double value = 0.0;  ///< rad (wrapped into (-pi, pi]) or m, counted from initial_coordinate as built
    double rate = 0.0;   ///< d value/dt (when the context has v)
    Eigen::RowVectorXd force_row;     ///< d rate / dv: a generalised force tau acts as force_row^T tau
    Eigen::RowVectorXd position_row;  ///< d value / dq (Newton coordinates)
    /// d(force_row^T tau)/dq at fixed tau (the rows' curvature), and d(rate)/dq through the
    /// joint axes' turning at fixed frame velocities.
    Eigen::MatrixXd curvature;
    Eigen::RowVectorXd rate_position_row;
};

class FrameJoint final : public Constraint {
public:
    /// \p parameters: the validated block, for located errors at bind().
    FrameJoint(FrameJointSettings settings, Parameters parameters);

    void bind(const SceneView& scene) override;
    Index row_count() const override { return static_cast<Index>(rows_.size()); }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const override;
    double compliance(Index row) const override;

    JointType type() const { return settings_.type; }
    /// Whether the scene prescribes the coordinate (`coordinate`): then nothing else can move it.
    bool has_prescribed_coordinate() const { return static_cast<bool>(settings_.coordinate); }
    /// The coordinate as built (`initial_coordinate`, rad or m).
    double initial_coordinate() const { return settings_.initial_coordinate; }
    /// The two frames, the joint frames on them (fixed at bind) and their last evaluation.
    const FramePair& frames() const { return pair_; }
    /// \brief The joint's coordinate (revolute: angle, prismatic: slide) at \p context, its rate,
    /// derivatives and the curvature of the generalised force of \p tau along it. \p out is sized
    /// by the caller to dofs() (then nothing allocates).
    void evaluate_coordinate(const EvalContext& context, double tau, JointCoordinate& out) const;

private:
    enum class RowKind { world_offset, axis_offset, axis_product, angle, slide };
    struct RowSpec {
        RowKind kind;
        int first_axis = 0;   ///< world_offset: the world axis; axis_offset: frame 2's; axis_product: frame 1's
        int second_axis = 0;  ///< axis_product: frame 2's
        bool rotational = false;
        bool prescribed = false;  ///< the coordinate row (value - target(t))
    };
    void row_at(const RowSpec& spec, JointRow& row) const;

    FrameJointSettings settings_;
    Parameters parameters_;
    FramePair pair_;
    std::vector<RowSpec> rows_;
    std::vector<Index> dofs_;
    // Per-evaluation scratch.
    mutable JointRow row_;
    mutable std::array<JointRow, 2> angle_scratch_;
    mutable RowGradient wrench_;
    mutable RowHessian hessian_;
};

/// \brief The revolute or prismatic joint named \p name among the scene's constraints, for a
/// term acting on its coordinate (\p role: "a drive acts on", "a stop bounds", ...). Refused at
/// `joint` (through \p errors): no such constraint, a joint without a single coordinate, one that
/// prescribes its coordinate, or one that moves no DOF.
const FrameJoint& coordinate_joint(const SceneView& scene, const std::string& name, const SettingsErrors& errors,
                                   const std::string& role);

/// \p coordinate's vectors and matrices sized to \p joint's DOFs (evaluate_coordinate fills them).
void size_coordinate(const FrameJoint& joint, JointCoordinate& coordinate);

}  // namespace soma::joints
