// The `csv` output: header, exact values, `every`, rows on disk after each step, file naming and
// the errors begin() reports.
#include "csv_series.hpp"

#include "fake_scene.hpp"
#include "file_reading.hpp"

#include "soma/parameters.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace soma::outputs;
using namespace soma::outputs::testing;
using Kind = CsvProbe::Kind;

namespace {

CsvProbe node_probe(Kind kind, std::string element, long node) {
    CsvProbe p;
    p.kind = kind;
    p.element = std::move(element);
    p.node = node;
    return p;
}

CsvProbe energy_probe(std::string which) {
    CsvProbe p;
    p.kind = Kind::energy;
    p.energy = std::move(which);
    return p;
}

CsvProbe switch_probe(Kind kind) {
    CsvProbe p;
    p.kind = kind;
    return p;
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
    return split(read_bytes(file), '\n');
}

/// Parses a data row; every field must be a complete number (strtod consumes it all).
std::vector<double> numbers(const std::string& line) {
    std::vector<double> values;
    for (const auto& field : split(line, ',')) {
        char* end = nullptr;
        values.push_back(std::strtod(field.c_str(), &end));
        REQUIRE(end == field.c_str() + field.size());
    }
    return values;
}

/// Runs begin() and expects soma::InputError whose message holds every fragment.
void expect_begin_error(CsvSeriesSettings settings, const FakeScene& scene, std::vector<std::string> fragments) {
    ScratchDir dir;
    CsvSeries csv(std::move(settings));
    try {
        csv.begin(scene, dir.path());
        FAIL("begin() accepted the probes");
    } catch (const soma::InputError& error) {
        const std::string message = error.what();
        for (const auto& fragment : fragments) {
            INFO(message);
            CHECK(message.find(fragment) != std::string::npos);
        }
    }
}

}  // namespace

TEST_CASE("csv writes the header and exact values of every probe", "[outputs][csv]") {
    FakeScene scene;
    ScratchDir dir;
    CsvSeriesSettings settings;
    settings.name = "probe";
    settings.probes = {node_probe(Kind::node_position, "beam", -1), node_probe(Kind::node_velocity, "sheet", 1),
                       energy_probe("kinetic"),  energy_probe("potential"), energy_probe("total"),
                       energy_probe("gravity"),  switch_probe(Kind::newton_iterations),
                       switch_probe(Kind::linear_iterations), switch_probe(Kind::step_time), switch_probe(Kind::dt)};
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    const auto file = dir.path() / "probe.csv";
    REQUIRE(csv.written_files().main == file);
    REQUIRE(csv.written_files().count == 1);

    const std::vector<std::string> header{"time", "beam.node3.x", "beam.node3.y", "beam.node3.z",
                                          "sheet.node1.vx", "sheet.node1.vy", "sheet.node1.vz",
                                          "energy.kinetic", "energy.potential", "energy.total", "energy.gravity",
                                          "newton_iterations", "linear_iterations", "step_time_s", "dt"};
    CHECK(csv.columns() == header);
    // The header is on disk before the first step: a run that fails at once still leaves it.
    REQUIRE(lines_of(file) == std::vector<std::string>{"time,beam.node3.x,beam.node3.y,beam.node3.z,"
                                                       "sheet.node1.vx,sheet.node1.vy,sheet.node1.vz,"
                                                       "energy.kinetic,energy.potential,energy.total,energy.gravity,"
                                                       "newton_iterations,linear_iterations,step_time_s,dt"});

    for (long step = 0; step <= 3; ++step) {
        scene.set_step(step);
        const soma::StepInfo info = scene.info(step);
        csv.observe(scene, info);

        // Each row is on disk as soon as observe() returns, before end().
        const auto lines = lines_of(file);
        REQUIRE(lines.size() == static_cast<std::size_t>(step + 2));
        const auto row = numbers(lines.back());
        REQUIRE(row.size() == header.size());

        const auto& q = scene.state().q;
        const auto& v = scene.state().v;
        // beam is DOFs 0..11, so node 3 (written -1) is 9..11; sheet starts at 12, node 1 at 15.
        const std::vector<double> expected{info.t,  q[9],  q[10], q[11], v[15], v[16], v[17],
                                           scene.kinetic_energy(), scene.potential_energy(),
                                           scene.kinetic_energy() + scene.potential_energy(),
                                           scene.potential_energy(*scene.force(0)),
                                           static_cast<double>(info.newton_iterations),
                                           static_cast<double>(info.linear_iterations), info.wall_seconds, info.dt};
        // Exact equality: the text must read back to the very same doubles.
        for (std::size_t c = 0; c < expected.size(); ++c) {
            INFO("column " << header[c] << " step " << step);
            CHECK(row[c] == expected[c]);
        }
    }
    csv.end(scene, {});
    CHECK(lines_of(file).size() == 5);
}

