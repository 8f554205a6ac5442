#pragma once
/// \file rigid_body.hpp
/// \brief A rigid body: position of its body frame's origin and orientation as a unit
/// quaternion (a manifold block), with the Newton-Euler equations as the kernel's residual.
///
/// DOFs (local): 0-2 the origin's position p (world), 3-5 the rotation, whose velocity is the
/// angular velocity omega in body coordinates (ArtiSynth notes section 0.2: dq/dt = 1/2 q (0, omega)).
/// With the centre of mass at c and the inertia J about it (both in body coordinates), the
/// centre of mass accelerates as a_c = p'' + R (omega' x c + omega x (omega x c)), and virtual work
/// over (dp, body rotation dphi) gives the residual
///
///     F_p   = m a_c - f
///     F_phi = J omega' + omega x J omega + m c x (R^T a_c) - tau      (Euler's equations about c,
///                                                                      moved to the origin)
///
/// whose a-Jacobian is the spatial inertia of ArtiSynth section 0.1 (with R). The rotation's
/// configuration derivatives are taken with respect to the step's tangent displacement d
/// (element.hpp, ManifoldBlock): R = R_start exp([d]), dR = R [Jr(d) dd]. The Jacobian is not
/// symmetric (the gyroscopic term; ArtiSynth section 0.23), so scenes with rigid bodies default
/// to an LU linear solver.
///
/// Points: point 0 is the origin (node 0 of group `nodes`), point 1 the centre of mass (it carries
/// the mass for gravity), then the markers (points 2, 3, ...), then the shape's contact and output
/// points (rigid_shape.hpp), shape after shape; x_i = p + R r_i.

#include "rigid_shape.hpp"

#include "soma/element.hpp"
#include "soma/rotation.hpp"

#include <vector>

namespace soma::rigid_body {

struct RigidBodyDescription {
    Vec3 position = Vec3::Zero();         ///< origin of the body frame (world)
    Quaternion orientation = Quaternion::Identity();  ///< body to world
    Vec3 velocity = Vec3::Zero();         ///< of the origin (world)
    Vec3 angular_velocity = Vec3::Zero();  ///< body coordinates
    std::vector<RigidShape> shapes;       ///< none: a body with mass properties only; several: a compound body
    std::vector<Vec3> markers;            ///< extra body points (body coordinates) for joints, loads, probes
    std::vector<RigidShape> visuals;      ///< drawn only (display_surface): no mass, no contact, no points
    MassProperties mass;
};

class RigidBody final : public Element {
public:
    /// \throws std::invalid_argument on invalid mass properties.
    explicit RigidBody(RigidBodyDescription description);

    Index dof_count() const override { return 6; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;
    bool symmetric_jacobian() const override { return false; }

    std::vector<ManifoldBlock> manifold_blocks() const override;
    void initial_block_configuration(Index block, double* coordinates) const override;
    void integrate_block(Index block, const double* q, const double* dv, double* out) const override;
    void difference_block(Index block, const double* q1, const double* q0, double* dv) const override;

    void point_kinematics(Index point, const EvalContext& context, PointKinematics& out) const override;
    void add_point_geometric_stiffness(Index point, const EvalContext& context, const Vec3& force,
                                       PointStiffness& stiffness) const override;

    /// \brief Frames with the body's orientation R: frame 0 "body" at the origin (point 0),
    /// 1 "center_of_mass" (point 1), then "marker_k" at marker k (point 2 + k).
    ///
    ///     x = p + R r,   [xdot; omega] = [I, -R [r]; 0, R] [pdot; omega_body],
    ///     J_q = [I, -R [r] Jr(d); 0, R Jr(d)]                     (dR = R [Jr dd] = [R Jr dd] R)
    ///     J^T [f; tau] = [f; r x R^T f + R^T tau],   d/dd = [r][R^T f] Jr + [R^T tau] Jr
    Index frame_count() const override { return 2 + static_cast<Index>(description_.markers.size()); }
    std::string frame_name(Index frame) const override;
    Index frame_point(Index frame) const override;
    /// Every point is fixed in the body frame (frame 0).
    Index rigid_frame_of_point(Index) const override { return 0; }
    void frame_kinematics(Index frame, const EvalContext& context, FrameKinematics& out) const override;
    void add_frame_geometric_stiffness(Index frame, const EvalContext& context, const Vec3& force, const Vec3& torque,
                                       FrameStiffness& stiffness) const override;

    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;

    /// Orientation (body to world) at the iterate of \p context.
    Quaternion orientation(const EvalContext& context) const;
    /// Points in body coordinates (point 0: the origin, point 1: the centre of mass).
    const std::vector<Vec3>& body_points() const { return body_points_; }
    const MassProperties& mass_properties() const { return description_.mass; }
    /// The visuals' triangles, moved with the body (body-coordinate vertices through its pose).
    void display_surface(const VectorX& q, const VectorX& v, DisplaySurface& out) const override;

protected:
    void on_bind() override;

private:
    /// The step's rotation displacement d (the rotation DOFs' entries of q).
    Vec3 rotation_displacement(const VectorX& q) const;

    RigidBodyDescription description_;
    std::vector<Vec3> body_points_;
    Geometry geometry_;
    DisplaySurface display_body_;  ///< the visuals in body coordinates (vertices; no velocities)
    std::array<Index, 6> dofs_{};
    StencilId stencil_ = 0;
};

}  // namespace soma::rigid_body
