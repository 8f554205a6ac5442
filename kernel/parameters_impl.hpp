#pragma once
/// \file parameters_impl.hpp
/// \brief What a Parameters object holds (kernel side), and the scalar reading rules shared by
/// validation and the accessors, so that what validates is exactly what reads.

#include "scene_file.hpp"

#include "soma/parameters.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>

namespace soma {

class TypeCatalog;

/// The validated block behind a Parameters: its YAML node, its schema, and where it came from.
/// The node keeps the whole document alive (yaml-cpp nodes share their memory holder); the
/// catalog must outlive the Parameters (it is the simulation's type registry).
struct Parameters::Impl {
    YAML::Node node;                                ///< the block's map; undefined when absent (all defaults)
    std::shared_ptr<const ParameterSchema> schema;  ///< the block's schema (never null)
    std::string file;                               ///< scene file name, for messages
    /// The `--set` overrides applied to the scene (their nodes are located at the argument).
    std::shared_ptr<const std::vector<SceneOverride>> overrides;
    std::string path;                               ///< key path of the block, e.g. "elements[0].material"
    std::string block_file;                         ///< where the block is: `file`, or `--set TEXT`
    int line = 0;                                   ///< 1-based location of the block; 0 if unknown
    int column = 0;
    std::filesystem::path directory;                ///< scene folder, for Parameters::path
    const TypeCatalog* catalog = nullptr;           ///< gives typed sub-blocks their schema
    std::string type;                               ///< `type` of a typed block, empty otherwise
};

/// A 1-based SourceLocation from a yaml-cpp mark (0-based; -1 when the node was not parsed).
SourceLocation location_of(const std::string& file, const YAML::Mark& mark, const std::string& path);

/// Where a node of the block's scene is (scene_file.hpp, locate): its line, or its `--set`.
SourceLocation locate(const Parameters::Impl& p, const YAML::Mark& mark, const std::string& path);

/// Joins a block path and a key: ("a.b", "c") -> "a.b.c", ("", "c") -> "c".
std::string join_path(const std::string& prefix, const std::string& key);

/// True for a plain (unquoted) scalar: only those can be numbers or booleans.
bool is_plain_scalar(const YAML::Node& node);

/// Strict readings of a plain scalar; nullopt when it is not one. Integers: decimal only, an
/// optional sign, no leading zero (0x10, 0o10 and 010 are refused, not read as 16 or 8). Reals:
/// integers, decimals, exponents, .inf, .nan (validation refuses the last two). Nothing may
/// follow the number.
/// Booleans: true/false (also True/TRUE/False/FALSE).
std::optional<long> read_integer(const YAML::Node& node);
std::optional<double> read_real(const YAML::Node& node);
std::optional<bool> read_boolean(const YAML::Node& node);

/// Why a scalar that is not a number looks like one ("0x10", "010", "1.5m"), as a parenthesised
/// hint to append to "expected real, got string '0x10'"; empty otherwise.
std::string number_hint(const YAML::Node& node);

/// True when reading `text` gave a subnormal double or rounded a nonzero number to 0: below
/// the smallest normal double (2.2e-308), no SI quantity of a scene.
bool underflows(const std::string& text, double value);

/// Describes a node for "expected X, got Y" messages: "a map", "a list", "nothing",
/// "string 'abc'", "integer 3", "real 1.5", "boolean true".
std::string describe_node(const YAML::Node& node);

/// A number as messages and docs print it: shortest round-trip form, "inf" for infinity.
std::string format_number(double x);
/// A numeric range with its bounds' kinds.
struct NumericRange {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool min_exclusive = false;
    bool max_exclusive = false;
    bool contains(double x) const {
        return (min_exclusive ? x > min : x >= min) && (max_exclusive ? x < max : x <= max);
    }
};

/// A spec's declared range narrowed to its unit's ceiling (|x| <= unit_ceiling(unit)): what
/// validation enforces and the docs print.
NumericRange effective_range(const ParamSpec& spec);

/// A spec's numeric range in words: "> 0", "<= 1", ">= 0 and < 1"; empty when unbounded.
/// Shared by validation messages and the generated docs (schema_docs.cpp).
std::string range_text(const ParamSpec& spec);

/// The value of `key` in a map node (the first occurrence), or an undefined node.
YAML::Node find_value(const YAML::Node& map, const std::string& key);
/// The key node of `key` in a map node (for its mark), or an undefined node.
YAML::Node find_key(const YAML::Node& map, const std::string& key);

}  // namespace soma
