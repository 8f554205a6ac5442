#include "imc_contact.hpp"

#include "point_primitive_distance.hpp"

#include "soma/element_selection.hpp"
#include "soma/point_map.hpp"
#include "soma/smooth_contact_law.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace soma::imc_contact {

namespace {

/// True when node \p p, whose closest point on triangle (a, b, c) is the flat-seam \p feature,
/// lies above the seam itself rather than beyond it (where the neighbouring face holds it): on
/// the triangle's side of a seam edge's line, or exactly above a seam vertex.
bool on_flat_seam(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, TriangleFeature feature) {
    const Vec3 normal = (b - a).cross(c - a);
    const auto inside_of = [&](const Vec3& u, const Vec3& w, const Vec3& opposite) {
        const Vec3 inward = normal.cross(w - u);  // in the plane, across the edge towards `opposite`
        return (p - u).dot(inward) * (opposite - u).dot(inward) >= 0.0;
    };
    const auto above = [&](const Vec3& v) {
        const Vec3 offset = p - v;
        return offset.cross(normal).squaredNorm() == 0.0;
    };
    switch (feature) {
        case TriangleFeature::edge_ab: return inside_of(a, b, c);
        case TriangleFeature::edge_bc: return inside_of(b, c, a);
        case TriangleFeature::edge_ca: return inside_of(c, a, b);
        case TriangleFeature::vertex_a: return above(a);
        case TriangleFeature::vertex_b: return above(b);
        case TriangleFeature::vertex_c: return above(c);
        case TriangleFeature::face: return true;
    }
    return false;
}

}  // namespace

ImcContact::ImcContact(ImcContactSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (!(settings_.stiffness > 0.0)) errors_.fail("stiffness", "must be > 0 N/m, got " + setting_text(settings_.stiffness));
    if (settings_.band && !(*settings_.band > 0.0)) errors_.fail("band", "must be > 0 m, got " + setting_text(*settings_.band));
    if (settings_.margin && !(*settings_.margin > 0.0))
        errors_.fail("margin", "must be > 0 m, got " + setting_text(*settings_.margin));
    if (!(settings_.friction >= 0.0)) errors_.fail("friction", "must be >= 0, got " + setting_text(settings_.friction));
    if (!(settings_.slip_velocity > 0.0))
        errors_.fail("slip_velocity", "must be > 0 m/s, got " + setting_text(settings_.slip_velocity));
    if (!settings_.pairs.empty() && !settings_.elements.empty())
        errors_.fail("pairs", "give either `elements` (every pair of them) or `pairs` (chosen pairs), not both");
    friction_ = {settings_.friction, kContactSmoothingWidth / settings_.slip_velocity};
}

std::vector<const Element*> ImcContact::select_contact_elements(const SceneView& scene) {
    const auto has_surface = [](const Element& element) {
        const Geometry& g = element.geometry();
        if (!g.edges.empty() || !g.triangles.empty()) return true;
        return std::any_of(g.point_radius.begin(), g.point_radius.end(), [](double r) { return r > 0.0; });
    };
    std::vector<const Element*> elements;
    std::vector<std::string> names = settings_.elements;
    const std::string key = settings_.pairs.empty() ? "elements" : "pairs";
    for (const auto& [a, b] : settings_.pairs)
        for (const std::string& name : {a, b})
            if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    for (const Element* element : select_elements(scene, names, errors_, key)) {
        if (!has_surface(*element)) {
            if (names.empty()) continue;  // every element: those with a surface
            errors_.fail(key, "element '" + element->name() + "' has no edges, triangles or contact radius to touch with");
        }
        elements.push_back(element);
    }
    if (elements.empty()) errors_.fail(key, "no element of the scene has edges, triangles or a contact radius to touch with");

    element_count_ = static_cast<Index>(elements.size());
    const auto index_of = [&](const std::string& name) {
        for (std::size_t i = 0; i < elements.size(); ++i)
            if (elements[i]->name() == name) return i;
        return elements.size();
    };
    allowed_.assign(elements.size() * elements.size(), 0);
    const auto allow = [&](std::size_t i, std::size_t j) {
        // A rigid body never touches itself.
        if (i == j && elements[i]->geometry().mapped_points) return;
        allowed_[i * elements.size() + j] = allowed_[j * elements.size() + i] = 1;
    };
    if (settings_.pairs.empty()) {
        for (std::size_t i = 0; i < elements.size(); ++i)
            for (std::size_t j = i; j < elements.size(); ++j)
                if (i != j || settings_.self_contact) allow(i, j);
    } else {
        for (const auto& [a, b] : settings_.pairs) {
            const std::size_t i = index_of(a), j = index_of(b);
            if (i == j && elements[i]->geometry().mapped_points)
                errors_.fail("pairs", "element '" + a + "' is a rigid body: it cannot touch itself");
            allow(i, j);
        }
    }
    return elements;
}

