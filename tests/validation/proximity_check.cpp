#include "proximity_check.hpp"

#include "simulation.hpp"
#include "soma/element.hpp"

#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace soma::validation {

double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b, double* t) {
    const Vec3 e = b - a;
    const double length2 = e.squaredNorm();
    const double s = length2 > 0.0 ? std::clamp((p - a).dot(e) / length2, 0.0, 1.0) : 0.0;
    if (t != nullptr) *t = s;
    return (p - a - s * e).norm();
}

SegmentDistance segment_segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
    const Vec3 e1 = a1 - a0, e2 = b1 - b0;
    // g(t): the distance from a0 + t e1 to segment b, with the exact clamped projection for u.
    const auto evaluate = [&](double t) {
        SegmentDistance d;
        d.t = t;
        d.distance = point_segment_distance(a0 + t * e1, b0, b1, &d.u);
        return d;
    };
    SegmentDistance best = evaluate(0.0);
    const auto consider = [&](double t) {
        if (!(t >= 0.0 && t <= 1.0)) return;  // also drops NaN
        const SegmentDistance d = evaluate(t);
        if (d.distance < best.distance) best = d;
    };
    consider(1.0);

    const double e1_2 = e1.squaredNorm(), e2_2 = e2.squaredNorm();
    if (e1_2 == 0.0) return best;  // segment a is a point: g is constant
    if (e2_2 == 0.0) {
        // Segment b is a point: g(t)^2 = |a0 - b0 + t e1|^2, vertex at -(a0 - b0).e1/|e1|^2.
        consider(-(a0 - b0).dot(e1) / e1_2);
        return best;
    }
    // Unclamped projection u*(t) = alpha + beta t; it crosses 0 and 1 at the breakpoints.
    const double alpha = (a0 - b0).dot(e2) / e2_2, beta = e1.dot(e2) / e2_2;
    std::array<double, 4> knots{0.0, 1.0, 0.0, 1.0};
    std::size_t count = 2;
    if (beta != 0.0) {
        for (const double level : {0.0, 1.0}) {
            const double t = (level - alpha) / beta;
            if (t > 0.0 && t < 1.0) knots[count++] = t;
        }
    }
    std::sort(knots.begin(), knots.begin() + static_cast<std::ptrdiff_t>(count));
    for (std::size_t k = 0; k + 1 < count; ++k) {
        const double lo = knots[k], hi = knots[k + 1];
        consider(lo);
        const double u_mid = alpha + beta * 0.5 * (lo + hi);
        // On this interval g(t)^2 = |w0 + t w1|^2, a quadratic in t with vertex -w0.w1/|w1|^2.
        Vec3 w0, w1;
        if (u_mid <= 0.0 || u_mid >= 1.0) {
            const Vec3 q = u_mid <= 0.0 ? b0 : b1;  // u clamped to an end of b
            w0 = a0 - q;
            w1 = e1;
        } else {
            w0 = a0 - b0 - alpha * e2;  // u = u*(t): the part of a's motion across b
            w1 = e1 - beta * e2;
        }
        const double w1_2 = w1.squaredNorm();
        if (w1_2 > 0.0) consider(std::clamp(-w0.dot(w1) / w1_2, lo, hi));
    }
    return best;
}

double point_triangle_distance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
    const Vec3 n = (b - a).cross(c - a);
    const double n2 = n.squaredNorm();
    if (n2 > 0.0) {
        const Vec3 projected = p - ((p - a).dot(n) / n2) * n;
        // Inside when the projection is on the inner side of all three edges.
        const bool inside = n.dot((b - a).cross(projected - a)) >= 0.0 && n.dot((c - b).cross(projected - b)) >= 0.0 &&
                            n.dot((a - c).cross(projected - c)) >= 0.0;
        if (inside) return std::abs((p - a).dot(n)) / std::sqrt(n2);
    }
    // Outside (or degenerate): the closest point of a convex polygon lies on its boundary.
    return std::min({point_segment_distance(p, a, b), point_segment_distance(p, b, c), point_segment_distance(p, c, a)});
}

double point_sphere_gap(const Vec3& p, const Vec3& centre, double radius) { return (p - centre).norm() - radius; }

void ContactMesh::build_adjacency() {
    adjacency.assign(nodes.size(), {});
    const auto join = [&](Index a, Index b) {
        adjacency[static_cast<std::size_t>(a)].push_back(b);
        adjacency[static_cast<std::size_t>(b)].push_back(a);
    };
    for (const auto& e : edges) join(e[0], e[1]);
    for (auto& list : adjacency) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    }
}

bool ContactMesh::neighbours(Index a, Index b) const {
    const auto& list = adjacency[static_cast<std::size_t>(a)];
    return std::binary_search(list.begin(), list.end(), b);
}

bool ContactMesh::edges_excluded(Index i, Index j) const {
    const auto& a = edges[static_cast<std::size_t>(i)];
    const auto& b = edges[static_cast<std::size_t>(j)];
    for (const Index x : a)
        for (const Index y : b)
            if (x == y || neighbours(x, y)) return true;
    return false;
}