TEST_CASE("csv writes step 0 and then every N-th step", "[outputs][csv]") {
    FakeScene scene;
    ScratchDir dir;
    CsvSeriesSettings settings;
    settings.every = 3;
    settings.probes = {energy_probe("kinetic")};
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    for (long step = 0; step <= 7; ++step) {
        scene.set_step(step);
        csv.observe(scene, scene.info(step));
    }
    csv.end(scene, {});
    const auto lines = lines_of(dir.path() / "series.csv");  // no name: the default file name
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "time,energy.kinetic");
    std::vector<double> kinetic;
    for (std::size_t i = 1; i < lines.size(); ++i) kinetic.push_back(numbers(lines[i])[1]);
    // kinetic = 1/3 + step in the fake scene: steps 0, 3, 6.
    CHECK(kinetic == std::vector<double>{1.0 / 3.0, 1.0 / 3.0 + 3.0, 1.0 / 3.0 + 6.0});
}

TEST_CASE("csv file: relative to the output folder, folders created, odd names quoted", "[outputs][csv]") {
    FakeScene scene;
    ScratchDir dir;
    CsvSeriesSettings settings;
    settings.name = "ignored when file is given";
    settings.file = "series/run 1/tip.csv";
    settings.probes = {switch_probe(Kind::dt)};
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    csv.observe(scene, scene.info(0));
    const auto file = dir.path() / "series" / "run 1" / "tip.csv";
    CHECK(csv.written_files().main == file);
    CHECK(lines_of(file) == std::vector<std::string>{"time,dt", "0,0"});
}

TEST_CASE("csv refuses probes that do not match the scene, at begin()", "[outputs][csv]") {
    FakeScene scene;
    CsvSeriesSettings settings;

    SECTION("unknown element, with the names that exist and the probe's location") {
        auto probe = node_probe(Kind::node_position, "beem", 0);
        probe.where = "scene.yaml:12:9: outputs[0].probes[0].node_position";
        settings.probes = {probe};
        expect_begin_error(settings, scene,
                           {"scene.yaml:12:9: outputs[0].probes[0].node_position: ", "no element named 'beem'",
                            "'beam', 'sheet', 'ball'"});
    }
    SECTION("node past the end") {
        settings.probes = {node_probe(Kind::node_velocity, "beam", 4)};
        expect_begin_error(settings, scene, {"node 4 is out of range", "'beam' has 4 nodes"});
    }
    SECTION("negative node before the start") {
        settings.probes = {node_probe(Kind::node_position, "ball", -2)};
        expect_begin_error(settings, scene, {"node -2 is out of range", "'ball' has 1 nodes"});
    }
    SECTION("energy of an unknown term") {
        settings.probes = {energy_probe("gravty")};
        expect_begin_error(settings, scene, {"energy 'gravty'", "'beam', 'sheet', 'ball', 'gravity', 'drag'"});
    }
    SECTION("energy of an ambiguous term name") {
        scene.add_force("drag");
        settings.probes = {energy_probe("drag")};
        expect_begin_error(settings, scene, {"energy 'drag' names several scene terms"});
    }
    SECTION("the same column twice") {
        settings.probes = {node_probe(Kind::node_position, "beam", 3), node_probe(Kind::node_position, "beam", -1)};
        expect_begin_error(settings, scene, {"column 'beam.node3.x' is already recorded"});
    }
}

