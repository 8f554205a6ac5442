// Selection of the DOFs of one `fixed` or `prescribed` entry: by index and by region.
#include "dof_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace soma {

const DofGroup* find_dof_group(const std::vector<DofGroup>& groups, const std::string& name) {
    for (const auto& g : groups)
        if (g.name == name) return &g;
    return nullptr;
}

Index resolve_item_index(long index, Index count, const Parameters& block, const std::string& key,
                         const std::string& what) {
    const long resolved = index < 0 ? index + count : index;
    if (resolved < 0 || resolved >= count)
        block.fail(key, fmt::format("{} index {} is out of range: this element has {} {} (valid: {}..{}, or -{}..-1)",
                                    what, index, count, what + "s", 0, count - 1, count));
    return static_cast<Index>(resolved);
}

namespace {

/// One box or plane of an entry, with the block it was written in (for messages).
struct Region {
    Parameters block;
    bool is_box = true;
    Vec3 lo, hi;            // box
    Vec3 point, unit;       // plane
    double tolerance = 0.0; // plane

    bool holds(const Vec3& x) const {
        if (is_box) return (x.array() >= lo.array()).all() && (x.array() <= hi.array()).all();
        return std::abs((x - point).dot(unit)) <= tolerance;
    }
};

Region box_region(const Parameters& box) {
    Region r;
    r.block = box;
    r.lo = box.vec3("min");
    r.hi = box.vec3("max");
    return r;
}

Region plane_region(const Parameters& plane) {
    Region r;
    r.block = plane;
    r.is_box = false;
    r.point = plane.vec3("point");
    const Vec3 normal = plane.vec3("normal");
    if (normal.norm() == 0.0) plane.fail("normal", "the normal must not be zero");
    r.unit = normal.normalized();
    r.tolerance = plane.real("tolerance");
    return r;
}

/// The entry's regions in the order written: box, boxes, plane, planes.
std::vector<Region> regions_of(const Parameters& entry) {
    std::vector<Region> regions;
    if (entry.has("box")) regions.push_back(box_region(entry.block("box")));
    for (const Parameters& box : entry.blocks("boxes")) regions.push_back(box_region(box));
    if (entry.has("plane")) regions.push_back(plane_region(entry.block("plane")));
    for (const Parameters& plane : entry.blocks("planes")) regions.push_back(plane_region(plane));
    return regions;
}

/// Items listed by index under `key` (each once, ascending), or none.
std::vector<char> listed_items(const std::vector<DofGroup>& groups, const std::string& element_type,
                               const Parameters& entry, const std::string& key) {
    const auto indices = entry.integer_list(key);
    if (indices.empty()) {
        // An empty list written out selects nothing: say so rather than hold nothing silently.
        if (entry.has(key)) entry.fail(key, fmt::format("lists no {}: give at least one index, or leave it out", key));
        return {};
    }
    const DofGroup* group = find_dof_group(groups, key);
    if (!group) entry.fail(key, fmt::format("element type '{}' has no {}", element_type, key));
    std::vector<char> chosen(static_cast<std::size_t>(group->count), 0);
    for (long raw : indices) chosen[resolve_item_index(raw, group->count, entry, key, key.substr(0, key.size() - 1))] = 1;
    return chosen;
}

/// The node components the entry's `components` names (indices into the nodes group's
/// component names, in the listed order), or all of them when it names none.
std::vector<int> node_components_of(const DofGroup* nodes, const std::string& element_type, const Parameters& entry) {
    const auto names = entry.string_list("components");
    std::vector<int> chosen;
    if (names.empty()) {
        if (entry.has("components"))
            entry.fail("components", "lists no component: name at least one of x, y, z, or leave it out for all");
        for (int c = 0; nodes && c < nodes->dofs_per_item; ++c) chosen.push_back(c);
        return chosen;
    }
    if (!nodes)
        entry.fail("components", fmt::format("element type '{}' has no nodes to select components of", element_type));
    if (!entry.integer_list("edges").empty())
        entry.fail("components", "components select node components, but this entry also lists `edges` (one DOF each, "
                                 "not split into components): put the edges in an entry of their own");
    if (entry.has("include_edges") && entry.boolean("include_edges"))
        entry.fail("include_edges", "an entry with `components` constrains only part of its nodes, which is not a "
                                    "clamp, so its regions hold no edges: leave include_edges out, or put the edges in "
                                    "an entry of their own");
    for (const std::string& name : names) {
        const auto& all = nodes->component_names;
        const auto it = std::find(all.begin(), all.end(), name);
        if (it == all.end()) {
            std::string known;
            for (const std::string& component : all) known += (known.empty() ? "" : ", ") + component;
            entry.fail("components", fmt::format("unknown component '{}': the nodes of element type '{}' have "
                                                 "components {}",
                                                 name, element_type, known));
        }
        const int c = static_cast<int>(it - all.begin());
        if (std::find(chosen.begin(), chosen.end(), c) != chosen.end())
            entry.fail("components", fmt::format("component '{}' is listed twice", name));
        chosen.push_back(c);
    }
    return chosen;
}

}  // namespace

