#pragma once
/// \file scene_view.hpp
/// \brief Read access to the built simulation: what forces bind to and observers record.

#include "soma/api.hpp"
#include "soma/assembly.hpp"

#include <memory>
#include <string>
#include <vector>

namespace soma {

class Element;
class Contributor;
class ElementJacobian;

/// The kernel's simulation as forces (at bind time) and observers (every output step) see it.
class SOMA_API SceneView {
public:
    virtual ~SceneView();
    virtual const std::vector<Element*>& elements() const = 0;
    /// The element with this scene name, or nullptr.
    virtual Element* find_element(const std::string& name) const = 0;
    /// Every residual term: elements first, then forces, in scene order.
    virtual const std::vector<Contributor*>& contributors() const = 0;
    /// The current committed state.
    virtual const State& state() const = 0;
    /// Kinetic energy of all elements and potential energy of all terms at the current state.
    virtual double kinetic_energy() const = 0;
    virtual double potential_energy() const = 0;
    /// Potential energy of one contributor at the current state.
    virtual double potential_energy(const Contributor& term) const = 0;
    /// \brief The Jacobian blocks of one element of this scene, evaluated on request at a state
    /// the caller chooses (element_jacobian.hpp): how a force reads an element's stiffness or
    /// mass (Rayleigh damping). Call it in bind(). The kernel's scene provides it; the default
    /// throws std::logic_error (test scenes without assembly).
    virtual std::unique_ptr<ElementJacobian> element_jacobian(const Element& element) const;
};

}  // namespace soma
