#include "vtk_frames.hpp"

#include "file_writing.hpp"

#include "soma/checkpoint.hpp"
#include "soma/element.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <fmt/format.h>

#include <fstream>
#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace soma::outputs {

VtkFrames::VtkFrames(VtkFramesSettings settings) : settings_(std::move(settings)) {
    if (settings_.every < 1) throw std::invalid_argument("vtk output: `every` must be at least 1");
    if (settings_.prefix.empty()) throw std::invalid_argument("vtk output: `prefix` must not be empty");
}

UnstructuredGrid VtkFrames::frame_grid(const SceneView& scene) {
    UnstructuredGrid grid;
    std::vector<double> velocity, radius;
    // Indices inside each element, so a user can click a point or cell in ParaView and read the
    // node, edge or triangle index a scene selects (`fixed`, probes, loads); -1 on cells of the
    // other kinds.
    std::vector<std::int32_t> point_element, point_index, cell_element, cell_edge, cell_triangle, cell_visual;
    const State& state = scene.state();
    const auto& elements = scene.elements();
    DisplaySurface display;

    for (std::size_t e = 0; e < elements.size(); ++e) {
        const Element& element = *elements[e];
        const Geometry& geometry = element.geometry();
        const std::int64_t base = static_cast<std::int64_t>(grid.points.size() / 3);
        const std::size_t count = geometry.point_dofs.size();
        const std::int32_t id = static_cast<std::int32_t>(e);
        grid.comments.push_back(fmt::format("element_id {}: {}", e, element.name()));

        // Mapped points (a rigid body's, a GVS robot's) through their map, so a body shows its orientation.
        std::vector<Vec3> mapped_x, mapped_xdot;
        if (geometry.mapped_points) {
            mapped_x.resize(count);
            mapped_xdot.resize(count);
            element.point_states(state.q, state.v, mapped_x, mapped_xdot);
        }
        for (std::size_t p = 0; p < count; ++p) {
            if (geometry.mapped_points) {
                const Vec3& x = mapped_x[p];
                const Vec3& xdot = mapped_xdot[p];
                grid.points.insert(grid.points.end(), x.data(), x.data() + 3);
                velocity.insert(velocity.end(), xdot.data(), xdot.data() + 3);
            } else {
                for (const Index dof : geometry.point_dofs[p]) {
                    // A wrong geometry table is an element bug; say which instead of reading past q.
                    if (dof < 0 || dof >= state.q.size() || dof >= state.v.size())
                        throw std::logic_error(fmt::format("element '{}': point {} maps to DOF {}, but the state has {}",
                                                           element.name(), p, dof, state.q.size()));
                    grid.points.push_back(state.q[dof]);
                    velocity.push_back(state.v[dof]);
                }
            }
            // Elements without a contact radius (solids, shells) report 0 rather than omitting
            // the array, so every frame has the same arrays.
            radius.push_back(geometry.point_radius.size() == count ? geometry.point_radius[p] : 0.0);
            point_element.push_back(id);
            point_index.push_back(static_cast<std::int32_t>(p));
        }

        std::vector<bool> used(count, false);
        const auto add_cell = [&](std::uint8_t type, auto const& points, std::int32_t edge, std::int32_t triangle) {
            for (const Index p : points) {
                if (p < 0 || static_cast<std::size_t>(p) >= count)
                    throw std::logic_error(fmt::format("element '{}': a cell uses point {} of {}", element.name(), p,
                                                       count));
                used[static_cast<std::size_t>(p)] = true;
                grid.connectivity.push_back(base + p);
            }
            grid.offsets.push_back(static_cast<std::int64_t>(grid.connectivity.size()));
            grid.types.push_back(type);
            cell_element.push_back(id);
            cell_edge.push_back(edge);
            cell_triangle.push_back(triangle);
            cell_visual.push_back(0);
        };
        for (std::size_t e = 0; e < geometry.edges.size(); ++e)
            add_cell(kVtkLine, geometry.edges[e], static_cast<std::int32_t>(e), -1);
        for (std::size_t t = 0; t < geometry.triangles.size(); ++t)
            add_cell(kVtkTriangle, geometry.triangles[t], -1, static_cast<std::int32_t>(t));
        for (std::size_t p = 0; p < count; ++p)
            if (!used[p]) add_cell(kVtkVertex, std::array<Index, 1>{static_cast<Index>(p)}, -1, -1);

        // The element's display surface (a URDF link's visual mesh): points with node_index -1,
        // triangles with visual = 1, after the element's own.
        element.display_surface(state.q, state.v, display);
        if (display.velocities.size() != display.vertices.size())
            throw std::logic_error(fmt::format("element '{}': its display surface has {} vertices and {} velocities",
                                               element.name(), display.vertices.size(), display.velocities.size()));
        const auto display_base = static_cast<std::int64_t>(grid.points.size() / 3);
        for (std::size_t k = 0; k < display.vertices.size(); ++k) {
            grid.points.insert(grid.points.end(), display.vertices[k].data(), display.vertices[k].data() + 3);
            velocity.insert(velocity.end(), display.velocities[k].data(), display.velocities[k].data() + 3);
            radius.push_back(0.0);
            point_element.push_back(id);
            point_index.push_back(-1);
        }
        for (const auto& triangle : display.triangles) {
            for (const Index p : triangle) {
                if (p < 0 || static_cast<std::size_t>(p) >= display.vertices.size())
                    throw std::logic_error(fmt::format("element '{}': a display triangle uses vertex {} of {}",
                                                       element.name(), p, display.vertices.size()));
                grid.connectivity.push_back(display_base + p);
            }
            grid.offsets.push_back(static_cast<std::int64_t>(grid.connectivity.size()));
            grid.types.push_back(kVtkTriangle);
            cell_element.push_back(id);
            cell_edge.push_back(-1);
            cell_triangle.push_back(-1);
            cell_visual.push_back(1);
        }
    }

    grid.point_data.push_back({"element_id", 1, std::move(point_element)});
    grid.point_data.push_back({"node_index", 1, std::move(point_index)});
    grid.point_data.push_back({"velocity", 3, std::move(velocity)});
    grid.point_data.push_back({"radius", 1, std::move(radius)});
    grid.cell_data.push_back({"element_id", 1, std::move(cell_element)});
    grid.cell_data.push_back({"edge_index", 1, std::move(cell_edge)});
    grid.cell_data.push_back({"triangle_index", 1, std::move(cell_triangle)});
    grid.cell_data.push_back({"visual", 1, std::move(cell_visual)});
    return grid;
}