void ImcContact::bind(const SceneView& scene) {
    const std::vector<const Element*> elements = select_contact_elements(scene);
    mesh_.build(elements, scene.state().q, errors_);

    // Band and margin from the thicknesses of the deformable primitives (rigid meshes have 0).
    double thinnest = 0.0, thickest = 0.0;
    const auto consider = [&](double h) {
        if (!(h > 0.0)) return;
        thinnest = thinnest > 0.0 ? std::min(thinnest, h) : h;
        thickest = std::max(thickest, h);
    };
    for (const ContactEdge& e : mesh_.edges()) consider(e.thickness);
    for (const ContactTriangle& t : mesh_.triangles()) consider(t.thickness);
    for (Index n : mesh_.isolated_nodes()) consider(mesh_.nodes()[static_cast<std::size_t>(n)].radius);
    if (!(thinnest > 0.0) && !settings_.band)
        errors_.fail("band", "every primitive in contact has thickness 0 (rigid meshes only): give the band");
    band_ = settings_.band ? *settings_.band : kDefaultBandRatio * thinnest;
    sharpness_ = kContactSmoothingWidth / band_;
    margin_ = settings_.margin ? *settings_.margin : 2.0 * std::max(thickest, band_);
    // check_solution lets nodes move (margin - band)/2 per step: the margin must exceed the band.
    if (!(margin_ > band_))
        errors_.fail(settings_.margin ? "margin" : "band",
                     "the candidate margin (" + setting_text(margin_) + " m) must exceed the band (" + setting_text(band_) +
                         " m): nodes may move (margin - band)/2 per step before contacts could be missed");

    all_nodes_.resize(mesh_.nodes().size());
    for (Index n = 0; n < static_cast<Index>(all_nodes_.size()); ++n) all_nodes_[static_cast<std::size_t>(n)] = n;
    has_mapped_nodes_ = false;
    for (const ContactNode& n : mesh_.nodes()) has_mapped_nodes_ = has_mapped_nodes_ || n.mapped;
    kinematics_.assign(has_mapped_nodes_ ? mesh_.nodes().size() : 0, PointKinematics{});
    find_candidates(scene.state().q);
    pattern_changed_ = false;
    report_initial_overlaps(scene);
}

template <class Visit>
void ImcContact::for_each_candidate_gap(const VectorX& q, Visit&& visit) const {
    std::array<Index, 4> nodes{};
    std::array<Vec3, 4> x;
    PairClass c;
    for (const ContactPair& pair : candidates_) {
        const int count = pair_nodes(pair, nodes);
        for (int k = 0; k < count; ++k) x[static_cast<std::size_t>(k)] = mesh_.position(nodes[static_cast<std::size_t>(k)], q);
        if (classify(pair, x, c)) visit(pair, x, c.distance - pair_thickness(pair));
    }
}

double ImcContact::mollifier_factor(const ContactPair& pair, const std::array<Vec3, 4>& x) const {
    ParallelMollifier m;
    return pair.kind == PairKind::edge_edge && parallel_mollifier_of(pair, x, m) ? m.value : 1.0;
}

void ImcContact::report_initial_overlaps(const SceneView& scene) const {
    // Primitives that start inside each other are pushed apart at once with the penalty's full
    // force (about 2k per metre of overlap), and those within the band push from the first step:
    // say so, with the closest pair.
    int overlapping = 0, in_band = 0;
    double closest = band_;
    const ContactPair* worst = nullptr;
    for_each_candidate_gap(scene.state().q, [&](const ContactPair& pair, const std::array<Vec3, 4>&, double gap) {
        if (gap >= band_) return;
        ++in_band;
        if (gap < 0.0) ++overlapping;
        if (gap < closest) {
            closest = gap;
            worst = &pair;
        }
    });
    if (!worst) return;
    std::array<Index, 4> nodes{};
    pair_nodes(*worst, nodes);
    const Index other = nodes[worst->kind == PairKind::node_node ? 1 : 2];
    const ContactNode& a = mesh_.nodes()[static_cast<std::size_t>(nodes[0])];
    const ContactNode& b = mesh_.nodes()[static_cast<std::size_t>(other)];
    std::string hint;
    if (a.element == b.element && worst->kind == PairKind::edge_edge && !mesh_.edges()[static_cast<std::size_t>(worst->first)].surface)
        hint = " (a rod touches itself where its edges are shorter than about its radius + band/2: edges three apart "
               "are two edge lengths apart)";
    const std::string where = "near " + mesh_.describe(nodes[0]) + " and " + mesh_.describe(other);
    if (overlapping > 0)
        scene.note("imc_contact: " + std::to_string(overlapping) + " contact pair(s) start inside each other; the deepest, " +
                   where + ", overlaps by " + setting_text(-closest) + " m and is pushed apart at once" + hint);
    else
        scene.note("imc_contact: " + std::to_string(in_band) + " contact pair(s) start within the band (gap < " +
                   setting_text(band_) + " m) and push from the first step; the closest, " + where + ", at gap " +
                   setting_text(closest) + " m" + hint);
}

