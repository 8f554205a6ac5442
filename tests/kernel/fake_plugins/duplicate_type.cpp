// Registers an integrator under a name the integrators plugin already uses.
#include "soma/soma.hpp"

namespace {
class NeverUsed final : public soma::Integrator {
    soma::StepReport step(soma::System&, double) override { return {}; }
};
}  // namespace

SOMA_PLUGIN("duplicate_type") {
    registry.add_integrator(soma::ParameterSchema("implicit_euler", "a clash"),
                            [](const soma::Parameters&) { return std::make_unique<NeverUsed>(); });
}
