#pragma once
/// \file floor_contacts.hpp
/// \brief `ncp_contact`: the contacts of elements' points with a floor (a plane), as inequality
/// rows with Coulomb friction for `ncp_newton` (contact_constraint.hpp; Macklin et al. 2019,
/// eqs. 9-16).
///
/// Every point of the named elements is a candidate: rod, shell and particle nodes, and a rigid
/// body's contact points (a box's corners, a sphere's centre with its radius; rigid_shape.hpp).
/// At each step's start a point becomes a contact when its gap to the plane, now or predicted
/// over the step, is within `margin`:
///
///     gap = n . x - height - radius,   predicted = gap + 2 h n . xdot(q, v + h a)
///
/// (twice the step's motion at the start's velocity and acceleration: a point that reaches the
/// floor during the step is caught). The margin catches what the prediction cannot see: a point
/// resting on the floor has no acceleration at the step's start (its contact force balanced its
/// weight), and a gap of +1e-16 m would otherwise leave it to fall through one step unchecked.
/// A contact farther than its gap costs an inactive row, nothing more (lambda_n = 0). The row is C_n = n . x - height - radius >= 0 with the
/// plane's normal n, whatever the point does in the step (the normal is fixed per step in the
/// paper; a plane's is fixed always). A point whose DOFs are all fixed or prescribed cannot be
/// pushed and is not a candidate.

#include "soma/contact_constraint.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/settings_errors.hpp"

#include <string>
#include <vector>

namespace soma::ncp {

struct FloorContactSettings {
    std::vector<std::string> elements;  ///< empty: every element
    double height = 0.0;                ///< the plane n . x = height
    Vec3 normal = Vec3::UnitZ();        ///< out of the floor; normalised
    double friction = 0.0;              ///< Coulomb coefficient mu
    double margin = 1e-3;               ///< detection distance (m)
};

class FloorContacts final : public ContactConstraint {
public:
    FloorContacts(FloorContactSettings settings, SettingsErrors errors);

    void bind(const SceneView& scene) override;
    void detect(const SceneView& scene, double dt) override;
    bool has_friction() const override { return settings_.friction > 0.0; }

private:
    struct Candidate {
        const Element* element = nullptr;
        Index point = 0;
        double radius = 0.0;
    };
    FloorContactSettings settings_;
    SettingsErrors errors_;
    std::vector<Candidate> candidates_;
    VectorX velocity_ahead_;  ///< v + h a of the step's start
    PointKinematics kinematics_;
};

}  // namespace soma::ncp
