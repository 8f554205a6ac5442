#pragma once
/// \file actuation_controller.hpp
/// \brief The `actuation` controller: drives one actuation channel of one element over time
/// (MAT-DiSMech §6.1 "Actuation"; Fig. 4: natural curvature of the PneuNet rod; Fig. 5: natural hinge
/// angles of the manta ray).
///
/// Before every Newton solve the kernel calls apply(t) with the solve's evaluation time; the
/// controller then sets every component of every selected item of the channel:
///
///  - values: one muparser expression per component, evaluated for each selected item with the
///    variables of ItemVariables (t; i the item's index in the channel; j its position in the
///    selection; n the number of selected items; s = j/(n-1); x, y, z its actuation point).
///    Example, the manta ray's centre-line hinges (MAT-DiSMech Fig. 5): `(A/2)*(cos(2*_pi*f*t + _pi*s) - 1)`.
///  - table: a CSV file (time_table.hpp) whose first column is t and whose other columns are the
///    components, the same values for every selected item, linearly interpolated in t and held
///    at the first/last row outside the table's time range.
///  - bend_toward: a world direction d and one expression kappa (same variables as `values`):
///    for a channel whose components bend the element toward directions
///    (Element::actuation_directions: a rod's natural_curvature, {D1, D2} ~ {m1, m2}), each item
///    gets component_i = kappa (d . D_i) / |(d . D_1, d . D_2)|, so a rod bends toward d (d
///    projected on each spring's cross-section plane at the initial configuration) with
///    curvature kappa. d (nearly) along the rod at a selected item is an error at bind().
///
/// Item selection: `items` (negative indices count from the end), `box` (items whose
/// actuation point lies in the axis-aligned box, bounds included) and `plane` (items whose
/// actuation point lies within `tolerance` of a plane) select their UNION, as the
/// kernel's node selections (fixed/prescribed nodes: indices, box, plane) do; with neither,
/// every item of the channel. Selected items are processed in ascending item index. A box that
/// selects nothing is an error (a typo in its bounds would otherwise silently drive nothing).
///
/// bind() sets the values of the initial time, so the initial state (its output and energy)
/// carries the actuation of t0, and the kernel's apply(t) before each solve moves it on.
///
/// Errors are found before the run: syntax errors and unknown names at construction; unknown
/// element or channel, the wrong number of expressions or table columns, items out of range, a
/// box selecting nothing, and values at t0 that are not finite or that the element refuses, at
/// bind(). A value refused during the run (e.g. a rod curvature that turns a node by pi or more)
/// throws an InputError naming the controller's element, channel, item and time.

#include "item_expressions.hpp"
#include "soma/settings_errors.hpp"
#include "time_table.hpp"

#include "soma/controller.hpp"
#include "soma/element.hpp"

#include <optional>
#include <string>
#include <vector>

namespace soma::actuation {

/// An axis-aligned box, bounds included.
struct SelectionBox {
    Vec3 min = Vec3::Zero();
    Vec3 max = Vec3::Zero();
};

/// A plane and a distance tolerance.
struct SelectionPlane {
    Vec3 point = Vec3::Zero();
    Vec3 normal = Vec3::UnitZ();  ///< need not be unit length; must not be zero
    double tolerance = 1e-9;       ///< m
};

/// "Bend toward a direction": a world direction and a curvature expression.
struct BendToward {
    Vec3 direction = Vec3::Zero();  ///< d, at the initial configuration (need not be unit length)
    std::string curvature;          ///< muparser expression of the curvature kappa (channel unit)
};

/// The settings of an `actuation` controller (the scene block, registration.cpp).
struct ActuationSettings {
    std::string element;                     ///< the element's scene name
    std::string channel;                     ///< one of the element's actuation_channels()
    std::optional<std::vector<long>> items;  ///< item indices (negative from the end)
    std::optional<SelectionBox> box;         ///< items whose actuation point lies inside
    std::optional<SelectionPlane> plane;     ///< items whose actuation point lies on the plane
    std::optional<std::vector<std::string>> values;  ///< one expression per component
    std::optional<std::string> table_file;   ///< CSV path (already resolved)
    std::optional<BendToward> bend_toward;   ///< direction + curvature instead of values/table
};

/// Drives one channel of one element from expressions or a table.
class ActuationController final : public Controller {
public:
    /// \brief Checks the settings that need no scene: exactly one of values/table/bend_toward, the
    /// expressions' syntax and names, the table file, the box bounds.
    explicit ActuationController(ActuationSettings settings, SettingsErrors errors = SettingsErrors("actuation"));

    /// \brief Finds the element and channel, resolves the selection, precomputes each item's
    /// variables, and sets the values of the scene's initial time t0 = scene.state().t on every
    /// item: a value that is not finite, or that the element refuses, is an error now.
    void bind(const SceneView& scene) override;
    /// \brief Sets every component of every selected item for time t. Allocates nothing.
    void apply(double t) override;
    /// The values last set: the element's actuated rest state between steps is the one of the
    /// last solve's evaluation time, which a restarted run must start from (a stiffness-
    /// proportional damping evaluated at the step start reads it).
    void save_checkpoint(CheckpointWriter& out) const override;
    void restore_checkpoint(CheckpointReader& in) override;

    /// \brief The selected item indices (ascending), valid after bind().
    std::vector<Index> selected_items() const;
    /// \brief The value last set (by apply, or by bind for t0) on component `component` of the
    /// `k`-th selected item. For tests.
    double last_value(std::size_t k, std::size_t component) const { return values_[k * components_ + component]; }

private:
    /// Per-item data precomputed at bind(): the variables other than t.
    struct Item {
        Index index = 0;
        double j = 0.0, s = 0.0;
        Vec3 point = Vec3::Zero();
    };
    void bind_to(Element& element, double initial_time);
    /// Sets the expression variables of one item (not t).
    void load_variables(const Item& item);
    [[noreturn]] void fail_during_run(double t, const Item& item, const std::string& message) const;
    /// Value of component c of the k-th selected item from the current table row or expressions.
    double component_value(std::size_t k, std::size_t c) const;
    /// The expression text behind component c, for messages.
    const std::string& expression_text(std::size_t c) const;

    ActuationSettings settings_;
    SettingsErrors errors_;
    std::optional<ItemExpressions> expressions_;
    std::optional<TimeTable> table_;

    Element* element_ = nullptr;
    std::size_t components_ = 0;
    std::vector<Item> items_;
    std::vector<double> values_;       ///< items x components, the last values set
    std::vector<double> table_row_;    ///< one row of the table (components)
    std::vector<double> bend_weights_; ///< bend_toward: items x components, (d . D_i) / |d . D|
};

}  // namespace soma::actuation
