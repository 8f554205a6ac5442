#pragma once
/// \file joint_springs.hpp
/// \brief Bend-twist springs across joints of rod networks and rod-shell joints (MAT-DiSMech
/// §3.2 and §3.4), evaluated on global DOFs that other elements own.
///
/// A joint spring couples two "rod-like" edges that meet at a center node. Each edge has its own
/// orientation (from its node a to its node b), a twist angle theta and a reference frame
/// {a1, a2 = t x a1, t} committed at the start of the step, owned either by a DiscreteRod (rod
/// edges) or by the joint (shell edges of a rod-shell joint, MAT-DiSMech §3.4). The spring formulas
/// (bend_twist_spring.hpp) assume the orientation "edge e goes INTO the center, edge f comes OUT
/// of it". The orientation rule of MAT-DiSMech §3.2 (Fig. 2(g)) makes any pair fit: an edge pointing the other
/// way is used with its tangent and theta negated and a1 kept, so
///
///     t -> -t,   a2 = t x a1 -> -a2,   theta -> -theta,   hence m1 -> m1, m2 -> -m2
///
/// (the frame {a1, -a2, -t} stays right-handed), and the theta rows and columns of the spring's
/// gradient and Hessian are multiplied by the same sign s = -1 (chain rule, theta_spring =
/// s theta). The sign pairs are (+1, -1) into/into, (-1, +1) out/out, (+1, +1) into/out (MAT-DiSMech's
/// reference code). Positions need no sign: the spring's e = x_center - x_prev and f = x_next - x_center
/// are formed from the far node of each edge, whatever its own orientation.
///
/// Frames (MAT-DiSMech §3.2): at each evaluation an edge's committed a1 is time-parallel transported
/// from its committed tangent to the current one (exactly what its owning rod does, so a joint
/// spring sees the rod's own frames); the spring's reference twist is updated from its committed
/// value (MAT-DiSMech eq. 15). Transport along t or along -t is the same rotation, so the flipped frame
/// is transported consistently. commit() stores the end-of-step reference twists (and the frames
/// of joint-owned edges); it reads a rod's committed frame and transports it to the end tangent,
/// which gives the same result whether or not the rod has already committed its own frames, so
/// the order of commit_step calls does not matter.

#include "bend_twist_spring.hpp"

#include "soma/assembly.hpp"
#include "soma/checkpoint.hpp"

#include <array>
#include <string>
#include <vector>

namespace soma::rod {

class DiscreteRod;

/// One rod-like edge used by joint springs, in its own orientation (node a -> node b).
struct JointEdge {
    std::array<Index, 3> node_a{};  ///< global DOFs (x, y, z) of the start node
    std::array<Index, 3> node_b{};  ///< global DOFs of the end node
    Index twist_dof = -1;           ///< global DOF of theta
    double rest_length = 0.0;       ///< |e_bar| (m)
    /// Owner of the committed frame: a rod (its edge rod_edge), or null for a joint-owned edge.
    const DiscreteRod* rod = nullptr;
    Index rod_edge = -1;
    std::string label;  ///< for error messages, e.g. "edge 3 of rod 'arm'"
};

/// One bend-twist spring between two edges of a JointSpringSet.
struct JointSpring {
    BendTwistSpring spring;          ///< stiffness, Voronoi length, natural curvature and twist
    std::size_t edge_e = 0;          ///< the spring's incoming edge
    std::size_t edge_f = 0;          ///< the spring's outgoing edge
    double sign_e = 1.0;             ///< +1: edge e points into the center; -1: reversed (MAT-DiSMech Fig. 2(g))
    double sign_f = 1.0;             ///< +1: edge f points out of the center; -1: reversed
    std::array<Index, 11> dofs{};    ///< [x_prev, x_center, x_next, theta_e, theta_f] (global)
    double reference_twist = 0.0;    ///< committed reference twist (rad)
    StencilId stencil = -1;
};

/// The bend-twist springs of one joint element, with the frames of the edges it owns.
class JointSpringSet {
public:
    /// \brief Adds an edge whose frame a rod owns; returns its index.
    std::size_t add_rod_edge(JointEdge edge);
    /// \brief Adds a joint-owned edge with its initial reference director a1 (orthogonal to the
    /// initial unit tangent t); returns its index.
    std::size_t add_owned_edge(JointEdge edge, const Vec3& a1, const Vec3& t);

    /// \brief Adds a spring between edges i and j meeting at the node with global DOFs `center`
    /// (one of the two nodes of each edge). Stiffnesses and Voronoi length are the caller's; the
    /// natural curvature and twist are set by set_rest_state().
    /// \throws std::invalid_argument when an edge does not touch `center`.
    void add_spring(std::size_t i, std::size_t j, const std::array<Index, 3>& center, double bend_stiffness1,
                    double bend_stiffness2, double twist_stiffness);

    /// \brief Natural curvature and twist from the configuration q (global), so that q is
    /// stress-free; the committed reference twist is the one of the current frames.
    /// \throws std::invalid_argument when two edges of a spring fold back onto each other.
    void set_rest_state(const VectorX& q);

    void declare_pattern(PatternBuilder& pattern);
    /// \brief Energy; with an assembly, adds the gradient (and c_q times the Hessian when the
    /// assembly wants a Jacobian). `symmetric` assembles the symmetric part of the Hessian.
    double evaluate(const VectorX& q, Assembly* assembly, double c_q, bool symmetric) const;
    /// \brief Stores the frames of joint-owned edges and the reference twists at the end state q.
    void commit(const VectorX& q);
    /// \brief The committed state (joint-owned frames, reference twists) for a checkpoint.
    void save_checkpoint(CheckpointWriter& out) const;
    void restore_checkpoint(CheckpointReader& in);

    const std::vector<JointEdge>& edges() const { return edges_; }
    const std::vector<JointSpring>& springs() const { return springs_; }
    std::vector<JointSpring>& springs() { return springs_; }

    /// Current (time-parallel transported) frame of edge i in its own orientation.
    struct EdgeFrame {
        Vec3 tangent;       ///< unit tangent (own orientation)
        double length = 0.0;
        Vec3 a1;            ///< reference director
        double theta = 0.0;
        Vec3 source_tangent;  ///< committed unit tangent a1 was transported from (own orientation)
    };
    EdgeFrame edge_frame(const VectorX& q, std::size_t i) const;

private:
    /// The edge's kinematics in the spring's orientation (sign = -1 flips it, MAT-DiSMech Fig. 2(g)).
    EdgeKinematics oriented(const EdgeFrame& frame, double sign) const;
    /// Energy (and derivatives) of one spring at q.
    double spring_energy(const JointSpring& s, const VectorX& q, VecN<11>* gradient, MatN<11>* hessian,
                         bool symmetric) const;

    std::vector<JointEdge> edges_;
    std::vector<Vec3> owned_director_, owned_tangent_;  ///< committed frames (joint-owned edges only)
    std::vector<JointSpring> springs_;
};

}  // namespace soma::rod
