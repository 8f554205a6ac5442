#pragma once
/// \file urdf_scene.hpp
/// \brief The scene blocks of a URDF robot: a rigid_body per body (its collision geometry as the
/// parts of its `shapes`), a joint per moving joint, its range as a joint_limit and its damping as
/// a joint_drive.

#include "urdf_robot.hpp"

#include <map>
#include <optional>
#include <string>

namespace soma::urdf {

/// What the import writes besides the bodies and joints.
struct SceneSettings {
    std::string prefix;               ///< begins every name: `prefix/link`
    std::string source;               ///< the URDF file, for the text's first comment
    bool limits = true;               ///< ranges as joint_limit (or joint_stop, below)
    std::optional<double> limit_stiffness;        ///< ranges as joint_stop instead: a revolute stop's stiffness
    std::optional<double> slide_limit_stiffness;  ///< a prismatic stop's
    double limit_damping = 0.0, slide_limit_damping = 0.0;
    bool joint_damping = true;        ///< <dynamics damping> as joint_drive
    bool collision = true;            ///< collision geometry as the bodies' shapes
    bool visuals = true;              ///< visual geometry as the bodies' visuals
    bool ignore_joint_friction = false;
    std::map<std::string, std::string> coordinates;  ///< joint -> prescribed coordinate expression
};

/// YAML text of `elements`, `constraints` and `forces` lists for the robot (one block per line).
/// Each body with collision geometry (and `collision` set) gets `shapes:`, one part per <collision>
/// of its links in the order read (the body's own link first, then the links fixed to it, depth
/// first), at the collision frame's origin and turned as that frame is from the body's; each body
/// with visual geometry (and `visuals` set) gets `visuals:` in the same way from its <visual>s.
/// Throws std::invalid_argument naming the link or joint when the robot cannot be written as it
/// is: a collision or visual mesh that is neither OBJ nor STL or is scaled unevenly, a range that excludes the
/// coordinate the robot is built at, joint friction (unless ignored), or a `coordinates` entry
/// that names no revolute, continuous or prismatic joint.
std::string robot_scene_text(const Robot& robot, const SceneSettings& settings);

}  // namespace soma::urdf
