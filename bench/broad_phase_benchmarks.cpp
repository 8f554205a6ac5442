// The broad phase of imc_contact (issue 9, docs/performance.md "The gripper as it grows"):
// Soma's BoxGrid (plugins/imc_contact/broad_phase.hpp) against FCL's dynamic AABB trees, on the
// edge boxes of entanglement-gripper runs.
//
// Boxes: each edge of the rods, grown by the rod radius h + margin/2 (margin 1 mm), as
// ImcContact::find_candidates builds them, from the last kFrames VTK frames of a `soma run`
// output folder (frames.pvd and vtk/). The timed loop takes the next frame's boxes each
// iteration, as the broad phase sees boxes that moved since the last step.
//
// Per iteration, each method does what imc_contact would need at a step start:
//   - BoxGrid: overlapping_pairs (sizes the cells, enters and sorts the boxes, tests the
//     neighbouring cells; its pairs come out sorted).
//   - FCL (DynamicAABBTreeCollisionManager, and its array variant): every object's box is set to
//     the new box (a fcl::Box of the box's sides at its centre, identity rotation, so that its
//     AABB is the box exactly), the manager's update() refits and rebalances the tree, and
//     collide() calls back once per overlapping pair, which is collected as (min, max); the pairs
//     are not sorted (imc_contact sorts its candidates after the narrow phase anyway).
//   - SweepAndPrune (in this file): a written alternative, sorting the boxes along one axis and
//     sweeping; its pairs are not sorted either.
// Before timing, all give the same pair set on every frame, and BoxGrid's is the brute-force
// set (all N^2/2 box tests); the program aborts if not.
//
// Usage: soma_broad_phase_bench [benchmark flags] RUN_FOLDER...
//   RUN_FOLDER: a `soma run` output folder with VTK frames (default: out/entanglement_gripper).
//   Paired repetitions: --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true
#include "broad_phase.hpp"

#include <benchmark/benchmark.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree_array.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using soma::Index;
using soma::Vec3;
using soma::imc_contact::Box;
using soma::imc_contact::BoxGrid;
using Pairs = std::vector<std::pair<Index, Index>>;

constexpr double kMargin = 1.0e-3;  ///< the gripper's candidate margin (m)
constexpr std::size_t kFrames = 8;  ///< the last frames of a run, cycled through

// ---- a minimal reader of Soma's .vtu frames (raw appended data, UInt64 block headers) ----------

/// One array of a frame: its type name and its raw bytes.
struct RawArray {
    std::string type;
    std::string bytes;
};

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The arrays of a .vtu frame by name ("cell:" before the names of cell data).
std::map<std::string, RawArray> read_vtu(const std::filesystem::path& path) {
    const std::string content = read_file(path);
    const std::size_t appended = content.find("<AppendedData");
    if (appended == std::string::npos) throw std::runtime_error(path.string() + ": no appended data");
    const std::size_t start = content.find('_', appended) + 1;
    const std::string header = content.substr(0, appended);
    const std::size_t cell_begin = header.find("<CellData"), cell_end = header.find("</CellData>");
    std::map<std::string, RawArray> arrays;
    const std::regex tag(R"re(<DataArray type="(\w+)" Name="(\w+)"[^>]*offset="(\d+)")re");
    for (auto it = std::sregex_iterator(header.begin(), header.end(), tag); it != std::sregex_iterator(); ++it) {
        const auto at = static_cast<std::size_t>(it->position());
        const bool cell = at > cell_begin && at < cell_end;
        const std::size_t offset = start + std::stoull((*it)[3]);
        std::uint64_t size = 0;
        std::memcpy(&size, content.data() + offset, sizeof size);
        arrays[(cell ? "cell:" : "") + (*it)[2].str()] = {(*it)[1], content.substr(offset + sizeof size, size)};
    }
    return arrays;
}

