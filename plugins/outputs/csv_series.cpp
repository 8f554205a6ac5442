#include "csv_series.hpp"

#include "soma/checkpoint.hpp"

#include "file_writing.hpp"

#include "soma/constraint.hpp"
#include "soma/contributor.hpp"
#include "soma/element.hpp"
#include "soma/point_map.hpp"
#include "soma/nearest_point.hpp"
#include "soma/parameters.hpp"
#include "soma/scene_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

namespace soma::outputs {

namespace {

[[noreturn]] void fail(const CsvProbe& probe, const std::string& message) {
    throw InputError(probe.where.empty() ? message : probe.where + ": " + message);
}

std::string element_names(const SceneView& scene) {
    std::string names;
    for (const Element* element : scene.elements()) {
        if (!names.empty()) names += ", ";
        names += "'" + element->name() + "'";
    }
    return names.empty() ? "none" : names;
}

/// The global DOFs of one point, checked against the state so a wrong geometry table is
/// reported instead of reading past the vector.
const std::array<Index, 3>& point_dofs(const Element& element, Index point, const VectorX& q) {
    const auto& dofs = element.geometry().point_dofs[static_cast<std::size_t>(point)];
    for (const Index dof : dofs)
        if (dof < 0 || dof >= q.size())
            throw std::logic_error(fmt::format("element '{}': point {} maps to DOF {}, but the state has {}",
                                               element.name(), point, dof, q.size()));
    return dofs;
}

/// The element a probe names, or an InputError listing the scene's elements.
const Element* probe_element(const SceneView& scene, const CsvProbe& probe) {
    const Element* element = scene.find_element(probe.element);
    if (!element) fail(probe, fmt::format("no element named '{}' (elements: {})", probe.element, element_names(scene)));
    return element;
}

/// The element's orientation: its first manifold block with 4 coordinates (a unit quaternion
/// w, x, y, z, body to world) and 3 tangent DOFs (the angular velocity in body coordinates,
/// element.hpp ManifoldBlock). -1 when it has none.
Index orientation_block(const Element& element) {
    const std::vector<ManifoldBlock> blocks = element.manifold_blocks();
    for (std::size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].coordinate_count == 4 && blocks[b].tangent_size == 3) return static_cast<Index>(b);
    return -1;
}

}  // namespace

CsvSeries::CsvSeries(CsvSeriesSettings settings) : settings_(std::move(settings)) {
    if (settings_.every < 1) throw std::invalid_argument("csv output: `every` must be at least 1");
}

namespace {

/// The scene term named \p name, for a probe's \p key; \p not_what completes the message
/// "<key> '<name>' is <not_what> the name of a scene term".
const Contributor* named_term(const SceneView& scene, const CsvProbe& probe, const std::string& name, const char* key,
                              const char* not_what) {
    const auto& terms = scene.contributors();
    const auto named = [&](const Contributor* c) { return c->name() == name; };
    const auto found = std::find_if(terms.begin(), terms.end(), named);
    if (found == terms.end()) {
        std::string names;
        for (const Contributor* c : terms) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", c->name());
        fail(probe, fmt::format("{} '{}' is {} the name of a scene term (terms: {})", key, name, not_what,
                                names.empty() ? "none" : names));
    }
    // Two unnamed forces of one type share their type as name; a silent pick of the first
    // would record the wrong term.
    if (std::count_if(terms.begin(), terms.end(), named) > 1)
        fail(probe, fmt::format("{} '{}' names several scene terms; give them distinct `name`s", key, name));
    return *found;
}

/// The index of the probe's statistic among those a term or constraint offers; fails naming them.
std::size_t statistic_index(const CsvProbe& probe, const std::vector<TermStatistic>& offered) {
    std::size_t index = 0;
    while (index < offered.size() && offered[index].name != probe.statistic) ++index;
    if (index == offered.size()) {
        std::string names;
        for (const TermStatistic& t : offered) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", t.name);
        fail(probe, fmt::format("term '{}' reports no statistic '{}' (it reports: {})", probe.term, probe.statistic,
                                names.empty() ? "none" : names));
    }
    return index;
}

}  // namespace

