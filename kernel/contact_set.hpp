#pragma once
/// \file contact_set.hpp
/// \brief The scene's contact constraints (contact_constraint.hpp) as the kernel evaluates them:
/// each step's contacts laid out as sparse rows over the DOFs of their points, and filled at
/// every evaluation from the elements' point maps (System::contact_rows).
///
/// Contacts are not in the KKT system: an integrator that treats them (the non-smooth Newton of
/// plugins/ncp) adds their rows itself, so they never enter the cached Jacobian pattern, and a
/// step's new contacts cost a layout here, not a symbolic analysis.

#include "soma/contact_constraint.hpp"
#include "soma/parameters.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/system.hpp"

#include <memory>
#include <vector>

namespace soma {

class SceneView;

class ContactSet {
public:
    void add(std::unique_ptr<ContactConstraint> constraint, Parameters parameters);
    bool empty() const { return constraints_.empty(); }
    const std::vector<std::unique_ptr<ContactConstraint>>& constraints() const { return constraints_; }
    const Parameters& parameters(std::size_t i) const { return parameters_[i]; }

    /// \brief Every constraint's detect(scene, dt, solved), then the rows' layout over \p dof_count
    /// global DOF columns (allocates: once per step, again on a second look).
    void detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved, Index dof_count);
    /// Contacts of the current step.
    Index count() const { return static_cast<Index>(contacts_.size()); }
    /// \brief Fills rows() at the iterate of \p context (q; the kernel's evaluation point).
    void evaluate(const EvalContext& context);
    const ContactRows& rows() const { return rows_; }
    /// The contact \p i of the current step, with its friction tangents.
    const UnilateralContact& contact(Index i) const { return contacts_[static_cast<std::size_t>(i)].contact; }
    void tangents(Index i, Vec3& t1, Vec3& t2) const {
        t1 = contacts_[static_cast<std::size_t>(i)].t1;
        t2 = contacts_[static_cast<std::size_t>(i)].t2;
    }
    /// Keeps the forces the integrator found for these contacts (System::set_contact_forces),
    /// and gives each constraint its own contacts' share (its statistics).
    void set_forces(const VectorX& normal, const VectorX& friction);
    const VectorX& normal_forces() const { return normal_forces_; }
    const VectorX& friction_forces() const { return friction_forces_; }

private:
    /// One side of a laid-out contact: where its points' Jacobian columns go in the rows, point
    /// after point (a DOF two points share has one slot, which both add to).
    struct LaidOutEnd {
        std::vector<Index> normal_slots;   ///< per point DOF: value index in the normal Jacobians
        std::vector<Index> tangent_slots;  ///< per point DOF: value indices of rows 2i, 2i+1 (interleaved)
    };
    struct LaidOutContact {
        UnilateralContact contact;
        Vec3 t1, t2;
        LaidOutEnd a, b;
    };
    /// Adds sign times the contact's end (its weighted points) to the gap's position term and to
    /// the rows of contact \p i.
    double add_end(const ContactEnd& end, const LaidOutEnd& slots, const EvalContext& context, double sign,
                   const Vec3& n, const Vec3& t1, const Vec3& t2);

    std::vector<std::unique_ptr<ContactConstraint>> constraints_;
    std::vector<Parameters> parameters_;
    std::vector<LaidOutContact> contacts_;
    ContactRows rows_;
    VectorX normal_forces_, friction_forces_;
    PointKinematics kinematics_;
    FrameKinematics frame_;
};

}  // namespace soma
