#include "clamp.hpp"

#include "soma/rotation.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace soma::joints {

namespace {

Vec3 vee_antisymmetric(const Mat3& Q) {  // 1/2 vee(Q - Q^T)
    return 0.5 * Vec3(Q(2, 1) - Q(1, 2), Q(0, 2) - Q(2, 0), Q(1, 0) - Q(0, 1));
}

}  // namespace

Clamp::Clamp(ClampSettings settings, Parameters parameters)
    : settings_(std::move(settings)), parameters_(std::move(parameters)) {}

void Clamp::bind(const SceneView& scene) {
    dofs_.clear();
    first_ = bind_frame_end(scene, settings_.first, parameters_.block("first"), "a clamp", dofs_);
    second_ = bind_frame_end(scene, settings_.second, parameters_.block("second"), "a clamp", dofs_);
    EvalContext context;
    context.q = &scene.state().q;
    FrameKinematics k1, k2;
    end_kinematics(first_, context, k1);
    end_kinematics(second_, context, k2);
    // A clamp holds coincident origins: starting apart would snap them together in the first step.
    const Vec3& x1 = k1.origin;
    const Vec3& x2 = k2.origin;
    const double scale = std::max({1.0, x1.cwiseAbs().maxCoeff(), x2.cwiseAbs().maxCoeff()});
    if ((x1 - x2).norm() > 1e-9 * scale) {
        std::ostringstream text;
        text << "the clamp's two frames are " << (x1 - x2).norm() << " m apart in the initial configuration (origins ["
             << x1.transpose() << "] and [" << x2.transpose() << "]): a clamp holds frames with coincident origins";
        parameters_.fail("second", text.str());
    }
    const Mat3 initial = k2.rotation.transpose() * k1.rotation;
    offset_ = settings_.rotation_offset.value_or(initial);
    const bool all_hard = compliance(3) == 0.0 && compliance(4) == 0.0 && compliance(5) == 0.0;
    if (settings_.rotation_offset && all_hard) {
        // A hard clamp must hold in the initial configuration, as its origins must.
        const double angle = rotation_log(Quaternion(Mat3(initial * offset_.transpose()))).norm();
        if (angle > 1e-9) {
            std::ostringstream text;
            text << "the frames are turned by " << angle
                 << " rad from this offset in the initial configuration: a hard clamp (rotation rows of compliance 0) "
                    "must hold as built; omit rotation_offset to hold the initial relative rotation";
            parameters_.fail("rotation_offset", text.str());
        }
    } else if (settings_.rotation_offset) {
        // Only the hard rotation rows (row_compliance) must hold as built; the others start loaded.
        const Vec3 rows = vee_antisymmetric(Mat3(k1.rotation * offset_.transpose() * k2.rotation.transpose()));
        for (int r = 0; r < 3; ++r)
            if (compliance(3 + r) == 0.0 && std::abs(rows[r]) > 1e-9) {
                std::ostringstream text;
                text << "the rotation row " << "xyz"[r] << " (row_compliance entry " << 4 + r << ", compliance 0) is "
                     << rows[r] << " in the initial configuration with this offset: a hard row must hold as built";
                parameters_.fail("rotation_offset", text.str());
            }
    }
}