void CsvSeries::resolve_probe(const SceneView& scene, const CsvProbe& probe) {
    using Kind = CsvProbe::Kind;
    switch (probe.kind) {
        case Kind::node_position:
        case Kind::node_velocity: {
            const Element* element = probe_element(scene, probe);
            const long count = static_cast<long>(element->geometry().point_dofs.size());
            long node = probe.node < 0 ? count + probe.node : probe.node;
            if (probe.at) {
                const NearestPoint nearest = nearest_point(*element, scene.state().q, *probe.at);
                if (nearest.index < 0) fail(probe, fmt::format("element '{}' has no nodes", probe.element));
                node = nearest.index;
                const std::string where = probe.where.empty() ? probe.element : probe.where;
                scene.note(where + ": " + describe_nearest_point(probe.element, *probe.at, nearest));
            } else if (node < 0 || node >= count)
                fail(probe, fmt::format("node {} is out of range: element '{}' has {} nodes (0..{}, or "
                                        "-{}..-1 counting from the end)",
                                        probe.node, probe.element, count, count - 1, count));
            const bool velocity = probe.kind == Kind::node_velocity;
            // Columns name the resolved index, so "-1" reads as the node it actually is.
            const std::string stem = fmt::format("{}.node{}.", probe.element, node);
            for (const char* axis : {"x", "y", "z"}) columns_.push_back(stem + (velocity ? "v" : "") + axis);
            const Index point = static_cast<Index>(node);
            writers_.push_back([element, point, velocity](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                const State& state = s.state();
                if (element->geometry().mapped_points) {  // a rigid body's or GVS robot's point: through its map
                    Vec3 x, xdot;
                    element->point_state(point, state.q, state.v, x, xdot);
                    const Vec3& value = velocity ? xdot : x;
                    row.insert(row.end(), value.data(), value.data() + 3);
                    return;
                }
                const auto& dofs = point_dofs(*element, point, state.q);
                const VectorX& values = velocity ? state.v : state.q;
                for (const Index dof : dofs) row.push_back(values[dof]);
            });
            return;
        }
        case Kind::orientation:
        case Kind::angular_velocity: {
            const Element* element = probe_element(scene, probe);
            const Index block = orientation_block(*element);
            if (block < 0)
                fail(probe, fmt::format("element '{}' has no orientation (a unit quaternion with an angular "
                                        "velocity, as a rigid_body has)",
                                        probe.element));
            if (probe.kind == Kind::orientation) {
                for (const char* c : {"qw", "qx", "qy", "qz"}) columns_.push_back(probe.element + "." + c);
                writers_.push_back([element, block](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                    const double* q = s.state().q.data() + element->block_coordinate(block);
                    row.insert(row.end(), q, q + 4);
                });
                return;
            }
            for (const char* c : {"wx", "wy", "wz"}) columns_.push_back(probe.element + "." + c);
            std::array<Index, 3> dofs{};
            const Index first = element->manifold_blocks()[static_cast<std::size_t>(block)].first_dof;
            for (Index k = 0; k < 3; ++k) dofs[static_cast<std::size_t>(k)] = element->global_dof(first + k);
            writers_.push_back([dofs](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                for (const Index dof : dofs) row.push_back(s.state().v[dof]);
            });
            return;
        }
        case Kind::energy: {
            columns_.push_back("energy." + probe.energy);
            if (probe.energy == "kinetic") {
                writers_.push_back([](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                    row.push_back(s.kinetic_energy());
                });
                return;
            }
            if (probe.energy == "potential") {
                writers_.push_back([](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                    row.push_back(s.potential_energy());
                });
                return;
            }
            if (probe.energy == "total") {
                writers_.push_back([](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                    row.push_back(s.kinetic_energy() + s.potential_energy());
                });
                return;
            }
            const Contributor* term = named_term(scene, probe, probe.energy, "energy", "neither kinetic, potential, total nor");
            writers_.push_back([term](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                row.push_back(s.potential_energy(*term));
            });
            return;
        }
        case Kind::statistic: {
            // A constraint by that name (a contact constraint's forces), else a scene term.
            const auto constraints = scene.constraint_terms();
            const auto named = [&](const Constraint* c) { return c->name() == probe.term; };
            const auto constraint = std::find_if(constraints.begin(), constraints.end(), named);
            if (std::count_if(constraints.begin(), constraints.end(), named) > 1)
                fail(probe, fmt::format("term '{}' names several constraints; give them distinct `name`s", probe.term));
            if (constraint != constraints.end()) {
                const Constraint* c = *constraint;
                const std::size_t index = statistic_index(probe, c->statistics());
                columns_.push_back(probe.term + "." + probe.statistic);
                writers_.push_back([c, index](const SceneView&, const StepInfo&, std::vector<double>& row) {
                    row.push_back(c->statistic(index));
                });
                return;
            }
            const Contributor* term = named_term(scene, probe, probe.term, "term", "not");
            const std::size_t index = statistic_index(probe, term->statistics());
            columns_.push_back(probe.term + "." + probe.statistic);
            writers_.push_back([term, index](const SceneView& s, const StepInfo&, std::vector<double>& row) {
                EvalContext context;
                context.t = s.state().t;
                context.q = &s.state().q;
                context.v = &s.state().v;
                context.a = &s.state().a;
                context.step_start = &s.state();
                row.push_back(term->statistic(index, context));
            });
            return;
        }
        case Kind::newton_iterations:
            columns_.push_back("newton_iterations");
            writers_.push_back([](const SceneView&, const StepInfo& info, std::vector<double>& row) {
                row.push_back(info.newton_iterations);
            });
            return;
        case Kind::linear_iterations:
            columns_.push_back("linear_iterations");
            writers_.push_back([](const SceneView&, const StepInfo& info, std::vector<double>& row) {
                row.push_back(info.linear_iterations);
            });
            return;
        case Kind::step_time:
            columns_.push_back("step_time_s");
            writers_.push_back([](const SceneView&, const StepInfo& info, std::vector<double>& row) {
                row.push_back(info.wall_seconds);
            });
            return;
        case Kind::dt:
            columns_.push_back("dt");
            writers_.push_back([](const SceneView&, const StepInfo& info, std::vector<double>& row) {
                row.push_back(info.dt);
            });
            return;
    }
}

