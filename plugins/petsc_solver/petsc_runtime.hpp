#pragma once
/// \file petsc_runtime.hpp
/// \brief PETSc's process-wide state for the petsc_solver plugin's backend module (the part linked to
/// PETSc, petsc_backend.cpp): initialization once, finalization
/// at exit, and PETSc error codes turned into C++ exceptions.
///
/// Initialization and finalization policy (why it is safe):
///  - PETSc is initialized on first use, once per process, only when nobody else (the host
///    program, another plugin) has already done so; PETSc then initializes MPI itself when MPI
///    is not yet initialized (a sequential run needs no mpirun: Open MPI starts as a singleton).
///  - `-no_signal_handler` is set before initialization so PETSc does not replace the host
///    program's (or the test framework's) handlers for SIGSEGV/SIGFPE.
///  - Only when this plugin initialized PETSc, PetscFinalize (which also finalizes MPI when PETSc
///    initialized it) is registered with std::atexit. Plugins are never unloaded, so the handler's
///    code stays mapped until exit. atexit handlers and static destructors run in reverse order of
///    registration: objects with static storage created *before* the first PETSc solver are
///    destroyed *after* PetscFinalize. Every PETSc-owning object therefore checks
///    petsc_finalized() in its destructor and, if PETSc is gone, releases nothing (the process is
///    exiting; the OS reclaims the memory). No PETSc call is ever made after finalization.

#include <mutex>
#include <stdexcept>
#include <string>

#include <petscsys.h>

namespace soma::petsc_solver {

/// \brief A PETSc call failed; what() holds the call, PETSc's generic and specific messages.
class PetscCallError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// \brief Initializes PETSc (and MPI through it) on first call; thread-safe, idempotent.
/// \throws PetscCallError when PetscInitialize fails.
void ensure_petsc_initialized();

/// \brief The lock every PETSc call of this plugin holds. PETSc's state is process-wide (the
/// options database, the error handler stack, logging) and not thread-safe, so simulations
/// stepped in parallel threads (the Python module's VectorEnv) take turns in PETSc. Recursive:
/// a solver's methods call one another.
std::recursive_mutex& petsc_mutex();

/// \brief True once PetscFinalize has run (at process exit).
bool petsc_finalized();

/// \brief Throws PetscCallError naming \p call when \p code is not 0.
void check_petsc(PetscErrorCode code, const char* call);

/// \brief While alive, PETSc errors return their code silently instead of printing a traceback
/// to stderr (we report them through exceptions and last_error()). Restores the previous
/// handler on destruction, so other PETSc users in the process keep theirs.
class QuietPetscErrors {
public:
    QuietPetscErrors();
    ~QuietPetscErrors();
    QuietPetscErrors(const QuietPetscErrors&) = delete;
    QuietPetscErrors& operator=(const QuietPetscErrors&) = delete;
};

}  // namespace soma::petsc_solver

/// Calls a PETSc function and throws PetscCallError (with the call's text) on failure.
#define SOMA_PETSC_CHECK(call) ::soma::petsc_solver::check_petsc((call), #call)
