#include "time_table.hpp"

#include "soma/input_file.hpp"
#include "soma/input_limits.hpp"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace soma::actuation {
namespace {

/// Splits a line into fields: at commas when it has any (each field trimmed; an empty field is
/// kept, so that "1,,2" is reported rather than read as two values), else at whitespace.
std::vector<std::string> fields_of(const std::string& line) {
    std::vector<std::string> fields;
    if (line.find_first_not_of(" \t\r") == std::string::npos) return fields;
    if (line.find(',') == std::string::npos) {
        std::istringstream words(line);
        for (std::string w; words >> w;) fields.push_back(w);
        return fields;
    }
    std::size_t begin = 0;
    for (;;) {
        const std::size_t comma = line.find(',', begin);
        std::string field = line.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
        const std::size_t first = field.find_first_not_of(" \t\r");
        field = first == std::string::npos ? std::string() : field.substr(first, field.find_last_not_of(" \t\r") - first + 1);
        fields.push_back(field);
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    return fields;
}

bool parse_number(const std::string& text, double& value) {
    if (text.empty()) return false;
    errno = 0;
    char* end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && errno != ERANGE;
}

}  // namespace

TimeTable::TimeTable(std::vector<double> times, std::vector<std::vector<double>> values) : times_(std::move(times)) {
    if (times_.empty()) throw std::invalid_argument("the table has no rows");
    if (values.size() != times_.size())
        throw std::invalid_argument("the table has " + std::to_string(times_.size()) + " times but " +
                                    std::to_string(values.size()) + " rows of values");
    columns_ = values.front().size();
    if (columns_ == 0) throw std::invalid_argument("the table has no value column (only times)");
    values_.reserve(times_.size() * columns_);
    for (std::size_t r = 0; r < times_.size(); ++r) {
        const std::string row = "row " + std::to_string(r + 1);
        if (!std::isfinite(times_[r])) throw std::invalid_argument(row + ": the time is not finite");
        if (r > 0 && !(times_[r] > times_[r - 1]))
            throw std::invalid_argument(row + ": times must increase strictly (t = " + std::to_string(times_[r]) +
                                        " after " + std::to_string(times_[r - 1]) + ")");
        if (values[r].size() != columns_)
            throw std::invalid_argument(row + ": " + std::to_string(values[r].size()) + " values, but row 1 has " +
                                        std::to_string(columns_));
        for (double v : values[r]) {
            if (!std::isfinite(v)) throw std::invalid_argument(row + ": a value is not finite");
            values_.push_back(v);
        }
    }
}

TimeTable TimeTable::read_csv(std::istream& input, const std::string& source, long max_values) {
    std::vector<double> times;
    std::vector<std::vector<double>> values;
    std::vector<int> line_of_row;
    std::size_t header_fields = 0;
    int header_line = 0;
    std::string line;
    int number = 0;
    std::size_t stored = 0;  // numbers read so far
    auto fail = [&](int at, const std::string& message) -> void {
        throw std::invalid_argument(source + ":" + std::to_string(at) + ": " + message);
    };
    while (std::getline(input, line)) {
        ++number;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        const std::vector<std::string> fields = fields_of(line);
        if (fields.empty()) continue;
        double first = 0.0;
        if (times.empty() && header_line == 0 && !parse_number(fields[0], first)) {
            header_line = number;  // a header: column names
            header_fields = fields.size();
            continue;
        }
        stored += fields.size();
        if (stored > static_cast<std::size_t>(max_values))  // before the rows grow past it
            fail(number, "the table has more than " + std::to_string(max_values) +
                             " numbers, the maximum per table (docs/reliability.md, Input limits): use fewer rows");
        std::vector<double> row(fields.size());
        for (std::size_t f = 0; f < fields.size(); ++f)
            if (!parse_number(fields[f], row[f]))
                fail(number, "field " + std::to_string(f + 1) + " '" + fields[f] + "' is not a number");
        if (row.size() < 2) fail(number, "a row needs a time and at least one value");
        if (header_line != 0 && row.size() != header_fields)
            fail(number, std::to_string(row.size()) + " fields, but the header (line " + std::to_string(header_line) +
                             ") has " + std::to_string(header_fields));
        times.push_back(row[0]);
        values.emplace_back(row.begin() + 1, row.end());
        line_of_row.push_back(number);
    }
    if (times.empty()) throw std::invalid_argument(source + ": the table has no data rows");
    try {
        return TimeTable(std::move(times), std::move(values));
    } catch (const std::invalid_argument& e) {
        // Map "row r: ..." back to the file's line.
        const std::string what = e.what();
        std::size_t r = 0;
        if (std::sscanf(what.c_str(), "row %zu:", &r) == 1 && r >= 1 && r <= line_of_row.size())
            throw std::invalid_argument(source + ":" + std::to_string(line_of_row[r - 1]) + ": " +
                                        what.substr(what.find(':') + 2));
        throw std::invalid_argument(source + ": " + what);
    }
}

TimeTable TimeTable::read_csv_file(const std::string& path) {
    std::ifstream file = open_input_file(path, "table file");
    return read_csv(file, path);
}

void TimeTable::evaluate(double t, std::span<double> out) const {
    assert(out.size() == columns_);
    const std::size_t n = times_.size();
    if (n == 1 || t <= times_.front()) {
        std::copy_n(values_.begin(), columns_, out.begin());
        return;
    }
    if (t >= times_.back()) {
        std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>((n - 1) * columns_), columns_, out.begin());
        return;
    }
    // times_[r] <= t < times_[r + 1]
    const std::size_t r = static_cast<std::size_t>(std::upper_bound(times_.begin(), times_.end(), t) - times_.begin()) - 1;
    const double w = (t - times_[r]) / (times_[r + 1] - times_[r]);
    const double* a = values_.data() + r * columns_;
    const double* b = a + columns_;
    for (std::size_t c = 0; c < columns_; ++c) out[c] = (1.0 - w) * a[c] + w * b[c];
}

}  // namespace soma::actuation
