#pragma once
/// \file type_registry.hpp
/// \brief Every registered type by kind and name, with its schema, factory and provider.

#include "scene_validation.hpp"
#include "soma/registry.hpp"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace soma {

class Constraint;

/// The kernel's Registry: plugins add types through it; scenes look them up by name.
class TypeRegistry final : public Registry, public TypeCatalog {
public:
    struct Entry {
        TypeKind kind;
        std::string name;
        ParameterSchema schema;  ///< registered schema plus the kernel's common keys of the kind
        std::string plugin;      ///< providing plugin's name
        std::string library;     ///< its file
        std::variant<Factory<Element>, Factory<Force>, Factory<Integrator>, Factory<LinearSolver>,
                     Factory<Observer>, Factory<Controller>, Factory<Constraint>, SceneImport> factory;
    };

    /// Names the plugin whose entry point runs next (for duplicate and provenance messages).
    void set_current_provider(std::string plugin, std::string library);

    void add_element(ParameterSchema schema, Factory<Element> factory) override;
    void add_force(ParameterSchema schema, Factory<Force> factory) override;
    void add_integrator(ParameterSchema schema, Factory<Integrator> factory) override;
    void add_linear_solver(ParameterSchema schema, Factory<LinearSolver> factory) override;
    void add_observer(ParameterSchema schema, Factory<Observer> factory) override;
    void add_controller(ParameterSchema schema, Factory<Controller> factory) override;
    void add_constraint(ParameterSchema schema, Factory<Constraint> factory) override;
    void add_importer(ParameterSchema schema, SceneImport import) override;

    const Entry* find(TypeKind kind, const std::string& name) const;
    /// All entries, sorted by kind then name.
    std::vector<const Entry*> entries() const;

    const ParameterSchema* find_schema(TypeKind kind, const std::string& type) const override;
    std::string unknown_type_message(TypeKind kind, const std::string& type) const override;

    /// Keys the kernel reads in every block of a kind (element `name`, `fixed`, ...).
    static void add_common_keys(TypeKind kind, ParameterSchema& schema);

private:
    void add(TypeKind kind, ParameterSchema schema, decltype(Entry::factory) factory);
    std::map<std::pair<TypeKind, std::string>, Entry> entries_;
    std::string current_plugin_ = "kernel", current_library_;
};

/// The region selectors of `fixed` and `prescribed` blocks (box, boxes, plane, planes) and their
/// `include_edges` switch; `edges_in_regions` ends its doc (what the selected edge DOFs do).
void add_node_selectors(ParameterSchema& schema, const std::string& edges_in_regions);

/// The Newton and step-size keys common to every integrator (documented once).
ParameterSchema newton_schema();
ParameterSchema adaptive_step_schema();
ParameterSchema error_control_schema();

}  // namespace soma
