#pragma once
/// \file iterative_solvers.hpp
/// \brief `eigen_cg` and `eigen_bicgstab`: Eigen's preconditioned Krylov solvers.
///
/// Both stop when the relative residual ||b - J x|| / ||b|| falls below `tolerance`, starting
/// from x = 0 (a Newton increment has no better guess). analyze() runs the preconditioner's
/// symbolic part (the AMD ordering of incomplete Cholesky, the ordering of ILUT); factorize()
/// recomputes its numeric part.

#include "solver_common.hpp"

#include "soma/linear_solver.hpp"

#include <memory>
#include <string>

namespace soma::eigen_solvers {

/// \brief The Eigen solver behind an EigenKrylovSolver, with its preconditioner type erased.
class KrylovBackend {
public:
    virtual ~KrylovBackend() = default;
    /// \brief Symbolic setup on \p matrix (kept by reference: it must stay alive).
    virtual void analyze(const SparseMatrix& matrix) = 0;
    /// \brief Numeric preconditioner setup; returns the preconditioner's status.
    virtual Eigen::ComputationInfo factorize(const SparseMatrix& matrix) = 0;
    /// \brief Solves from x = 0; returns the solver's status.
    virtual Eigen::ComputationInfo solve(const VectorX& rhs, VectorX& solution) = 0;
    /// \brief Iterations of the last solve.
    virtual int iterations() const = 0;
    /// \brief Relative residual of the last solve.
    virtual double relative_residual() const = 0;
};

/// \brief Common part of the Krylov solvers: keeps its own copy of the matrix, because Eigen's
/// iterative solvers hold a reference to the matrix until solve() and the kernel's matrix need not
/// outlive factorize(). The copy reuses its storage while the pattern's size is unchanged.
class EigenKrylovSolver : public LinearSolver {
public:
    void analyze(const SparseMatrix& pattern) override;
    bool factorize(const SparseMatrix& matrix) override;
    bool solve(const VectorX& rhs, VectorX& solution) override;
    std::string last_error() const override { return error_; }
    int last_iterations() const override { return iterations_; }

protected:
    /// \brief \p method names the method in messages ("CG"), \p type_name the registered type.
    EigenKrylovSolver(std::unique_ptr<KrylovBackend> backend, std::string method,
                      std::string type_name, std::string preconditioner, double tolerance);

private:
    std::unique_ptr<KrylovBackend> backend_;
    std::string method_;
    std::string type_name_;
    std::string preconditioner_;
    double tolerance_;
    SparseMatrix matrix_;
    AnalyzedShape shape_;
    Index factorized_size_ = -1;
    int iterations_ = 0;
    std::string error_;
};

/// \brief Preconditioners offered with CG.
enum class CgPreconditioner {
    diagonal,             ///< Jacobi: cheap, robust, weak on stiff rods/shells
    incomplete_cholesky,  ///< IC with AMD ordering and automatic diagonal shift: far fewer iterations
};

/// \brief Settings of eigen_cg.
struct ConjugateGradientSettings {
    CgPreconditioner preconditioner = CgPreconditioner::diagonal;
    double tolerance = 1e-10;  ///< relative residual ||b - J x|| / ||b||
    int max_iterations = 1000;
};

/// \brief Preconditioned conjugate gradient on the full symmetric matrix (both triangles are read,
/// so the matrix-vector product needs no transposed pass). SPD matrices only.
class ConjugateGradientSolver final : public EigenKrylovSolver {
public:
    /// \brief Builds the solver from plain settings.
    explicit ConjugateGradientSolver(const ConjugateGradientSettings& settings = {});
    LinearSolverCapabilities capabilities() const override;
};

/// \brief Preconditioners offered with BiCGSTAB.
enum class BicgstabPreconditioner {
    diagonal,  ///< Jacobi
    ilut,      ///< incomplete LU with threshold dropping (Saad's ILUT)
};

/// \brief Settings of eigen_bicgstab.
struct BicgstabSettings {
    BicgstabPreconditioner preconditioner = BicgstabPreconditioner::ilut;
    double tolerance = 1e-10;  ///< relative residual ||b - J x|| / ||b||
    int max_iterations = 1000;
    int fill_factor = 10;          ///< ILUT: at most fill_factor * (nnz of row) kept per row of L and U
    double drop_tolerance = 1e-4;  ///< ILUT: entries below drop_tolerance * ||row|| are dropped
};

/// \brief Stabilised bi-conjugate gradient for general (unsymmetric) matrices.
class BicgstabSolver final : public EigenKrylovSolver {
public:
    /// \brief Builds the solver from plain settings.
    explicit BicgstabSolver(const BicgstabSettings& settings = {});
    LinearSolverCapabilities capabilities() const override;
};

}  // namespace soma::eigen_solvers
