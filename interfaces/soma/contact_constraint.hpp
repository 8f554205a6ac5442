#pragma once
/// \file contact_constraint.hpp
/// \brief Contacts as inequality constraint rows with Coulomb friction, for an integrator that
/// solves complementarity problems (the non-smooth Newton of Macklin et al. 2019, plugins/ncp).
///
/// A contact constraint finds, at the start of every step, the pairs of points that may touch
/// during it (collision detection), and gives each a row (Macklin et al. 2019, eqs. 9, 10)
///
///     C_n(q) = n . (x_a(q) - x_b(q)) - d >= 0   ⟂   lambda_n >= 0
///
/// with the normal n fixed in the world for the step (pointing from b to a) and d the contact's
/// thickness (the points' radii). The normal force lambda_n acts on a as +lambda_n n and on b as
/// -lambda_n n. A contact with a friction coefficient mu > 0 also has a cone (eqs. 11-16): the
/// friction force lambda_f in the plane of the tangents t1, t2, |lambda_f| <= mu lambda_n, opposing
/// the slip velocity t_k . (xdot_a - xdot_b) with the largest dissipation.
///
/// The generator is only geometric: it lists the contacts (points of elements or of the world,
/// the normal, the thickness, mu); the kernel evaluates their rows from the elements' point maps
/// (point_kinematics.hpp) into System::contact_rows(), sparse, so a contact touches only its
/// points' DOFs (kernel/contact_set.*). The contacts change from step to step; nothing of them
/// enters the kernel's cached Jacobian pattern.

#include "soma/constraint.hpp"
#include "soma/element.hpp"
#include "soma/system.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

namespace soma {

/// \brief One side of a contact: a material point of an element, or a fixed point of the world.
///
/// The material point is a fixed combination x = sum_k w_k x_k(q) of up to three points of the
/// element's Geometry (point_map.hpp): one point (a node), a point on an edge (two) or on a
/// triangle (three, barycentric weights; outside the triangle, in its plane, the weights
/// extrapolate). On a rigid body any such combination is a body-fixed point; on a shell it is the
/// material point of the triangle. Or it is a point of one of the element's frames
/// (frame_kinematics.hpp), x = x_frame + R_frame offset + arm: `offset` turns with the body, `arm`
/// is fixed in the world for the step. A sphere touches at its centre (offset) plus its radius
/// along the normal (arm): the friction there turns it (a ball rolls), and the gap is its
/// centre's distance minus the radius whatever the ball's turn in the step.
struct ContactEnd {
    const Element* element = nullptr;  ///< null: the world point `world`
    std::array<Index, 3> points{};     ///< point indices in the element's Geometry
    std::array<double, 3> weights{1.0, 0.0, 0.0};
    int count = 1;                     ///< points used (1 to 3)
    Index frame = -1;                  ///< >= 0: the point is offset + arm from this frame's origin (points unused)
    Vec3 offset = Vec3::Zero();        ///< in the frame's axes (turns with the body)
    Vec3 arm = Vec3::Zero();           ///< world, fixed for the step
    Vec3 world = Vec3::Zero();

