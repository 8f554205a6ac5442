#!/usr/bin/python3
"""Node coordinates of an open overhand (trefoil) knot with straight tails along -x and +x, for
configs/contact/knot.yaml and tests/validation/test_knot_no_penetration.cpp.

The knot is the trefoil K(t) = (sin t + 2 sin 2t, cos t - 2 cos 2t, -sin 3t) (a (2,3) torus
knot), scaled by --scale (m per unit), opened by cutting out the tip of its lobe at t = pi (the
point (0, -3, 0)): the arc t in (pi - cut, pi + cut) is removed, with cut below the 0.775 at
which the lobe's arms cross the rest of the knot, so all three crossings remain and the open
curve is the overhand knot. Each cut end then turns smoothly (its direction blends from the
lobe's outward tangent to -x or +x over --turn units of length) and runs straight for --tail
metres. The tails leave the lobe below every other strand and cross nothing (checked: the xy
projection has three crossings). At the defaults the two ends sit at z = +-0.5 mm, so the tails
are nearly level (a smaller cut starts the tails too close together, a larger one tilts them).
The curve is resampled at equal arc length with edges of about --edge metres.

Printed: the YAML flow list for `geometry: {points: {coordinates: [...]}}` and, on stderr, the
number of nodes, the length, the smallest distance between non-adjacent edges (pairs that share
a node or are joined by an edge excluded, as imc_contact does) and the crossings of the xy
projection (three, as an overhand knot has).

Usage: scripts/knot_curve.py [--scale 3e-3] [--edge 1.5e-3] [--tail 0.02] [--cut 0.4] [--turn 4]
The defaults give configs/contact/knot.yaml's rope.
Needs Debian's python3-numpy.
"""
import argparse
import sys

import numpy as np


def trefoil(t):
    return np.stack([np.sin(t) + 2 * np.sin(2 * t), np.cos(t) - 2 * np.cos(2 * t), -np.sin(3 * t)], axis=-1)


def trefoil_tangent(t):
    return np.stack([np.cos(t) + 4 * np.cos(2 * t), -np.sin(t) + 4 * np.sin(2 * t), -3 * np.cos(3 * t)], axis=-1)


def smoothstep(x):
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3 - 2 * x)


def tail(start, outward, target, turn, straight, samples=400):
    """Points from `start` along a direction that blends from `outward` to `target` over length
    `turn` (tangent-continuous), then straight for `straight`; the first point is excluded."""
    ds = (turn + straight) / samples
    points, x = [], np.array(start, float)
    for k in range(samples):
        s = (k + 0.5) * ds
        w = smoothstep(s / turn)
        direction = (1 - w) * outward + w * target
        x = x + ds * direction / np.linalg.norm(direction)
        points.append(x.copy())
    return np.array(points)


def resample(points, edge):
    lengths = np.linalg.norm(np.diff(points, axis=0), axis=1)
    s = np.concatenate(([0.0], np.cumsum(lengths)))
    n = max(2, int(round(s[-1] / edge)))
    targets = np.linspace(0.0, s[-1], n + 1)
    return np.stack([np.interp(targets, s, points[:, k]) for k in range(3)], axis=1)


def segment_distance(a0, a1, b0, b1):
    """Closest distance of two segments by dense sampling of t with the exact projection for u
    (a check of the generated curve, not of the simulation)."""
    t = np.linspace(0.0, 1.0, 201)[:, None]
    p = a0 + t * (a1 - a0)
    e = b1 - b0
    u = np.clip(((p - b0) @ e) / (e @ e), 0.0, 1.0)[:, None]
    return np.min(np.linalg.norm(p - (b0 + u * e), axis=1))


