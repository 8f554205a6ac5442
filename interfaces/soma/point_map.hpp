#pragma once
/// \file point_map.hpp
/// \brief How forces and outputs reach an element's points, identity-mapped (rod and shell
/// nodes) or mapped (a rigid body's corners): one code path for both.
///
/// A force f(x, xdot) acting at point i of an element adds r = -f to the residual through the
/// point's map x_i(q) (point_kinematics.hpp):
///
///     F      += J^T r
///     dF/dq  += J^T (dr/dx dx/dq + dr/dxdot dxdot/dq) + d(J^T r)/dq |_r   (the last: applyDJT)
///     dF/dv  += J^T dr/dxdot J
///
/// For an identity point J = I and the extra terms vanish, so rods and shells keep their cost.

#include "soma/assembly.hpp"
#include "soma/element.hpp"
#include "soma/point_kinematics.hpp"

#include <vector>

namespace soma {

/// \brief Fills \p out with point \p point of \p element at the iterate of \p context (q, and v
/// when context.v is set).
inline void evaluate_point(const Element& element, Index point, const EvalContext& context, PointKinematics& out) {
    const Geometry& geometry = element.geometry();
    if (geometry.mapped_points) {
        element.point_kinematics(point, context, out);
        return;
    }
    const auto& d = geometry.point_dofs[static_cast<std::size_t>(point)];
    const VectorX& q = *context.q;
    out.dof_count = 3;
    out.dofs = {d[0], d[1], d[2], 0, 0, 0};
    out.position = Vec3(q[d[0]], q[d[1]], q[d[2]]);
    if (context.v) out.velocity = Vec3((*context.v)[d[0]], (*context.v)[d[1]], (*context.v)[d[2]]);
    out.jacobian.leftCols<3>().setIdentity();
    out.position_jacobian.leftCols<3>().setIdentity();
    out.velocity_jacobian.leftCols<3>().setZero();
}

/// \brief Position of point \p point of \p element in the global configuration \p q.
inline Vec3 point_position(const Element& element, Index point, const VectorX& q) {
    const Geometry& geometry = element.geometry();
    if (!geometry.mapped_points) {
        const auto& d = geometry.point_dofs[static_cast<std::size_t>(point)];
        return Vec3(q[d[0]], q[d[1]], q[d[2]]);
    }
    EvalContext context;
    context.q = &q;
    PointKinematics k;
    element.point_kinematics(point, context, k);
    return k.position;
}

/// \brief Velocity of point \p point of \p element in state (q, v).
inline Vec3 point_velocity(const Element& element, Index point, const VectorX& q, const VectorX& v) {
    EvalContext context;
    context.q = &q;
    context.v = &v;
    PointKinematics k;
    evaluate_point(element, point, context, k);
    return k.velocity;
}

/// \brief The global DOFs point \p point depends on (its stencil), read at configuration \p q.
inline std::vector<Index> point_stencil(const Element& element, Index point, const VectorX& q) {
    EvalContext context;
    context.q = &q;
    PointKinematics k;
    evaluate_point(element, point, context, k);
    const auto dofs = k.dof_span();
    return {dofs.begin(), dofs.end()};
}

/// Derivatives of a point force's residual r = -f with respect to the point's position and
/// velocity (world frame); a null pointer means zero.
struct PointForceDerivatives {
    const Mat3* d_position = nullptr;  ///< dr/dx
    const Mat3* d_velocity = nullptr;  ///< dr/dxdot
};

/// \brief The wide-point branch of add_point_residual: the same terms over k's dof_count DOFs,
/// the geometric stiffness from Element::wide_point_geometric_stiffness, in k.wide_stiffness.
inline void add_wide_point_residual(Assembly& assembly, StencilId stencil, const Element& element, Index point,
                                    const EvalContext& context, PointKinematics& k, const Vec3& r,
                                    const PointForceDerivatives& derivatives) {
    const auto J = k.jacobian_columns();
    assembly.add_residual(stencil, J.transpose().lazyProduct(r));  // lazy: no temporary
    if (!assembly.wants_jacobian()) return;
    const double c_q = context.coefficients.c_q;
    const double c_v = context.coefficients.c_v;
    element.wide_point_geometric_stiffness(point, context, r, k.wide_stiffness);
    auto jacobian = k.wide_stiffness.topLeftCorner(k.dof_count, k.dof_count);
    jacobian *= c_q;
    if (derivatives.d_position || derivatives.d_velocity) {
        // J^T (c_q dr/dx dx/dq + c_q dr/dxdot dxdot/dq + c_v dr/dxdot J), a column at a time.
        const auto position_jacobian = k.position_jacobian_columns();
        const auto velocity_jacobian = k.velocity_jacobian_columns();
        for (int c = 0; c < k.dof_count; ++c) {
            Vec3 column = Vec3::Zero();
            if (derivatives.d_position) column.noalias() += c_q * (*derivatives.d_position * position_jacobian.col(c));
            if (derivatives.d_velocity)
                column.noalias() += *derivatives.d_velocity * (c_q * velocity_jacobian.col(c) + c_v * J.col(c));
            jacobian.col(c).noalias() += J.transpose() * column;
        }
    }
    assembly.add_jacobian(stencil, jacobian, 1.0);
}

/// \brief Adds r = -f at point \p point (kinematics \p k, stencil \p stencil = k's DOFs) to F
/// and, when the assembly wants it, to J (see the file comment). Allocates nothing (a wide
/// point: nothing after its first evaluation with \p k, whose scratch it uses).
inline void add_point_residual(Assembly& assembly, StencilId stencil, const Element& element, Index point,
                               const EvalContext& context, PointKinematics& k, const Vec3& r,
                               const PointForceDerivatives& derivatives = {}) {
    if (k.is_wide()) {
        add_wide_point_residual(assembly, stencil, element, point, context, k, r, derivatives);
        return;
    }
    const double c_q = context.coefficients.c_q;
    const double c_v = context.coefficients.c_v;
    if (!element.geometry().mapped_points) {
        assembly.add_residual(stencil, r);
        if (!assembly.wants_jacobian()) return;
        Mat3 jacobian = Mat3::Zero();
        if (derivatives.d_position) jacobian += c_q * *derivatives.d_position;
        if (derivatives.d_velocity) jacobian += c_v * *derivatives.d_velocity;
        assembly.add_jacobian(stencil, jacobian, 1.0);
        return;
    }
    const int n = k.dof_count;
    const VecN<kMaxPointDofs> generalized = k.jacobian.transpose() * r;
    assembly.add_residual(stencil, generalized.head(n));
    if (!assembly.wants_jacobian()) return;
    PointStiffness jacobian = PointStiffness::Zero();
    Eigen::Matrix<double, 3, kMaxPointDofs> dr_dq = Eigen::Matrix<double, 3, kMaxPointDofs>::Zero();
    if (derivatives.d_position) dr_dq.noalias() += *derivatives.d_position * k.position_jacobian;
    if (derivatives.d_velocity) dr_dq.noalias() += *derivatives.d_velocity * k.velocity_jacobian;
    element.add_point_geometric_stiffness(point, context, r, jacobian);
    jacobian.noalias() += k.jacobian.transpose() * dr_dq;
    jacobian *= c_q;
    if (derivatives.d_velocity) jacobian.noalias() += c_v * (k.jacobian.transpose() * *derivatives.d_velocity * k.jacobian);
    assembly.add_jacobian(stencil, jacobian.topLeftCorner(n, n), 1.0);
}

}  // namespace soma
