#include "loop_joint_constraint.hpp"

#include "soma/scene_view.hpp"

#include <Eigen/LU>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace soma::gvs {

LoopJointConstraint::LoopJointConstraint(std::string element, std::vector<LoopJointSettings> joints,
                                         Parameters parameters)
    : element_name_(std::move(element)), joints_(std::move(joints)), parameters_(std::move(parameters)) {}

std::pair<Index, Pose> LoopJointConstraint::resolve(const LoopJointSettings& joint, const std::string& key) const {
    const LoopJointEnd& end = key == "a" ? joint.a : joint.b;
    if (end.link == "base") {
        if (end.at_end) joint.parameters.block(key).fail("at", "the base has one frame: leave `at` out (or write frame)");
        return {0, end.offset};
    }
    const auto& links = element_->description().robot.links;
    for (std::size_t l = 0; l < links.size(); ++l)
        if (links[l].name == end.link) {
            const LinkLayout& layout = element_->tree().links[l];
            return {end.at_end ? layout.end_point : layout.frame_point, end.offset};
        }
    std::string names = "base";
    for (const auto& link : links) names += ", " + link.name;
    joint.parameters.block(key).fail("link", "element '" + element_name_ + "' has no link '" + end.link +
                                                 "' (its links: " + names + ")");
}

Matrix6X LoopJointConstraint::constrained_directions(const LoopJointSettings& joint) const {
    Matrix6X constrained;
    if (joint.joint == "weld")
        constrained = weld_directions();
    else if (joint.joint == "spherical")
        constrained = spherical_directions();
    else {
        try {
            constrained = revolute_directions(joint.axis);
        } catch (const std::invalid_argument& e) {
            joint.parameters.fail("axis", e.what());
        }
    }
    if (!joint.planar) return constrained;
    // In a planar model a hinge turns about the plane's normal; about any other axis its in-plane
    // rows would hold the rotation too (a weld), which is not what `revolute` says.
    if (joint.joint == "revolute" && joint.axis.normalized().cross(Vec3::UnitZ()).norm() > 1e-12)
        joint.parameters.fail("axis", "a planar loop joint turns about the plane's normal, frame b's z axis ([0, 0, 1])");
    return in_plane_directions(constrained);
}

void LoopJointConstraint::bind(const SceneView& scene) {
    const Element* element = scene.find_element(element_name_);
    if (!element) parameters_.fail("element", "no element is named '" + element_name_ + "'");
    element_ = dynamic_cast<const GvsElement*>(element);
    if (!element_) parameters_.fail("element", "element '" + element_name_ + "' is not a gvs robot");

    bare_ = element_->tree().model;
    bare_.world_wrench_points.clear();
    bare_.wall_contacts.clear();
    bare_.hydrodynamics.clear();
    chains_ = ClosedChainModel{};
    for (const LoopJointSettings& settings : joints_) {
        LoopJoint joint;
        std::tie(joint.point_a, joint.offset_a) = resolve(settings, "a");
        std::tie(joint.point_b, joint.offset_b) = resolve(settings, "b");
        if (joint.point_a == joint.point_b) settings.parameters.fail("b", "both ends are at the same point of the robot");
        joint.constrained = constrained_directions(settings);
        add_loop_joint(chains_, bare_, std::move(joint));
    }
    data_.emplace(bare_);
    chain_data_.emplace(bare_, chains_);
    dofs_ = element_->global_dofs();
    q_.setZero(bare_.dof_count);
    zero_.setZero(bare_.dof_count);
    const std::vector<double> no_force(static_cast<std::size_t>(chains_.row_count), 0.0);
    rows_at(scene.state().q, no_force.data());
    // Only free coordinates can move a row in the solve: a row moved by a prescribed or fixed
    // coordinate alone (an actuator's) leaves the saddle-point matrix singular all the same.
    std::vector<Index> free_columns;
    for (Index i = 0; i < bare_.dof_count; ++i)
        if (scene.dof_is_free(element_->global_dof(i))) free_columns.push_back(i);
    check_initial_configuration(free_columns);
}

