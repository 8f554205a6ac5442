#pragma once
/// \file ball_joint.hpp
/// \brief A ball (spherical) joint: a point of one element held at a point of another element
/// or at a fixed point of the world, as three constraint rows C = x_1(q) - x_2(q) = 0.
///
/// The points are any points of the elements (point_map.hpp): a rod or shell node, a rigid
/// body's origin, centre of mass or marker. So one type is a joint between two bodies, a body
/// hung from a rod's node, or a point pinned in space. With the multipliers lambda (N) the
/// joint acts on point 1 with +lambda and on point 2 with -lambda (the residual holds
/// F - G_f^T lambda, so G_f^T lambda is a generalised force on the DOFs):
///
///     G_f = [J_1, -J_2],   G_q = [dx_1/dq, -dx_2/dq],
///     d(G_f^T lambda)/dq = d(J_1^T lambda)/dq - d(J_2^T lambda)/dq   (the maps' geometric stiffness)
///
/// With a compliance alpha the rows become C + alpha lambda = 0: a zero-length spring of
/// stiffness 1/alpha between the points (ArtiSynth technical notes, section 0.11).

#include "soma/constraint.hpp"
#include "soma/element.hpp"
#include "soma/parameters.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma::joints {

/// One end of a joint as the scene names it.
struct JointEnd {
    std::string element;       ///< empty: the world
    std::optional<long> node;  ///< point index (negative counts from the end)
    std::optional<Vec3> at;    ///< or the point nearest this position (initial configuration)
    Vec3 world = Vec3::Zero(); ///< the fixed world point when element is empty
};

struct BallJointSettings {
    JointEnd first, second;
    double compliance = 0.0;  ///< m/N
    std::vector<double> row_compliance;  ///< per world axis x, y, z (m/N); empty: `compliance` on each
    /// Whether a node end's DOFs are eliminated with the rows when the joint is hard
    /// (Constraint::eliminable_columns): where it pays, always, or never.
    enum class Elimination { automatic, always, never } eliminate = Elimination::automatic;
};

class BallJoint final : public Constraint {
public:
    /// \p parameters: the validated block, for located errors at bind().
    BallJoint(BallJointSettings settings, Parameters parameters);

    void bind(const SceneView& scene) override;
    Index row_count() const override { return 3; }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const override;
    EliminableColumns eliminable_columns() const override;
    double compliance(Index row) const override {
        return settings_.row_compliance.empty() ? settings_.compliance
                                                : settings_.row_compliance[static_cast<std::size_t>(row)];
    }

private:
    /// A resolved end: an element's point (its DOFs' columns in dofs_), or a world point.
    struct End {
        const Element* element = nullptr;
        Index point = 0;
        Vec3 world = Vec3::Zero();
        std::vector<Index> columns;
    };
    End resolve(const SceneView& scene, const JointEnd& end, const std::string& key);
    Vec3 position(const End& end, const EvalContext& context) const;

    BallJointSettings settings_;
    Parameters parameters_;
    End first_, second_;
    std::vector<Index> dofs_;
    mutable PointKinematics kinematics_;  ///< kept: a wide point's storage is sized once
};

}  // namespace soma::joints