bool ImcContact::may_touch(const ContactPair& pair) const {
    const auto element_pair = [&](Index a, Index b) {
        return allowed_[static_cast<std::size_t>(a * element_count_ + b)] != 0;
    };
    const auto& nodes = mesh_.nodes();
    const auto element_of_node = [&](Index n) { return nodes[static_cast<std::size_t>(n)].element_index; };
    std::array<Index, 4> ids{};
    Index first_element = 0, second_element = 0;
    int first_count = 1;
    switch (pair.kind) {
        case PairKind::edge_edge: {
            const ContactEdge& a = mesh_.edges()[static_cast<std::size_t>(pair.first)];
            const ContactEdge& b = mesh_.edges()[static_cast<std::size_t>(pair.second)];
            first_element = a.element;
            second_element = b.element;
            first_count = 2;
            break;
        }
        case PairKind::node_triangle:
            first_element = element_of_node(pair.first);
            second_element = mesh_.triangles()[static_cast<std::size_t>(pair.second)].element;
            break;
        case PairKind::node_edge:
            first_element = element_of_node(pair.first);
            second_element = mesh_.edges()[static_cast<std::size_t>(pair.second)].element;
            break;
        case PairKind::node_node:
            first_element = element_of_node(pair.first);
            second_element = element_of_node(pair.second);
            break;
    }
    if (!element_pair(first_element, second_element)) return false;
    const int count = pair_nodes(pair, ids);
    for (int i = 0; i < first_count; ++i)
        for (int j = first_count; j < count; ++j)
            if (mesh_.adjacent(ids[static_cast<std::size_t>(i)], ids[static_cast<std::size_t>(j)])) return false;
    return true;
}

int ImcContact::pair_nodes(const ContactPair& pair, std::array<Index, 4>& nodes) const {
    switch (pair.kind) {
        case PairKind::edge_edge: {
            const auto& a = mesh_.edges()[static_cast<std::size_t>(pair.first)].nodes;
            const auto& b = mesh_.edges()[static_cast<std::size_t>(pair.second)].nodes;
            nodes = {a[0], a[1], b[0], b[1]};
            return 4;
        }
        case PairKind::node_triangle: {
            const auto& t = mesh_.triangles()[static_cast<std::size_t>(pair.second)].nodes;
            nodes = {pair.first, t[0], t[1], t[2]};
            return 4;
        }
        case PairKind::node_edge: {
            const auto& e = mesh_.edges()[static_cast<std::size_t>(pair.second)].nodes;
            nodes = {pair.first, e[0], e[1], 0};
            return 3;
        }
        case PairKind::node_node: nodes = {pair.first, pair.second, 0, 0}; return 2;
    }
    return 0;
}

double ImcContact::pair_thickness(const ContactPair& pair) const {
    const auto radius = [&](Index n) { return mesh_.nodes()[static_cast<std::size_t>(n)].radius; };
    switch (pair.kind) {
        case PairKind::edge_edge:
            return mesh_.edges()[static_cast<std::size_t>(pair.first)].thickness +
                   mesh_.edges()[static_cast<std::size_t>(pair.second)].thickness;
        case PairKind::node_triangle: return radius(pair.first) + mesh_.triangles()[static_cast<std::size_t>(pair.second)].thickness;
        case PairKind::node_edge: return radius(pair.first) + mesh_.edges()[static_cast<std::size_t>(pair.second)].thickness;
        case PairKind::node_node: return radius(pair.first) + radius(pair.second);
    }
    return 0.0;
}

bool ImcContact::classify(const ContactPair& pair, const std::array<Vec3, 4>& positions, PairClass& out) const {
    const auto x = [&](int k) -> const Vec3& { return positions[static_cast<std::size_t>(k)]; };
    switch (pair.kind) {
        case PairKind::edge_edge: {
            const ClosestPoints c = closest_points(x(0), x(1), x(2), x(3));
            out.node_count = 4;
            out.distance = c.distance;
            out.map4 = edge_pair_class_map(c.contact_class);
            return true;
        }
        case PairKind::node_triangle: {
            const TriangleClosest c = closest_triangle_feature(x(0), x(1), x(2), x(3));
            // A rigid surface's flat seam is left to the neighbouring face (contact_mesh.hpp).
            const ContactTriangle& triangle = mesh_.triangles()[static_cast<std::size_t>(pair.second)];
            const unsigned char flat = triangle.flat, owns = triangle.owns;
            const unsigned char bit = c.feature == TriangleFeature::edge_ab    ? kFlatEdgeAb
                                      : c.feature == TriangleFeature::edge_bc  ? kFlatEdgeBc
                                      : c.feature == TriangleFeature::edge_ca  ? kFlatEdgeCa
                                      : c.feature == TriangleFeature::vertex_a ? kFlatVertexA
                                      : c.feature == TriangleFeature::vertex_b ? kFlatVertexB
                                      : c.feature == TriangleFeature::vertex_c ? kFlatVertexC
                                                                               : 0;
            TriangleFeature feature = c.feature;
            if (flat & bit) {
                if (!(owns & bit) || !on_flat_seam(x(0), x(1), x(2), x(3), c.feature)) return false;
                feature = TriangleFeature::face;  // exactly above the seam: the plane's distance, counted once
            }
            out.node_count = 4;
            out.distance = c.distance;
            out.map4 = node_triangle_class_map(feature);
            return true;
        }
        case PairKind::node_edge: {
            const EdgeClosest c = closest_edge_point(x(0), x(1), x(2));
            out.node_count = 3;
            out.distance = c.distance;
            out.map3 = node_edge_class_map(c.end);
            return true;
        }
        case PairKind::node_node:
            out.node_count = 2;
            out.distance = (x(0) - x(1)).norm();
            out.map2 = node_node_class_map();
            return true;
    }
    return false;
}

