#pragma once
/// \file output_files.hpp
/// \brief The files a scene's outputs will write, checked before the run: no two outputs write
/// one file (two `csv` outputs named alike would interleave their rows; two `vtk` outputs with one
/// prefix would overwrite each other's frames), and none writes outside the output folder.

#include "soma/observer.hpp"
#include "soma/parameters.hpp"

#include <memory>
#include <vector>

namespace soma {

/// \brief Throws InputError at the planned file's key of the later output when two observers plan
/// the same file (or one plans a folder of another's file), naming the earlier one; and at the
/// key of a path that is absolute, leaves the output folder (`a/../../x`) or names no file.
/// \param observers  the scene's outputs, bound
/// \param blocks     their scene blocks, in the same order (for the error locations)
void check_planned_files(const std::vector<std::unique_ptr<Observer>>& observers, const std::vector<Parameters>& blocks);

}  // namespace soma
