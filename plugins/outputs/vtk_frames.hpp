#pragma once
/// \file vtk_frames.hpp
/// \brief The `vtk` output: one .vtu file per written step and a .pvd collection for ParaView.

#include "vtu_file.hpp"

#include "soma/contact_constraint.hpp"
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
    /// With contact constraints in the scene (ncp_contact): also a contact frame per written step
    /// (<prefix>_contacts_000000.vtu, collection <prefix>_contacts.pvd).
    bool contacts = true;
};

/// \brief One .pvd collection that grows by one entry per frame: valid XML naming only complete
/// files between frames, each entry one write over the old closing tags (a collection rewritten
/// whole per frame costs O(frames^2) over a run, and holds every entry in memory).
class VtkCollection {
public:
    /// Writes an empty collection at \p path (a run that fails before its first frame leaves no
    /// stale collection of an earlier run behind).
    void begin(const std::filesystem::path& path);
    /// Appends a frame's entry: its time and its file, relative to the collection's folder.
    void append(double time, const std::string& file);
    /// Cuts the collection at \p path back to \p body_bytes (a checkpoint's), checking it is at
    /// least that long (\p what names it in the error).
    void resume(const std::filesystem::path& path, std::uintmax_t body_bytes, const std::string& what);
    const std::filesystem::path& path() const { return path_; }
    std::uintmax_t body_bytes() const { return body_bytes_; }
    /// An entry's size at a typical time, for estimates.
    static std::uintmax_t entry_bytes(const std::string& file);

private:
    void append_text(const std::string& entries);
    std::filesystem::path path_;
    std::uintmax_t body_bytes_ = 0;  ///< bytes before its closing tags
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
/// before the collection names it (VtkCollection), so a frame costs the same at the millionth
/// frame as at the first.
///
/// With contact constraints in the scene (ContactConstraint: ncp_contact) and `contacts`, each
/// written step also gets a contact frame (contact_grid) in its own collection
/// `<prefix>_contacts.pvd`: the contacts of the step just taken, one vertex each where its force
/// acts on its first end, with the forces the integrator found.
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
    /// \brief The contacts of \p constraints at the scene's current state (exposed for tests): a
    /// vertex per contact at its first end a (contact_constraint.hpp: where its force acts on a,
    /// a body's surface point or a node), with point data `normal` (unit, from b towards a),
    /// `normal_force` (N), `friction_force` (world vector on a, N), `force` (their sum, on a; b
    /// takes the opposite), `gap` (m, at this state: n . (x_a - x_b) - thickness), `element_a`,
    /// `element_b` (indices in scene.elements(), -1 for the world) and `constraint` (index in \p
    /// constraints). Forces are those of the step committed (0 before the first).
    static UnstructuredGrid contact_grid(const SceneView& scene, const std::vector<const ContactConstraint*>& constraints);

private:
    /// Sets the folders and creates the frames folder.
    void open_folders(const std::filesystem::path& output_dir);
    /// Frame `index` relative to the output folder, '/'-separated (of the contacts' series with \p contacts).
    std::string frame_file(std::size_t index, bool contacts = false) const;

    VtkFramesSettings settings_;
    std::uintmax_t frame_bytes_ = 0;  ///< one frame's size (bind())
    std::uintmax_t contact_frame_bytes_ = 0;  ///< a contact frame without contacts (bind())
    std::vector<const ContactConstraint*> contact_constraints_;  ///< bind(); empty: no contact frames
    std::filesystem::path output_dir_;
    VtkCollection collection_, contact_collection_;
    long frame_count_ = 0;
};

}  // namespace soma::outputs
