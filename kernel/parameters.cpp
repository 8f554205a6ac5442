// Parameters: typed, defaulted reads of one validated scene block (interfaces/soma/parameters.hpp),
// and the scalar reading rules that validation shares (parameters_impl.hpp).
#include "parameters_impl.hpp"
#include "scene_validation.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <regex>

namespace soma {

// ---- locations --------------------------------------------------------------------------------

/// \brief "file:line:col: path"; ":line:col" is left out when the line is unknown (0), and
/// ": path" when the path is empty.
SOMA_API std::string SourceLocation::str() const {
    std::string s = file;
    if (line > 0) s += fmt::format(":{}:{}", line, column);
    if (!path.empty()) s += ": " + path;
    return s;
}

SourceLocation location_of(const std::string& file, const YAML::Mark& mark, const std::string& path) {
    SourceLocation where;
    where.file = file;
    where.path = path;
    if (mark.line >= 0) {  // nodes made by code (overrides) carry -1
        where.line = mark.line + 1;
        where.column = mark.column + 1;
    }
    return where;
}

SourceLocation locate(const Parameters::Impl& p, const YAML::Mark& mark, const std::string& path) {
    if (!p.overrides) return locate(p, mark, path);
    return locate(p.file, *p.overrides, mark, path);
}

std::string join_path(const std::string& prefix, const std::string& key) {
    if (prefix.empty()) return key;
    if (key.empty()) return prefix;
    return prefix + "." + key;
}

// ---- scalar rules -----------------------------------------------------------------------------

bool is_plain_scalar(const YAML::Node& node) {
    // yaml-cpp tags quoted scalars "!" and plain ones "?" (non-specific).
    return node.IsScalar() && node.Tag() != "!";
}

std::optional<long> read_integer(const YAML::Node& node) {
    if (!is_plain_scalar(node)) return std::nullopt;
    // Decimal only: YAML 1.2 would read 0x10 as 16 and 0o10 as 8, YAML 1.1 010 as 8, none of
    // which a scene means; they are refused with a hint (number_hint).
    const std::string& s = node.Scalar();
    std::size_t start = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (start >= s.size()) return std::nullopt;
    if (s[start] == '0' && s.size() > start + 1) return std::nullopt;  // a leading zero
    const bool negative = s[0] == '-';
    unsigned long magnitude = 0;
    const char* first = s.data() + start;
    const char* last = s.data() + s.size();
    auto [end, ec] = std::from_chars(first, last, magnitude, 10);
    if (ec != std::errc() || end != last) return std::nullopt;
    const auto max = static_cast<unsigned long>(std::numeric_limits<long>::max());
    if (magnitude > max + (negative ? 1UL : 0UL)) return std::nullopt;
    if (negative) return magnitude == max + 1UL ? std::numeric_limits<long>::min() : -static_cast<long>(magnitude);
    return static_cast<long>(magnitude);
}

std::optional<double> read_real(const YAML::Node& node) {
    if (!is_plain_scalar(node)) return std::nullopt;
    if (auto i = read_integer(node)) return static_cast<double>(*i);
    const std::string& s = node.Scalar();
    // No leading zero before other digits ("007.5"), as for integers.
    static const std::regex decimal(R"([-+]?(\.[0-9]+|(0|[1-9][0-9]*)(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
    static const std::regex infinity(R"([-+]?\.(inf|Inf|INF))");
    static const std::regex not_a_number(R"(\.(nan|NaN|NAN))");
    if (std::regex_match(s, decimal)) return std::strtod(s.c_str(), nullptr);
    if (std::regex_match(s, infinity))
        return s[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (std::regex_match(s, not_a_number)) return std::numeric_limits<double>::quiet_NaN();
    return std::nullopt;
}

std::string number_hint(const YAML::Node& node) {
    if (!is_plain_scalar(node) || read_real(node)) return "";  // a real where an integer is due needs no hint
    const std::string& s = node.Scalar();
    std::size_t start = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (s.size() > start + 1 && s[start] == '0') {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[start + 1])));
        if (c == 'x' || c == 'o' || c == 'b')
            return " (hexadecimal, octal and binary numbers are not read: write the number in decimal)";
        if (std::isdigit(static_cast<unsigned char>(s[start + 1])))
            return " (a leading zero is not read: YAML 1.1 reads 010 as octal 8; write the number without it)";
    }
    if (start < s.size() && (std::isdigit(static_cast<unsigned char>(s[start])) || s[start] == '.'))
        return " (write the number alone, in SI units, with nothing after it)";
    return "";
}