DofSelection select_dofs(const Element& element, const std::string& element_type, const Parameters& entry,
                         const VectorX& initial_q) {
    const auto groups = element.dof_groups();
    DofSelection selection;
    const std::vector<char> listed_nodes = listed_items(groups, element_type, entry, "nodes");
    const std::vector<char> listed_edges = listed_items(groups, element_type, entry, "edges");
    for (std::size_t e = 0; e < listed_edges.size(); ++e)
        if (listed_edges[e]) selection.listed_edges.push_back({static_cast<Index>(e), entry, "edges"});
    if (entry.has("coordinates")) {
        const std::vector<char> listed = listed_items(groups, element_type, entry, "coordinates");
        for (std::size_t c = 0; c < listed.size(); ++c)
            if (listed[c]) selection.coordinates.push_back({static_cast<Index>(c), entry, "coordinates"});
    }
    if (entry.has("rotations")) {
        const std::vector<char> listed_rotations = listed_items(groups, element_type, entry, "rotations");
        for (std::size_t r = 0; r < listed_rotations.size(); ++r)
            if (listed_rotations[r]) selection.rotations.push_back({static_cast<Index>(r), entry, "rotations"});
    }

    const std::vector<Region> regions = regions_of(entry);
    const DofGroup* nodes = find_dof_group(groups, "nodes");
    selection.node_components = node_components_of(nodes, element_type, entry);
    if (!regions.empty() && !nodes)
        regions.front().block.fail(
            "", fmt::format("element type '{}' has no nodes: a region selects nodes and the edges between them; "
                            "select this element's DOFs by index (`{}: [...]`)",
                            element_type, find_dof_group(groups, "coordinates") ? "coordinates" : "edges"));
    const Index node_count = nodes ? nodes->count : 0;
    // Which region first holds each node (-1: none).
    std::vector<int> holder(static_cast<std::size_t>(node_count), -1);
    for (std::size_t r = 0; r < regions.size(); ++r) {
        Index count = 0;
        for (Index n = 0; n < node_count; ++n) {
            Vec3 x;
            for (int c = 0; c < 3; ++c) x[c] = initial_q[element.global_dof(element.group_dof("nodes", n, c))];
            if (!regions[r].holds(x)) continue;
            ++count;
            if (holder[static_cast<std::size_t>(n)] < 0) holder[static_cast<std::size_t>(n)] = static_cast<int>(r);
        }
        if (count == 0)
            regions[r].block.fail("", regions[r].is_box
                                          ? fmt::format("selects no node of element '{}'", element.name())
                                          : fmt::format("selects no node of element '{}' (tolerance {} m)",
                                                        element.name(), regions[r].tolerance));
    }
    for (Index n = 0; n < node_count; ++n) {
        const auto i = static_cast<std::size_t>(n);
        if (i < listed_nodes.size() && listed_nodes[i])
            selection.nodes.push_back({n, entry, "nodes"});
        else if (holder[i] >= 0)
            selection.nodes.push_back({n, regions[static_cast<std::size_t>(holder[i])].block, ""});
    }

    // Edges the regions hold: every end node in the union of the entry's regions.
    const DofGroup* edges = find_dof_group(groups, "edges");
    if (regions.empty() || !edges || !entry.boolean("include_edges") || entry.has("components")) return selection;
    for (Index e = 0; e < edges->count; ++e) {
        if (static_cast<std::size_t>(e) < listed_edges.size() && listed_edges[static_cast<std::size_t>(e)]) continue;
        const std::vector<Index> ends = element.item_nodes("edges", e);
        bool held = !ends.empty();
        for (Index n : ends) held = held && n >= 0 && n < node_count && holder[static_cast<std::size_t>(n)] >= 0;
        if (held) selection.region_edges.push_back({e, entry, "include_edges"});
    }
    return selection;
}

}  // namespace soma
