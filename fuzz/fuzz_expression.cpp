// Fuzz target: expressions over muparser. The kernel's TimeExpression (prescribed motion: f(t))
// and the actuation plugin's ItemExpressions (f(t, i, j, n, s, x, y, z)), each parsed and then
// evaluated at a few times. Refusals: InputError (kernel), std::invalid_argument (actuation).
// Note: muparser itself is the system library, not instrumented: coverage guides the fuzzer
// through Soma's code only (docs/reliability.md).
#include "fuzz_input.hpp"

#include "expression.hpp"
#include "item_expressions.hpp"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = soma::fuzz::as_text(data, size);
    try {
        const soma::TimeExpression f(text, soma::SourceLocation{});
        for (const double t : {0.0, 1.0e-3, 1.0, -2.5, 1.0e6}) (void)f(t);
    } catch (const soma::InputError&) {
    }
    try {
        soma::actuation::ItemExpressions g({text});
        for (const double t : {0.0, 0.5, 1.0e6}) {
            g.variables().t = t;
            (void)g.evaluate(0);
        }
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
