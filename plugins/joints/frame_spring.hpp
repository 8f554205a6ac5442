#pragma once
/// \file frame_spring.hpp
/// \brief `frame_spring`: a six-DOF spring-damper between a frame of one element and a frame of
/// another or the world (ArtiSynth technical notes, section 0.22), isotropic: it holds the two
/// frames' relative pose as built at the point `at`.
///
/// The joint frames (frame_pair.hpp) start at `at` with the world's axes; with d = o_1 - o_2 and
/// psi = log(E_1 E_2^T) (the world rotation vector turning frame 2's axes into frame 1's), the
/// energy is k_t |d|^2 / 2 + k_r |psi|^2 / 2, and the dampers resist the rate of d (d_t) and the
/// relative angular velocity omega_1 - omega_2 (d_r). The torque on frame 1 is -k_r psi (the
/// gradient of |psi|^2/2 along the frames' rotations is psi, both ways, since J_l^-T psi = psi), and
///
///     d psi = J_l(psi)^-1 dphi_1 - J_r(psi)^-1 dphi_2   (section 0.22: delta psi = U dtheta_B - U^T dtheta_A)
///
/// gives the exact stiffness, unsymmetric in the rotation blocks as section 0.23 says. psi is the
/// shortest rotation between the frames: past half a turn the torque pulls the other way round
/// (the energy's cut at pi), so a frame spring holds a pose, it does not count turns (a winding
/// spring is a revolute joint with a joint_drive). As in joint_drive.hpp, the damping's Jacobian
/// leaves out how a frame's velocity turns with its DOFs at fixed v: a few percent of the term on
/// a rigid body's frame, but as large as the kept term on a rod's end frame (whose angular
/// velocity goes with 1/edge length), where Newton then converges linearly.

#include "frame_pair.hpp"

#include "soma/force.hpp"
#include "soma/parameters.hpp"

#include <optional>

namespace soma::joints {

struct FrameSpringSettings {
    FrameEnd first, second;  ///< second.element empty: the world
    std::optional<Vec3> at;  ///< the spring's point, world, as built; absent: the first frame's origin
    double stiffness = 0.0;             ///< k_t, N/m
    double rotational_stiffness = 0.0;  ///< k_r, N m/rad
    double damping = 0.0;               ///< d_t, N s/m
    double rotational_damping = 0.0;    ///< d_r, N m s/rad
};

class FrameSpring final : public Force {
public:
    FrameSpring(FrameSpringSettings settings, Parameters parameters);

    void bind(const SceneView& scene) override;
    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    double potential_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return false; }

private:
    /// psi = log(E_1 E_2^T) at the last evaluation.
    Vec3 relative_rotation() const;

    FrameSpringSettings settings_;
    Parameters parameters_;
    FramePair pair_;
    std::vector<Index> dofs_;
    StencilId stencil_ = -1;
    JointRow row_;
    VectorX residual_;
    Eigen::MatrixXd stiffness_, damping_;
};

}  // namespace soma::joints
