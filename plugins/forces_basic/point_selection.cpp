#include "point_selection.hpp"

#include <algorithm>
#include <map>

namespace soma::forces_basic {

namespace {

double value_or_zero(const std::vector<double>& values, std::size_t i) {
    return i < values.size() ? values[i] : 0.0;
}

}  // namespace

std::vector<ForcePoint> gather_points(const std::vector<const Element*>& elements) {
    std::vector<ForcePoint> points;
    for (const Element* element : elements) {
        const Geometry& g = element->geometry();
        for (std::size_t i = 0; i < g.point_dofs.size(); ++i) {
            ForcePoint p;
            p.dofs = g.point_dofs[i];
            p.mass = value_or_zero(g.point_mass, i);
            p.length = value_or_zero(g.point_length, i);
            p.radius = value_or_zero(g.point_radius, i);
            p.density = g.density;
            p.element = element;
            p.index = static_cast<Index>(i);
            points.push_back(p);
        }
    }
    return points;
}

std::vector<Index> force_point_stencil(const ForcePoint& p, const SceneView& scene) {
    if (!p.element->geometry().mapped_points) return {p.dofs.begin(), p.dofs.end()};
    return point_stencil(*p.element, p.index, scene.state().q);
}

void merge_shared_points(std::vector<ForcePoint>& points) {
    std::map<std::array<Index, 3>, std::size_t> first;  // bind-time only: a map is fine here
    std::vector<ForcePoint> merged;
    merged.reserve(points.size());
    for (const ForcePoint& p : points) {
        if (p.element && p.element->geometry().mapped_points) {  // a mapped point owns no DOFs of its own
            merged.push_back(p);
            continue;
        }
        auto [it, inserted] = first.try_emplace(p.dofs, merged.size());
        if (inserted) {
            merged.push_back(p);
        } else {
            ForcePoint& kept = merged[it->second];
            kept.radius = std::max(kept.radius, p.radius);
        }
    }
    points = std::move(merged);
}

}  // namespace soma::forces_basic
