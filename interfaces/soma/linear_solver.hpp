#pragma once
/// \file linear_solver.hpp
/// \brief Sparse linear solvers: analyze a pattern once, factorize values, solve.

#include "soma/api.hpp"
#include "soma/types.hpp"

#include <string>

namespace soma {

/// What a solver can handle.
struct LinearSolverCapabilities {
    bool symmetric_positive_definite = false;
    /// Symmetric indefinite matrices with nonzero pivots, e.g. the quasi-definite KKT matrix of
    /// compliant constraints [[J, -G^T], [-G, -alpha/c_q]] with alpha > 0.
    bool symmetric_indefinite = false;
    /// True: unsymmetric matrices are solved exactly. False: the solver assumes symmetry (a
    /// Cholesky-type factorization reads one triangle; a symmetric Krylov method reads both but
    /// treats them as transposes), so an unsymmetric Jacobian gives inexact Newton steps.
    bool unsymmetric = false;
    bool iterative = false;
    bool distributed = false;
    /// The saddle-point (KKT) matrix of hard constraints, [[J, -G^T], [-G, 0]]: a zero diagonal
    /// block on the multiplier rows. Needs pivoting (LU with partial pivoting) or a method that
    /// never divides by a diagonal entry (GMRES, BiCGSTAB with a preconditioner that tolerates a
    /// zero diagonal). Factorizations without pivoting (LDL^T, LL^T, ILU(0), CG) do not: a scene
    /// with a hard constraint (compliance 0) and a solver without this flag is refused.
    bool saddle_point = false;
};

/// Assembly is the kernel's; a solver only solves J x = b on the free DOFs.
class SOMA_API LinearSolver {
public:
    virtual ~LinearSolver();
    virtual LinearSolverCapabilities capabilities() const = 0;
    /// Symbolic analysis (ordering) of a pattern; called again only when the pattern changes.
    virtual void analyze(const SparseMatrix& pattern) = 0;
    /// Numeric factorization (or preconditioner setup). False on failure; see last_error().
    virtual bool factorize(const SparseMatrix& matrix) = 0;
    /// Solves with the last factorization. False on failure (e.g. no convergence).
    virtual bool solve(const VectorX& rhs, VectorX& solution) = 0;
    /// Why the last factorize/solve failed.
    virtual std::string last_error() const = 0;
    /// Iterations of the last solve (0 for direct solvers).
    virtual int last_iterations() const { return 0; }
};

}  // namespace soma
