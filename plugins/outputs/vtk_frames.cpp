#include "vtk_frames.hpp"

#include "file_writing.hpp"

#include "soma/checkpoint.hpp"
#include "soma/contact_end_position.hpp"
#include "soma/element.hpp"
#include "soma/point_map.hpp"
#include "soma/scene_view.hpp"

#include <fmt/format.h>

#include <fstream>
#include <algorithm>
#include <map>
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

UnstructuredGrid VtkFrames::contact_grid(const SceneView& scene, const std::vector<const ContactConstraint*>& constraints) {
    UnstructuredGrid grid;
    std::vector<double> normal, normal_force, friction_force, force, gap;
    std::vector<std::int32_t> element_a, element_b, constraint_index;
    std::map<const Element*, std::int32_t> element_id;
    for (std::size_t e = 0; e < scene.elements().size(); ++e) element_id[scene.elements()[e]] = static_cast<std::int32_t>(e);
    const auto id_of = [&](const ContactEnd& end) { return end.element ? element_id.at(end.element) : -1; };
    const VectorX& q = scene.state().q;
    FrameKinematics frame;
    for (std::size_t c = 0; c < constraints.size(); ++c) {
        const ContactConstraint& constraint = *constraints[c];
        const std::vector<UnilateralContact>& contacts = constraint.contacts();
        // Forces belong to the committed step's contacts; none yet at the initial state.
        const bool solved = constraint.normal_forces().size() == contacts.size() &&
                            constraint.friction_forces().size() == 2 * contacts.size();
        for (std::size_t i = 0; i < contacts.size(); ++i) {
            const UnilateralContact& contact = contacts[i];
            const Vec3 x_a = contact_end_position(contact.a, q, frame);
            const Vec3 x_b = contact_end_position(contact.b, q, frame);
            Vec3 t1, t2;
            contact_tangents(contact.normal, t1, t2);
            const double lambda_n = solved ? constraint.normal_forces()[i] : 0.0;
            const Vec3 friction = solved ? Vec3(constraint.friction_forces()[2 * i] * t1 + constraint.friction_forces()[2 * i + 1] * t2)
                                         : Vec3::Zero();
            const Vec3 total = lambda_n * contact.normal + friction;
            grid.points.insert(grid.points.end(), x_a.data(), x_a.data() + 3);
            normal.insert(normal.end(), contact.normal.data(), contact.normal.data() + 3);
            normal_force.push_back(lambda_n);
            friction_force.insert(friction_force.end(), friction.data(), friction.data() + 3);
            force.insert(force.end(), total.data(), total.data() + 3);
            gap.push_back(contact.normal.dot(x_a - x_b) - contact.thickness);
            element_a.push_back(id_of(contact.a));
            element_b.push_back(id_of(contact.b));
            constraint_index.push_back(static_cast<std::int32_t>(c));
            const auto point = static_cast<std::int64_t>(grid.types.size());
            grid.connectivity.push_back(point);
            grid.offsets.push_back(point + 1);
            grid.types.push_back(kVtkVertex);
        }
    }
    for (std::size_t c = 0; c < constraints.size(); ++c)
        grid.comments.push_back(fmt::format("constraint {}: {}", c, constraints[c]->name()));
    grid.point_data.push_back({"normal", 3, std::move(normal)});
    grid.point_data.push_back({"normal_force", 1, std::move(normal_force)});
    grid.point_data.push_back({"friction_force", 3, std::move(friction_force)});
    grid.point_data.push_back({"force", 3, std::move(force)});
    grid.point_data.push_back({"gap", 1, std::move(gap)});
    grid.point_data.push_back({"element_a", 1, std::move(element_a)});
    grid.point_data.push_back({"element_b", 1, std::move(element_b)});
    grid.point_data.push_back({"constraint", 1, std::move(constraint_index)});
    return grid;
}

namespace {
constexpr std::string_view kCollectionHead = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
constexpr std::string_view kCollectionTail = "  </Collection>\n</VTKFile>\n";
/// A collection's line for the frame \p file at \p time.
std::string collection_entry(double time, const std::string& file) {
    return fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", exact_real(time), xml_escape(file));
}
}  // namespace

void VtkCollection::begin(const std::filesystem::path& path) {
    path_ = path;
    write_file_atomically(path_, std::string(kCollectionHead) + std::string(kCollectionTail));
    body_bytes_ = kCollectionHead.size();
}

std::uintmax_t VtkCollection::entry_bytes(const std::string& file) { return collection_entry(0.125, file).size(); }

void VtkCollection::append(double time, const std::string& file) { append_text(collection_entry(time, file)); }

void VtkCollection::append_text(const std::string& entries) {
    // One write of the entry and the closing tags over the old closing tags.
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    const std::string text = entries + std::string(kCollectionTail);
    file.seekp(static_cast<std::streamoff>(body_bytes_));
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.flush();
    if (!file) throw std::runtime_error("vtk output: cannot write '" + path_.string() + "' (disk full?)");
    body_bytes_ += entries.size();
}

