// Documentation of a ParameterSchema: markdown for docs/scene-reference.md and
// `soma describe --markdown`, plain text for the terminal. Nested blocks (map, map_list, one_of)
// are flattened into dotted keys (`material.density`, `segments[].length`,
// `solver.direct.tolerance`) so that one table shows everything a type takes.
#include "parameters_impl.hpp"

#include "soma/api.hpp"
#include "soma/input_limits.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace soma {

std::string format_number(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return fmt::format("{}", x);
}

NumericRange effective_range(const ParamSpec& spec) {
    NumericRange r{spec.min, spec.max, spec.min_exclusive, spec.max_exclusive};
    const bool numeric = spec.type == ParamType::real || spec.type == ParamType::integer ||
                         spec.type == ParamType::vec3 || spec.type == ParamType::real_list ||
                         spec.type == ParamType::integer_list;
    if (!numeric) return r;
    const double ceiling = unit_ceiling(spec.unit_name);
    if (ceiling < r.max || (ceiling == r.max && r.max_exclusive)) {
        r.max = ceiling;
        r.max_exclusive = false;
    }
    if (-ceiling > r.min || (-ceiling == r.min && r.min_exclusive)) {
        r.min = -ceiling;
        r.min_exclusive = false;
    }
    return r;
}

namespace {
/// A bound in words: "1e+06" rather than "1000000" when that form is exact.
std::string bound_text(double x) {
    if (std::abs(x) >= 1e5) {
        const std::string g = fmt::format("{:g}", x);
        if (std::strtod(g.c_str(), nullptr) == x) return g;
    }
    return format_number(x);
}
}  // namespace

std::string range_text(const ParamSpec& spec) {
    const NumericRange r = effective_range(spec);
    const bool low = std::isfinite(r.min);
    const bool high = std::isfinite(r.max);
    const std::string lo = low ? fmt::format("{} {}", r.min_exclusive ? ">" : ">=", bound_text(r.min)) : "";
    const std::string hi = high ? fmt::format("{} {}", r.max_exclusive ? "<" : "<=", bound_text(r.max)) : "";
    if (low && high) return lo + " and " + hi;
    return low ? lo : hi;
}

namespace {

/// One documented key, already in words.
struct Row {
    std::string key;      ///< dotted path, e.g. "material.density"
    std::string type;     ///< "real", "list of reals (4 items)", "typed block (force)"
    std::string unit;
    std::string fallback;  ///< "required", the default, or empty
    std::vector<std::string> allowed;  ///< range / choices / alternatives (code spans in markdown)
    std::string allowed_words;         ///< range in words (no code span)
    std::string doc;
    bool required = false;
};

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i) s += (i ? separator : "") + items[i];
    return s;
}

std::string value_text(const ParamValue& value) {
    struct Visitor {
        std::string operator()(double x) const { return format_number(x); }
        std::string operator()(long x) const { return std::to_string(x); }
        std::string operator()(bool x) const { return x ? "true" : "false"; }
        std::string operator()(const std::string& s) const { return s.empty() ? "\"\"" : s; }
        std::string operator()(const Vec3& v) const {
            return "[" + format_number(v[0]) + ", " + format_number(v[1]) + ", " + format_number(v[2]) + "]";
        }
        std::string operator()(const std::vector<double>& v) const {
            std::vector<std::string> s;
            for (double x : v) s.push_back(format_number(x));
            return "[" + join(s, ", ") + "]";
        }
        std::string operator()(const std::vector<long>& v) const {
            std::vector<std::string> s;
            for (long x : v) s.push_back(std::to_string(x));
            return "[" + join(s, ", ") + "]";
        }
        std::string operator()(const std::vector<std::string>& v) const { return "[" + join(v, ", ") + "]"; }
    };
    return std::visit(Visitor{}, value);
}

std::string type_text(const ParamSpec& spec) {
    std::string t = to_string(spec.type);
    if (spec.single_map) t = "map or list of maps";
    if (spec.type == ParamType::typed || spec.type == ParamType::typed_list)
        t += fmt::format(" ({})", to_string(spec.kind));
    if (spec.size >= 0 && spec.type != ParamType::vec3) t += fmt::format(" ({} items)", spec.size);
    if (spec.min_size > 0) t += fmt::format(" (at least {})", spec.min_size);
    return t;
}

