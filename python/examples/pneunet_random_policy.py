#!/usr/bin/env python3
"""A random policy on the PneuNet actuator (MAT-DiSMech Fig. 4) through soma.Env, 1000 steps.

The PneuNet rod of configs/rods/pneunet.yaml, here in dynamics (implicit Euler, 1 ms) and
written as a Python dict: one action drives kappa1, the natural curvature of every bend-twist
spring (the chambers' pressure), over [-40, 0] 1/m; the reward is the tip's depth below the
clamp (a policy that curls the finger down earns more). Nothing is trained: the point is the
loop a learning library runs.

    PYTHONPATH=build/python python3 python/examples/pneunet_random_policy.py [--steps 1000]
"""

import argparse
import time

import numpy as np

import soma


def pneunet_scene(duration):
    return {
        "simulation": {"duration": duration},
        "integrator": {"type": "implicit_euler", "dt": 1.0e-3},
        "linear_solver": {"type": "eigen_ldlt"},
        "elements": [{
            "name": "actuator", "type": "discrete_rod",
            "geometry": {"line": {"from": [0, 0, 0], "to": [0.1, 0, 0], "nodes": 51}},
            "cross_section": {"circle": {"radius": 1.0e-3}},
            "material": {"density": 1200, "youngs_modulus": 2.0e10, "poisson_ratio": 0.5},
            "fixed": {"nodes": [0, 1], "edges": [0]},
        }],
        "forces": [{"type": "gravity", "acceleration": [0, 0, -9.8]},
                   {"type": "viscous_drag", "viscosity": 0.05}],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = soma.Env(pneunet_scene(duration=args.steps * 1.0e-3),
                   actions=[{"element": "actuator", "channel": "natural_curvature", "component": "kappa1",
                             "low": -40.0, "high": 0.0}],
                   observation=lambda sim: sim.positions("actuator")[-1],
                   reward=lambda sim, action: -sim.positions("actuator")[-1, 2])
    observation, _ = env.reset(seed=args.seed)
    total, steps, started = 0.0, 0, time.perf_counter()
    while True:
        observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        steps += 1
        if terminated:
            raise SystemExit(f"the episode diverged at t = {info['time']} s: {info['diagnosis']}")
        if truncated:
            break
    elapsed = time.perf_counter() - started
    print(f"{steps} steps in {elapsed:.2f} s ({steps / elapsed:.0f} steps/s); mean reward {total / steps:.4f} m; "
          f"tip at {np.array2string(observation, precision=4)} m")


if __name__ == "__main__":
    main()
