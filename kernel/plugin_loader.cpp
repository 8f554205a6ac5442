#include "plugin_loader.hpp"

#include "soma/api.hpp"
#include "type_registry.hpp"

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <stdexcept>

namespace soma {
namespace {

/// Libraries stay loaded for the life of the process: plugin-made objects (and their vtables)
/// may outlive any loader, and unloading PETSc or CUDA runtimes is unsafe.
std::vector<std::unique_ptr<boost::dll::shared_library>>& resident_libraries() {
    static auto* libraries = new std::vector<std::unique_ptr<boost::dll::shared_library>>();
    return *libraries;
}

bool is_plugin_file(const std::filesystem::path& p) {
    const std::string name = p.filename().string();
    return name.rfind("lib", 0) == 0 && p.extension() == ".so";
}

}  // namespace

std::filesystem::path PluginLoader::builtin_folder() {
    // The kernel library sits in <prefix>/lib; plugins in <prefix>/lib/soma/plugins (build tree
    // and install tree alike).
    const auto kernel = std::filesystem::path(boost::dll::this_line_location().string());
    return kernel.parent_path() / "soma" / "plugins";
}

std::vector<std::filesystem::path> PluginLoader::environment_paths() {
    std::vector<std::filesystem::path> out;
    const char* env = std::getenv("SOMA_PLUGIN_PATH");
    if (!env) return out;
    std::string value = env;
    std::size_t start = 0;
    while (start <= value.size()) {
        const std::size_t end = value.find(':', start);
        const std::string item = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!item.empty()) out.emplace_back(item);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

void PluginLoader::load_defaults() {
    const auto builtin = builtin_folder();
    if (std::filesystem::is_directory(builtin)) load_path(builtin, "the built-in plugin folder");
    for (const auto& p : environment_paths()) load_path(p, "SOMA_PLUGIN_PATH");
}

void PluginLoader::load_path(const std::filesystem::path& path, const std::string& origin) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(path))
            if (entry.is_regular_file() && is_plugin_file(entry.path())) files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) load_library(f, origin);
        return;
    }
    if (!std::filesystem::exists(path, ec))
        throw std::runtime_error(fmt::format("plugin not found: '{}' (from {}) does not exist", path.string(), origin));
    load_library(path, origin);
}

void PluginLoader::load_library(const std::filesystem::path& file, const std::string& origin) {
    const auto canonical = std::filesystem::weakly_canonical(file);
    for (const auto& p : loaded_)
        if (p.file == canonical) return;  // the same library named twice (folder and path)

    auto library = std::make_unique<boost::dll::shared_library>();
    boost::system::error_code error;
    library->load(boost::dll::fs::path(canonical.string()),
                  boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, error);
    if (error) {
        const char* why = dlerror();  // Boost reports only a category; dlerror has the linker's text
        throw std::runtime_error(fmt::format("cannot load plugin '{}' (from {}): {}", canonical.string(), origin,
                                             why ? why : error.message()));
    }
    if (!library->has("soma_plugin_info") || !library->has("soma_register_plugin"))
        throw std::runtime_error(fmt::format(
            "'{}' (from {}) is not a Soma plugin: it does not define soma_plugin_info and soma_register_plugin "
            "(use the SOMA_PLUGIN macro from soma/api.hpp)",
            canonical.string(), origin));
    const auto& info = library->get<const PluginInfo>("soma_plugin_info");
    if (info.api_version != kPluginApiVersion)
        throw std::runtime_error(fmt::format(
            "plugin '{}' ({}, from {}) was built for plugin API version {}, but this kernel has version {}; "
            "rebuild the plugin against this Soma SDK",
            info.name ? info.name : "?", canonical.string(), origin, info.api_version, kPluginApiVersion));
    const std::string name = info.name ? info.name : canonical.stem().string();
    auto& register_plugin = library->get<void(Registry&)>("soma_register_plugin");
    // The library stays resident from here on, even if registration fails: types it registered
    // before failing hold factories whose code lives in it. One handle per file: every loader
    // of the process (one per simulation in Python) shares it.
    auto& resident = resident_libraries();
    if (std::none_of(resident.begin(), resident.end(),
                     [&](const auto& kept) { return kept->location() == library->location(); }))
        resident.push_back(std::move(library));
    registry_.set_current_provider(name, canonical.string());
    try {
        register_plugin(registry_);
    } catch (const std::exception& e) {
        registry_.set_current_provider("kernel", "");
        throw std::runtime_error(fmt::format("plugin '{}' ({}) failed to register: {}", name, canonical.string(), e.what()));
    }
    registry_.set_current_provider("kernel", "");
    loaded_.push_back({name, canonical, info.build_id ? info.build_id : ""});
}

const TypeRegistry& builtin_registry() {
    static TypeRegistry* registry = [] {
        auto* r = new TypeRegistry();  // never destroyed: plugin objects may outlive statics
        static PluginLoader loader(*r);
        loader.load_defaults();
        return r;
    }();
    return *registry;
}

}  // namespace soma
