#pragma once
/// \file checkpoint_file.hpp
/// \brief A checkpoint file: the scene that made the run, and one section of records per
/// object that carries state across steps (checkpoint.hpp).
///
/// Layout (little-endian, every string and list length-prefixed by a 64-bit count):
///   "SOMA-CHECKPOINT\n", format version (u32), plugin API version (u32),
///   the scene (file name, folder, text, `--set` overrides, output folder),
///   the sections (name, then records: name, kind, values; reals as their IEEE-754 bits),
///   "END\n".
/// The end marker catches a truncated file. Files are written to `<file>.tmp` and renamed, so
/// the previous checkpoint stays valid until the new one is complete.

#include "scene_file.hpp"

#include "soma/checkpoint.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace soma {

/// The scene a checkpointed run was built from: what `soma run --restart` rebuilds.
struct CheckpointScene {
    std::string file;                    ///< as given on the command line (messages)
    std::string directory;               ///< absolute folder of the scene (relative paths in it)
    std::string text;                    ///< the scene text
    std::vector<std::string> overrides;  ///< `--set` arguments, in order
    std::string output_directory;        ///< where the run wrote its outputs
};

/// One scene's checkpoint: the scene that made it and the sections of its objects.
class CheckpointFile {
public:
    CheckpointScene scene;

    /// A new, empty section (names are unique).
    std::vector<CheckpointRecord>& add_section(const std::string& name);
    /// The section of that name; throws CheckpointError when the checkpoint lacks it.
    const std::vector<CheckpointRecord>& section(const std::string& name) const;
    const std::vector<std::pair<std::string, std::vector<CheckpointRecord>>>& sections() const { return sections_; }

    /// Writes `file` atomically (through `<file>.tmp`). Throws std::runtime_error on I/O failure.
    void write(const std::filesystem::path& file) const;
    /// Reads and checks a checkpoint file; throws CheckpointError naming the file and what is
    /// wrong (not a checkpoint, another format version, truncated, not a regular file).
    static CheckpointFile read(const std::filesystem::path& file);
    /// Parses checkpoint bytes (read() and the fuzz target); `name` is used in messages.
    static CheckpointFile parse(const std::string& bytes, const std::string& name);

private:
    std::vector<std::pair<std::string, std::vector<CheckpointRecord>>> sections_;
};

/// The scene a checkpoint holds, parsed, with its `--set` overrides applied and then `more`
/// (a restart may change, say, simulation.duration); relative paths resolve against the
/// original scene's folder. Throws InputError as load_scene_text and apply_overrides do.
SceneDocument checkpoint_scene_document(const CheckpointFile& checkpoint, const std::vector<std::string>& more);

}  // namespace soma
