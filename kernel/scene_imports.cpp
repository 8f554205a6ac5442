// The scene's `imports:` list, expanded into blocks of its other lists (scene_imports.hpp).
#include "scene_imports.hpp"

#include "parameters_impl.hpp"
#include "scene_validation.hpp"
#include "type_registry.hpp"

#include "soma/api.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace soma {

namespace {

/// The lists an import may add to.
constexpr std::array<const char*, 5> kImportableLists = {"elements", "constraints", "forces", "controllers",
                                                         "outputs"};

/// The `imports:` list validated alone (the rest of the scene is validated after expansion).
Parameters import_blocks_root(const SceneDocument& scene, const TypeRegistry& registry) {
    ParameterSchema schema("scene", "");
    schema.typed_list("imports", "", TypeKind::importer);
    SceneDocument alone = scene;
    // reset(), never operator=: that would write into the scene's own tree, which `alone` shares.
    alone.root.reset(YAML::Node(YAML::NodeType::Map));
    alone.root.force_insert(YAML::Node("imports"), scene.root["imports"]);
    // Located errors need the original marks; the map made here has none, its items keep theirs.
    return make_scene_parameters(alone, schema, registry);
}

int lines_in(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1; }

}  // namespace

SOMA_API std::vector<ImportedText> run_imports(const SceneDocument& scene, const TypeRegistry& registry) {
    std::vector<ImportedText> written;
    if (!scene.root.IsMap() || !scene.root["imports"]) return written;
    const Parameters root = import_blocks_root(scene, registry);
    for (const Parameters& block : root.blocks("imports")) {
        const auto* entry = registry.find(TypeKind::importer, block.type_name());
        const SourceLocation at = block.location();
        ImportedText out;
        out.label = fmt::format("imports.{} ({} at {}:{}:{})", block.string("name"), block.type_name(), at.file,
                                at.line, at.column);
        try {
            out.text = std::get<SceneImport>(entry->factory)(block);
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            throw InputError(at, fmt::format("import '{}' ({}) failed: {}", block.string("name"), block.type_name(),
                                             e.what()));
        }
        written.push_back(std::move(out));
    }
    return written;
}

SOMA_API SceneDocument expand_imports(const SceneDocument& scene, const TypeRegistry& registry,
                                      std::vector<ImportedText>* written_out) {
    const std::vector<ImportedText> written = run_imports(scene, registry);
    if (written_out) *written_out = written;
    if (written.empty()) return scene;
    // A fresh parse of the same text and overrides: the caller's tree stays as it was (yaml-cpp
    // nodes share memory, and YAML::Clone drops the marks that locate errors).
    SceneDocument expanded = load_scene_text(scene.text, scene.file);
    expanded.directory = scene.directory;
    std::vector<std::string> sets;
    for (const SceneOverride& o : scene.overrides) sets.push_back(o.text);
    apply_overrides(expanded, sets);

    for (const ImportedText& imported : written) {
        const int first_line = expanded.overrides.empty() ? expanded.line_count : expanded.overrides.back().end_line;
        SceneOverride region{imported.label, first_line, first_line + lines_in(imported.text), imported.label};
        expanded.overrides.push_back(region);
        // Parsed at its reserved lines (as a `--set` value is), so each node's mark names this text.
        const YAML::Node text = parse_single_yaml_document(std::string(static_cast<std::size_t>(first_line), '\n') +
                                                               imported.text,
                                                           imported.label);
        const SourceLocation text_start{imported.label, 1, 1, ""};
        if (!text.IsDefined() || text.IsNull()) continue;  // an import that writes nothing
        if (!text.IsMap())
            throw InputError(text_start, "an import writes a map of lists (elements, constraints, forces, controllers, "
                                         "outputs), got " + describe_node(text));
        for (auto it = text.begin(); it != text.end(); ++it) {
            // Copies (a Node is a handle): yaml-cpp's operator-> returns a temporary proxy, so a
            // range-for over it->second reads a node that has gone out of scope (ASan).
            const YAML::Node key_node = it->first;
            const YAML::Node blocks = it->second;
            const std::string key = key_node.Scalar();
            const SourceLocation where = locate(expanded.file, expanded.overrides, key_node.Mark(), key);
            if (std::find(kImportableLists.begin(), kImportableLists.end(), key) == kImportableLists.end())
                throw InputError(where, "an import may write only the lists elements, constraints, forces, "
                                        "controllers and outputs");
            if (!blocks.IsSequence())
                throw InputError(where, "expected a list of blocks, got " + describe_node(blocks));
            YAML::Node list = expanded.root[key];
            if (!list.IsDefined() || list.IsNull()) {
                expanded.root[key] = YAML::Node(YAML::NodeType::Sequence);
                list.reset(expanded.root[key]);
            }
            if (!list.IsSequence())
                throw InputError(locate(expanded.file, expanded.overrides, list.Mark(), key),
                                 fmt::format("'{}' is {}, so the import '{}' cannot add its blocks to it", key,
                                             describe_node(list), imported.label));
            for (const YAML::Node& item : blocks) list.push_back(item);
        }
    }
    return expanded;
}

}  // namespace soma