void ImcContact::overlapping_primitives(const std::vector<Vec3>& positions, const std::vector<double>& reach,
                                        BroadPhase& work, std::vector<ContactPair>& out) const {
    const auto& nodes = mesh_.nodes();
    assert(positions.size() == nodes.size() && reach.size() == nodes.size());
    const auto at = [&](Index n) -> const Vec3& { return positions[static_cast<std::size_t>(n)]; };
    const auto reach_of = [&](Index n) { return reach[static_cast<std::size_t>(n)]; };

    // Two primitives whose boxes do not overlap are farther apart than the sum of their grows.
    work.edge_boxes.resize(mesh_.edges().size());
    for (std::size_t e = 0; e < work.edge_boxes.size(); ++e) {
        const ContactEdge& edge = mesh_.edges()[e];
        const Vec3 &x = at(edge.nodes[0]), &y = at(edge.nodes[1]);
        const double grow = edge.thickness + std::max(reach_of(edge.nodes[0]), reach_of(edge.nodes[1]));
        work.edge_boxes[e] = {x.cwiseMin(y).array() - grow, x.cwiseMax(y).array() + grow};
    }
    work.triangle_boxes.resize(mesh_.triangles().size());
    for (std::size_t t = 0; t < work.triangle_boxes.size(); ++t) {
        const ContactTriangle& triangle = mesh_.triangles()[t];
        const Vec3 &x = at(triangle.nodes[0]), &y = at(triangle.nodes[1]), &z = at(triangle.nodes[2]);
        const double grow = triangle.thickness + std::max({reach_of(triangle.nodes[0]), reach_of(triangle.nodes[1]),
                                                           reach_of(triangle.nodes[2])});
        work.triangle_boxes[t] = {x.cwiseMin(y).cwiseMin(z).array() - grow, x.cwiseMax(y).cwiseMax(z).array() + grow};
    }
    const auto point_boxes = [&](const std::vector<Index>& points) {
        work.node_boxes.resize(points.size());
        for (std::size_t i = 0; i < points.size(); ++i) {
            const Index n = points[i];
            const double grow = nodes[static_cast<std::size_t>(n)].radius + reach_of(n);
            work.node_boxes[i] = {at(n).array() - grow, at(n).array() + grow};
        }
    };

    // Edge-edge within the edges; every node against the triangles; isolated nodes (spheres)
    // against the edges and each other.
    out.clear();
    work.edge_tree.set_boxes(work.edge_boxes);
    work.edge_tree.overlapping_pairs(work.overlapping);
    for (const auto& [i, j] : work.overlapping) out.push_back({PairKind::edge_edge, i, j});
    if (!work.triangle_boxes.empty()) {
        point_boxes(all_nodes_);
        work.node_tree.set_boxes(work.node_boxes);
        work.triangle_tree.set_boxes(work.triangle_boxes);
        work.node_tree.overlapping_pairs(work.triangle_tree, work.overlapping);
        for (const auto& [n, t] : work.overlapping)
            out.push_back({PairKind::node_triangle, all_nodes_[static_cast<std::size_t>(n)], t});
    }
    const std::vector<Index>& isolated = mesh_.isolated_nodes();
    if (!isolated.empty()) {
        point_boxes(isolated);
        work.isolated_tree.set_boxes(work.node_boxes);
        work.isolated_tree.overlapping_pairs(work.edge_tree, work.overlapping);
        for (const auto& [n, e] : work.overlapping) out.push_back({PairKind::node_edge, isolated[static_cast<std::size_t>(n)], e});
        work.isolated_tree.overlapping_pairs(work.overlapping);
        for (const auto& [m, n] : work.overlapping)
            out.push_back({PairKind::node_node, isolated[static_cast<std::size_t>(m)], isolated[static_cast<std::size_t>(n)]});
    }
}

double ImcContact::start_distance(const ContactPair& pair, const std::vector<Vec3>& positions) const {
    // Rigid flat seams count here (the face beside them may be the one that touches within the step).
    std::array<Index, 4> ids{};
    pair_nodes(pair, ids);
    const auto x = [&](int k) -> const Vec3& { return positions[static_cast<std::size_t>(ids[static_cast<std::size_t>(k)])]; };
    switch (pair.kind) {
        case PairKind::edge_edge: return closest_points(x(0), x(1), x(2), x(3)).distance;
        case PairKind::node_triangle: return closest_triangle_feature(x(0), x(1), x(2), x(3)).distance;
        case PairKind::node_edge: return closest_edge_point(x(0), x(1), x(2)).distance;
        case PairKind::node_node: return (x(0) - x(1)).norm();
    }
    return 0.0;
}

