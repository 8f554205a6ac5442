#pragma once
/// \file parameters.hpp
/// \brief Parameter schemas (one per registered type) and the validated parameters a factory
/// reads.
///
/// A type declares its parameters once (MOOSE's validParams style): name, type, unit, default,
/// range, doc. The same declaration validates the scene before anything is built, prints
/// `soma describe TYPE`, and generates docs/scene-reference.md.
///
/// Example:
/// \code
///   soma::ParameterSchema schema("gravity", "Uniform gravitational acceleration on every point.");
///   schema.vec3("acceleration", "gravitational acceleration").unit("m/s^2").fallback({0, 0, -9.81});
///   schema.real("medium_density", "density of the surrounding fluid (buoyancy)")
///       .unit("kg/m^3").fallback(0.0).min(0.0);
/// \endcode

#include "soma/api.hpp"
#include "soma/types.hpp"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace soma {

/// What a scene key holds.
enum class ParamType {
    real,          ///< a number
    integer,       ///< an integer (negative node indices count from the end where documented)
    boolean,       ///< true/false
    string,        ///< text; restricted to `choices` when given
    vec3,          ///< three numbers
    real_list,     ///< a list of numbers (size checked when `size` is set)
    integer_list,  ///< a list of integers
    string_list,   ///< a list of strings
    map,           ///< a nested block with its own schema (`sub`)
    one_of,        ///< a block holding exactly one of the alternatives in `alternatives`
    map_list,      ///< a list of nested blocks sharing one schema (`sub`)
    free_map,      ///< key: scalar pairs passed through unchecked (e.g. PETSc options)
    typed,         ///< a block whose schema is the one registered for its `type` key (`kind`)
    typed_list,    ///< a list of typed blocks (`kind`)
};

/// The kind of a registered type; typed blocks look their schema up by kind and `type`.
/// `importer`: a type of the `imports:` list, which writes scene blocks (Registry::add_importer).
enum class TypeKind { element, force, constraint, integrator, linear_solver, observer, controller, importer };

SOMA_API const char* to_string(TypeKind kind);
SOMA_API const char* to_string(ParamType type);

class ParameterSchema;

/// A default value as written in the schema.
using ParamValue = std::variant<double, long, bool, std::string, Vec3, std::vector<double>,
                                std::vector<long>, std::vector<std::string>>;

/// One documented parameter. Built through ParameterSchema's fluent helpers.
struct ParamSpec {
    std::string name;
    ParamType type = ParamType::real;
    std::string doc;
    std::string unit_name;                  ///< SI unit, empty for dimensionless
    std::optional<ParamValue> default_value;
    bool required = false;
    /// Numeric range (each list item). Validation also bounds the magnitude by the unit's
    /// ceiling (soma/input_limits.hpp), refuses subnormal reals and integers beyond 32 bits.
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool min_exclusive = false;
    bool max_exclusive = false;
    int size = -1;                          ///< exact list size when >= 0
    int min_size = 0;                       ///< lists: at least this many items
    std::vector<std::string> choices;       ///< allowed strings
    std::shared_ptr<ParameterSchema> sub;   ///< map / map_list
    std::vector<std::shared_ptr<ParameterSchema>> alternatives;  ///< one_of (schema name = key)
    TypeKind kind = TypeKind::element;      ///< typed / typed_list
    bool single_map = false;                ///< map_list: one map alone is also accepted, as a list of one

    // Fluent setters.
    ParamSpec& unit(std::string u) { unit_name = std::move(u); return *this; }
    ParamSpec& fallback(ParamValue v) { default_value = std::move(v); return *this; }
    ParamSpec& require() { required = true; return *this; }
    ParamSpec& range(double lo, double hi) { min = lo; max = hi; return *this; }
    ParamSpec& min_value(double lo) { min = lo; return *this; }
    ParamSpec& max_value(double hi) { max = hi; max_exclusive = false; return *this; }
    ParamSpec& positive() { min = 0.0; min_exclusive = true; return *this; }
    ParamSpec& non_negative() { min = 0.0; min_exclusive = false; return *this; }
    ParamSpec& below(double hi) { max = hi; max_exclusive = true; return *this; }
    ParamSpec& exact_size(int n) { size = n; return *this; }
    /// Lists (of numbers, strings or blocks): at least one item (`elements: []` is refused).
    ParamSpec& non_empty() { min_size = 1; return *this; }
    ParamSpec& one_of_strings(std::vector<std::string> c) { choices = std::move(c); return *this; }
    /// map_list: also accept one map alone (a list of one whose messages keep the plain key path),
    /// so that a key that used to be a map can grow into a list without breaking old scenes.
    ParamSpec& or_single_map() { single_map = true; return *this; }
};

