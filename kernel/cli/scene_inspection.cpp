// `soma inspect` (scene_inspection.hpp): lists each element's DOF items through the SDK only.
#include "scene_inspection.hpp"

#include "string_distance.hpp"

#include "soma/nearest_point.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace soma {

namespace {

/// One listed item: a node, an edge, a triangle, or an item of another DOF group.
struct Item {
    Index index = 0;
    std::vector<Index> nodes;   ///< edge: 2 nodes, triangle: 3
    std::optional<Vec3> x;      ///< node position, edge midpoint, triangle centroid
    std::string dofs;           ///< names of its DOF components ("x y z", "twist"); empty: no DOFs
    std::string held;           ///< "fixed x y z", "prescribed z", ... ; empty when free
    std::string description;    ///< items of other groups: the element's description of its DOF
    double distance = std::numeric_limits<double>::quiet_NaN();  ///< to --near
};

/// A table of items of one kind of one element.
struct Table {
    std::string kind;      ///< "node", "edge", "triangle" or a DOF group's name
    std::string filter;    ///< the --only value that selects it
    std::string heading;   ///< text form: what the items are
    std::vector<Item> items;
};

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
    std::string text;
    for (const auto& w : words) text += (text.empty() ? "" : separator) + w;
    return text;
}

/// "fixed x y; prescribed z" for the constrained components among (name, global DOF) pairs.
std::string held_text(const DofMap& dofs, const std::vector<std::pair<std::string, Index>>& components) {
    std::vector<std::string> fixed, prescribed;
    for (const auto& [name, global] : components) {
        if (dofs.is_free(global)) continue;
        (dofs.is_prescribed(global) ? prescribed : fixed).push_back(name);
    }
    std::string text;
    if (!fixed.empty()) text = "fixed " + joined(fixed);
    if (!prescribed.empty()) text += (text.empty() ? "" : "; ") + std::string("prescribed ") + joined(prescribed);
    return text;
}

const DofGroup* find_group(const std::vector<DofGroup>& groups, const std::string& name) {
    for (const DofGroup& g : groups)
        if (g.name == name) return &g;
    return nullptr;
}

/// The DOF group whose items are the Geometry's edges (same count), if the element has one.
const DofGroup* edge_group(const std::vector<DofGroup>& groups, const Geometry& geometry) {
    const DofGroup* g = find_group(groups, "edges");
    return g && static_cast<std::size_t>(g->count) == geometry.edges.size() ? g : nullptr;
}

/// (component name, global DOF) of every component of one item of a group.
std::vector<std::pair<std::string, Index>> group_components(const Element& element, const DofGroup& group, Index item) {
    std::vector<std::pair<std::string, Index>> components;
    for (int c = 0; c < group.dofs_per_item; ++c) {
        const std::string name = static_cast<std::size_t>(c) < group.component_names.size()
                                     ? group.component_names[static_cast<std::size_t>(c)]
                                     : std::to_string(c);
        components.emplace_back(name, element.global_dof(element.group_dof(group.name, item, c)));
    }
    return components;
}

