#!/usr/bin/python3
"""Counts the edge pairs in contact in each VTK frame of a rod run (the gripper's scaling runs,
docs/performance.md "The gripper as it grows"): pairs whose gap (segment distance less the two
radii) is below the band, as imc_contact counts an active pair, split into pairs of one rod
(self-contact) and pairs of two rods. Pairs that share a node or are joined by an edge are
excluded, as imc_contact excludes them: within a rod, edges i and j with |i - j| <= 2.

The count is read from the frames (every 40 steps in the gripper scenes), so the peak printed is
the largest over the frames, not over every step. Segment distances are the clamped closest
points of Ericson (Real-Time Collision Detection, 5.1.9), computed for the pairs whose midpoints
are within 2 r + band + one edge length (a k-d tree), which holds every pair within the band.

Usage: scripts/gripper_contacts.py RUN_FOLDER [--band 5e-4] [--every 1]
Prints one line per frame (time, pairs in the band: all, self, across rods) with --verbose, the
peak of all pairs and of the pairs across rods, and the last frame's counts. Needs Debian's python3-numpy and python3-scipy.
"""
import argparse
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
from scipy.spatial import cKDTree

VTK_TYPES = {"Int32": np.int32, "Int64": np.int64, "UInt8": np.uint8, "Float64": np.float64}


def read_vtu(path):
    """The arrays of a .vtu written with raw appended data and UInt64 block headers
    (as scripts/render_frame.py reads them), keyed "cell:<name>" for cell data."""
    with open(path, "rb") as f:
        content = f.read()
    marker = content.index(b"<AppendedData")
    start = content.index(b"_", marker) + 1
    xml_text = re.sub(r"<!--.*?-->", "", content[:marker].decode() + "</VTKFile>", flags=re.S)
    root = ET.fromstring(xml_text)
    cell_arrays = {id(n) for cells in root.iter("CellData") for n in cells.iter("DataArray")}
    arrays = {}
    for node in root.iter("DataArray"):
        offset = start + int(node.get("offset"))
        size = int(np.frombuffer(content, np.uint64, 1, offset)[0])
        kind = VTK_TYPES[node.get("type")]
        data = np.frombuffer(content, kind, size // np.dtype(kind).itemsize, offset + 8)
        components = int(node.get("NumberOfComponents", "1"))
        name = ("cell:" if id(node) in cell_arrays else "") + node.get("Name")
        arrays[name] = data.reshape(-1, components) if components > 1 else data
    return arrays


def segment_distances(p1, q1, p2, q2):
    """Distances between segments [p1, q1] and [p2, q2], row by row (Ericson 5.1.9)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = np.einsum("ij,ij->i", d1, d1)
    e = np.einsum("ij,ij->i", d2, d2)
    f = np.einsum("ij,ij->i", d2, r)
    c = np.einsum("ij,ij->i", d1, r)
    b = np.einsum("ij,ij->i", d1, d2)
    denom = a * e - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(denom > 1e-14 * a * e, np.clip((b * f - c * e) / denom, 0.0, 1.0), 0.0)
        t = (b * s + f) / e
        s = np.where(t < 0.0, np.clip(-c / a, 0.0, 1.0), np.where(t > 1.0, np.clip((b - c) / a, 0.0, 1.0), s))
        t = np.clip(t, 0.0, 1.0)
    return np.linalg.norm(p1 + d1 * s[:, None] - p2 - d2 * t[:, None], axis=1)


def count(path, band):
    """(all, self, across) edge pairs with a gap below `band` in one frame."""
    arrays = read_vtu(path)
    points, radius = arrays["Points"], arrays["radius"]
    if not (arrays["types"] == 3).all():
        raise ValueError(f"{path}: cells other than lines (rods only, please)")
    conn = arrays["connectivity"].reshape(-1, 2)
    rod = arrays["cell:element_id"]
    edge = arrays["cell:edge_index"]
    a, b = points[conn[:, 0]], points[conn[:, 1]]
    h = 0.5 * (radius[conn[:, 0]] + radius[conn[:, 1]])
    reach = 2.0 * h.max() + band + np.linalg.norm(b - a, axis=1).max()
    pairs = cKDTree(0.5 * (a + b)).query_pairs(reach, output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]
    same = rod[i] == rod[j]
    keep = ~(same & (np.abs(edge[i] - edge[j]) <= 2))
    i, j, same = i[keep], j[keep], same[keep]
    gap = segment_distances(a[i], b[i], a[j], b[j]) - h[i] - h[j]
    active = gap < band
    return int(active.sum()), int((active & same).sum()), int((active & ~same).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a `soma run` output folder with frames.pvd")
    parser.add_argument("--band", type=float, default=5e-4, help="contact band (m)")
    parser.add_argument("--every", type=int, default=1, help="read every n-th frame")
    parser.add_argument("--verbose", action="store_true", help="one line per frame")
    args = parser.parse_args()
    with open(os.path.join(args.run, "frames.pvd")) as f:
        frames = re.findall(r'timestep="([^"]+)"[^>]*file="([^"]+)"', f.read())
    peak, peak_time, last = (0, 0, 0), 0.0, None
    across, across_time = 0, 0.0
    for time, name in frames[:: args.every] + ([frames[-1]] if (len(frames) - 1) % args.every else []):
        last = count(os.path.join(args.run, name), args.band)
        if args.verbose:
            print(f"{float(time):8.3f} {last[0]:6d} {last[1]:6d} {last[2]:6d}")
        if last[0] > peak[0]:
            peak, peak_time = last, float(time)
        if last[2] > across:
            across, across_time = last[2], float(time)
    print(f"peak: {peak[0]} pairs in the band at t = {peak_time:g} s ({peak[1]} within a rod, {peak[2]} across rods); "
          f"peak across rods: {across} at t = {across_time:g} s; last frame: {last[0]} ({last[1]} within, {last[2]} across)")


if __name__ == "__main__":
    main()
