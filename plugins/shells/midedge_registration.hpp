#pragma once
/// \file midedge_registration.hpp
/// \brief Registration of the `midedge_shell` element (called from the shells plugin's entry point).

#include "soma/registry.hpp"

namespace soma::shells {

/// \brief Registers `midedge_shell`: its scene schema and the factory that translates validated
/// Parameters into a MidedgeShellDescription.
void register_midedge_shell(soma::Registry& registry);

}  // namespace soma::shells
