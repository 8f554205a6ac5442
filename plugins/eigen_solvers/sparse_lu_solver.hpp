#pragma once
/// \file sparse_lu_solver.hpp
/// \brief `eigen_lu`: Eigen's supernodal SparseLU with COLAMD column ordering, for unsymmetric
/// Jacobians (follower loads, friction, non-conservative forces).

#include "solver_common.hpp"

#include "soma/linear_solver.hpp"

#include <Eigen/SparseLU>

namespace soma::eigen_solvers {

/// \brief Settings of eigen_lu (translated from the scene's parameters in registration.cpp).
struct SparseLuSettings {
    /// Threshold partial pivoting: a diagonal entry is kept as pivot when |a_jj| >=
    /// threshold * max_i |a_ij|. 1 is classic partial pivoting (most stable); smaller values
    /// keep more diagonal pivots and so less fill.
    double pivot_threshold = 1.0;
};

/// \brief P_r J P_c = L U with COLAMD column ordering computed once in analyze().
class SparseLuSolver final : public LinearSolver {
public:
    /// \brief Builds the solver from plain settings.
    explicit SparseLuSolver(const SparseLuSettings& settings = {});
    LinearSolverCapabilities capabilities() const override;
    void analyze(const SparseMatrix& pattern) override;
    bool factorize(const SparseMatrix& matrix) override;
    bool solve(const VectorX& rhs, VectorX& solution) override;
    std::string last_error() const override { return error_; }

private:
    Eigen::SparseLU<SparseMatrix, Eigen::COLAMDOrdering<Index>> lu_;
    AnalyzedShape shape_;
    Index factorized_size_ = -1;
    std::string error_;
};

}  // namespace soma::eigen_solvers