template <class T>
std::vector<T> values(const std::map<std::string, RawArray>& arrays, const std::string& name, const std::string& type) {
    const auto found = arrays.find(name);
    if (found == arrays.end() || found->second.type != type) throw std::runtime_error("frame: no " + type + " array " + name);
    std::vector<T> out(found->second.bytes.size() / sizeof(T));
    std::memcpy(out.data(), found->second.bytes.data(), out.size() * sizeof(T));
    return out;
}

/// The edge boxes of one frame: every line cell (a rod edge), grown by its nodes' radius + margin/2.
std::vector<Box> edge_boxes(const std::filesystem::path& frame) {
    const auto arrays = read_vtu(frame);
    const auto points = values<double>(arrays, "Points", "Float64");
    const auto radius = values<double>(arrays, "radius", "Float64");
    const auto connectivity = values<std::int64_t>(arrays, "connectivity", "Int64");
    const auto offsets = values<std::int64_t>(arrays, "offsets", "Int64");
    const auto types = values<std::uint8_t>(arrays, "types", "UInt8");
    constexpr std::uint8_t kLine = 3;
    std::vector<Box> boxes;
    std::int64_t begin = 0;
    for (std::size_t c = 0; c < types.size(); begin = offsets[c], ++c) {
        if (types[c] != kLine) continue;
        const auto a = static_cast<std::size_t>(connectivity[static_cast<std::size_t>(begin)]);
        const auto b = static_cast<std::size_t>(connectivity[static_cast<std::size_t>(begin) + 1]);
        const Vec3 x(points[3 * a], points[3 * a + 1], points[3 * a + 2]);
        const Vec3 y(points[3 * b], points[3 * b + 1], points[3 * b + 2]);
        const double grow = 0.5 * (radius[a] + radius[b]) + 0.5 * kMargin;
        boxes.push_back({x.cwiseMin(y).array() - grow, x.cwiseMax(y).array() + grow});
    }
    return boxes;
}

/// The last kFrames frames of a run folder, in time order (frames.pvd's order).
std::vector<std::vector<Box>> last_frames(const std::filesystem::path& run) {
    const std::string pvd = read_file(run / "frames.pvd");
    const std::regex file(R"re(file="([^"]+)")re");
    std::vector<std::string> names;
    for (auto it = std::sregex_iterator(pvd.begin(), pvd.end(), file); it != std::sregex_iterator(); ++it)
        names.push_back((*it)[1]);
    if (names.empty()) throw std::runtime_error(run.string() + "/frames.pvd lists no frames");
    std::vector<std::vector<Box>> frames;
    for (std::size_t i = names.size() - std::min(names.size(), kFrames); i < names.size(); ++i)
        frames.push_back(edge_boxes(run / names[i]));
    return frames;
}

// ---- FCL ----------------------------------------------------------------------------------------

/// FCL collision objects over a set of boxes, registered in one manager.
template <class Manager>
class FclBoxes {
public:
    explicit FclBoxes(const std::vector<Box>& boxes) {
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            shapes_.push_back(std::make_shared<fcl::Boxd>(1.0, 1.0, 1.0));
            objects_.push_back(std::make_unique<fcl::CollisionObjectd>(shapes_.back()));
            objects_.back()->setUserData(reinterpret_cast<void*>(i));
            raw_.push_back(objects_.back().get());
        }
        set(boxes);
        manager_.registerObjects(raw_);
        manager_.setup();
    }

    /// Moves every object to its new box and refits the tree (update() also rebalances it).
    void update(const std::vector<Box>& boxes) {
        set(boxes);
        manager_.update();
    }

    /// The overlapping pairs, each as (min, max), in the tree's order.
    void overlapping_pairs(Pairs& pairs) const {
        pairs.clear();
        manager_.collide(&pairs, [](fcl::CollisionObjectd* a, fcl::CollisionObjectd* b, void* data) {
            const auto i = static_cast<Index>(reinterpret_cast<std::uintptr_t>(a->getUserData()));
            const auto j = static_cast<Index>(reinterpret_cast<std::uintptr_t>(b->getUserData()));
            static_cast<Pairs*>(data)->emplace_back(std::min(i, j), std::max(i, j));
            return false;  // keep going
        });
    }

private:
    void set(const std::vector<Box>& boxes) {
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            shapes_[i]->side = boxes[i].high - boxes[i].low;
            shapes_[i]->computeLocalAABB();
            objects_[i]->setTranslation(0.5 * (boxes[i].low + boxes[i].high));
            objects_[i]->computeAABB();
        }
    }

    std::vector<std::shared_ptr<fcl::Boxd>> shapes_;
    std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects_;
    std::vector<fcl::CollisionObjectd*> raw_;
    Manager manager_;
};

