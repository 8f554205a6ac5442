// Reading a YAML scene and applying `--set key=value` overrides (scene_file.hpp).
#include "scene_file.hpp"

#include "parameters_impl.hpp"
#include "string_distance.hpp"

#include "soma/api.hpp"
#include "soma/input_file.hpp"
#include "soma/parameters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <system_error>

namespace soma {

namespace {

std::string describe_root(const YAML::Node& root) {
    if (root.IsSequence()) return "a list";
    return "'" + root.Scalar() + "'";
}

}  // namespace

/// \brief One YAML document from text; a second document (after `---`) is refused at its
/// `---` line: yaml-cpp's Load would silently drop it.
SOMA_API YAML::Node parse_single_yaml_document(const std::string& text, const std::string& name) {
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::ParserException& e) {
        throw InputError(location_of(name, e.mark, ""), "YAML syntax error: " + e.msg);
    } catch (const YAML::Exception& e) {  // e.g. nesting too deep
        throw InputError(location_of(name, e.mark, ""), "cannot read YAML: " + e.msg);
    }
    if (documents.empty()) return YAML::Node();
    if (documents.size() > 1) {
        // Point at the `---` that starts the second document (an empty document's mark is the
        // line after it).
        YAML::Mark at = documents[1].Mark();
        const int second_line = at.line;
        std::istringstream lines(text);
        std::string line;
        for (int number = 0; std::getline(lines, line) && number <= second_line; ++number)
            if (line.rfind("---", 0) == 0 && (line.size() == 3 || std::isspace(static_cast<unsigned char>(line[3])))) {
                at.line = number;
                at.column = 0;
            }
        throw InputError(location_of(name, at, ""),
                         fmt::format("a second YAML document: a scene file holds one document, and this file has {}; "
                                     "remove this '---' line and what follows it, or merge it into the first "
                                     "document (a '---' is allowed only before the first)",
                                     documents.size()));
    }
    return documents.front();
}

/// \brief Parses scene text; syntax errors become `name:line:col: YAML syntax error: ...`.
SOMA_API SceneDocument load_scene_text(const std::string& text, const std::string& name) {
    SceneDocument scene;
    scene.file = name;
    scene.text = text;
    std::error_code ec;
    scene.directory = std::filesystem::current_path(ec);
    scene.root = parse_single_yaml_document(text, name);
    if (!scene.root.IsDefined() || scene.root.IsNull())
        throw InputError(name + ": the scene is empty (expected a map of sections such as 'elements:')");
    if (!scene.root.IsMap())
        throw InputError(location_of(name, scene.root.Mark(), ""),
                         "expected the scene to be a map of sections such as 'elements:', got " +
                             describe_root(scene.root));
    scene.line_count = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
    return scene;
}

SOMA_API SourceLocation locate(const std::string& file, const std::vector<SceneOverride>& overrides,
                               const YAML::Mark& mark, const std::string& path) {
    for (const SceneOverride& o : overrides)
        if (mark.line >= o.first_line && mark.line < o.end_line) {
            if (o.origin.empty()) return SourceLocation{"--set " + o.text, 0, 0, path};
            return SourceLocation{o.origin, mark.line - o.first_line + 1, mark.column + 1, path};
        }
    return location_of(file, mark, path);
}

/// \brief Reads and parses a scene file; relative paths in it resolve against its folder.
/// \brief Reads and parses a scene file; relative paths in it resolve against its folder. The
/// file must be a regular file of at most kMaxSceneFileBytes, checked before it is opened.
SOMA_API SceneDocument load_scene_file(const std::filesystem::path& file) {
    const std::string name = file.string();
    std::ostringstream text;
    try {
        std::ifstream in = open_input_file(file, "scene file", kMaxSceneFileBytes);
        text << in.rdbuf();
    } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
    }
    SceneDocument scene = load_scene_text(text.str(), name);
    std::error_code ec;
    scene.directory = std::filesystem::absolute(file, ec).parent_path();
    return scene;
}

namespace {

/// One step of an override path: a key (or list item name), then any `[i]` indices.
struct PathStep {
    std::string name;
    std::vector<std::size_t> indices;
};

[[noreturn]] void bad_override(const std::string& override_text, const std::string& message) {
    throw InputError("--set " + override_text + ": " + message);
}

std::vector<PathStep> parse_path(const std::string& override_text, const std::string& path) {
    std::vector<PathStep> steps;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t dot = path.find('.', pos);
        if (dot == std::string::npos) dot = path.size();
        const std::string part = path.substr(pos, dot - pos);
        PathStep step;
        const std::size_t bracket = part.find('[');
        step.name = part.substr(0, bracket);
        std::size_t b = bracket;
        while (b != std::string::npos && b < part.size()) {
            const std::size_t close = part.find(']', b);
            if (part[b] != '[' || close == std::string::npos)
                bad_override(override_text, "malformed index in '" + part + "' (write key[0])");
            const std::string digits = part.substr(b + 1, close - b - 1);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
                bad_override(override_text, "index '" + digits + "' in '" + part + "' is not a non-negative integer");
            step.indices.push_back(std::stoul(digits));
            b = close + 1;
        }
        if (step.name.empty() && step.indices.empty())
            bad_override(override_text, "empty key in path '" + path + "'");
        if (step.name.empty() && steps.empty())
            bad_override(override_text, "path '" + path + "' must start with a key");
        steps.push_back(std::move(step));
        pos = dot + 1;
    }
    return steps;
}

