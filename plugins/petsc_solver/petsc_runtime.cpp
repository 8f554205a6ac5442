#include "petsc_runtime.hpp"

#include <cstdlib>
#include <mutex>

#if defined(__SANITIZE_ADDRESS__)
#define SOMA_LEAK_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOMA_LEAK_SANITIZER 1
#endif
#endif
#ifdef SOMA_LEAK_SANITIZER
#include <sanitizer/lsan_interface.h>
#endif

namespace soma::petsc_solver {
namespace {

/// While alive, LeakSanitizer does not report what this thread allocates. Open MPI, initialized
/// by PetscInitialize, keeps 122 kB in 3357 allocations until exit and frees none of it in
/// PetscFinalize (measured with a program that only initializes and finalizes PETSc); without
/// this every sanitized program that loads this plugin would fail on MPI's memory, not ours
/// (docs/reliability.md, "Sanitizers", finding 4). Only PETSc's start and end run inside it: the
/// solver's own allocations stay checked. No effect without AddressSanitizer.
class LeaksNotReportedInScope {
public:
#ifdef SOMA_LEAK_SANITIZER
    LeaksNotReportedInScope() { __lsan_disable(); }
    ~LeaksNotReportedInScope() { __lsan_enable(); }
#else
    LeaksNotReportedInScope() {}  // user-provided: a const object of this type is allowed
#endif
    LeaksNotReportedInScope(const LeaksNotReportedInScope&) = delete;
    LeaksNotReportedInScope& operator=(const LeaksNotReportedInScope&) = delete;
};

/// The atexit handler: see the policy in petsc_runtime.hpp.
void finalize_petsc_at_exit() {
    PetscBool finalized = PETSC_FALSE;
    PetscFinalized(&finalized);
    if (finalized) return;
    const LeaksNotReportedInScope mpi_finalization;
    PetscFinalize();
}

}  // namespace

std::recursive_mutex& petsc_mutex() {
    static std::recursive_mutex mutex;
    return mutex;
}

void ensure_petsc_initialized() {
    static std::once_flag once;
    std::call_once(once, [] {
        PetscBool initialized = PETSC_FALSE;
        PetscInitialized(&initialized);
        if (initialized) return;  // the host owns PETSc's lifetime
        // A process not started by mpirun is an MPI singleton, for which Open MPI starts a helper
        // daemon (orted) that one process does not need; its start hung twice under load (ctest -j2
        // beside a build: the test waited on orted with no CPU used for 10 minutes). An isolated
        // singleton starts none. Under mpirun the setting is not read; a user's own value wins.
        setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
        // Allowed before PetscInitialize (PETSc's documentation of PetscOptionsSetValue).
        check_petsc(PetscOptionsSetValue(nullptr, "-no_signal_handler", nullptr),
                    "PetscOptionsSetValue(-no_signal_handler)");
        {
            const LeaksNotReportedInScope mpi_initialization;
            check_petsc(PetscInitializeNoArguments(), "PetscInitializeNoArguments()");
        }
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
