#include "petsc_backend_loader.hpp"

#include "soma/api.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include <dlfcn.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace soma::petsc_solver {
namespace {

using MakeSolver = LinearSolver*(const PetscSettings&, std::string&, std::string&);

/// The backend module and its entry point.
struct Backend {
    boost::dll::shared_library library;
    MakeSolver* make = nullptr;
};

/// Loads the backend from the petsc_solver/ folder beside this plugin (in the build tree as in an
/// install); throws with the dynamic loader's reason.
std::unique_ptr<Backend> load_backend() {
    const boost::dll::fs::path file =
        boost::dll::this_line_location().parent_path() / "petsc_solver" / "libsoma_petsc_backend.so";
    auto backend = std::make_unique<Backend>();
    boost::system::error_code error;
    backend->library.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, error);
    if (error) {
        const char* why = dlerror();  // the dynamic loader's text (a missing PETSc library, say)
        throw std::runtime_error(fmt::format("the petsc solver's backend '{}' cannot be loaded: {}", file.string(),
                                             why ? why : error.message()));
    }
    if (!backend->library.has("soma_petsc_make_solver") || !backend->library.has("soma_petsc_backend_version"))
        throw std::runtime_error(fmt::format(
            "'{}' is not the petsc solver's backend (no soma_petsc_make_solver or soma_petsc_backend_version)",
            file.string()));
    const auto& version = backend->library.get<const PetscBackendVersion>("soma_petsc_backend_version");
    if (version.plugin_api != kPluginApiVersion || version.interface != kPetscBackendInterface)
        throw std::runtime_error(fmt::format(
            "the petsc solver's backend '{}' was built for plugin API {} and backend interface {}, but this plugin "
            "has {} and {}: reinstall Soma (the backend is left from another build)",
            file.string(), version.plugin_api, version.interface, kPluginApiVersion, kPetscBackendInterface));
    backend->make = &backend->library.get<MakeSolver>("soma_petsc_make_solver");
    return backend;
}

/// Loaded once (thread-safe static initialization; a failed load is tried again next time) and
/// never unloaded: solvers made by it may live until exit, and PETSc finalizes at exit.
const Backend& backend() {
    static const Backend* loaded = load_backend().release();
    return *loaded;
}

}  // namespace

std::unique_ptr<LinearSolver> make_petsc_solver(const PetscSettings& settings) {
    std::string key, error;
    LinearSolver* solver = backend().make(settings, key, error);
    if (solver) return std::unique_ptr<LinearSolver>(solver);
    if (!key.empty()) throw PetscSettingsError(key, error);
    throw std::runtime_error(error);
}

}  // namespace soma::petsc_solver
