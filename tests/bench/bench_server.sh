#!/usr/bin/env bash
# bench_server.sh - throughput and p50/p99 latency of foldlined's Analyze on a
# small graph at 1, 16 and 64 calls in flight, with Health/Check measured in
# the same run as the transport baseline, their ratio, the server's CPU time
# and context switches per call, and the server's RSS. Not run by CTest.
#
# Usage: tests/bench/bench_server.sh [BUILD_DIR] [SECONDS] [ROUNDS] [OTHER_BUILD_DIR]
#   (BUILD_DIR defaults to ./build; run from the repository root)
#
# Each round measures Health then Analyze for SECONDS each, at each
# concurrency; the summary line gives the median over the rounds of the
# throughput ratio, of the server's CPU time (user + system, from
# /proc/PID/stat) per call and of its threads' context switches per call
# (/proc/PID/task/*/status, voluntary and involuntary: each hand-off between
# threads puts one to sleep and wakes another). On a loaded host the
# throughput of one window moves by a factor of two, so take the medians of
# several rounds: CPU time per call is the steadier figure. With
# OTHER_BUILD_DIR a second server (that build's foldlined, e.g. of the base
# commit) is measured alternately with the first in every round, driven by
# BUILD_DIR's load generator.
#
# FL_BENCH_CALLGRIND=1 (valgrind installed) also counts, for each server, the
# instructions per call of all its threads (user space) under callgrind at 16
# calls in flight, Health/Check and Analyze: a figure the host's load does
# not move (the kernel's share - wake-ups, sockets - is not in it).
set -euo pipefail
build="${1:-build}"
secs="${2:-3}"
rounds="${3:-1}"
other="${4:-}"
here="$(cd "$(dirname "$0")" && pwd)"
model="$here/../data/tiny_cnn.pb"
gen="$build/tests/server_loadgen"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Starts BUILD's foldlined as server number I; the cache is off so every
# Analyze call runs the analysis.
start() {
  local b=$1 i=$2
  "$b/server/foldlined" --listen 127.0.0.1:0 --port-file "$tmp/port$i" --cache-mb 0 \
    --max-queued 1024 2>"$tmp/log$i" &
  pids[$i]=$!
  for _ in $(seq 100); do [ -s "$tmp/port$i" ] && break; sleep 0.05; done
}
names=("$build")
start "$build" 0
if [ -n "$other" ]; then
  names+=("$other")
  start "$other" 1
fi
rss() { awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {printf "rss=%.1fMB peak=%.1fMB", r/1024, h/1024}' "/proc/$1/status"; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Context switches of all the server's threads (voluntary: a thread went to
# sleep, e.g. to wait for a hand-off; involuntary: it was preempted).
switches() { cat "/proc/$1/task/"*/status 2>/dev/null | awk '/ctxt_switches/ {n += $2} END {print n}'; }
hz=$(getconf CLK_TCK)

# One window: prints the load generator's line with the server's CPU
# microseconds and context switches per call appended.
window() {
  local i=$1 method=$2 c=$3 t0 t1 s0 s1 line calls
  s0=$(switches "${pids[$i]}")
  t0=$(ticks "${pids[$i]}")
  line=$("$gen" --target "127.0.0.1:$(cat "$tmp/port$i")" --method "$method" --model "$model" \
    --concurrency "$c" --seconds "$secs" --warmup 0.5)
  t1=$(ticks "${pids[$i]}")
  s1=$(switches "${pids[$i]}")
  calls=$(sed 's/.*calls=\([0-9]*\).*/\1/' <<<"$line")
  awk -v l="$line" -v d=$((t1 - t0)) -v n="$calls" -v hz="$hz" -v sw=$((s1 - s0)) \
    'BEGIN {printf "%s server_cpu_us_per_call=%.1f server_switches_per_call=%.2f\n", l,
            (n > 0 ? d * 1e6 / hz / n : 0), (n > 0 ? sw / n : 0)}'
}
field() { sed "s/.*$1=\([0-9.]*\).*/\1/" <<<"$2"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2)}'; }

