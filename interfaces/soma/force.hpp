#pragma once
/// \file force.hpp
/// \brief An external or interaction force acting on elements through their geometry.

#include "soma/api.hpp"
#include "soma/contributor.hpp"
#include "soma/parameters.hpp"

namespace soma {

class SceneView;

/// Gravity, drag, floor contact, point loads, contact, user forces. Constructed from its
/// validated parameters, then bound to the built elements before declare_pattern().
class SOMA_API Force : public Contributor {
public:
    ~Force() override;
    /// Finds the elements and points it acts on. Report bad references with Parameters::fail.
    virtual void bind(const SceneView& scene) = 0;
};

}  // namespace soma
