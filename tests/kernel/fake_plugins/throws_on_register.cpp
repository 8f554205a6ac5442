// A plugin whose registration fails (e.g. a schema declaring a key twice).
#include "soma/soma.hpp"

SOMA_PLUGIN("throws_on_register") {
    soma::ParameterSchema schema("broken", "a schema with a repeated key");
    schema.real("x", "first");
    schema.real("x", "again");  // throws std::logic_error
    (void)registry;
}