bool underflows(const std::string& text, double value) {
    if (value != 0.0) return std::fpclassify(value) == FP_SUBNORMAL;
    // A nonzero digit before the exponent that strtod rounded to 0 (1e-400).
    for (char c : text) {
        if (c == 'e' || c == 'E') break;
        if (c >= '1' && c <= '9') return true;
    }
    return false;
}

std::optional<bool> read_boolean(const YAML::Node& node) {
    if (!is_plain_scalar(node)) return std::nullopt;
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

std::string describe_node(const YAML::Node& node) {
    if (!node.IsDefined() || node.IsNull()) return "nothing";
    if (node.IsMap()) return "a map";
    if (node.IsSequence()) return "a list";
    const std::string& s = node.Scalar();
    if (read_integer(node)) return "integer " + s;
    if (read_real(node)) return "real " + s;
    if (read_boolean(node)) return "boolean " + s;
    return "string '" + s + "'";
}

YAML::Node find_value(const YAML::Node& map, const std::string& key) {
    if (map.IsDefined() && map.IsMap())
        for (auto it = map.begin(); it != map.end(); ++it)
            if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
    return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node find_key(const YAML::Node& map, const std::string& key) {
    if (map.IsDefined() && map.IsMap())
        for (auto it = map.begin(); it != map.end(); ++it)
            if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
    return YAML::Node(YAML::NodeType::Undefined);
}

// ---- Parameters -------------------------------------------------------------------------------

SOMA_API Parameters::Parameters() = default;
SOMA_API Parameters::~Parameters() = default;
SOMA_API Parameters::Parameters(const Parameters&) = default;
SOMA_API Parameters& Parameters::operator=(const Parameters&) = default;
SOMA_API Parameters::Parameters(Parameters&&) noexcept = default;
SOMA_API Parameters& Parameters::operator=(Parameters&&) noexcept = default;
SOMA_API Parameters::Parameters(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

namespace {

const Parameters::Impl& checked(const Parameters::Impl* impl) {
    if (!impl) throw std::logic_error("reading an empty soma::Parameters (default-constructed)");
    return *impl;
}

std::string block_name(const Parameters::Impl& p) {
    return p.path.empty() ? "the scene root" : "'" + p.path + "'";
}

/// The declared spec of `key`; an undeclared key is a bug in the type's code, not in the scene.
const ParamSpec& spec_of(const Parameters::Impl& p, const std::string& key, std::initializer_list<ParamType> allowed,
                         const char* accessor) {
    const ParamSpec* spec = p.schema->find(key);
    if (!spec)
        throw std::logic_error(fmt::format("Parameters::{}('{}'): schema '{}' of {} declares no key '{}'", accessor,
                                           key, p.schema->name(), block_name(p), key));
    for (ParamType t : allowed)
        if (spec->type == t) return *spec;
    throw std::logic_error(fmt::format("Parameters::{}('{}'): key '{}' of schema '{}' is a {}", accessor, key, key,
                                       p.schema->name(), to_string(spec->type)));
}

YAML::Node value_of(const Parameters::Impl& p, const std::string& key) { return find_value(p.node, key); }

bool present(const YAML::Node& value) { return value.IsDefined(); }

const ParamValue& default_of(const Parameters::Impl& p, const ParamSpec& spec) {
    if (!spec.default_value)
        throw std::logic_error(fmt::format("key '{}' of {} is absent and has no default; check has() first or "
                                           "declare a fallback in schema '{}'",
                                           spec.name, block_name(p), p.schema->name()));
    return *spec.default_value;
}

[[noreturn]] void bad_default(const Parameters::Impl& p, const ParamSpec& spec, const char* wanted) {
    throw std::logic_error(fmt::format("schema '{}': the default of '{}' is not a {}", p.schema->name(), spec.name,
                                       wanted));
}

/// The location of a value for errors found while reading (validation should have caught them).
[[noreturn]] void bad_value(const Parameters::Impl& p, const std::string& key, const YAML::Node& value,
                            const std::string& expected) {
    throw InputError(locate(p, value.Mark(), join_path(p.path, key)),
                     "expected " + expected + ", got " + describe_node(value));
}

double real_item(const Parameters::Impl& p, const std::string& key, const YAML::Node& item) {
    if (auto v = read_real(item)) return *v;
    bad_value(p, key, item, "real");
}

long integer_item(const Parameters::Impl& p, const std::string& key, const YAML::Node& item) {
    if (auto v = read_integer(item)) return *v;
    bad_value(p, key, item, "integer");
}

std::vector<double> default_reals(const Parameters::Impl& p, const ParamSpec& spec) {
    const ParamValue& d = default_of(p, spec);
    if (auto* v = std::get_if<std::vector<double>>(&d)) return *v;
    if (auto* v = std::get_if<Vec3>(&d)) return {(*v)[0], (*v)[1], (*v)[2]};
    if (auto* v = std::get_if<std::vector<long>>(&d)) return {v->begin(), v->end()};
    bad_default(p, spec, "list of reals");
}

std::shared_ptr<const ParameterSchema> not_owned(const ParameterSchema* schema) {
    // Catalog schemas belong to the type registry, which outlives every Parameters.
    return std::shared_ptr<const ParameterSchema>(std::shared_ptr<const void>(), schema);
}

/// A sub-block of `p`: `node` may be undefined (absent block, all defaults).
Parameters sub_block(const Parameters::Impl& p, std::shared_ptr<const ParameterSchema> schema, YAML::Node node,
                     const std::string& path, const SourceLocation& where, std::string type = {}) {
    auto impl = std::make_shared<Parameters::Impl>();
    impl->node.reset(node);
    impl->schema = std::move(schema);
    impl->file = p.file;
    impl->overrides = p.overrides;
    impl->block_file = where.file;
    impl->path = path;
    impl->line = where.line;
    impl->column = where.column;
    impl->directory = p.directory;
    impl->catalog = p.catalog;
    impl->type = std::move(type);
    return Parameters(std::move(impl));
}

/// The schema of a typed block of the given type (validation guarantees it exists).
std::shared_ptr<const ParameterSchema> typed_schema(const Parameters::Impl& p, const ParamSpec& spec,
                                                    const std::string& type) {
    if (!p.catalog) throw std::logic_error("Parameters: no type catalog to look up typed block '" + spec.name + "'");
    const ParameterSchema* schema = p.catalog->find_schema(spec.kind, type);
    if (!schema)
        throw std::logic_error(fmt::format("Parameters: no {} type '{}' for '{}' (the scene was not validated?)",
                                           to_string(spec.kind), type, spec.name));
    return not_owned(schema);
}

Parameters typed_block(const Parameters::Impl& p, const ParamSpec& spec, const YAML::Node& node,
                       const std::string& path, const SourceLocation& where) {
    const YAML::Node type_node = find_value(node, "type");
    if (!type_node.IsScalar()) bad_value(p, spec.name, node, "a block with a 'type'");
    const std::string type = type_node.Scalar();
    return sub_block(p, typed_schema(p, spec, type), node, path, where, type);
}

}  // namespace

SOMA_API bool Parameters::has(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    if (!(key == "type" && !p.type.empty()) && !p.schema->find(key))
        throw std::logic_error(fmt::format("Parameters::has('{}'): schema '{}' of {} declares no key '{}'", key,
                                           p.schema->name(), block_name(p), key));
    return present(value_of(p, key));
}

SOMA_API double Parameters::real(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::real, ParamType::integer}, "real");
    const YAML::Node v = value_of(p, key);
    if (present(v)) return real_item(p, key, v);
    const ParamValue& d = default_of(p, spec);
    if (auto* x = std::get_if<double>(&d)) return *x;
    if (auto* x = std::get_if<long>(&d)) return static_cast<double>(*x);
    bad_default(p, spec, "real");
}

SOMA_API long Parameters::integer(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::integer}, "integer");
    const YAML::Node v = value_of(p, key);
    if (present(v)) return integer_item(p, key, v);
    const ParamValue& d = default_of(p, spec);
    if (auto* x = std::get_if<long>(&d)) return *x;
    bad_default(p, spec, "integer");
}