// ---- a sweep and prune along one axis: what a written alternative to BoxGrid could do -------------

/// Sweep and prune (Baraff 1992) along the axis of the largest spread of the box centres: the
/// boxes sorted by their low end on that axis, each tested against the boxes that start before
/// it ends. The order is kept between calls and re-sorted by insertion, which is linear when the
/// boxes moved little since the last call (temporal coherence). Pairs as (min, max), unsorted.
class SweepAndPrune {
public:
    void overlapping_pairs(const std::vector<Box>& boxes, Pairs& pairs) {
        pairs.clear();
        const auto n = static_cast<Index>(boxes.size());
        Vec3 low = Vec3::Constant(std::numeric_limits<double>::infinity()), high = -low;
        for (const Box& b : boxes) {
            low = low.cwiseMin(b.low + b.high);
            high = high.cwiseMax(b.low + b.high);
        }
        int axis = 0;
        (high - low).maxCoeff(&axis);
        if (static_cast<Index>(order_.size()) != n || axis != axis_) {
            order_.resize(boxes.size());
            for (Index i = 0; i < n; ++i) order_[static_cast<std::size_t>(i)] = i;
            axis_ = axis;
        }
        const auto start = [&](Index i) { return boxes[static_cast<std::size_t>(i)].low[axis_]; };
        for (std::size_t a = 1; a < order_.size(); ++a) {  // insertion sort: order_ was sorted last call
            const Index i = order_[a];
            std::size_t b = a;
            for (; b > 0 && start(order_[b - 1]) > start(i); --b) order_[b] = order_[b - 1];
            order_[b] = i;
        }
        const int u = (axis_ + 1) % 3, v = (axis_ + 2) % 3;
        for (std::size_t a = 0; a < order_.size(); ++a) {
            const Box& box = boxes[static_cast<std::size_t>(order_[a])];
            for (std::size_t b = a + 1; b < order_.size(); ++b) {
                const Box& other = boxes[static_cast<std::size_t>(order_[b])];
                if (other.low[axis_] > box.high[axis_]) break;
                if (other.low[u] <= box.high[u] && box.low[u] <= other.high[u] && other.low[v] <= box.high[v] &&
                    box.low[v] <= other.high[v])
                    pairs.emplace_back(std::min(order_[a], order_[b]), std::max(order_[a], order_[b]));
            }
        }
    }

private:
    std::vector<Index> order_;
    int axis_ = -1;
};

// ---- the check, then the benchmarks ---------------------------------------------------------------

Pairs brute_force(const std::vector<Box>& boxes) {
    Pairs pairs;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t j = i + 1; j < boxes.size(); ++j)
            if (boxes[i].overlaps(boxes[j])) pairs.emplace_back(static_cast<Index>(i), static_cast<Index>(j));
    return pairs;
}

