// The `actuation` controller (actuation_controller.hpp; MAT-DiSMech §6.1, §7.1, Fig. 4-5).
#include "actuation_controller.hpp"

#include "soma/checkpoint.hpp"

#include "soma/scene_view.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace soma::actuation {
namespace {

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t k = 0; k < names.size(); ++k) out += (k ? ", " : "") + names[k];
    return out;
}

std::string describe_channels(const std::vector<ActuationChannel>& channels) {
    if (channels.empty()) return "it has none";
    std::string out = "its channels: ";
    for (std::size_t k = 0; k < channels.size(); ++k) {
        const ActuationChannel& c = channels[k];
        out += (k ? "; " : "") + c.name + " (" + std::to_string(c.count) + " items; components " +
               join(c.component_names) + (c.unit.empty() ? "" : " in " + c.unit) + ")";
    }
    return out;
}

std::string format_number(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

std::string format_point(const Vec3& p) {
    std::ostringstream s;
    s << "(" << p.x() << ", " << p.y() << ", " << p.z() << ")";
    return s.str();
}

}  // namespace

ActuationController::ActuationController(ActuationSettings settings, SettingsErrors errors)
    : settings_(std::move(settings)), errors_(std::move(errors)) {
    if (settings_.element.empty()) errors_.fail("element", "name the element to drive");
    if (settings_.channel.empty()) errors_.fail("channel", "name the actuation channel to drive");
    const int sources = (settings_.values ? 1 : 0) + (settings_.table_file ? 1 : 0) + (settings_.bend_toward ? 1 : 0);
    if (sources > 1)
        errors_.fail(settings_.values ? "values" : "table",
                     "give one of `values` (expressions), `table` (a CSV file) or `bend_toward` (a direction and "
                     "a curvature), not several");
    if (sources == 0)
        errors_.fail("values", "give the channel's values: `values` (one expression per component), "
                               "`table` (a CSV file of t and the components) or `bend_toward` (a direction and a "
                               "curvature)");
    if (settings_.bend_toward) {
        const Vec3& d = settings_.bend_toward->direction;
        if (!d.allFinite() || d.norm() == 0.0)
            errors_.fail("bend_toward.direction", "the direction must be finite and not zero, got " + format_point(d));
        try {
            expressions_.emplace(std::vector<std::string>{settings_.bend_toward->curvature});
        } catch (const std::invalid_argument& e) {
            errors_.fail("bend_toward.curvature", e.what());
        }
    }
    if (settings_.values) {
        if (settings_.values->empty()) errors_.fail("values", "the list of expressions is empty");
        try {
            expressions_.emplace(*settings_.values);
        } catch (const std::invalid_argument& e) {
            errors_.fail("values", e.what());
        }
    }
    if (settings_.table_file) {
        try {
            table_.emplace(TimeTable::read_csv_file(*settings_.table_file));
        } catch (const std::invalid_argument& e) {
            errors_.fail("table.file", e.what());
        }
    }
    if (settings_.box) {
        const SelectionBox& b = *settings_.box;
        if (!b.min.allFinite() || !b.max.allFinite() || (b.min.array() > b.max.array()).any())
            errors_.fail("box", "needs finite bounds with min <= max in every coordinate, got min " + format_point(b.min) +
                                    " and max " + format_point(b.max));
    }
    if (settings_.plane && (!settings_.plane->normal.allFinite() || settings_.plane->normal.norm() == 0.0))
        errors_.fail("plane.normal", "the normal must be finite and not zero");
    if (settings_.items && settings_.items->empty() && !settings_.box && !settings_.plane)
        errors_.fail("items", "the list is empty: it would select no item (leave `items` out to select them all)");
}

void ActuationController::bind(const SceneView& scene) {
    const double initial_time = scene.state().t;
    Element* element = scene.find_element(settings_.element);
    if (element == nullptr) {
        std::vector<std::string> names;
        for (const Element* e : scene.elements()) names.push_back("'" + e->name() + "'");
        errors_.fail("element", "no element named '" + settings_.element + "' (elements: " + join(names) + ")");
    }
    bind_to(*element, initial_time);
}