bool ContactMesh::node_triangle_excluded(Index node, Index k) const {
    for (const Index corner : triangles[static_cast<std::size_t>(k)])
        if (corner == node || neighbours(node, corner)) return true;
    return false;
}

ContactMesh rod_chains(const std::vector<std::vector<Vec3>>& chains, const std::vector<std::vector<double>>& edge_thickness) {
    REQUIRE(chains.size() == edge_thickness.size());
    ContactMesh mesh;
    for (std::size_t c = 0; c < chains.size(); ++c) {
        const auto& chain = chains[c];
        REQUIRE(edge_thickness[c].size() + 1 == chain.size());
        const Index first = static_cast<Index>(mesh.nodes.size());
        for (std::size_t k = 0; k < chain.size(); ++k) {
            mesh.nodes.push_back(chain[k]);
            // The mean of the node's edges' thickness (one edge at the chain's ends).
            const double before = k > 0 ? edge_thickness[c][k - 1] : edge_thickness[c][k];
            const double after = k + 1 < chain.size() ? edge_thickness[c][k] : edge_thickness[c][k - 1];
            mesh.node_thickness.push_back(0.5 * (before + after));
            mesh.node_element.push_back(static_cast<Index>(c));
        }
        for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
            mesh.edges.push_back({first + static_cast<Index>(k), first + static_cast<Index>(k) + 1});
            mesh.edge_thickness.push_back(edge_thickness[c][k]);
            mesh.edge_element.push_back(static_cast<Index>(c));
        }
    }
    mesh.build_adjacency();
    return mesh;
}

ContactMesh contact_mesh(const Simulation& simulation, const std::vector<std::string>& elements) {
    ContactMesh mesh;
    std::map<Index, Index> node_of_dof;  // a node's x DOF -> its index in the mesh
    std::set<std::pair<Index, Index>> edge_set;
    Index element_index = 0;
    for (const Element* element : simulation.elements()) {
        const Geometry& g = element->geometry();
        const bool named = elements.empty() ? (!g.edges.empty() || !g.triangles.empty())
                                            : std::find(elements.begin(), elements.end(), element->name()) != elements.end();
        if (!named) continue;
        INFO("element " << element->name());
        REQUIRE_FALSE(g.mapped_points);
        std::vector<Index> local(g.point_dofs.size());
        for (std::size_t p = 0; p < g.point_dofs.size(); ++p) {
            const auto [it, inserted] = node_of_dof.emplace(g.point_dofs[p][0], static_cast<Index>(mesh.nodes.size()));
            local[p] = it->second;
            if (!inserted) continue;
            mesh.nodes.push_back(Vec3::Zero());
            mesh.node_thickness.push_back(g.point_radius[p]);
            mesh.node_element.push_back(element_index);
            mesh.node_dofs.push_back(g.point_dofs[p]);
        }
        const auto add_edge = [&](Index a, Index b) {
            const Index x = local[static_cast<std::size_t>(a)], y = local[static_cast<std::size_t>(b)];
            if (!edge_set.insert({std::min(x, y), std::max(x, y)}).second) return;  // each edge once
            mesh.edges.push_back({x, y});
            mesh.edge_thickness.push_back(0.5 * (mesh.node_thickness[static_cast<std::size_t>(x)] +
                                                 mesh.node_thickness[static_cast<std::size_t>(y)]));
            mesh.edge_element.push_back(element_index);
        };
        for (const auto& e : g.edges) add_edge(e[0], e[1]);
        for (const auto& t : g.triangles) {
            mesh.triangles.push_back({local[static_cast<std::size_t>(t[0])], local[static_cast<std::size_t>(t[1])],
                                      local[static_cast<std::size_t>(t[2])]});
            mesh.triangle_element.push_back(element_index);
            add_edge(t[0], t[1]);
            add_edge(t[1], t[2]);
            add_edge(t[2], t[0]);
        }
        ++element_index;
    }
    REQUIRE(!mesh.nodes.empty());
    mesh.build_adjacency();
    set_positions(mesh, simulation.state().q);
    return mesh;
}

void set_positions(ContactMesh& mesh, const VectorX& q) {
    REQUIRE(mesh.node_dofs.size() == mesh.nodes.size());
    for (std::size_t n = 0; n < mesh.nodes.size(); ++n) {
        const auto& d = mesh.node_dofs[n];
        mesh.nodes[n] = Vec3(q[d[0]], q[d[1]], q[d[2]]);
    }
}

