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
};

}  // namespace soma
