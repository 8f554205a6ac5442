#pragma once
/// \file dof_selection.hpp
/// \brief What one `fixed` or `prescribed` entry of an element selects: nodes and edges listed by
/// index, nodes inside its regions (box, boxes, plane, planes), and the edges those regions hold.
///
/// A region selects the nodes whose initial position lies in it; the regions of one entry are a
/// union. With `include_edges` (default true) the entry also selects every item of the element's
/// "edges" group whose end nodes (Element::item_nodes) the union holds, so a region is a clamp:
/// a rod's edge twist, a mid-edge shell's xi. Nodes listed by index select no edges.
///
/// `components` (x, y, z by name) restricts the entry to those components of its nodes: a roller or
/// a symmetry plane. Such an entry constrains only part of a node, which is not a clamp, so it
/// selects no edge DOF at all: listed edges, or include_edges written true beside it, are errors.

#include "soma/element.hpp"
#include "soma/parameters.hpp"

#include <string>
#include <vector>

namespace soma {

/// One selected item and where the scene selects it (for messages about that item).
struct SelectedItem {
    Index item = 0;
    Parameters at;    ///< the entry (listed by index) or the region block that selects it
    std::string key;  ///< key of `at` to point at ("nodes", "edges", "include_edges", or "" for a region)
};

/// The items one `fixed` or `prescribed` entry selects in one element, each once, ascending.
struct DofSelection {
    std::vector<SelectedItem> nodes;         ///< listed under `nodes` or inside a region
    std::vector<SelectedItem> listed_edges;  ///< listed under `edges`
    std::vector<SelectedItem> region_edges;  ///< not listed, end nodes all in the regions (include_edges)
    std::vector<SelectedItem> rotations;     ///< listed under `rotations` (fixed only: frames on a manifold)
    std::vector<SelectedItem> coordinates;   ///< listed under `coordinates` (a gvs robot's generalised coordinates)
    /// The components of each selected node the entry constrains (indices into the "nodes" group's
    /// components), in the order the entry lists them; all of them when it lists none.
    std::vector<int> node_components;
};

/// The DOF group named `name`, or null.
const DofGroup* find_dof_group(const std::vector<DofGroup>& groups, const std::string& name);

/// \brief Resolves a possibly negative item index into [0, count).
/// \throws InputError at `block.key` when out of range, naming the valid indices.
Index resolve_item_index(long index, Index count, const Parameters& block, const std::string& key,
                         const std::string& what);

/// \brief Evaluates the selection of one `fixed` or `prescribed` entry.
/// \param element       the element the entry belongs to (bound: its global DOFs are known)
/// \param element_type  its registered type name, for messages
/// \param entry         the validated entry (schema of TypeRegistry's common element keys)
/// \param initial_q     the global initial configuration: regions test the nodes' initial positions
/// \throws InputError at the key for an index out of range, a group the element lacks, a zero plane
/// normal, a region that selects no node, or `components` naming an unknown or repeated component or
/// written beside listed edges or include_edges: true.
DofSelection select_dofs(const Element& element, const std::string& element_type, const Parameters& entry,
                         const VectorX& initial_q);

}  // namespace soma
