#pragma once
/// \file point_mass.hpp
/// \brief A point mass: three translational DOFs with a lumped mass and no internal energy.
///
/// Used for payloads and beads (MAT-DiSMech §7.1, Fig. 6, models the parachute's payload by adding mass
/// to the node the ropes share; in Soma the payload is a point_mass sharing that node through
/// `shared_nodes`, so the rope and canopy elements stay unchanged). Residual: F = m a,
/// Jacobian c_a m I.

#include "soma/element.hpp"
#include "soma/settings_errors.hpp"

namespace soma::particles {

struct PointMassDescription {
    Vec3 position = Vec3::Zero();
    Vec3 velocity = Vec3::Zero();
    double mass = 1.0;    ///< kg
    double radius = 0.0;  ///< contact radius (m)
};

class PointMass final : public Element {
public:
    /// Fails through \p errors at `mass` unless the mass is positive.
    explicit PointMass(const PointMassDescription& description, const SettingsErrors& errors = SettingsErrors("point_mass"));

    Index dof_count() const override { return 3; }
    void initial_state(VectorX& q_local, VectorX& v_local) const override;
    std::vector<DofGroup> dof_groups() const override;
    Index group_dof(const std::string& group, Index item, int component) const override;
    std::string describe_dof(Index local) const override;
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext& context) const override;

    void declare_pattern(PatternBuilder& pattern) override;
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;

protected:
    void on_bind() override;

private:
    PointMassDescription description_;
    Geometry geometry_;
    StencilId stencil_ = 0;
};

}  // namespace soma::particles
