#pragma once
/// \file cholmod_solver.hpp
/// \brief `cholmod`: SuiteSparse CHOLMOD through Eigen's CholmodSupport, supernodal for big
/// meshes (BLAS-3 dense kernels on the supernodes), simplicial for small ones.

#include "solver_common.hpp"

#include "soma/linear_solver.hpp"

#include <memory>

namespace soma::eigen_solvers {

/// \brief Which CHOLMOD factorization to compute.
enum class CholmodMode {
    automatic,   ///< CHOLMOD picks: supernodal LL^T when flops / nnz(L) >= 40 (3D meshes), else simplicial LDL^T
    simplicial,  ///< simplicial LDL^T (handles quasi-definite matrices)
    supernodal,  ///< supernodal LL^T (SPD only)
};

/// \brief Settings of the cholmod solver.
struct CholmodSettings {
    CholmodMode mode = CholmodMode::automatic;
};

/// \brief Sparse Cholesky by CHOLMOD reading the lower triangle. The fill-reducing ordering
/// (CHOLMOD's default: AMD, plus METIS when AMD's fill is large) and the supernode structure are
/// computed once in analyze(). solve() uses cholmod_solve2 with workspaces kept between calls,
/// so repeated solves do not allocate.
class CholmodSolver final : public LinearSolver {
public:
    /// \brief Builds the solver from plain settings.
    explicit CholmodSolver(const CholmodSettings& settings = {});
    ~CholmodSolver() override;
    CholmodSolver(const CholmodSolver&) = delete;
    CholmodSolver& operator=(const CholmodSolver&) = delete;

    LinearSolverCapabilities capabilities() const override;
    void analyze(const SparseMatrix& pattern) override;
    bool factorize(const SparseMatrix& matrix) override;
    bool solve(const VectorX& rhs, VectorX& solution) override;
    std::string last_error() const override { return error_; }

    /// \brief True when the current factor is supernodal (for tests and diagnostics).
    bool is_supernodal() const;

private:
    struct Impl;  // keeps cholmod.h out of this header
    std::unique_ptr<Impl> impl_;
    CholmodSettings settings_;
    AnalyzedShape shape_;
    Index factorized_size_ = -1;
    std::string analysis_error_;  ///< non-empty when analyze() failed (e.g. out of memory)
    std::string error_;
};

}  // namespace soma::eigen_solvers