TEST_CASE("csv accepts the first and last node, and energy of an element by name", "[outputs][csv]") {
    FakeScene scene;
    ScratchDir dir;
    CsvSeriesSettings settings;
    settings.probes = {node_probe(Kind::node_position, "beam", 0), node_probe(Kind::node_position, "beam", -4),
                       energy_probe("sheet")};
    // -4 is node 0 again: a duplicate column, refused; without it both ends resolve.
    CHECK_THROWS_AS(CsvSeries(settings).begin(scene, dir.path()), soma::InputError);
    settings.probes.erase(settings.probes.begin() + 1);
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    CHECK(csv.columns() == std::vector<std::string>{"time", "beam.node0.x", "beam.node0.y", "beam.node0.z", "energy.sheet"});
}

TEST_CASE("csv: the final step is written whatever `every` says", "[outputs][csv]") {
    FakeScene scene;
    const auto dir = std::filesystem::temp_directory_path() / "soma-outputs-final-step";
    std::filesystem::remove_all(dir);
    CsvSeriesSettings settings;
    settings.every = 4;
    settings.file = "final.csv";
    settings.probes.push_back(switch_probe(Kind::newton_iterations));
    CsvSeries csv(settings);
    csv.begin(scene, dir);
    for (long step = 0; step <= 5; ++step) {
        soma::StepInfo info;
        info.step = step;
        info.t = 0.5 * static_cast<double>(step);
        info.newton_iterations = static_cast<int>(step);
        info.final_step = step == 5;
        csv.observe(scene, info);
    }
    std::ifstream in(dir / "final.csv");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    // Header, steps 0 and 4 (every 4), and the final step 5.
    REQUIRE(lines.size() == 4);
    CHECK(lines[2] == "2,4");
    CHECK(lines[3] == "2.5,5");
}

TEST_CASE("csv node probes by position: the nearest node, named in the columns and in a note", "[outputs][csv]") {
    FakeScene scene;  // step 0: beam node p at (3p, 3p + 1, 3p + 2) / 7; sheet node p follows at 3 (4 + p) / 7
    ScratchDir dir;
    CsvSeriesSettings settings;
    auto near_beam2 = node_probe(Kind::node_position, "beam", -1);
    near_beam2.at = soma::Vec3(6.0 / 7.0 + 0.003, 1.0, 8.0 / 7.0 - 0.004);  // 0.005 from beam node 2
    near_beam2.where = "scene.yaml:8:9: outputs[0].probes[0].node_position.at";
    auto far_from_sheet = node_probe(Kind::node_velocity, "sheet", -1);
    far_from_sheet.at = soma::Vec3(-10.0, 0.0, 0.0);  // nearest: sheet node 0 at (12, 13, 14) / 7
    settings.probes = {near_beam2, far_from_sheet};
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    CHECK(csv.columns() == std::vector<std::string>{"time", "beam.node2.x", "beam.node2.y", "beam.node2.z",
                                                    "sheet.node0.vx", "sheet.node0.vy", "sheet.node0.vz"});
    REQUIRE(scene.notes.size() == 2);
    CHECK(scene.notes[0] == "scene.yaml:8:9: outputs[0].probes[0].node_position.at: at [0.860143, 1, 1.13886] is "
                            "node 2 of 'beam' at [0.857143, 1, 1.14286] (distance 0.005 m)");
    CHECK_THAT(scene.notes[1], Catch::Contains("sheet: at [-10, 0, 0] is node 0 of 'sheet' at [1.71429, 1.85714, 2]"));
    // The rows record the chosen nodes, as an index probe would.
    scene.set_step(2);
    csv.observe(scene, scene.info(2));
    const auto values = numbers(lines_of(dir.path() / "series.csv")[1]);
    const soma::State& state = scene.state();
    CHECK(values == std::vector<double>{state.t, state.q[6], state.q[7], state.q[8], state.v[12], state.v[13],
                                        state.v[14]});
}

