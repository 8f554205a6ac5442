"""`soma plot RUN.csv [COLUMNS...] [-o OUT.png]`: columns of a Soma CSV series against time.

Run by the `soma` CLI (kernel/cli/view_command.cpp) with a Python that has matplotlib (Debian's
python3-matplotlib). The CSV is what the `csv` output writes (plugins/outputs/csv_series.cpp):
one header line of column names, the first column the time in seconds, one row per written
step; lines starting with '#' are skipped. A column is named exactly or by a glob pattern
(`energy.*`, `beam.node50.?`). Exit 1 with a message naming the file on bad input.
"""
import argparse
import csv
import fnmatch
import math
import sys


def fail(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def read_series(path):
    """(names, rows of floats) of a CSV series."""
    try:
        with open(path, newline="", encoding="utf-8") as file:
            lines = [line for line in file if line.strip() and not line.lstrip().startswith("#")]
    except OSError as error:
        fail(f"cannot read '{path}': {error.strerror}")
    except UnicodeDecodeError:
        fail(f"'{path}' is not a text CSV file")
    reader = csv.reader(lines)
    names = next(reader, None)
    if not names or len(names) < 2:
        fail(f"'{path}': expected a header line with the time and at least one more column")
    rows = []
    for number, row in enumerate(reader, start=2):
        if len(row) != len(names):
            fail(f"'{path}': row {number} has {len(row)} values, the header {len(names)}")
        try:
            rows.append([float(value) if value != "" else math.nan for value in row])
        except ValueError:
            fail(f"'{path}': row {number} has a value that is not a number")
    return [name.strip() for name in names], rows


def pick(names, wanted, path):
    """Indices of the wanted columns (names or glob patterns), in the order asked."""
    if not wanted:
        return list(range(1, len(names)))
    picked = []
    for pattern in wanted:
        matches = [i for i, name in enumerate(names) if i > 0 and fnmatch.fnmatchcase(name, pattern)]
        if not matches:
            fail(f"'{path}' has no column '{pattern}' (the first column, '{names[0]}', is the time axis); "
                 f"its columns are: {', '.join(names[1:])}")
        picked += [i for i in matches if i not in picked]
    return picked


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("columns", nargs="*")
    parser.add_argument("--output", required=True)
    parser.add_argument("--overlay", action="store_true")
    parser.add_argument("--size", default="800x600")
    args = parser.parse_args()

    names, rows = read_series(args.csv)
    columns = pick(names, args.columns, args.csv)
    if not rows:
        fail(f"'{args.csv}' has a header but no rows")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(f"matplotlib is not installed for {sys.executable}: install the Debian package python3-matplotlib")

    width, height = (int(v) for v in args.size.lower().split("x"))
    dpi = 100
    panels = 1 if args.overlay else len(columns)
    figure, axes = plt.subplots(panels, 1, sharex=True, squeeze=False,
                                figsize=(width / dpi, height / dpi), dpi=dpi)
    time = [row[0] for row in rows]
    for k, column in enumerate(columns):
        ax = axes[0 if args.overlay else k][0]
        ax.plot(time, [row[column] for row in rows], linewidth=1.2, label=names[column])
        if not args.overlay:
            ax.set_ylabel(names[column], fontsize=8)
        ax.tick_params(labelsize=7)
        ax.yaxis.get_offset_text().set_fontsize(7)
        ax.grid(True, linewidth=0.4, alpha=0.5)
    if args.overlay:
        axes[0][0].legend(fontsize=7)
    axes[-1][0].set_xlabel(f"{names[0]} (s)" if names[0] == "time" else names[0], fontsize=8)
    figure.suptitle("/".join(args.csv.rstrip("/").split("/")[-2:]), fontsize=9)  # run folder / file
    figure.tight_layout()
    try:
        figure.savefig(args.output, dpi=dpi)
    except OSError as error:
        fail(f"cannot write '{args.output}': {error.strerror}")
    print(f"{args.output}: {len(columns)} column{'s' if len(columns) != 1 else ''} of {args.csv}")


if __name__ == "__main__":
    main()
