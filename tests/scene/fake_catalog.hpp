#pragma once
// A two-type catalog (element `rod`, force `drag`) and a root schema that uses every ParamType,
// shared by the scene-input tests.
#include "scene_validation.hpp"
#include "string_distance.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace soma::testing_scene {

inline ParameterSchema rod_schema() {
    ParameterSchema rod("rod", "A test rod element.");
    rod.string("name", "name other blocks use to refer to this element").require();
    rod.integer("nodes", "number of nodes").require().min_value(2);
    rod.real("length", "rest length").unit("m").fallback(1.0).positive();
    rod.string("mesh", "optional mesh file, relative to the scene").fallback(std::string());
    ParameterSchema material("material", "Linear elastic material.");
    material.real("youngs_modulus", "Young's modulus").unit("Pa").require().positive();
    material.real("density", "mass density").unit("kg/m^3").fallback(1000.0).non_negative();
    material.real("poisson_ratio", "Poisson's ratio").fallback(0.3).range(-1.0, 0.5).below(0.5);
    rod.map("material", "bulk material", std::move(material)).require();
    return rod;
}

inline ParameterSchema drag_schema() {
    ParameterSchema drag("drag", "Linear viscous drag.");
    drag.real("coefficient", "drag coefficient").unit("N*s/m").fallback(1.0).non_negative();
    return drag;
}

inline ParameterSchema root_schema() {
    ParameterSchema root("scene", "A test scene.");
    root.typed_list("elements", "the bodies", TypeKind::element).require();
    ParameterSchema integrator("integrator", "Time stepping.");
    integrator.real("dt", "time step").unit("s").require().positive();
    integrator.string("method", "time integration scheme")
        .one_of_strings({"implicit_euler", "explicit_euler"})
        .fallback(std::string("implicit_euler"));
    integrator.integer("max_iterations", "Newton iterations per step").range(1, 1000).fallback(20L);
    root.map("integrator", "time integration", std::move(integrator));
    root.vec3("gravity", "gravitational acceleration").unit("m/s^2").fallback(Vec3(0, 0, -9.81));
    ParameterSchema direct("direct", "Sparse direct factorisation.");
    direct.string("ordering", "fill-reducing ordering").fallback(std::string("amd"));
    ParameterSchema iterative("iterative", "Preconditioned conjugate gradients.");
    iterative.real("tolerance", "relative residual tolerance").positive().fallback(1e-8);
    root.one_of("solver", "linear solver", {direct, iterative}).fallback(std::string("direct"));
    root.free_map("petsc_options", "options passed to PETSc unchecked");
    ParameterSchema output("output", "One output file.");
    output.string("file", "output file").require();
    output.integer("every", "write every N steps").min_value(1).fallback(1L);
    root.map_list("outputs", "output files", std::move(output));
    root.typed_list("forces", "external forces", TypeKind::force);
    root.typed("contact", "contact model (a force)", TypeKind::force).fallback(std::string("drag"));
    root.real_list("weights", "three blending weights").exact_size(3).range(0.0, 1.0);
    root.string_list("tags", "free labels");
    root.integer_list("fixed_nodes", "nodes held in place");
    root.boolean("verbose", "print every Newton iteration").fallback(false);
    return root;
}

/// Knows `rod` (element) and `drag` (force).
class FakeCatalog : public TypeCatalog {
public:
    FakeCatalog() : rod_(rod_schema()), drag_(drag_schema()) {}
    const ParameterSchema* find_schema(TypeKind kind, const std::string& type) const override {
        if (kind == TypeKind::element && type == "rod") return &rod_;
        if (kind == TypeKind::force && type == "drag") return &drag_;
        return nullptr;
    }
    std::string unknown_type_message(TypeKind kind, const std::string& type) const override {
        std::vector<std::string> known = kind == TypeKind::element ? std::vector<std::string>{"rod"}
                                                                   : std::vector<std::string>{"drag"};
        std::string message = std::string("unknown ") + to_string(kind) + " type '" + type + "'";
        for (const auto& name : closest_names(type, known)) message += "; did you mean '" + name + "'?";
        return message;
    }

private:
    ParameterSchema rod_;
    ParameterSchema drag_;
};

/// The error lines of a scene given as text (named scene.yaml).
inline std::vector<std::string> errors_of(const std::string& text) {
    static const FakeCatalog catalog;
    const SceneDocument scene = load_scene_text(text, "scene.yaml");
    std::vector<std::string> lines;
    for (const auto& e : validate_scene(scene, root_schema(), catalog)) lines.push_back(e.str());
    return lines;
}

inline std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

}  // namespace soma::testing_scene
