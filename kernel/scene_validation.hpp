#pragma once
/// \file scene_validation.hpp
/// \brief Validating a scene against the schemas, all errors at once, and making Parameters.

#include "scene_file.hpp"
#include "soma/parameters.hpp"

#include <string>
#include <vector>

namespace soma {

/// How validation finds the schema of a typed block (`type: discrete_rod`).
class TypeCatalog {
public:
    virtual ~TypeCatalog() = default;
    /// The full schema of a registered type (kernel common keys included), or nullptr.
    virtual const ParameterSchema* find_schema(TypeKind kind, const std::string& type) const = 0;
    /// The message for an unknown type: closest names and the plugin providing each.
    virtual std::string unknown_type_message(TypeKind kind, const std::string& type) const = 0;
};

/// One validation error; str() is `file:line:col: path.to.key: message`.
struct ValidationError {
    SourceLocation where;
    std::string message;
    std::string str() const { return where.str() + ": " + message; }
};

/// Checks the whole scene against `root_schema`, descending into typed blocks through the
/// catalog. Reports every error (unknown keys with "did you mean", duplicate keys, missing
/// required keys, wrong types, out-of-range values, bad choices, wrong list sizes, one_of with
/// zero or several keys, unknown types), in file order.
std::vector<ValidationError> validate_scene(const SceneDocument& scene, const ParameterSchema& root_schema,
                                            const TypeCatalog& catalog);

/// Validates and throws InputError whose what() lists every error, one per line.
/// On success returns the root Parameters (their accessors give defaults for absent keys).
Parameters make_scene_parameters(const SceneDocument& scene, const ParameterSchema& root_schema,
                                 const TypeCatalog& catalog);

}  // namespace soma
