// ParameterSchema: the declaration side of a type's parameters (builders and lookup).
// Documentation rendering lives in schema_docs.cpp.
#include "soma/parameters.hpp"

#include <algorithm>
#include <stdexcept>

namespace soma {

const char* to_string(TypeKind kind) {
    switch (kind) {
        case TypeKind::element: return "element";
        case TypeKind::force: return "force";
        case TypeKind::constraint: return "constraint";
        case TypeKind::integrator: return "integrator";
        case TypeKind::linear_solver: return "linear_solver";
        case TypeKind::observer: return "output";
        case TypeKind::controller: return "controller";
        case TypeKind::importer: return "import";
    }
    return "?";
}

const char* to_string(ParamType type) {
    switch (type) {
        case ParamType::real: return "real";
        case ParamType::integer: return "integer";
        case ParamType::boolean: return "boolean";
        case ParamType::string: return "string";
        case ParamType::vec3: return "vector of 3 reals";
        case ParamType::real_list: return "list of reals";
        case ParamType::integer_list: return "list of integers";
        case ParamType::string_list: return "list of strings";
        case ParamType::map: return "map";
        case ParamType::one_of: return "one of";
        case ParamType::map_list: return "list of maps";
        case ParamType::free_map: return "map of key: value";
        case ParamType::typed: return "typed block";
        case ParamType::typed_list: return "list of typed blocks";
    }
    return "?";
}

const ParamSpec* ParameterSchema::find(const std::string& key) const {
    auto it = std::find_if(params_.begin(), params_.end(), [&](const ParamSpec& p) { return p.name == key; });
    return it == params_.end() ? nullptr : &*it;
}

ParamSpec& ParameterSchema::add(const std::string& name, ParamType type, const std::string& doc) {
    if (find(name)) throw std::logic_error("schema '" + name_ + "' declares '" + name + "' twice");
    ParamSpec spec;
    spec.name = name;
    spec.type = type;
    spec.doc = doc;
    params_.push_back(std::move(spec));
    return params_.back();
}

ParamSpec& ParameterSchema::real(const std::string& n, const std::string& d) { return add(n, ParamType::real, d); }
ParamSpec& ParameterSchema::integer(const std::string& n, const std::string& d) { return add(n, ParamType::integer, d); }
ParamSpec& ParameterSchema::boolean(const std::string& n, const std::string& d) { return add(n, ParamType::boolean, d); }
ParamSpec& ParameterSchema::string(const std::string& n, const std::string& d) { return add(n, ParamType::string, d); }
ParamSpec& ParameterSchema::vec3(const std::string& n, const std::string& d) { return add(n, ParamType::vec3, d); }
ParamSpec& ParameterSchema::real_list(const std::string& n, const std::string& d) { return add(n, ParamType::real_list, d); }
ParamSpec& ParameterSchema::integer_list(const std::string& n, const std::string& d) { return add(n, ParamType::integer_list, d); }
ParamSpec& ParameterSchema::string_list(const std::string& n, const std::string& d) { return add(n, ParamType::string_list, d); }
ParamSpec& ParameterSchema::free_map(const std::string& n, const std::string& d) { return add(n, ParamType::free_map, d); }

ParamSpec& ParameterSchema::map(const std::string& n, const std::string& d, ParameterSchema sub) {
    ParamSpec& spec = add(n, ParamType::map, d);
    if (sub.name_.empty()) sub.name_ = n;
    spec.sub = std::make_shared<ParameterSchema>(std::move(sub));
    return spec;
}

ParamSpec& ParameterSchema::map_list(const std::string& n, const std::string& d, ParameterSchema sub) {
    ParamSpec& spec = add(n, ParamType::map_list, d);
    if (sub.name_.empty()) sub.name_ = n;
    spec.sub = std::make_shared<ParameterSchema>(std::move(sub));
    return spec;
}

ParamSpec& ParameterSchema::one_of(const std::string& n, const std::string& d, std::vector<ParameterSchema> alternatives) {
    ParamSpec& spec = add(n, ParamType::one_of, d);
    for (auto& alt : alternatives) {
        if (alt.name_.empty()) throw std::logic_error("one_of '" + n + "': every alternative needs a name");
        spec.alternatives.push_back(std::make_shared<ParameterSchema>(std::move(alt)));
    }
    return spec;
}

ParamSpec& ParameterSchema::typed(const std::string& n, const std::string& d, TypeKind kind) {
    ParamSpec& spec = add(n, ParamType::typed, d);
    spec.kind = kind;
    return spec;
}

ParamSpec& ParameterSchema::typed_list(const std::string& n, const std::string& d, TypeKind kind) {
    ParamSpec& spec = add(n, ParamType::typed_list, d);
    spec.kind = kind;
    return spec;
}

}  // namespace soma