void Clamp::evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const {
    out.force_jacobian.setZero();
    out.position_jacobian.setZero();
    out.curvature.setZero();
    FrameKinematics& k1 = frame_data_[0];
    FrameKinematics& k2 = frame_data_[1];
    end_kinematics(first_, context, k1);
    end_kinematics(second_, context, k2);
    const Vec3 lambda_x(lambda[0], lambda[1], lambda[2]);
    const Vec3 lambda_r(lambda[3], lambda[4], lambda[5]);

    const Mat3 Q = k1.rotation * offset_.transpose() * k2.rotation.transpose();
    const double trace = Q.trace();
    const Mat3 M1 = 0.5 * (trace * Mat3::Identity() - Q);
    const Mat3 M2 = 0.5 * (trace * Mat3::Identity() - Q.transpose());
    out.value.head<3>() = k1.origin - k2.origin;
    out.value.tail<3>() = vee_antisymmetric(Q);

    // Torques on the frames, and their derivatives with respect to each frame's rotation vector
    // (columns k: dQ = [e_k] Q for frame 1, -Q [e_k] for frame 2).
    const Vec3 tau1 = M1.transpose() * lambda_r;
    const Vec3 tau2 = -M2.transpose() * lambda_r;
    Mat3 dtau1_dphi1, dtau1_dphi2, dtau2_dphi1, dtau2_dphi2;
    for (int c = 0; c < 3; ++c) {
        const Mat3 dQ1 = skew(Vec3::Unit(c)) * Q;   // d Q / d phi_1,c
        const Mat3 dQ2 = -Q * skew(Vec3::Unit(c));  // d Q / d phi_2,c
        dtau1_dphi1.col(c) = 0.5 * (dQ1.trace() * lambda_r - dQ1.transpose() * lambda_r);
        dtau1_dphi2.col(c) = 0.5 * (dQ2.trace() * lambda_r - dQ2.transpose() * lambda_r);
        dtau2_dphi1.col(c) = -0.5 * (dQ1.trace() * lambda_r - dQ1 * lambda_r);
        dtau2_dphi2.col(c) = -0.5 * (dQ2.trace() * lambda_r - dQ2 * lambda_r);
    }

    const BoundFrame* ends[2] = {&first_, &second_};
    FrameKinematics* frames[2] = {&k1, &k2};
    for (int i = 0; i < 2; ++i) {
        const BoundFrame& end = *ends[i];
        if (!end.element) continue;
        FrameKinematics& k = *frames[i];
        const int n = k.dof_count;
        const double sign = i == 0 ? 1.0 : -1.0;
        const Mat3& M = i == 0 ? M1 : M2;
        // G_f = sign [J_x; M J_w], G_q = sign [J_q,x; M J_q,w], a column at a time (any width).
        const auto J = k.jacobian_columns();
        const auto J_q = k.position_jacobian_columns();
        for (int c = 0; c < n; ++c) {
            const Index column = end.columns[static_cast<std::size_t>(c)];
            out.force_jacobian.col(column).head<3>() += sign * J.col(c).head<3>();
            out.force_jacobian.col(column).tail<3>() += sign * (M * J.col(c).tail<3>());
            out.position_jacobian.col(column).head<3>() += sign * J_q.col(c).head<3>();
            out.position_jacobian.col(column).tail<3>() += sign * (M * J_q.col(c).tail<3>());
        }
        // The map's geometric stiffness at this frame's force and torque.
        add_end_geometric_stiffness(end, context, k, sign * lambda_x, i == 0 ? tau1 : tau2, out.curvature);
        // J_iw^T dtau_i/dq: the torques turn with both frames.
        const Mat3& dtau_dphi1 = i == 0 ? dtau1_dphi1 : dtau2_dphi1;
        const Mat3& dtau_dphi2 = i == 0 ? dtau1_dphi2 : dtau2_dphi2;
        for (int j = 0; j < 2; ++j) {
            const BoundFrame& other = *ends[j];
            if (!other.element) continue;
            const auto other_J_q = frames[j]->position_jacobian_columns();
            const Mat3& dtau_dphi = j == 0 ? dtau_dphi1 : dtau_dphi2;
            for (int c = 0; c < frames[j]->dof_count; ++c) {
                const Vec3 dtau = dtau_dphi * other_J_q.col(c).tail<3>();
                const Index column = other.columns[static_cast<std::size_t>(c)];
                for (int r = 0; r < n; ++r)
                    out.curvature(end.columns[static_cast<std::size_t>(r)], column) += J.col(r).tail<3>().dot(dtau);
            }
        }
    }
}

}  // namespace soma::joints
