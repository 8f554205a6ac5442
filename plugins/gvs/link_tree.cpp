#include "link_tree.hpp"

#include <Eigen/Eigenvalues>

#include <stdexcept>

namespace soma::gvs {

namespace {

/// Two unit vectors that complete the unit vector \p a to a right-handed orthonormal basis.
void complete_basis(const Vec3& a, Vec3& b1, Vec3& b2) {
    const Vec3 trial = std::abs(a.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
    b1 = (trial - trial.dot(a) * a).normalized();
    b2 = a.cross(b1);
}

[[noreturn]] void fail(const LinkDescription& link, const std::string& message) {
    throw std::invalid_argument("link '" + link.name + "': " + message);
}

}  // namespace

Mat6 spatial_inertia(double m, const Mat3& Ic, const Vec3& c) {
    const Mat3 C = skew(c);
    return from_blocks(Mat3(Ic + m * C.transpose() * C), Mat3(m * C), Mat3(m * C.transpose()), Mat3(m * Mat3::Identity()));
}

const char* joint_type_name(JointType type) {
    switch (type) {
        case JointType::fixed: return "fixed";
        case JointType::revolute: return "revolute";
        case JointType::prismatic: return "prismatic";
        case JointType::helical: return "helical";
        case JointType::cylindrical: return "cylindrical";
        case JointType::planar: return "planar";
        case JointType::spherical: return "spherical";
        case JointType::free: return "free";
    }
    return "?";
}

Matrix6X joint_basis(const JointDescription& joint) {
    const bool needs_axis = joint.type != JointType::fixed && joint.type != JointType::spherical &&
                            joint.type != JointType::free;
    if (needs_axis && (!joint.axis.allFinite() || !(joint.axis.norm() > 0.0)))
        throw std::invalid_argument(std::string("a ") + joint_type_name(joint.type) +
                                    " joint needs a finite, non-zero axis");
    if (!std::isfinite(joint.pitch)) throw std::invalid_argument("the helical joint's pitch must be finite");
    const Vec3 a = needs_axis ? Vec3(joint.axis.normalized()) : Vec3::UnitZ();
    Matrix6X phi;
    switch (joint.type) {
        case JointType::fixed: phi.setZero(6, 0); break;
        case JointType::revolute:
            phi.setZero(6, 1);
            phi.col(0).head<3>() = a;
            break;
        case JointType::prismatic:
            phi.setZero(6, 1);
            phi.col(0).tail<3>() = a;
            break;
        case JointType::helical:
            phi.setZero(6, 1);
            phi.col(0) << a, joint.pitch * a;
            break;
        case JointType::cylindrical:
            phi.setZero(6, 2);
            phi.col(0).head<3>() = a;
            phi.col(1).tail<3>() = a;
            break;
        case JointType::planar: {
            Vec3 b1, b2;
            complete_basis(a, b1, b2);
            phi.setZero(6, 3);
            phi.col(0).head<3>() = a;
            phi.col(1).tail<3>() = b1;
            phi.col(2).tail<3>() = b2;
            break;
        }
        case JointType::spherical:
            phi.setZero(6, 3);
            phi.topRows<3>().setIdentity();
            break;
        case JointType::free: phi = Matrix6X::Identity(6, 6); break;
    }
    return phi;
}

LinkTree build_link_tree(const RobotDescription& robot) {
    LinkTree tree;
    tree.links.resize(robot.links.size());
    // First the layout of q (the model's size must be known before its points are added).
    Index dofs = 0;
    for (std::size_t i = 0; i < robot.links.size(); ++i) {
        const LinkDescription& link = robot.links[i];
        LinkLayout& layout = tree.links[i];
        if (link.parent < -1 || link.parent >= static_cast<Index>(i))
            fail(link, "its parent must be the base or an earlier link");
        try {
            layout.joint_basis = joint_basis(link.joint);
        } catch (const std::invalid_argument& e) {
            fail(link, e.what());
        }
        layout.joint_first_dof = dofs;
        layout.joint_dof_count = static_cast<Index>(layout.joint_basis.cols());
        dofs += layout.joint_dof_count;
        if (link.initial_joint.size() != 0 && link.initial_joint.size() != layout.joint_dof_count)
            fail(link, "the initial joint coordinates have " + std::to_string(link.initial_joint.size()) +
                           " values, the " + joint_type_name(link.joint.type) + " joint has " +
                           std::to_string(layout.joint_dof_count));
        if (!link.initial_joint.allFinite()) fail(link, "the initial joint coordinates must be finite");
        // Exponential coordinates of a rotation are singular at |w| = 2 pi (T(xi) is not invertible).
        if ((link.joint.type == JointType::spherical || link.joint.type == JointType::free) &&
            link.initial_joint.size() != 0 && !(link.initial_joint.head<3>().norm() < 2.0 * M_PI))
            fail(link, std::string("the initial rotation of a ") + joint_type_name(link.joint.type) +
                           " joint must be below 2 pi in size (exponential coordinates are singular there)");
        if (const auto* soft = std::get_if<SoftLinkBody>(&link.body)) {
            try {
                layout.rod.emplace(soft->rod);
                if (!soft->cables.empty()) layout.tendons.emplace(*layout.rod, soft->cables);
            } catch (const std::invalid_argument& e) {
                fail(link, e.what());
            }
            layout.rod_first_dof = dofs;
            layout.rod_dof_count = layout.rod->dof_count();
            dofs += layout.rod_dof_count;
        }
    }

    MultibodyModel& model = tree.model;
    model.dof_count = dofs;
    model.root_pose = robot.base;
    tree.stiffness.setZero(dofs, dofs);
    tree.damping.setZero(dofs, dofs);
    tree.initial_q.setZero(dofs);
    tree.point_mass.assign(1, 0.0);
    tree.point_gravity_moment.assign(1, Vec3::Zero());
    tree.point_link.assign(1, -1);
    const auto add_point = [&](Edge edge, Index parent, const Mat6& inertia, Index link, double mass,
                               const Vec3& mass_moment) {
        const Index point = model.add_point(std::move(edge), parent, inertia);
        tree.point_mass.push_back(mass);
        tree.point_gravity_moment.push_back(mass_moment);
        tree.point_link.push_back(link);
        return point;
    };

    for (std::size_t i = 0; i < robot.links.size(); ++i) {
        const LinkDescription& link = robot.links[i];
        LinkLayout& layout = tree.links[i];
        const Index self = static_cast<Index>(i);
        Index at = link.parent < 0 ? 0 : tree.links[static_cast<std::size_t>(link.parent)].end_point;
        const bool has_offset = !link.offset.p.isZero(0.0) || !link.offset.R.isIdentity(0.0);
        try {
            if (has_offset) {
                Edge offset;
                offset.transform = link.offset;
                at = add_point(std::move(offset), at, Mat6::Zero(), self, 0.0, Vec3::Zero());
            }
            if (layout.joint_dof_count > 0) {
                Edge joint;
                joint.kind = EdgeKind::rigid_joint;
                joint.first_dof = layout.joint_first_dof;
                joint.dof_count = layout.joint_dof_count;
                joint.phi_z1 = layout.joint_basis;
                at = add_point(std::move(joint), at, Mat6::Zero(), self, 0.0, Vec3::Zero());
                if (link.initial_joint.size() != 0)
                    tree.initial_q.segment(layout.joint_first_dof, layout.joint_dof_count) = link.initial_joint;
            }
            layout.frame_point = layout.first_point = at;
            if (const auto* rigid = std::get_if<RigidLinkBody>(&link.body)) {
                if (!(rigid->mass >= 0.0) || !std::isfinite(rigid->mass)) fail(link, "the mass must be finite and >= 0");
                if (!rigid->inertia.allFinite() || !rigid->center_of_mass.allFinite())
                    fail(link, "the inertia and the centre of mass must be finite");
                if (!(rigid->inertia - rigid->inertia.transpose()).isZero(1e-12 * (1.0 + rigid->inertia.norm())) ||
                    Eigen::SelfAdjointEigenSolver<Mat3>(rigid->inertia).eigenvalues().minCoeff() <
                        -1e-12 * rigid->inertia.norm())
                    fail(link, "the inertia must be symmetric positive semi-definite");
                // The body sits at the link frame: its inertia joins that point's (which may be the
                // parent's end when the joint is fixed and there is no offset).
                model.inertia[static_cast<std::size_t>(at)] +=
                    spatial_inertia(rigid->mass, rigid->inertia, rigid->center_of_mass);
                tree.point_mass[static_cast<std::size_t>(at)] += rigid->mass;
                tree.point_gravity_moment[static_cast<std::size_t>(at)] += rigid->mass * rigid->center_of_mass;
                const bool has_end = !rigid->end.p.isZero(0.0) || !rigid->end.R.isIdentity(0.0);
                if (has_end) {
                    Edge end;
                    end.transform = rigid->end;
                    at = add_point(std::move(end), at, Mat6::Zero(), self, 0.0, Vec3::Zero());
                }
                layout.end_point = at;
            } else {
                const RodDiscretization& rod = *layout.rod;
                layout.first_point = add_soft_rod(model, at, rod, layout.rod_first_dof);
                for (Index k = 1; k < rod.point_count(); ++k) {
                    const auto kk = static_cast<std::size_t>(k);
                    tree.point_mass.push_back(rod.weight[kk] * rod.inertia[kk](3, 3));
                    tree.point_gravity_moment.push_back(Vec3::Zero());  // the section's centroid is on the axis
                    tree.point_link.push_back(self);
                }
                layout.end_point = layout.first_point + rod.point_count() - 2;
                const Index f = layout.rod_first_dof, n = layout.rod_dof_count;
                tree.stiffness.block(f, f, n, n) = rod.K;
                tree.damping.block(f, f, n, n) = rod.D;
            }
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            if (what.rfind("link '", 0) == 0) throw;
            fail(link, what);
        }
    }
    return tree;
}

}  // namespace soma::gvs
