// A plugin built against another SDK version: the loader must refuse it before running any of
// its code (its entry point would abort the test).
#include "soma/api.hpp"

#include <cstdlib>

extern "C" SOMA_EXPORT const soma::PluginInfo soma_plugin_info{soma::kPluginApiVersion + 998, "wrong_api_version", "test"};
extern "C" SOMA_EXPORT void soma_register_plugin(soma::Registry&) { std::abort(); }
