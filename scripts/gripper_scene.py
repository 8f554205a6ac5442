#!/usr/bin/python3
"""Writes the entanglement-gripper scene for N rods of M nodes: the scaling runs of issue 9
(docs/performance.md, "The gripper as it grows").

The physics is that of configs/contact/entanglement_gripper.yaml (read its header): discrete
rods of radius 5 mm, E = 0.3 MPa, rho = 1200 kg/m^3, nu = 0.5, first edge clamped, hanging along
-z from the corners of a regular N-gon of 15 mm side (the first corner on +y, the others
counter-clockwise), gravity, viscous drag 5 Pa s, imc_contact (k = 1e5 N/m, band 0.5 mm, margin
1 mm), implicit Euler at dt = 2.5 ms with eigen_ldlt, and the same curvature ramp: every
bend-twist spring's natural curvature c = (sqrt(2)/dl) atan(sqrt(2) tan(theta_i s/2)),
s = 0.05 min(t, 10 s), theta_i = 39 deg u_i, u_i = frac(43758.5453 sin(12.9898 i + seed)), with
seed = 78.233 (k + 1) for rod k (the shipped file's five seeds, continued).

**Edge length.** Every rod keeps the shipped edge length dl = 0.3/59 m, so a rod of M nodes is
(M - 1) 0.3/59 m long: 0.3 m at M = 60, 1.2 m at M = 240. Keeping the length and shrinking the
edges instead would make straight rods touch themselves: imc_contact skips only edge pairs that
share a node or are joined by an edge, so edges three apart along a rod (two edges between them)
are a candidate pair, and a straight rod holds them apart by 2 dl; they are in the band unless
2 dl > 2r + band = 10.5 mm, that is dl > 5.25 mm. The shipped 5.08 mm edges are already just
short of that: each straight rod's edges three apart sit 0.17 mm deep in the 0.5 mm band from the
first step, where the softplus force is about 2.6e-4 N (docs/performance.md); 0.3/239 = 1.26 mm
edges would put edges up to nine apart in the band, those three apart 7.5 mm inside each other.
The curvature's dl above is the edge length, so it stays 0.3/59 too.

Coordinates are written with six decimals (micrometres), as in the shipped file: at N = 5,
M = 60 this writes the shipped scene's elements, forces and controllers exactly (the header,
the outputs and their names aside), so its tips.csv is the shipped one's.

Usage: scripts/gripper_scene.py --rods N --nodes M [--duration 15] [--vtk-every 40] [-o FILE]
       (--vtk-every 0 writes no VTK frames; the tips CSV is always written, every 40 steps)
"""
import argparse
import math
import sys

SIDE = 0.015            # polygon side (m)
EDGE = "(0.3/59)"       # edge length dl (m), as the actuation expression writes it
EDGE_VALUE = 0.3 / 59
SEED_STEP = 78.233      # rod k's seed is SEED_STEP (k + 1): 78.233, 156.466, ... as shipped


def curvature(seed):
    """The natural-curvature expression of one component (both are equal), with rod seed `seed`."""
    u = f"(43758.5453*sin(12.9898*i+{seed}) - rint(43758.5453*sin(12.9898*i+{seed})) + 0.5)"
    return f"sqrt(2)/{EDGE}*atan(sqrt(2)*tan((39*_pi/180)*{u}*0.05*min(t, 10)/2))"


def fmt6(x):
    """Six decimals, without a negative zero."""
    text = f"{x:.6f}"
    return "0.000000" if text == "-0.000000" else text


def scene(rods, nodes, duration, vtk_every):
    radius = SIDE / (2.0 * math.sin(math.pi / rods))
    length = (nodes - 1) * EDGE_VALUE
    # 0.3 exactly at M = 60 (59 * (0.3/59) is 0.3 in double precision, but say it plainly).
    length_text = "0.3" if nodes == 60 else f"{length:.12g}"
    lines = [
        f"# Entanglement gripper scaled to {rods} rods of {nodes} nodes: written by scripts/gripper_scene.py",
        f"# --rods {rods} --nodes {nodes}; the physics of configs/contact/entanglement_gripper.yaml (read its",
        f"# header). Rods of {length_text} m ({nodes - 1} edges of 0.3/59 m, radius 5 mm) from the corners of a",
        f"# regular {rods}-gon of 15 mm side (circumradius {radius * 1e3:.2f} mm); curvature ramp with seed 78.233 (k + 1)",
        "# for rod k. The edge length is kept, not the rod length: see the script's comment.",
        f"simulation: {{duration: {duration:g}}}",
        "",
        "integrator:",
        "  type: implicit_euler",
        "  dt: 2.5e-3",
        "  newton: {jacobian_reuse: 4}   # chord steps through the last factorization (docs/performance.md)",
        "",
        "linear_solver: {type: eigen_ldlt}",
        "",
        "elements:",
    ]
    for k in range(rods):
        angle = math.pi / 2 + 2 * math.pi * k / rods
        x, y = fmt6(radius * math.cos(angle)), fmt6(radius * math.sin(angle))
        lines += [
            f"  - name: finger{k}",
            "    type: discrete_rod",
            f"    geometry: {{line: {{from: [{x}, {y}, 0], to: [{x}, {y}, -{length_text}], nodes: {nodes}}}}}",
            "    cross_section: {circle: {radius: 5.0e-3}}",
            "    material: {density: 1200, youngs_modulus: 3.0e5, poisson_ratio: 0.5}",
            "    fixed: {nodes: [0, 1], edges: [0]}",
        ]
    lines += [
        "",
        "forces:",
        "  - {type: gravity, acceleration: [0, 0, -9.81]}",
        "  - {type: viscous_drag, viscosity: 5.0}",
        "  - {type: imc_contact, stiffness: 1.0e5, band: 5.0e-4, margin: 1.0e-3}",
        "",
        "controllers:",
    ]
    for k in range(rods):
        c = curvature(f"{SEED_STEP * (k + 1):.3f}")
        lines += [
            "  - type: actuation",
            f"    element: finger{k}",
            "    channel: natural_curvature",
            f'    values: ["{c}",',
            f'             "{c}"]',
        ]
    lines += ["", "outputs:", "  - type: csv", "    name: tips", "    every: 40", "    probes:"]
    lines += [f"      - {{node_position: {{element: finger{k}, node: -1}}}}" for k in range(rods)]
    lines += ["      - {newton_iterations: true}"]
    if vtk_every > 0:
        lines += [f"  - {{type: vtk, every: {vtk_every}}}"]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rods", type=int, default=5, help="number of rods N (at least 3)")
    parser.add_argument("--nodes", type=int, default=60, help="nodes per rod M (at least 4)")
    parser.add_argument("--duration", type=float, default=15.0, help="simulated time (s)")
    parser.add_argument("--vtk-every", type=int, default=40, help="steps between VTK frames (0: none)")
    parser.add_argument("-o", "--output", help="scene file to write (default: stdout)")
    args = parser.parse_args()
    if args.rods < 3 or args.nodes < 4:
        parser.error("need --rods >= 3 (a polygon) and --nodes >= 4 (a clamped edge and a spring)")
    text = scene(args.rods, args.nodes, args.duration, args.vtk_every)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
