#!/usr/bin/env python3
"""Writes FOLDER/arch.yaml and its blocks (FOLDER/arch/block_NN.obj): a parabolic
arch of 20 stone blocks standing on the floor by friction alone, the arch of Macklin et al. 2019
(Fig. 14, Table 2: mu = 0.6, block masses 15 to 110 kg). The paper gives neither the shape nor the
sizes; these are chosen here:

- centre line z = H (1 - (x/S)^2), span 2S = 4 m, rise H = 3 m, cut into 20 blocks of equal arc
  length, each joint plane across the centre line;
- the arch thickens from 0.12 m at the crown to 0.40 m at the feet and is 0.3 m deep, density
  2400 kg/m^3 (stone): blocks of 13 to 92 kg;
- every other block is 6 % smaller at its joints (thickness and depth), so each joint is a small
  face inside a large one: the small block's four corners touch the large block's face with a
  clear normal, and no two corners coincide (a corner on a corner has no normal);
- the end blocks' feet are cut level with the floor.

Usage: python3 scripts/make_arch.py [FOLDER]   (default: out/arch_scene), then
       soma run FOLDER/arch.yaml
tests/validation/arch/ holds the copy its test runs (docs/validation.md 11.4).
"""
import math
import os
import sys

BLOCKS, SPAN_HALF, RISE = 20, 2.0, 3.0
THICK_CROWN, THICK_FOOT, DEPTH, DENSITY, SHRINK = 0.12, 0.40, 0.3, 2400.0, 0.94
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join("out", "arch_scene")


def centre(x):
    return (x, RISE * (1.0 - (x / SPAN_HALF) ** 2))


def normal(x):
    # The centre line's unit normal, pointing away from the arch's inside (up at the crown).
    slope = -2.0 * RISE * x / SPAN_HALF**2
    n = math.hypot(1.0, slope)
    return (-slope / n, 1.0 / n)


def stations():
    # Equal arc length along the parabola, by a fine polyline.
    xs = [-SPAN_HALF + 2.0 * SPAN_HALF * i / 20000 for i in range(20001)]
    lengths = [0.0]
    for a, b in zip(xs, xs[1:]):
        (x0, z0), (x1, z1) = centre(a), centre(b)
        lengths.append(lengths[-1] + math.hypot(x1 - x0, z1 - z0))
    out, j = [], 0
    for k in range(BLOCKS + 1):
        target = lengths[-1] * k / BLOCKS
        while j < len(lengths) - 2 and lengths[j + 1] < target:
            j += 1
        t = (target - lengths[j]) / (lengths[j + 1] - lengths[j])
        out.append(xs[j] + t * (xs[j + 1] - xs[j]))
    return out


def thickness(x):
    return THICK_CROWN + (THICK_FOOT - THICK_CROWN) * abs(x) / SPAN_HALF


def joint_points(x, scale, foot):
    # The inner and outer points of a joint line in the x-z plane.
    (cx, cz), (nx, nz), h = centre(x), normal(x), 0.5 * thickness(x) * scale
    inner, outer = (cx - h * nx, cz - h * nz), (cx + h * nx, cz + h * nz)
    if foot:  # cut level: both points on the floor
        inner, outer = (inner[0], 0.0), (outer[0], 0.0)
    return inner, outer


def block_vertices(k, xs):
    scale = SHRINK if k % 2 else 1.0
    depth = 0.5 * DEPTH * scale
    a = joint_points(xs[k], scale, k == 0)
    b = joint_points(xs[k + 1], scale, k == BLOCKS - 1)
    # Corners of the quadrilateral in the x-z plane, counter-clockwise seen from -y.
    quad = [a[0], b[0], b[1], a[1]]
    return [(x, y, z) for (x, z) in quad for y in (-depth, depth)]


