#include "petsc_runtime.hpp"

#include <cstdlib>
#include <mutex>

namespace soma::petsc_solver {
namespace {

/// The atexit handler: see the policy in petsc_runtime.hpp.
void finalize_petsc_at_exit() {
    PetscBool finalized = PETSC_FALSE;
    PetscFinalized(&finalized);
    if (!finalized) PetscFinalize();
}

}  // namespace

void ensure_petsc_initialized() {
    static std::once_flag once;
    std::call_once(once, [] {
        PetscBool initialized = PETSC_FALSE;
        PetscInitialized(&initialized);
        if (initialized) return;  // the host owns PETSc's lifetime
        // Allowed before PetscInitialize (PETSc's documentation of PetscOptionsSetValue).
        check_petsc(PetscOptionsSetValue(nullptr, "-no_signal_handler", nullptr),
                    "PetscOptionsSetValue(-no_signal_handler)");
        check_petsc(PetscInitializeNoArguments(), "PetscInitializeNoArguments()");
        std::atexit(finalize_petsc_at_exit);
    });
}

bool petsc_finalized() {
    PetscBool finalized = PETSC_FALSE;
    PetscFinalized(&finalized);
    return finalized == PETSC_TRUE;
}

void check_petsc(PetscErrorCode code, const char* call) {
    if (code == 0) return;
    const char* generic = nullptr;
    char* specific = nullptr;
    PetscErrorMessage(code, &generic, &specific);
    std::string message = std::string(call) + " failed: ";
    if (specific != nullptr && specific[0] != '\0') {
        message += specific;
        if (generic != nullptr) message += std::string(" (") + generic + ")";
    } else {
        message += generic != nullptr ? generic : ("PETSc error " + std::to_string(code));
    }
    throw PetscCallError(message);
}

QuietPetscErrors::QuietPetscErrors() { PetscPushErrorHandler(PetscReturnErrorHandler, nullptr); }
QuietPetscErrors::~QuietPetscErrors() { PetscPopErrorHandler(); }

}  // namespace soma::petsc_solver
