#include "point_mass.hpp"

#include "soma/lumped_mass.hpp"

#include <cmath>
#include <string>

namespace soma::particles {

PointMass::PointMass(const PointMassDescription& description, const SettingsErrors& errors) : description_(description) {
    if (!(description.mass > 0.0) || !std::isfinite(description.mass))
        errors.fail("mass", "must be positive and finite, got " + std::to_string(description.mass));
}

void PointMass::initial_state(VectorX& q, VectorX& v) const {
    q.head<3>() = description_.position;
    v.head<3>() = description_.velocity;
}

std::vector<DofGroup> PointMass::dof_groups() const { return {{"nodes", 3, 1, {"x", "y", "z"}}}; }

Index PointMass::group_dof(const std::string& group, Index item, int component) const {
    if (group != "nodes" || item != 0 || component < 0 || component > 2)
        throw std::logic_error("point_mass has one node with components x, y, z");
    return component;
}

std::string PointMass::describe_dof(Index local) const { return std::string("node 0 ") + "xyz"[local]; }

void PointMass::on_bind() {
    geometry_ = Geometry{};
    geometry_.point_dofs = {{global_dof(0), global_dof(1), global_dof(2)}};
    geometry_.point_mass = {description_.mass};
    geometry_.point_length = {0.0};
    geometry_.point_radius = {description_.radius};
    geometry_.density = 0.0;  // a point has no volume: buoyancy does not apply
}

double PointMass::kinetic_energy(const EvalContext& c) const {
    const auto& d = geometry_.point_dofs[0];
    const Vec3 v((*c.v)[d[0]], (*c.v)[d[1]], (*c.v)[d[2]]);
    return 0.5 * description_.mass * v.squaredNorm();
}

void PointMass::declare_pattern(PatternBuilder& pattern) { stencil_ = pattern.add_stencil(geometry_.point_dofs[0]); }

void PointMass::add_residual_and_jacobian(const EvalContext& c, Assembly& assembly) {
    add_lumped_inertia(c, assembly, stencil_, description_.mass);
}

}  // namespace soma::particles
