#include "item_expressions.hpp"

#include <muParser.h>

#include <numbers>
#include <stdexcept>

namespace soma::actuation {

const char* const kVariableList = "t, i, j, n, s, x, y, z";

ItemExpressions::ItemExpressions(const std::vector<std::string>& texts)
    : texts_(texts), variables_(std::make_unique<ItemVariables>()) {
    ItemVariables& v = *variables_;
    for (std::size_t k = 0; k < texts_.size(); ++k) {
        auto parser = std::make_unique<mu::Parser>();
        try {
            // muparser 2.3 built with GCC defines _pi as 3.141592653589 (12 digits, deliberately:
            // muParserTemplateMagic.h), so sin(_pi) would be 8e-13, not 1e-16; use the double pi.
            parser->DefineConst("_pi", std::numbers::pi);
            parser->DefineConst("_e", std::numbers::e);
            parser->DefineVar("t", &v.t);
            parser->DefineVar("i", &v.i);
            parser->DefineVar("j", &v.j);
            parser->DefineVar("n", &v.n);
            parser->DefineVar("s", &v.s);
            parser->DefineVar("x", &v.x);
            parser->DefineVar("y", &v.y);
            parser->DefineVar("z", &v.z);
            parser->SetExpr(texts_[k]);
            (void)parser->Eval();  // compiles: syntax errors and unknown names surface here
        } catch (const mu::Parser::exception_type& e) {
            throw std::invalid_argument("expression " + std::to_string(k + 1) + " ('" + texts_[k] +
                                        "'): " + e.GetMsg() + " (variables: " + kVariableList +
                                        "; constants: _pi, _e; functions: sin, cos, tan, exp, log, sqrt, "
                                        "abs, min, max, ...)");
        }
        parsers_.push_back(std::move(parser));
        std::size_t same = 0;
        while (texts_[same] != texts_[k]) ++same;
        first_identical_.push_back(same);
    }
}

ItemExpressions::~ItemExpressions() = default;
ItemExpressions::ItemExpressions(ItemExpressions&&) noexcept = default;
ItemExpressions& ItemExpressions::operator=(ItemExpressions&&) noexcept = default;

double ItemExpressions::evaluate(std::size_t component) const { return parsers_[component]->Eval(); }

}  // namespace soma::actuation
