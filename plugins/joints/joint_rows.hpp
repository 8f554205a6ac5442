#pragma once
/// \file joint_rows.hpp
/// \brief The scalar constraint rows every frame joint is built from, with their exact first and
/// second derivatives with respect to the two frames' motions.
///
/// A joint couples two *joint frames*. Joint frame i rides on an element frame (origin x_i,
/// rotation R_i: frame_kinematics.hpp) at a fixed offset: its point is o_i = x_i + rho_i with the
/// world arm rho_i = R_i r_i, its axes are the columns of E_i = R_i A_i (r_i, A_i constant). A
/// motion of frame i is (dx_i, dphi_i) (world rotation vector: dR_i = [dphi_i] R_i), so that
///
///     d rho_i = dphi_i x rho_i,   d(R_i a) = dphi_i x (R_i a).
///
/// Every joint's rows are of two kinds (derived here; tests/test_joint_rows.cpp checks every
/// derivative against finite differences):
///
///  - an axis product  c = a . b  with a turning with frame 1 and b with frame 2 (a pair of joint
///    axes held perpendicular: zero when aligned as built). dc = dphi_1 . (a x b) + dphi_2 . (b x a);
///  - an offset        c = u . (o_1 - o_2)  along a world axis u or along an axis u of joint
///    frame 2 (translation rows). dc = u . (dx_1 - dx_2) + dphi_1 . (rho_1 x u) + dphi_2 . g,
///    g = u x rho_2 for a world u, u x (o_1 - x_2) for an axis of frame 2.
///
/// and a joint's angle is atan2 of two axis products. A row's *gradient* is the 12-vector
/// [dc/dx_1, dc/dphi_1, dc/dx_2, dc/dphi_2]: a multiplier lambda on the row acts on frame i as the
/// world force lambda dc/dx_i and torque lambda dc/dphi_i. Its *hessian* is the derivative of the
/// gradient along the same 12 motions (not symmetric in the rotation blocks: the gradient's
/// torques are about world axes that turn). The kernel's constraint curvature d(G_f^T lambda)/dq
/// is J^T (lambda hessian) J_q plus each frame map's geometric stiffness at lambda's wrench.

#include "soma/rotation.hpp"
#include "soma/types.hpp"

#include <array>
#include <cmath>

namespace soma::joints {

/// The two joint frames at one iterate (see the file comment).
struct JointFramePair {
    std::array<Vec3, 2> origin{Vec3::Zero(), Vec3::Zero()};  ///< x_i: the element frames' origins
    std::array<Vec3, 2> arm{Vec3::Zero(), Vec3::Zero()};     ///< rho_i = R_i r_i
    std::array<Mat3, 2> axes{Mat3::Identity(), Mat3::Identity()};  ///< E_i = R_i A_i (columns: x, y, z)
    Vec3 point(int i) const { return origin[static_cast<std::size_t>(i)] + arm[static_cast<std::size_t>(i)]; }
    Vec3 axis(int i, int k) const { return axes[static_cast<std::size_t>(i)].col(k); }
};

using RowGradient = VecN<12>;
using RowHessian = MatN<12>;

/// One row's value and derivatives, blocks in the order x_1, phi_1, x_2, phi_2.
struct JointRow {
    double value = 0.0;
    RowGradient gradient = RowGradient::Zero();
    RowHessian hessian = RowHessian::Zero();
};

/// c = a . b, a turning with frame 1, b with frame 2.
inline void axis_product_row(const Vec3& a, const Vec3& b, JointRow& row) {
    row.value = a.dot(b);
    row.gradient.setZero();
    row.hessian.setZero();
    const Vec3 axb = a.cross(b);
    row.gradient.segment<3>(3) = axb;
    row.gradient.segment<3>(9) = -axb;
    // d(a x b) = (dphi_1 x a) x b + a x (dphi_2 x b) = [b][a] dphi_1 - [a][b] dphi_2.
    const Mat3 by_phi1 = skew(b) * skew(a);
    const Mat3 by_phi2 = -skew(a) * skew(b);
    row.hessian.block<3, 3>(3, 3) = by_phi1;
    row.hessian.block<3, 3>(3, 9) = by_phi2;
    row.hessian.block<3, 3>(9, 3) = -by_phi1;
    row.hessian.block<3, 3>(9, 9) = -by_phi2;
}

/// c = u . (o_1 - o_2) along the world axis u (\p turns_with_second false) or along u, an axis of
/// joint frame 2 (true).
inline void offset_row(const JointFramePair& frames, const Vec3& u, bool turns_with_second, JointRow& row) {
    const Vec3 o1 = frames.point(0);
    const Vec3 d = o1 - frames.point(1);
    const Vec3& rho1 = frames.arm[0];
    const Vec3& rho2 = frames.arm[1];
    row.value = u.dot(d);
    row.gradient.setZero();
    row.hessian.setZero();
    row.gradient.segment<3>(0) = u;
    row.gradient.segment<3>(3) = rho1.cross(u);
    row.gradient.segment<3>(6) = -u;
    const Mat3 U = skew(u);
    // d(rho_1 x u) / dphi_1 = [u][rho_1] (rho_1 turns with frame 1).
    row.hessian.block<3, 3>(3, 3) = U * skew(rho1);
    if (!turns_with_second) {
        row.gradient.segment<3>(9) = u.cross(rho2);
        row.hessian.block<3, 3>(9, 9) = -U * skew(rho2);  // d(u x rho_2) = u x (dphi_2 x rho_2)
        return;
    }
    const Vec3 e = o1 - frames.origin[1];  // o_1 - x_2
    row.gradient.segment<3>(9) = u.cross(e);
    // u turns with frame 2: du = -[u] dphi_2.
    row.hessian.block<3, 3>(0, 9) = -U;                     // d u
    row.hessian.block<3, 3>(3, 9) = -skew(rho1) * U;        // rho_1 x du
    row.hessian.block<3, 3>(6, 9) = U;                      // d(-u)
    // d(u x e) = du x e + u x de, de = dx_1 - [rho_1] dphi_1 - dx_2.
    row.hessian.block<3, 3>(9, 0) = U;
    row.hessian.block<3, 3>(9, 3) = -U * skew(rho1);
    row.hessian.block<3, 3>(9, 6) = -U;
    row.hessian.block<3, 3>(9, 9) = skew(e) * U;
}

/// \brief The angle theta by which joint frame 1 is turned from joint frame 2 about their common
/// z axis, atan2(x_1 . y_2, x_1 . x_2) (zero as built), wrapped into (-pi, pi]; \p scratch holds
/// the two axis products.
inline void angle_row(const JointFramePair& frames, JointRow& row, std::array<JointRow, 2>& scratch) {
    JointRow& s = scratch[0];
    JointRow& c = scratch[1];
    axis_product_row(frames.axis(0, 0), frames.axis(1, 1), s);
    axis_product_row(frames.axis(0, 0), frames.axis(1, 0), c);
    const double norm2 = s.value * s.value + c.value * c.value;
    row.value = std::atan2(s.value, c.value);
    // theta = atan2(s, c): dtheta = (c ds - s dc) / (s^2 + c^2).
    const RowGradient numerator = c.value * s.gradient - s.value * c.gradient;
    row.gradient = numerator / norm2;
    row.hessian = (s.gradient * c.gradient.transpose() - c.gradient * s.gradient.transpose() + c.value * s.hessian -
                   s.value * c.hessian) / norm2 -
                  numerator * (2.0 * (s.value * s.gradient + c.value * c.gradient)).transpose() / (norm2 * norm2);
}

}  // namespace soma::joints
