#include "contact_mesh.hpp"

#include "soma/point_map.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <map>
#include <set>

namespace soma::imc_contact {

namespace {

/// Unit normals whose cosine exceeds this are parallel: the triangles are coplanar (a rigid
/// mesh's flat faces are built coplanar to round-off).
constexpr double kCoplanarCosine = 1.0 - 1e-9;

}  // namespace

void ContactMesh::build(const std::vector<const Element*>& elements, const VectorX& q, const SettingsErrors& errors) {
    nodes_.clear();
    edges_.clear();
    triangles_.clear();
    std::map<Index, Index> node_of_dof;                          // identity points, by x DOF
    std::map<std::pair<const Element*, Index>, Index> node_of_point;  // mapped points
    std::map<std::pair<Index, Index>, Index> edge_of_nodes;
    std::set<std::pair<Index, Index>> surface_edges;  // node pairs (sorted) that bound a triangle
    std::vector<bool> used;

    for (std::size_t e = 0; e < elements.size(); ++e) {
        const Element& element = *elements[e];
        const Geometry& g = element.geometry();
        const bool rigid = g.mapped_points;
        const auto radius = [&](Index point) {
            const auto i = static_cast<std::size_t>(point);
            return i < g.point_radius.size() ? g.point_radius[i] : 0.0;
        };
        const auto node = [&](Index point) {
            ContactNode n;
            n.element = &element;
            n.point = point;
            n.element_index = static_cast<Index>(e);
            n.mapped = rigid;
            n.radius = radius(point);
            const Index next = static_cast<Index>(nodes_.size());
            bool added = false;
            Index id = next;
            if (rigid) {
                const std::vector<Index> dofs = point_stencil(element, point, q);
                // A wide point (a GVS rod's, point_kinematics.hpp) exceeds a contact pair's
                // fixed-size stencil.
                if (dofs.size() > n.dofs.size())
                    errors.fail("elements", "element '" + element.name() + "': its points depend on " +
                                                std::to_string(dofs.size()) + " DOFs each (a GVS robot's backbone), "
                                                "more than IMC contact handles yet: list the elements IMC "
                                                "contact acts on under `elements`, without it (a gvs robot may "
                                                "take its `wall` contact, or floor_contact)");
                n.dof_count = static_cast<int>(dofs.size());
                std::copy(dofs.begin(), dofs.end(), n.dofs.begin());
                const auto [it, inserted] = node_of_point.try_emplace({&element, point}, next);
                added = inserted;
                id = it->second;
            } else {
                const auto& dofs = g.point_dofs[static_cast<std::size_t>(point)];
                std::copy(dofs.begin(), dofs.end(), n.dofs.begin());
                const auto [it, inserted] = node_of_dof.try_emplace(dofs[0], next);
                added = inserted;
                id = it->second;
            }
            if (added) nodes_.push_back(n);
            return id;
        };
        const auto check_thickness = [&](double thickness, const std::string& what) {
            if (!rigid && !(thickness > 0.0))
                errors.fail("elements", "element '" + element.name() + "' has contact radius 0 at " + what +
                                            ": IMC contact needs a thickness (a rod's radius, a shell's thickness)");
        };
        const auto add_edge = [&](Index p, Index r) {
            const double thickness = 0.5 * (radius(p) + radius(r));
            check_thickness(thickness, "points " + std::to_string(p) + " and " + std::to_string(r));
            Index a = node(p), b = node(r);
            if (a > b) std::swap(a, b);
            const auto [it, added] = edge_of_nodes.try_emplace({a, b}, static_cast<Index>(edges_.size()));
            if (added)
                edges_.push_back({{a, b}, thickness, static_cast<Index>(e)});
            else
                edges_[static_cast<std::size_t>(it->second)].thickness =
                    std::max(edges_[static_cast<std::size_t>(it->second)].thickness, thickness);
        };
        for (const auto& edge : g.edges) add_edge(edge[0], edge[1]);

        // Triangles; a rigid surface's flat seams are marked and not made contact edges (header).
        const std::size_t first_triangle = triangles_.size();
        for (const auto& tri : g.triangles) {
            ContactTriangle t;
            const double thickness = (radius(tri[0]) + radius(tri[1]) + radius(tri[2])) / 3.0;
            check_thickness(thickness, "triangle (" + std::to_string(tri[0]) + ", " + std::to_string(tri[1]) + ", " +
                                           std::to_string(tri[2]) + ")");
            for (int k = 0; k < 3; ++k) t.nodes[static_cast<std::size_t>(k)] = node(tri[static_cast<std::size_t>(k)]);
            t.thickness = thickness;
            t.element = static_cast<Index>(e);
            triangles_.push_back(t);
        }
        std::map<std::pair<Index, Index>, std::vector<std::size_t>> triangles_of_edge;  // this element's
        for (std::size_t t = first_triangle; t < triangles_.size(); ++t)
            for (int k = 0; k < 3; ++k) {
                Index a = triangles_[t].nodes[static_cast<std::size_t>(k)], b = triangles_[t].nodes[static_cast<std::size_t>((k + 1) % 3)];
                if (a > b) std::swap(a, b);
                triangles_of_edge[{a, b}].push_back(t);
            }
        std::vector<Vec3> normal(triangles_.size());
        if (rigid)
            for (std::size_t t = first_triangle; t < triangles_.size(); ++t) {
                const auto& n = triangles_[t].nodes;
                const Vec3 a = position(n[0], q), b = position(n[1], q), c = position(n[2], q);
                normal[t] = (b - a).cross(c - a).normalized();
            }
        const auto flat_seam = [&](const std::vector<std::size_t>& pair) {
            return rigid && pair.size() == 2 && normal[pair[0]].dot(normal[pair[1]]) > kCoplanarCosine;
        };
        std::map<Index, bool> vertex_flat;  // rigid: every incident edge a flat seam
        for (const auto& [edge, tris] : triangles_of_edge) {
            const bool flat = flat_seam(tris);
            for (Index v : {edge.first, edge.second}) {
                const auto [it, added] = vertex_flat.try_emplace(v, flat);
                if (!added) it->second = it->second && flat;
            }
            if (flat) {
                for (std::size_t t : tris)
                    for (int k = 0; k < 3; ++k) {
                        const Index a = triangles_[t].nodes[static_cast<std::size_t>(k)];
                        const Index b = triangles_[t].nodes[static_cast<std::size_t>((k + 1) % 3)];
                        if (std::min(a, b) != edge.first || std::max(a, b) != edge.second) continue;
                        const auto bit = static_cast<unsigned char>(kFlatEdgeAb << k);
                        triangles_[t].flat |= bit;
                        if (t == std::min(tris[0], tris[1])) triangles_[t].owns |= bit;
                    }
                continue;
            }
            // A contact edge, once (a triangle edge that is also a rod edge keeps the larger thickness).
            const auto& tri = triangles_[tris.front()];
            const auto local = [&](Index node_id) {
                for (int k = 0; k < 3; ++k)
                    if (tri.nodes[static_cast<std::size_t>(k)] == node_id) return k;
                return 0;
            };
            const auto& source = g.triangles[tris.front() - first_triangle];
            add_edge(source[static_cast<std::size_t>(local(edge.first))], source[static_cast<std::size_t>(local(edge.second))]);
            surface_edges.emplace(edge.first, edge.second);
        }
        if (rigid) {
            std::map<Index, std::size_t> vertex_owner;  // the lowest-numbered triangle at each flat vertex
            for (std::size_t t = first_triangle; t < triangles_.size(); ++t)
                for (int k = 0; k < 3; ++k) {
                    const Index v = triangles_[t].nodes[static_cast<std::size_t>(k)];
                    if (!vertex_flat[v]) continue;
                    const auto bit = static_cast<unsigned char>(kFlatVertexA << k);
                    triangles_[t].flat |= bit;
                    if (vertex_owner.try_emplace(v, t).second) triangles_[t].owns |= bit;
                }
        }

        // Isolated points: a radius but no edge or triangle (a rigid sphere's centre).
        used.assign(g.point_dofs.size(), false);
        for (const auto& edge : g.edges) used[static_cast<std::size_t>(edge[0])] = used[static_cast<std::size_t>(edge[1])] = true;
        for (const auto& tri : g.triangles)
            for (Index p : tri) used[static_cast<std::size_t>(p)] = true;
        for (std::size_t p = 0; p < used.size(); ++p)
            if (!used[p] && radius(static_cast<Index>(p)) > 0.0) node(static_cast<Index>(p));
    }

    for (ContactEdge& e : edges_) {
        e.surface = surface_edges.count({e.nodes[0], e.nodes[1]}) > 0;
        e.rest_length2 = (position(e.nodes[1], q) - position(e.nodes[0], q)).squaredNorm();
    }

    // Isolated nodes: those no edge or triangle uses (a point shared with another element's edge is not).
    isolated_flag_.assign(nodes_.size(), true);
    for (const ContactEdge& e : edges_)
        for (Index n : e.nodes) isolated_flag_[static_cast<std::size_t>(n)] = false;
    for (const ContactTriangle& t : triangles_)
        for (Index n : t.nodes) isolated_flag_[static_cast<std::size_t>(n)] = false;
    isolated_.clear();
    for (std::size_t n = 0; n < nodes_.size(); ++n)
        if (isolated_flag_[n]) isolated_.push_back(static_cast<Index>(n));

    // Node adjacency (CSR, sorted): joined by a contact edge or a triangle's side (flat seams too).
    std::vector<std::vector<Index>> adjacent(nodes_.size());
    const auto join = [&](Index a, Index b) {
        adjacent[static_cast<std::size_t>(a)].push_back(b);
        adjacent[static_cast<std::size_t>(b)].push_back(a);
    };
    for (const ContactEdge& e : edges_) join(e.nodes[0], e.nodes[1]);
    for (const ContactTriangle& t : triangles_)
        for (int k = 0; k < 3; ++k) join(t.nodes[static_cast<std::size_t>(k)], t.nodes[static_cast<std::size_t>((k + 1) % 3)]);
    neighbour_begin_.assign(1, 0);
    neighbours_.clear();
    for (auto& list : adjacent) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        neighbours_.insert(neighbours_.end(), list.begin(), list.end());
        neighbour_begin_.push_back(static_cast<Index>(neighbours_.size()));
    }
}

bool ContactMesh::adjacent(Index m, Index n) const {
    if (m == n) return true;
    const Index* begin = neighbours_.data() + neighbour_begin_[static_cast<std::size_t>(m)];
    const Index* end = neighbours_.data() + neighbour_begin_[static_cast<std::size_t>(m) + 1];
    return std::binary_search(begin, end, n);
}

Vec3 ContactMesh::position(Index n, const VectorX& q) const {
    const ContactNode& node = nodes_[static_cast<std::size_t>(n)];
    if (!node.mapped) return Vec3(q[node.dofs[0]], q[node.dofs[1]], q[node.dofs[2]]);
    return point_position(*node.element, node.point, q);
}

std::string ContactMesh::describe(Index n) const {
    const ContactNode& node = nodes_[static_cast<std::size_t>(n)];
    return "point " + std::to_string(node.point) + " of '" + node.element->name() + "'";
}

}  // namespace soma::imc_contact
