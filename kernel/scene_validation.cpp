// Validating a scene against the schemas with every error collected (scene_validation.hpp),
// and making the root Parameters of a valid scene. Every message format here is checked by
// tests/scene/test_scene_validation.cpp.
#include "scene_validation.hpp"

#include "parameters_impl.hpp"
#include "string_distance.hpp"

#include "soma/api.hpp"
#include "soma/input_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <cmath>
#include <map>

namespace soma {

namespace {

bool in_range(const ParamSpec& spec, double x) { return effective_range(spec).contains(x); }

/// The last component of a path ("a.b[2]" -> "b[2]"), to name a value in a message.
std::string label_of(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::vector<std::string> key_names(const ParameterSchema& schema, bool typed) {
    std::vector<std::string> names;
    if (typed) names.push_back("type");
    for (const auto& p : schema.params()) names.push_back(p.name);
    return names;
}

std::vector<std::string> alternative_names(const ParamSpec& spec) {
    std::vector<std::string> names;
    for (const auto& alt : spec.alternatives) names.push_back(alt->name());
    return names;
}

/// Walks the scene and the schemas together, collecting every error.
class Validator {
public:
    Validator(const SceneDocument& scene, const TypeCatalog& catalog) : scene_(scene), catalog_(catalog) {}

    void check_map(const YAML::Node& node, const ParameterSchema& schema, const std::string& path,
                   const SourceLocation& block, bool typed) {
        if (!node.IsDefined() || node.IsNull()) {  // `material:` with nothing: an empty block
            missing_required(schema, {}, path, block);
            return;
        }
        if (!node.IsMap()) {
            error(node.Mark(), path, "expected map, got " + describe_node(node));
            return;
        }
        std::map<std::string, int> seen;  // key -> 1-based line of its first occurrence
        for (auto it = node.begin(); it != node.end(); ++it) {
            // A copy (a Node is a handle): yaml-cpp's operator-> returns a temporary proxy, so a
            // reference to it->first dangles after this statement (ASan, fuzz_scene).
            const YAML::Node key = it->first;
            if (!key.IsScalar()) {
                error(key.Mark(), path, "expected a key name, got " + describe_node(key));
                continue;
            }
            const std::string name = key.Scalar();
            const std::string key_path = join_path(path, name);
            if (!first_occurrence(seen, key, key_path)) continue;
            if (typed && name == "type") continue;  // checked by check_typed
            const ParamSpec* spec = schema.find(name);
            if (!spec) {
                unknown_key(key, key_path, name, key_names(schema, typed));
                continue;
            }
            check_value(*spec, it->second, key, key_path);
        }
        missing_required(schema, seen, path, block);
    }

    std::vector<ValidationError> take_errors() {
        // File order; errors with no known line (override-inserted keys) last.
        std::stable_sort(errors_.begin(), errors_.end(), [](const ValidationError& a, const ValidationError& b) {
            const int la = a.where.line > 0 ? a.where.line : INT_MAX;
            const int lb = b.where.line > 0 ? b.where.line : INT_MAX;
            return la != lb ? la < lb : a.where.column < b.where.column;
        });
        return std::move(errors_);
    }

private:
    void error(const YAML::Mark& mark, const std::string& path, const std::string& message) {
        errors_.push_back({locate(scene_.file, scene_.overrides, mark, path), message});
    }
    void error(const SourceLocation& where, const std::string& message) { errors_.push_back({where, message}); }

    /// Records a key; reports a duplicate at its second occurrence. False for a duplicate.
    bool first_occurrence(std::map<std::string, int>& seen, const YAML::Node& key, const std::string& key_path) {
        const std::string& name = key.Scalar();
        const int line = key.Mark().line + 1;
        auto [it, inserted] = seen.emplace(name, line);
        if (inserted) return true;
        error(key.Mark(), key_path,
              it->second > 0 ? fmt::format("duplicate key '{}' (first written at line {})", name, it->second)
                             : fmt::format("duplicate key '{}'", name));
        return false;
    }

    void unknown_key(const YAML::Node& key, const std::string& key_path, const std::string& name,
                     const std::vector<std::string>& known) {
        std::string hint = did_you_mean(name, known);
        if (hint.empty()) hint = known.empty() ? "; this block takes no keys" : "; known keys: " + quoted_list(known);
        error(key.Mark(), key_path, "unknown key '" + name + "'" + hint);
    }

    void missing_required(const ParameterSchema& schema, const std::map<std::string, int>& seen,
                          const std::string& path, const SourceLocation& block) {
        for (const auto& spec : schema.params()) {
            if (!spec.required || seen.count(spec.name)) continue;
            std::string what = to_string(spec.type);
            if (!spec.unit_name.empty()) what += ", " + spec.unit_name;
            error(SourceLocation{block.file, block.line, block.column, path},
                  fmt::format("missing required key '{}' ({}: {})", spec.name, what, spec.doc));
        }
    }

    /// Where a value's errors point: the value, or its key when the value is empty (`key:`).
    static YAML::Mark value_mark(const YAML::Node& value, const YAML::Node& key) {
        return value.IsDefined() && !value.IsNull() ? value.Mark() : key.Mark();
    }

    void expected(const YAML::Node& value, const YAML::Node& key, const std::string& path, const std::string& what) {
        error(value_mark(value, key), path, "expected " + what + ", got " + describe_node(value));
    }

    /// A number, its type and its range; `what` is "real" or "integer".
    void check_number(const ParamSpec& spec, bool integer, const YAML::Node& value, const YAML::Node& key,
                      const std::string& path) {
        std::optional<double> x;
        if (integer) {
            if (auto i = read_integer(value)) x = static_cast<double>(*i);
        } else {
            x = read_real(value);
        }
        if (!x) {
            error(value_mark(value, key), path,
                  "expected " + std::string(integer ? "integer" : "real") + ", got " + describe_node(value) +
                      number_hint(value));
            return;
        }
        if (std::isnan(*x)) {
            error(value.Mark(), path, label_of(path) + " = " + value.Scalar() + " is not a number");
            return;
        }
        // Every Soma parameter is a finite quantity: .inf would run forever or print NaN.
        if (std::isinf(*x)) {
            error(value.Mark(), path, label_of(path) + " = " + value.Scalar() + " is not finite");
            return;
        }
        // Below the smallest normal double no SI quantity of a scene lives, and products of such
        // numbers underflow to 0 (a modulus of 4.9e-324 gives a stiffness of exactly 0).
        if (!integer && underflows(value.Scalar(), *x)) {
            error(value.Mark(), path,
                  fmt::format("{} = {} is below the smallest normal double (2.2e-308) and cannot be computed "
                              "with: write 0 or a value of physical size",
                              label_of(path), value.Scalar()));
            return;
        }
        if (!in_range(spec, *x)) {
            const double ceiling = unit_ceiling(spec.unit_name);
            const bool at_ceiling = std::abs(*x) > ceiling;
            error(value.Mark(), path,
                  fmt::format("{} = {} is out of range: expected {}{}", label_of(path), value.Scalar(), range_text(spec),
                              at_ceiling ? fmt::format(" (the ceiling of every quantity in {}: docs/reliability.md, "
                                                       "Input limits)",
                                                       spec.unit_name)
                                         : std::string()));
            return;
        }
        // Plugins keep integers in 32 bits (counts, indices): a larger one would be truncated.
        if (integer && std::abs(*x) > static_cast<double>(std::numeric_limits<int>::max()))
            error(value.Mark(), path,
                  fmt::format("{} = {} is out of range: integers are at most {} in magnitude", label_of(path),
                              value.Scalar(), std::numeric_limits<int>::max()));
    }

    void check_string(const ParamSpec& spec, const YAML::Node& value, const YAML::Node& key, const std::string& path) {
        if (!value.IsScalar()) {
            expected(value, key, path, "string");
            return;
        }
        if (spec.choices.empty()) return;
        const std::string& s = value.Scalar();
        if (std::find(spec.choices.begin(), spec.choices.end(), s) != spec.choices.end()) return;
        error(value.Mark(), path,
              fmt::format("{} = '{}' is not a valid choice: expected one of {}{}", label_of(path), s,
                          quoted_list(spec.choices), did_you_mean(s, spec.choices)));
    }

    void check_list(const ParamSpec& spec, const YAML::Node& value, const YAML::Node& key, const std::string& path) {
        if (!value.IsSequence()) {
            expected(value, key, path, to_string(spec.type));
            return;
        }
        check_min_size(spec, value, key, path);
        const int expected_size = spec.type == ParamType::vec3 ? 3 : spec.size;
        if (expected_size >= 0 && static_cast<int>(value.size()) != expected_size) {
            const std::string what = spec.type == ParamType::vec3
                                         ? std::string(to_string(spec.type))
                                         : fmt::format("{} with {} items", to_string(spec.type), expected_size);
            error(value.Mark(), path,
                  fmt::format("expected {}, got {} item{}", what, value.size(), value.size() == 1 ? "" : "s"));
        }
        for (std::size_t i = 0; i < value.size(); ++i) {
            const YAML::Node item = value[i];
            const std::string item_path = fmt::format("{}[{}]", path, i);
            switch (spec.type) {
                case ParamType::integer_list: check_number(spec, true, item, item, item_path); break;
                case ParamType::string_list: check_string(spec, item, item, item_path); break;
                default: check_number(spec, false, item, item, item_path); break;
            }
        }
    }

    /// A list with fewer items than the spec's min_size (`elements: []`).
    void check_min_size(const ParamSpec& spec, const YAML::Node& value, const YAML::Node& key, const std::string& path) {
        const std::size_t n = value.IsSequence() ? value.size() : 0;
        if (static_cast<int>(n) >= spec.min_size) return;
        error(value_mark(value, key), path,
              fmt::format("expected at least {} item{}, got {}{}", spec.min_size, spec.min_size == 1 ? "" : "s",
                          n == 0 ? std::string("an empty list") : fmt::format("{}", n),
                          spec.doc.empty() ? std::string() : " (" + spec.doc + ")"));
    }

    void check_free_map(const YAML::Node& value, const YAML::Node& key, const std::string& path) {
        if (value.IsNull()) return;
        if (!value.IsMap()) {
            expected(value, key, path, "map of key: value");
            return;
        }
        std::map<std::string, int> seen;
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (!it->first.IsScalar()) {
                error(it->first.Mark(), path, "expected a key name, got " + describe_node(it->first));
                continue;
            }
            const std::string item_path = join_path(path, it->first.Scalar());
            if (!first_occurrence(seen, it->first, item_path)) continue;
            if (!it->second.IsNull() && !it->second.IsScalar())
                expected(it->second, it->first, item_path, "a single value (number, string or boolean)");
        }
    }

    void check_one_of(const ParamSpec& spec, const YAML::Node& value, const YAML::Node& key, const std::string& path) {
        const std::vector<std::string> names = alternative_names(spec);
        const std::string choices = quoted_list(names);
        if (!value.IsMap()) {
            expected(value, key, path, "a map with exactly one of " + choices);
            return;
        }
        std::map<std::string, int> seen;
        std::string first_choice;
        int first_line = 0;
        for (auto it = value.begin(); it != value.end(); ++it) {
            const YAML::Node alt_key = it->first;  // a copy: see check_map
            if (!alt_key.IsScalar()) {
                error(alt_key.Mark(), path, "expected one of " + choices + ", got " + describe_node(alt_key));
                continue;
            }
            const std::string name = alt_key.Scalar();
            const std::string alt_path = join_path(path, name);
            if (!first_occurrence(seen, alt_key, alt_path)) continue;
            auto alt = std::find_if(spec.alternatives.begin(), spec.alternatives.end(),
                                    [&](const auto& a) { return a->name() == name; });
            if (alt == spec.alternatives.end()) {
                error(alt_key.Mark(), alt_path,
                      fmt::format("unknown alternative '{}': expected one of {}{}", name, choices,
                                  did_you_mean(name, names)));
                continue;
            }
            if (first_choice.empty()) {
                first_choice = name;
                first_line = alt_key.Mark().line + 1;
            } else {
                error(alt_key.Mark(), alt_path,
                      fmt::format("'{}' and '{}' (line {}) are both given: {} takes exactly one of {}", name,
                                  first_choice, first_line, label_of(path), choices));
            }
            check_map(it->second, **alt, alt_path, locate(scene_.file, scene_.overrides, alt_key.Mark(), alt_path), false);
        }
        if (seen.empty()) error(value.Mark(), path, "expected exactly one of " + choices + ", got an empty map");
    }

    void check_typed(const ParamSpec& spec, const YAML::Node& value, const YAML::Mark& block_mark,
                     const std::string& path) {
        const std::string kind = to_string(spec.kind);
        if (!value.IsMap()) {
            error(value.IsDefined() && !value.IsNull() ? value.Mark() : block_mark, path,
                  fmt::format("expected a map with 'type: <{} type>', got {}", kind, describe_node(value)));
            return;
        }
        const YAML::Node type = find_value(value, "type");
        if (!type.IsDefined()) {
            error(value.Mark(), path, fmt::format("missing required key 'type' (the {} type)", kind));
            return;
        }
        const std::string type_path = join_path(path, "type");
        if (!type.IsScalar() || type.Scalar().empty()) {
            expected(type, find_key(value, "type"), type_path, "a type name");
            return;
        }
        const ParameterSchema* schema = catalog_.find_schema(spec.kind, type.Scalar());
        if (!schema) {
            error(type.Mark(), type_path, catalog_.unknown_type_message(spec.kind, type.Scalar()));
            return;  // the keys cannot be checked without the type's schema
        }
        check_map(value, *schema, path, locate(scene_.file, scene_.overrides, block_mark, path), true);
    }

    void check_value(const ParamSpec& spec, const YAML::Node& value, const YAML::Node& key, const std::string& path) {
        switch (spec.type) {
            case ParamType::real: check_number(spec, false, value, key, path); break;
            case ParamType::integer: check_number(spec, true, value, key, path); break;
            case ParamType::boolean:
                if (!read_boolean(value)) expected(value, key, path, "boolean (true or false)");
                break;
            case ParamType::string: check_string(spec, value, key, path); break;
            case ParamType::vec3:
            case ParamType::real_list:
            case ParamType::integer_list:
            case ParamType::string_list: check_list(spec, value, key, path); break;
            case ParamType::free_map: check_free_map(value, key, path); break;
            case ParamType::map:
                check_map(value, *spec.sub, path, locate(scene_.file, scene_.overrides, key.Mark(), path), false);
                break;
            case ParamType::one_of: check_one_of(spec, value, key, path); break;
            case ParamType::typed: check_typed(spec, value, key.Mark(), path); break;
            case ParamType::map_list:
            case ParamType::typed_list: {
                if (value.IsNull()) {  // `forces:` with every item commented out: an empty list
                    if (spec.min_size > 0) check_min_size(spec, value, key, path);
                    break;
                }
                if (spec.single_map && value.IsMap()) {  // one map alone: a list of one
                    check_map(value, *spec.sub, path, locate(scene_.file, scene_.overrides, key.Mark(), path), false);
                    break;
                }
                if (!value.IsSequence()) {
                    expected(value, key, path, spec.single_map ? "a map or a list of maps" : to_string(spec.type));
                    break;
                }
                check_min_size(spec, value, key, path);
                for (std::size_t i = 0; i < value.size(); ++i) {
                    const YAML::Node item = value[i];
                    const std::string item_path = fmt::format("{}[{}]", path, i);
                    if (spec.type == ParamType::map_list)
                        check_map(item, *spec.sub, item_path, locate(scene_.file, scene_.overrides, item.Mark(), item_path), false);
                    else
                        check_typed(spec, item, item.Mark(), item_path);
                }
                break;
            }
        }
    }

    const SceneDocument& scene_;
    const TypeCatalog& catalog_;
    std::vector<ValidationError> errors_;
};

}  // namespace

/// \brief Every error of the scene against `root_schema`, in file order (empty when valid).
SOMA_API std::vector<ValidationError> validate_scene(const SceneDocument& scene, const ParameterSchema& root_schema,
                                                     const TypeCatalog& catalog) {
    Validator validator(scene, catalog);
    validator.check_map(scene.root, root_schema, "", locate(scene.file, scene.overrides, scene.root.Mark(), ""), false);
    return validator.take_errors();
}

/// \brief Validates the scene; throws InputError listing every error, or returns the root
/// Parameters. One error: its line alone. Several: "N errors in FILE:" then one per line.
SOMA_API Parameters make_scene_parameters(const SceneDocument& scene, const ParameterSchema& root_schema,
                                          const TypeCatalog& catalog) {
    const std::vector<ValidationError> errors = validate_scene(scene, root_schema, catalog);
    if (errors.size() == 1) throw InputError(errors.front().str());
    if (!errors.empty()) {
        std::string message = fmt::format("{} errors in {}:", errors.size(), scene.file);
        for (const auto& e : errors) {
            message += '\n';  // appended separately: GCC 12 warns (-Wrestrict) on "\n" + std::string
            message += e.str();
        }
        throw InputError(message);
    }
    auto impl = std::make_shared<Parameters::Impl>();
    impl->node.reset(scene.root);
    impl->schema = std::make_shared<const ParameterSchema>(root_schema);  // a copy: the caller's may be a temporary
    impl->file = scene.file;
    impl->overrides = std::make_shared<const std::vector<SceneOverride>>(scene.overrides);
    const SourceLocation where = locate(scene.file, scene.overrides, scene.root.Mark(), "");
    impl->block_file = where.file;
    impl->line = where.line;
    impl->column = where.column;
    impl->directory = scene.directory;
    impl->catalog = &catalog;
    return Parameters(std::move(impl));
}

}  // namespace soma
