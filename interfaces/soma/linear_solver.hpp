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
    bool symmetric_indefinite = false;
    bool unsymmetric = false;  ///< false: only one triangle is read
    bool iterative = false;
    bool distributed = false;
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
