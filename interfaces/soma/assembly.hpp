#pragma once
/// \file assembly.hpp
/// \brief The residual/Jacobian contract (ARCHITECTURE.md section 3) and the cached-pattern
/// assembly every element and force writes into.
///
/// All models meet in one residual
///
///     F(t, q, v, a) = M(q) a + c(q, v) - f(t, q, v) = 0
///
/// and one combined Jacobian J = c_q dF/dq + c_v dF/dv + c_a dF/da, whose coefficients the
/// integrator chooses. An energy term adds grad E to F and c_q * Hess E to J; a velocity-
/// dependent force adds -f to F and -c_v df/dv to J; inertia adds M a and c_a M.
///
/// Sparsity: at setup each contributor declares its *stencils* (the ordered global DOFs of one
/// spring, node or element). The kernel builds the free-DOF matrix pattern and a scatter map
/// once; in a Newton iteration a contributor adds a dense local vector and matrix per stencil,
/// which the inline functions below scatter with no search and no allocation.

#include "soma/api.hpp"
#include "soma/types.hpp"

#include <cmath>
#include <span>

namespace soma {

/// Identifies one declared stencil.
using StencilId = Index;

/// The integrator's weights of the Jacobian's three partial derivatives.
struct JacobianCoefficients {
    double c_q = 1.0;  ///< weight of dF/dq
    double c_v = 0.0;  ///< weight of dF/dv
    double c_a = 0.0;  ///< weight of dF/da
};

/// (t, q, v, a): the state of every DOF. q and v have the same size (see docs/architecture.md:
/// manifold bodies keep a reference orientation updated at commit, like rod frames).
struct State {
    double t = 0.0;
    VectorX q;
    VectorX v;
    VectorX a;
};

/// Everything a contributor needs to evaluate its part of F and J at one Newton iterate.
struct EvalContext {
    double t = 0.0;          ///< time of the evaluation point
    double dt = 0.0;         ///< current step size (0 in a pure evaluation)
    double load_factor = 1.0;  ///< statics load ramp; applied loads (gravity, point loads) scale by it
    const VectorX* q = nullptr;
    const VectorX* v = nullptr;
    const VectorX* a = nullptr;
    const State* step_start = nullptr;  ///< the committed state the step started from
    JacobianCoefficients coefficients;
};

/// Collects the stencils of all contributors at setup (kernel-implemented).
class SOMA_API PatternBuilder {
public:
    virtual ~PatternBuilder();
    /// Declares a stencil over global DOFs (in the order local vectors will use).
    virtual StencilId add_stencil(std::span<const Index> global_dofs) = 0;
};

/// The write target of one evaluation. Plain data with inline scatter: the kernel fills the
/// pointers from its cached pattern; contributors call add_residual / add_jacobian with the
/// weights of EvalContext::coefficients (the one source of the Jacobian coefficients).
class SOMA_API Assembly {
public:
    // ---- kernel-owned views (set once per pattern, pointers refreshed per evaluation) ----
    double* residual = nullptr;               ///< full global residual F
    double* jacobian_values = nullptr;        ///< free-DOF CSC values; null when not requested
    const Index* stencil_dof_begin = nullptr;  ///< stencil s owns dofs[begin[s] .. begin[s+1])
    const Index* stencil_dofs = nullptr;       ///< global DOF indices, flat
    const Index* stencil_scatter_begin = nullptr;  ///< stencil s's n*n map starts here
    const Index* scatter = nullptr;            ///< CSC value position of (row r, col c) at c*n+r, -1 if not free
    /// The force scale of each row of F: the sum of the absolute values of the terms added to
    /// it (inertia, each element's and force's part), so that |F_i| can be judged against the
    /// size of what cancelled in it (Newton's balance test, newton.hpp). Null when not wanted.
    /// add_residual and add_lumped_inertia accumulate it; a contributor writing `residual`
    /// directly adds |its term| here too.
    double* residual_scale = nullptr;

    bool wants_jacobian() const { return jacobian_values != nullptr; }
    int stencil_size(StencilId s) const { return stencil_dof_begin[s + 1] - stencil_dof_begin[s]; }
    const Index* dofs(StencilId s) const { return stencil_dofs + stencil_dof_begin[s]; }

    /// F[stencil] += f
    template <class Derived>
    void add_residual(StencilId s, const Eigen::MatrixBase<Derived>& f) {
        const Index* d = dofs(s);
        for (Index i = 0; i < f.size(); ++i) residual[d[i]] += f(i);
        if (residual_scale)
            for (Index i = 0; i < f.size(); ++i) residual_scale[d[i]] += std::abs(f(i));
    }

    /// F[stencil] += f, for a term f that is itself a sum of terms that cancel: \p scale holds
    /// the sum of their absolute values per row, the row's force scale (not |f|).
    template <class DerivedF, class DerivedS>
    void add_residual(StencilId s, const Eigen::MatrixBase<DerivedF>& f, const Eigen::MatrixBase<DerivedS>& scale) {
        const Index* d = dofs(s);
        for (Index i = 0; i < f.size(); ++i) residual[d[i]] += f(i);
        if (residual_scale)
            for (Index i = 0; i < f.size(); ++i) residual_scale[d[i]] += scale(i);
    }

    /// J[stencil, stencil] += weight * K (K is n x n in stencil order)
    template <class Derived>
    void add_jacobian(StencilId s, const Eigen::MatrixBase<Derived>& K, double weight) {
        if (!jacobian_values || weight == 0.0) return;
        const Index n = static_cast<Index>(K.rows());
        const Index* map = scatter + stencil_scatter_begin[s];
        for (Index c = 0; c < n; ++c)
            for (Index r = 0; r < n; ++r) {
                const Index pos = map[c * n + r];
                if (pos >= 0) jacobian_values[pos] += weight * K(r, c);
            }
    }

    /// Adds the same weight * value to the diagonal of every DOF of the stencil (mass, drag).
    void add_jacobian_diagonal(StencilId s, double weight_times_value) {
        if (!jacobian_values || weight_times_value == 0.0) return;
        const Index n = stencil_size(s);
        const Index* map = scatter + stencil_scatter_begin[s];
        for (Index i = 0; i < n; ++i) {
            const Index pos = map[i * n + i];
            if (pos >= 0) jacobian_values[pos] += weight_times_value;
        }
    }
};

}  // namespace soma
