#include "frame_spring.hpp"

#include "soma/rotation.hpp"
#include "soma/scene_view.hpp"

#include <Eigen/Geometry>

namespace soma::joints {

FrameSpring::FrameSpring(FrameSpringSettings settings, Parameters parameters)
    : settings_(std::move(settings)), parameters_(std::move(parameters)) {
    const FrameSpringSettings& s = settings_;
    if (s.stiffness == 0.0 && s.rotational_stiffness == 0.0 && s.damping == 0.0 && s.rotational_damping == 0.0)
        parameters_.fail("stiffness", "every stiffness and damping is zero: the spring would do nothing");
}

void FrameSpring::bind(const SceneView& scene) {
    dofs_.clear();
    pair_.ends[0] = bind_frame_end(scene, settings_.first, parameters_.block("first"), "a frame_spring", dofs_);
    pair_.ends[1] = BoundFrame{};
    if (!settings_.second.element.empty())
        pair_.ends[1] = bind_frame_end(scene, settings_.second, parameters_.block("second"), "a frame_spring", dofs_);
    if (frames_move_as_one(pair_.ends[0], pair_.ends[1], dofs_))
        parameters_.fail("second", "both ends are frames of '" + settings_.first.element +
                                       "' that move as one (they depend on the same DOFs): the spring would do nothing");
    EvalContext context;
    context.q = &scene.state().q;
    FrameKinematics first;
    end_kinematics(pair_.ends[0], context, first);
    pair_.place(scene.state().q, settings_.at.value_or(first.origin), Mat3::Identity());
    const auto n = static_cast<Index>(dofs_.size());
    residual_.setZero(n);
    stiffness_.setZero(n, n);
    damping_.setZero(n, n);
}

void FrameSpring::declare_pattern(PatternBuilder& pattern) { stencil_ = pattern.add_stencil(dofs_); }

Vec3 FrameSpring::relative_rotation() const {
    return rotation_log(Quaternion(Mat3(pair_.frames.axes[0] * pair_.frames.axes[1].transpose())));
}

void FrameSpring::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    pair_.evaluate(context);
    const RowGradient xi = context.v ? pair_.velocities() : RowGradient::Zero();
    const double k_t = settings_.stiffness, k_r = settings_.rotational_stiffness;
    const double d_t = settings_.damping, d_r = settings_.rotational_damping;
    RowGradient gradient = RowGradient::Zero();
    RowHessian hessian = RowHessian::Zero();
    RowHessian velocity_hessian = RowHessian::Zero();
    // Translation: the three world components of d, each an offset row (joint_rows.hpp).
    for (int k = 0; k < 3; ++k) {
        offset_row(pair_.frames, Vec3::Unit(k), false, row_);
        const double rate = row_.gradient.dot(xi);
        gradient += (k_t * row_.value + d_t * rate) * row_.gradient;
        hessian += k_t * (row_.gradient * row_.gradient.transpose()) + (k_t * row_.value + d_t * rate) * row_.hessian;
        hessian += d_t * row_.gradient * (row_.hessian.transpose() * xi).transpose();
        velocity_hessian += d_t * (row_.gradient * row_.gradient.transpose());
    }
    // Rotation: gradient k_r psi on frame 1, -k_r psi on frame 2; d psi = Jl^-1 dphi_1 - Jr^-1 dphi_2.
    const Vec3 psi = relative_rotation();
    const Vec3 relative_spin = xi.segment<3>(3) - xi.segment<3>(9);
    gradient.segment<3>(3) += k_r * psi + d_r * relative_spin;
    gradient.segment<3>(9) -= k_r * psi + d_r * relative_spin;
    const Mat3 left_inverse = right_jacobian_inverse(-psi);
    const Mat3 right_inverse = right_jacobian_inverse(psi);
    hessian.block<3, 3>(3, 3) += k_r * left_inverse;
    hessian.block<3, 3>(3, 9) -= k_r * right_inverse;
    hessian.block<3, 3>(9, 3) -= k_r * left_inverse;
    hessian.block<3, 3>(9, 9) += k_r * right_inverse;
    velocity_hessian.block<3, 3>(3, 3) += d_r * Mat3::Identity();
    velocity_hessian.block<3, 3>(3, 9) -= d_r * Mat3::Identity();
    velocity_hessian.block<3, 3>(9, 3) -= d_r * Mat3::Identity();
    velocity_hessian.block<3, 3>(9, 9) += d_r * Mat3::Identity();

    // The residual holds the gradient (F = -f): J^T of each frame's wrench.
    residual_.setZero();
    for (std::size_t i = 0; i < 2; ++i) {
        const BoundFrame& end = pair_.ends[i];
        if (!end.element) continue;
        const auto J = pair_.kinematics[i].jacobian_columns();
        for (int c = 0; c < pair_.kinematics[i].dof_count; ++c)
            residual_[end.columns[static_cast<std::size_t>(c)]] += gradient.segment<6>(6 * static_cast<Index>(i)).dot(J.col(c));
    }
    assembly.add_residual(stencil_, residual_);
    if (!assembly.wants_jacobian()) return;
    stiffness_.setZero();
    damping_.setZero();
    pair_.add_curvature(context, gradient, hessian, stiffness_);
    pair_.add_velocity_block(velocity_hessian, damping_);
    assembly.add_jacobian(stencil_, stiffness_, context.coefficients.c_q);
    assembly.add_jacobian(stencil_, damping_, context.coefficients.c_v);
}

double FrameSpring::potential_energy(const EvalContext& context) const {
    EvalContext positions = context;
    positions.v = nullptr;
    pair_.evaluate(positions);
    const Vec3 d = pair_.frames.point(0) - pair_.frames.point(1);
    return 0.5 * settings_.stiffness * d.squaredNorm() + 0.5 * settings_.rotational_stiffness * relative_rotation().squaredNorm();
}

}  // namespace soma::joints
