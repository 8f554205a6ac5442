#pragma once
/// \file vtk_frames.hpp
/// \brief The `vtk` output: one .vtu file per written step and a .pvd collection for ParaView.

#include "vtu_file.hpp"

#include "soma/observer.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace soma::outputs {

/// Everything the `vtk` output needs; registration.cpp fills it from the scene.
struct VtkFramesSettings {
    long every = 1;                            ///< write every N accepted steps (step 0 always)
    std::string prefix = "frames";             ///< frames <prefix>_000000.vtu, collection <prefix>.pvd
    std::filesystem::path folder = "vtk";      ///< frames folder, relative to the output folder
    VtkEncoding encoding = VtkEncoding::appended_raw;
};

/// \brief Writes the `vtk` output.
///
/// Each frame is one .vtu holding every element: points at their positions in state().q, point
/// data `element_id` (index in scene.elements()), `node_index` (the point's index in its
/// element), `velocity` and `radius`; cells are Geometry edges (VTK_LINE), triangles
/// (VTK_TRIANGLE), and a VTK_VERTEX for each point no edge or triangle uses (so point-only
/// bodies stay visible); cell data `element_id`, `edge_index` (the edge's index in its element,
/// -1 on other cells) and `triangle_index` (likewise). The collection
/// `<output>/<prefix>.pvd` lists every frame with its time. Each frame's file is complete on disk
/// before the collection names it; the collection then grows in place by one write of the new
/// entry and the closing tags over the old closing tags, so it is valid XML naming only complete
/// files between frames, and a frame costs the same at the millionth frame as at the first (a
/// collection rewritten whole per frame costs O(frames^2) over a run, and holds every entry in
/// memory).
class VtkFrames final : public Observer {
public:
    /// \brief Keeps the settings; files are created in begin().
    explicit VtkFrames(VtkFramesSettings settings);

    /// \brief Measures one frame of the initial state, for estimated_bytes().
    void bind(const SceneView& scene) override;
    /// \brief Creates the frames folder and writes an empty collection.
    void begin(const SceneView& scene, const std::filesystem::path& output_dir) override;
    /// \brief Writes a frame and the updated collection when `info.step` is a multiple of `every`.
    void observe(const SceneView& scene, const StepInfo& info) override;
    /// \brief The collection first, then every frame written.
    WrittenFiles written_files() const override;
    /// \brief Frames written and the collection's length, for a checkpoint.
    void save_checkpoint(CheckpointWriter& out) const override;
    /// \brief Cuts the collection back to the checkpoint's frames and continues numbering after
    /// them (later frames of the interrupted run are overwritten as the run reaches them).
    void resume(const SceneView& scene, const std::filesystem::path& output_dir, CheckpointReader& in) override;
    /// \brief The collection `<prefix>.pvd` (key `prefix`) and the numbered frames
    /// `<folder>/<prefix>_000000.vtu`, ... (key `folder`).
    std::vector<PlannedFile> planned_files() const override;
    /// \brief Frames written times the size of one frame of the scene (measured at bind(); the
    /// mesh does not change during a run), plus the collection that lists them.
    std::uintmax_t estimated_bytes(long steps) const override;

    /// \brief The grid of the scene's current state (exposed for tests).
    static UnstructuredGrid frame_grid(const SceneView& scene);

private:
    /// Sets the folders and creates the frames folder.
    void open_folders(const std::filesystem::path& output_dir);
    /// Writes `entries` (collection lines) at the end of the collection's body, then the closing tags.
    void append_to_collection(const std::string& entries);

    /// Frame `index` relative to the output folder, '/'-separated.
    std::string frame_file(std::size_t index) const;

    VtkFramesSettings settings_;
    std::uintmax_t frame_bytes_ = 0;  ///< one frame's size (bind())
    std::filesystem::path output_dir_;
    std::filesystem::path collection_;
    long frame_count_ = 0;
    std::uintmax_t collection_body_bytes_ = 0;  ///< bytes of the collection before its closing tags
};

}  // namespace soma::outputs
