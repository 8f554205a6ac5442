// Ctrl-C on `soma run` (issue 8): the run ends with exit code 130, prints its summary and the
// command that continues it, leaves complete outputs and no temporary files; `soma run
// --restart` then finishes it, and its CSV equals an uninterrupted run's byte for byte.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string build_dir() {
    const char* value = std::getenv("SOMA_BUILD_DIR");
    REQUIRE(value != nullptr);
    return value;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

long count_lines(const fs::path& path) {
    const std::string text = read_file(path);
    return static_cast<long>(std::count(text.begin(), text.end(), '\n'));
}

/// Starts `soma` with `arguments`, stdout and stderr into `log`; returns the child's pid.
pid_t start_soma(const std::vector<std::string>& arguments, const fs::path& log) {
    const std::string soma = build_dir() + "/bin/soma";
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        std::vector<char*> argv{const_cast<char*>(soma.c_str())};
        for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(soma.c_str(), argv.data());
        _exit(127);
    }
    return pid;
}

int wait_exit_code(pid_t pid) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

// A run of 1000 steps (0.1 s in Release, about 15 s under ASan): long enough to be interrupted
// after its first rows, since the test polls the CSV every 5 ms and it is flushed every row.
const char* kScene = R"(simulation: {duration: 0.2}
integrator: {type: implicit_midpoint, dt: 2.0e-4}
elements:
  - name: beam
    type: discrete_rod
    geometry: {line: {from: [0, 0, 0], to: [0.1, 0, 0], nodes: 51}}
    cross_section: {circle: {radius: 1.0e-3}}
    material: {density: 1200, youngs_modulus: 2.0e6, poisson_ratio: 0.5}
    fixed: {nodes: [0, 1], edges: [0]}
forces:
  - {type: gravity, acceleration: [0, 0, -9.81]}
outputs:
  - {type: csv, name: tip, every: 1, probes: [{node_position: {element: beam, node: -1}}, {energy: total}]}
  - {type: vtk, every: 40}
)";

}  // namespace

TEST_CASE("Ctrl-C ends soma run cleanly with exit 130, and --restart finishes it as if never interrupted",
          "[cli][checkpoint]") {
    const fs::path dir = fs::temp_directory_path() / "soma-cli-interrupt";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path scene = dir / "swing.yaml";
    std::ofstream(scene) << kScene;
    const fs::path pieces = dir / "pieces", whole = dir / "whole";

    const pid_t pid = start_soma({"run", scene.string(), "-o", pieces.string(), "-q"}, dir / "interrupted.log");
    // Interrupt once the run has written its first rows (header, initial state, 5 steps).
    for (int i = 0; i < 2000 && count_lines(pieces / "tip.csv") < 7; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    REQUIRE(count_lines(pieces / "tip.csv") >= 7);
    kill(pid, SIGINT);
    const int code = wait_exit_code(pid);
    const std::string log = read_file(dir / "interrupted.log");
    INFO(log);
    REQUIRE(code == 130);
    CHECK_THAT(log, Contains("run INTERRUPTED") && Contains("interrupted by signal 2") &&
                        Contains("soma run --restart " + (pieces / "checkpoint.soma").string()));
    CHECK(fs::is_regular_file(pieces / "checkpoint.soma"));
    for (const auto& entry : fs::recursive_directory_iterator(pieces)) CHECK(entry.path().extension() != ".tmp");
    const std::string collection = read_file(pieces / "frames.pvd");
    CHECK(collection.ends_with("</VTKFile>\n"));
    const long rows_at_interrupt = count_lines(pieces / "tip.csv");
    CHECK(rows_at_interrupt < 1002);  // stopped early: 1000 steps + header + initial row in a whole run

    const pid_t restarted = start_soma({"run", "--restart", (pieces / "checkpoint.soma").string(), "-q"},
                                       dir / "restarted.log");
    CHECK(wait_exit_code(restarted) == 0);
    INFO(read_file(dir / "restarted.log"));
    const pid_t uninterrupted = start_soma({"run", scene.string(), "-o", whole.string(), "-q"}, dir / "whole.log");
    CHECK(wait_exit_code(uninterrupted) == 0);
    CHECK(count_lines(whole / "tip.csv") == 1002);
    CHECK(read_file(pieces / "tip.csv") == read_file(whole / "tip.csv"));
    CHECK(read_file(pieces / "frames.pvd") == read_file(whole / "frames.pvd"));
    CHECK(read_file(pieces / "vtk" / "frames_000025.vtu") == read_file(whole / "vtk" / "frames_000025.vtu"));
}

TEST_CASE("soma run --restart refuses a file that is not a checkpoint, and a scene given beside it", "[cli]") {
    const fs::path dir = fs::temp_directory_path() / "soma-cli-interrupt-errors";
    fs::create_directories(dir);
    const fs::path scene = dir / "swing.yaml";
    std::ofstream(scene) << kScene;
    const pid_t not_checkpoint = start_soma({"run", "--restart", scene.string()}, dir / "a.log");
    CHECK(wait_exit_code(not_checkpoint) == 1);
    CHECK_THAT(read_file(dir / "a.log"), Contains("not a readable Soma checkpoint"));
    const pid_t both = start_soma({"run", scene.string(), "--restart", scene.string()}, dir / "b.log");
    CHECK(wait_exit_code(both) == 1);  // a usage error
}
