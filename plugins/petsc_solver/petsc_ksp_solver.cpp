#include "petsc_ksp_solver.hpp"

#include "petsc_runtime.hpp"

#include "soma/saddle_point.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>

namespace soma::petsc_solver {
namespace {

/// Krylov methods that require a symmetric operator (and preconditioner).
bool symmetric_krylov(const std::string& ksp) {
    static const std::array<const char*, 11> names{
        KSPCG, KSPCR, KSPMINRES, KSPSYMMLQ, KSPPIPECG, KSPPIPECR, KSPGROPPCG, KSPPIPECGRR,
        KSPSTCG, KSPNASH, KSPGLTR};
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return ksp == n; });
}

/// Krylov methods that need a positive definite operator (CG family).
bool definite_krylov(const std::string& ksp) {
    return symmetric_krylov(ksp) && ksp != KSPMINRES && ksp != KSPSYMMLQ;
}

/// Preconditioners that read the matrix as symmetric (one triangle) and need it definite.
bool symmetric_preconditioner(const std::string& pc) { return pc == PCICC || pc == PCCHOLESKY; }

/// Whether KSP \p ksp with PC \p pc solves a hard constraint's KKT matrix (zero diagonal on the
/// multiplier rows, indefinite). The GMRES family minimises the residual over the Krylov space
/// and cannot break down on an indefinite operator; MINRES can too, with an SPD preconditioner
/// (only `none` is one whatever the matrix). The preconditioner must not divide by the zero
/// diagonal: none, or Jacobi (PETSc uses 1 for a zero diagonal entry). PETSc's own ILU, ICC, LU
/// and Cholesky factor without pivoting; BiCGSTAB breaks down on these systems
/// (tests/validation/test_constraint_solvers.cpp: bcgs/jacobi diverged on the double pendulum).
bool saddle_point_method(const std::string& ksp, const std::string& pc) {
    static const std::array<const char*, 6> residual_minimising{KSPGMRES, KSPFGMRES, KSPLGMRES,
                                                                KSPDGMRES, KSPPGMRES, KSPGCR};
    const bool gmres_family = std::any_of(residual_minimising.begin(), residual_minimising.end(),
                                          [&](const char* n) { return ksp == n; });
    if (gmres_family) return pc == PCNONE || pc == PCJACOBI;
    return ksp == KSPMINRES && pc == PCNONE;
}

std::string format_real(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

std::atomic<int> instance_counter{0};

}  // namespace

PetscKspSolver::PetscKspSolver(const PetscSettings& settings) {
    const std::lock_guard lock(petsc_mutex());
    ensure_petsc_initialized();
    QuietPetscErrors quiet;
    // A prefix per instance keeps two solvers' options apart in PETSc's global database.
    prefix_ = "soma_petsc_" + std::to_string(instance_counter++) + "_";
    try {
        for (const auto& [key, value] : settings.options) {
            const std::string bare = key.rfind('-', 0) == 0 ? key.substr(key.find_first_not_of('-')) : key;
            if (bare.empty()) throw PetscSettingsError("options", "empty PETSc option name");
            const std::string name = "-" + prefix_ + bare;
            SOMA_PETSC_CHECK(PetscOptionsSetValue(nullptr, name.c_str(),
                                                  value.empty() ? nullptr : value.c_str()));
            option_names_.push_back(name);
            option_keys_.push_back(key);
        }
        SOMA_PETSC_CHECK(KSPCreate(PETSC_COMM_SELF, &ksp_));
        SOMA_PETSC_CHECK(KSPSetOptionsPrefix(ksp_, prefix_.c_str()));
        try {
            SOMA_PETSC_CHECK(KSPSetType(ksp_, settings.ksp_type.c_str()));
        } catch (const PetscCallError& e) {
            throw PetscSettingsError("ksp_type", "PETSc does not know KSP type '" +
                                                     settings.ksp_type + "': " + e.what());
        }
        PC pc = nullptr;
        SOMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
        try {
            SOMA_PETSC_CHECK(PCSetType(pc, settings.pc_type.c_str()));
        } catch (const PetscCallError& e) {
            throw PetscSettingsError("pc_type", "PETSc does not know PC type '" +
                                                    settings.pc_type + "': " + e.what());
        }
        SOMA_PETSC_CHECK(KSPSetTolerances(ksp_, settings.rtol, settings.atol, PETSC_DEFAULT,
                                          settings.max_iterations));
        try {
            SOMA_PETSC_CHECK(KSPSetFromOptions(ksp_));
        } catch (const PetscCallError& e) {
            throw PetscSettingsError("options", std::string("PETSc rejected an option: ") + e.what());
        }
        KSPType ksp_type = nullptr;
        PCType pc_type = nullptr;
        SOMA_PETSC_CHECK(KSPGetType(ksp_, &ksp_type));
        SOMA_PETSC_CHECK(PCGetType(pc, &pc_type));
        ksp_type_ = ksp_type != nullptr ? ksp_type : "";
        pc_type_ = pc_type != nullptr ? pc_type : "";
        check_options_by_trial();
    } catch (const PetscCallError& e) {
        destroy();
        throw PetscSettingsError("options", e.what());
    } catch (...) {
        destroy();
        throw;
    }
}

