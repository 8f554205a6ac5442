#pragma once
/// \file scene_view.hpp
/// \brief Read access to the built simulation: what forces bind to and observers record.

#include "soma/api.hpp"
#include "soma/assembly.hpp"

#include <memory>
#include <string>
#include <vector>

namespace soma {

class Constraint;

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
    /// Whether a global DOF is free (neither fixed nor prescribed). Boundary conditions are set
    /// before Element::connect(), so elements may ask there (a mid-edge shell holds the normals
    /// of edges whose xi is fixed). Default: every DOF is free (test scenes without boundary
    /// conditions).
    virtual bool dof_is_free(Index global_dof) const;
    /// Tells the user something found while binding that is not an error, e.g. which node a
    /// position chose. `soma check` and `soma run` print it as "note: <message>"; start the
    /// message with where it comes from (Parameters::location().str()). Default: discarded.
    virtual void note(const std::string& message) const;
    /// \brief The Jacobian blocks of one element of this scene, evaluated on request at a state
    /// the caller chooses (element_jacobian.hpp): how a force reads an element's stiffness or
    /// mass (Rayleigh damping). Call it in bind(). The kernel's scene provides it; the default
    /// throws std::logic_error (test scenes without assembly).
    virtual std::unique_ptr<ElementJacobian> element_jacobian(const Element& element) const;
    /// The scene's constraints, joints and contacts (for outputs: a CSV probe `statistic` of a
    /// contact constraint). Default: none (test scenes).
    virtual std::vector<const Constraint*> constraint_terms() const { return {}; }
};

}  // namespace soma