void CsvSeries::bind(const SceneView& scene) {
    columns_ = {"time"};
    writers_.clear();
    for (const CsvProbe& probe : settings_.probes) {
        const std::size_t before = columns_.size();
        resolve_probe(scene, probe);
        // A repeated column is almost always a copy-paste slip, and pandas would rename it.
        for (std::size_t i = before; i < columns_.size(); ++i)
            if (std::find(columns_.begin(), columns_.begin() + static_cast<long>(before), columns_[i]) !=
                columns_.begin() + static_cast<long>(before))
                fail(probe, fmt::format("column '{}' is already recorded by an earlier probe{}", columns_[i],
                                        probe.at ? " (the node nearest to this probe's `at` is the same node)" : ""));
    }
    bound_ = true;
}

std::filesystem::path CsvSeries::relative_file() const {
    if (!settings_.file.empty()) return settings_.file;
    return (settings_.name.empty() ? std::string("series") : settings_.name) + ".csv";
}

std::vector<PlannedFile> CsvSeries::planned_files() const {
    return {{relative_file(), !settings_.file.empty() ? "file" : settings_.name.empty() ? "" : "name", false}};
}

std::uintmax_t CsvSeries::estimated_bytes(long steps) const {
    // Typical characters per value, comma included. A changing real prints in the shortest text
    // that reads back exactly: up to 17 significant digits with sign, point and exponent, about
    // 20 characters (-0.012345678901234567); the time column is a multiple of dt (0.125); the
    // Newton count is one digit or two. A coordinate that never moves prints "0" and makes the
    // estimate high, never low.
    const auto width = [](const std::string& column) -> std::uintmax_t {
        if (column == "time") return 8;
        if (column == "newton_iterations") return 3;
        if (column == "linear_iterations") return 5;
        if (column == "dt") return 8;
        return 21;
    };
    std::uintmax_t header = 0, row = 0;
    for (const std::string& column : columns_) {
        header += csv_field(column).size() + 1;
        row += width(column);
    }
    const long every = settings_.every;
    steps = std::max(steps, 0L);
    const auto rows = static_cast<std::uintmax_t>(1 + steps / every + (steps % every != 0 ? 1 : 0));
    return header + rows * row;
}

