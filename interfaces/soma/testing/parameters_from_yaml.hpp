#pragma once
/// \file testing/parameters_from_yaml.hpp
/// \brief Parameters built from YAML text in a unit test, validated exactly as in a scene.
///
/// A plugin's factory receives a soma::Parameters, which only the kernel can make. These helpers
/// (implemented in libsoma_kernel) make one from YAML text for a test, through the same
/// validation as a scene file: unknown keys with "did you mean", missing required keys, wrong
/// types, ranges, and the kernel's common keys of the kind (a force's `name`, an element's
/// `name`, `fixed`, `prescribed`). Errors throw soma::InputError as `<source>:line:col: key:
/// message`, so a test can check a plugin's own Parameters::fail messages too.
/// \code
///   // From the schema (when the plugin exposes its schema function):
///   soma::Parameters p = soma::testing::parameters_from_yaml(
///       soma::TypeKind::force, anchor_spring_schema(), "{element: beam, nodes: [-1], stiffness: 4.7}");
///   // Or from the plugin's registration function, through its own factory:
///   soma::testing::RegisteredTypes types(soma_register_plugin);
///   std::unique_ptr<soma::Force> spring = types.make_force("anchor_spring", "{element: beam, nodes: [-1], stiffness: 4.7}");
/// \endcode

#include "soma/api.hpp"
#include "soma/parameters.hpp"

#include <memory>
#include <string>

namespace soma {
class Registry;
class Element;
class Force;
class Controller;
class Observer;
}  // namespace soma

namespace soma::testing {

/// \brief Validates \p yaml (the keys of one block, without `type`, as a YAML map) against
/// \p schema plus the kernel's common keys of \p kind, and returns the block's Parameters.
/// \param[in] kind         what the schema describes (a force, an element, ...)
/// \param[in] schema       the type's schema, as its plugin registers it
/// \param[in] yaml         e.g. "{stiffness: 4.7, element: beam}" or a block over several lines
/// \param[in] source_name  the "file" name used in error messages
/// \throws soma::InputError with every error, as a scene reports them.
/// Typed sub-blocks (a `type:` key inside) are not resolved here; use RegisteredTypes.
SOMA_API Parameters parameters_from_yaml(TypeKind kind, const ParameterSchema& schema, const std::string& yaml,
                                         const std::string& source_name = "<test>");

/// The types one plugin registers (its entry point run into a private registry), to build them
/// from YAML with the plugin's own schema and factory. Parameters and objects it makes must not
/// outlive it.
class SOMA_API RegisteredTypes {
public:
    /// \brief Runs \p register_plugin (a plugin's `soma_register_plugin`) into a private registry.
    explicit RegisteredTypes(void (*register_plugin)(Registry&));
    ~RegisteredTypes();
    RegisteredTypes(const RegisteredTypes&) = delete;
    RegisteredTypes& operator=(const RegisteredTypes&) = delete;

    /// \brief The validated Parameters of a block of registered type \p type (see parameters_from_yaml).
    /// \throws soma::InputError for invalid YAML, and std::invalid_argument for an unregistered type.
    Parameters parameters(TypeKind kind, const std::string& type, const std::string& yaml,
                          const std::string& source_name = "<test>") const;

    /// \brief The object the plugin's factory makes from the block (its constructor's errors included).
    std::unique_ptr<Force> make_force(const std::string& type, const std::string& yaml) const;
    std::unique_ptr<Element> make_element(const std::string& type, const std::string& yaml) const;
    std::unique_ptr<Controller> make_controller(const std::string& type, const std::string& yaml) const;
    std::unique_ptr<Observer> make_observer(const std::string& type, const std::string& yaml) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace soma::testing