/// The parameters of one type (or of one nested block).
class SOMA_API ParameterSchema {
public:
    ParameterSchema() = default;
    ParameterSchema(std::string name, std::string doc) : name_(std::move(name)), doc_(std::move(doc)) {}

    const std::string& name() const { return name_; }
    const std::string& doc() const { return doc_; }
    const std::vector<ParamSpec>& params() const { return params_; }
    const ParamSpec* find(const std::string& key) const;

    ParamSpec& real(const std::string& name, const std::string& doc);
    ParamSpec& integer(const std::string& name, const std::string& doc);
    ParamSpec& boolean(const std::string& name, const std::string& doc);
    ParamSpec& string(const std::string& name, const std::string& doc);
    ParamSpec& vec3(const std::string& name, const std::string& doc);
    ParamSpec& real_list(const std::string& name, const std::string& doc);
    ParamSpec& integer_list(const std::string& name, const std::string& doc);
    ParamSpec& string_list(const std::string& name, const std::string& doc);
    ParamSpec& free_map(const std::string& name, const std::string& doc);
    /// A nested block. The returned spec's `sub` is the schema to fill.
    ParamSpec& map(const std::string& name, const std::string& doc, ParameterSchema sub);
    ParamSpec& map_list(const std::string& name, const std::string& doc, ParameterSchema sub);
    /// A block with exactly one key, chosen among the alternatives (each schema's name is a key).
    ParamSpec& one_of(const std::string& name, const std::string& doc,
                      std::vector<ParameterSchema> alternatives);
    ParamSpec& typed(const std::string& name, const std::string& doc, TypeKind kind);
    ParamSpec& typed_list(const std::string& name, const std::string& doc, TypeKind kind);

    /// Markdown documentation of this schema (used by `soma describe --markdown` and the docs).
    std::string markdown(int heading_level = 3) const;
    /// Plain-text documentation for the terminal.
    std::string text() const;

private:
    ParamSpec& add(const std::string& name, ParamType type, const std::string& doc);
    std::string name_;
    std::string doc_;
    std::vector<ParamSpec> params_;
};

/// Where a value came from in the scene: "file:line:col" plus the key path.
struct SOMA_API SourceLocation {
    std::string file;
    int line = 0;    ///< 1-based; 0 if unknown
    int column = 0;  ///< 1-based
    std::string path;  ///< e.g. "elements[0].material.youngs_modulus"
    std::string str() const;  ///< "file:line:col: path"
};

/// An error in the user's input. `what()` is the full `file:line:col: path: message` text,
/// possibly several lines when errors were collected.
class SOMA_API InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
    InputError(const SourceLocation& where, const std::string& message)
        : std::runtime_error(where.str() + ": " + message) {}
};

/// The validated parameters of one block. Reading a key the schema does not declare is a
/// programming error (std::logic_error). Absent optional keys return their schema default.
class SOMA_API Parameters {
public:
    Parameters();
    ~Parameters();
    Parameters(const Parameters&);
    Parameters& operator=(const Parameters&);
    Parameters(Parameters&&) noexcept;
    Parameters& operator=(Parameters&&) noexcept;

    /// True when the key is written in the scene (defaults do not count).
    bool has(const std::string& key) const;

    double real(const std::string& key) const;
    long integer(const std::string& key) const;
    bool boolean(const std::string& key) const;
    std::string string(const std::string& key) const;
    Vec3 vec3(const std::string& key) const;
    std::vector<double> real_list(const std::string& key) const;
    std::vector<long> integer_list(const std::string& key) const;
    std::vector<std::string> string_list(const std::string& key) const;
    std::map<std::string, std::string> free_map(const std::string& key) const;
    /// A nested map block (or a typed block); an absent optional block yields its defaults.
    Parameters block(const std::string& key) const;
    /// A list of nested blocks.
    std::vector<Parameters> blocks(const std::string& key) const;
    /// For a one_of key: which alternative was chosen (its name), and its block.
    std::string choice(const std::string& key) const;
    Parameters choice_block(const std::string& key) const;

    /// A path key (e.g. a geometry file) resolved against the scene file's folder.
    std::string path(const std::string& key) const;

    /// The `type` of a typed block, empty otherwise.
    std::string type_name() const;
    /// This block's location, or a key's location inside it (for errors found while building).
    SourceLocation location() const;
    SourceLocation location(const std::string& key) const;
    /// Throws InputError pointing at the key (or at this block when key is empty).
    [[noreturn]] void fail(const std::string& key, const std::string& message) const;

    /// Kernel-side construction; plugins receive ready objects.
    struct Impl;
    explicit Parameters(std::shared_ptr<const Impl> impl);
    const Impl* impl() const { return impl_.get(); }

private:
    std::shared_ptr<const Impl> impl_;
};

}  // namespace soma
