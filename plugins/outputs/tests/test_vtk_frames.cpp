// The `vtk` output: after every observe() the collection is valid XML listing exactly the frames
// so far, and each frame holds the scene's points, cells and point data, in both encodings.
#include "vtk_frames.hpp"

#include "fake_scene.hpp"
#include "file_reading.hpp"

#include <catch2/catch.hpp>

using namespace soma;
using namespace soma::outputs;
using namespace soma::outputs::testing;

namespace {

// The fake scene: beam 4 points (3 lines), sheet 4 points (1 triangle + 1 vertex for the loose
// point), ball 1 point (1 vertex).
constexpr long kPoints = 9;
constexpr long kCells = 6;

struct CollectionEntry {
    double time;
    std::string file;
};

std::vector<CollectionEntry> read_collection(const std::filesystem::path& pvd) {
    const auto tags = parse_xml(read_bytes(pvd));
    REQUIRE(tags.front().name == "VTKFile");
    REQUIRE(tags.front().attributes.at("type") == "Collection");
    REQUIRE(tags_named(tags, "Collection").size() == 1);
    std::vector<CollectionEntry> entries;
    for (const auto& t : tags_named(tags, "DataSet"))
        entries.push_back({std::strtod(t.attributes.at("timestep").c_str(), nullptr), t.attributes.at("file")});
    return entries;
}

/// Checks one frame against the scene's current state, value by value.
void check_frame(const VtuContents& vtu, const FakeScene& scene) {
    REQUIRE(vtu.points == kPoints);
    REQUIRE(vtu.cells == kCells);
    const auto& q = scene.state().q;
    const auto& v = scene.state().v;
    // Points are the elements' points in scene order; the fake numbers DOFs consecutively.
    const auto& points = vtu.arrays.at("Points/Points");
    const auto& velocity = vtu.arrays.at("PointData/velocity");
    REQUIRE(points.size() == 3 * kPoints);
    REQUIRE(velocity.size() == 3 * kPoints);
    for (long i = 0; i < 3 * kPoints; ++i) {
        INFO("component " << i);
        CHECK(points[static_cast<std::size_t>(i)] == q[i]);
        CHECK(velocity[static_cast<std::size_t>(i)] == v[i]);
    }
    CHECK(vtu.arrays.at("PointData/element_id") == std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1, 2});
    CHECK(vtu.arrays.at("PointData/radius") == std::vector<double>{0.01, 0.01, 0.01, 0.01, 0, 0, 0, 0, 0.05});
    CHECK(vtu.arrays.at("Cells/types") == std::vector<double>{3, 3, 3, 5, 1, 1});
    CHECK(vtu.arrays.at("Cells/connectivity") == std::vector<double>{0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 8});
    CHECK(vtu.arrays.at("Cells/offsets") == std::vector<double>{2, 4, 6, 9, 10, 11});
    CHECK(vtu.arrays.at("CellData/element_id") == std::vector<double>{0, 0, 0, 1, 1, 2});
    // Indices inside each element, to find what a scene selects by clicking in ParaView: node
    // index restarts at 0 for each element; the beam's lines are its edges 0..2, the sheet's
    // triangle is its triangle 0; -1 where a cell is not of that kind (the two vertices).
    CHECK(vtu.arrays.at("PointData/node_index") == std::vector<double>{0, 1, 2, 3, 0, 1, 2, 3, 0});
    CHECK(vtu.arrays.at("CellData/edge_index") == std::vector<double>{0, 1, 2, -1, -1, -1});
    CHECK(vtu.arrays.at("CellData/triangle_index") == std::vector<double>{-1, -1, -1, 0, -1, -1});
    for (const char* array : {"PointData/node_index", "CellData/edge_index", "CellData/triangle_index"})
        CHECK(vtu.types.at(array) == "Int32");
    CHECK(vtu.types.at("Points/Points") == "Float64");
    CHECK(vtu.types.at("Cells/types") == "UInt8");
}

void run_and_check(VtkFramesSettings settings, long steps) {
    FakeScene scene;
    ScratchDir dir;
    const std::string prefix = settings.prefix;
    const auto folder = settings.folder;
    const long every = settings.every;
    VtkFrames vtk(settings);
    vtk.begin(scene, dir.path());
    const auto pvd = dir.path() / (prefix + ".pvd");
    CHECK(read_collection(pvd).empty());  // valid from the start

    std::vector<CollectionEntry> expected;
    for (long step = 0; step <= steps; ++step) {
        scene.set_step(step);
        vtk.observe(scene, scene.info(step));
        if (step % every == 0) {
            char name[64];
            std::snprintf(name, sizeof name, "%s_%06zu.vtu", prefix.c_str(), expected.size());
            expected.push_back({scene.info(step).t, (folder / name).generic_string()});
            // The frame just written matches the state it was written from.
            check_frame(read_vtu(dir.path() / expected.back().file), scene);
        }
        const auto entries = read_collection(pvd);
        REQUIRE(entries.size() == expected.size());
        for (std::size_t i = 0; i < entries.size(); ++i) {
            CHECK(entries[i].file == expected[i].file);
            CHECK(entries[i].time == expected[i].time);  // exact: full-precision timestep
            CHECK(std::filesystem::exists(dir.path() / entries[i].file));
        }
    }
    vtk.end(scene, {});

    CHECK(vtk.written_files().main == pvd);
    CHECK(vtk.written_files().count == 1 + expected.size());
    // No temporary of the atomic replace is left behind.
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path()))
        CHECK(entry.path().extension() != ".tmp");
}

}  // namespace

