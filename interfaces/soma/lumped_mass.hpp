#pragma once
/// \file lumped_mass.hpp
/// \brief The inertia of a lumped (diagonal) mass, the M a term of the residual (assembly.hpp):
///
///     F[s] += m a[s],    J[s, s] += c_a m I
///
/// for every DOF of a stencil s that carries the mass m: a node's three positions with the
/// node's mass, an edge's twist angle with its polar moment of inertia. The discrete rods and
/// shells of MAT-DiSMech (Lahoti and Jawed) use this diagonal, lumped mass matrix. Elements
/// declare one stencil per lumped item and call these instead of writing the loop again.

#include "soma/assembly.hpp"

#include <cassert>
#include <cmath>
#include <span>

namespace soma {

/// \brief Whether \p context carries an acceleration: statics evaluates with none (v = a = 0),
/// and then the inertia has no residual (its Jacobian weight c_a is 0 there too).
inline bool has_acceleration(const EvalContext& context) {
    return context.a != nullptr && context.a->size() > 0;
}

/// \brief Adds the inertia of mass \p mass on every DOF of \p stencil: F += m a on the stencil's
/// DOFs and, when the Jacobian is wanted, c_a m on their diagonal. Allocates nothing.
/// \param[in] context  the evaluation point (its acceleration and c_a)
/// \param[in,out] assembly  where F and J are added
/// \param[in] stencil  a stencil over the DOFs that carry the mass (each gets m)
/// \param[in] mass  the lumped mass (kg), or moment of inertia (kg m^2) for an angle DOF
inline void add_lumped_inertia(const EvalContext& context, Assembly& assembly, StencilId stencil, double mass) {
    if (has_acceleration(context)) {
        const VectorX& a = *context.a;
        const Index* dofs = assembly.dofs(stencil);
        const int n = assembly.stencil_size(stencil);
        for (int i = 0; i < n; ++i) assembly.residual[dofs[i]] += mass * a[dofs[i]];
        if (assembly.residual_scale)
            for (int i = 0; i < n; ++i) assembly.residual_scale[dofs[i]] += std::abs(mass * a[dofs[i]]);
    }
    assembly.add_jacobian_diagonal(stencil, context.coefficients.c_a * mass);
}

/// \brief add_lumped_inertia for each stencil of \p stencils with the mass of the same index in
/// \p masses (one stencil per node, or per edge).
inline void add_lumped_inertia(const EvalContext& context, Assembly& assembly, std::span<const StencilId> stencils,
                               std::span<const double> masses) {
    assert(stencils.size() == masses.size());
    for (std::size_t i = 0; i < stencils.size(); ++i) add_lumped_inertia(context, assembly, stencils[i], masses[i]);
}

}  // namespace soma
