// Plugin loading: every refusal has a clear message, and nothing of a refused plugin runs.
#include "kernel_test_support.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace soma;
using Catch::Matchers::Contains;

namespace {
const std::string fake_dir = SOMA_FAKE_PLUGIN_DIR;
}

TEST_CASE("the built-in plugin folder provides the integrators", "[plugins]") {
    TypeRegistry registry;
    PluginLoader loader(registry);
    loader.load_defaults();
    REQUIRE(registry.find(TypeKind::integrator, "implicit_euler"));
    CHECK(registry.find(TypeKind::integrator, "implicit_euler")->plugin == "integrators");
    CHECK(registry.find(TypeKind::integrator, "newmark")->schema.find("dt"));  // kernel common key added
}

TEST_CASE("plugin loading errors", "[plugins][errors]") {
    TypeRegistry registry;
    PluginLoader loader(registry);
    SECTION("a missing path") {
        CHECK_THROWS_WITH(loader.load_path("/no/such/libsoma_x.so", "the scene's plugin_paths"),
                          Contains("plugin not found: '/no/such/libsoma_x.so' (from the scene's plugin_paths) does not exist"));
    }
    SECTION("an API version mismatch is refused before the plugin's code runs") {
        // The fake's entry point calls abort(): reaching this check proves it never ran.
        CHECK_THROWS_WITH(loader.load_path(fake_dir + "/libsoma_fake_wrong_api_version.so", "test"),
                          Contains("was built for plugin API version " + std::to_string(soma::kPluginApiVersion + 998) +
                                   ", but this kernel has version " + std::to_string(soma::kPluginApiVersion)) &&
                              Contains("rebuild the plugin"));
    }
    SECTION("a library that is not a plugin") {
        CHECK_THROWS_WITH(loader.load_path(fake_dir + "/libsoma_fake_not_a_plugin.so", "test"),
                          Contains("is not a Soma plugin") && Contains("SOMA_PLUGIN"));
    }
    SECTION("a duplicate type names both providers") {
        loader.load_defaults();
        CHECK_THROWS_WITH(loader.load_path(fake_dir + "/libsoma_fake_duplicate_type.so", "test"),
                          Contains("duplicate integrator type 'implicit_euler': provided by plugin 'integrators'") &&
                              Contains("and again by plugin 'duplicate_type'"));
    }
    SECTION("a plugin whose registration throws is named with the reason") {
        CHECK_THROWS_WITH(loader.load_path(fake_dir + "/libsoma_fake_throws_on_register.so", "test"),
                          Contains("plugin 'throws_on_register'") && Contains("failed to register") &&
                              Contains("declares 'x' twice"));
        // The type it registered before failing keeps a factory whose code is in the library:
        // the library stays loaded, so the registry can still be destroyed (at the end of this
        // section) without calling unloaded code.
        CHECK(registry.find(TypeKind::integrator, "registered_before_failing") != nullptr);
    }
    SECTION("a library that cannot be loaded reports the linker's reason") {
        const auto bogus = std::filesystem::temp_directory_path() / "libsoma_not_elf.so";
        { std::ofstream(bogus) << "not an ELF file"; }
        CHECK_THROWS_WITH(loader.load_path(bogus, "test"), Contains("cannot load plugin") && Contains("libsoma_not_elf.so"));
    }
}

TEST_CASE("unknown types get the closest names and their plugin", "[plugins][errors]") {
    TypeRegistry registry;
    PluginLoader loader(registry);
    loader.load_defaults();
    CHECK_THAT(registry.unknown_type_message(TypeKind::integrator, "implicit_eular"),
               Contains("unknown integrator type 'implicit_eular'; did you mean 'implicit_euler' (plugin 'integrators')"));
    CHECK_THAT(registry.unknown_type_message(TypeKind::element, "newmark"),
               Contains("'newmark' is a type of kind 'integrator' (plugin 'integrators'), not of kind 'element'"));
    CHECK_THAT(registry.unknown_type_message(TypeKind::integrator, "zzzzzzzzzzzz"),
               Contains("known types: bdf, bdf2, bridson_marino, implicit_euler, implicit_midpoint, ncp_newton, newmark, statics, symplectic_euler, trapezoidal"));
}
