#pragma once
/// \file point_load.hpp
/// \brief A constant force on chosen points of one element (MAT-DiSMech §5.5, the reference code's point
/// force).
///
///     F -= load_factor f on each chosen point;  potential energy -load_factor f·x summed.
///
/// Nodes are point indices of the element's Geometry (its "nodes"); a negative index counts
/// from the end (-1 is the last point). Instead of indices, `at` gives a position: the load then
/// acts on the node nearest to it in the initial configuration (soma/nearest_point.hpp), and the
/// chosen node and its distance are reported as a note.

#include "soma/settings_errors.hpp"

#include "soma/element.hpp"
#include "soma/force.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma::forces_basic {

/// The settings of a `point_load` force.
struct PointLoadSettings {
    std::string element;        ///< the element's scene name
    std::vector<long> nodes;    ///< point indices; negative counts from the end (or use `at`)
    Vec3 force = Vec3::Zero();  ///< f (N), applied to each chosen point
    std::optional<Vec3> at;     ///< instead of nodes: the node nearest to this position (m)
    /// Prefix of the note naming the node `at` chose, e.g. "scene.yaml:12:7: forces[1].at";
    /// empty: the force's name.
    std::string where;
};

/// A constant applied force on points.
class PointLoad final : public Force {
public:
    /// \brief Checks the settings (an element name, at least one node or else a position, a
    /// finite force).
    explicit PointLoad(PointLoadSettings settings, SettingsErrors errors = SettingsErrors("point_load"));

    /// \brief Resolves the element and the node indices (out of range or repeated: an error), or
    /// the node nearest to `at` in the scene's initial state (reported with SceneView::note).
    void bind(const SceneView& scene) override;
    /// \brief One 3-DOF stencil per chosen point.
    void declare_pattern(PatternBuilder& pattern) override;
    /// \brief F -= load_factor f on each chosen point; no Jacobian.
    void add_residual_and_jacobian(const EvalContext& context, Assembly& assembly) override;
    /// \brief -load_factor Σ f·x_i.
    double potential_energy(const EvalContext& context) const override;

    /// \brief The resolved (non-negative) point indices, valid after bind().
    const std::vector<Index>& points() const { return points_; }

private:
    PointLoadSettings settings_;
    SettingsErrors errors_;
    std::vector<Index> points_;
    const Element* element_ = nullptr;
    std::vector<std::vector<Index>> dofs_;  ///< stencil DOFs per point (a mapped point: all it depends on)
    std::vector<StencilId> stencils_;
    PointKinematics kinematics_;  ///< kept: a wide point's storage is sized once
};

}  // namespace soma::forces_basic
