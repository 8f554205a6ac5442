#include "rigid_body.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace soma::rigid_body {

namespace {

Quaternion read_quaternion(const double* c) { return Quaternion(c[0], c[1], c[2], c[3]); }

void write_quaternion(const Quaternion& q, double* c) {
    c[0] = q.w();
    c[1] = q.x();
    c[2] = q.y();
    c[3] = q.z();
}

}  // namespace

RigidBody::RigidBody(RigidBodyDescription description) : description_(std::move(description)) {
    check_mass_properties(description_.mass);
    description_.orientation.normalize();
    // Point 0 is node 0 (the origin: what `fixed` and probes select), point 1 carries the mass.
    body_points_ = {Vec3::Zero(), description_.mass.center_of_mass};
    body_points_.insert(body_points_.end(), description_.markers.begin(), description_.markers.end());
    std::vector<double> radii(body_points_.size(), 0.0);
    double volume = 0.0;  // of the shapes that enclose one (an open mesh does not: no buoyancy)
    for (const RigidShape& shape : description_.shapes) {
        const ShapeSurface surface = shape_surface(shape);
        const auto first = static_cast<Index>(body_points_.size());
        body_points_.insert(body_points_.end(), surface.points.begin(), surface.points.end());
        radii.insert(radii.end(), surface.radii.begin(), surface.radii.end());
        for (const auto& t : surface.triangles) geometry_.triangles.push_back({first + t[0], first + t[1], first + t[2]});
        for (const auto& e : surface.edges) geometry_.edges.push_back({first + e[0], first + e[1]});
        if (shape.kind == ShapeKind::mesh) {
            try {
                check_closed_mesh(shape.vertices, shape.triangles);
            } catch (const std::invalid_argument&) {
                volume = -std::numeric_limits<double>::infinity();
            }
        }
        volume += shape_volume(shape);
    }
    const std::size_t n = body_points_.size();
    geometry_.mapped_points = true;
    geometry_.point_dofs.assign(n, {-1, -1, -1});
    geometry_.point_mass.assign(n, 0.0);
    geometry_.point_mass[1] = description_.mass.mass;
    geometry_.point_length.assign(n, 0.0);
    geometry_.point_radius = radii;
    // An open mesh (allowed with given mass properties) encloses no volume: no buoyancy.
    geometry_.density = volume > 0.0 && std::isfinite(volume) ? description_.mass.mass / volume : 0.0;
    for (const RigidShape& visual : description_.visuals) {
        const ShapeSurface surface = display_mesh(visual);
        const auto first = static_cast<Index>(display_body_.vertices.size());
        display_body_.vertices.insert(display_body_.vertices.end(), surface.points.begin(), surface.points.end());
        for (const auto& t : surface.triangles) display_body_.triangles.push_back({first + t[0], first + t[1], first + t[2]});
    }
}

void RigidBody::display_surface(const VectorX& q, const VectorX& v, DisplaySurface& out) const {
    out.triangles = display_body_.triangles;
    if (display_body_.vertices.empty()) {
        out.vertices.clear();
        out.velocities.clear();
        return;
    }
    EvalContext context;
    context.q = &q;
    const Mat3 R = orientation(context).toRotationMatrix();
    const Vec3 p(q[dofs_[0]], q[dofs_[1]], q[dofs_[2]]);
    const Vec3 p_dot(v[dofs_[0]], v[dofs_[1]], v[dofs_[2]]);
    const Vec3 omega(v[dofs_[3]], v[dofs_[4]], v[dofs_[5]]);  // body coordinates
    out.vertices.resize(display_body_.vertices.size());
    out.velocities.resize(display_body_.vertices.size());
    for (std::size_t i = 0; i < display_body_.vertices.size(); ++i) {
        const Vec3& r = display_body_.vertices[i];
        out.vertices[i] = p + R * r;
        out.velocities[i] = p_dot + R * omega.cross(r);
    }
}

void RigidBody::initial_state(VectorX& q, VectorX& v) const {
    q.head<3>() = description_.position;
    q.tail<3>().setZero();  // the rotation's tangent entries are zero in a committed state
    v.head<3>() = description_.velocity;
    v.tail<3>() = description_.angular_velocity;
}

std::vector<DofGroup> RigidBody::dof_groups() const {
    // The origin, and the orientation's rotation DOFs (body axes), which `fixed: {rotations: [0]}` holds.
    return {{"nodes", 3, 1, {"x", "y", "z"}}, {"rotations", 3, 1, {"about body x", "about body y", "about body z"}}};
}

Index RigidBody::group_dof(const std::string& group, Index item, int component) const {
    const bool known = group == "nodes" || group == "rotations";
    if (!known || item != 0 || component < 0 || component > 2)
        throw std::logic_error("rigid_body has one node (its body frame's origin) with components x, y, z and one "
                               "rotation with three components");
    return group == "nodes" ? component : 3 + component;
}

std::string RigidBody::describe_dof(Index local) const {
    if (local < 3) return std::string("origin ") + "xyz"[local];
    return std::string("rotation about body ") + "xyz"[local - 3];
}

