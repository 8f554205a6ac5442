#pragma once
/// \file petsc_backend_loader.hpp
/// \brief Builds a petsc solver through the backend module (petsc_backend.cpp), which is loaded
/// on first use and stays loaded for the life of the process (its solvers' code lives in it).

#include "petsc_settings.hpp"

#include "soma/linear_solver.hpp"

#include <memory>

namespace soma::petsc_solver {

/// \brief A PetscKspSolver built from \p settings by the backend module.
/// \throws PetscSettingsError for settings PETSc refuses (the key named), std::runtime_error when
/// the backend cannot be loaded (the dynamic loader's message) or fails otherwise.
std::unique_ptr<LinearSolver> make_petsc_solver(const PetscSettings& settings);

}  // namespace soma::petsc_solver
