#pragma once
/// \file petsc_settings.hpp
/// \brief The petsc solver's settings and their error, without PETSc's headers: the registration
/// (which PETSc does not load) and the backend (which links PETSc) share them.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace soma::petsc_solver {

/// The interface between the plugin and its backend module: bumped whenever PetscSettings or the
/// backend's entry point changes. The backend exports it with the plugin API version, and the
/// plugin refuses a backend built from other sources (a stale file left in an install).
inline constexpr std::uint32_t kPetscBackendInterface = 1;

/// What the backend exports as `soma_petsc_backend_version`.
struct PetscBackendVersion {
    std::uint32_t plugin_api;  ///< soma::kPluginApiVersion of its build
    std::uint32_t interface;   ///< kPetscBackendInterface of its build
};

/// \brief Settings of the petsc solver (translated from the scene's parameters).
struct PetscSettings {
    std::string ksp_type = "cg";   ///< any KSPType name: cg, gmres, bicgstab, minres, preonly, ...
    std::string pc_type = "icc";   ///< any PCType name: icc, ilu, jacobi, sor, gamg, lu, cholesky, ...
    double rtol = 1e-10;           ///< relative residual decrease (PETSc's preconditioned norm by default)
    double atol = 1e-50;           ///< absolute residual norm
    int max_iterations = 10000;    ///< KSP iteration limit
    /// Extra PETSc options, "key: value", with or without the leading '-'; an empty value is a
    /// flag. Applied under this instance's own prefix, after the settings above (so they win).
    std::map<std::string, std::string> options;
};

/// \brief A settings error found while building the solver; `key` names the offending setting
/// ("ksp_type", "pc_type" or "options") so the registration can point at the scene key.
class PetscSettingsError : public std::runtime_error {
public:
    PetscSettingsError(std::string key, const std::string& message)
        : std::runtime_error(message), key_(std::move(key)) {}
    const std::string& key() const { return key_; }

private:
    std::string key_;
};

}  // namespace soma::petsc_solver
