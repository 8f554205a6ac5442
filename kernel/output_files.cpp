// Output files checked before the run (output_files.hpp).
#include "output_files.hpp"

#include <fmt/format.h>

#include <string>

namespace soma {
namespace {

/// A planned file, normalised, with who plans it.
struct Planned {
    std::filesystem::path path;  ///< lexically normal, relative
    bool numbered = false;
    std::size_t output = 0;      ///< index in the scene's outputs
    std::string key;
};

/// A numbered file name split around its last run of digits: frames_000000.vtu -> frames_, .vtu.
struct Series {
    std::string head, tail;
};

Series split_number(const std::string& name) {
    const std::size_t last = name.find_last_of("0123456789");
    if (last == std::string::npos) return {name, ""};
    std::size_t first = last;
    while (first > 0 && name[first - 1] >= '0' && name[first - 1] <= '9') --first;
    return {name.substr(0, first), name.substr(last + 1)};
}

/// Whether `name` is a member of the series `series` (head, one or more digits, tail).
bool in_series(const Series& series, const std::string& name) {
    if (name.size() <= series.head.size() + series.tail.size()) return false;
    if (name.compare(0, series.head.size(), series.head) != 0) return false;
    if (name.compare(name.size() - series.tail.size(), series.tail.size(), series.tail) != 0) return false;
    const std::string digits = name.substr(series.head.size(), name.size() - series.head.size() - series.tail.size());
    return digits.find_first_not_of("0123456789") == std::string::npos;
}

/// Whether two planned entries can name the same file.
bool same_file(const Planned& a, const Planned& b) {
    if (a.path.parent_path() != b.path.parent_path()) return false;
    const std::string na = a.path.filename().string(), nb = b.path.filename().string();
    if (!a.numbered && !b.numbered) return na == nb;
    if (a.numbered && b.numbered) {
        const Series sa = split_number(na), sb = split_number(nb);
        return sa.head == sb.head && sa.tail == sb.tail;
    }
    return a.numbered ? in_series(split_number(na), nb) : in_series(split_number(nb), na);
}

/// Whether `folder` is a proper ancestor of `file` (one output's file is another's folder).
bool is_folder_of(const std::filesystem::path& folder, const std::filesystem::path& file) {
    auto f = folder.begin();
    auto p = file.begin();
    for (; f != folder.end(); ++f, ++p)
        if (p == file.end() || *f != *p) return false;
    return p != file.end();
}

std::string describe(const Planned& p) {
    const std::string path = p.path.generic_string();
    return p.numbered ? fmt::format("'{}' (and the files numbered after it)", path) : fmt::format("'{}'", path);
}

/// "outputs[0] (scene.yaml:12:5)": where an earlier output is written.
std::string where(const Parameters& block) {
    const SourceLocation at = block.location();
    if (at.line > 0) return fmt::format("{} ({}:{}:{})", at.path, at.file, at.line, at.column);
    return fmt::format("{} ({})", at.path, at.file);
}

}  // namespace

void check_planned_files(const std::vector<std::unique_ptr<Observer>>& observers, const std::vector<Parameters>& blocks) {
    std::vector<Planned> planned;
    for (std::size_t o = 0; o < observers.size() && o < blocks.size(); ++o) {
        for (const PlannedFile& file : observers[o]->planned_files()) {
            const std::string written = file.path.generic_string();
            if (file.path.has_root_path())
                blocks[o].fail(file.key, fmt::format("'{}' is an absolute path: output files are written inside the "
                                                     "output folder (`output.directory` or `soma run --output`); give a "
                                                     "path relative to it",
                                                     written));
            const std::filesystem::path normal = file.path.lexically_normal();
            if (!normal.empty() && *normal.begin() == "..")
                blocks[o].fail(file.key, fmt::format("'{}' leaves the output folder ('..' climbs above it): give a path "
                                                     "inside it",
                                                     written));
            if (normal.empty() || normal == "." || !normal.has_filename() || normal.filename() == "." ||
                normal.filename() == "..")
                blocks[o].fail(file.key, fmt::format("'{}' names a folder, not a file", written));
            const Planned here{normal, file.numbered, o, file.key};
            for (const Planned& earlier : planned) {
                if (same_file(earlier, here)) {
                    const bool itself = earlier.output == o;
                    blocks[o].fail(file.key,
                                   fmt::format("{} is also written by {}{}: two writers of one file overwrite or "
                                               "interleave each other's data; give {} another name",
                                               describe(here), itself ? "this output's " : "",
                                               itself ? "`" + earlier.key + "`" : where(blocks[earlier.output]),
                                               itself ? "it" : "one of them"));
                }
                if (is_folder_of(here.path, earlier.path))
                    blocks[o].fail(file.key, fmt::format("{} is a folder of {}, which {} writes: a path cannot be a file "
                                                         "and a folder",
                                                         describe(here), describe(earlier), where(blocks[earlier.output])));
                if (is_folder_of(earlier.path, here.path))
                    blocks[o].fail(file.key, fmt::format("{} is inside {}, a file {} writes: a path cannot be a file and "
                                                         "a folder",
                                                         describe(here), describe(earlier), where(blocks[earlier.output])));
            }
            planned.push_back(here);
        }
    }
}

}  // namespace soma
