#pragma once
/// \file time_function.hpp
/// \brief Functions of time written in a scene ("0.5*sin(2*_pi*t)"), parsed by muparser in the
/// kernel, for plugins (a joint's prescribed coordinate, a drive's target).

#include "soma/api.hpp"
#include "soma/parameters.hpp"

#include <functional>
#include <string>

namespace soma {

/// f(t), t in s. Evaluating it allocates nothing (muparser runs compiled bytecode).
using TimeFunction = std::function<double(double)>;

/// \brief Parses \p text as a function of the time t and evaluates it once at t = 0, so that
/// syntax errors, unknown names and a value that is not finite surface when the scene is built.
/// Constants _pi and _e (to double precision); muparser's functions (sin, cos, exp, sqrt, min,
/// max, `a ? b : c`, ...).
/// \throws InputError at \p where (the scene key the text came from) on a syntax error, an
/// unknown name or a value that is not finite at t = 0; the function returned throws the same
/// when it evaluates to a value that is not finite (`sqrt(1 - t)` past t = 1), naming t.
SOMA_API TimeFunction parse_time_function(const std::string& text, const SourceLocation& where);

}  // namespace soma