std::filesystem::path CsvSeries::open_path(const std::filesystem::path& output_dir) const {
    const std::filesystem::path path = output_dir / relative_file();
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    return path;
}

std::string CsvSeries::header() const {
    std::string header;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        if (i) header += ',';
        header += csv_field(columns_[i]);
    }
    return header;
}

void CsvSeries::begin(const SceneView& scene, const std::filesystem::path& output_dir) {
    if (!bound_) bind(scene);  // used without a kernel (tests, programmatic use)
    path_ = open_path(output_dir);
    out_.open(path_, std::ios::out | std::ios::trunc);
    if (!out_) throw std::runtime_error("csv output: cannot open '" + path_.string() + "' for writing");
    const std::string first_line = header() + '\n';
    out_ << first_line << std::flush;
    if (!out_) throw std::runtime_error("csv output: cannot write '" + path_.string() + "'");
    bytes_written_ = first_line.size();
    row_.reserve(columns_.size());
}

void CsvSeries::save_checkpoint(CheckpointWriter& out) const {
    out.integer("bytes", static_cast<std::int64_t>(bytes_written_));
}

void CsvSeries::resume(const SceneView& scene, const std::filesystem::path& output_dir, CheckpointReader& in) {
    if (!bound_) bind(scene);
    path_ = open_path(output_dir);
    const auto bytes = static_cast<std::uintmax_t>(in.integer("bytes"));
    std::string first_line;
    {
        std::ifstream existing(path_);
        std::getline(existing, first_line);
    }
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path_, ec);
    if (ec || size < bytes)
        throw CheckpointError(fmt::format("csv output: '{}' is {} ({} bytes at the checkpoint): the output folder is not "
                                          "the checkpointed run's",
                                          path_.string(), ec ? "missing" : "shorter than at the checkpoint", bytes));
    if (first_line != header())
        throw CheckpointError(fmt::format("csv output: the columns of '{}' are not this output's ({}): its probes changed "
                                          "since the checkpoint",
                                          path_.string(), header()));
    std::filesystem::resize_file(path_, bytes);
    bytes_written_ = bytes;
    out_.open(path_, std::ios::out | std::ios::app);
    if (!out_) throw std::runtime_error("csv output: cannot open '" + path_.string() + "' for writing");
    row_.reserve(columns_.size());
}

void CsvSeries::observe(const SceneView& scene, const StepInfo& info) {
    if (info.step % settings_.every != 0 && !info.final_step) return;  // the end state is always written
    if (!out_.is_open()) throw std::logic_error("csv output: observe() before begin()");
    row_.clear();
    row_.push_back(info.t);
    for (const Column& write : writers_) write(scene, info, row_);

    std::string line;
    for (std::size_t i = 0; i < row_.size(); ++i) {
        if (i) line += ',';
        line += exact_real(row_[i]);
    }
    line += '\n';
    // Flushed per row: a run that diverges or is killed keeps every row written so far.
    out_ << line << std::flush;
    if (!out_) throw std::runtime_error("csv output: cannot write '" + path_.string() + "' (disk full?)");
    bytes_written_ += line.size();
}

void CsvSeries::end(const SceneView&, const RunSummary&) {
    if (out_.is_open()) out_.close();
}

WrittenFiles CsvSeries::written_files() const {
    if (path_.empty()) return {};
    return {path_, 1};
}

}  // namespace soma::outputs