def polyhedron(vertices):
    # The hexahedron's 12 outward triangles (vertex 2i: y = -d, 2i + 1: y = +d).
    faces = [(0, 2, 4), (0, 4, 6), (1, 5, 3), (1, 7, 5)]  # y = -d and y = +d
    for i in range(4):
        j = (i + 1) % 4
        faces += [(2 * i, 2 * i + 1, 2 * j + 1), (2 * i, 2 * j + 1, 2 * j)]
    # Orient every face away from the centroid.
    c = [sum(v[i] for v in vertices) / 8 for i in range(3)]
    oriented = []
    for f in faces:
        p = [vertices[i] for i in f]
        u = [p[1][i] - p[0][i] for i in range(3)]
        w = [p[2][i] - p[0][i] for i in range(3)]
        n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
        out = sum(n[i] * (p[0][i] - c[i]) for i in range(3))
        oriented.append(f if out > 0 else (f[0], f[2], f[1]))
    return oriented


def volume(vertices, faces):
    return sum(
        (vertices[a][0] * (vertices[b][1] * vertices[c][2] - vertices[b][2] * vertices[c][1])
         - vertices[a][1] * (vertices[b][0] * vertices[c][2] - vertices[b][2] * vertices[c][0])
         + vertices[a][2] * (vertices[b][0] * vertices[c][1] - vertices[b][1] * vertices[c][0])) / 6.0
        for a, b, c in faces)


def main():
    xs = stations()
    os.makedirs(os.path.join(ROOT, "arch"), exist_ok=True)
    masses, blocks = [], []
    for k in range(BLOCKS):
        v = block_vertices(k, xs)
        faces = polyhedron(v)
        origin = [sum(p[i] for p in v) / 8 for i in range(3)]
        local = [tuple(p[i] - origin[i] for i in range(3)) for p in v]
        masses.append(DENSITY * volume(local, faces))
        with open(os.path.join(ROOT, "arch", f"block_{k:02d}.obj"), "w") as f:
            f.write(f"# block {k} of the arch (scripts/make_arch.py), metres, about the block's vertex mean\n")
            for p in local:
                f.write("v {:.12g} {:.12g} {:.12g}\n".format(*p))
            for a, b, c in faces:
                f.write(f"f {a + 1} {b + 1} {c + 1}\n")
        blocks.append(origin)
    names = ", ".join(f"block_{k:02d}" for k in range(BLOCKS))
    with open(os.path.join(ROOT, "arch.yaml"), "w") as f:
        f.write(f"""# A parabolic arch of {BLOCKS} stone blocks that stands by friction alone (mu = 0.6), the arch of
# Macklin et al. 2019 (Fig. 14, Table 2) solved by non-smooth Newton at the paper's step
# (8.3 ms). Generated by scripts/make_arch.py, which says how the paper's unpublished shape was
# chosen: span 4 m, rise 3 m, blocks of {min(masses):.0f} to {max(masses):.0f} kg. Converged at every step (no
# iteration cap) by the conjugate residual solve, each step's contact forces started at the last
# step's (warm_start: an arch at rest then converges in about 4 iterations a step; from zero
# forces, the paper's start, it takes about 23 with the direct solve and the conjugate residual
# solve does not converge), without the friction projection, which keeps the joints' redundant
# sticking contacts from converging (docs/validation.md 11.4). The 30 s take about 10 s.
simulation: {{duration: 30.0}}
integrator: {{type: ncp_newton, dt: 8.3e-3, warm_start: true, project_friction: false}}
elements:
""")
        for k, o in enumerate(blocks):
            f.write(f"  - {{name: block_{k:02d}, type: rigid_body, position: [{o[0]:.12g}, {o[1]:.12g}, {o[2]:.12g}], "
                    f"shape: {{mesh: {{path: arch/block_{k:02d}.obj}}}}, density: {DENSITY:g}}}\n")
        f.write(f"""constraints:
  - {{type: ncp_contact, name: joints, friction: 0.6, floor: {{}}}}
forces:
  - {{type: gravity}}
outputs:
  - {{type: vtk, every: 60}}
  - type: csv
    every: 12
    probes:
      - {{node_position: {{element: block_{BLOCKS // 2 - 1:02d}, node: 1}}}}
      - {{node_position: {{element: block_{BLOCKS // 2:02d}, node: 1}}}}
      - {{node_position: {{element: block_00, node: 1}}}}
      - {{statistic: {{term: joints, name: active_contacts}}}}
""")
    print("masses (kg):", " ".join(f"{m:.1f}" for m in masses))


if __name__ == "__main__":
    main()