PetscKspSolver::~PetscKspSolver() { destroy(); }

void PetscKspSolver::destroy() noexcept {
    const std::lock_guard lock(petsc_mutex());
    // After PetscFinalize (process exit, see petsc_runtime.hpp) no PETSc call is allowed.
    if (petsc_finalized()) return;
    QuietPetscErrors quiet;
    VecDestroy(&rhs_);
    VecDestroy(&solution_);
    MatDestroy(&matrix_);
    KSPDestroy(&ksp_);
    for (const auto& name : option_names_) PetscOptionsClearValue(nullptr, name.c_str());
    option_names_.clear();
}

LinearSolverCapabilities PetscKspSolver::capabilities() const {
    const bool symmetric_only = symmetric_krylov(ksp_type_) || symmetric_preconditioner(pc_type_);
    // MINRES and SYMMLQ treat indefinite operators but need a symmetric positive definite
    // preconditioner: only `none` is one whatever the matrix (Jacobi on an indefinite diagonal is
    // indefinite, ILU and SOR are unsymmetric).
    const bool indefinite_krylov =
        !definite_krylov(ksp_type_) && (!symmetric_krylov(ksp_type_) || pc_type_ == PCNONE);
    LinearSolverCapabilities caps;
    caps.symmetric_positive_definite = true;
    caps.symmetric_indefinite = indefinite_krylov && !symmetric_preconditioner(pc_type_);
    // Symmetric Krylov methods read the whole AIJ matrix but assume it is symmetric.
    caps.unsymmetric = !symmetric_only;
    caps.saddle_point = saddle_point_method(ksp_type_, pc_type_);
    caps.iterative = ksp_type_ != KSPPREONLY;
    caps.distributed = false;  // MatSeqAIJ on PETSC_COMM_SELF
    return caps;
}

void PetscKspSolver::analyze(const SparseMatrix& pattern) {
    const std::lock_guard lock(petsc_mutex());
    QuietPetscErrors quiet;
    factorized_ = false;
    error_.clear();
    const PetscInt n = static_cast<PetscInt>(pattern.rows());
    const PetscInt nnz = static_cast<PetscInt>(pattern.nonZeros());
    if (matrix_ != nullptr) {
        // A new pattern: drop the operators and the preconditioner's symbolic data, so PCSetUp
        // cannot mistake the new Mat for the old pattern.
        SOMA_PETSC_CHECK(KSPReset(ksp_));
        SOMA_PETSC_CHECK(MatDestroy(&matrix_));
        SOMA_PETSC_CHECK(VecDestroy(&rhs_));
        SOMA_PETSC_CHECK(VecDestroy(&solution_));
    }

    // CSC -> CSR. Visiting columns in increasing order leaves every CSR row's column indices
    // sorted, which is AIJ's storage order.
    std::vector<PetscInt> row_start(static_cast<std::size_t>(n) + 1, 0);
    const Index* outer = pattern.outerIndexPtr();
    const Index* inner = pattern.innerIndexPtr();
    const Index* inner_count = pattern.innerNonZeroPtr();  // null when compressed
    auto column_end = [&](Index c) { return inner_count ? outer[c] + inner_count[c] : outer[c + 1]; };
    for (Index c = 0; c < n; ++c)
        for (Index k = outer[c]; k < column_end(c); ++k) ++row_start[inner[k] + 1];
    for (PetscInt r = 0; r < n; ++r) row_start[r + 1] += row_start[r];
    std::vector<PetscInt> next(row_start.begin(), row_start.end() - 1);
    std::vector<PetscInt> column(static_cast<std::size_t>(nnz));
    csc_to_csr_.assign(static_cast<std::size_t>(outer[n]), -1);
    for (Index c = 0; c < n; ++c)
        for (Index k = outer[c]; k < column_end(c); ++k) {
            const PetscInt slot = next[inner[k]]++;
            column[slot] = c;
            csc_to_csr_[k] = slot;
        }

    // Exact preallocation from the CSR arrays; the values are placeholders until factorize().
    const std::vector<PetscScalar> zeros(static_cast<std::size_t>(nnz), 0.0);
    SOMA_PETSC_CHECK(MatCreate(PETSC_COMM_SELF, &matrix_));
    SOMA_PETSC_CHECK(MatSetSizes(matrix_, n, n, n, n));
    SOMA_PETSC_CHECK(MatSetType(matrix_, MATSEQAIJ));
    SOMA_PETSC_CHECK(MatSeqAIJSetPreallocationCSR(matrix_, row_start.data(), column.data(), zeros.data()));
    // Any later insertion outside the pattern would be a bug: make PETSc say so.
    SOMA_PETSC_CHECK(MatSetOption(matrix_, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));

    // Check that PETSc stores exactly our CSR layout, which csc_to_csr_ relies on (once per
    // pattern; O(nnz)).
    PetscInt rows_check = 0;
    const PetscInt* ia = nullptr;
    const PetscInt* ja = nullptr;
    PetscBool done = PETSC_FALSE;
    SOMA_PETSC_CHECK(MatGetRowIJ(matrix_, 0, PETSC_FALSE, PETSC_FALSE, &rows_check, &ia, &ja, &done));
    const bool same_layout = done && rows_check == n && std::equal(ia, ia + n + 1, row_start.begin()) &&
                             std::equal(ja, ja + nnz, column.begin());
    SOMA_PETSC_CHECK(MatRestoreRowIJ(matrix_, 0, PETSC_FALSE, PETSC_FALSE, &rows_check, &ia, &ja, &done));
    if (!same_layout) throw std::logic_error("petsc: MatSeqAIJ does not store the CSR layout given");

    // Vecs without storage: solve() places the Eigen arrays in them.
    SOMA_PETSC_CHECK(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, nullptr, &rhs_));
    SOMA_PETSC_CHECK(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, n, nullptr, &solution_));
    rows_ = static_cast<Index>(n);
    nonzeros_ = static_cast<Index>(nnz);
}