    static ContactEnd at_point(const Element* element, Index point) {
        ContactEnd end;
        end.element = element;
        end.points[0] = point;
        return end;
    }
    static ContactEnd at_world(const Vec3& x) {
        ContactEnd end;
        end.world = x;
        return end;
    }
};

/// One contact for one step.
struct UnilateralContact {
    ContactEnd a, b;
    Vec3 normal = Vec3::UnitZ();  ///< unit, world, from b towards a; fixed during the step
    double thickness = 0.0;       ///< d: the separation at which the contact closes (m)
    double friction = 0.0;        ///< Coulomb coefficient mu (0: frictionless)
};

/// \brief The two unit tangents t1, t2 of the plane normal to \p normal (unit), right-handed with it:
/// the friction basis of a contact (Macklin et al. 2019, section 3.4, D = [t1 t2]).
inline void contact_tangents(const Vec3& normal, Vec3& t1, Vec3& t2) {
    // The world axis least aligned with n gives a well-conditioned first tangent.
    Vec3 axis = Vec3::UnitX();
    if (std::abs(normal.y()) < std::abs(normal.x()) && std::abs(normal.y()) <= std::abs(normal.z())) axis = Vec3::UnitY();
    else if (std::abs(normal.z()) < std::abs(normal.x())) axis = Vec3::UnitZ();
    t1 = axis.cross(normal).normalized();
    t2 = normal.cross(t1);
}

/// \brief A constraint of kind `inequality` whose rows are contacts found at each step's start.
///
/// Its rows are not evaluated densely (evaluate() is not used: the kernel reads contacts()),
/// and its row count is that of the contacts of the current step.
class SOMA_API ContactConstraint : public Constraint {
public:
    ~ContactConstraint() override;  // out of line in the kernel: one type identity across plugins
    ConstraintKind kind() const final { return ConstraintKind::inequality; }
    /// \brief Finds the contacts of a step of size \p dt from scene.state() (q, v at its start):
    /// fills contacts(). Called through System::detect_contacts by the integrator, before each
    /// step's solve and, for later looks, after it.
    ///
    /// \p solved is empty on a step's first look. An integrator may look again after solving the
    /// step, passing the ends of its solves so far (one per earlier look, in order): the contacts
    /// are then the first look's, followed by those within reach at each solved end that the
    /// looks before did not have (a body knocked into another during the step, a plate slammed
    /// flat whose far edge the start's geometry did not pair). A look is a function of its
    /// arguments: looking again with fewer solved ends finds the contacts of that earlier look.
    virtual void detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved) = 0;
    /// True when some contact may carry friction (the integrator must treat ConstraintKind::friction).
    virtual bool has_friction() const = 0;
    /// The contacts of the current step, in row order.
    const std::vector<UnilateralContact>& contacts() const { return contacts_; }

    /// \brief The forces the integrator found for contacts() at the step committed (the kernel
    /// passes them on, System::set_contact_forces): \p normal one per contact (N), \p friction
    /// two per contact along contact_tangents' t1, t2 (N).
    void set_contact_forces(const double* normal, const double* friction) {
        normal_forces_.assign(normal, normal + contacts_.size());
        friction_forces_.assign(friction, friction + 2 * contacts_.size());
    }
    /// The normal forces of contacts() at the step committed (N; empty before the first step).
    const std::vector<double>& normal_forces() const { return normal_forces_; }
    /// The friction forces of contacts() at the step committed, two per contact along
    /// contact_tangents' t1, t2 (N).
    const std::vector<double>& friction_forces() const { return friction_forces_; }
    /// contacts, active_contacts, normal_force, friction_force (CSV probe `statistic`).
    std::vector<TermStatistic> statistics() const override {
        return {{"contacts", "", "contacts found at the step's start"},
                {"active_contacts", "", "contacts carrying a normal force"},
                {"normal_force", "N", "sum of the normal forces"},
                {"friction_force", "N", "sum of the friction forces' magnitudes"}};
    }
    double statistic(std::size_t index) const override {
        double sum = 0.0, largest = 0.0;
        for (const double f : normal_forces_) largest = std::max(largest, f);
        for (std::size_t i = 0; i < normal_forces_.size(); ++i) {
            // Active: above the round-off a separating contact's force settles at.
            if (index == 1) sum += normal_forces_[i] > 1e-9 * largest ? 1.0 : 0.0;
            if (index == 2) sum += normal_forces_[i];
            if (index == 3) sum += std::hypot(friction_forces_[2 * i], friction_forces_[2 * i + 1]);
        }
        return index == 0 ? static_cast<double>(normal_forces_.size()) : sum;
    }

    Index row_count() const final { return static_cast<Index>(contacts_.size()); }
    /// Empty: each contact's DOFs are its points' (the kernel reads them from the point maps).
    const std::vector<Index>& dofs() const final { return no_dofs_; }
    void evaluate(const EvalContext&, const double*, ConstraintEvaluation&) const final {
        throw std::logic_error("contact rows are evaluated by the kernel from contacts() (kernel/contact_set.hpp)");
    }

protected:
    std::vector<UnilateralContact> contacts_;
    std::vector<double> normal_forces_, friction_forces_;  ///< of the last committed step

private:
    std::vector<Index> no_dofs_;
};

}  // namespace soma
