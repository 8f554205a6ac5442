#pragma once
/// \file parameters_impl.hpp
/// \brief What a Parameters object holds (kernel side), and the scalar reading rules shared by
/// validation and the accessors, so that what validates is exactly what reads.

#include "scene_file.hpp"

#include "soma/parameters.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
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

/// YAML 1.2 core-schema readings of a scalar; nullopt when it is not one.
/// Integers: decimal, 0x hex, 0o octal. Reals: integers, decimals, exponents, .inf, .nan.
/// Booleans: true/false (also True/TRUE/False/FALSE).
std::optional<long> read_integer(const YAML::Node& node);
std::optional<double> read_real(const YAML::Node& node);
std::optional<bool> read_boolean(const YAML::Node& node);

/// Describes a node for "expected X, got Y" messages: "a map", "a list", "nothing",
/// "string 'abc'", "integer 3", "real 1.5", "boolean true".
std::string describe_node(const YAML::Node& node);

/// A number as messages and docs print it: shortest round-trip form, "inf" for infinity.
std::string format_number(double x);
/// A spec's numeric range in words: "> 0", "<= 1", ">= 0 and < 1"; empty when unbounded.
/// Shared by validation messages and the generated docs (schema_docs.cpp).
std::string range_text(const ParamSpec& spec);

/// The value of `key` in a map node (the first occurrence), or an undefined node.
YAML::Node find_value(const YAML::Node& map, const std::string& key);
/// The key node of `key` in a map node (for its mark), or an undefined node.
YAML::Node find_key(const YAML::Node& map, const std::string& key);

}  // namespace soma
