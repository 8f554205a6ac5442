#pragma once
/// \file controller.hpp
/// \brief Time-varying inputs: natural curvature and twist of rods, natural hinge angles of
/// shells, tendon tensions (MAT-DiSMech §6.1, "Actuation").
///
/// A controller drives an element's actuation channels (element.hpp). The kernel calls
/// apply(t) at the start of every Newton solve with the time at which that solve evaluates the
/// forces (t + h for implicit Euler and Newmark, t + h/2 for the implicit midpoint rule), so an
/// actuation is consistent with the integrator.

#include "soma/api.hpp"

namespace soma {

class CheckpointWriter;
class CheckpointReader;

class SceneView;

class SOMA_API Controller {
public:
    virtual ~Controller();
    /// Finds the elements and channels it drives; report bad references with Parameters::fail.
    virtual void bind(const SceneView& scene) = 0;
    /// Checkpoint hooks (checkpoint.hpp): the state this controller carries from one step to the
    /// next beyond q, v and a (a filter's memory; a pure function of t saves nothing). The defaults save nothing.
    virtual void save_checkpoint(CheckpointWriter& out) const;
    virtual void restore_checkpoint(CheckpointReader& in);
    /// Sets the driven quantities for evaluation time t. Must not allocate.
    virtual void apply(double t) = 0;
};

}  // namespace soma