def min_nonadjacent_distance(nodes, index_gap=3):
    edges = len(nodes) - 1
    best = (np.inf, -1, -1)
    mids = 0.5 * (nodes[:-1] + nodes[1:])
    half = 0.5 * np.linalg.norm(np.diff(nodes, axis=0), axis=1)
    for i in range(edges):
        for j in range(i + index_gap, edges):  # i + 1 shares a node, i + 2 has neighbouring nodes
            if np.linalg.norm(mids[i] - mids[j]) - half[i] - half[j] > best[0]:
                continue
            d = segment_distance(nodes[i], nodes[i + 1], nodes[j], nodes[j + 1])
            if d < best[0]:
                best = (d, i, j)
    return best


def projected_crossings(nodes):
    count = 0
    p = nodes[:, :2]
    for i in range(len(p) - 1):
        for j in range(i + 2, len(p) - 1):
            d1, d2, w = p[i + 1] - p[i], p[j + 1] - p[j], p[j] - p[i]
            den = d1[0] * d2[1] - d1[1] * d2[0]
            if den == 0:
                continue
            a = (w[0] * d2[1] - w[1] * d2[0]) / den
            b = (w[0] * d1[1] - w[1] * d1[0]) / den
            if 0 <= a < 1 and 0 <= b < 1:
                count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=3e-3, help="m per trefoil unit")
    parser.add_argument("--edge", type=float, default=1.5e-3, help="edge length (m)")
    parser.add_argument("--tail", type=float, default=0.02, help="straight tail length (m)")
    parser.add_argument("--cut", type=float, default=0.4, help="half-width of the removed arc, in t")
    parser.add_argument("--turn", type=float, default=4.0, help="length of the tails' turn, trefoil units")
    args = parser.parse_args()
    if not 0.0 < args.cut < 0.775:
        sys.exit("--cut must lie in (0, 0.775): beyond, a crossing is cut away and the curve is no knot")

    t = np.linspace(np.pi + args.cut, 3 * np.pi - args.cut, 4000)
    knot = trefoil(t)
    start_out = -trefoil_tangent(np.pi + args.cut)
    end_out = trefoil_tangent(3 * np.pi - args.cut)
    start_out /= np.linalg.norm(start_out)
    end_out /= np.linalg.norm(end_out)
    # The start lies on the +x arm of the lobe (the curve leaves the tip toward +x), the end on
    # the -x arm: each tail turns away from the other.
    straight = args.tail / args.scale
    first = tail(knot[0], start_out, np.array([1.0, 0.0, 0.0]), args.turn, straight)
    last = tail(knot[-1], end_out, np.array([-1.0, 0.0, 0.0]), args.turn, straight)
    curve = np.vstack([first[::-1], knot, last]) * args.scale
    nodes = resample(curve, args.edge)

    distance, i, j = min_nonadjacent_distance(nodes)
    # Between strands: edges at least 8 apart (12 mm of rod at the default edge), which skips the
    # pairs a bend alone brings together.
    strands, si, sj = min_nonadjacent_distance(nodes, 8)
    length = np.sum(np.linalg.norm(np.diff(nodes, axis=0), axis=1))
    print(f"# {len(nodes)} nodes, length {length * 1e3:.2f} mm, ends at {nodes[0] * 1e3} mm and {nodes[-1] * 1e3} mm",
          file=sys.stderr)
    print(f"# smallest distance between non-adjacent edges: {distance * 1e3:.3f} mm (edges {i}, {j}); "
          f"between strands (8 edges apart or more): {strands * 1e3:.3f} mm (edges {si}, {sj}); "
          f"xy crossings: {projected_crossings(nodes)}", file=sys.stderr)
    numbers = [f"{x:.6g}" for x in nodes.reshape(-1)]
    lines, line = [], ""
    for k in range(0, len(numbers), 3):
        item = ", ".join(numbers[k:k + 3])
        if len(line) + len(item) > 90:
            lines.append(line)
            line = ""
        line += item + ", "
    lines.append(line.rstrip(", "))
    print("[" + ",\n ".join(l.rstrip(", ") for l in lines) + "]")


if __name__ == "__main__":
    main()