SOMA_API bool Parameters::boolean(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::boolean}, "boolean");
    const YAML::Node v = value_of(p, key);
    if (present(v)) {
        if (auto b = read_boolean(v)) return *b;
        bad_value(p, key, v, "boolean");
    }
    const ParamValue& d = default_of(p, spec);
    if (auto* x = std::get_if<bool>(&d)) return *x;
    bad_default(p, spec, "boolean");
}

SOMA_API std::string Parameters::string(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    if (key == "type" && !p.type.empty()) return p.type;
    const ParamSpec& spec = spec_of(p, key, {ParamType::string}, "string");
    const YAML::Node v = value_of(p, key);
    if (present(v)) {
        if (v.IsScalar()) return v.Scalar();
        bad_value(p, key, v, "string");
    }
    const ParamValue& d = default_of(p, spec);
    if (auto* x = std::get_if<std::string>(&d)) return *x;
    bad_default(p, spec, "string");
}

SOMA_API Vec3 Parameters::vec3(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::vec3, ParamType::real_list}, "vec3");
    const YAML::Node v = value_of(p, key);
    std::vector<double> xs;
    if (present(v)) {
        if (!v.IsSequence() || v.size() != 3) bad_value(p, key, v, "3 numbers");
        for (const auto& item : v) xs.push_back(real_item(p, key, item));
    } else {
        xs = default_reals(p, spec);
        if (xs.size() != 3) bad_default(p, spec, "vector of 3 reals");
    }
    return Vec3(xs[0], xs[1], xs[2]);
}

