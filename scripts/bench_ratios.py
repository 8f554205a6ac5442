#!/usr/bin/python3
"""Ratios of paired Google Benchmark repetitions: for each benchmark A/<size> and the baseline
B/<size> of the same size, the ratio of their CPU times repetition by repetition (the k-th
repetition of A against the k-th of B; run with --benchmark_enable_random_interleaving=true so
that pairs were measured close together), printed as median, min and max.

Usage: scripts/bench_ratios.py RESULTS.json [--baseline BoxGrid]
RESULTS.json: written by --benchmark_out=RESULTS.json --benchmark_out_format=json with
--benchmark_repetitions=N.
"""
import argparse
import json
import statistics
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--baseline", default="BoxGrid", help="the method in the denominator")
    args = parser.parse_args()
    with open(args.results) as f:
        runs = [b for b in json.load(f)["benchmarks"] if b.get("run_type") == "iteration"]
    times = defaultdict(dict)  # (method, size) -> repetition -> CPU time (ns)
    for b in runs:
        method, size = b["run_name"].split("/", 1)
        times[(method, size)][b.get("repetition_index", 0)] = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
    for (method, size), reps in sorted(times.items(), key=lambda item: (item[0][1], item[0][0])):
        base = times.get((args.baseline, size))
        cpu = statistics.median(reps.values()) / 1e3
        if method == args.baseline or not base:
            print(f"{method}/{size}: CPU median {cpu:.1f} us ({len(reps)} repetitions)")
            continue
        ratios = sorted(reps[k] / base[k] for k in reps if k in base)
        print(f"{method}/{size}: CPU median {cpu:.1f} us; /{args.baseline} paired: median {statistics.median(ratios):.3f} "
              f"(min {ratios[0]:.3f}, max {ratios[-1]:.3f}, {len(ratios)} pairs)")


if __name__ == "__main__":
    main()