TEST_CASE("vtk appended-binary frames and collection are complete after every step", "[outputs][vtk]") {
    run_and_check(VtkFramesSettings{}, 3);
}

TEST_CASE("vtk ascii frames carry the same exact values", "[outputs][vtk]") {
    VtkFramesSettings settings;
    settings.encoding = VtkEncoding::ascii;
    settings.prefix = "shape";
    settings.folder = "paraview/frames";
    run_and_check(settings, 2);
}

TEST_CASE("vtk writes step 0 and then every N-th step", "[outputs][vtk]") {
    VtkFramesSettings settings;
    settings.every = 3;
    run_and_check(settings, 7);  // frames at steps 0, 3, 6
}

TEST_CASE("vtk frame grid: vertices only for points no cell uses", "[outputs][vtk]") {
    FakeScene scene;
    const UnstructuredGrid grid = VtkFrames::frame_grid(scene);
    CHECK(grid.points.size() == 3 * kPoints);
    CHECK(grid.types.size() == kCells);
    CHECK(grid.comments == std::vector<std::string>{"element_id 0: beam", "element_id 1: sheet", "element_id 2: ball"});
}

TEST_CASE("vtk file text escapes names and keeps comments valid", "[outputs][vtk]") {
    UnstructuredGrid grid;
    grid.points = {0, 0, 0};
    grid.comments = {"element_id 0: a--b-"};
    grid.point_data.push_back({"a<&>\"b", 1, std::vector<double>{1.5}});
    for (const auto encoding : {VtkEncoding::appended_raw, VtkEncoding::ascii}) {
        const auto tags = parse_xml(vtu_text(grid, encoding));
        const auto arrays = tags_named(tags, "DataArray");
        REQUIRE_FALSE(arrays.empty());
        CHECK(arrays.front().attributes.at("Name") == "a<&>\"b");
    }
}

namespace {

/// One node, drawn as a triangle around it (a display surface, as a rigid body's visuals).
class DrawnNode final : public Element {
public:
    DrawnNode() { set_name("drawn"); }
    Index dof_count() const override { return 3; }
    void initial_state(VectorX& q, VectorX& v) const override {
        q = VectorX::Zero(3);
        v = VectorX::Zero(3);
    }
    std::vector<DofGroup> dof_groups() const override { return {{"nodes", 3, 1, {"x", "y", "z"}}}; }
    Index group_dof(const std::string&, Index, int component) const override { return component; }
    std::string describe_dof(Index local) const override { return "dof " + std::to_string(local); }
    const Geometry& geometry() const override { return geometry_; }
    double kinetic_energy(const EvalContext&) const override { return 0.0; }
    void declare_pattern(PatternBuilder&) override {}
    void add_residual_and_jacobian(const EvalContext&, Assembly&) override {}
    void display_surface(const VectorX& q, const VectorX& v, DisplaySurface& out) const override {
        const Vec3 x(q[0], q[1], q[2]), xdot(v[0], v[1], v[2]);
        out.vertices = {x + Vec3(1, 0, 0), x + Vec3(0, 1, 0), x + Vec3(0, 0, 1)};
        out.velocities.assign(3, xdot);
        out.triangles = {{0, 1, 2}};
    }

protected:
    void on_bind() override { geometry_.point_dofs = {{global_dof(0), global_dof(1), global_dof(2)}}; }

private:
    Geometry geometry_;
};

template <class T>
const std::vector<T>& cell_array(const UnstructuredGrid& grid, const std::string& name) {
    for (const VtkDataArray& array : grid.cell_data)
        if (array.name == name) return std::get<std::vector<T>>(array.values);
    FAIL("no cell array " << name);
    static const std::vector<T> none;
    return none;
}

}  // namespace

TEST_CASE("vtk frame grid: an element's display surface follows its own cells, marked visual", "[outputs][vtk]") {
    DrawnNode element;
    auto scene = soma::testing::TestScene::bound_in_order({&element});
    State state = scene.state();
    state.q << 1.0, 2.0, 3.0;
    state.v << 0.5, -0.5, 0.25;
    scene.set_state(state);
    const UnstructuredGrid grid = VtkFrames::frame_grid(scene);
    // The node (a vertex cell: no cell of its own uses it), then the triangle's three vertices.
    REQUIRE(grid.points.size() == 3 * 4);
    CHECK(grid.points == std::vector<double>{1, 2, 3, 2, 2, 3, 1, 3, 3, 1, 2, 4});
    CHECK(grid.types == std::vector<std::uint8_t>{kVtkVertex, kVtkTriangle});
    CHECK(grid.connectivity == std::vector<std::int64_t>{0, 1, 2, 3});
    CHECK(cell_array<std::int32_t>(grid, "visual") == std::vector<std::int32_t>{0, 1});
    CHECK(cell_array<std::int32_t>(grid, "triangle_index") == std::vector<std::int32_t>{-1, -1});
    for (const VtkDataArray& array : grid.point_data) {
        if (array.name == "node_index")
            CHECK(std::get<std::vector<std::int32_t>>(array.values) == std::vector<std::int32_t>{0, -1, -1, -1});
        if (array.name == "velocity")
            CHECK(std::get<std::vector<double>>(array.values) ==
                  std::vector<double>{0.5, -0.5, 0.25, 0.5, -0.5, 0.25, 0.5, -0.5, 0.25, 0.5, -0.5, 0.25});
    }
}