SOMA_API std::vector<double> Parameters::real_list(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec =
        spec_of(p, key, {ParamType::real_list, ParamType::integer_list, ParamType::vec3}, "real_list");
    const YAML::Node v = value_of(p, key);
    if (!present(v)) return default_reals(p, spec);
    if (!v.IsSequence()) bad_value(p, key, v, "list of reals");
    std::vector<double> xs;
    for (const auto& item : v) xs.push_back(real_item(p, key, item));
    return xs;
}

SOMA_API std::vector<long> Parameters::integer_list(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::integer_list}, "integer_list");
    const YAML::Node v = value_of(p, key);
    if (!present(v)) {
        const ParamValue& d = default_of(p, spec);
        if (auto* x = std::get_if<std::vector<long>>(&d)) return *x;
        bad_default(p, spec, "list of integers");
    }
    if (!v.IsSequence()) bad_value(p, key, v, "list of integers");
    std::vector<long> xs;
    for (const auto& item : v) xs.push_back(integer_item(p, key, item));
    return xs;
}

SOMA_API std::vector<std::string> Parameters::string_list(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::string_list}, "string_list");
    const YAML::Node v = value_of(p, key);
    if (!present(v)) {
        const ParamValue& d = default_of(p, spec);
        if (auto* x = std::get_if<std::vector<std::string>>(&d)) return *x;
        bad_default(p, spec, "list of strings");
    }
    if (!v.IsSequence()) bad_value(p, key, v, "list of strings");
    std::vector<std::string> xs;
    for (const auto& item : v) {
        if (!item.IsScalar()) bad_value(p, key, item, "string");
        xs.push_back(item.Scalar());
    }
    return xs;
}

SOMA_API std::map<std::string, std::string> Parameters::free_map(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    spec_of(p, key, {ParamType::free_map}, "free_map");
    const YAML::Node v = value_of(p, key);
    std::map<std::string, std::string> result;
    if (!present(v) || v.IsNull()) return result;  // an absent free map is empty
    if (!v.IsMap()) bad_value(p, key, v, "map of key: value");
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (it->second.IsNull()) {
            result[it->first.Scalar()] = "";  // `-ksp_monitor:` is a flag with no value
            continue;
        }
        if (!it->second.IsScalar()) bad_value(p, key, it->second, "a scalar value");
        result[it->first.Scalar()] = it->second.Scalar();
    }
    return result;
}

SOMA_API Parameters Parameters::block(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::map, ParamType::typed}, "block");
    const YAML::Node v = value_of(p, key);
    const SourceLocation where = location(key);
    if (spec.type == ParamType::map) return sub_block(p, spec.sub, v, where.path, where);
    if (present(v) && !v.IsNull()) return typed_block(p, spec, v, where.path, where);
    // An absent typed block takes the type named by its default, with all its defaults.
    const ParamValue& d = default_of(p, spec);
    auto* type = std::get_if<std::string>(&d);
    if (!type) bad_default(p, spec, "type name");
    return sub_block(p, typed_schema(p, spec, *type), YAML::Node(YAML::NodeType::Undefined), where.path, where,
                     *type);
}

SOMA_API std::vector<Parameters> Parameters::blocks(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::map_list, ParamType::typed_list}, "blocks");
    const YAML::Node v = value_of(p, key);
    std::vector<Parameters> result;
    if (!present(v) || v.IsNull()) return result;  // an absent list is empty
    if (spec.single_map && v.IsMap()) {               // one map alone: a list of one, at the key's own path
        const SourceLocation where = location(key);
        result.push_back(sub_block(p, spec.sub, v, where.path, where));
        return result;
    }
    if (!v.IsSequence()) bad_value(p, key, v, to_string(spec.type));
    const std::string list_path = join_path(p.path, key);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const YAML::Node item = v[i];
        const std::string path = fmt::format("{}[{}]", list_path, i);
        const SourceLocation where = locate(p, item.Mark(), path);
        if (spec.type == ParamType::map_list)
            result.push_back(sub_block(p, spec.sub, item, path, where));
        else
            result.push_back(typed_block(p, spec, item, path, where));
    }
    return result;
}

