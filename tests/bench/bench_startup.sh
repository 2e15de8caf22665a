#!/usr/bin/env bash
# bench_startup.sh - the CLI's start-up cost: the median wall time of
# `foldline --version` and of `foldline analyze tests/data/tiny_cnn.pb
# --passes none --json` (a small model: the run is mostly start-up), over RUNS
# runs each, plus the shared libraries the binary loads. Build systems call the
# CLI once per model, so this is what they pay per call. Not run by CTest.
#
# Usage: tests/bench/bench_startup.sh [FOLDLINE_BINARY] [RUNS]
#   (FOLDLINE_BINARY defaults to ./build/foldline; run from the repository root;
#    RUNS defaults to 30). A Release build gives the representative figures.
set -euo pipefail
bin="${1:-build/foldline}"
runs="${2:-30}"
here="$(cd "$(dirname "$0")" && pwd)"
model="$here/../data/tiny_cnn.pb"
if [ ! -x "$bin" ]; then
  echo "bench_startup: no executable '$bin' (build first, or pass the binary)" >&2
  exit 2
fi

# Median wall time in ms of RUNS runs of the command (after two warm-up
# runs). $EPOCHREALTIME (bash 5) reads the clock without a fork.
median_ms() {
  local t0 t1 i
  "$@" >/dev/null 2>&1 || {
    echo "bench_startup: '$*' failed" >&2
    exit 1
  }
  "$@" >/dev/null 2>&1
  for ((i = 0; i < runs; i++)); do
    t0=$EPOCHREALTIME
    "$@" >/dev/null 2>&1
    t1=$EPOCHREALTIME
    echo "$t0 $t1"
  done | awk '{ print ($2 - $1) * 1000 }' | sort -g |
    awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                              printf "%.2f ms (min %.2f, max %.2f)", m, v[1], v[NR] }'
}

libs="?"
if command -v ldd >/dev/null 2>&1; then
  libs=$(ldd "$bin" | grep -c '=>' || true)
fi
echo "foldline start-up: $bin ($libs shared libraries), median of $runs runs"
echo "  --version                         $(median_ms "$bin" --version)"
echo "  analyze tiny_cnn.pb --passes none $(median_ms "$bin" analyze "$model" --passes none --json)"
echo "  baseline (an empty process)       $(median_ms "$(type -P true)")"