void collect(const ParameterSchema& schema, const std::string& prefix, std::vector<Row>& rows) {
    for (const ParamSpec& spec : schema.params()) {
        Row row;
        row.key = prefix + spec.name;
        row.type = type_text(spec);
        row.unit = spec.unit_name;
        row.required = spec.required;
        if (spec.default_value) row.fallback = value_text(*spec.default_value);
        row.allowed_words = range_text(spec);
        for (const auto& c : spec.choices) row.allowed.push_back(c);
        for (const auto& alt : spec.alternatives) row.allowed.push_back(alt->name());
        row.doc = spec.doc;
        rows.push_back(std::move(row));
        switch (spec.type) {
            case ParamType::map: collect(*spec.sub, prefix + spec.name + ".", rows); break;
            case ParamType::map_list: collect(*spec.sub, prefix + spec.name + "[].", rows); break;
            case ParamType::one_of:
                for (const auto& alt : spec.alternatives) {
                    Row alt_row;
                    alt_row.key = prefix + spec.name + "." + alt->name();
                    alt_row.type = "map (alternative)";
                    alt_row.doc = alt->doc();
                    rows.push_back(std::move(alt_row));
                    collect(*alt, prefix + spec.name + "." + alt->name() + ".", rows);
                }
                break;
            default: break;
        }
    }
}

/// Markdown table cells: no line breaks, and `|` escaped.
std::string cell(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += ' ';
        else out += c;
    }
    return out;
}

std::string code(const std::string& s) { return s.empty() ? "" : "`" + s + "`"; }

std::string allowed_markdown(const Row& row) {
    std::vector<std::string> parts;
    if (!row.allowed_words.empty()) parts.push_back(row.allowed_words);
    if (!row.allowed.empty()) {
        std::vector<std::string> codes;
        for (const auto& a : row.allowed) codes.push_back(code(a));
        parts.push_back("one of " + join(codes, ", "));
    }
    return join(parts, "; ");
}

}  // namespace

/// \brief Markdown: a heading with the schema name, its doc, and one table row per key (nested
/// keys dotted). Deterministic: keys appear in declaration order.
SOMA_API std::string ParameterSchema::markdown(int heading_level) const {
    std::vector<Row> rows;
    collect(*this, "", rows);
    std::ostringstream out;
    out << std::string(static_cast<std::size_t>(std::max(1, heading_level)), '#') << " " << code(name_) << "\n\n";
    if (!doc_.empty()) out << doc_ << "\n\n";
    if (rows.empty()) {
        out << "No parameters.\n";
        return out.str();
    }
    out << "| Key | Type | Unit | Default | Allowed | Description |\n";
    out << "|-----|------|------|---------|---------|-------------|\n";
    for (const Row& row : rows) {
        const std::string fallback = row.required ? "**required**" : code(row.fallback);
        out << "| " << code(row.key) << " | " << cell(row.type) << " | " << cell(row.unit) << " | " << cell(fallback)
            << " | " << cell(allowed_markdown(row)) << " | " << cell(row.doc) << " |\n";
    }
    return out.str();
}

/// \brief Plain text for `soma describe`: the name and doc, then each key with its type, unit,
/// default or "required", range and choices, and its doc on the next line.
SOMA_API std::string ParameterSchema::text() const {
    std::vector<Row> rows;
    collect(*this, "", rows);
    std::ostringstream out;
    out << name_;
    if (!doc_.empty()) out << ": " << doc_;
    out << "\n";
    if (rows.empty()) {
        out << "  (no parameters)\n";
        return out.str();
    }
    std::size_t width = 0;
    for (const Row& row : rows) width = std::max(width, row.key.size());
    out << "\n";
    for (const Row& row : rows) {
        std::vector<std::string> facts{row.type + (row.unit.empty() ? "" : " [" + row.unit + "]")};
        if (row.required) facts.push_back("required");
        else if (!row.fallback.empty()) facts.push_back("default " + row.fallback);
        if (!row.allowed_words.empty()) facts.push_back(row.allowed_words);
        if (!row.allowed.empty()) facts.push_back("one of " + join(row.allowed, ", "));
        out << "  " << row.key << std::string(width - row.key.size() + 2, ' ') << join(facts, ", ") << "\n";
        if (!row.doc.empty()) out << "  " << std::string(width + 2, ' ') << row.doc << "\n";
    }
    return out.str();
}

}  // namespace soma
