#pragma once
/// \file petsc_ksp_solver.hpp
/// \brief `petsc`: a PETSc KSP (Krylov method + preconditioner, or a direct factorization with
/// ksp_type preonly) on a sequential AIJ copy of the Jacobian.
///
/// Data flow per pattern and per Newton iteration:
///  - analyze(): builds the CSR structure of the CSC pattern, creates a MatSeqAIJ with exact
///    preallocation (MatSeqAIJSetPreallocationCSR), and the map from each CSC value index to its
///    CSR slot. The KSP is reset so its preconditioner redoes its symbolic phase once.
///  - factorize(): writes the values through MatSeqAIJGetArray with that map (one gather, no
///    MatSetValues), then KSPSetOperators + KSPSetUp. The Mat object and its nonzero pattern are
///    unchanged, so PCSetUp sees SAME_NONZERO_PATTERN and factor-type preconditioners (icc, ilu,
///    cholesky, lu) only refactor numerically, reusing ordering and symbolic factorization
///    (checked by the tests through PETSc's event counters).
///  - solve(): Vecs wrap the Eigen arrays (VecPlaceArray): no copies.

#include "petsc_settings.hpp"

#include "soma/linear_solver.hpp"

#include <petscksp.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace soma::petsc_solver {

/// \brief PETSc KSP behind the LinearSolver interface. Sequential (PETSC_COMM_SELF).
class PetscKspSolver final : public LinearSolver {
public:
    /// \brief Initializes PETSc if needed and builds the KSP from \p settings; with extra
    /// options, sets it up and solves a 4-unknown system once to learn which options PETSc reads.
    /// \throws PetscSettingsError when PETSc rejects a type or an option value, or reads an
    /// option nowhere (key "options.<the option's key>": a misspelt or inapplicable option).
    explicit PetscKspSolver(const PetscSettings& settings = {});
    ~PetscKspSolver() override;
    PetscKspSolver(const PetscKspSolver&) = delete;
    PetscKspSolver& operator=(const PetscKspSolver&) = delete;

    LinearSolverCapabilities capabilities() const override;
    void analyze(const SparseMatrix& pattern) override;
    bool factorize(const SparseMatrix& matrix) override;
    bool solve(const VectorX& rhs, VectorX& solution) override;
    std::string last_error() const override { return error_; }
    int last_iterations() const override { return iterations_; }

    /// \brief The KSP type in use after options were applied (e.g. "cg").
    const std::string& ksp_type() const { return ksp_type_; }
    /// \brief The PC type in use after options were applied (e.g. "icc").
    const std::string& pc_type() const { return pc_type_; }
    /// \brief The options prefix unique to this instance (e.g. "soma_petsc_3_").
    const std::string& options_prefix() const { return prefix_; }
    /// \brief The underlying KSP, for diagnostics and tests (owned by this object).
    KSP ksp() const { return ksp_; }

private:
    void destroy() noexcept;
    /// Indices (in option_names_) of the options PETSc has not read so far.
    std::vector<std::size_t> unused_option_indices() const;
    /// Empty when every option of this instance was read by PETSc, else the unused ones.
    std::string unused_options() const;
    /// Sets the KSP up and solves once on a small SPD system, so that PETSc reads every option
    /// the chosen types read, then resets it; throws PetscSettingsError at "options.<key>" for an
    /// option nothing read. A trial PETSc refuses (a type that needs more than a matrix) checks
    /// nothing: the first real solve reports unused options then.
    void check_options_by_trial();

    KSP ksp_ = nullptr;
    Mat matrix_ = nullptr;
    Vec rhs_ = nullptr;
    Vec solution_ = nullptr;
    std::string prefix_;
    std::vector<std::string> option_names_;  ///< full names set in the options database
    std::vector<std::string> option_keys_;   ///< each option's key as the settings wrote it
    std::string ksp_type_;
    std::string pc_type_;
    std::vector<PetscInt> csc_to_csr_;  ///< CSC value index -> CSR value index
    Index rows_ = -1;
    Index nonzeros_ = -1;
    bool factorized_ = false;
    bool options_checked_ = false;
    std::string configuration_error_;  ///< sticky: unused (misspelt) options
    int iterations_ = 0;
    std::string error_;
};

}  // namespace soma::petsc_solver
