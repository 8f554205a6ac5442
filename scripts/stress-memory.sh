#!/usr/bin/env bash
# Memory stress run (docs/reliability.md): the PneuNet example for HOURS hours of simulated time
# (default 24) with a CSV row and a VTK frame every step, sampling the process's resident set
# size every 10 s. Prints "wall_s simulated_t rss_kB" lines, then the peak and the output
# folder's size next to `soma check`'s estimate. Needs a built tree (BUILD, default build) and
# about 1 GB of disk per simulated hour (OUT, default /tmp/soma-stress).
#   scripts/stress-memory.sh [HOURS]
set -euo pipefail
cd "$(dirname "$0")/.."
hours=${1:-24}
build=${BUILD:-build}
out=${OUT:-/tmp/soma-stress}
duration=$((hours * 3600))
scene=configs/rods/pneunet.yaml
rm -rf "$out"
"$build/bin/soma" check "$scene" --set simulation.duration="$duration"
start=$(date +%s)
# The whole process's peak (the summary at the end included) comes from GNU time (package
# `time`) when present; the 10 s samples show the footprint during the run.
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -f "peak resident set (whole process): %M kB" -o "$out.peak")
"${timer[@]}" "$build/bin/soma" run "$scene" --set simulation.duration="$duration" -o "$out" -q > "$out.summary" &
pid=$!
soma_pid=$pid
if [ ${#timer[@]} -gt 0 ]; then  # sample soma itself, the child of time
  for _ in $(seq 50); do soma_pid=$(pgrep -P "$pid" -n || true); [ -n "$soma_pid" ] && break; sleep 0.1; done
  soma_pid=${soma_pid:-$pid}
fi
peak=0
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$soma_pid/status" 2>/dev/null || echo 0)
  t=$(tail -n 1 "$out/tip.csv" 2>/dev/null | cut -d, -f1 || true)
  [ "${rss:-0}" -gt "$peak" ] && peak=$rss
  echo "$(( $(date +%s) - start )) ${t:-0} ${rss:-0}"
  sleep 10
done
wait "$pid"
cat "$out.summary"
echo "peak resident set (10 s samples): $peak kB"
[ -f "$out.peak" ] && cat "$out.peak"
echo "output folder: $(du -sb "$out" | cut -f1) bytes"
