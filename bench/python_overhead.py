#!/usr/bin/env python3
"""Python stepping overhead and VectorEnv throughput (docs/performance.md, "Python API").

Each mode is one whole process, timed from outside against the CLI on the same scene:
  python_overhead.py step --duration 5   the cantilever at 200 nodes, 5 s (5000 steps), step(1) per call
  python_overhead.py run --duration 5    the same through one run() call
  soma run configs/rods/cantilever.yaml --quiet --set elements.beam.geometry.line.nodes=200 --set outputs=[]
      --set simulation.duration=5        the CLI on the same scene
  python_overhead.py vector --envs 8 --threads 2    8 PneuNet environments, 250 steps of 1 ms each
"""

import argparse
import pathlib
import time

import numpy as np

import soma

SOURCE = pathlib.Path(__file__).resolve().parents[1]
CANTILEVER = ["elements.beam.geometry.line.nodes=200", "outputs=[]"]


def pneunet_env():
    return soma.Env(SOURCE / "configs" / "rods" / "pneunet.yaml",
                    overrides=["controllers=[]", "outputs=[]", "integrator={type: implicit_euler, dt: 1.0e-3}",
                               "simulation.duration=0.25"],
                    actions=[{"element": "actuator", "channel": "natural_curvature", "component": "kappa1",
                              "low": -20.0, "high": 0.0}])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["step", "run", "vector"])
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--duration", type=float, default=1.0, help="step/run: simulated seconds (1000 steps a second)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.mode in ("step", "run"):
        sim = soma.Simulation(SOURCE / "configs" / "rods" / "cantilever.yaml",
                              overrides=CANTILEVER + [f"simulation.duration={args.duration}"])
        if args.mode == "run":
            steps = sim.run()
        else:
            steps = 0
            while not sim.done:
                steps += sim.step(1)
    else:
        vector = soma.VectorEnv(pneunet_env, num_envs=args.envs, threads=args.threads)
        vector.reset(seed=0)
        rng = np.random.default_rng(0)
        steps = 0
        for _ in range(249):  # the 250th would end every episode
            vector.step(rng.uniform(-1, 1, (args.envs, 1)))
            steps += args.envs
        vector.close()
    elapsed = time.perf_counter() - started
    print(f"{args.mode}: {steps} steps in {elapsed:.3f} s ({steps / elapsed:.0f} steps/s)")


if __name__ == "__main__":
    main()
