// The petsc solver's backend module (libsoma_petsc_backend.so, in the plugin folder's
// petsc_solver/ subfolder): the one library of the plugin that links PETSc and MPI. The plugin
// itself registers the schema without them and loads this module when a scene first builds a
// petsc solver (petsc_backend_loader.hpp), so runs that use another solver do not pay PETSc's
// load time (about 50 ms: PETSc brings a hundred shared libraries).
//
// The entry point is extern "C" for a stable symbol name; it reports errors through its out
// parameters rather than by exception, so no exception type has to be shared between modules.
#include "petsc_ksp_solver.hpp"

#include "soma/api.hpp"

#include <exception>
#include <string>

extern "C" SOMA_EXPORT const soma::petsc_solver::PetscBackendVersion soma_petsc_backend_version{
    soma::kPluginApiVersion, soma::petsc_solver::kPetscBackendInterface};

extern "C" SOMA_EXPORT soma::LinearSolver* soma_petsc_make_solver(const soma::petsc_solver::PetscSettings& settings,
                                                                 std::string& error_key, std::string& error) {
    try {
        return new soma::petsc_solver::PetscKspSolver(settings);
    } catch (const soma::petsc_solver::PetscSettingsError& e) {
        error_key = e.key();
        error = e.what();
    } catch (const std::exception& e) {
        error_key.clear();
        error = e.what();
    }
    return nullptr;
}