std::vector<std::string> map_keys(const YAML::Node& map) {
    std::vector<std::string> keys;
    for (auto it = map.begin(); it != map.end(); ++it)
        if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
    return keys;
}

/// Parses an override's value (or a key it adds) at the lines reserved for that override, past
/// the file's end (SceneOverride): errors found by validation then name the `--set` argument.
YAML::Node parse_at(const std::string& override_text, const std::string& text, int first_line) {
    const std::string padded = std::string(static_cast<std::size_t>(first_line), '\n') + text;
    try {
        return YAML::Load(padded);
    } catch (const YAML::Exception& e) {
        bad_override(override_text, "value '" + text + "' is not valid YAML: " + e.msg);
    }
}

/// Replaces what `slot` refers to in the tree (yaml-cpp assignment rebinds the shared node).
void replace(YAML::Node slot, const YAML::Node& value) { slot = value; }

void apply_override(SceneDocument& scene, const std::string& override_text) {
    const std::size_t eq = override_text.find('=');
    if (eq == std::string::npos) bad_override(override_text, "expected key=value, e.g. integrator.dt=1e-4");
    const std::string path = override_text.substr(0, eq);
    const std::string value_text = override_text.substr(eq + 1);
    const std::vector<PathStep> steps = parse_path(override_text, path);
    // This override's lines: after the file's and the earlier overrides'.
    const int first_line = scene.overrides.empty() ? scene.line_count : scene.overrides.back().end_line;
    const int lines = static_cast<int>(std::count(override_text.begin(), override_text.end(), '\n')) + 1;
    const auto record = [&] { scene.overrides.push_back({override_text, first_line, first_line + lines}); };

    YAML::Node current = scene.root;  // rebind with reset(), never operator= (that writes the tree)
    std::string where;                // the path walked so far, for messages
    for (std::size_t s = 0; s < steps.size(); ++s) {
        const PathStep& step = steps[s];
        const bool last = s + 1 == steps.size();
        if (!step.name.empty()) {
            const std::string here = where.empty() ? step.name : where + "." + step.name;
            if (current.IsMap()) {
                YAML::Node next = find_value(current, step.name);
                if (!next.IsDefined()) {
                    if (last && step.indices.empty()) {
                        // A new leaf: validation checks the key like any other.
                        YAML::Node key = parse_at(override_text, step.name, first_line);
                        current.force_insert(key, parse_at(override_text, value_text, first_line));
                        record();
                        return;
                    }
                    bad_override(override_text,
                                 fmt::format("{} has no key '{}'{}", where.empty() ? "the scene" : "'" + where + "'",
                                             step.name, did_you_mean(step.name, map_keys(current))));
                }
                current.reset(next);
            } else if (current.IsSequence()) {
                // A list item by its `name` (elements.beam) or, when no item has that name, by its
                // index written as a key (elements.0, the same as elements[0]).
                std::vector<std::string> names;
                YAML::Node found(YAML::NodeType::Undefined);
                for (const auto& item : current) {
                    const YAML::Node n = find_value(item, "name");
                    if (!n.IsScalar()) continue;
                    names.push_back(n.Scalar());
                    if (n.Scalar() == step.name && !found.IsDefined()) found.reset(item);
                }
                const bool is_index = step.name.size() <= 9 &&  // stoul of a longer one may overflow
                                      step.name.find_first_not_of("0123456789") == std::string::npos;
                if (!found.IsDefined() && is_index) {
                    const std::size_t i = std::stoul(step.name);
                    if (i >= current.size())
                        bad_override(override_text,
                                     fmt::format("'{}' has {} item{}, index {} is out of range{}", where, current.size(),
                                                 current.size() == 1 ? "" : "s", step.name,
                                                 current.size() == 0 ? "" : fmt::format(" (0..{})", current.size() - 1)));
                    const YAML::Node& list = current;  // the const operator[] never inserts
                    found.reset(list[i]);
                }
                if (!found.IsDefined())
                    bad_override(override_text,
                                 fmt::format("'{}' has no item named '{}' (named items: {}; indices: {}); address a "
                                             "list item by its name ({}.NAME) or by its index ({}[0] or {}.0){}",
                                             where, step.name, names.empty() ? "none" : quoted_list(names),
                                             current.size() == 0 ? std::string("none, the list is empty")
                                                                 : fmt::format("0..{}", current.size() - 1),
                                             where, where, where, did_you_mean(step.name, names)));
                current.reset(found);
            } else {
                bad_override(override_text, fmt::format("'{}' is {}, it has no key '{}'", where,
                                                        describe_node(current), step.name));
            }
            where = here;
        }
        for (std::size_t i : step.indices) {
            if (!current.IsSequence())
                bad_override(override_text, fmt::format("'{}' is {}, not a list; cannot take [{}]", where,
                                                        describe_node(current), i));
            if (i >= current.size())
                bad_override(override_text, fmt::format("'{}' has {} item{}, index [{}] is out of range", where,
                                                        current.size(), current.size() == 1 ? "" : "s", i));
            const YAML::Node& list = current;  // the const operator[] never inserts
            YAML::Node next = list[i];
            current.reset(next);
            where += fmt::format("[{}]", i);
        }
    }
    replace(current, parse_at(override_text, value_text, first_line));
    record();
}

}  // namespace

/// \brief Applies `key=value` overrides in order; a later one sees the earlier ones.
SOMA_API void apply_overrides(SceneDocument& scene, const std::vector<std::string>& overrides) {
    for (const std::string& o : overrides) apply_override(scene, o);
}

}  // namespace soma
