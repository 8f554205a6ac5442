#pragma once
/// \file item_expressions.hpp
/// \brief One muparser expression per channel component, evaluated item by item.
///
/// Every expression sees the same variables (ItemVariables): the time t and the current item's
/// index, position in the selection and actuation point, plus muparser's constants `_pi` and
/// `_e` (the double nearest pi and e: muparser's own GCC build truncates _pi to 12 digits) and
/// its functions (sin, cos, tan, asin, ..., exp, log, sqrt, abs, sign, rint, min, max,
/// sum, avg, and `a ? b : c`). muparser keeps the addresses of the variables it is given, so they
/// live in one heap block that never moves; a caller sets them and then evaluates each component.
/// After the first evaluation muparser runs its compiled bytecode: evaluating allocates nothing.

#include <memory>
#include <string>
#include <vector>

namespace mu { class Parser; }

namespace soma::actuation {

/// The variables of an actuation expression.
struct ItemVariables {
    double t = 0.0;  ///< evaluation time (s)
    double i = 0.0;  ///< the item's index in the element's channel (e.g. bend-twist spring k)
    double j = 0.0;  ///< the item's position in the selection, 0 .. n-1 (ascending item index)
    double n = 1.0;  ///< number of selected items
    double s = 0.0;  ///< j / (n - 1): 0 at the first selected item, 1 at the last (0 when n = 1)
    double x = 0.0, y = 0.0, z = 0.0;  ///< the item's actuation point (initial position, m)
};

/// Names of the variables, for messages and docs: "t, i, j, n, s, x, y, z".
extern const char* const kVariableList;

/// Parsed expressions sharing one set of variables.
class ItemExpressions {
public:
    /// \brief Parses every expression and evaluates it once with the default variables, so that
    /// syntax errors and unknown names are found now.
    /// \throws std::invalid_argument "expression k ('text'): muparser's message (...)"
    explicit ItemExpressions(const std::vector<std::string>& texts);
    ~ItemExpressions();
    ItemExpressions(ItemExpressions&&) noexcept;
    ItemExpressions& operator=(ItemExpressions&&) noexcept;

    /// The variables the expressions read; set them, then call evaluate().
    ItemVariables& variables() { return *variables_; }
    /// \brief Value of expression `component` at the current variables. Allocates nothing; may
    /// return a non-finite number (the caller decides what that means).
    double evaluate(std::size_t component) const;
    /// \brief The first component whose text is the same as `component`'s (itself if none comes
    /// before): its value at the same variables is this one's, so a caller evaluates it once.
    std::size_t first_identical(std::size_t component) const { return first_identical_[component]; }
    std::size_t size() const { return texts_.size(); }
    const std::string& text(std::size_t component) const { return texts_[component]; }

private:
    std::vector<std::string> texts_;
    std::vector<std::size_t> first_identical_;
    std::unique_ptr<ItemVariables> variables_;  // muparser keeps the addresses: must not move
    std::vector<std::unique_ptr<mu::Parser>> parsers_;
};

}  // namespace soma::actuation
