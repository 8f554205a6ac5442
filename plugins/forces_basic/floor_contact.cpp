#include "floor_contact.hpp"

#include "soma/smooth_contact_law.hpp"

#include <cassert>

namespace soma::forces_basic {

FloorContact::FloorContact(FloorContactSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.stiffness > 0.0))
        errors_.fail("stiffness", "must be > 0 N/m, got " + std::to_string(settings_.stiffness));
    if (settings_.band && !(*settings_.band > 0.0))
        errors_.fail("band", "must be > 0 m, got " + std::to_string(*settings_.band));
    if (!(settings_.friction >= 0.0))
        errors_.fail("friction", "must be >= 0, got " + std::to_string(settings_.friction));
    if (!(settings_.slip_velocity > 0.0))
        errors_.fail("slip_velocity", "must be > 0 m/s, got " + std::to_string(settings_.slip_velocity));
    const double length = settings_.normal.norm();
    if (!(length > 0.0) || !std::isfinite(length)) errors_.fail("normal", "must be a nonzero finite vector");
    settings_.normal /= length;
    friction_sharpness_ = kContactSmoothingWidth / settings_.slip_velocity;
}

void FloorContact::bind(const SceneView& scene) {
    const auto elements = select_elements(scene, settings_.elements, errors_);
    auto points = gather_points(elements);
    merge_shared_points(points);
    points_.clear();
    for (const ForcePoint& p : points) {
        ContactPoint c;
        c.dofs = p.dofs;
        c.element = p.element;
        c.index = p.index;
        c.mapped = p.element->geometry().mapped_points;
        c.stencil_dofs = force_point_stencil(p, scene);
        c.offset = p.radius + settings_.height;
        c.band = settings_.band ? *settings_.band : p.radius;
        if (!(c.band > 0.0))
            errors_.fail("band", "point " + std::to_string(p.index) + " of element '" + p.element->name() +
                                     "' has contact radius 0, so the band cannot default to it; give 'band'");
        c.sharpness = kContactSmoothingWidth / c.band;
        points_.push_back(c);
    }
}

void FloorContact::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const ContactPoint& c : points_) stencils_.push_back(pattern.add_stencil(c.stencil_dofs));
}

void FloorContact::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(context.q && stencils_.size() == points_.size());
    const VectorX& q = *context.q;
    const Vec3& n = settings_.normal;
    const double mu = settings_.friction;
    const bool with_friction = mu > 0.0;
    assert(!with_friction || context.v);
    const double c_q = context.coefficients.c_q;
    const double c_v = context.coefficients.c_v;
    const Mat3 nnT = n * n.transpose();

    PointKinematics& kinematics = kinematics_;
    for (std::size_t i = 0; i < points_.size(); ++i) {
        const ContactPoint& c = points_[i];
        Vec3 x, v = Vec3::Zero();
        if (c.mapped) {
            evaluate_point(*c.element, c.index, context, kinematics);
            x = kinematics.position;
            v = kinematics.velocity;
        } else {
            x = Vec3(q[c.dofs[0]], q[c.dofs[1]], q[c.dofs[2]]);
            if (with_friction) v = Vec3((*context.v)[c.dofs[0]], (*context.v)[c.dofs[1]], (*context.v)[c.dofs[2]]);
        }
        const double gap = n.dot(x) - c.offset;
        if (gap >= c.band) continue;  // outside the band: E, F_c < 3e-13 of contact values (header)

        const PenaltyEnergy e = penalty_energy(gap, settings_.stiffness, c.sharpness);
        Vec3 residual = e.gradient * n;  // +∇E: the physical normal force is -E' n̂ (MAT-DiSMech eq. 25 is ∇E)
        Mat3 d_position = e.curvature * nnT;
        Mat3 d_velocity = Mat3::Zero();

        if (with_friction) {
            const double normal_force = -e.gradient;  // |F_c| ≥ 0
            const Vec3 vt = v - n * n.dot(v);
            const FrictionShape shape = friction_shape(vt.norm(), friction_sharpness_);
            residual += (mu * normal_force * shape.phi) * vt;
            // d/dx: only |F_c| depends on x, through Δ: d|F_c|/dx = -E'' n̂ᵀ.
            d_position.noalias() -= (mu * shape.phi * e.curvature) * vt * n.transpose();
            // d/dv: d(φ(w) P v)/dv = φ P + ψ v_t v_tᵀ.
            d_velocity = (mu * normal_force) * (shape.phi * (Mat3::Identity() - nnT) + shape.psi * vt * vt.transpose());
        }
        if (c.mapped) {
            add_point_residual(assembly, stencils_[i], *c.element, c.index, context, kinematics, residual,
                               {&d_position, &d_velocity});
            continue;
        }
        assembly.add_residual(stencils_[i], residual);
        if (assembly.wants_jacobian()) assembly.add_jacobian(stencils_[i], Mat3(c_q * d_position + c_v * d_velocity), 1.0);
    }
}

double FloorContact::potential_energy(const EvalContext& context) const {
    assert(context.q);
    const VectorX& q = *context.q;
    double energy = 0.0;
    for (const ContactPoint& c : points_) {
        const Vec3 x = c.mapped ? point_position(*c.element, c.index, q) : Vec3(q[c.dofs[0]], q[c.dofs[1]], q[c.dofs[2]]);
        const double gap = settings_.normal.dot(x) - c.offset;
        if (gap < c.band) energy += penalty_energy(gap, settings_.stiffness, c.sharpness).energy;
    }
    return energy;
}

}  // namespace soma::forces_basic
