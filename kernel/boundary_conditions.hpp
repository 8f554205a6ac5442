#pragma once
/// \file boundary_conditions.hpp
/// \brief Fixed and prescribed DOFs: built from the elements' `fixed` and `prescribed` entries
/// (and their own holds, such as a planar rod's), eliminated from the Newton unknowns through
/// the DOF map, and imposed exactly on every solve and every committed state.

#include "dof_map.hpp"
#include "expression.hpp"

#include "soma/element.hpp"
#include "soma/parameters.hpp"
#include "soma/system.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace soma {

class BoundaryConditions {
public:
    /// \brief Reads every element's holds, `fixed` and `prescribed` entries, marks the DOFs in
    /// \p dofs (then numbers the free ones) and keeps what to impose. \p q0 is the initial q
    /// (selections by region and prescribed displacements are relative to it); \p on_manifold
    /// says whether a global DOF is a rotation's tangent (which cannot be prescribed).
    /// Agreeing selections are accepted; conflicting ones are located errors naming both entries.
    void build(const std::vector<std::unique_ptr<Element>>& elements, const std::vector<Parameters>& element_parameters,
               const VectorX& q0, const std::function<bool(Index)>& on_manifold, DofMap& dofs);

    /// Sets the velocity and acceleration of prescribed DOFs in the initial state (at state.t).
    void start(State& state) const;
    /// \brief Sets x's fixed and prescribed entries so that the step's q (or, in an
    /// acceleration-only solve, its a) takes the constrained value; \p committed is the step start.
    void set_unknowns(const AffineStep& step, const VectorX& committed, VectorX& x) const;
    /// Imposes the exact constrained q, v, a on a state about to be committed at next.t.
    void impose(State& next) const;

private:
    struct Prescribed {
        Index dof;                 ///< global DOF
        double initial;            ///< its value at t = start
        std::size_t expression;    ///< index into expressions_
    };
    double value(const Prescribed& p, double t) const;
    /// First (order 1) or second (order 2) time derivative of a prescribed DOF's motion.
    double rate(const Prescribed& p, double t, int order) const;

    std::vector<Index> fixed_;
    std::vector<Prescribed> prescribed_;
    std::vector<TimeExpression> expressions_;
};

}  // namespace soma