echo "foldlined bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), model tiny_cnn.pb" \
  "($(stat -c %s "$model") bytes), ${secs}s per window, $rounds round(s)"
for i in "${!names[@]}"; do echo "server $i (${names[$i]}) idle: $(rss "${pids[$i]}")"; done
for c in 1 16 64; do
  for i in "${!names[@]}"; do
    : >"$tmp/ratio$i"; : >"$tmp/hcpu$i"; : >"$tmp/acpu$i"; : >"$tmp/hsw$i"; : >"$tmp/asw$i"
  done
  for r in $(seq "$rounds"); do
    for i in "${!names[@]}"; do
      h=$(window "$i" health "$c")
      a=$(window "$i" analyze "$c")
      echo "server $i round $r: $h"
      echo "server $i round $r: $a"
      awk -v a="$(field rps "$a")" -v h="$(field rps "$h")" \
        'BEGIN {printf "%.4f\n", (h > 0 ? a / h : 0)}' >>"$tmp/ratio$i"
      field server_cpu_us_per_call "$h" >>"$tmp/hcpu$i"
      field server_cpu_us_per_call "$a" >>"$tmp/acpu$i"
      field server_switches_per_call "$h" >>"$tmp/hsw$i"
      field server_switches_per_call "$a" >>"$tmp/asw$i"
    done
  done
  for i in "${!names[@]}"; do
    printf "server %d inflight=%d  analyze/health throughput ratio = %.3f (median of %d; rounds: %s)" \
      "$i" "$c" "$(median <"$tmp/ratio$i")" "$rounds" "$(tr '\n' ' ' <"$tmp/ratio$i" | sed 's/ $//')"
    printf "  server CPU us per call: health %s, analyze %s" "$(median <"$tmp/hcpu$i")" \
      "$(median <"$tmp/acpu$i")"
    printf "  context switches per call: health %s, analyze %s\n" "$(median <"$tmp/hsw$i")" \
      "$(median <"$tmp/asw$i")"
    echo "server $i after inflight=$c: $(rss "${pids[$i]}")"
  done
done

# Instructions per call under callgrind (all threads, user space): warm up,
# zero the counters, drive SECONDS of calls, dump, divide by the calls.
if [ "${FL_BENCH_CALLGRIND:-0}" = 1 ]; then
  command -v valgrind >/dev/null && command -v callgrind_control >/dev/null ||
    { echo "FL_BENCH_CALLGRIND: valgrind/callgrind_control not found" >&2; exit 1; }
  cgcall() {
    local b=$1 i=$2 method=$3 vp port line calls dump
    rm -f "$tmp/cgport$i" "$tmp"/cg$i.*
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg$i.%p" "$b/server/foldlined" \
      --listen 127.0.0.1:0 --port-file "$tmp/cgport$i" --cache-mb 0 --max-queued 1024 \
      2>/dev/null &
    vp=$!
    for _ in $(seq 300); do [ -s "$tmp/cgport$i" ] && break; sleep 0.1; done
    port=$(cat "$tmp/cgport$i")
    "$gen" --target "127.0.0.1:$port" --method "$method" --model "$model" --concurrency 16 \
      --seconds 2 --warmup 0 >/dev/null
    callgrind_control -z "$vp" >/dev/null 2>&1
    line=$("$gen" --target "127.0.0.1:$port" --method "$method" --model "$model" \
      --concurrency 16 --seconds "$secs" --warmup 0)
    callgrind_control -d "$vp" >/dev/null 2>&1
    kill "$vp"
    wait "$vp" 2>/dev/null || true
    calls=$(sed 's/.*calls=\([0-9]*\).*/\1/' <<<"$line")
    dump=$(ls "$tmp/cg$i".*.1 2>/dev/null | head -1)
    awk -v n="$calls" '/^(summary|totals):/ {print (n > 0 ? int($2 / n) : 0); exit}' "$dump"
  }
  for i in "${!names[@]}"; do
    h=$(cgcall "${names[$i]}" "$i" health)
    a=$(cgcall "${names[$i]}" "$i" analyze)
    echo "server $i callgrind inflight=16 (all threads, user space): instructions per call:" \
      "health $h, analyze $a"
  done
fi