SOMA_API std::string Parameters::choice(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::one_of}, "choice");
    const YAML::Node v = value_of(p, key);
    if (present(v)) {
        if (!v.IsMap() || v.size() != 1) bad_value(p, key, v, "a map with exactly one key");
        return v.begin()->first.Scalar();
    }
    const ParamValue& d = default_of(p, spec);
    if (auto* x = std::get_if<std::string>(&d)) return *x;
    bad_default(p, spec, "alternative name");
}

SOMA_API Parameters Parameters::choice_block(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const ParamSpec& spec = spec_of(p, key, {ParamType::one_of}, "choice_block");
    const std::string name = choice(key);
    std::shared_ptr<const ParameterSchema> schema;
    for (const auto& alt : spec.alternatives)
        if (alt->name() == name) schema = alt;
    if (!schema)
        throw std::logic_error(fmt::format("Parameters::choice_block('{}'): '{}' is not an alternative", key, name));
    const YAML::Node v = value_of(p, key);
    const YAML::Node chosen = find_value(v, name);
    const YAML::Node chosen_key = find_key(v, name);
    const std::string path = join_path(join_path(p.path, key), name);
    const SourceLocation where =
        chosen_key.IsDefined() ? locate(p, chosen_key.Mark(), path) : location(key);
    return sub_block(p, schema, chosen, path, SourceLocation{where.file, where.line, where.column, path});
}

SOMA_API std::string Parameters::path(const std::string& key) const {
    const std::string written = string(key);
    if (written.empty()) return written;
    const std::filesystem::path file(written);
    if (file.is_absolute()) return file.lexically_normal().string();
    return (impl_->directory / file).lexically_normal().string();
}

SOMA_API std::string Parameters::type_name() const { return impl_ ? impl_->type : std::string(); }

SOMA_API SourceLocation Parameters::location() const {
    const Impl& p = checked(impl_.get());
    return SourceLocation{p.block_file, p.line, p.column, p.path};
}

SOMA_API SourceLocation Parameters::location(const std::string& key) const {
    const Impl& p = checked(impl_.get());
    const std::string path = join_path(p.path, key);
    // A dotted key ("material.density", "probes[2].at") names a key of a nested block or list item:
    // point at the deepest part present, so errors from an object's nested settings land on the
    // line that set them. reset() rebinds a YAML::Node; operator= would write into the document.
    YAML::Node map;
    map.reset(p.node);
    YAML::Node found(YAML::NodeType::Undefined);
    std::size_t begin = 0;
    bool more = true;
    while (more) {
        const std::size_t dot = key.find('.', begin);
        more = dot != std::string::npos;
        const std::string part = key.substr(begin, more ? dot - begin : std::string::npos);
        begin = dot + 1;
        const std::size_t bracket = part.find('[');
        const YAML::Node k = find_key(map, part.substr(0, bracket));
        if (!k.IsDefined()) break;
        found.reset(k);
        const YAML::Node& current = map;  // const lookup: never inserts
        YAML::Node value;
        value.reset(current[part.substr(0, bracket)]);
        // Indices: "probes[2]" is item 2 of the list at `probes`.
        bool indexed = true;
        for (std::size_t open = bracket; open != std::string::npos && indexed; open = part.find('[', open + 1)) {
            const std::size_t close = part.find(']', open);
            std::size_t index = 0;
            indexed = close != std::string::npos && value.IsSequence() &&
                      std::sscanf(part.substr(open + 1, close - open - 1).c_str(), "%zu", &index) == 1 && index < value.size();
            if (!indexed) break;
            const YAML::Node& list = value;
            YAML::Node item;
            item.reset(list[index]);
            value.reset(item);
            found.reset(item);
        }
        if (!indexed) break;
        map.reset(value);
    }
    if (found.IsDefined()) return locate(p, found.Mark(), path);
    return SourceLocation{p.block_file, p.line, p.column, path};  // absent: point at the block
}

SOMA_API void Parameters::fail(const std::string& key, const std::string& message) const {
    throw InputError(key.empty() ? location() : location(key), message);
}

}  // namespace soma
