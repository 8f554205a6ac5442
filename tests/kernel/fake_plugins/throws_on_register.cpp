// A plugin whose registration fails after it has registered a type: the type's factory lives
// in this library, which must therefore stay loaded.
#include "soma/soma.hpp"

namespace {
class NeverBuilt final : public soma::Integrator {
    soma::StepReport step(soma::System&, double) override { return {}; }
};
}  // namespace

SOMA_PLUGIN("throws_on_register") {
    registry.add_integrator(soma::ParameterSchema("registered_before_failing", "registered, then the plugin fails"),
                            [](const soma::Parameters&) { return std::make_unique<NeverBuilt>(); });
    soma::ParameterSchema schema("broken", "a schema with a repeated key");
    schema.real("x", "first");
    schema.real("x", "again");  // throws std::logic_error
}