void ImcContact::find_candidates(const VectorX& q) {
    const auto& nodes = mesh_.nodes();
    positions_.resize(nodes.size());
    for (Index n = 0; n < static_cast<Index>(nodes.size()); ++n) positions_[static_cast<std::size_t>(n)] = mesh_.position(n, q);
    // Boxes grown by the primitive's thickness + margin/2: two primitives can be within
    // h_i + h_j + margin only if their boxes overlap.
    candidate_reach_.assign(nodes.size(), 0.5 * margin_);
    overlapping_primitives(positions_, candidate_reach_, broad_phase_, box_pairs_);
    candidates_.clear();
    candidate_distances_.clear();
    for (const ContactPair& pair : box_pairs_) {
        if (!may_touch(pair)) continue;
        const double distance = start_distance(pair, positions_);
        if (distance >= pair_thickness(pair) + margin_) continue;
        candidates_.push_back(pair);
        candidate_distances_.push_back(distance);
    }
    // Sorted as they come: the broad phase lists each kind's pairs sorted, the kinds in PairKind's
    // order (begin_step's matching with the declared stencils needs them sorted).
    assert(std::is_sorted(candidates_.begin(), candidates_.end()));
}

ImcContact::StencilLayout ImcContact::stencil_layout(const std::array<Index, 4>& nodes, int count) const {
    StencilLayout layout;
    for (int k = 0; k < count; ++k) {
        const ContactNode& node = mesh_.nodes()[static_cast<std::size_t>(nodes[static_cast<std::size_t>(k)])];
        for (int i = 0; i < node.dof_count; ++i) {
            const Index dof = node.dofs[static_cast<std::size_t>(i)];
            int slot = 0;
            while (slot < layout.size && layout.dofs[static_cast<std::size_t>(slot)] != dof) ++slot;
            if (slot == layout.size) {
                if (layout.size == kMaxPairDofs)
                    throw std::logic_error("imc_contact: a contact pair spans more than 15 DOFs");
                layout.dofs[static_cast<std::size_t>(layout.size++)] = dof;
            }
            layout.slot[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] = slot;
        }
    }
    return layout;
}

StencilId ImcContact::declare_pair(PatternBuilder& pattern, const ContactPair& pair) const {
    std::array<Index, 4> nodes{};
    const int count = pair_nodes(pair, nodes);
    const StencilLayout layout = stencil_layout(nodes, count);
    return pattern.add_stencil(std::span<const Index>(layout.dofs.data(), static_cast<std::size_t>(layout.size)));
}

void ImcContact::declare_pattern(PatternBuilder& pattern) {
    declared_ = candidates_;
    declared_stencils_.clear();
    for (const ContactPair& pair : declared_) declared_stencils_.push_back(declare_pair(pattern, pair));
    candidate_stencils_ = declared_stencils_;
    pattern_changed_ = false;
}

bool ImcContact::declared_list_too_long() const {
    // A separated pair's stencil keeps its entries in the pattern (and its fill in the factors)
    // until everything is declared again; a quarter more than the candidates (and a few) bounds
    // that, while pairs that come back within a few steps find their stencil.
    return declared_.size() > candidates_.size() + candidates_.size() / 4 + 16;
}

bool ImcContact::declare_added_stencils(PatternBuilder& pattern) {
    if (declared_list_too_long()) return false;
    // Both lists sorted: each candidate's stencil among the declared pairs, a new one inserted
    // in order with the next stencil id.
    candidate_stencils_.resize(candidates_.size());
    std::size_t d = 0;
    for (std::size_t c = 0; c < candidates_.size(); ++c) {
        while (d < declared_.size() && declared_[d] < candidates_[c]) ++d;
        if (d == declared_.size() || declared_[d] != candidates_[c]) {
            const auto at = static_cast<std::ptrdiff_t>(d);
            declared_.insert(declared_.begin() + at, candidates_[c]);
            declared_stencils_.insert(declared_stencils_.begin() + at, declare_pair(pattern, candidates_[c]));
        }
        candidate_stencils_[c] = declared_stencils_[d];
    }
    pattern_changed_ = false;
    return true;
}

void ImcContact::begin_step(const State& start) {
    find_candidates(start.q);
    // Each candidate's stencil among the declared pairs (both lists sorted). A candidate without
    // one asks for new stencils (declare_added_stencils); a declared list grown past the
    // candidates (pairs that have separated) asks for a new pattern, to keep the pattern's fill
    // and the tables short.
    candidate_stencils_.resize(candidates_.size());
    std::size_t d = 0;
    bool all_declared = true;
    for (std::size_t c = 0; c < candidates_.size() && all_declared; ++c) {
        while (d < declared_.size() && declared_[d] < candidates_[c]) ++d;
        if (d == declared_.size() || declared_[d] != candidates_[c])
            all_declared = false;
        else
            candidate_stencils_[c] = declared_stencils_[d];
    }
    pattern_changed_ = !all_declared || declared_list_too_long();
}

Vec3 ImcContact::node_position(Index n, const VectorX& q) const {
    const ContactNode& node = mesh_.nodes()[static_cast<std::size_t>(n)];
    if (node.mapped) return kinematics_[static_cast<std::size_t>(n)].position;
    return Vec3(q[node.dofs[0]], q[node.dofs[1]], q[node.dofs[2]]);
}

