// soma::testing::parameters_from_yaml and RegisteredTypes (interfaces/soma/testing/
// parameters_from_yaml.hpp): a block of YAML text validated as a scene validates it.
#include "soma/testing/parameters_from_yaml.hpp"

#include "parameters_impl.hpp"
#include "scene_validation.hpp"
#include "type_registry.hpp"

#include "soma/controller.hpp"
#include "soma/element.hpp"
#include "soma/force.hpp"
#include "soma/observer.hpp"

#include <stdexcept>

namespace soma::testing {

namespace {

/// For schemas validated alone: no typed sub-block resolves.
class NoTypes final : public TypeCatalog {
public:
    const ParameterSchema* find_schema(TypeKind, const std::string&) const override { return nullptr; }
    std::string unknown_type_message(TypeKind kind, const std::string& type) const override {
        return std::string("unknown ") + to_string(kind) + " type '" + type +
               "' (parameters_from_yaml resolves no typed blocks; use soma::testing::RegisteredTypes)";
    }
};

/// Parses one block; the errors name the block, not a scene.
SceneDocument parse_block(const std::string& yaml, const std::string& source_name) {
    SceneDocument doc;
    doc.file = source_name;
    std::error_code ec;
    doc.directory = std::filesystem::current_path(ec);
    doc.root = parse_single_yaml_document(yaml, source_name);
    if (!doc.root.IsDefined() || doc.root.IsNull()) doc.root = YAML::Node(YAML::NodeType::Map);  // all defaults
    if (!doc.root.IsMap())
        throw InputError(location_of(source_name, doc.root.Mark(), ""),
                         "expected the block's keys as a YAML map, got " + describe_node(doc.root));
    return doc;
}

/// Validates a block against a full schema (common keys included) and names its type.
Parameters validated(const ParameterSchema& full_schema, const std::string& yaml, const std::string& source_name,
                     const TypeCatalog& catalog) {
    const SceneDocument doc = parse_block(yaml, source_name);
    const Parameters root = make_scene_parameters(doc, full_schema, catalog);
    auto impl = std::make_shared<Parameters::Impl>(*root.impl());
    impl->type = full_schema.name();
    return Parameters(std::move(impl));
}

}  // namespace

SOMA_API Parameters parameters_from_yaml(TypeKind kind, const ParameterSchema& schema, const std::string& yaml,
                                         const std::string& source_name) {
    static const NoTypes no_types;
    ParameterSchema full = schema;
    TypeRegistry::add_common_keys(kind, full);
    return validated(full, yaml, source_name, no_types);
}

struct RegisteredTypes::Impl {
    TypeRegistry registry;

    const TypeRegistry::Entry& entry(TypeKind kind, const std::string& type) const {
        const TypeRegistry::Entry* e = registry.find(kind, type);
        if (!e) throw std::invalid_argument(registry.unknown_type_message(kind, type));
        return *e;
    }
    template <class T>
    std::unique_ptr<T> make(TypeKind kind, const std::string& type, const std::string& yaml) const {
        const TypeRegistry::Entry& e = entry(kind, type);
        return std::get<Factory<T>>(e.factory)(validated(e.schema, yaml, "<test>", registry));
    }
};

RegisteredTypes::RegisteredTypes(void (*register_plugin)(Registry&)) : impl_(std::make_unique<Impl>()) {
    impl_->registry.set_current_provider("the plugin under test", "<test>");
    register_plugin(impl_->registry);
}

RegisteredTypes::~RegisteredTypes() = default;

Parameters RegisteredTypes::parameters(TypeKind kind, const std::string& type, const std::string& yaml,
                                       const std::string& source_name) const {
    return validated(impl_->entry(kind, type).schema, yaml, source_name, impl_->registry);
}

std::unique_ptr<Force> RegisteredTypes::make_force(const std::string& type, const std::string& yaml) const {
    return impl_->make<Force>(TypeKind::force, type, yaml);
}
std::unique_ptr<Element> RegisteredTypes::make_element(const std::string& type, const std::string& yaml) const {
    return impl_->make<Element>(TypeKind::element, type, yaml);
}
std::unique_ptr<Controller> RegisteredTypes::make_controller(const std::string& type, const std::string& yaml) const {
    return impl_->make<Controller>(TypeKind::controller, type, yaml);
}
std::unique_ptr<Observer> RegisteredTypes::make_observer(const std::string& type, const std::string& yaml) const {
    return impl_->make<Observer>(TypeKind::observer, type, yaml);
}

}  // namespace soma::testing
