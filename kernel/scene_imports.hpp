#pragma once
/// \file scene_imports.hpp
/// \brief The scene's `imports:` list: each import (a URDF robot, ...) writes scene blocks that
/// are appended to the scene's lists before the scene is validated (Registry::add_importer).

#include "scene_file.hpp"

#include <string>
#include <vector>

namespace soma {

class TypeRegistry;

/// What one import wrote.
struct ImportedText {
    std::string label;  ///< `imports.arm (urdf, scene.yaml:12:5)`: where its nodes are located
    std::string text;   ///< the YAML it returned
};

/// Validates the scene's `imports:` list, runs each import and parses what it wrote. Throws
/// InputError for an invalid import block, an import that fails, or text that is not a map of
/// the lists an import may write (elements, constraints, forces, controllers, outputs).
std::vector<ImportedText> run_imports(const SceneDocument& scene, const TypeRegistry& registry);

/// The scene with every import's blocks appended to its lists: the scene itself when it has no
/// `imports:`. The written nodes are located in their import's text (lines past the file's end,
/// as `--set` values are), so that a validation error in them names the import and its line.
/// \p written, when given, receives what each import wrote (a checkpoint keeps it, so that a restart
/// notices an imported file that changed since).
SceneDocument expand_imports(const SceneDocument& scene, const TypeRegistry& registry,
                             std::vector<ImportedText>* written = nullptr);

}  // namespace soma