Vec3 ImcContact::node_velocity(Index n, const VectorX& v) const {
    const ContactNode& node = mesh_.nodes()[static_cast<std::size_t>(n)];
    if (node.mapped) return kinematics_[static_cast<std::size_t>(n)].velocity;
    return Vec3(v[node.dofs[0]], v[node.dofs[1]], v[node.dofs[2]]);
}

void ImcContact::add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) {
    assert(context.q && candidate_stencils_.size() == candidates_.size());
    const VectorX& q = *context.q;
    // Rigid bodies' points at this iterate (a handful per body; computed once per evaluation).
    if (has_mapped_nodes_)
        for (Index n = 0; n < static_cast<Index>(mesh_.nodes().size()); ++n) {
            const ContactNode& node = mesh_.nodes()[static_cast<std::size_t>(n)];
            if (node.mapped) evaluate_point(*node.element, node.point, context, kinematics_[static_cast<std::size_t>(n)]);
        }
    std::array<Index, 4> nodes{};
    std::array<Vec3, 4> x;
    PairClass c;
    for (std::size_t p = 0; p < candidates_.size(); ++p) {
        const ContactPair& pair = candidates_[p];
        const int count = pair_nodes(pair, nodes);
        for (int k = 0; k < count; ++k) x[static_cast<std::size_t>(k)] = node_position(nodes[static_cast<std::size_t>(k)], q);
        if (!classify(pair, x, c)) continue;
        const double thickness = pair_thickness(pair);
        // Outside the band E' < 3e-13 of contact values (header); at Δ = 0 the primitives meet and
        // the contact normal is undefined (a pass-through the penalty failed to prevent).
        if (c.distance - thickness >= band_ || c.distance == 0.0) continue;
        const StencilId stencil = candidate_stencils_[p];
        const ParallelMollifier* mollifier = nullptr;
        if (pair.kind == PairKind::edge_edge && parallel_mollifier_of(pair, x, mollifier_)) mollifier = &mollifier_;
        switch (c.node_count) {
            case 4: add_pair<4>(context, nodes, c.map4, thickness, stencil, assembly, mollifier); break;
            case 3: add_pair<3>(context, nodes, c.map3, thickness, stencil, assembly, nullptr); break;
            default: add_pair<2>(context, nodes, c.map2, thickness, stencil, assembly, nullptr); break;
        }
    }
}

bool ImcContact::parallel_mollifier_of(const ContactPair& pair, const std::array<Vec3, 4>& x,
                                       ParallelMollifier& out) const {
    const ContactEdge& a = mesh_.edges()[static_cast<std::size_t>(pair.first)];
    const ContactEdge& b = mesh_.edges()[static_cast<std::size_t>(pair.second)];
    // Only where node-triangle pairs hold the parallel configurations (edge_pair_distance.hpp).
    if (!a.surface || !b.surface) return false;
    parallel_mollifier(x[0], x[1], x[2], x[3], kParallelMollifierRatio * a.rest_length2 * b.rest_length2, out);
    return out.value < 1.0;
}

template <int N>
void ImcContact::add_pair(const EvalContext& context, const std::array<Index, 4>& nodes, const PairClassMap<N>& map,
                          double thickness, StencilId stencil, Assembly& assembly,
                          const ParallelMollifier* mollifier) const {
    const bool with_jacobian = assembly.wants_jacobian();
    // Friction needs velocities; a solve without them (statics) has v = 0 and so no friction.
    const bool with_friction = settings_.friction > 0.0 && context.v != nullptr;
    std::array<Vec3, N> x, v;
    for (int k = 0; k < N; ++k) x[static_cast<std::size_t>(k)] = node_position(nodes[static_cast<std::size_t>(k)], *context.q);
    PairDistance<N> d;
    pair_distance<N>(x, map, with_jacobian, d);
    const PenaltyEnergy e = penalty_energy(d.distance - thickness, settings_.stiffness, sharpness_);
    PairResidual<N> r;
    r.residual = e.gradient * d.gradient;
    if (with_jacobian) {
        r.position_derivative.noalias() = e.curvature * d.gradient * d.gradient.transpose();
        r.position_derivative.noalias() += e.gradient * d.hessian;
    }
    // f_n = -E'(g) and its gradient -E''(g) ∇Δ; with the parallel mollifier m (edge pairs of
    // surfaces) the energy is m E: ∇ = m ∇E + E ∇m, ∇² = m ∇²E + ∇m ∇Eᵀ + ∇E ∇mᵀ + E ∇²m, f_n = -m E'.
    double normal_force = -e.gradient;
    VecN<3 * N> normal_force_gradient = -e.curvature * d.gradient;
    if constexpr (N == 4) {
        if (mollifier) {
            const double m = mollifier->value;
            const VecN<12> energy_gradient = r.residual;
            r.residual = m * energy_gradient + e.energy * mollifier->gradient;
            if (with_jacobian) {
                r.position_derivative *= m;
                r.position_derivative.noalias() += mollifier->gradient * energy_gradient.transpose();
                r.position_derivative.noalias() += energy_gradient * mollifier->gradient.transpose();
                r.position_derivative.noalias() += e.energy * mollifier->hessian;
            }
            normal_force_gradient = m * normal_force_gradient - e.gradient * mollifier->gradient;
            normal_force *= m;
        }
    }
    if (with_friction) {
        for (int k = 0; k < N; ++k) v[static_cast<std::size_t>(k)] = node_velocity(nodes[static_cast<std::size_t>(k)], *context.v);
        add_pair_friction<N>(d, x, v, friction_, normal_force, normal_force_gradient, with_jacobian, r);
    }
    scatter<N>(context, nodes, r, with_friction, stencil, assembly);
}

