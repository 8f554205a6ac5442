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
/// `<output>/<prefix>.pvd` lists every frame with its time and is replaced atomically after each
/// frame, so it is valid XML naming only complete files at any moment.
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
    std::vector<std::filesystem::path> files() const override;
    /// \brief The collection `<prefix>.pvd` (key `prefix`) and the numbered frames
    /// `<folder>/<prefix>_000000.vtu`, ... (key `folder`).
    std::vector<PlannedFile> planned_files() const override;
    /// \brief Frames written times the size of one frame of the scene (measured at bind(); the
    /// mesh does not change during a run), plus the collection that lists them.
    std::uintmax_t estimated_bytes(long steps) const override;

    /// \brief The grid of the scene's current state (exposed for tests).
    static UnstructuredGrid frame_grid(const SceneView& scene);

private:
    struct Frame {
        double time;
        std::string file;  ///< relative to the collection's folder, '/'-separated
    };
    void write_collection() const;

    /// Frame `index` relative to the output folder, '/'-separated.
    std::string frame_file(std::size_t index) const;

    VtkFramesSettings settings_;
    std::uintmax_t frame_bytes_ = 0;  ///< one frame's size (bind())
    std::filesystem::path output_dir_;
    std::filesystem::path collection_;
    std::vector<Frame> frames_;
};

}  // namespace soma::outputs