void ActuationController::bind_to(Element& element, double initial_time) {
    const std::vector<ActuationChannel> channels = element.actuation_channels();
    const auto found = std::find_if(channels.begin(), channels.end(),
                                    [&](const ActuationChannel& c) { return c.name == settings_.channel; });
    if (found == channels.end())
        errors_.fail("channel", "element '" + element.name() + "' has no actuation channel '" + settings_.channel + "'; " +
                                    describe_channels(channels));
    const ActuationChannel& channel = *found;
    components_ = channel.component_names.size();
    const std::string component_text = std::to_string(components_) + " component" + (components_ == 1 ? "" : "s") +
                                       " (" + join(channel.component_names) + ")";
    if (settings_.values && expressions_ && expressions_->size() != components_)
        errors_.fail("values", "channel '" + channel.name + "' has " + component_text + ", but " +
                                   std::to_string(expressions_->size()) + " expressions are given: one per component");
    if (table_ && table_->columns() != components_)
        errors_.fail("table.file", "channel '" + channel.name + "' has " + component_text + ", but the table has " +
                                       std::to_string(table_->columns()) + " value columns after the time column");

    // Selection: items ∪ box ∪ plane, or every item.
    const Index count = channel.count;
    std::vector<char> chosen(static_cast<std::size_t>(count), 0);
    if (settings_.items)
        for (long raw : *settings_.items) {
            const long resolved = raw < 0 ? raw + count : raw;
            if (resolved < 0 || resolved >= count)
                errors_.fail("items", "item index " + std::to_string(raw) + " is out of range: channel '" + channel.name +
                                          "' of element '" + element.name() + "' has " + std::to_string(count) +
                                          " items (valid: 0.." + std::to_string(count - 1) + ", or -" +
                                          std::to_string(count) + "..-1)");
            chosen[static_cast<std::size_t>(resolved)] = 1;
        }
    if (settings_.box) {
        Index inside = 0;
        for (Index k = 0; k < count; ++k) {
            const Vec3 p = element.actuation_point(channel.name, k);
            if ((p.array() >= settings_.box->min.array()).all() && (p.array() <= settings_.box->max.array()).all())
                chosen[static_cast<std::size_t>(k)] = 1, ++inside;
        }
        if (inside == 0)
            errors_.fail("box", "selects no item of channel '" + channel.name + "' of element '" + element.name() +
                                    "' (items are selected by their actuation point, e.g. a rod spring's center node)");
    }
    if (settings_.plane) {
        const Vec3 unit = settings_.plane->normal.normalized();
        Index on = 0;
        for (Index k = 0; k < count; ++k)
            if (std::abs((element.actuation_point(channel.name, k) - settings_.plane->point).dot(unit)) <=
                settings_.plane->tolerance)
                chosen[static_cast<std::size_t>(k)] = 1, ++on;
        if (on == 0)
            errors_.fail("plane", "selects no item of channel '" + channel.name + "' of element '" + element.name() +
                                      "' (tolerance " + std::to_string(settings_.plane->tolerance) + " m)");
    }
    if (!settings_.items && !settings_.box && !settings_.plane) std::fill(chosen.begin(), chosen.end(), 1);
    items_.clear();
    for (Index k = 0; k < count; ++k)
        if (chosen[static_cast<std::size_t>(k)]) items_.push_back(Item{k, 0.0, 0.0, element.actuation_point(channel.name, k)});
    if (items_.empty())
        errors_.fail("channel", "channel '" + channel.name + "' of element '" + element.name() + "' has no items");
    const double n = static_cast<double>(items_.size());
    for (std::size_t k = 0; k < items_.size(); ++k) {
        items_[k].j = static_cast<double>(k);
        items_[k].s = items_.size() > 1 ? static_cast<double>(k) / (n - 1.0) : 0.0;
    }
    values_.assign(items_.size() * components_, 0.0);
    table_row_.assign(components_, 0.0);

    // bend_toward: the weights (d . D_i) / |d . D| of every selected item.
    bend_weights_.clear();
    if (settings_.bend_toward) {
        const Vec3& d = settings_.bend_toward->direction;
        bend_weights_.assign(items_.size() * components_, 0.0);
        for (std::size_t k = 0; k < items_.size(); ++k) {
            const std::vector<Vec3> directions = element.actuation_directions(channel.name, items_[k].index);
            if (directions.size() != components_)
                errors_.fail("bend_toward", "channel '" + channel.name + "' of element '" + element.name() +
                                                "' has no bending directions: bend_toward drives a channel whose "
                                                "components bend the element toward directions (a discrete_rod's "
                                                "natural_curvature)");
            double norm = 0.0;
            for (std::size_t c = 0; c < components_; ++c) {
                bend_weights_[k * components_ + c] = d.dot(directions[c]);
                norm += bend_weights_[k * components_ + c] * bend_weights_[k * components_ + c];
            }
            norm = std::sqrt(norm);
            if (!(norm > 1e-6 * d.norm()))
                errors_.fail("bend_toward.direction",
                             "the direction " + format_point(d) + " is along the element at item " +
                                 std::to_string(items_[k].index) + " (point " + format_point(items_[k].point) +
                                 "): it gives no bending direction there; select other items or choose a direction "
                                 "across the rod");
            for (std::size_t c = 0; c < components_; ++c) bend_weights_[k * components_ + c] /= norm;
        }
    }

    // The values at the initial time, set now: domain errors of an expression (sqrt of a negative,
    // a division by zero) for some item, and values the element refuses, are reported before the
    // run, at the controller's key; and the initial state (its outputs, its energy) carries the
    // actuation of the initial time.
    const std::string key = settings_.bend_toward ? "bend_toward.curvature" : expressions_ ? "values" : "table.file";
    if (table_) table_->evaluate(initial_time, table_row_);
    else expressions_->variables().t = initial_time;
    for (std::size_t k = 0; k < items_.size(); ++k) {
        const Item& item = items_[k];
        const std::string where = " for item " + std::to_string(item.index) + " (j = " + std::to_string(k) + ", point " +
                                  format_point(item.point) + ") at the initial time t = " + format_number(initial_time);
        if (expressions_) load_variables(item);
        for (std::size_t c = 0; c < components_; ++c) {
            const double v = component_value(k, c);
            if (!std::isfinite(v))
                errors_.fail(key, "expression " + std::to_string(c + 1) + " ('" + expression_text(c) + "') is not finite" + where);
            try {
                element.set_actuation(channel.name, item.index, static_cast<int>(c), v);
            } catch (const std::exception& e) {
                errors_.fail(key, "element '" + element.name() + "' refuses " + channel.component_names[c] + " = " +
                                      format_number(v) + where + ": " + e.what());
            }
            values_[k * components_ + c] = v;
        }
    }
    element_ = &element;
}

