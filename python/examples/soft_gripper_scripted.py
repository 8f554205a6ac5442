#!/usr/bin/env python3
"""A scripted controller for the entanglement gripper (configs/contact/entanglement_gripper.yaml).

Five soft rods hang from a pentagon and curl into one another through IMC contact. The scene
file curls them with its own actuation controllers; here they are removed (--set
controllers=[]) and Python drives the fingers instead: it closes them with a smooth ramp of
natural curvature over the first second, staggered finger by finger, holds, then opens them
half way, reading the tips and the contact energy as it goes. 1 s of simulated time per 400
steps of 2.5 ms, the script setting the curvature every 25 ms.

    PYTHONPATH=build/python python3 python/examples/soft_gripper_scripted.py [--seconds 2]
"""

import argparse
import math
import pathlib

import numpy as np

import soma

SCENE = pathlib.Path(__file__).resolve().parents[2] / "configs" / "contact" / "entanglement_gripper.yaml"
FINGERS = [f"finger{k}" for k in range(5)]


def closing(t, finger):
    """The script: each finger's curvature (1/m), ramped in over 1 s with a 0.1 s stagger, held
    from 1.5 s, then halved by 2 s. 40 1/m on both components turns each of the 59 springs by
    0.29 rad: the fingers curl through more than a turn, where 12 1/m would leave them hanging."""
    ramp = min(max((t - 0.1 * finger) / 1.0, 0.0), 1.0)
    smooth = ramp * ramp * (3 - 2 * ramp)
    release = 1.0 - 0.5 * min(max((t - 1.5) / 0.5, 0.0), 1.0)
    return 40.0 * smooth * release


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    sim = soma.Simulation(SCENE, overrides=["controllers=[]", f"simulation.duration={args.seconds}"])
    print(f"{len(FINGERS)} fingers, {sim.dof_count} DOFs, dt = {sim.dt} s")
    while not sim.done:
        for k, finger in enumerate(FINGERS):
            kappa = closing(sim.time, k)
            # both components: the fingers curl toward m1 + m2, as the scene's own controllers do
            sim.set_actuation(finger, "natural_curvature", [kappa, kappa])
        sim.advance(0.025)  # the script's period: 10 steps of 2.5 ms, or more when retried
        if round(sim.time / 0.025) % 10 == 0:  # every 0.25 s
            tips = np.array([sim.positions(f)[-1] for f in FINGERS])
            contact = sim.energy()["terms"].get("imc_contact", 0.0)
            spread = np.linalg.norm(tips[:, :2] - tips[:, :2].mean(axis=0), axis=1).mean()
            print(f"t = {sim.time:4.2f} s: curvature {closing(sim.time, 4):5.2f} 1/m, tips' mean height "
                  f"{tips[:, 2].mean():+.4f} m, spread {spread:.4f} m, contact energy {contact:.3e} J")
    summary = sim.summary()
    print(f"{summary['steps']} steps, {summary['newton_iterations']} Newton iterations, "
          f"{summary['retries']} retries")
    assert math.isfinite(sim.energy()["potential"])


if __name__ == "__main__":
    main()
