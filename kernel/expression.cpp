#include "expression.hpp"

#include "soma/time_function.hpp"

#include <muParser.h>

#include <cmath>
#include <memory>
#include <numbers>

namespace soma {

TimeExpression::TimeExpression(const std::string& text, const SourceLocation& where)
    : text_(text), where_(where), time_(std::make_unique<double>(0.0)), parser_(std::make_unique<mu::Parser>()) {
    try {
        // muparser 2.3 built with GCC defines _pi with 12 digits (3.141592653589), so
        // sin(_pi) would be 8e-13: define the double-precision constants.
        parser_->DefineConst("_pi", std::numbers::pi);
        parser_->DefineConst("_e", std::numbers::e);
        parser_->DefineVar("t", time_.get());
        parser_->SetExpr(text);
        (void)parser_->Eval();  // reports syntax errors and unknown names now, not mid-run
    } catch (const mu::Parser::exception_type& e) {
        throw InputError(where, "invalid expression '" + text + "': " + e.GetMsg() +
                                    " (the only variable is t; functions: sin, cos, tan, exp, log, sqrt, min, max, ...)");
    }
}

TimeExpression::~TimeExpression() = default;
TimeExpression::TimeExpression(TimeExpression&&) noexcept = default;
TimeExpression& TimeExpression::operator=(TimeExpression&&) noexcept = default;

double TimeExpression::operator()(double t) const {
    *time_ = t;
    const double value = parser_->Eval();
    if (!std::isfinite(value))
        throw InputError(where_, "expression '" + text_ + "' is not finite at t = " + std::to_string(t));
    return value;
}

TimeFunction parse_time_function(const std::string& text, const SourceLocation& where) {
    auto expression = std::make_shared<TimeExpression>(text, where);
    (void)(*expression)(0.0);  // a value that is not finite at the start is refused now
    return [expression](double t) { return (*expression)(t); };
}

}  // namespace soma
