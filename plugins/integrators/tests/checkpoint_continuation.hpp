#pragma once
/// \file checkpoint_continuation.hpp
/// \brief The integrator tests' check that a checkpoint carries everything an integrator
/// carries from step to step: a fresh integrator restored from it continues bit for bit.

#include "linear_oscillator_system.hpp"

#include "soma/checkpoint.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace soma::integrators::testing {

/// Saves \p integrator's checkpoint, restores it into the fresh \p restored, and checks that the
/// two continue \p system (the restored one a copy of it) identically over \p steps steps of \p h.
/// \p system is left advanced by those steps.
inline void check_checkpoint_continues(Integrator& integrator, Integrator& restored, LinearOscillatorSystem& system,
                                       double h, int steps) {
    std::vector<CheckpointRecord> section;
    CheckpointWriter out(section);
    integrator.save_checkpoint(out);
    LinearOscillatorSystem copy = system;
    CheckpointReader in(section, "integrator");
    restored.restore_checkpoint(in);
    CHECK(in.finished());
    for (int i = 0; i < steps; ++i) {
        REQUIRE(integrator.step(system, h).converged);
        REQUIRE(restored.step(copy, h).converged);
    }
    // Bit for bit: exact comparisons.
    CHECK(copy.q() == system.q());
    CHECK(copy.v() == system.v());
}

}  // namespace soma::integrators::testing
