#pragma once
/// \file contact_mesh.hpp
/// \brief The contact primitives of the elements in contact (nodes, edges, triangles), their
/// thicknesses and their topology, gathered once at bind from the elements' geometry.
///
/// - **Nodes** are the elements' points. A rod's or shell's point (identity-mapped) is keyed by
///   its global x DOF, so a point two elements share (a joint, shared nodes) is one node. A rigid
///   body's point is mapped (point_map.hpp): its position and Jacobians come from the body's pose.
/// - **Edges** are rod edges and the edges of triangles, each once; thickness h = the mean contact
///   radius of its nodes (a rod's radius, half a shell's thickness, 0 for a rigid mesh).
/// - **Triangles** are shell triangles and rigid shapes' surface triangles; h likewise.
/// - **Isolated nodes** belong to no edge or triangle but have a radius: a rigid sphere (its
///   centre with the sphere's radius). They touch edges, triangles and each other as points.
///
/// **Rigid surfaces.** A rigid mesh does not deform, so an edge between two coplanar triangles
/// (a box face's diagonal, a cylinder cap's fan) is never closer to anything than the faces it
/// joins: it is not a contact edge, and a node whose closest point on one of those triangles lies
/// on that edge is left to the neighbouring face (which then holds it inside); a node exactly
/// above the seam is counted by one triangle, the lowest-numbered (ContactTriangle::owns). The
/// sum over triangles is then the distance to the flat surface, with no double count along the
/// seam. Such edges and vertices are found once, from the initial configuration.

#include "soma/element.hpp"
#include "soma/point_kinematics.hpp"
#include "soma/settings_errors.hpp"

#include <array>
#include <string>
#include <vector>

namespace soma::imc_contact {

struct ContactNode {
    const Element* element = nullptr;  ///< an element holding the point (the first one)
    Index point = 0;                   ///< its point index there
    Index element_index = 0;           ///< index of `element` among the selected elements
    bool mapped = false;               ///< a rigid body's point: position from point_kinematics
    /// the global DOFs the point depends on (first dof_count): an identity point's x, y, z; a
    /// rigid body's point, the body's DOFs (point_kinematics' order)
    std::array<Index, kMaxPointDofs> dofs{};
    int dof_count = 3;
    double radius = 0.0;               ///< contact radius (m)
};

struct ContactEdge {
    std::array<Index, 2> nodes{};
    double thickness = 0.0;      ///< h (m)
    Index element = 0;           ///< index among the selected elements
    bool surface = false;        ///< an edge of a triangle (node-triangle pairs also reach it)
    double rest_length2 = 0.0;   ///< squared length in the initial configuration (m²)
};

/// Bits of ContactTriangle::flat: edge ab, bc, ca (1, 2, 4), vertex a, b, c (8, 16, 32).
inline constexpr unsigned char kFlatEdgeAb = 1, kFlatEdgeBc = 2, kFlatEdgeCa = 4;
inline constexpr unsigned char kFlatVertexA = 8, kFlatVertexB = 16, kFlatVertexC = 32;

struct ContactTriangle {
    std::array<Index, 3> nodes{};
    double thickness = 0.0;   ///< h (m)
    Index element = 0;        ///< index among the selected elements
    unsigned char flat = 0;   ///< rigid surfaces: the edges and vertices inside a flat region (file comment)
    unsigned char owns = 0;   ///< of those, the ones this triangle counts a node exactly on (the lowest-numbered triangle)
};

/// The contact primitives of a set of elements (file comment).
class ContactMesh {
public:
    /// \brief Gathers the primitives of \p elements at configuration \p q. An edge or triangle of
    /// a deformable element with contact thickness 0 is an error (reported under `elements`).
    void build(const std::vector<const Element*>& elements, const VectorX& q, const SettingsErrors& errors);

    const std::vector<ContactNode>& nodes() const { return nodes_; }
    const std::vector<ContactEdge>& edges() const { return edges_; }
    const std::vector<ContactTriangle>& triangles() const { return triangles_; }
    /// Nodes that belong to no edge or triangle (rigid spheres' centres).
    const std::vector<Index>& isolated_nodes() const { return isolated_; }
    bool is_isolated(Index node) const { return isolated_flag_[static_cast<std::size_t>(node)]; }

    /// True when nodes \p m and \p n are one node or joined by an edge.
    bool adjacent(Index m, Index n) const;
    /// True when node \p n belongs to a rigid body (mapped points).
    bool mapped(Index n) const { return nodes_[static_cast<std::size_t>(n)].mapped; }

    /// Position of node \p n at configuration \p q.
    Vec3 position(Index n, const VectorX& q) const;
    /// "point 3 of 'rope'", for messages.
    std::string describe(Index n) const;

private:
    std::vector<ContactNode> nodes_;
    std::vector<ContactEdge> edges_;
    std::vector<ContactTriangle> triangles_;
    std::vector<Index> isolated_;
    std::vector<bool> isolated_flag_;
    std::vector<Index> neighbour_begin_;  ///< node n's neighbours: neighbours_[begin[n] .. begin[n+1]), sorted
    std::vector<Index> neighbours_;
};

}  // namespace soma::imc_contact
