#include "rigid_damping.hpp"

#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <cassert>
#include <cmath>

namespace soma::rigid_body {

namespace {
constexpr Index kCenterOfMassPoint = 1;  // rigid_body.hpp: point 1 is the centre of mass
}

RigidDamping::RigidDamping(RigidDampingSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.linear_damping >= 0.0) || !std::isfinite(settings_.linear_damping))
        errors_.fail("linear_damping", "must be >= 0 N*s/m, got " + std::to_string(settings_.linear_damping));
    if (!(settings_.angular_damping >= 0.0) || !std::isfinite(settings_.angular_damping))
        errors_.fail("angular_damping", "must be >= 0 N*m*s/rad, got " + std::to_string(settings_.angular_damping));
    if (settings_.linear_damping == 0.0 && settings_.angular_damping == 0.0)
        errors_.fail("linear_damping", "linear_damping and angular_damping are both zero: the force would do nothing");
}

void RigidDamping::bind(const SceneView& scene) {
    std::vector<const RigidBody*> bodies;
    if (settings_.elements.empty()) {
        for (const Element* element : scene.elements())
            if (const auto* body = dynamic_cast<const RigidBody*>(element)) bodies.push_back(body);
        if (bodies.empty()) errors_.fail("elements", "the scene has no rigid_body element to damp");
    } else {
        for (const std::string& name : settings_.elements) {
            const Element* element = scene.find_element(name);
            if (!element) errors_.fail("elements", "no element named '" + name + "'");
            const auto* body = dynamic_cast<const RigidBody*>(element);
            if (!body)
                errors_.fail("elements", "element '" + name +
                                             "' is not a rigid_body; rods take viscous_drag, surfaces aerodynamic_drag");
            bodies.push_back(body);
        }
    }
    bind_bodies(std::move(bodies));
}

void RigidDamping::bind_bodies(std::vector<const RigidBody*> bodies) { bodies_ = std::move(bodies); }

void RigidDamping::declare_pattern(PatternBuilder& pattern) {
    stencils_.clear();
    for (const RigidBody* body : bodies_) {
        std::array<Index, 6> dofs{};
        for (Index k = 0; k < 6; ++k) dofs[static_cast<std::size_t>(k)] = body->global_dof(k);
        stencils_.push_back(pattern.add_stencil(dofs));
    }
}

void RigidDamping::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(context.v && stencils_.size() == bodies_.size());
    const double c_t = settings_.linear_damping;
    const double c_r = settings_.angular_damping;
    const Mat3 linear = c_t * Mat3::Identity();  // dr/dv_c of r = -f = c_t v_c
    PointKinematics kinematics;
    for (std::size_t b = 0; b < bodies_.size(); ++b) {
        const RigidBody& body = *bodies_[b];
        // The point's stencil is the body's 6 DOFs in the order of declare_pattern.
        evaluate_point(body, kCenterOfMassPoint, context, kinematics);
        add_point_residual(assembly, stencils_[b], body, kCenterOfMassPoint, context, kinematics,
                           c_t * kinematics.velocity, PointForceDerivatives{nullptr, &linear});
        const VectorX& v = *context.v;
        VecN<6> torque_residual = VecN<6>::Zero();
        for (Index k = 0; k < 3; ++k) torque_residual[3 + k] = c_r * v[body.global_dof(3 + k)];
        assembly.add_residual(stencils_[b], torque_residual);
        if (!assembly.wants_jacobian()) continue;
        MatN<6> jacobian = MatN<6>::Zero();
        jacobian.bottomRightCorner<3, 3>().diagonal().setConstant(context.coefficients.c_v * c_r);
        assembly.add_jacobian(stencils_[b], jacobian, 1.0);
    }
}

}  // namespace soma::rigid_body
