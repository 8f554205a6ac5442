#pragma once
/// \file scene_file.hpp
/// \brief Reading a YAML scene file and applying command-line overrides (`--set key=value`).

#include "soma/parameters.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

namespace soma {

/// One `--set key=value` applied to a scene, or the text an import wrote (scene_imports.hpp). It
/// is parsed at lines past the end of the file, [first_line, end_line) (0-based, as yaml-cpp marks
/// count), so that a node's mark tells whether the file, this override or this import wrote it.
struct SceneOverride {
    std::string text;  ///< as given: `integrator.dt=1e-4` (an import: its name)
    int first_line = 0;
    int end_line = 0;
    /// Empty for `--set`; for an import, what its nodes are located at (`imports.arm (generated)`),
    /// with lines counted from the start of its text.
    std::string origin;
};

/// A parsed scene: the YAML tree (marks intact) and the file it came from.
struct SceneDocument {
    std::string file;                 ///< path as given (used in error messages)
    std::filesystem::path directory;  ///< folder of the file, for relative paths
    YAML::Node root;
    std::string text;                 ///< the text parsed (a checkpoint stores it to rebuild the run)
    int line_count = 0;                   ///< lines of the file's text (overrides are parsed after them)
    std::vector<SceneOverride> overrides;  ///< applied so far, in order
};

/// Where a node of a scene was written: `file:line:col: path`, or `--set TEXT: path` for a node
/// an override wrote (validation errors then name the argument, not a line of the file).
SourceLocation locate(const std::string& file, const std::vector<SceneOverride>& overrides, const YAML::Mark& mark,
                      const std::string& path);
/// Parses YAML text holding one document (the only form a scene takes). Throws InputError with
/// `name:line:col: message` on a syntax error or a second document (`---`); an empty text gives
/// a null node.
YAML::Node parse_single_yaml_document(const std::string& text, const std::string& name);

/// Parses a scene file. Throws InputError with `file:line:col: message` on a YAML syntax error,
/// a missing file, a path that is not a regular file (a directory, /dev/zero, a FIFO), a file
/// above kMaxSceneFileBytes (soma/input_limits.hpp), a second YAML document, or a root that is
/// not a map.
SceneDocument load_scene_file(const std::filesystem::path& file);

/// Parses a scene from text (tests, `soma check -`); `name` is used in messages.
SceneDocument load_scene_text(const std::string& text, const std::string& name = "<string>");

/// Applies `key=value` overrides, e.g. `integrator.dt=1e-4`, `elements.beam.material.density=900`
/// (list items by their `name`), `elements[0].material.density=900` or `forces[1].friction=0.3`
/// (list items by index), or `elements.0.material.density=900` (an index written as a key: it
/// addresses item 0 unless an item is named "0", since a name always wins over an index).
/// The value is parsed as YAML. Throws InputError naming the override when the path does not
/// exist in the scene (a new leaf key in an existing map is allowed; validation checks it).
void apply_overrides(SceneDocument& scene, const std::vector<std::string>& overrides);

}  // namespace soma