std::vector<Table> element_tables(const Simulation& simulation, const Element& element) {
    const Geometry& geometry = element.geometry();
    const VectorX& q = simulation.state().q;
    const DofMap& dofs = simulation.dof_map();
    const std::vector<DofGroup> groups = element.dof_groups();
    const DofGroup* edges_dofs = edge_group(groups, geometry);

    Table nodes{"node", "nodes", "nodes (position)", {}};
    const DofGroup* node_group = find_group(groups, "nodes");
    const std::vector<std::string> axes = node_group && node_group->component_names.size() == 3
                                              ? node_group->component_names
                                              : std::vector<std::string>{"x", "y", "z"};
    // Every point's position once: mapped points (a rigid body's, a GVS robot's) through the
    // element's map, in one call; edges and triangles read them (a mapped point has no DOFs to read).
    const std::size_t point_count = geometry.point_dofs.size();
    std::vector<Vec3> position(point_count), velocity(point_count);
    if (geometry.mapped_points)
        element.point_states(q, simulation.state().v, position, velocity);
    else
        for (std::size_t p = 0; p < point_count; ++p) position[p] = point_position(geometry, q, static_cast<Index>(p));
    const auto at = [&](Index p) { return position[static_cast<std::size_t>(p)]; };
    for (Index p = 0; p < static_cast<Index>(point_count); ++p) {
        Item item;
        item.index = p;
        item.x = at(p);
        if (geometry.mapped_points) {  // no DOFs of its own: it moves with the body
            item.dofs = "(moves with the body)";
            nodes.items.push_back(std::move(item));
            continue;
        }
        item.dofs = joined(axes);
        const auto& d = geometry.point_dofs[static_cast<std::size_t>(p)];
        item.held = held_text(dofs, {{axes[0], d[0]}, {axes[1], d[1]}, {axes[2], d[2]}});
        nodes.items.push_back(std::move(item));
    }

    Table edges{"edge", "edges",
                edges_dofs ? fmt::format("edges (midpoint; edge i is item i of DOF group 'edges': {})",
                                         joined(edges_dofs->component_names))
                           : std::string("edges (midpoint; no edge DOFs)"),
                {}};
    for (Index e = 0; e < static_cast<Index>(geometry.edges.size()); ++e) {
        const auto& [a, b] = geometry.edges[static_cast<std::size_t>(e)];
        Item item;
        item.index = e;
        item.nodes = {a, b};
        item.x = 0.5 * (at(a) + at(b));
        if (edges_dofs) {
            item.dofs = joined(edges_dofs->component_names);
            item.held = held_text(dofs, group_components(element, *edges_dofs, e));
        }
        edges.items.push_back(std::move(item));
    }

    Table triangles{"triangle", "triangles", "triangles (centroid)", {}};
    for (Index t = 0; t < static_cast<Index>(geometry.triangles.size()); ++t) {
        const auto& tri = geometry.triangles[static_cast<std::size_t>(t)];
        Item item;
        item.index = t;
        item.nodes = {tri[0], tri[1], tri[2]};
        item.x = (at(tri[0]) + at(tri[1]) + at(tri[2])) / 3.0;
        triangles.items.push_back(std::move(item));
    }

    std::vector<Table> tables{std::move(nodes), std::move(edges), std::move(triangles)};
    // DOF items that are neither points nor Geometry edges (a joint's twist slots, ...): listed by
    // the element's own description of their first DOF.
    for (const DofGroup& group : groups) {
        if (group.name == "nodes" || &group == edges_dofs) continue;
        Table table{group.name, "groups", fmt::format("DOF group '{}' ({})", group.name, joined(group.component_names)), {}};
        for (Index i = 0; i < group.count; ++i) {
            Item item;
            item.index = i;
            item.dofs = joined(group.component_names);
            const auto components = group_components(element, group, i);
            item.held = held_text(dofs, components);
            item.description = element.describe_dof(element.group_dof(group.name, i, 0));
            table.items.push_back(std::move(item));
        }
        tables.push_back(std::move(table));
    }
    return tables;
}

