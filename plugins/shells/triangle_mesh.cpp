// Triangle-mesh topology for the shell models: unique edges with face signs (s^k of MAT-DiSMech
// eq. 19), hinges (§3.3.1), undeformed areas and edge lengths (§2, §3.1).
#include "triangle_mesh.hpp"

#include <Eigen/Geometry>

#include <cmath>
#include <string>
#include <unordered_map>

namespace soma::shells {
namespace {

std::string tri_name(std::size_t t, const std::array<Index, 3>& tri) {
    return "triangle " + std::to_string(t) + " (" + std::to_string(tri[0]) + ", " + std::to_string(tri[1]) +
           ", " + std::to_string(tri[2]) + ")";
}

// Unordered node pair key.
std::uint64_t edge_key(Index a, Index b) {
    const auto lo = static_cast<std::uint64_t>(std::min(a, b));
    const auto hi = static_cast<std::uint64_t>(std::max(a, b));
    return (hi << 32) | lo;
}

}  // namespace

double triangle_area(const Vec3& a, const Vec3& b, const Vec3& c) {
    return 0.5 * (b - a).cross(c - a).norm();
}

double total_area(const MeshTopology& topology) {
    double sum = 0.0;
    for (double a : topology.triangle_areas) sum += a;
    return sum;
}

MeshTopology build_topology(const TriangleMesh& mesh) {
    const auto N = static_cast<Index>(mesh.positions.size());
    const std::size_t T = mesh.triangles.size();
    if (T == 0) throw MeshError("the mesh has no triangles");
    for (std::size_t i = 0; i < mesh.positions.size(); ++i)
        if (!mesh.positions[i].allFinite())
            throw MeshError("node " + std::to_string(i) + " has a non-finite coordinate");

    MeshTopology topo;
    topo.triangle_edges.resize(T);
    topo.triangle_edge_signs.resize(T);
    topo.triangle_areas.resize(T);
    std::vector<char> used(static_cast<std::size_t>(N), 0);
    std::unordered_map<std::uint64_t, Index> edge_of;
    edge_of.reserve(3 * T);

    for (std::size_t t = 0; t < T; ++t) {
        const auto& tri = mesh.triangles[t];
        for (int k = 0; k < 3; ++k)
            if (tri[static_cast<std::size_t>(k)] < 0 || tri[static_cast<std::size_t>(k)] >= N)
                throw MeshError(tri_name(t, tri) + " refers to node " + std::to_string(tri[static_cast<std::size_t>(k)]) +
                                ", but the mesh has " + std::to_string(N) + " nodes (0-based)");
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2])
            throw MeshError(tri_name(t, tri) + " repeats a node");
        const Vec3& a = mesh.positions[static_cast<std::size_t>(tri[0])];
        const Vec3& b = mesh.positions[static_cast<std::size_t>(tri[1])];
        const Vec3& c = mesh.positions[static_cast<std::size_t>(tri[2])];
        const double area = triangle_area(a, b, c);
        const double longest = std::max({(b - a).norm(), (c - b).norm(), (a - c).norm()});
        if (!(area > 1e-12 * longest * longest))
            throw MeshError(tri_name(t, tri) + " is degenerate (area " + std::to_string(area) + " m^2)");
        topo.triangle_areas[t] = area;
        for (Index v : tri) used[static_cast<std::size_t>(v)] = 1;

        for (int k = 0; k < 3; ++k) {
            const std::array<Index, 2> nk = local_edge_nodes(tri, k);
            const std::uint64_t key = edge_key(nk[0], nk[1]);
            auto it = edge_of.find(key);
            if (it == edge_of.end()) {
                MeshEdge e;
                e.nodes = nk;  // orientation of the first face
                e.face_count = 1;
                e.faces[0] = EdgeFace{static_cast<Index>(t), k, +1};
                const auto id = static_cast<Index>(topo.edges.size());
                topo.edges.push_back(e);
                edge_of.emplace(key, id);
                topo.triangle_edges[t][static_cast<std::size_t>(k)] = id;
                topo.triangle_edge_signs[t][static_cast<std::size_t>(k)] = +1;
                continue;
            }
            MeshEdge& e = topo.edges[static_cast<std::size_t>(it->second)];
            const std::string edge_text =
                "edge (" + std::to_string(e.nodes[0]) + ", " + std::to_string(e.nodes[1]) + ")";
            if (e.face_count >= 2) {
                throw MeshError("non-manifold " + edge_text + ": shared by " +
                                tri_name(static_cast<std::size_t>(e.faces[0].triangle), mesh.triangles[static_cast<std::size_t>(e.faces[0].triangle)]) +
                                ", " +
                                tri_name(static_cast<std::size_t>(e.faces[1].triangle), mesh.triangles[static_cast<std::size_t>(e.faces[1].triangle)]) +
                                " and " + tri_name(t, tri) + " (at most 2 triangles per edge)");
            }
            const int sign = (nk[0] == e.nodes[0]) ? +1 : -1;
            if (sign == +1) {
                const auto& other = mesh.triangles[static_cast<std::size_t>(e.faces[0].triangle)];
                throw MeshError("inconsistent orientation: " + tri_name(static_cast<std::size_t>(e.faces[0].triangle), other) +
                                " and " + tri_name(t, tri) + " traverse " + edge_text +
                                " in the same direction; orient all triangles consistently "
                                "(same normal side)");
            }
            e.faces[1] = EdgeFace{static_cast<Index>(t), k, sign};
            e.face_count = 2;
            topo.triangle_edges[t][static_cast<std::size_t>(k)] = it->second;
            topo.triangle_edge_signs[t][static_cast<std::size_t>(k)] = sign;
        }
    }
    for (Index i = 0; i < N; ++i)
        if (!used[static_cast<std::size_t>(i)])
            throw MeshError("node " + std::to_string(i) +
                            " belongs to no triangle (unused nodes are refused: they would have no "
                            "mass and no stiffness)");

    topo.edge_lengths.resize(topo.edges.size());
    for (std::size_t e = 0; e < topo.edges.size(); ++e) {
        const MeshEdge& edge = topo.edges[e];
        topo.edge_lengths[e] = (mesh.positions[static_cast<std::size_t>(edge.nodes[1])] -
                                mesh.positions[static_cast<std::size_t>(edge.nodes[0])]).norm();
        if (edge.face_count == 2) {
            Hinge h;
            h.edge = static_cast<Index>(e);
            h.nodes[0] = edge.nodes[0];
            h.nodes[1] = edge.nodes[1];
            // The wing vertex of a face is the vertex opposite the local edge.
            h.nodes[2] = mesh.triangles[static_cast<std::size_t>(edge.faces[0].triangle)]
                                       [static_cast<std::size_t>(edge.faces[0].local_edge)];
            h.nodes[3] = mesh.triangles[static_cast<std::size_t>(edge.faces[1].triangle)]
                                       [static_cast<std::size_t>(edge.faces[1].local_edge)];
            topo.hinges.push_back(h);
        }
    }
    return topo;
}

}  // namespace soma::shells
