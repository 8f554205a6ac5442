"""Tests of `soma view` and `soma plot` (tests/viewer/CMakeLists.txt runs them from ctest).

    viewer_test.py page SOMA_BINARY SOURCE_DIR   the page in headless Chromium, the server, snapshots
    viewer_test.py plot SOMA_BINARY SOURCE_DIR   a PNG of the cantilever's CSV series

Standard library only. Exit 77 (ctest SKIP_RETURN_CODE) when Chromium, or for `plot` matplotlib,
is not installed. Every child process runs under a timeout so a hang fails the test instead of
stalling CI.
"""
import html
import http.client
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
import zlib

SKIP = 77
failures = []


def check(condition, message):
    print(("ok: " if condition else "FAIL: ") + message, flush=True)
    if not condition:
        failures.append(message)


def run(argv, timeout=120, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)


def chromium():
    if os.environ.get("SOMA_CHROMIUM"):
        return os.environ["SOMA_CHROMIUM"]
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    with open(path, "rb") as file:
        data = file.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, f"{path}: unexpected PNG format"
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def collection_times(pvd):
    return [float(d.get("timestep")) for d in ElementTree.parse(pvd).getroot().iter("DataSet")]


def start_server(soma, folder):
    """`soma view FOLDER` on a free port: (process, base URL)."""
    server = subprocess.Popen([soma, "view", folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(5):
        line = server.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\S*", line)
        if match:
            return server, match.group(0), int(match.group(1))
    server.kill()
    raise RuntimeError("soma view printed no URL")


def dump_dom(browser, url, profile):
    result = run([browser, "--headless=new", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                  "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
                  "--virtual-time-budget=30000", "--dump-dom", url], timeout=90)
    match = re.search(r'<pre id="check">(.*?)</pre>', result.stdout, re.S)
    if not match:
        print(result.stdout[-2000:], result.stderr[-2000:])
        raise RuntimeError("the page wrote no #check summary")
    return json.loads(html.unescape(match.group(1)))


def page_test(soma, source, work):
    browser = chromium()
    if not browser:
        print("SKIP: Chromium is not installed (Debian package `chromium`); the viewer page is not tested")
        return SKIP
    scene = os.path.join(source, "configs", "rods", "cantilever.yaml")
    runs = {"binary": [], "ascii": ["--set", "outputs[1].format=ascii", "--set", "simulation.duration=0.3"]}
    for encoding, sets in runs.items():
        out = os.path.join(work, encoding)
        result = run([soma, "run", scene, "--quiet", "--output", out] + sets)
        check(result.returncode == 0, f"soma run cantilever ({encoding} frames): {result.stderr.strip()}")
        times = collection_times(os.path.join(out, "frames.pvd"))
        server, url, port = start_server(soma, out)
        try:
            summary = dump_dom(browser, url + "&check=1", os.path.join(work, "profile-" + encoding))
            check("error" not in summary, f"{encoding}: the page loads without error {summary.get('error', '')}")
            check(summary.get("frames") == len(times), f"{encoding}: frame count {summary.get('frames')} == {len(times)} in the .pvd")
            check(summary.get("times") == times, f"{encoding}: frame times match the .pvd timesteps")
            shown = [float(re.match(r"t = (\S+) s", label).group(1)) for label in summary.get("labels", [])]
            check(len(shown) == len(times) and all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(shown, times)),
                  f"{encoding}: time labels {shown[:3]}... match the .pvd")
            check(set(summary.get("points", [])) == {51} and set(summary.get("cells", [])) == {50},
                  f"{encoding}: every frame has the rod's 51 points and 50 edges")
            check({"element", "velocity", "radius"} <= set(summary.get("fields", [])), f"{encoding}: colour fields {summary.get('fields')}")
            check(summary.get("drawn", 0) > 500, f"{encoding}: the canvas has {summary.get('drawn')} drawn pixels")
            if encoding == "binary":  # the server: only GET, only the served folders
                def status(method, path):
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    connection.request(method, path)
                    response = connection.getresponse()
                    return response.status, response.getheader("Content-Type")
                check(status("GET", "/viewer.js") == (200, "text/javascript; charset=utf-8"), "viewer.js served as JavaScript")
                check(status("GET", "/data/frames.pvd")[0] == 200, "the .pvd is served")
                for path in ("/data/../../../etc/passwd", "/data/%2e%2e/%2e%2e/etc/passwd", "/../etc/passwd", "/data/vtk/"):
                    check(status("GET", path)[0] == 404, f"GET {path} refused")
                check(status("POST", "/")[0] == 405, "POST refused")
        finally:
            server.send_signal(signal.SIGINT)
            try:
                code = server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                code = None
        check(code == 0, f"soma view stops on Ctrl-C with exit 0 (got {code})")

    # Snapshots: the cantilever's last frame differs from an empty scene's frame.
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    with open(os.path.join(empty, "frames.pvd"), "w") as f:
        f.write('<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1">\n  <Collection>\n'
                '    <DataSet timestep="1" group="" part="0" file="empty.vtu"/>\n  </Collection>\n</VTKFile>\n')
    with open(os.path.join(empty, "empty.vtu"), "w") as f:
        f.write('<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" version="0.1" byte_order="LittleEndian" '
                'header_type="UInt64">\n<UnstructuredGrid><Piece NumberOfPoints="0" NumberOfCells="0"><PointData/>'
                '<CellData/><Points><DataArray type="Float64" Name="Points" NumberOfComponents="3" format="ascii">'
                '</DataArray></Points><Cells><DataArray type="Int64" Name="connectivity" format="ascii"></DataArray>'
                '<DataArray type="Int64" Name="offsets" format="ascii"></DataArray><DataArray type="UInt8" '
                'Name="types" format="ascii"></DataArray></Cells></Piece></UnstructuredGrid></VTKFile>\n')
    images = {}
    for name, folder in (("cantilever", os.path.join(work, "binary")), ("empty", empty)):
        png = os.path.join(work, name + ".png")
        result = run([soma, "view", folder, "--snapshot", png, "--size", "320x200", "--timeout", "90"], timeout=120)
        check(result.returncode == 0 and os.path.isfile(png), f"snapshot of {name}: {result.stdout.strip()} {result.stderr.strip()}")
        if os.path.isfile(png):
            images[name] = read_png(png)
    if len(images) == 2:
        (w, h, drawn), (_, _, blank) = images["cantilever"], images["empty"]
        check((w, h) == (320, 200), f"snapshot size {w}x{h}")
        background = blank[h // 2][w // 2]
        rod = sum(1 for row in drawn for p in row if sum(abs(a - b) for a, b in zip(p, background)) > 24)
        differ = sum(1 for r1, r2 in zip(drawn, blank) for p, q in zip(r1, r2) if p != q)
        check(rod > 300, f"the cantilever snapshot has {rod} pixels that are not the background {background}")
        check(differ > 300, f"the cantilever snapshot differs from the empty scene's in {differ} pixels")
        centre = sum(1 for row in blank[: h * 3 // 4] for p in row if p != background)
        check(centre == 0, f"the empty scene draws nothing above its time label ({centre} pixels)")

    # Clear errors on bad input.
    result = run([soma, "view", work, "--snapshot", os.path.join(work, "x.png")])
    check(result.returncode == 1 and "no .pvd collection" in result.stderr, f"a folder without .pvd: {result.stderr.strip()}")
    result = run([soma, "view", empty, "--snapshot", os.path.join(work, "x.png"), "--frame", "5"])
    check(result.returncode == 1 and "has 1 frames" in result.stderr, f"a frame out of range: {result.stderr.strip()}")
    result = run([soma, "view", empty, "--snapshot", os.path.join(work, "x.png"), "--field", "pressure"], timeout=120)
    check(result.returncode == 1 and "pressure" in result.stderr, f"an unknown field: {result.stderr.strip()}")
    return 0


def plot_test(soma, source, work):
    result = run([soma, "run", os.path.join(source, "configs", "rods", "cantilever.yaml"), "--quiet", "--output", work])
    check(result.returncode == 0, "soma run cantilever")
    csv = os.path.join(work, "tip.csv")
    png = os.path.join(work, "tip.png")
    result = run([soma, "plot", csv, "beam.node50.z", "energy.*", "-o", png])
    if "python3-matplotlib" in result.stderr:
        print("SKIP: matplotlib is not installed (Debian package python3-matplotlib): " + result.stderr.strip())
        return SKIP
    check(result.returncode == 0, f"soma plot: {result.stdout.strip()} {result.stderr.strip()}")
    if os.path.isfile(png):
        with open(png, "rb") as f:
            head = f.read(24)
        size = os.path.getsize(png)
        check(head[:8] == b"\x89PNG\r\n\x1a\n", "the plot is a PNG")
        check(struct.unpack(">II", head[16:24]) == (800, 600), f"the plot is 800x600 ({struct.unpack('>II', head[16:24])})")
        check(10_000 < size < 500_000, f"the plot's size is plausible ({size} bytes)")
    else:
        check(False, "the plot was written")
    result = run([soma, "plot", csv])  # every column, next to the CSV
    check(result.returncode == 0 and os.path.isfile(os.path.join(work, "tip.png")), "soma plot with no columns")
    result = run([soma, "plot", csv, "beam.tip.q", "-o", png])
    check(result.returncode == 1 and "no column 'beam.tip.q'" in result.stderr and "beam.node50.z" in result.stderr,
          f"a missing column lists the others: {result.stderr.strip()}")
    result = run([soma, "plot", os.path.join(work, "missing.csv")])
    check(result.returncode == 1 and "missing.csv" in result.stderr, f"a missing file: {result.stderr.strip()}")
    return 0


def main():
    mode, soma, source = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix=f"soma-viewer-{mode}-")
    try:
        code = {"page": page_test, "plot": plot_test}[mode](os.path.abspath(soma), source, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if code == SKIP:
        return SKIP
    print(f"{len(failures)} failure(s)" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