/// Keeps the `count` items nearest to `near` (items without a position are dropped).
void keep_nearest(Table& table, const Vec3& near, long count) {
    std::vector<Item> kept;
    for (Item& item : table.items)
        if (item.x) {
            item.distance = (*item.x - near).norm();
            kept.push_back(std::move(item));
        }
    std::stable_sort(kept.begin(), kept.end(), [](const Item& a, const Item& b) { return a.distance < b.distance; });
    if (static_cast<long>(kept.size()) > count) kept.resize(static_cast<std::size_t>(count));
    table.items = std::move(kept);
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string csv_rows(const std::string& element, const Table& table) {
    std::string text;
    for (const Item& item : table.items) {
        std::string nodes;
        for (std::size_t k = 0; k < 3; ++k) nodes += "," + (k < item.nodes.size() ? std::to_string(item.nodes[k]) : "");
        // Shortest text that reads back to the same double.
        const std::string x = item.x ? fmt::format("{},{},{}", item.x->x(), item.x->y(), item.x->z()) : ",,";
        const std::string distance = std::isnan(item.distance) ? "" : fmt::format("{}", item.distance);
        text += fmt::format("{},{},{}{},{},{},{},{},{}\n", csv_field(element), csv_field(table.kind), item.index, nodes,
                            x, distance, csv_field(item.dofs), csv_field(item.held), csv_field(item.description));
    }
    return text;
}

std::string text_table(const Table& table, bool with_distance) {
    if (table.items.empty()) return "";
    std::string text = fmt::format("  {}\n", table.heading);
    const bool positioned = table.items.front().x.has_value();
    const bool with_nodes = !table.items.front().nodes.empty();
    const bool with_dofs = !table.items.front().dofs.empty();  // triangles, and hinge-shell edges, have none
    std::string header = fmt::format("  {:>8}", table.kind);
    if (with_nodes) header += fmt::format("  {:<14}", "nodes");
    if (positioned) header += fmt::format(" {:>12} {:>12} {:>12}", "x", "y", "z");
    if (with_distance) header += fmt::format(" {:>12}", "distance");
    if (with_dofs) header += "  held";
    text += header + "\n";
    for (const Item& item : table.items) {
        std::string line = fmt::format("  {:>8}", item.index);
        if (with_nodes) {
            std::vector<std::string> nodes;
            for (const Index n : item.nodes) nodes.push_back(std::to_string(n));
            line += fmt::format("  {:<14}", joined(nodes));
        }
        if (positioned) line += fmt::format(" {:>12.6g} {:>12.6g} {:>12.6g}", item.x->x(), item.x->y(), item.x->z());
        if (with_distance) line += fmt::format(" {:>12.6g}", item.distance);
        if (with_dofs) line += "  " + (item.held.empty() ? std::string("-") : item.held);
        if (!item.description.empty()) line += "  " + item.description;
        while (!line.empty() && line.back() == ' ') line.pop_back();
        text += line + "\n";
    }
    return text;
}

std::vector<const Element*> chosen_elements(const Simulation& simulation, const std::vector<std::string>& names) {
    std::vector<const Element*> chosen;
    if (names.empty()) {
        for (const Element* e : simulation.elements()) chosen.push_back(e);
        return chosen;
    }
    std::vector<std::string> known;
    for (const Element* e : simulation.elements()) known.push_back(e->name());
    for (const std::string& name : names) {
        const Element* element = simulation.find_element(name);
        if (!element)
            throw InputError(fmt::format("--element {}: the scene has no element named '{}' (elements: {}){}", name, name,
                                         known.empty() ? "none" : quoted_list(known), did_you_mean(name, known)));
        chosen.push_back(element);
    }
    return chosen;
}

}  // namespace

std::string inspect_scene(const Simulation& simulation, const std::string& scene_name, const InspectionOptions& options) {
    const auto wanted = [&](const Table& table) {
        return options.kinds.empty() ||
               std::find(options.kinds.begin(), options.kinds.end(), table.filter) != options.kinds.end();
    };
    std::string text;
    if (options.csv) {
        text = "element,kind,index,node_a,node_b,node_c,x,y,z,distance,dofs,held,description\n";
    } else {
        text = fmt::format("{}: {} elements, {} DOFs ({} free); positions in the initial configuration (m); "
                           "held: fixed or prescribed DOFs\n",
                           scene_name, simulation.elements().size(), simulation.dof_count(),
                           simulation.free_dof_count());
        if (options.near)
            text += fmt::format("the {} items of each kind nearest to [{}, {}, {}]\n", options.count, options.near->x(),
                                options.near->y(), options.near->z());
    }
    for (const Element* element : chosen_elements(simulation, options.elements)) {
        std::vector<Table> tables = element_tables(simulation, *element);
        if (!options.csv) {
            const Geometry& geometry = element->geometry();
            std::vector<std::string> groups;
            for (const DofGroup& g : element->dof_groups())
                groups.push_back(fmt::format("{} {} x ({})", g.name, g.count, joined(g.component_names, ", ")));
            text += fmt::format("\nelement '{}' ({}): {} nodes, {} edges, {} triangles; DOF groups: {}\n",
                                element->name(), simulation.element_type_name(*element), geometry.point_dofs.size(),
                                geometry.edges.size(), geometry.triangles.size(),
                                groups.empty() ? std::string("none") : joined(groups, ", "));
        }
        for (Table& table : tables) {
            if (!wanted(table)) continue;
            if (options.near) keep_nearest(table, *options.near, options.count);
            text += options.csv ? csv_rows(element->name(), table) : text_table(table, options.near.has_value());
        }
    }
    return text;
}

}  // namespace soma