std::vector<ManifoldBlock> RigidBody::manifold_blocks() const {
    return {{3, 3, 4, "orientation (unit quaternion w, x, y, z; body to world)"}};
}

void RigidBody::initial_block_configuration(Index, double* coordinates) const {
    write_quaternion(description_.orientation, coordinates);
}

void RigidBody::integrate_block(Index, const double* q, const double* dv, double* out) const {
    // Body-frame increment: R exp([dv]); renormalised so round-off does not accumulate.
    Quaternion next = read_quaternion(q) * rotation_exp(Vec3(dv[0], dv[1], dv[2]));
    next.normalize();
    write_quaternion(next, out);
}

void RigidBody::difference_block(Index, const double* q1, const double* q0, double* dv) const {
    const Vec3 d = rotation_log(read_quaternion(q0).conjugate() * read_quaternion(q1));
    dv[0] = d.x();
    dv[1] = d.y();
    dv[2] = d.z();
}

void RigidBody::on_bind() {
    for (Index k = 0; k < 6; ++k) dofs_[static_cast<std::size_t>(k)] = global_dof(k);
}

Vec3 RigidBody::rotation_displacement(const VectorX& q) const { return Vec3(q[dofs_[3]], q[dofs_[4]], q[dofs_[5]]); }

Quaternion RigidBody::orientation(const EvalContext& context) const {
    return read_quaternion(context.q->data() + block_coordinate(0));
}

double RigidBody::kinetic_energy(const EvalContext& c) const {
    const VectorX& v = *c.v;
    const Mat3 R = orientation(c).toRotationMatrix();
    const Vec3 p_dot(v[dofs_[0]], v[dofs_[1]], v[dofs_[2]]);
    const Vec3 omega(v[dofs_[3]], v[dofs_[4]], v[dofs_[5]]);
    const MassProperties& m = description_.mass;
    const Vec3 v_com = p_dot + R * omega.cross(m.center_of_mass);
    return 0.5 * m.mass * v_com.squaredNorm() + 0.5 * omega.dot(m.inertia * omega);
}

void RigidBody::point_kinematics(Index point, const EvalContext& c, PointKinematics& out) const {
    const Vec3& r = body_points_[static_cast<std::size_t>(point)];
    const Mat3 R = orientation(c).toRotationMatrix();
    const Vec3 p((*c.q)[dofs_[0]], (*c.q)[dofs_[1]], (*c.q)[dofs_[2]]);
    out.dof_count = 6;
    out.dofs = dofs_;
    out.position = p + R * r;
    const Mat3 R_r = R * skew(r);
    out.jacobian.leftCols<3>().setIdentity();
    out.jacobian.rightCols<3>() = -R_r;
    const Mat3 Jr = right_jacobian(rotation_displacement(*c.q));
    out.position_jacobian.leftCols<3>().setIdentity();
    out.position_jacobian.rightCols<3>() = -R_r * Jr;
    out.velocity_jacobian.setZero();
    if (c.v) {
        const Vec3 p_dot((*c.v)[dofs_[0]], (*c.v)[dofs_[1]], (*c.v)[dofs_[2]]);
        const Vec3 omega((*c.v)[dofs_[3]], (*c.v)[dofs_[4]], (*c.v)[dofs_[5]]);
        const Vec3 w = omega.cross(r);
        out.velocity = p_dot + R * w;
        // d(R (omega x r))/dd = -R [omega x r] Jr(d).
        out.velocity_jacobian.rightCols<3>() = -R * skew(w) * Jr;
    }
}

void RigidBody::add_point_geometric_stiffness(Index point, const EvalContext& c, const Vec3& force,
                                              PointStiffness& stiffness) const {
    // J^T f = (f, r x R^T f); d(r x R^T f)/dd = [r] [R^T f] Jr(d).
    const Vec3& r = body_points_[static_cast<std::size_t>(point)];
    const Mat3 R = orientation(c).toRotationMatrix();
    stiffness.bottomRightCorner<3, 3>() += skew(r) * skew(R.transpose() * force) * right_jacobian(rotation_displacement(*c.q));
}

std::string RigidBody::frame_name(Index frame) const {
    if (frame == 0) return "body";
    if (frame == 1) return "center_of_mass";
    return "marker_" + std::to_string(frame - 2);
}

Index RigidBody::frame_point(Index frame) const {
    if (frame < 0 || frame >= frame_count())
        throw std::out_of_range("rigid_body '" + name() + "' has no frame " + std::to_string(frame));
    return frame;  // frame f sits on point f: origin, centre of mass, markers
}

