#pragma once
/// \file clamp.hpp
/// \brief A clamp (weld, fixed joint): a frame of one element held at a frame of another element
/// or of the world, in position and in rotation, so forces, bending moments and twist pass
/// through it. The frames are the elements' frame maps (frame_kinematics.hpp): a rod's end
/// material frame {m1, m2, t}, a rigid body's body frame.
///
/// With frame i at origin x_i and rotation R_i (world), and the relative rotation R_o the clamp
/// holds (R_2^T R_1 = R_o; default: its value in the initial configuration), six rows
///
///     C_x = x_1 - x_2,
///     C_r = 1/2 vee(Q - Q^T) = 1/2 sum_k b_k x a_k,   Q = R_1 R_o^T R_2^T = sum_k a_k b_k^T
///
/// (a_k the axes of R_1 R_o^T, b_k those of R_2). Q is the world rotation still separating the
/// frames: C_r = sin(phi) n for a rotation by phi about n, first order in the angle, zero exactly
/// when the frames are held. With the frames' world angular velocities omega_i (and, in the
/// Newton step's coordinates, their rotation vectors dphi_i):
///
///     dC_r = M_1 dphi_1 - M_2 dphi_2,   M_1 = 1/2 (tr Q I - Q),   M_2 = 1/2 (tr Q I - Q^T)
///
/// (from [a] Q + Q^T [a] = [(tr Q I - Q) a]). So G_f = [J_1x, -J_2x; M_1 J_1w, -M_2 J_2w], G_q the
/// same with the frames' J_q, and the multipliers lambda = (lambda_x, lambda_r) act on frame 1 as
/// the force +lambda_x and the torque tau_1 = M_1^T lambda_r, and on frame 2 as -lambda_x and
/// tau_2 = -M_2^T lambda_r (the residual holds F - G_f^T lambda). The curvature
/// d(G_f^T lambda)/dq is each frame map's geometric stiffness at (±lambda_x, tau_i) plus
/// J_iw^T dtau_i/dq, with dtau_i/dq from dQ = [dphi_1] Q - Q [dphi_2].
///
/// With compliances alpha the rows are C + alpha lambda = 0 (ArtiSynth technical notes, section
/// 0.11): a zero-length spring of stiffness 1/compliance between the origins, and a torsion
/// spring of stiffness 1/rotational_compliance between the frames for small angles (at a finite
/// angle phi its torque is sin(2 phi) / (2 rotational_compliance), from tau_1 = M_1^T lambda_r =
/// cos(phi) lambda_r along n). M_1 is singular at phi = pi/2: a clamp holds frames near alignment.

#include "frame_end.hpp"

#include "soma/constraint.hpp"
#include "soma/element.hpp"
#include "soma/parameters.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace soma::joints {

/// One end of a clamp: a frame of an element, or the world (frame_end.hpp).
using ClampEnd = FrameEnd;

struct ClampSettings {
    ClampEnd first, second;
    double compliance = 0.0;             ///< m/N
    double rotational_compliance = 0.0;  ///< rad/(N m)
    /// Per row: x, y, z of x_1 - x_2 (m/N), then the rotation rows (rad/(N m)); empty: the two above.
    std::vector<double> row_compliance;
    std::optional<Mat3> rotation_offset; ///< R_o with R_2^T R_1 = R_o held; none: the initial value
};

class Clamp final : public Constraint {
public:
    /// \p parameters: the validated block, for located errors at bind().
    Clamp(ClampSettings settings, Parameters parameters);

    void bind(const SceneView& scene) override;
    Index row_count() const override { return 6; }
    const std::vector<Index>& dofs() const override { return dofs_; }
    void evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const override;
    double compliance(Index row) const override {
        if (!settings_.row_compliance.empty()) return settings_.row_compliance[static_cast<std::size_t>(row)];
        return row < 3 ? settings_.compliance : settings_.rotational_compliance;
    }
    /// The relative rotation R_o the clamp holds (after bind()).
    const Mat3& rotation_offset() const { return offset_; }

private:
    ClampSettings settings_;
    Parameters parameters_;
    BoundFrame first_, second_;
    Mat3 offset_ = Mat3::Identity();
    std::vector<Index> dofs_;
    mutable std::array<FrameKinematics, 2> frame_data_;  ///< kept: a wide frame's storage is sized once
};

}  // namespace soma::joints
