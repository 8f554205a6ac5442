#pragma once
/// \file plugin_loader.hpp
/// \brief Loads plugin libraries with Boost.DLL and runs their registration entry points.
///
/// Order of checks for each library: it loads (dlopen error otherwise); it defines the data
/// symbol `soma_plugin_info`; its api_version equals the kernel's (read before any plugin function
/// runs); it defines `soma_register_plugin`; registration succeeds (no duplicate type names).
/// Libraries are never unloaded: they live until the process exits.

#include <filesystem>
#include <string>
#include <vector>

namespace soma {

class TypeRegistry;

/// A loaded plugin, for `soma plugins`.
struct LoadedPlugin {
    std::string name;
    std::filesystem::path file;
    std::string build_id;
};

class PluginLoader {
public:
    explicit PluginLoader(TypeRegistry& registry) : registry_(registry) {}

    /// The plugin folder installed beside the kernel library (lib/soma/plugins).
    static std::filesystem::path builtin_folder();
    /// Folders from the SOMA_PLUGIN_PATH environment variable (':'-separated).
    static std::vector<std::filesystem::path> environment_paths();

    /// Loads every lib*.so in a folder (sorted by name), or one library file. Throws
    /// std::runtime_error with the reason on failure; `origin` says where the path came from.
    void load_path(const std::filesystem::path& path, const std::string& origin);
    /// Loads the built-in folder and SOMA_PLUGIN_PATH.
    void load_defaults();

    const std::vector<LoadedPlugin>& loaded() const { return loaded_; }

private:
    void load_library(const std::filesystem::path& file, const std::string& origin);
    TypeRegistry& registry_;
    std::vector<LoadedPlugin> loaded_;
};

/// A registry holding the built-in plugins and those on SOMA_PLUGIN_PATH, loaded once per
/// process (tests and benchmarks). The loader and registry live until the process exits.
const TypeRegistry& builtin_registry();

}  // namespace soma
