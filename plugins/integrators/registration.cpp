// Registers implicit_euler, implicit_midpoint, newmark, trapezoidal, bdf2, bdf, symplectic_euler,
// bridson_marino and statics. The kernel adds the keys
// every integrator shares: dt, newton, adaptive, error_control.
#include "affine_integrators.hpp"
#include "bdf.hpp"
#include "bdf2.hpp"
#include "explicit_integrators.hpp"

#include "soma/api.hpp"
#include "soma/registry.hpp"

using namespace soma;
using namespace soma::integrators;

SOMA_PLUGIN("integrators") {
    registry.add_integrator(
        ParameterSchema("implicit_euler",
                        "Backward Euler (MAT-DiSMech eq. 3-7): first order, unconditionally stable, damps vibrations "
                        "numerically (more at larger dt)."),
        [](const Parameters&) { return std::make_unique<ImplicitEuler>(); });
    registry.add_integrator(
        ParameterSchema("implicit_midpoint",
                        "Implicit midpoint rule: second order, symplectic, no numerical damping of linear "
                        "oscillations; forces are evaluated at the step's midpoint."),
        [](const Parameters&) { return std::make_unique<ImplicitMidpoint>(); });

    ParameterSchema newmark("newmark",
                            "Newmark-beta family; the default (beta 1/4, gamma 1/2) is the average-acceleration "
                            "(trapezoidal) rule: second order, no numerical damping. gamma > 1/2 adds damping.");
    newmark.real("beta", "displacement weight of the new acceleration").fallback(0.25).range(0.0, 0.5);
    newmark.real("gamma", "velocity weight of the new acceleration").fallback(0.5).range(0.5, 1.0);
    registry.add_integrator(std::move(newmark), [](const Parameters& p) {
        const double beta = p.real("beta"), gamma = p.real("gamma");
        // Unconditional stability of Newmark needs 2 beta >= gamma >= 1/2.
        if (2.0 * beta < gamma - 1e-12)
            p.fail("beta", "beta < gamma/2 makes Newmark only conditionally stable; choose beta >= gamma/2 "
                           "(beta = 1/4, gamma = 1/2 is the average-acceleration rule)");
        return std::make_unique<Newmark>(beta, gamma);
    });

    registry.add_integrator(
        ParameterSchema("trapezoidal",
                        "The trapezoidal rule (ArtiSynth's TRAPEZOIDAL, Lloyd et al. technical notes 0.9.3): the same "
                        "step as newmark with its defaults (beta 1/4, gamma 1/2), solved to convergence rather than "
                        "linearised once; second order, energy-neutral on linear systems."),
        [](const Parameters&) { return std::make_unique<Newmark>(0.25, 0.5); });

    registry.add_integrator(
        ParameterSchema("symplectic_euler",
                        "Symplectic (semi-implicit) Euler (ArtiSynth technical notes 0.9.1): M a = f(t, q, v), "
                        "v+ = v + dt a, q+ = q + dt v+. Explicit in positions and velocities (one factorization of "
                        "M a step, no stiffness matrix), first order, symplectic; stable only for dt < 2/omega_max "
                        "(omega_max the scene's highest frequency: small dt for stiff rods and contacts). Equality "
                        "constraints are held at the step's end at first order (G v+ = -C/dt)."),
        [](const Parameters&) { return std::make_unique<SymplecticEuler>(); });

    registry.add_integrator(
        ParameterSchema("bridson_marino",
                        "Bridson-Marino (ArtiSynth technical notes 0.9.4; Bridson, Marino and Fedkiw 2003): velocity "
                        "Verlet with damping forces implicit in each half step; explicit in positions (no stiffness "
                        "matrix), second order, stable for dt < 2/omega_max without damping. Equality constraints "
                        "are held on the half-step velocity that moves the positions, and on the end velocity."),
        [](const Parameters&) { return std::make_unique<BridsonMarino>(); });

    registry.add_integrator(
        ParameterSchema("bdf2",
                        "Two-step backward differentiation formula with variable steps (Hairer and Wanner, Solving "
                        "ODEs II, III.5): second order, L-stable (damps vibrations the step does not resolve, less "
                        "than implicit Euler at a resolved frequency); the first step is implicit Euler. With "
                        "error_control, steps grow at most twofold from one to the next (zero-stability)."),
        [](const Parameters&) { return std::make_unique<Bdf2>(); });

    ParameterSchema bdf("bdf",
                        "Backward differentiation formulas of variable order and step (the method of ode15s and "
                        "CVODE): with error_control, each step's order (1 to max_order) and size are chosen from "
                        "the local error estimates of the neighbouring orders; without it, the order rises by one "
                        "a step to max_order. Orders 1 and 2 are A-stable, 3 to 5 A(alpha)-stable (86, 73, 51 "
                        "degrees): a lightly damped vibration near omega dt ~ 1 can grow slowly there, which error "
                        "control sees and answers by lowering the order. The first step is implicit Euler; steps "
                        "grow at most twofold.");
    bdf.integer("max_order", "highest order used (1: implicit Euler; 2: bdf2's formula, with the chart correction on rotations; ode15s' MaxOrder)")
        .fallback(Bdf::kHighestOrder).range(1, Bdf::kHighestOrder);
    registry.add_integrator(std::move(bdf), [](const Parameters& p) {
        return std::make_unique<Bdf>(static_cast<int>(p.integer("max_order")));
    });

    ParameterSchema statics("statics",
                            "Quasi-static equilibrium (no inertia): each time step is a load step, applied loads "
                            "(gravity, point loads) ramp linearly over ramp_time (MAT-DiSMech's static mode).");
    statics.real("ramp_time", "time over which applied loads grow from 0 to full (0: full load at once)")
        .unit("s").fallback(0.0).non_negative();
    registry.add_integrator(std::move(statics),
                            [](const Parameters& p) { return std::make_unique<Statics>(p.real("ramp_time")); });
}