TEST_CASE("csv node probes by position: a position that picks an already recorded node", "[outputs][csv]") {
    FakeScene scene;
    CsvSeriesSettings settings;
    auto by_position = node_probe(Kind::node_position, "beam", -1);
    by_position.at = soma::Vec3(0.0, 0.1, 0.3);  // nearest: beam node 0 at (0, 1, 2) / 7
    settings.probes = {node_probe(Kind::node_position, "beam", 0), by_position};
    expect_begin_error(settings, scene, {"column 'beam.node0.x' is already recorded by an earlier probe (the node "
                                         "nearest to this probe's `at` is the same node)"});
}

TEST_CASE("csv orientation and angular velocity probes read the body's quaternion block and its DOFs",
          "[outputs][csv]") {
    FakeScene scene;
    scene.add_oriented_body("crate");
    ScratchDir dir;
    CsvSeriesSettings settings;
    settings.name = "pose";
    settings.probes = {node_probe(Kind::orientation, "crate", 0), node_probe(Kind::angular_velocity, "crate", 0)};
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    const std::vector<std::string> header{"time",     "crate.qw", "crate.qx", "crate.qy",
                                          "crate.qz", "crate.wx", "crate.wy", "crate.wz"};
    CHECK(csv.columns() == header);
    for (long step = 0; step <= 2; ++step) {
        scene.set_step(step);
        csv.observe(scene, scene.info(step));
        const auto row = numbers(lines_of(dir.path() / "pose.csv").back());
        REQUIRE(row.size() == header.size());
        // The body's DOFs are 27..32 (after beam, sheet and ball), its rotation DOFs 30..32; its
        // quaternion is stored after every DOF, at 33..36.
        const auto& q = scene.state().q;
        const auto& v = scene.state().v;
        const double c = std::cos(step / 7.0), s = std::sin(step / 7.0);
        const std::vector<double> expected{scene.info(step).t, c, s / 3.0, -2.0 * s / 3.0, 2.0 * s / 3.0,
                                           v[30], v[31], v[32]};
        CHECK(q[33] == c);
        for (std::size_t k = 0; k < expected.size(); ++k) {
            INFO("column " << header[k] << " step " << step);
            CHECK(row[k] == expected[k]);
        }
    }
}

TEST_CASE("csv orientation probes refuse elements without an orientation", "[outputs][csv]") {
    FakeScene scene;
    CsvSeriesSettings settings;
    auto probe = node_probe(Kind::orientation, "beam", 0);
    probe.where = "scene.yaml:20:9: outputs[0].probes[1].orientation";
    settings.probes = {probe};
    expect_begin_error(settings, scene,
                       {"scene.yaml:20:9: outputs[0].probes[1].orientation: ", "element 'beam' has no orientation"});
    settings.probes = {node_probe(Kind::angular_velocity, "crate", 0)};
    expect_begin_error(settings, scene, {"no element named 'crate'"});
}

TEST_CASE("csv statistic probes record what a scene term reports, and refuse unknown names", "[outputs][csv]") {
    FakeScene scene;
    CsvProbe probe;
    probe.kind = Kind::statistic;
    probe.term = "drag";
    probe.statistic = "twice_q0";
    CsvSeriesSettings settings;
    settings.probes = {probe};
    ScratchDir dir;
    CsvSeries csv(settings);
    csv.begin(scene, dir.path());
    scene.set_step(2);
    csv.observe(scene, scene.info(2));
    csv.end(scene, {});
    const auto lines = lines_of(dir.path() / "series.csv");
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "time,drag.twice_q0");
    CHECK(numbers(lines[1])[1] == 2.0 * scene.state().q[0]);  // exact: the same double arithmetic

    probe.statistic = "nope";
    settings.probes = {probe};
    expect_begin_error(settings, scene, {"term 'drag' reports no statistic 'nope'", "'twice_q0'"});
    probe.term = "gravityy";
    settings.probes = {probe};
    expect_begin_error(settings, scene, {"term 'gravityy' is not the name of a scene term", "'gravity'"});
}

