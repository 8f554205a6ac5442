#pragma once
/// \file nearest_point.hpp
/// \brief Selecting a point of an element by position: the nearest point of its Geometry.
///
/// Probes and loads written as `at: [x, y, z]` resolve to one node this way, at bind time and in
/// the initial configuration, so the choice does not change while the body moves. Users see the
/// chosen node and its distance (SceneView::note), since a position between nodes picks one.

#include "soma/element.hpp"
#include "soma/point_map.hpp"
#include "soma/types.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace soma {

/// The point of a Geometry closest to a target position.
struct NearestPoint {
    Index index = -1;             ///< point index in the Geometry; -1 when it has no points
    double distance = std::numeric_limits<double>::infinity();  ///< |position - target| (m)
    Vec3 position = Vec3::Zero(); ///< the point's position in the configuration searched
};

/// \brief Position of point \p point of \p geometry in the global configuration \p q.
inline Vec3 point_position(const Geometry& geometry, const VectorX& q, Index point) {
    const auto& dofs = geometry.point_dofs[static_cast<std::size_t>(point)];
    return Vec3(q[dofs[0]], q[dofs[1]], q[dofs[2]]);
}

/// \brief The point of \p geometry nearest to \p target in configuration \p q.
/// \param[in] geometry  an element's points (after bind())
/// \param[in] q         the global configuration (at bind time: the initial state)
/// \param[in] target    the position asked for (m)
/// \return the nearest point; of points at equal distance the lowest index, so the choice is
///         reproducible. index is -1 when the geometry has no points.
inline NearestPoint nearest_point(const Geometry& geometry, const VectorX& q, const Vec3& target) {
    NearestPoint best;
    double best_squared = std::numeric_limits<double>::infinity();
    const auto count = static_cast<Index>(geometry.point_dofs.size());
    for (Index p = 0; p < count; ++p) {
        const Vec3 x = point_position(geometry, q, p);
        const double squared = (x - target).squaredNorm();
        if (best.index < 0 || squared < best_squared) {  // the first point even if the distance overflows
            best_squared = squared;
            best.index = p;
            best.position = x;
        }
    }
    if (best.index >= 0) best.distance = (best.position - target).norm();
    return best;
}

/// \brief The point of \p element nearest to \p target in configuration \p q (identity or
/// mapped points, point_map.hpp); of points at equal distance the lowest index.
inline NearestPoint nearest_point(const Element& element, const VectorX& q, const Vec3& target) {
    if (!element.geometry().mapped_points) return nearest_point(element.geometry(), q, target);
    NearestPoint best;
    double best_squared = std::numeric_limits<double>::infinity();
    const auto count = static_cast<Index>(element.geometry().point_dofs.size());
    for (Index p = 0; p < count; ++p) {
        const Vec3 x = soma::point_position(element, p, q);
        const double squared = (x - target).squaredNorm();
        if (best.index < 0 || squared < best_squared) {
            best_squared = squared;
            best.index = p;
            best.position = x;
        }
    }
    if (best.index >= 0) best.distance = (best.position - target).norm();
    return best;
}

/// \brief The note that tells a user which node a position chose, e.g.
/// "at [0.1, 0, 0] is node 20 of 'plate' at [0.1, 0, 0] (distance 0 m)".
inline std::string describe_nearest_point(const std::string& element, const Vec3& target, const NearestPoint& found) {
    // 6 significant digits (iostream's default): enough to tell nodes of a mesh apart.
    std::ostringstream text;
    const auto vec = [&text](const Vec3& x) { text << '[' << x.x() << ", " << x.y() << ", " << x.z() << ']'; };
    text << "at ";
    vec(target);
    text << " is node " << found.index << " of '" << element << "' at ";
    vec(found.position);
    text << " (distance " << found.distance << " m)";
    return text.str();
}

}  // namespace soma