void RigidBody::frame_kinematics(Index frame, const EvalContext& c, FrameKinematics& out) const {
    const Vec3& r = body_points_[static_cast<std::size_t>(frame_point(frame))];
    const Mat3 R = orientation(c).toRotationMatrix();
    const Mat3 Jr = right_jacobian(rotation_displacement(*c.q));
    const Vec3 p((*c.q)[dofs_[0]], (*c.q)[dofs_[1]], (*c.q)[dofs_[2]]);
    out.dof_count = 6;
    std::copy(dofs_.begin(), dofs_.end(), out.dofs.begin());
    out.origin = p + R * r;
    out.rotation = R;
    const Mat3 R_r = R * skew(r);
    out.jacobian.setZero();
    out.jacobian.topLeftCorner<3, 3>().setIdentity();
    out.jacobian.block<3, 3>(0, 3) = -R_r;
    out.jacobian.block<3, 3>(3, 3) = R;
    out.position_jacobian.setZero();
    out.position_jacobian.topLeftCorner<3, 3>().setIdentity();
    out.position_jacobian.block<3, 3>(0, 3) = -R_r * Jr;
    out.position_jacobian.block<3, 3>(3, 3) = R * Jr;
    if (c.v) {
        const Vec3 p_dot((*c.v)[dofs_[0]], (*c.v)[dofs_[1]], (*c.v)[dofs_[2]]);
        const Vec3 omega((*c.v)[dofs_[3]], (*c.v)[dofs_[4]], (*c.v)[dofs_[5]]);
        out.velocity = p_dot + R * omega.cross(r);
        out.angular_velocity = R * omega;
    }
}

void RigidBody::add_frame_geometric_stiffness(Index frame, const EvalContext& c, const Vec3& force, const Vec3& torque,
                                              FrameStiffness& stiffness) const {
    // J^T [f; tau] = (f, r x R^T f + R^T tau); d(R^T u)/dd = [R^T u] Jr(d) (R = R_start exp([d])).
    const Vec3& r = body_points_[static_cast<std::size_t>(frame_point(frame))];
    const Mat3 R = orientation(c).toRotationMatrix();
    const Mat3 Jr = right_jacobian(rotation_displacement(*c.q));
    stiffness.block<3, 3>(3, 3) += (skew(r) * skew(R.transpose() * force) + skew(R.transpose() * torque)) * Jr;
}

void RigidBody::declare_pattern(PatternBuilder& pattern) { stencil_ = pattern.add_stencil(dofs_); }

void RigidBody::add_residual_and_jacobian(const EvalContext& c, Assembly& assembly) {
    const VectorX& v = *c.v;
    const VectorX& a = *c.a;
    const MassProperties& mp = description_.mass;
    const double m = mp.mass;
    const Vec3& com = mp.center_of_mass;
    const Mat3& J = mp.inertia;
    const Mat3 R = orientation(c).toRotationMatrix();
    const Vec3 omega(v[dofs_[3]], v[dofs_[4]], v[dofs_[5]]);
    const Vec3 p_ddot(a[dofs_[0]], a[dofs_[1]], a[dofs_[2]]);
    const Vec3 alpha(a[dofs_[3]], a[dofs_[4]], a[dofs_[5]]);

    // Centre-of-mass acceleration in body coordinates: R^T p'' + alpha x c + omega x (omega x c).
    const Vec3 centripetal = omega.cross(omega.cross(com));
    const Vec3 relative = alpha.cross(com) + centripetal;  // R^T (a_c - p'')
    const Vec3 a_com_body = R.transpose() * p_ddot + relative;
    const Vec3 J_omega = J * omega;

    VecN<6> residual;
    residual.head<3>() = m * (p_ddot + R * relative);
    residual.tail<3>() = J * alpha + omega.cross(J_omega) + m * com.cross(a_com_body);
    assembly.add_residual(stencil_, residual);
    if (!assembly.wants_jacobian()) return;

    const Mat3 C = skew(com);
    MatN<6> jacobian = MatN<6>::Zero();
    // d/da: the spatial inertia (ArtiSynth section 0.1) with the rotation R.
    jacobian.topLeftCorner<3, 3>() = m * Mat3::Identity();
    jacobian.topRightCorner<3, 3>() = -m * R * C;
    jacobian.bottomLeftCorner<3, 3>() = m * C * R.transpose();
    jacobian.bottomRightCorner<3, 3>() = J - m * C * C;
    jacobian *= c.coefficients.c_a;
    // d/domega: gyroscopic [omega] J - [J omega], and the centripetal term
    // d(omega x (omega x c))/domega = -[omega x c] - [omega][c].
    const Mat3 d_centripetal = -skew(omega.cross(com)) - skew(omega) * C;
    jacobian.topRightCorner<3, 3>() += c.coefficients.c_v * (m * R * d_centripetal);
    jacobian.bottomRightCorner<3, 3>() += c.coefficients.c_v * (skew(omega) * J - skew(J_omega) + m * C * d_centripetal);
    // d/dd (R = R_start exp([d])): d(R s)/dd = -R [s] Jr and d(R^T p'')/dd = [R^T p''] Jr.
    const Mat3 Jr = right_jacobian(rotation_displacement(*c.q));
    jacobian.topRightCorner<3, 3>() += c.coefficients.c_q * (-m * R * skew(relative) * Jr);
    jacobian.bottomRightCorner<3, 3>() += c.coefficients.c_q * (m * C * skew(R.transpose() * p_ddot) * Jr);
    assembly.add_jacobian(stencil_, jacobian, 1.0);
}

}  // namespace soma::rigid_body
