#include "frame_end.hpp"

#include "soma/scene_view.hpp"

#include <algorithm>

namespace soma::joints {

namespace {

std::string frame_list(const Element& element) {
    std::string names;
    for (Index f = 0; f < element.frame_count(); ++f) names += (f ? ", " : "") + element.frame_name(f);
    return names;
}

/// Adds block(r, c) of a frame's DOFs into the joint's columns.
template <class Block>
void scatter(Eigen::MatrixXd& out, const std::vector<Index>& columns, const Block& block, int count) {
    for (int r = 0; r < count; ++r)
        for (int c = 0; c < count; ++c)
            out(columns[static_cast<std::size_t>(r)], columns[static_cast<std::size_t>(c)]) += block(r, c);
}

}  // namespace

BoundFrame bind_frame_end(const SceneView& scene, const FrameEnd& end, const Parameters& block, const std::string& joint_kind,
                          std::vector<Index>& dofs) {
    BoundFrame out;
    if (end.element.empty()) {
        out.world = end.world;
        return out;
    }
    out.element = scene.find_element(end.element);
    if (!out.element) block.fail("element", "no element named '" + end.element + "'");
    const Element& element = *out.element;
    if (element.frame_count() == 0)
        block.fail("element", "element '" + end.element + "' has no frames: " + joint_kind +
                                  " holds a frame (a discrete_rod's end, a rigid_body's body frame, a gvs link's "
                                  "frame); to hold a point use a ball_joint");
    if (end.frame) {
        out.frame = -1;
        for (Index f = 0; f < element.frame_count(); ++f)
            if (element.frame_name(f) == *end.frame) out.frame = f;
        if (out.frame < 0)
            block.fail("frame", "element '" + end.element + "' has no frame '" + *end.frame + "' (its frames: " +
                                    frame_list(element) + ")");
    }
    EvalContext context;
    context.q = &scene.state().q;
    FrameKinematics k;
    element.frame_kinematics(out.frame, context, k);
    for (int c = 0; c < k.dof_count; ++c) {
        const Index dof = k.dof(c);
        auto it = std::find(dofs.begin(), dofs.end(), dof);  // the two ends may share DOFs
        if (it == dofs.end()) it = dofs.insert(dofs.end(), dof);
        out.columns.push_back(static_cast<Index>(it - dofs.begin()));
    }
    return out;
}

bool frames_move_as_one(const BoundFrame& a, const BoundFrame& b, const std::vector<Index>& dofs) {
    if (!a.element || a.element != b.element) return false;
    std::vector<Index> first, second;
    for (const Index c : a.columns) first.push_back(dofs[static_cast<std::size_t>(c)]);
    for (const Index c : b.columns) second.push_back(dofs[static_cast<std::size_t>(c)]);
    std::sort(first.begin(), first.end());
    std::sort(second.begin(), second.end());
    return first == second;
}

void end_kinematics(const BoundFrame& end, const EvalContext& context, FrameKinematics& k) {
    if (end.element) {
        end.element->frame_kinematics(end.frame, context, k);
        return;
    }
    k.set_dof_count(0);
    k.origin = end.world;
    k.rotation.setIdentity();
    k.velocity.setZero();
    k.angular_velocity.setZero();
}

void add_end_geometric_stiffness(const BoundFrame& end, const EvalContext& context, FrameKinematics& k, const Vec3& force,
                                 const Vec3& torque, Eigen::MatrixXd& curvature) {
    if (!end.element) return;
    if (k.is_wide()) {  // a GVS robot's frame (frame_kinematics.hpp)
        end.element->wide_frame_geometric_stiffness(end.frame, context, force, torque, k.wide_stiffness);
        scatter(curvature, end.columns, k.wide_stiffness, k.dof_count);
        return;
    }
    FrameStiffness stiffness = FrameStiffness::Zero();
    end.element->add_frame_geometric_stiffness(end.frame, context, force, torque, stiffness);
    scatter(curvature, end.columns, stiffness, k.dof_count);
}

}  // namespace soma::joints
