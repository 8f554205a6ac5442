#!/usr/bin/env bash
# A long fuzz run of one target (docs/reliability.md, "Fuzzing"), after the normal build has made
# the sanitized sub-build (build/sanitized, needs clang-14 and libclang-rt-14-dev):
#   scripts/fuzz-long.sh scene 3600        # one hour on the scene loader
#   scripts/fuzz-long.sh all 600           # every target for 10 minutes each, one after another
# New inputs go to build/sanitized/fuzz/work/<target>/; a crash, hang or out-of-memory input is
# written to build/sanitized/fuzz/fuzz_<target>-crash-* (or -timeout-*, -oom-*): copy it to
# fuzz/regressions/<target>/ with the fix. Runs at low priority; one process (libFuzzer -jobs=N
# runs N in parallel if you have the cores). libFuzzer's -timeout is wall-clock time: on a busy
# machine a niced run can exceed it on an ordinary input (and a stopped process always does), so
# SOMA_FUZZ_TIMEOUT (seconds, default 60) raises it for long runs beside other work.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz-long.sh TARGET|all [SECONDS]}
seconds=${2:-3600}
build=${SOMA_SANITIZED_BUILD:-build/sanitized}
targets=("$target")
[ "$target" = all ] && targets=(scene obj_mesh text_mesh rod_points time_table expression)
# ASan's quarantine (256 MB by default) and its allocator's unreleased pages double the resident
# size of a long run; a smaller quarantine and periodic release halve it (docs/reliability.md,
# "Fuzzing": measured on the scene target). RSS still grows about 4 KB per execution under ASan
# and libFuzzer (a plain build replaying the same inputs does not grow: sanitizer bookkeeping, not
# a leak), so the RSS limit leaves room for a million executions.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32:allocator_release_to_os_interval_ms=1000}
rss_limit_mb=${SOMA_FUZZ_RSS_LIMIT_MB:-6144}
for t in "${targets[@]}"; do
  seeds=("fuzz/corpus/$t")
  [ -d "$build/fuzz/seeds/$t" ] && seeds+=("$build/fuzz/seeds/$t")
  mkdir -p "$build/fuzz/work/$t"
  echo "fuzz_$t: ${seconds} s"
  nice -n 19 "$build/bin/fuzz_$t" -max_total_time="$seconds" -timeout="${SOMA_FUZZ_TIMEOUT:-60}" -rss_limit_mb="$rss_limit_mb" \
    -malloc_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/fuzz/fuzz_$t-" \
    "$build/fuzz/work/$t" "${seeds[@]}" "fuzz/regressions/$t"
done
