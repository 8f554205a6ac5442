#pragma once
/// \file registry.hpp
/// \brief Where a plugin's entry point registers its types (kernel-implemented).

#include "soma/api.hpp"
#include "soma/parameters.hpp"

#include <functional>
#include <memory>

namespace soma {

class Element;
class Force;
class Constraint;
class Integrator;
class LinearSolver;
class Observer;
class Controller;

template <class T>
using Factory = std::function<std::unique_ptr<T>(const Parameters&)>;

/// What an import type does with its block of the `imports:` list: it returns YAML text of a map
/// whose keys are among `elements`, `constraints`, `forces`, `controllers` and `outputs`, each a
/// list of blocks that the kernel appends to the scene's list of that name before validating the
/// scene. The blocks are validated like written ones; an error in them is located at the line of
/// this text (`soma imports SCENE` prints it). Problems with the block or the files it reads are
/// reported by throwing InputError (Parameters::fail).
using SceneImport = std::function<std::string(const Parameters&)>;

/// Called from `soma_register_plugin`. Each type name must be unique across all loaded
/// plugins; a duplicate is refused with both providers named.
class SOMA_API Registry {
public:
    virtual ~Registry();
    virtual void add_element(ParameterSchema schema, Factory<Element> factory) = 0;
    virtual void add_force(ParameterSchema schema, Factory<Force> factory) = 0;
    virtual void add_integrator(ParameterSchema schema, Factory<Integrator> factory) = 0;
    virtual void add_linear_solver(ParameterSchema schema, Factory<LinearSolver> factory) = 0;
    virtual void add_observer(ParameterSchema schema, Factory<Observer> factory) = 0;
    virtual void add_controller(ParameterSchema schema, Factory<Controller> factory) = 0;
    virtual void add_constraint(ParameterSchema schema, Factory<Constraint> factory) = 0;
    /// A type of the scene's `imports:` list (a URDF robot, ...): it writes scene blocks.
    virtual void add_importer(ParameterSchema schema, SceneImport import) = 0;
};

}  // namespace soma