namespace {

bool selected(PairSet set, Index element_a, Index element_b) {
    switch (set) {
    case PairSet::all: return true;
    case PairSet::self: return element_a == element_b;
    case PairSet::across_elements: return element_a != element_b;
    }
    return true;
}

void record(Proximity& p, double distance, double gap, Index first, Index second) {
    ++p.pairs;
    if (distance < p.closest.distance) p.closest = {distance, gap, first, second};
    if (gap < p.tightest.gap) p.tightest = {distance, gap, first, second};
}

/// An axis-aligned box around a primitive: every point of the primitive (the convex hull of its
/// nodes) lies in it, so the distance between two boxes is a lower bound of the distance between
/// their primitives.
struct Box {
    Vec3 lo, hi;
};

template <std::size_t N>
Box bounding_box(const std::vector<Vec3>& nodes, const std::array<Index, N>& corners) {
    Box box{nodes[static_cast<std::size_t>(corners[0])], nodes[static_cast<std::size_t>(corners[0])]};
    for (std::size_t c = 1; c < N; ++c) {
        box.lo = box.lo.cwiseMin(nodes[static_cast<std::size_t>(corners[c])]);
        box.hi = box.hi.cwiseMax(nodes[static_cast<std::size_t>(corners[c])]);
    }
    return box;
}

double box_distance(const Box& a, const Box& b) {
    const Vec3 separation = (a.lo - b.hi).cwiseMax(b.lo - a.hi).cwiseMax(0.0);
    return separation.norm();
}

/// True when a pair whose distance is at least \p lower_bound, with summed thickness \p h,
/// can change neither the closest distance nor the tightest gap found so far: it need not be
/// evaluated exactly (only counted). Ties are evaluated, so the result is the exhaustive one.
bool cannot_improve(const Proximity& p, double lower_bound, double h) {
    return lower_bound > p.closest.distance && lower_bound - h > p.tightest.gap;
}

}  // namespace

Proximity edge_edge_proximity(ContactMesh& mesh, PairSet set) {
    if (mesh.adjacency.size() != mesh.nodes.size()) mesh.build_adjacency();
    Proximity result;
    const Index n = static_cast<Index>(mesh.edges.size());
    std::vector<Box> boxes(mesh.edges.size());
    for (std::size_t i = 0; i < boxes.size(); ++i)
        boxes[i] = bounding_box(mesh.nodes, mesh.edges[i]);
    for (Index i = 0; i < n; ++i) {
        const auto& a = mesh.edges[static_cast<std::size_t>(i)];
        for (Index j = i + 1; j < n; ++j) {
            if (!selected(set, mesh.edge_element[static_cast<std::size_t>(i)], mesh.edge_element[static_cast<std::size_t>(j)]))
                continue;
            if (mesh.edges_excluded(i, j)) continue;
            const double h = mesh.edge_thickness[static_cast<std::size_t>(i)] + mesh.edge_thickness[static_cast<std::size_t>(j)];
            if (cannot_improve(result, box_distance(boxes[static_cast<std::size_t>(i)], boxes[static_cast<std::size_t>(j)]), h)) {
                ++result.pairs;
                continue;
            }
            const auto& b = mesh.edges[static_cast<std::size_t>(j)];
            const double d = segment_segment_distance(mesh.nodes[static_cast<std::size_t>(a[0])], mesh.nodes[static_cast<std::size_t>(a[1])],
                                                      mesh.nodes[static_cast<std::size_t>(b[0])], mesh.nodes[static_cast<std::size_t>(b[1])])
                                 .distance;
            record(result, d, d - h, i, j);
        }
    }
    return result;
}

Proximity node_triangle_proximity(ContactMesh& mesh, PairSet set) {
    if (mesh.adjacency.size() != mesh.nodes.size()) mesh.build_adjacency();
    Proximity result;
    const Index nodes = static_cast<Index>(mesh.nodes.size());
    const Index triangles = static_cast<Index>(mesh.triangles.size());
    for (Index k = 0; k < triangles; ++k) {
        const auto& t = mesh.triangles[static_cast<std::size_t>(k)];
        const double h_triangle = (mesh.node_thickness[static_cast<std::size_t>(t[0])] + mesh.node_thickness[static_cast<std::size_t>(t[1])] +
                                   mesh.node_thickness[static_cast<std::size_t>(t[2])]) / 3.0;
        const Box box = bounding_box(mesh.nodes, t);
        for (Index p = 0; p < nodes; ++p) {
            if (!selected(set, mesh.node_element[static_cast<std::size_t>(p)], mesh.triangle_element[static_cast<std::size_t>(k)]))
                continue;
            if (mesh.node_triangle_excluded(p, k)) continue;
            const Vec3& x = mesh.nodes[static_cast<std::size_t>(p)];
            if (cannot_improve(result, box_distance(box, {x, x}), mesh.node_thickness[static_cast<std::size_t>(p)] + h_triangle)) {
                ++result.pairs;
                continue;
            }
            const double d = point_triangle_distance(mesh.nodes[static_cast<std::size_t>(p)], mesh.nodes[static_cast<std::size_t>(t[0])],
                                                     mesh.nodes[static_cast<std::size_t>(t[1])], mesh.nodes[static_cast<std::size_t>(t[2])]);
            record(result, d, d - (mesh.node_thickness[static_cast<std::size_t>(p)] + h_triangle), p, k);
        }
    }
    return result;
}

double max_node_displacement(const std::vector<Vec3>& before, const std::vector<Vec3>& after) {
    REQUIRE(before.size() == after.size());
    double largest = 0.0;
    for (std::size_t n = 0; n < before.size(); ++n) largest = std::max(largest, (after[n] - before[n]).norm());
    return largest;
}

}  // namespace soma::validation