bool PetscKspSolver::factorize(const SparseMatrix& matrix) {
    const std::lock_guard lock(petsc_mutex());
    factorized_ = false;
    error_.clear();
    if (!configuration_error_.empty()) {
        error_ = configuration_error_;
        return false;
    }
    if (matrix_ == nullptr) {
        error_ = "petsc: factorize() called before analyze()";
        return false;
    }
    if (matrix.rows() != rows_ || matrix.cols() != rows_ || matrix.nonZeros() != nonzeros_) {
        error_ = "petsc: factorize() got a " + std::to_string(matrix.rows()) + "x" +
                 std::to_string(matrix.cols()) + " matrix with " + std::to_string(matrix.nonZeros()) +
                 " nonzeros, but the analysed pattern is " + std::to_string(rows_) + "x" +
                 std::to_string(rows_) + " with " + std::to_string(nonzeros_) +
                 " nonzeros (call analyze() when the pattern changes)";
        return false;
    }
    QuietPetscErrors quiet;
    try {
        PetscScalar* values = nullptr;
        SOMA_PETSC_CHECK(MatSeqAIJGetArray(matrix_, &values));
        const double* source = matrix.valuePtr();
        const std::size_t count = csc_to_csr_.size();
        for (std::size_t k = 0; k < count; ++k) {
            // Uncompressed input leaves gaps (-1) in the map; the kernel's matrix has none.
            if (csc_to_csr_[k] >= 0) values[csc_to_csr_[k]] = source[k];
        }
        // Restoring bumps the Mat's state (values changed) but not its nonzero state.
        SOMA_PETSC_CHECK(MatSeqAIJRestoreArray(matrix_, &values));
        SOMA_PETSC_CHECK(KSPSetOperators(ksp_, matrix_, matrix_));
        SOMA_PETSC_CHECK(KSPSetUp(ksp_));
        PC pc = nullptr;
        SOMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
        PCFailedReason reason = PC_NOERROR;
        SOMA_PETSC_CHECK(PCGetFailedReason(pc, &reason));
        if (reason != PC_NOERROR) {
            error_ = "PETSc preconditioner '" + pc_type_ + "' setup failed: " +
                     PCFailedReasons[reason] + " (matrix singular or not of the definiteness " +
                     "the preconditioner needs)" + saddle_point_advice(matrix, "petsc with pc_type " + pc_type_);
            return false;
        }
    } catch (const std::exception& e) {
        error_ = std::string("petsc: ") + e.what() + saddle_point_advice(matrix, "petsc with pc_type " + pc_type_);
        return false;
    }
    factorized_ = true;
    return true;
}