void LoopJointConstraint::check_initial_configuration(const std::vector<Index>& free_columns) const {
    const Eigen::MatrixXd free_A = chain_data_->A(Eigen::all, free_columns);
    for (std::size_t j = 0; j < joints_.size(); ++j) {
        const Parameters& p = joints_[j].parameters;
        const Index first = chains_.first_row[j], rows = chains_.joints[j].constrained.cols();
        // The initial state must close the loop: a scene whose frames do not meet would be pulled
        // together by the first step's solve, far from anything the scene describes.
        const double gap = chain_data_->e.segment(first, rows).cwiseAbs().maxCoeff();
        if (!(gap <= 1e-9)) {
            std::ostringstream text;
            text << "the loop is not closed in the initial configuration: its largest error is " << gap
                 << " (m or rad; frames a and b must coincide, but for the joint's free directions)";
            p.fail("a", text.str());
        }
        if (joints_[j].planar) {
            // `planar` drops the out-of-plane rows: they must hold on their own, closed at the
            // start (rotations about x and y, translation along z of frame b) and moved by no
            // coordinate, or the joint would silently leave those directions free.
            const Vec6& log = chain_data_->relative_log[j];
            const double out_of_plane_gap = std::max({std::abs(log[0]), std::abs(log[1]), std::abs(log[5])});
            if (!(out_of_plane_gap <= 1e-9)) {
                std::ostringstream text;
                text << "the loop is not closed out of frame b's xy-plane in the initial configuration: its largest "
                     << "error there is " << out_of_plane_gap << " (m or rad; a planar loop's frames a and b must "
                     << "lie in one plane with the same z axis)";
                p.fail("a", text.str());
            }
            const Matrix6X& relative = chain_data_->relative_jacobian[j];
            const double moved = std::max({relative.row(0).norm(), relative.row(1).norm(), relative.row(5).norm()});
            if (!(moved <= 1e-9 * std::max(1.0, relative.norm()))) {
                std::ostringstream text;
                text << "the robot's coordinates move frame a out of frame b's xy-plane (rates up to " << moved
                     << " per unit coordinate: strains or joints out of the plane), so a planar joint would leave "
                     << "those directions free; hold them (leave `planar` out) or make the robot planar";
                p.fail("planar", text.str());
            }
        }
        // e = Phi_perp^T log(g_BA) changes branch where the relative rotation reaches pi: start well
        // inside (a free rotation started near pi would jump within a few degrees).
        const double turn = chain_data_->relative_log[j].head<3>().norm();
        if (!(turn <= 0.5 * M_PI)) {
            std::ostringstream text;
            text << "frames a and b start turned by " << turn << " rad about the free axis: the loop's error changes "
                 << "branch at pi, so start them within a quarter turn (turn frame b with b.offset_orientation)";
            p.fail("b", text.str());
        }
        // A row that no coordinate moves (a weld's axial row on an inextensible rod, a planar
        // robot's out-of-plane rows) makes the saddle-point matrix singular: say so here.
        const Eigen::FullPivLU<Eigen::MatrixXd> lu(free_A.middleRows(first, rows));
        if (lu.rank() < rows) {
            std::ostringstream text;
            text << "the loop's " << rows << " constrained directions are not independent at the initial "
                 << "configuration (rank " << lu.rank() << "): some direction of frame a relative to frame b cannot "
                 << "be moved by any free coordinate of the robot (an inextensible rod cannot change its length; a "
                 << "planar robot cannot leave its plane; fixed and prescribed coordinates do not count), and the "
                 << "solve would be singular; free that direction (a revolute "
                 << "or spherical joint, an extensible rod, `planar: true` for a robot that moves in frame b's "
                 << "xy-plane)";
            p.fail("joint", text.str());
        }
    }
    // Each joint's rows independent, but together not: two loops hold the same motion.
    const Eigen::FullPivLU<Eigen::MatrixXd> lu(free_A);
    if (lu.rank() < chains_.row_count) {
        std::ostringstream text;
        text << "the loops' " << chains_.row_count << " constrained directions are not independent at the initial "
             << "configuration (rank " << lu.rank() << "): two loops hold the same motion, and the solve would be "
             << "singular; remove the duplicate";
        parameters_.fail(joints_.size() > 1 ? "joints" : "joint", text.str());
    }
}

void LoopJointConstraint::rows_at(const VectorX& q, const double* lambda) const {
    for (Index i = 0; i < bare_.dof_count; ++i) q_[i] = q[element_->global_dof(i)];
    for (Index r = 0; r < chains_.row_count; ++r) chain_data_->lambda[r] = lambda[r];
    // At rest, without gravity and loads, ID of the bare tree is the loop's -A^T lambda alone.
    const ConstraintWrenches wrenches(chains_, *chain_data_);
    inverse_dynamics_derivatives(bare_, *data_, q_, zero_, zero_, Vec3::Zero(), &wrenches, DerivativeSet::static_loads);
    closed_chain_constraints(*data_, chains_, zero_, *chain_data_);
}

void LoopJointConstraint::evaluate(const EvalContext& context, const double* lambda, ConstraintEvaluation& out) const {
    rows_at(*context.q, lambda);
    out.value = chain_data_->e;
    out.force_jacobian = chain_data_->A;
    out.position_jacobian = chain_data_->de_dq;
    out.curvature = -data_->did_dq;
}

}  // namespace soma::gvs
