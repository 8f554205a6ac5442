#pragma once
/// \file csv_series.hpp
/// \brief The `csv` output: a time series of probes, one row per written step.

#include "soma/observer.hpp"
#include "soma/types.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace soma {
class Element;
class Contributor;
}  // namespace soma

namespace soma::outputs {

/// One probe of the series: what one group of columns records.
struct CsvProbe {
    enum class Kind {
        node_position,      ///< x, y, z of one node of one element (3 columns)
        node_velocity,      ///< vx, vy, vz of one node of one element (3 columns)
        energy,             ///< kinetic, potential, total or one contributor's potential energy
        newton_iterations,  ///< Newton iterations of the accepted attempt
        linear_iterations,  ///< Krylov iterations of the accepted attempt (StepInfo::linear_iterations)
        step_time,          ///< wall time of the step, retries included (s)
        dt,                 ///< size of the step just taken (s)
        orientation,        ///< qw, qx, qy, qz: the unit quaternion (body to world) of an element's
                            ///< orientation block (4 columns)
        angular_velocity,   ///< wx, wy, wz: that block's velocity DOFs, body coordinates (3 columns)
        statistic,          ///< one quantity a scene term reports (Contributor::statistics)
    };
    Kind kind = Kind::node_position;
    std::string element;  ///< node, orientation and angular velocity probes: the element's scene name
    long node = 0;        ///< node probes: point index; negative counts from the end (-1: last)
    /// Node probes, instead of `node`: the node nearest to this position in the initial
    /// configuration (reported with SceneView::note; the columns name the node chosen).
    std::optional<Vec3> at;
    std::string energy;   ///< energy probes: "kinetic", "potential", "total" or a contributor name
    std::string term;       ///< statistic probes: the scene term's name
    std::string statistic;  ///< statistic probes: the quantity's name
    /// Prefix for errors found at begin(), e.g. "scene.yaml:12:7: outputs[0].probes[2]"; may be
    /// empty (tests, programmatic use).
    std::string where;
};

/// Everything the `csv` output needs; registration.cpp fills it from the scene.
struct CsvSeriesSettings {
    std::string name;             ///< the output's scene name (names the default file)
    long every = 1;               ///< write every N accepted steps (step 0 always)
    std::filesystem::path file;   ///< relative to the output folder; empty: "<name or series>.csv"
    std::vector<CsvProbe> probes;
};

/// \brief Writes the `csv` time series.
///
/// Columns: `time`, then each probe's columns in scene order (see column naming in
/// plugins/outputs/README.md). Each row is written and flushed when observed, so a run that stops
/// early leaves a complete file; numbers are the shortest text that reads back exactly.
class CsvSeries final : public Observer {
public:
    /// \brief Keeps the settings; nothing is checked against the scene until begin().
    explicit CsvSeries(CsvSeriesSettings settings);

    /// \brief Resolves every probe against the scene (unknown element, node out of range,
    /// unknown energy: soma::InputError), so `soma check` reports them. A node probe given by
    /// position picks the nearest node of the current (initial) state and tells SceneView::note.
    void bind(const SceneView& scene) override;
    /// \brief Creates the file and writes the header (binds first if bind() was not called).
    void begin(const SceneView& scene, const std::filesystem::path& output_dir) override;
    /// \brief Appends and flushes one row when `info.step` is a multiple of `every`.
    void observe(const SceneView& scene, const StepInfo& info) override;
    /// \brief Closes the file.
    void end(const SceneView& scene, const RunSummary& summary) override;
    /// \brief The CSV file, once begin() has created it.
    WrittenFiles written_files() const override;
    /// \brief The file's length after the last row, for a checkpoint.
    void save_checkpoint(CheckpointWriter& out) const override;
    /// \brief Cuts the file back to its length at the checkpoint (rows written after it go) and
    /// appends from there; refuses a file whose header is not this output's.
    void resume(const SceneView& scene, const std::filesystem::path& output_dir, CheckpointReader& in) override;
    /// \brief The CSV file relative to the output folder, at key `file` (or `name`, which names
    /// the default file).
    std::vector<PlannedFile> planned_files() const override;
    /// \brief Header plus one row per written step, each column at a typical width (after bind()).
    std::uintmax_t estimated_bytes(long steps) const override;

    /// \brief The header's column names (after begin()), for tests and diagnostics.
    const std::vector<std::string>& columns() const { return columns_; }

private:
    /// A resolved probe: appends its values for the current scene to a row.
    using Column = std::function<void(const SceneView&, const StepInfo&, std::vector<double>&)>;

    void resolve_probe(const SceneView& scene, const CsvProbe& probe);
    /// The file in the output folder, its folder created.
    std::filesystem::path open_path(const std::filesystem::path& output_dir) const;
    /// The header line (without its line break).
    std::string header() const;
    /// The file relative to the output folder: `file`, or "<name or series>.csv".
    std::filesystem::path relative_file() const;

    CsvSeriesSettings settings_;
    std::filesystem::path path_;
    std::ofstream out_;
    std::vector<std::string> columns_;
    std::vector<Column> writers_;
    std::vector<double> row_;  ///< reused between rows
    std::uintmax_t bytes_written_ = 0;  ///< the file's length after the last row
    bool bound_ = false;
};

}  // namespace soma::outputs