bool PetscKspSolver::solve(const VectorX& rhs, VectorX& solution) {
    const std::lock_guard lock(petsc_mutex());
    iterations_ = 0;
    error_.clear();
    if (!factorized_) {
        error_ = "petsc: solve() called before a successful factorize()";
        return false;
    }
    if (rhs.size() != rows_) {
        error_ = "petsc: right-hand side has " + std::to_string(rhs.size()) +
                 " entries, the factorized matrix has " + std::to_string(rows_) + " rows";
        return false;
    }
    solution.resize(rhs.size());
    QuietPetscErrors quiet;
    KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
    PetscReal residual = 0.0;
    try {
        SOMA_PETSC_CHECK(VecPlaceArray(rhs_, rhs.data()));
        SOMA_PETSC_CHECK(VecPlaceArray(solution_, solution.data()));
        const PetscErrorCode solved = KSPSolve(ksp_, rhs_, solution_);
        // Unwrap the Eigen arrays whatever happened, then report.
        VecResetArray(rhs_);
        VecResetArray(solution_);
        SOMA_PETSC_CHECK(solved);
        PetscInt its = 0;
        SOMA_PETSC_CHECK(KSPGetIterationNumber(ksp_, &its));
        iterations_ = static_cast<int>(its);
        SOMA_PETSC_CHECK(KSPGetConvergedReason(ksp_, &reason));
        SOMA_PETSC_CHECK(KSPGetResidualNorm(ksp_, &residual));
    } catch (const std::exception& e) {
        error_ = std::string("petsc: ") + e.what();
        return false;
    }
    if (!options_checked_) {
        // Some options are only read during the first solve (e.g. -ksp_view), so check here.
        options_checked_ = true;
        configuration_error_ = unused_options();
    }
    if (!configuration_error_.empty()) {
        error_ = configuration_error_;
        return false;
    }
    if (reason < 0) {
        error_ = "PETSc KSP " + ksp_type_ + "/" + pc_type_ + " did not converge: " +
                 KSPConvergedReasons[reason] + " after " + std::to_string(iterations_) +
                 " iterations (residual norm " + format_real(residual) + ")";
        return false;
    }
    return true;
}

void PetscKspSolver::check_options_by_trial() {
    const std::lock_guard lock(petsc_mutex());
    if (option_names_.empty()) return;
    // Some options are read only when the preconditioner is set up (pc_factor_levels) or when a
    // solve runs (ksp_view): set up and solve once, on the 1-D Laplacian of 4 unknowns (SPD, so
    // every Krylov method and preconditioner applies).
    constexpr PetscInt n = 4;
    Mat a = nullptr;
    Vec b = nullptr, x = nullptr;
    bool tried = true;
    try {
        SOMA_PETSC_CHECK(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, nullptr, &a));
        for (PetscInt i = 0; i < n; ++i) {
            SOMA_PETSC_CHECK(MatSetValue(a, i, i, 2.0, INSERT_VALUES));
            if (i > 0) SOMA_PETSC_CHECK(MatSetValue(a, i, i - 1, -1.0, INSERT_VALUES));
            if (i + 1 < n) SOMA_PETSC_CHECK(MatSetValue(a, i, i + 1, -1.0, INSERT_VALUES));
        }
        SOMA_PETSC_CHECK(MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY));
        SOMA_PETSC_CHECK(MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY));
        SOMA_PETSC_CHECK(MatCreateVecs(a, &x, &b));
        SOMA_PETSC_CHECK(VecSet(b, 1.0));
        SOMA_PETSC_CHECK(KSPSetOperators(ksp_, a, a));
        SOMA_PETSC_CHECK(KSPSetUp(ksp_));
        SOMA_PETSC_CHECK(KSPSolve(ksp_, b, x));
    } catch (const PetscCallError&) {
        tried = false;
    }
    // Back to the state before the trial (types and options kept, operators dropped).
    KSPReset(ksp_);
    VecDestroy(&b);
    VecDestroy(&x);
    MatDestroy(&a);
    if (!tried) return;
    const std::vector<std::size_t> unused = unused_option_indices();
    options_checked_ = true;
    if (!unused.empty()) throw PetscSettingsError("options." + option_keys_[unused.front()], unused_options());
}

std::vector<std::size_t> PetscKspSolver::unused_option_indices() const {
    const std::lock_guard lock(petsc_mutex());
    std::vector<std::size_t> unused;
    for (std::size_t i = 0; i < option_names_.size(); ++i) {
        PetscBool used = PETSC_FALSE;
        // The database stores names without the leading '-'.
        PetscOptionsUsed(nullptr, option_names_[i].c_str() + 1, &used);
        if (!used) unused.push_back(i);
    }
    return unused;
}

std::string PetscKspSolver::unused_options() const {
    const std::lock_guard lock(petsc_mutex());
    std::string unused;
    for (const std::size_t i : unused_option_indices())
        unused += (unused.empty() ? "" : ", ") + option_names_[i].substr(1 + prefix_.size());
    if (unused.empty()) return {};
    // A misspelt option would otherwise silently run another method than the one asked for.
    return "petsc: options not used by KSP '" + ksp_type_ + "' with PC '" + pc_type_ +
           "' (misspelt, or not applicable to these types): " + unused;
}

}  // namespace soma::petsc_solver
