#pragma once
/// \file point_selection.hpp
/// \brief The elements a force acts on (by scene name) and their points, copied into a flat
/// array at bind() so that evaluation touches no element and allocates nothing.

#include "soma/element_selection.hpp"
#include "soma/settings_errors.hpp"

#include "soma/element.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <array>
#include <string>
#include <vector>

namespace soma::forces_basic {

/// One point of an element's Geometry, as a force needs it.
struct ForcePoint {
    std::array<Index, 3> dofs{};  ///< global DOFs of x, y, z (identity points; -1 for a mapped point)
    double mass = 0.0;            ///< lumped mass (kg)
    double length = 0.0;          ///< Voronoi length along rod edges (m); 0 for pure-shell points
    double radius = 0.0;          ///< contact radius (m)
    double density = 0.0;         ///< density of the owning element (kg/m^3)
    const Element* element = nullptr;
    Index index = 0;              ///< point index inside its element
};

/// \brief Copies every point of \p elements (element by element, in point order).
/// Missing per-point arrays in a Geometry (e.g. no radii) read as 0.
std::vector<ForcePoint> gather_points(const std::vector<const Element*>& elements);

/// \brief The global DOFs a force's stencil at point \p p needs: its x, y, z, or for a mapped
/// point (a rigid body's corner) every DOF its position depends on.
std::vector<Index> force_point_stencil(const ForcePoint& p, const SceneView& scene);

/// \brief Merges points that share their global DOFs (two elements joined at a node), keeping
/// the first occurrence and the largest radius. Used by contact, where a shared node must touch
/// the floor once; mass- and length-weighted forces (gravity, drag) keep every element's share.
void merge_shared_points(std::vector<ForcePoint>& points);

}  // namespace soma::forces_basic
