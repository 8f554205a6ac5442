#pragma once
/// \file link_tree.hpp
/// \brief A hybrid soft-rigid robot as a scene describes it, a tree of links (Mathew et al.,
/// section 5), and its translation into the inverse dynamics' tree of points (multibody_model.hpp).
///
/// Every link hangs from the base or from the end frame of an earlier link. From there a fixed
/// offset leads to its joint frame, the joint (rigid_joint edge, xi = Phi q, Mathew et al.,
/// section 5 and eqs. D66, D67) to the link's own frame, and then its body:
///  - a rigid body: its spatial inertia at the link frame, and a fixed end frame further on;
///  - a soft rod (a Cosserat rod in GVS, rod_discretization.hpp) along the link frame's x axis,
///    whose tip is the link's end frame.
/// Coordinates are laid out link by link: the joint's, then the rod's strain coordinates.

#include "actuation_matrix.hpp"
#include "multibody_model.hpp"
#include "rod_discretization.hpp"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace soma::gvs {

enum class JointType { fixed, revolute, prismatic, helical, cylindrical, planar, spherical, free };

/// \brief A rigid joint between a link's joint frame and the link's own frame.
struct JointDescription {
    JointType type = JointType::fixed;
    Vec3 axis = Vec3::UnitZ();  ///< revolute, prismatic, helical, cylindrical: the axis; planar: the normal
    double pitch = 0.0;         ///< helical: translation per radian (m/rad)
};

/// \brief The joint's basis Phi (6 x its coordinates; 6 x 0 for a fixed joint) in the joint frame,
/// with a unit axis: revolute [a; 0], prismatic [0; a], helical [a; pitch a], cylindrical
/// [[a; 0], [0; a]], planar [[a; 0], [0; b1], [0; b2]] (b1, b2 spanning the plane normal to a),
/// spherical [I; 0], free I (exponential coordinates of SE(3)).
/// \throws std::invalid_argument if the axis is zero or not finite.
Matrix6X joint_basis(const JointDescription& joint);

/// \brief The spatial inertia at a frame (angular part first) of a body of mass \p m, inertia \p Ic
/// about its centre of mass \p c (frame axes): [[Ic + m [c]^T [c], m [c]], [m [c]^T, m I]], so that
/// 1/2 eta^T M eta = 1/2 w^T Ic w + 1/2 m |v + w x c|^2.
Mat6 spatial_inertia(double m, const Mat3& Ic, const Vec3& c);

/// \brief Name of a joint type as a scene writes it ("revolute", ...).
const char* joint_type_name(JointType type);

/// \brief How a rigid link meets the fluid (Mathew et al., section 6.3), in the link frame at its
/// origin: the drag-lift wrench 𝓓 |v| eta (eq. 62) and the added mass, both diagonal (angular
/// part first), and the volume it displaces (buoyancy).
struct RigidLinkFluid {
    Vec6 drag = Vec6::Zero();        ///< diag 𝓓: moments in N m s^2 (per |v| omega), forces in kg/m (per |v| v)
    Vec6 added_mass = Vec6::Zero();  ///< diag 𝓜_A (kg m^2, kg)
    double volume = 0.0;             ///< m^3
};

/// \brief A rigid link's body: mass properties in the link frame and where its end frame is.
struct RigidLinkBody {
    double mass = 0.0;                    ///< kg, >= 0 (0: a massless connector)
    Mat3 inertia = Mat3::Zero();          ///< about the centre of mass, link axes (kg m^2)
    Vec3 center_of_mass = Vec3::Zero();   ///< link frame (m)
    Pose end;                             ///< the end frame (where children attach) in the link frame
    std::optional<RigidLinkFluid> fluid;  ///< immersed: its drag, added mass and volume
};

/// \brief How a soft link meets the fluid: Morison's cross-flow drag and added mass of a slender
/// body of local radius r per unit length (section 6.3; the paper gives no coefficients):
/// drag 1/2 rho_w (2 r) [pi C_t, C_d, C_d] on the section's (x, y, z) velocity, added mass
/// C_a rho_w pi r^2 across the rod (y, z), nothing on rotations.
struct SoftLinkFluid {
    double drag_coefficient = 1.2;             ///< C_d, cross-flow
    double tangential_drag_coefficient = 0.0;  ///< C_t, along the rod (skin friction)
    double added_mass_coefficient = 1.0;       ///< C_a (1 for a circular cylinder)
};

/// \brief A soft link: a Cosserat rod along the link frame's x axis, and the cables routed through it.
struct SoftLinkBody {
    RodDescription rod;
    std::vector<CableRoute> cables;
    std::optional<SoftLinkFluid> fluid;  ///< immersed: its drag and added mass
};

struct LinkDescription {
    std::string name;
    Index parent = -1;       ///< index of the parent link, -1 for the base
    Pose offset;             ///< the joint frame in the parent's end frame (the base frame for -1)
    JointDescription joint;
    VectorX initial_joint;   ///< the joint's initial coordinates (empty: 0)
    std::variant<RigidLinkBody, SoftLinkBody> body;
};

/// \brief Everything a scene says about one robot.
struct RobotDescription {
    Pose base;                         ///< the base frame in the world (fixed)
    std::vector<LinkDescription> links;
};

/// \brief Where a link landed in the tree of points and in q.
struct LinkLayout {
    Index joint_first_dof = 0, joint_dof_count = 0;
    Index rod_first_dof = 0, rod_dof_count = 0;  ///< soft links only
    Index frame_point = 0;                       ///< the link frame (after the joint; a rod's base)
    Index first_point = 0;                       ///< the link's first point (its frame, or the rod's first point)
    Index end_point = 0;                         ///< the link's end frame
    std::optional<RodDiscretization> rod;        ///< soft links only
    std::optional<TendonActuation> tendons;      ///< soft links with cables only
    Matrix6X joint_basis;                        ///< Phi of the joint
};

/// \brief The inverse dynamics' tree of a robot and where each link is in it.
struct LinkTree {
    MultibodyModel model;
    std::vector<LinkLayout> links;
    Eigen::MatrixXd stiffness, damping;  ///< K and D of all coordinates (block diagonal: the rods')
    VectorX initial_q;
    std::vector<Vec3> point_gravity_moment;  ///< per point: m c (kg m, point frame), for the potential energy
    std::vector<double> point_mass;          ///< per point: m (kg)
    std::vector<Index> point_link;           ///< per point: the link it belongs to (-1: the base)
};

/// \brief Builds the tree (Mathew et al., section 5: rigid joints, fixed transforms and soft
/// intervals in one tree).
/// \throws std::invalid_argument prefixed "link 'name': " for what a link's numbers make
///   impossible (a parent that is not earlier, a zero joint axis, a negative mass, an inertia that is
///   not symmetric positive semi-definite, initial coordinates of the wrong size, a rod the
///   discretization refuses, a cable route that is not finite).
LinkTree build_link_tree(const RobotDescription& robot);

}  // namespace soma::gvs
