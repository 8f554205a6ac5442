#include "field_expression.hpp"

#include <muParser.h>

#include <memory>
#include <numbers>
#include <stdexcept>

namespace soma::gvs {

namespace {

/// One parsed expression and the variable it reads (muparser keeps the address: it must not move).
struct ParsedField {
    double X = 0.0;  // the variable, whatever its name
    mu::Parser parser;
};

/// Parses \p text with one variable \p name (and the constant L when \p length > 0).
std::function<double(double)> parse(const std::string& text, const char* name, double length, const char* variables) {
    auto field = std::make_shared<ParsedField>();
    try {
        // muparser built with GCC defines _pi to 12 digits only: use the double pi.
        field->parser.DefineConst("_pi", std::numbers::pi);
        field->parser.DefineConst("_e", std::numbers::e);
        if (length > 0.0) field->parser.DefineConst("L", length);
        field->parser.DefineVar(name, &field->X);
        field->parser.SetExpr(text);
        (void)field->parser.Eval();
    } catch (const mu::Parser::exception_type& e) {
        throw std::invalid_argument("'" + text + "': " + e.GetMsg() + " (variables: " + variables +
                                    "; constants _pi, _e; functions sin, cos, exp, sqrt, abs, min, max, ...)");
    }
    return [field](double x) {
        field->X = x;
        return field->parser.Eval();
    };
}

}  // namespace

ScalarField parse_field(const std::string& text, double length) {
    return parse(text, "X", length, "X, the arc length from the rod's base in m, and L, the rod's length");
}

TimeFunction parse_time_function(const std::string& text) { return parse(text, "t", 0.0, "t, the time in s"); }


ScalarField derivative_of(ScalarField field, double length) {
    const double h = 1e-3 * length;
    return [field = std::move(field), h, length](double X) {
        // Fourth-order stencils that stay in [0, L] (a route such as sqrt(X) is not defined below 0):
        // one-sided within 2h of an end, central elsewhere.
        if (X - 2 * h < 0.0)
            return (-25 * field(X) + 48 * field(X + h) - 36 * field(X + 2 * h) + 16 * field(X + 3 * h) -
                    3 * field(X + 4 * h)) / (12 * h);
        if (X + 2 * h > length)
            return (25 * field(X) - 48 * field(X - h) + 36 * field(X - 2 * h) - 16 * field(X - 3 * h) +
                    3 * field(X - 4 * h)) / (12 * h);
        return (-field(X + 2 * h) + 8 * field(X + h) - 8 * field(X - h) + field(X - 2 * h)) / (12 * h);
    };
}

}  // namespace soma::gvs
