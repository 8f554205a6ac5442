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

TEST_CASE("vtk contact frames: a vertex per contact where its force acts, with the step's forces", "[outputs][vtk]") {
    // Two contacts of one constraint: the ball's node against the floor (a world point), and a
    // point on the beam's edge 1-2 (weights 0.25, 0.75) against the sheet's node 3. Positions are
    // the fake's q (node p of element e at DOFs 3 (offset_e + p)); forces as a step would leave them.
    FakeScene scene;
    scene.set_step(2);
    FakeContacts& constraint = scene.add_contacts("contact");
    const auto& elements = scene.elements();
    const Element& beam = *elements[0];
    const Element& sheet = *elements[1];
    const Element& ball = *elements[2];
    UnilateralContact floor;
    floor.a = ContactEnd::at_point(&ball, 0);
    floor.b = ContactEnd::at_world(Vec3(0, 0, 0.5));
    floor.normal = Vec3::UnitZ();
    floor.thickness = 0.05;
    UnilateralContact edge;
    edge.a.element = &beam;
    edge.a.points = {1, 2, 0};
    edge.a.weights = {0.25, 0.75, 0.0};
    edge.a.count = 2;
    edge.b = ContactEnd::at_point(&sheet, 3);
    edge.normal = Vec3(0, 0.6, 0.8);
    const VectorX& q = scene.state().q;
    const auto node = [&](Index first_dof) { return Vec3(q.segment<3>(first_dof)); };
    const Vec3 x_ball = node(3 * 8), x_edge = 0.25 * node(3 * 1) + 0.75 * node(3 * 2), x_sheet = node(3 * 7);

    VtkFramesSettings settings;
    settings.encoding = VtkEncoding::ascii;
    // Before any step: the contacts, their forces zero (none solved yet).
    constraint.set({floor, edge}, {}, {});
    const UnstructuredGrid unsolved = VtkFrames::contact_grid(scene, {&constraint});
    const auto reals = [](const UnstructuredGrid& grid, const std::string& name) {
        for (const VtkDataArray& array : grid.point_data)
            if (array.name == name) {
                if (const auto* r = std::get_if<std::vector<double>>(&array.values)) return *r;
                std::vector<double> values;
                for (const auto v : std::get<std::vector<std::int32_t>>(array.values)) values.push_back(v);
                return values;
            }
        FAIL("no array " << name);
        return std::vector<double>{};
    };
    CHECK(reals(unsolved, "normal_force") == std::vector<double>{0, 0});

    constraint.set({floor, edge}, {9.81, 2.5}, {1.0, -2.0, 0.0, 0.5});
    const UnstructuredGrid grid = VtkFrames::contact_grid(scene, {&constraint});
    REQUIRE(grid.points.size() == 6);
    CHECK(Vec3(grid.points[0], grid.points[1], grid.points[2]) == x_ball);
    CHECK((Vec3(grid.points[3], grid.points[4], grid.points[5]) - x_edge).norm() < 1e-14);  // a weighted sum's round-off
    CHECK(grid.types == std::vector<std::uint8_t>{kVtkVertex, kVtkVertex});
    CHECK(grid.connectivity == std::vector<std::int64_t>{0, 1});
    CHECK(reals(grid, "normal") == std::vector<double>{0, 0, 1, 0, 0.6, 0.8});
    CHECK(reals(grid, "normal_force") == std::vector<double>{9.81, 2.5});
    // Friction along the contact's tangents (contact_tangents), on a.
    Vec3 t1, t2;
    contact_tangents(floor.normal, t1, t2);
    const Vec3 f0 = 1.0 * t1 - 2.0 * t2;
    contact_tangents(edge.normal, t1, t2);
    const Vec3 f1 = 0.5 * t2;
    const std::vector<double> friction = reals(grid, "friction_force"), force = reals(grid, "force");
    for (int k = 0; k < 3; ++k) {
        CHECK(friction[static_cast<std::size_t>(k)] == Approx(f0[k]).margin(1e-15));
        CHECK(friction[static_cast<std::size_t>(3 + k)] == Approx(f1[k]).margin(1e-15));
        CHECK(force[static_cast<std::size_t>(k)] == Approx(9.81 * floor.normal[k] + f0[k]).margin(1e-14));
        CHECK(force[static_cast<std::size_t>(3 + k)] == Approx(2.5 * edge.normal[k] + f1[k]).margin(1e-14));
    }
    // The friction lies in the tangent plane.
    CHECK(std::abs(Vec3(friction[3], friction[4], friction[5]).dot(edge.normal)) < 1e-15);
    const std::vector<double> gap = reals(grid, "gap");
    CHECK(gap[0] == Approx(x_ball.z() - 0.5 - 0.05).margin(1e-14));
    CHECK(gap[1] == Approx(edge.normal.dot(x_edge - x_sheet)).margin(1e-14));
    CHECK(reals(grid, "element_a") == std::vector<double>{2, 0});
    CHECK(reals(grid, "element_b") == std::vector<double>{-1, 1});
    CHECK(reals(grid, "constraint") == std::vector<double>{0, 0});

    // Through the output: a second collection and series beside the frames, frame for frame.
    ScratchDir dir;
    VtkFrames vtk(settings);
    vtk.bind(scene);
    const std::vector<PlannedFile> planned = vtk.planned_files();
    REQUIRE(planned.size() == 4);
    CHECK(planned[2].path == "frames_contacts.pvd");
    CHECK(planned[3].path == "vtk/frames_contacts_000000.vtu");
    vtk.begin(scene, dir.path());
    for (long step = 0; step < 3; ++step) vtk.observe(scene, scene.info(step));
    const auto entries = read_collection(dir.path() / "frames_contacts.pvd");
    REQUIRE(entries.size() == 3);
    CHECK(entries[2].file == "vtk/frames_contacts_000002.vtu");
    const VtuContents written = read_vtu(dir.path() / entries[2].file);
    CHECK(written.points == 2);
    CHECK(written.arrays.at("PointData/normal_force") == std::vector<double>{9.81, 2.5});
    CHECK(vtk.written_files().count == 2 * (1 + 3));
    // Without `contacts`, or without a contact constraint, nothing of it.
    settings.contacts = false;
    VtkFrames plain(settings);
    plain.bind(scene);
    CHECK(plain.planned_files().size() == 2);
    FakeScene no_contacts;
    VtkFrames none(VtkFramesSettings{});
    none.bind(no_contacts);
    CHECK(none.planned_files().size() == 2);
}