template <int N>
void ImcContact::scatter(const EvalContext& context, const std::array<Index, 4>& nodes, const PairResidual<N>& r,
                         bool with_velocity_derivative, StencilId stencil, Assembly& assembly) const {
    const double c_q = context.coefficients.c_q, c_v = context.coefficients.c_v;
    bool mapped = false;
    for (int k = 0; k < N; ++k) mapped = mapped || mesh_.mapped(nodes[static_cast<std::size_t>(k)]);
    if (!mapped) {  // the stencil is the nodes' x, y, z in order
        assembly.add_residual(stencil, r.residual);
        if (!assembly.wants_jacobian()) return;
        MatN<3 * N> jacobian = c_q * r.position_derivative;
        if (with_velocity_derivative) jacobian += c_v * r.velocity_derivative;
        assembly.add_jacobian(stencil, jacobian, 1.0);
        return;
    }
    // Through the nodes' maps (point_map.hpp): F = Σ J_kᵀ r_k,
    // K = c_q (Jᵀ (A P + B V) + Σ_k d(J_kᵀ r_k)/dq) + c_v Jᵀ B J, with P, V the position and
    // velocity Jacobians (d x/dq, d xdot/dq) and A, B the residual's position and velocity derivatives.
    const StencilLayout layout = stencil_layout(nodes, N);
    const int n = layout.size;
    using NodeMap = Eigen::Matrix<double, 3 * N, Eigen::Dynamic, 0, 3 * N, kMaxPairDofs>;
    NodeMap J = NodeMap::Zero(3 * N, n), P = NodeMap::Zero(3 * N, n), V = NodeMap::Zero(3 * N, n);
    for (int k = 0; k < N; ++k) {
        const Index id = nodes[static_cast<std::size_t>(k)];
        const auto& slot = layout.slot[static_cast<std::size_t>(k)];
        if (!mesh_.mapped(id)) {
            for (int i = 0; i < 3; ++i) J(3 * k + i, slot[static_cast<std::size_t>(i)]) = P(3 * k + i, slot[static_cast<std::size_t>(i)]) = 1.0;
            continue;
        }
        const PointKinematics& kin = kinematics_[static_cast<std::size_t>(id)];
        for (int i = 0; i < kin.dof_count; ++i) {
            const int s = slot[static_cast<std::size_t>(i)];
            J.template block<3, 1>(3 * k, s) = kin.jacobian.col(i);
            P.template block<3, 1>(3 * k, s) = kin.position_jacobian.col(i);
            V.template block<3, 1>(3 * k, s) = kin.velocity_jacobian.col(i);
        }
    }
    const Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxPairDofs, 1> residual = J.transpose() * r.residual;
    assembly.add_residual(stencil, residual);
    if (!assembly.wants_jacobian()) return;
    using StencilMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxPairDofs, kMaxPairDofs>;
    NodeMap residual_q = r.position_derivative * P;
    if (with_velocity_derivative) residual_q.noalias() += r.velocity_derivative * V;
    StencilMatrix jacobian = c_q * (J.transpose() * residual_q);
    if (with_velocity_derivative) {
        const NodeMap residual_v = r.velocity_derivative * J;
        jacobian.noalias() += c_v * (J.transpose() * residual_v);
    }
    for (int k = 0; k < N; ++k) {
        const Index id = nodes[static_cast<std::size_t>(k)];
        if (!mesh_.mapped(id)) continue;
        const ContactNode& node = mesh_.nodes()[static_cast<std::size_t>(id)];
        PointStiffness geometric = PointStiffness::Zero();
        node.element->add_point_geometric_stiffness(node.point, context, r.residual.template segment<3>(3 * k), geometric);
        const auto& slot = layout.slot[static_cast<std::size_t>(k)];
        for (int i = 0; i < node.dof_count; ++i)
            for (int j = 0; j < node.dof_count; ++j)
                jacobian(slot[static_cast<std::size_t>(i)], slot[static_cast<std::size_t>(j)]) += c_q * geometric(i, j);
    }
    assembly.add_jacobian(stencil, jacobian, 1.0);
}

double ImcContact::potential_energy(const EvalContext& context) const {
    assert(context.q);
    double energy = 0.0;
    for_each_candidate_gap(*context.q, [&](const ContactPair& pair, const std::array<Vec3, 4>& x, double gap) {
        if (gap < band_) energy += mollifier_factor(pair, x) * penalty_energy(gap, settings_.stiffness, sharpness_).energy;
    });
    return energy;
}

