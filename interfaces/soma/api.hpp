#pragma once
/// \file api.hpp
/// \brief Plugin ABI: the version data symbol, the registration entry point and export macros.
///
/// Every plugin library defines exactly two exported symbols:
///   - `soma_plugin_info`: a plain data object (PluginInfo) the loader reads *before* calling any
///     plugin function, to refuse a library built against another SDK version (keep static
///     initialisers out of plugins: the dynamic loader runs them when it loads the library);
///   - `soma_register_plugin(soma::Registry&)`: registers the library's types explicitly (no
///     static registration objects: linkers drop them).
/// Use SOMA_PLUGIN(name) once per library to define both.

#include <cstdint>

#define SOMA_EXPORT __attribute__((visibility("default")))
/// Marks SDK classes and functions implemented in libsoma_kernel (type identity across libraries).
#define SOMA_API __attribute__((visibility("default")))

namespace soma {

/// Bumped whenever an interface in interfaces/soma changes incompatibly.
inline constexpr std::uint32_t kPluginApiVersion = 28;

/// Plain data: read by the loader with no plugin code run.
struct PluginInfo {
    std::uint32_t api_version;  ///< must equal kPluginApiVersion of the loading kernel
    const char* name;           ///< library name shown by `soma plugins`
    const char* build_id;       ///< the compiler that built it, for diagnostics
};

class Registry;

}  // namespace soma

#define SOMA_STRINGIFY_IMPL(x) #x
#define SOMA_STRINGIFY(x) SOMA_STRINGIFY_IMPL(x)

/// Defines the plugin's info symbol and declares its registration entry point; follow it with
/// the body of `void soma_register_plugin(soma::Registry& registry)`.
#define SOMA_PLUGIN(plugin_name)                                                           \
    extern "C" SOMA_EXPORT const soma::PluginInfo soma_plugin_info{                        \
        soma::kPluginApiVersion, plugin_name, "compiler " __VERSION__};                    \
    extern "C" SOMA_EXPORT void soma_register_plugin(soma::Registry& registry)