void ActuationController::load_variables(const Item& item) {
    ItemVariables& v = expressions_->variables();
    v.i = static_cast<double>(item.index);
    v.j = item.j;
    v.n = static_cast<double>(items_.size());
    v.s = item.s;
    v.x = item.point.x();
    v.y = item.point.y();
    v.z = item.point.z();
}

void ActuationController::fail_during_run(double t, const Item& item, const std::string& message) const {
    throw InputError("actuation of channel '" + settings_.channel + "' of element '" + settings_.element + "', item " +
                     std::to_string(item.index) + ", at t = " + std::to_string(t) + ": " + message);
}

void ActuationController::apply(double t) {
    if (element_ == nullptr) throw std::logic_error("actuation: apply() before bind()");
    if (table_) table_->evaluate(t, table_row_);
    else expressions_->variables().t = t;
    for (std::size_t k = 0; k < items_.size(); ++k) {
        const Item& item = items_[k];
        if (expressions_) load_variables(item);
        for (std::size_t c = 0; c < components_; ++c) {
            double value = 0.0;
            try {
                value = component_value(k, c);
                if (!std::isfinite(value))
                    fail_during_run(t, item, "expression " + std::to_string(c + 1) + " ('" + expression_text(c) +
                                                 "') is not finite");
                element_->set_actuation(settings_.channel, item.index, static_cast<int>(c), value);
            } catch (const InputError&) {
                throw;
            } catch (const std::exception& e) {
                fail_during_run(t, item, e.what());
            }
            values_[k * components_ + c] = value;
        }
    }
}

void ActuationController::save_checkpoint(CheckpointWriter& out) const { out.reals("values", values_); }

void ActuationController::restore_checkpoint(CheckpointReader& in) {
    in.reals("values", values_);
    for (std::size_t k = 0; k < items_.size(); ++k)
        for (std::size_t c = 0; c < components_; ++c)
            element_->set_actuation(settings_.channel, items_[k].index, static_cast<int>(c), values_[k * components_ + c]);
}

double ActuationController::component_value(std::size_t k, std::size_t c) const {
    if (table_) return table_row_[c];
    if (settings_.bend_toward) return expressions_->evaluate(0) * bend_weights_[k * components_ + c];
    // Components with the same text (a curvature ramped alike in both directions) are evaluated
    // once: apply() sets them in order, so the first one's value for this item is in hand.
    const std::size_t same = expressions_->first_identical(c);
    if (same != c) return values_[k * components_ + same];
    return expressions_->evaluate(c);
}

const std::string& ActuationController::expression_text(std::size_t c) const {
    return expressions_->text(settings_.bend_toward ? 0 : c);
}

std::vector<Index> ActuationController::selected_items() const {
    std::vector<Index> out;
    for (const Item& item : items_) out.push_back(item.index);
    return out;
}

}  // namespace soma::actuation
