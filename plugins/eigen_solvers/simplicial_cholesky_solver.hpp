#pragma once
/// \file simplicial_cholesky_solver.hpp
/// \brief `eigen_ldlt` (the default direct solver) and `eigen_llt`: Eigen's simplicial
/// Cholesky factorizations with AMD ordering, symbolic analysis reused across factorizations.

#include "preordered_cholesky.hpp"
#include "solver_common.hpp"

#include "soma/linear_solver.hpp"

#include <Eigen/SparseCholesky>

namespace soma::eigen_solvers {

/// \brief Sparse LDL^T (no pivoting), reading the lower triangle only.
///
/// Factorizes P J P^T = L D L^T with P the AMD fill-reducing ordering computed once in analyze().
/// Without pivoting it handles SPD and quasi-definite matrices (regularised saddle points, where
/// every leading block of the ordered matrix is non-singular); a pivot that is exactly zero is
/// reported with the column it occurred at. A nearly zero pivot is not detected (Eigen does not
/// test for it): the Newton line search sees the resulting poor direction.
class SimplicialLdltSolver final : public LinearSolver {
public:
    LinearSolverCapabilities capabilities() const override;
    void analyze(const SparseMatrix& pattern) override;
    bool factorize(const SparseMatrix& matrix) override;
    bool solve(const VectorX& rhs, VectorX& solution) override;
    std::string last_error() const override { return error_; }

private:
    PreorderedCholesky<Eigen::SimplicialLDLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<Index>>, true> ldlt_;
    AnalyzedShape shape_;
    Index factorized_size_ = -1;
    std::string error_;
};

/// \brief Sparse Cholesky L L^T, reading the lower triangle only; SPD matrices only.
///
/// Fails (factorize() false) on the first non-positive pivot, which makes it a cheap
/// positive-definiteness test as well as a solver.
class SimplicialLltSolver final : public LinearSolver {
public:
    LinearSolverCapabilities capabilities() const override;
    void analyze(const SparseMatrix& pattern) override;
    bool factorize(const SparseMatrix& matrix) override;
    bool solve(const VectorX& rhs, VectorX& solution) override;
    std::string last_error() const override { return error_; }

private:
    PreorderedCholesky<Eigen::SimplicialLLT<SparseMatrix, Eigen::Lower, Eigen::AMDOrdering<Index>>, false> llt_;
    AnalyzedShape shape_;
    Index factorized_size_ = -1;
    std::string error_;
};

}  // namespace soma::eigen_solvers
