#pragma once
/// \file frame_end.hpp
/// \brief One end of a joint that holds frames (clamp, frame joints): a frame of an element, or
/// the world. Finds the frame by name, lists its DOFs among the joint's, reads its kinematics and
/// adds its map's geometric stiffness, for every frame joint alike.

#include "soma/element.hpp"
#include "soma/parameters.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma {
class SceneView;
}

namespace soma::joints {

/// A frame end as the scene names it.
struct FrameEnd {
    std::string element;               ///< empty: the world
    std::optional<std::string> frame;  ///< the element's frame by name (default: its first)
    Vec3 world = Vec3::Zero();         ///< a world end's origin (axes: the world's)
};

/// A frame end resolved in the built scene.
struct BoundFrame {
    const Element* element = nullptr;  ///< null: the world
    Index frame = 0;
    Vec3 world = Vec3::Zero();
    std::vector<Index> columns;  ///< the frame's DOFs' columns among the joint's DOFs
};

/// \brief Finds \p end's element and frame, appending the frame's DOFs to \p dofs (a DOF shared
/// with the other end keeps one column). Errors go to \p block (the end's block).
/// \p joint_kind names the joint in messages ("a clamp").
BoundFrame bind_frame_end(const SceneView& scene, const FrameEnd& end, const Parameters& block, const std::string& joint_kind,
                          std::vector<Index>& dofs);

/// \brief Whether two bound ends are frames of one element that depend on the same DOFs (a rigid
/// body's body and centre-of-mass frames): they move as one, and nothing can join them.
bool frames_move_as_one(const BoundFrame& a, const BoundFrame& b, const std::vector<Index>& dofs);

/// The end's frame at \p context (a world end: no DOFs, its origin, the world's axes).
void end_kinematics(const BoundFrame& end, const EvalContext& context, FrameKinematics& k);

/// \brief Adds to \p curvature (the joint's DOFs square) the end's frame map geometric stiffness
/// d(J^T [force; torque])/dq at fixed world \p force and \p torque. \p k: the end's kinematics
/// (its wide scratch is used for a wide frame).
void add_end_geometric_stiffness(const BoundFrame& end, const EvalContext& context, FrameKinematics& k, const Vec3& force,
                                 const Vec3& torque, Eigen::MatrixXd& curvature);

}  // namespace soma::joints
