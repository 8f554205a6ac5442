#!/usr/bin/python3
"""Render one frame of Soma's VTK output (a .vtu file) to a PNG: shell triangles as shaded
surfaces, rod edges as lines as thick as their radius, rigid spheres as spheres. For the pictures in docs/examples.md;
ParaView remains the tool for looking at runs.

Usage: scripts/render_frame.py FRAME.vtu OUT.png [--view ELEVATION AZIMUTH] [--title TEXT]
                               [--crop X Y Z HALF] [--gradient]
--crop shows only the cube of half-width HALF (m) around (X, Y, Z): cells with a point outside it
are left out (matplotlib does not clip 3D lines), e.g. to see a knot between long tails.
--gradient colours each rod's edges drawn, from its first to its last, along a colour map, so that
strands crossing each other (a knot) can be told apart.

Needs Debian's python3-numpy and python3-matplotlib (not part of the build).
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection  # noqa: E402

VTK_TYPES = {"Int32": np.int32, "Int64": np.int64, "UInt8": np.uint8, "Float64": np.float64}
VTK_LINE, VTK_TRIANGLE = 3, 5


def read_vtu(path):
    """The arrays of a .vtu written with raw appended data and UInt64 block headers."""
    with open(path, "rb") as f:
        content = f.read()
    marker = content.index(b"<AppendedData")
    start = content.index(b"_", marker) + 1
    xml_text = content[:marker].decode() + "</VTKFile>"
    xml_text = re.sub(r"<!--.*?-->", "", xml_text, flags=re.S)
    root = ET.fromstring(xml_text)
    arrays = {}
    cell_arrays = {id(n) for cells in root.iter("CellData") for n in cells.iter("DataArray")}
    for node in root.iter("DataArray"):
        offset = start + int(node.get("offset"))
        size = int(np.frombuffer(content, np.uint64, 1, offset)[0])
        data = np.frombuffer(content, VTK_TYPES[node.get("type")], size // np.dtype(VTK_TYPES[node.get("type")]).itemsize,
                             offset + 8)
        components = int(node.get("NumberOfComponents", "1"))
        name = ("cell:" if id(node) in cell_arrays else "") + node.get("Name")
        arrays[name] = data.reshape(-1, components) if components > 1 else data
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("frame")
    parser.add_argument("output")
    parser.add_argument("--view", nargs=2, type=float, default=(25.0, -60.0), metavar=("ELEVATION", "AZIMUTH"))
    parser.add_argument("--title", default="")
    parser.add_argument("--crop", nargs=4, type=float, metavar=("X", "Y", "Z", "HALF"))
    parser.add_argument("--gradient", action="store_true")
    args = parser.parse_args()

    a = read_vtu(args.frame)
    points, connectivity, offsets, types = a["Points"], a["connectivity"], a["offsets"], a["types"]
    radius = a.get("radius", np.zeros(len(points)))
    begins = np.concatenate(([0], offsets[:-1]))
    cell_element = a["cell:element_id"]
    if args.crop:
        crop_centre, crop_half = np.array(args.crop[:3]), args.crop[3]
        inside = np.all(np.abs(points - crop_centre) <= crop_half, axis=1)
    else:
        inside = np.ones(len(points), dtype=bool)
    triangles = [connectivity[b:e] for b, e, t in zip(begins, offsets, types)
                 if t == VTK_TRIANGLE and inside[connectivity[b:e]].all()]
    # Lines of elements that have no triangles (rods); a shell's edges are drawn with its surface.
    shell_ids = {cell_element[i] for i, t in enumerate(types) if t == VTK_TRIANGLE}
    line_cells = [(connectivity[b:e], el) for b, e, t, el in zip(begins, offsets, types, cell_element)
                  if t == VTK_LINE and el not in shell_ids and inside[connectivity[b:e]].all()]
    lines = [cell for cell, _ in line_cells]
    palette = plt.get_cmap("tab10")
    line_colors = [palette(int(el) % 10) for _, el in line_cells]
    if args.gradient:
        # Each drawn line cell's index along its rod (cells are written in edge order), mapped
        # from the first to the last edge drawn of that rod.
        index, seen = [], {}
        for b, e, t, el in zip(begins, offsets, types, cell_element):
            if t == VTK_LINE and el not in shell_ids:
                seen[el] = seen.get(el, -1) + 1
                if inside[connectivity[b:e]].all():
                    index.append((el, seen[el]))
        first = {el: min(k for e, k in index if e == el) for el, _ in index}
        last = {el: max(k for e, k in index if e == el) for el, _ in index}
        shade = plt.get_cmap("viridis")
        line_colors = [shade((k - first[el]) / max(1, last[el] - first[el])) for el, k in index]

    fig = plt.figure(figsize=(6, 5), dpi=120)
    ax = fig.add_subplot(projection="3d")
    if triangles:
        ax.add_collection3d(Poly3DCollection([points[t] for t in triangles], facecolor="#8fb8de", edgecolor="#35577a",
                                             linewidth=0.2, alpha=0.9))
    if args.crop:
        low, high = crop_centre - crop_half, crop_centre + crop_half
    else:
        low, high = points.min(axis=0), points.max(axis=0)
    if lines:
        span = (high - low).max()
        # The axes span about 250 points of the figure: a line as wide as the rod's diameter.
        widths = [max(0.8, 2.0 * radius[l].mean() / span * 200) for l in lines]
        rods = Line3DCollection([points[l] for l in lines], colors=line_colors, linewidths=widths)
        rods.set_capstyle("round")
        ax.add_collection3d(rods)
    # Points with a radius that no line or triangle uses: spheres (a rigid sphere's centre).
    used = set()
    for b, e, t in zip(begins, offsets, types):
        if t in (VTK_LINE, VTK_TRIANGLE):
            used.update(int(i) for i in connectivity[b:e])
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 24), np.linspace(0, np.pi, 12))
    for i, (x, r) in enumerate(zip(points, radius)):
        if r > 0 and i not in used and inside[i]:
            ax.plot_surface(x[0] + r * np.cos(u) * np.sin(v), x[1] + r * np.sin(u) * np.sin(v), x[2] + r * np.cos(v),
                            color="#d9a441", linewidth=0.2, edgecolor="#8a6420", alpha=0.6)
            low, high = np.minimum(low, x - r), np.maximum(high, x + r)
    centre, half = (low + high) / 2, (high - low).max() / 2
    for set_limits, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), centre):
        set_limits(c - half, c + half)
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(*args.view)
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
