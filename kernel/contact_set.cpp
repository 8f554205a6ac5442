// The contact rows (contact_set.hpp).
#include "contact_set.hpp"

#include "sparse_value_index.hpp"

#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <algorithm>

namespace soma {

void ContactSet::add(std::unique_ptr<ContactConstraint> constraint, Parameters parameters) {
    constraints_.push_back(std::move(constraint));
    parameters_.push_back(std::move(parameters));
}

void ContactSet::detect(const SceneView& scene, double dt, std::span<const SolvedStep> solved, Index dof_count) {
    contacts_.clear();
    for (const auto& constraint : constraints_) {
        constraint->detect(scene, dt, solved);
        for (const UnilateralContact& contact : constraint->contacts()) {
            LaidOutContact c;
            c.contact = contact;
            contact_tangents(contact.normal, c.t1, c.t2);
            contacts_.push_back(std::move(c));
        }
    }
    // The pattern: each contact's row over its two points' DOFs (a DOF both points share, as in
    // a self contact, is one entry that both add to).
    const VectorX& q = scene.state().q;
    std::vector<std::vector<Index>> end_dofs(2 * contacts_.size());  // each end's points' DOFs, point after point
    std::vector<Eigen::Triplet<double, Index>> normal_entries, tangent_entries;
    for (std::size_t i = 0; i < contacts_.size(); ++i)
        for (int side = 0; side < 2; ++side) {
            const ContactEnd& end = side == 0 ? contacts_[i].contact.a : contacts_[i].contact.b;
            if (!end.element) continue;
            std::vector<Index>& dofs = end_dofs[2 * i + static_cast<std::size_t>(side)];
            if (end.frame >= 0) {
                EvalContext context;
                context.q = &q;
                end.element->frame_kinematics(end.frame, context, frame_);
                const auto span = frame_.dof_span();
                dofs.assign(span.begin(), span.end());
            }
            for (int k = 0; end.frame < 0 && k < end.count; ++k) {
                const std::vector<Index> point = point_stencil(*end.element, end.points[static_cast<std::size_t>(k)], q);
                dofs.insert(dofs.end(), point.begin(), point.end());
            }
            const auto row = static_cast<Index>(i);
            for (const Index dof : dofs) {
                normal_entries.emplace_back(row, dof, 0.0);
                tangent_entries.emplace_back(2 * row, dof, 0.0);
                tangent_entries.emplace_back(2 * row + 1, dof, 0.0);
            }
        }
    const auto n_c = static_cast<Index>(contacts_.size());
    SparseMatrix normal(n_c, dof_count), tangent(2 * n_c, dof_count);
    normal.setFromTriplets(normal_entries.begin(), normal_entries.end());
    tangent.setFromTriplets(tangent_entries.begin(), tangent_entries.end());
    normal.makeCompressed();
    tangent.makeCompressed();
    for (std::size_t i = 0; i < contacts_.size(); ++i)
        for (int side = 0; side < 2; ++side) {
            LaidOutEnd& slots = side == 0 ? contacts_[i].a : contacts_[i].b;
            const auto row = static_cast<Index>(i);
            for (const Index dof : end_dofs[2 * i + static_cast<std::size_t>(side)]) {
                slots.normal_slots.push_back(sparse_value_index(normal, row, dof));
                slots.tangent_slots.push_back(sparse_value_index(tangent, 2 * row, dof));
                slots.tangent_slots.push_back(sparse_value_index(tangent, 2 * row + 1, dof));
            }
        }
    rows_.gap = VectorX::Zero(n_c);
    rows_.friction.resize(n_c);
    for (Index i = 0; i < n_c; ++i) rows_.friction[i] = contacts_[static_cast<std::size_t>(i)].contact.friction;
    rows_.normal_force_jacobian = normal;
    rows_.normal_position_jacobian = std::move(normal);
    rows_.tangent_jacobian = std::move(tangent);
}

void ContactSet::set_forces(const VectorX& normal, const VectorX& friction) {
    normal_forces_ = normal;
    friction_forces_ = friction;
    Index first = 0;
    for (const auto& constraint : constraints_) {
        constraint->set_contact_forces(normal.data() + first, friction.data() + 2 * first);
        first += constraint->row_count();
    }
}

double ContactSet::add_end(const ContactEnd& end, const LaidOutEnd& slots, const EvalContext& context, double sign,
                           const Vec3& n, const Vec3& t1, const Vec3& t2) {
    if (!end.element) return sign * n.dot(end.world);
    double* g_f = rows_.normal_force_jacobian.valuePtr();
    double* g_q = rows_.normal_position_jacobian.valuePtr();
    double* d = rows_.tangent_jacobian.valuePtr();
    if (end.frame >= 0) {
        // x = x_o + R offset + arm: xdot = v_o + omega x (R offset + arm) at the contact point
        // (the arm, fixed in the world, is where a rolling sphere touches), so a direction u sees
        // u . xdot = [u; (R offset + arm) x u] . [v_o; omega] (rows of J, and of J_q alike).
        end.element->frame_kinematics(end.frame, context, frame_);
        const Vec3 arm = frame_.rotation * end.offset + end.arm;
        const auto row = [&](const Vec3& u, const auto& jacobian, int c) {
            return u.dot(jacobian.col(c).template head<3>()) + arm.cross(u).dot(jacobian.col(c).template tail<3>());
        };
        const auto force_jacobian = frame_.jacobian_columns();
        const auto position_jacobian = frame_.position_jacobian_columns();
        for (int c = 0; c < frame_.dof_count; ++c) {
            const auto column = static_cast<std::size_t>(c);
            g_f[slots.normal_slots[column]] += sign * row(n, force_jacobian, c);
            g_q[slots.normal_slots[column]] += sign * row(n, position_jacobian, c);
            d[slots.tangent_slots[2 * column]] += sign * row(t1, force_jacobian, c);
            d[slots.tangent_slots[2 * column + 1]] += sign * row(t2, force_jacobian, c);
        }
        return sign * n.dot(frame_.origin + arm);
    }
    double position = 0.0;
    std::size_t column = 0;  // the end's DOF columns run over its points in turn
    for (int p = 0; p < end.count; ++p) {
        const PointKinematics& k = kinematics_;
        evaluate_point(*end.element, end.points[static_cast<std::size_t>(p)], context, kinematics_);
        const double w = sign * end.weights[static_cast<std::size_t>(p)];
        position += w * n.dot(k.position);
        const auto force_jacobian = k.jacobian_columns();
        const auto position_jacobian = k.position_jacobian_columns();
        for (int c = 0; c < k.dof_count; ++c, ++column) {
            g_f[slots.normal_slots[column]] += w * n.dot(force_jacobian.col(c));
            g_q[slots.normal_slots[column]] += w * n.dot(position_jacobian.col(c));
            d[slots.tangent_slots[2 * column]] += w * t1.dot(force_jacobian.col(c));
            d[slots.tangent_slots[2 * column + 1]] += w * t2.dot(force_jacobian.col(c));
        }
    }
    return position;
}

void ContactSet::evaluate(const EvalContext& context) {
    for (SparseMatrix* m : {&rows_.normal_force_jacobian, &rows_.normal_position_jacobian, &rows_.tangent_jacobian})
        std::fill(m->valuePtr(), m->valuePtr() + m->nonZeros(), 0.0);
    for (std::size_t i = 0; i < contacts_.size(); ++i) {
        const LaidOutContact& c = contacts_[i];
        const Vec3& n = c.contact.normal;
        // C_n = n . (x_a - x_b) - d (Macklin et al. 2019, eq. 9)
        const double along_normal = add_end(c.contact.a, c.a, context, 1.0, n, c.t1, c.t2) +
                                    add_end(c.contact.b, c.b, context, -1.0, n, c.t1, c.t2);
        rows_.gap[static_cast<Index>(i)] = along_normal - c.contact.thickness;
    }
}

}  // namespace soma
