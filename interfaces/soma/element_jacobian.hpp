#pragma once
/// \file element_jacobian.hpp
/// \brief One element's Jacobian, evaluated by the kernel at a state a force chooses.
///
/// A force that needs another term's matrices (Rayleigh damping needs each element's mass M and
/// stiffness K) asks the scene for an ElementJacobian (SceneView::element_jacobian). It holds the
/// element's Jacobian as the dense blocks of the element's own stencils:
///
///     J_e = sum_b  P_b^T J_b P_b,     P_b selects the global DOFs block_dofs(b)
///
/// over *all* global DOFs, fixed and prescribed ones included (a product J_e u then sees the
/// motion of constrained DOFs too). evaluate() runs the element's add_residual_and_jacobian at
/// the given context into these blocks (the residual is discarded), so every element type works
/// unchanged and the blocks are exactly what the element assembles in a Newton iteration:
///
///  - the stiffness K = dF_e/dq at a configuration q: coefficients (1, 0, 0), v = a = 0;
///  - the mass M = dF_e/da: coefficients (0, 0, 1);
///  - alpha M + beta K in one evaluation: coefficients (beta, 0, alpha), v = a = 0.
///
/// K is the element's own internal (elastic) tangent: forces (gravity, contact, drag) are not
/// part of an element and are not included. With v = a = 0 the inertia and any velocity-
/// dependent internal term add nothing to dF/dq.
///
/// The blocks follow the element's pattern: block_count() and block_dofs() are valid once the
/// element has declared its pattern. The kernel declares elements before forces, so a force
/// reads them in its own declare_pattern (and again whenever declare_pattern is called).
/// evaluate() allocates nothing.

#include "soma/api.hpp"
#include "soma/assembly.hpp"

#include <span>

namespace soma {

/// The Jacobian blocks of one element (kernel-implemented; see the file comment).
class SOMA_API ElementJacobian {
public:
    virtual ~ElementJacobian();

    /// Number of blocks: one per stencil the element declared.
    virtual Index block_count() const = 0;
    /// Global DOFs of block b, in the order of its rows and columns.
    virtual std::span<const Index> block_dofs(Index b) const = 0;

    /// \brief Evaluates c_q dF_e/dq + c_v dF_e/dv + c_a dF_e/da of the element alone at \p context
    /// (its q, v, a, t and coefficients) into the blocks. Allocates nothing.
    virtual void evaluate(const EvalContext& context) = 0;

    /// Block b: n x n values, column-major, n = block_dofs(b).size(); valid after evaluate().
    virtual const double* block(Index b) const = 0;
};

}  // namespace soma