void VtkCollection::resume(const std::filesystem::path& path, std::uintmax_t body_bytes, const std::string& what) {
    path_ = path;
    body_bytes_ = body_bytes;
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path_, ec);
    if (ec || size < body_bytes_)
        throw CheckpointError(fmt::format("vtk output: the {} '{}' is {} than at the checkpoint ({} bytes): "
                                          "the output folder is not the checkpointed run's",
                                          what, path_.string(), ec ? "missing or unreadable, not longer" : "shorter",
                                          body_bytes_));
    // Drop the entries written after the checkpoint, then close the collection again.
    std::filesystem::resize_file(path_, body_bytes_);
    append_text("");
}

void VtkFrames::bind(const SceneView& scene) {
    contact_constraints_.clear();
    if (settings_.contacts)
        for (const Constraint* term : scene.constraint_terms())
            if (const auto* contacts = dynamic_cast<const ContactConstraint*>(term)) contact_constraints_.push_back(contacts);
    // A contact frame without contacts: its size grows with the contacts, which a run finds as it goes.
    contact_frame_bytes_ = contact_constraints_.empty() ? 0 : vtu_text(contact_grid(scene, contact_constraints_), settings_.encoding).size();
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

std::string VtkFrames::frame_file(std::size_t index, bool contacts) const {
    return (settings_.folder / fmt::format("{}{}_{:06d}.vtu", settings_.prefix, contacts ? "_contacts" : "", index)).generic_string();
}

std::vector<PlannedFile> VtkFrames::planned_files() const {
    std::vector<PlannedFile> files{{settings_.prefix + ".pvd", "prefix", false}, {frame_file(0), "folder", true}};
    if (!contact_constraints_.empty()) {
        files.push_back({settings_.prefix + "_contacts.pvd", "prefix", false});
        files.push_back({frame_file(0, true), "folder", true});
    }
    return files;
}

std::uintmax_t VtkFrames::estimated_bytes(long steps) const {
    steps = std::max(steps, 0L);
    const long every = settings_.every;
    const auto frames = static_cast<std::uintmax_t>(1 + steps / every + (steps % every != 0 ? 1 : 0));
    // One collection line per frame; the time printed at a typical width (0.125).
    std::uintmax_t bytes = frames * (frame_bytes_ + VtkCollection::entry_bytes(frame_file(0))) + 100;
    if (!contact_constraints_.empty())
        bytes += frames * (contact_frame_bytes_ + VtkCollection::entry_bytes(frame_file(0, true))) + 100;
    return bytes;
}

void VtkFrames::open_folders(const std::filesystem::path& output_dir) {
    output_dir_ = output_dir;
    std::filesystem::create_directories(output_dir_ / settings_.folder);
}

void VtkFrames::begin(const SceneView&, const std::filesystem::path& output_dir) {
    open_folders(output_dir);
    frame_count_ = 0;
    collection_.begin(output_dir_ / (settings_.prefix + ".pvd"));
    if (!contact_constraints_.empty()) contact_collection_.begin(output_dir_ / (settings_.prefix + "_contacts.pvd"));
}

void VtkFrames::observe(const SceneView& scene, const StepInfo& info) {
    if (info.step % settings_.every != 0 && !info.final_step) return;  // the end state is always written
    if (collection_.path().empty()) throw std::logic_error("vtk output: observe() before begin()");
    const auto index = static_cast<std::size_t>(frame_count_);
    // Each frame is complete on disk before its collection names it.
    write_file_atomically(output_dir_ / frame_file(index), vtu_text(frame_grid(scene), settings_.encoding));
    if (!contact_constraints_.empty())
        write_file_atomically(output_dir_ / frame_file(index, true),
                              vtu_text(contact_grid(scene, contact_constraints_), settings_.encoding));
    ++frame_count_;
    collection_.append(info.t, frame_file(index));
    if (!contact_constraints_.empty()) contact_collection_.append(info.t, frame_file(index, true));
}

void VtkFrames::save_checkpoint(CheckpointWriter& out) const {
    out.integer("frames", frame_count_);
    out.integer("collection_bytes", static_cast<std::int64_t>(collection_.body_bytes()));
    if (!contact_constraints_.empty())
        out.integer("contact_collection_bytes", static_cast<std::int64_t>(contact_collection_.body_bytes()));
}

void VtkFrames::resume(const SceneView&, const std::filesystem::path& output_dir, CheckpointReader& in) {
    open_folders(output_dir);
    frame_count_ = static_cast<long>(in.integer("frames"));
    collection_.resume(output_dir_ / (settings_.prefix + ".pvd"), static_cast<std::uintmax_t>(in.integer("collection_bytes")),
                       "collection");
    if (!contact_constraints_.empty()) {
        std::int64_t bytes = 0;
        try {
            bytes = in.integer("contact_collection_bytes");
        } catch (const CheckpointError& e) {
            // A checkpoint written before contact frames existed, or with `contacts: false`.
            throw CheckpointError(std::string(e.what()) + "; the checkpoint has no contact frames: continue it with "
                                                          "`contacts: false` in this vtk output");
        }
        contact_collection_.resume(output_dir_ / (settings_.prefix + "_contacts.pvd"), static_cast<std::uintmax_t>(bytes),
                                   "contacts' collection");
    }
}

WrittenFiles VtkFrames::written_files() const {
    if (collection_.path().empty()) return {};
    // The contact frames are counted beside the frames (one each), under the frames' collection.
    const std::size_t series = contact_constraints_.empty() ? 1 : 2;
    return {collection_.path(), series * (1 + static_cast<std::size_t>(frame_count_))};
}

}  // namespace soma::outputs
