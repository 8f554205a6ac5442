#pragma once
/// \file scene_inspection.hpp
/// \brief `soma inspect`: the nodes, edges, triangles and other DOF items of each element of a
/// built scene, with their indices and initial positions, so a user can write `fixed`,
/// `prescribed`, probes and loads without counting by hand.
///
/// Everything is read through the element-agnostic SDK (Element::geometry(), dof_groups(),
/// group_dof(), describe_dof()), so it works for any element a plugin provides. The convention
/// it relies on (documented in soma/element.hpp): item i of an element's "nodes" group is point
/// i of its Geometry, and item i of an "edges" group with as many items as Geometry::edges is
/// edge i.

#include "simulation.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma {

/// What `soma inspect` lists.
struct InspectionOptions {
    std::vector<std::string> elements;  ///< element names to list; empty: every element
    /// Kinds of items to list: "nodes", "edges", "triangles", "groups" (DOF items that are not
    /// nodes or Geometry edges, e.g. a joint's twist slots); empty: all.
    std::vector<std::string> kinds;
    std::optional<Vec3> near;           ///< list items by distance to this point (midpoints, centroids)
    long count = 10;                    ///< with `near`: how many items of each kind and element
    bool csv = false;                   ///< one CSV table instead of readable text
};

/// \brief The listing of \p simulation's elements in its initial configuration.
/// \param[in] simulation  a built scene (state() is the initial state)
/// \param[in] scene_name  the scene file, for the text heading
/// \param[in] options     filters and format
/// \return the text to print. Throws InputError for an element name the scene does not have.
std::string inspect_scene(const Simulation& simulation, const std::string& scene_name, const InspectionOptions& options);

}  // namespace soma