namespace {
constexpr std::string_view kCollectionHead = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
constexpr std::string_view kCollectionTail = "  </Collection>\n</VTKFile>\n";
}  // namespace

void VtkFrames::bind(const SceneView& scene) {
    UnstructuredGrid grid = frame_grid(scene);
    if (settings_.encoding == VtkEncoding::ascii) {
        // Text grows with the digits: give every position and velocity the width of a typical
        // moving value (17 significant digits), not the initial state's short zeros.
        constexpr double typical = -0.012345678901234567;
        std::fill(grid.points.begin(), grid.points.end(), typical);
        for (VtkDataArray& array : grid.point_data)
            if (auto* reals = std::get_if<std::vector<double>>(&array.values)) std::fill(reals->begin(), reals->end(), typical);
    }
    frame_bytes_ = vtu_text(grid, settings_.encoding).size();
}

std::string VtkFrames::frame_file(std::size_t index) const {
    return (settings_.folder / fmt::format("{}_{:06d}.vtu", settings_.prefix, index)).generic_string();
}

std::vector<PlannedFile> VtkFrames::planned_files() const {
    return {{settings_.prefix + ".pvd", "prefix", false}, {frame_file(0), "folder", true}};
}

std::uintmax_t VtkFrames::estimated_bytes(long steps) const {
    steps = std::max(steps, 0L);
    const long every = settings_.every;
    const auto frames = static_cast<std::uintmax_t>(1 + steps / every + (steps % every != 0 ? 1 : 0));
    // One collection line per frame; the time printed at a typical width (0.125).
    const std::uintmax_t line =
        fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", "0.125", frame_file(0)).size();
    return frames * (frame_bytes_ + line) + 100;
}

void VtkFrames::open_folders(const std::filesystem::path& output_dir) {
    output_dir_ = output_dir;
    std::filesystem::create_directories(output_dir_ / settings_.folder);
    collection_ = output_dir_ / (settings_.prefix + ".pvd");
}

void VtkFrames::begin(const SceneView&, const std::filesystem::path& output_dir) {
    open_folders(output_dir);
    frame_count_ = 0;
    // An empty collection from the start: a run that fails before its first frame leaves no
    // stale collection of an earlier run behind.
    write_file_atomically(collection_, std::string(kCollectionHead) + std::string(kCollectionTail));
    collection_body_bytes_ = kCollectionHead.size();
}

void VtkFrames::observe(const SceneView& scene, const StepInfo& info) {
    if (info.step % settings_.every != 0 && !info.final_step) return;  // the end state is always written
    if (collection_.empty()) throw std::logic_error("vtk output: observe() before begin()");
    const std::string relative = frame_file(static_cast<std::size_t>(frame_count_));
    // The frame is complete on disk before the collection names it.
    write_file_atomically(output_dir_ / relative, vtu_text(frame_grid(scene), settings_.encoding));
    ++frame_count_;
    append_to_collection(fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n",
                                     exact_real(info.t), xml_escape(relative)));
}

void VtkFrames::append_to_collection(const std::string& entries) {
    // One write of the entry and the closing tags over the old closing tags.
    std::fstream file(collection_, std::ios::in | std::ios::out | std::ios::binary);
    const std::string text = entries + std::string(kCollectionTail);
    file.seekp(static_cast<std::streamoff>(collection_body_bytes_));
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.flush();
    if (!file) throw std::runtime_error("vtk output: cannot write '" + collection_.string() + "' (disk full?)");
    collection_body_bytes_ += entries.size();
}

void VtkFrames::save_checkpoint(CheckpointWriter& out) const {
    out.integer("frames", frame_count_);
    out.integer("collection_bytes", static_cast<std::int64_t>(collection_body_bytes_));
}

void VtkFrames::resume(const SceneView&, const std::filesystem::path& output_dir, CheckpointReader& in) {
    open_folders(output_dir);
    frame_count_ = static_cast<long>(in.integer("frames"));
    collection_body_bytes_ = static_cast<std::uintmax_t>(in.integer("collection_bytes"));
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(collection_, ec);
    if (ec || size < collection_body_bytes_)
        throw CheckpointError(fmt::format("vtk output: the collection '{}' is {} than at the checkpoint ({} bytes): "
                                          "the output folder is not the checkpointed run's",
                                          collection_.string(), ec ? "missing or unreadable, not longer" : "shorter",
                                          collection_body_bytes_));
    // Drop the entries written after the checkpoint, then close the collection again.
    std::filesystem::resize_file(collection_, collection_body_bytes_);
    append_to_collection("");
}

WrittenFiles VtkFrames::written_files() const {
    if (collection_.empty()) return {};
    return {collection_, 1 + static_cast<std::size_t>(frame_count_)};
}

}  // namespace soma::outputs
