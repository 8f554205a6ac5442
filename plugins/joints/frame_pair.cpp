#include "frame_pair.hpp"

namespace soma::joints {

void FramePair::place(const VectorX& q, const Vec3& at, const Mat3& axes) {
    EvalContext context;
    context.q = &q;
    for (std::size_t i = 0; i < 2; ++i) {
        FrameKinematics k;
        end_kinematics(ends[i], context, k);
        local_arm[i] = k.rotation.transpose() * (at - k.origin);
        local_axes[i] = k.rotation.transpose() * axes;
    }
}

void FramePair::evaluate(const EvalContext& context) const {
    for (std::size_t i = 0; i < 2; ++i) {
        FrameKinematics& k = kinematics[i];
        end_kinematics(ends[i], context, k);
        frames.origin[i] = k.origin;
        frames.arm[i] = k.rotation * local_arm[i];
        frames.axes[i] = k.rotation * local_axes[i];
    }
}

RowGradient FramePair::velocities() const {
    RowGradient xi;
    for (std::size_t i = 0; i < 2; ++i) {
        xi.segment<3>(6 * static_cast<Index>(i)) = kinematics[i].velocity;
        xi.segment<3>(6 * static_cast<Index>(i) + 3) = kinematics[i].angular_velocity;
    }
    return xi;
}

void FramePair::add_curvature(const EvalContext& context, const RowGradient& wrench, const RowHessian& hessian,
                              Eigen::MatrixXd& curvature) const {
    for (std::size_t i = 0; i < 2; ++i) {
        const auto n = static_cast<Index>(6 * i);
        add_end_geometric_stiffness(ends[i], context, kinematics[i], wrench.segment<3>(n), wrench.segment<3>(n + 3),
                                    curvature);
    }
    // J_i^T H_ij J_q,j: the gradient's change as the frames move.
    for (std::size_t i = 0; i < 2; ++i) {
        if (!ends[i].element) continue;
        const auto J = kinematics[i].jacobian_columns();
        for (std::size_t j = 0; j < 2; ++j) {
            if (!ends[j].element) continue;
            const auto block = hessian.block<6, 6>(6 * static_cast<Index>(i), 6 * static_cast<Index>(j));
            const auto J_q = kinematics[j].position_jacobian_columns();
            for (int c = 0; c < kinematics[j].dof_count; ++c) {
                const VecN<6> change = block * J_q.col(c);
                const Index column = ends[j].columns[static_cast<std::size_t>(c)];
                for (int r = 0; r < kinematics[i].dof_count; ++r)
                    curvature(ends[i].columns[static_cast<std::size_t>(r)], column) += J.col(r).dot(change);
            }
        }
    }
}

void FramePair::add_velocity_block(const RowHessian& b, Eigen::MatrixXd& out) const {
    for (std::size_t i = 0; i < 2; ++i) {
        if (!ends[i].element) continue;
        const auto J_i = kinematics[i].jacobian_columns();
        for (std::size_t j = 0; j < 2; ++j) {
            if (!ends[j].element) continue;
            const auto block = b.block<6, 6>(6 * static_cast<Index>(i), 6 * static_cast<Index>(j));
            const auto J_j = kinematics[j].jacobian_columns();
            for (int c = 0; c < kinematics[j].dof_count; ++c) {
                const VecN<6> change = block * J_j.col(c);
                const Index column = ends[j].columns[static_cast<std::size_t>(c)];
                for (int r = 0; r < kinematics[i].dof_count; ++r)
                    out(ends[i].columns[static_cast<std::size_t>(r)], column) += J_i.col(r).dot(change);
            }
        }
    }
}

}  // namespace soma::joints