/// Aborts unless BoxGrid, brute force and both FCL managers give the same pairs on every frame.
void check(const std::string& name, const std::vector<std::vector<Box>>& frames) {
    BoxGrid grid;
    FclBoxes<fcl::DynamicAABBTreeCollisionManagerd> tree(frames.front());
    FclBoxes<fcl::DynamicAABBTreeCollisionManager_Arrayd> array(frames.front());
    SweepAndPrune sweep;
    Pairs expected, pairs;
    std::size_t fewest = SIZE_MAX, most = 0;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        expected = brute_force(frames[f]);
        fewest = std::min(fewest, expected.size());
        most = std::max(most, expected.size());
        const auto fail = [&](const char* method) {
            fmt::print(stderr, "{}: frame {}: {} finds {} pairs, brute force {}: not the same set\n", name, f, method,
                       pairs.size(), expected.size());
            std::abort();
        };
        grid.overlapping_pairs(frames[f], pairs);
        if (pairs != expected) fail("BoxGrid");
        tree.update(frames[f]);
        tree.overlapping_pairs(pairs);
        std::sort(pairs.begin(), pairs.end());
        if (pairs != expected) fail("FCL DynamicAABBTree");
        array.update(frames[f]);
        array.overlapping_pairs(pairs);
        std::sort(pairs.begin(), pairs.end());
        if (pairs != expected) fail("FCL DynamicAABBTree_Array");
        sweep.overlapping_pairs(frames[f], pairs);
        std::sort(pairs.begin(), pairs.end());
        if (pairs != expected) fail("SweepAndPrune");
    }
    fmt::print(stderr, "{}: {} boxes, {} to {} overlapping pairs over {} frames: BoxGrid, FCL, sweep and prune and brute force agree\n",
               name, frames.front().size(), fewest, most, frames.size());
}

void counters(benchmark::State& state, const std::vector<std::vector<Box>>& frames, std::size_t pairs) {
    state.counters["boxes"] = static_cast<double>(frames.front().size());
    state.counters["pairs"] = static_cast<double>(pairs);
}

void box_grid(benchmark::State& state, const std::vector<std::vector<Box>>* frames) {
    BoxGrid grid;
    Pairs pairs;
    std::size_t f = 0;
    for (auto _ : state) {
        grid.overlapping_pairs((*frames)[f], pairs);
        benchmark::DoNotOptimize(pairs.data());
        f = (f + 1) % frames->size();
    }
    counters(state, *frames, pairs.size());
}

void sweep_and_prune(benchmark::State& state, const std::vector<std::vector<Box>>* frames) {
    SweepAndPrune sweep;
    Pairs pairs;
    std::size_t f = 0;
    for (auto _ : state) {
        sweep.overlapping_pairs((*frames)[f], pairs);
        benchmark::DoNotOptimize(pairs.data());
        f = (f + 1) % frames->size();
    }
    counters(state, *frames, pairs.size());
}

template <class Manager>
void fcl_tree(benchmark::State& state, const std::vector<std::vector<Box>>* frames) {
    FclBoxes<Manager> fcl_boxes(frames->front());
    Pairs pairs;
    std::size_t f = 0;
    for (auto _ : state) {
        fcl_boxes.update((*frames)[f]);
        fcl_boxes.overlapping_pairs(pairs);
        benchmark::DoNotOptimize(pairs.data());
        f = (f + 1) % frames->size();
    }
    counters(state, *frames, pairs.size());
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    std::vector<std::filesystem::path> runs(argv + 1, argv + argc);
    if (runs.empty()) runs.emplace_back("out/entanglement_gripper");
    static std::vector<std::vector<std::vector<Box>>> all;  // outlives the registered benchmarks
    all.reserve(runs.size());
    for (const auto& run : runs) {
        try {
            all.push_back(last_frames(run));
        } catch (const std::exception& e) {
            fmt::print(stderr, "{}\n(give `soma run` output folders with VTK frames, e.g. of scripts/gripper_scene.py's scenes)\n",
                       e.what());
            return 1;
        }
        const auto* frames = &all.back();
        const std::string name = fmt::format("{}edges", frames->front().size());
        check(run.string(), *frames);
        benchmark::RegisterBenchmark(("BoxGrid/" + name).c_str(), box_grid, frames);
        benchmark::RegisterBenchmark(("FclDynamicAABBTree/" + name).c_str(),
                                     fcl_tree<fcl::DynamicAABBTreeCollisionManagerd>, frames);
        benchmark::RegisterBenchmark(("FclDynamicAABBTreeArray/" + name).c_str(),
                                     fcl_tree<fcl::DynamicAABBTreeCollisionManager_Arrayd>, frames);
        benchmark::RegisterBenchmark(("SweepAndPrune/" + name).c_str(), sweep_and_prune, frames);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