std::vector<TermStatistic> ImcContact::statistics() const {
    return {{"candidate_pairs", "", "pairs evaluated in the step (found by the broad phase at its start)"},
            {"active_pairs", "", "pairs closer than the band (gap < band): those that push"},
            {"normal_force", "N", "sum of the pairs' normal forces -E'(gap)"},
            {"deepest_gap", "m", "the smallest gap among the candidate pairs (negative: overlap); nan without candidates"}};
}

double ImcContact::statistic(std::size_t index, const EvalContext& context) const {
    assert(context.q);
    if (index == 0) return static_cast<double>(candidates_.size());
    int active = 0;
    double force = 0.0, deepest = std::numeric_limits<double>::quiet_NaN();
    for_each_candidate_gap(*context.q, [&](const ContactPair& pair, const std::array<Vec3, 4>& x, double gap) {
        if (!(gap >= deepest)) deepest = gap;  // also replaces the initial NaN
        if (gap >= band_) return;
        ++active;
        force -= mollifier_factor(pair, x) * penalty_energy(gap, settings_.stiffness, sharpness_).gradient;
    });
    switch (index) {
        case 1: return active;
        case 2: return force;
        default: return deepest;
    }
}

std::string ImcContact::check_solution(const EvalContext& context) const {
    assert(context.q && positions_.size() == mesh_.nodes().size() && candidate_distances_.size() == candidates_.size());
    const VectorX& q = *context.q;
    // Within the step every point of a primitive moves at most as far as its farthest node (the
    // motion between the step's ends taken as linear), so a pair's distance falls by at most
    // u_i + u_j, the two primitives' farthest node motions.
    const auto moved = [&](Index n) { return (mesh_.position(n, q) - positions_[static_cast<std::size_t>(n)]).norm(); };
    std::array<Index, 4> nodes{};
    const auto motions = [&](const ContactPair& pair) {
        const int count = pair_nodes(pair, nodes);
        const int first_count = pair.kind == PairKind::edge_edge ? 2 : 1;  // the first primitive's nodes
        std::array<double, 2> u{0.0, 0.0};
        for (int k = 0; k < count; ++k) {
            double& largest = u[k < first_count ? 0 : 1];
            largest = std::max(largest, moved(nodes[static_cast<std::size_t>(k)]));
        }
        return u;
    };
    const auto describe = [&](const ContactPair& pair) {
        const Index second = nodes[pair.kind == PairKind::edge_edge ? 2 : 1];
        return mesh_.describe(nodes[0]) + " and " + mesh_.describe(second);
    };

    // A pair that was not a candidate started at least h + margin apart: while no node moved more
    // than (margin - band)/2 it cannot have entered the band, nor passed through; the candidates
    // are held apart by their contact force, as in the paper.
    const Index node_count = static_cast<Index>(mesh_.nodes().size());
    const double limit = 0.5 * (margin_ - band_);
    double largest = 0.0;
    for (Index n = 0; n < node_count; ++n) largest = std::max(largest, moved(n));
    if (largest <= limit) return {};

    // Some node moved farther. A candidate pair is evaluated in the step, but only at its end: its
    // primitives' cores (centre lines, mid-surfaces) cannot have met in between while u_i + u_j
    // is below their distance at the start.
    for (std::size_t c = 0; c < candidates_.size(); ++c) {
        const auto u = motions(candidates_[c]);
        if (u[0] + u[1] < candidate_distances_[c]) continue;
        return "imc_contact: " + describe(candidates_[c]) + " may have passed through each other in this step: they were " +
               setting_text(candidate_distances_[c]) + " m apart at its start and moved " + setting_text(u[0]) + " and " +
               setting_text(u[1]) + " m (a smaller step keeps them apart)";
    }

    // And the pairs that were not candidates but could have come within the band: those whose
    // boxes at the step's start, grown by h + band/2 + their nodes' motion, overlap. (A rare step:
    // its work space is its own.)
    std::vector<double> reach(static_cast<std::size_t>(node_count));
    for (Index n = 0; n < node_count; ++n) reach[static_cast<std::size_t>(n)] = 0.5 * band_ + moved(n);
    BroadPhase work;
    std::vector<ContactPair> pairs;
    overlapping_primitives(positions_, reach, work, pairs);
    for (const ContactPair& pair : pairs) {
        if (!may_touch(pair) || std::binary_search(candidates_.begin(), candidates_.end(), pair)) continue;
        const auto u = motions(pair);
        const double gap = start_distance(pair, positions_) - pair_thickness(pair);
        if (gap - u[0] - u[1] >= band_) continue;
        return "imc_contact: " + describe(pair) + " were not a candidate pair at the step's start (gap " +
               setting_text(gap) + " m) and may have come within the band in this step: they moved " +
               setting_text(u[0]) + " and " + setting_text(u[1]) + " m, more than their gap less the band (" +
               setting_text(gap - band_) + " m; a smaller step, or a larger `margin`, keeps them tracked)";
    }
    return {};
}

}  // namespace soma::imc_contact
