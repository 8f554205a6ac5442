#pragma once
/// \file field_expression.hpp
/// \brief Fields of the arc length written in a scene, f(X) with X in [0, L] (a section's radius, a
/// cable's offset, a custom basis function), parsed by muparser.
///
/// Variables: X (m, from the rod's base) and L (the rod's length, m); constants _pi and _e (the
/// double nearest pi and e) and muparser's functions (sin, cos, exp, sqrt, min, max, `a ? b : c`, ...).
/// These fields are evaluated when a rod is discretised, never in a Newton iteration.

#include "rod_discretization.hpp"

#include <functional>
#include <string>

namespace soma::gvs {

/// \brief Parses \p text as a function of X for a rod of length \p length and evaluates it once at
/// X = 0, so that syntax errors and unknown names surface now.
/// \throws std::invalid_argument "'text': muparser's message (variables: X, L; ...)".
ScalarField parse_field(const std::string& text, double length);

/// A function of time written in a scene, f(t) (a load's component).
using TimeFunction = std::function<double(double)>;

/// \brief Parses \p text as a function of the time t (s) and evaluates it once at t = 0.
/// Evaluating it allocates nothing (muparser runs its compiled bytecode).
/// \throws std::invalid_argument "'text': muparser's message (variables: t; ...)".
TimeFunction parse_time_function(const std::string& text);

/// \brief f'(X) by fourth-order differences with step h = 1e-3 L (central, or one-sided within 2h
/// of an end, so that only [0, L] is sampled): truncation ~h^4 |f^(5)| / 30 (3e-10 absolute,
/// 8e-10 relative on the manipulator's helical cables), round-off ~1e-13 |f| / L. For fields whose
/// derivative the scene does not write (a cable's route).
ScalarField derivative_of(ScalarField field, double length);

}  // namespace soma::gvs
