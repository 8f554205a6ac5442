// Fuzz target: an actuation time table (CSV, `table: {file: ...}`), read by the actuation
// plugin, then interpolated inside, outside and at the ends of its time range.
// Refusal: std::invalid_argument ("file:line: ...").
#include "fuzz_input.hpp"

#include "time_table.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream input(soma::fuzz::as_text(data, size));
    try {
        const auto table = soma::actuation::TimeTable::read_csv(input, "fuzz.csv");
        std::vector<double> out(table.columns());
        const double first = table.first_time(), last = table.last_time();
        for (const double t : {first - 1.0, first, 0.5 * (first + last), last, last + 1.0,
                               std::numeric_limits<double>::infinity()})
            table.evaluate(t, out);
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
