// Registration of the `petsc` linear solver: its parameter schema and the translation of the
// validated Parameters into PetscSettings (the solver never sees Parameters, so its tests do not
// depend on the kernel's implementation). This module does not link PETSc: the solver comes from
// the backend module, loaded when a scene first asks for one (petsc_backend_loader.hpp).

#include "petsc_backend_loader.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

#include <memory>

namespace {

using soma::LinearSolver;
using soma::ParameterSchema;
using soma::Parameters;
using soma::petsc_solver::PetscSettings;
using soma::petsc_solver::PetscSettingsError;

ParameterSchema petsc_schema() {
    ParameterSchema schema(
        "petsc",
        "PETSc KSP on a sequential AIJ copy of the Jacobian: any Krylov method and "
        "preconditioner, or a direct factorization with ksp_type preonly. The pattern is "
        "analysed once; factor-type preconditioners (icc, ilu, cholesky, lu) reuse their "
        "symbolic factorization across Newton iterations. Symmetric-only methods (cg, minres, "
        "icc, cholesky) make the solver accept symmetric Jacobians only. Hard constraints "
        "(compliance 0) need gmres (or fgmres, lgmres, dgmres, pgmres, gcr) with pc_type none or "
        "jacobi, or minres with none: other choices are refused for them.");
    schema.string("ksp_type",
                  "PETSc Krylov method (KSPType), e.g. cg, gmres, bicgstab, minres, preonly; "
                  "checked against PETSc's registry when the solver is built")
        .fallback(std::string("cg"));
    schema.string("pc_type",
                  "PETSc preconditioner (PCType), e.g. icc, ilu, jacobi, sor, gamg, lu, cholesky")
        .fallback(std::string("icc"));
    schema.real("rtol", "relative decrease of the residual norm at convergence (KSP rtol)")
        .fallback(1e-10)
        .positive()
        .below(1.0);
    schema.real("atol", "absolute residual norm at convergence (KSP atol); in the units of J x")
        .fallback(1e-50)
        .positive();
    schema.integer("max_iterations",
                   "iteration limit; solve() fails (and Newton cuts the step) when reached")
        .fallback(10000L)
        .range(1.0, 1e9);
    schema.free_map("options",
                    "extra PETSc options as `key: value` (leading '-' optional, empty value for a "
                    "flag), e.g. `pc_factor_levels: 1`; applied under a prefix unique to this "
                    "solver, after the keys above, so they take precedence. When the scene is "
                    "built (`soma check` too) the solver is set up and solves a 4-unknown system "
                    "once: an option PETSc did not read then (a typo, or one that does not apply "
                    "to the chosen types) is an error at its key");
    return schema;
}

PetscSettings petsc_settings(const Parameters& p) {
    PetscSettings s;
    s.ksp_type = p.string("ksp_type");
    s.pc_type = p.string("pc_type");
    s.rtol = p.real("rtol");
    s.atol = p.real("atol");
    s.max_iterations = static_cast<int>(p.integer("max_iterations"));
    s.options = p.free_map("options");
    return s;
}

}  // namespace

SOMA_PLUGIN("petsc_solver") {
    registry.add_linear_solver(petsc_schema(), [](const Parameters& p) -> std::unique_ptr<LinearSolver> {
        try {
            return soma::petsc_solver::make_petsc_solver(petsc_settings(p));
        } catch (const PetscSettingsError& e) {
            p.fail(e.key(), e.what());  // points at the scene key
        }
    });
}
