#pragma once
// Running the built `soma` command from a test: its exit code and its output, and scene files
// written into a temporary folder.

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>

namespace soma::cli_testing {

struct Result {
    int exit_code;
    std::string output;  // stdout and stderr together
};

inline std::string environment(const char* name) {
    const char* value = std::getenv(name);
    REQUIRE(value != nullptr);
    return value;
}

/// Runs `soma arguments` (a shell command line); output is stdout and stderr together, or stdout
/// alone (to parse CSV).
inline Result run_soma(const std::string& arguments, bool with_stderr = true) {
    const std::string command =
        environment("SOMA_BUILD_DIR") + "/bin/soma " + arguments + (with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string output;
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

/// A folder of its own under the temporary folder, emptied.
inline std::filesystem::path fresh_folder(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / "soma-cli-tests" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

/// Writes a scene into the temporary test folder and returns its path.
inline std::string scene_file(const std::string& name, const std::string& text) {
    const auto dir = std::filesystem::temp_directory_path() / "soma-cli-tests";
    std::filesystem::create_directories(dir);
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path.string();
}

}  // namespace soma::cli_testing
