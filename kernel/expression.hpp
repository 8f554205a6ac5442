#pragma once
/// \file expression.hpp
/// \brief Scalar functions of time written in the scene, parsed by muparser.

#include "soma/parameters.hpp"

#include <memory>
#include <string>

namespace mu { class Parser; }

namespace soma {

/// f(t) from text such as "0.01*sin(2*_pi*t)" (muparser syntax; `_pi` and `_e` are constants).
class TimeExpression {
public:
    /// Parses and test-evaluates the text; throws InputError at `where` on a syntax error or an
    /// unknown variable (only `t` is defined).
    TimeExpression(const std::string& text, const SourceLocation& where);
    ~TimeExpression();
    TimeExpression(TimeExpression&&) noexcept;
    TimeExpression& operator=(TimeExpression&&) noexcept;

    /// Evaluates at time t. Throws InputError if the result is not finite.
    double operator()(double t) const;
    const std::string& text() const { return text_; }

private:
    std::string text_;
    SourceLocation where_;
    std::unique_ptr<double> time_;  // muparser keeps the variable's address: it must not move
    std::unique_ptr<mu::Parser> parser_;
};

}  // namespace soma
