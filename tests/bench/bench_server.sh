#!/usr/bin/env bash
# bench_server.sh - throughput and p50/p99 latency of foldlined's Analyze on a
# small graph at 1, 16 and 64 calls in flight, with Health/Check measured in
# the same run as the transport baseline, their ratio, CPU time, context
# switches and futex calls per call, and the server's RSS. Not run by CTest.
#
# Usage: tests/bench/bench_server.sh [BUILD_DIR] [SECONDS] [ROUNDS] [OTHER_BUILD_DIR]
#   (BUILD_DIR defaults to ./build; run from the repository root)
#
# Each round measures Health and Analyze for SECONDS each at each
# concurrency, Health first in odd rounds and Analyze first in even ones.
# Per call, over the load generator's whole run (warm-up and last calls
# included, divided by every call that ended: server_loadgen's all_calls):
#   - the server's CPU time (user + system, all threads, /proc/PID/stat) and
#     context switches (/proc/PID/task/*/status, voluntary and involuntary:
#     each hand-off between threads puts one to sleep and wakes another);
#   - its futex calls (perf stat's syscalls:sys_enter_futex on the server's
#     threads; "n/a" without perf or its tracepoints; FL_BENCH_PERF=0 skips);
#   - the load generator's own CPU time and context switches (getrusage);
#   - the server's CPU time by thread: the loop, the completion-queue thread,
#     the analysis threads (the pool) and gRPC's own threads (the threads
#     name themselves; /proc/PID/task/*/stat).
# The summary line of each concurrency gives the medians over the rounds:
# the throughput ratio Analyze/Health from the windows' wall-clock rates,
# and next to it two ratios from CPU time per call, which the host's load
# moves much less: the server's (Health's CPU per call over Analyze's: the
# throughput ratio of a server that has the cores to itself and is
# CPU-bound) and the host's (server + client: what bounds both rates when
# this host's two cores are busy, as at 16 and 64 in flight). The host's
# 1-minute load average is printed before and after each concurrency. The
# server runs with the cache off and the bench checks its log: every
# Analyze call was analysed (cache_hit false), or it fails.
# With OTHER_BUILD_DIR a second server (that build's foldlined, e.g. of the
# base commit) is measured alternately with the first in every round,
# driven by BUILD_DIR's load generator.
#
# FL_BENCH_OPTIONS=cli sends each Analyze call with the options message the
# CLI sends (every field at its default), as a registry driving foldline's
# CLI does; the default sends none.
#
# The least server CPU an Analyze call can cost is its analysis and reply
# encoding in process (each build's bench_reply on the same model with the
# server's default options, printed first when the options are none and
# that bench_reply times the analysis). Each summary
# adds what Analyze costs beyond Health and that least cost (the hand-off to
# the pool and back, and the analysis's cost on a pool thread over its cost
# in process), and the server-CPU ratio that remains were that 0: Health's
# CPU over Health's plus the in-process cost, the most any hand-off can give.
#
# FL_BENCH_ARGS0 and FL_BENCH_ARGS1 add options to server 0's and server 1's
# command line (e.g. FL_BENCH_ARGS1="--threads 2" with OTHER_BUILD_DIR the
# same build: one build's options side by side).
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
  local b=$1 i=$2 extra
  extra="FL_BENCH_ARGS$i"
  # shellcheck disable=SC2086 # the options are words
  "$b/server/foldlined" --listen 127.0.0.1:0 --port-file "$tmp/port$i" --cache-mb 0 \
    --max-queued 1024 ${!extra:-} 2>"$tmp/log$i" &
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
# CPU ticks (user + system) of the server's threads by what they are: the
# loop (the process's own name, which the pool's threads keep until their
# first analysis: idle until then), the completion-queue thread and the
# analysis threads (they name themselves), gRPC's own threads ("other").
# Threads that ended are not counted.
thread_ticks() {
  local t
  for t in "/proc/$1/task/"*; do
    awk -v c="$(cat "$t/comm" 2>/dev/null)" '{sub(/.*\) /, ""); print c, $12 + $13}' "$t/stat" 2>/dev/null
  done | awk '{g = $1 == "foldlined" ? "loop" : $1 == "foldlined-cq" ? "cq" : $1 == "foldlined-pool" ? "pool" : "other"
               n[g] += $2}
              END {printf "%d %d %d %d\n", n["loop"], n["cq"], n["pool"], n["other"]}'
}

perf_ok=0
if [ "${FL_BENCH_PERF:-1}" = 1 ] && command -v perf >/dev/null &&
  perf stat -x, -e syscalls:sys_enter_futex -- true >/dev/null 2>&1; then
  perf_ok=1
fi

# One window: the load generator's line with the server's CPU microseconds,
# context switches and futex calls per call appended.
window() {
  local i=$1 method=$2 c=$3 t0 t1 s0 s1 line calls fx=-1
  local cmd=("$gen" --target "127.0.0.1:$(cat "$tmp/port$i")" --method "$method" --model "$model"
    --concurrency "$c" --seconds "$secs" --warmup 0.5 --options "${FL_BENCH_OPTIONS:-none}")
  s0=$(switches "${pids[$i]}")
  g0=$(thread_ticks "${pids[$i]}")
  t0=$(ticks "${pids[$i]}")
  if [ "$perf_ok" = 1 ]; then
    line=$(perf stat -x, -o "$tmp/perf" -e syscalls:sys_enter_futex -p "${pids[$i]}" -- "${cmd[@]}")
    fx=$(awk -F, '/sys_enter_futex/ {print $1}' "$tmp/perf")
  else
    line=$("${cmd[@]}")
  fi
  t1=$(ticks "${pids[$i]}")
  g1=$(thread_ticks "${pids[$i]}")
  s1=$(switches "${pids[$i]}")
  calls=$(sed 's/.*all_calls=\([0-9]*\).*/\1/' <<<"$line")
  awk -v l="$line" -v d=$((t1 - t0)) -v n="$calls" -v hz="$hz" -v sw=$((s1 - s0)) -v fx="$fx" \
    -v g0="$g0" -v g1="$g1" \
    'BEGIN {printf "%s server_cpu_us_per_call=%.1f server_switches_per_call=%.2f", l,
            (n > 0 ? d * 1e6 / hz / n : 0), (n > 0 ? sw / n : 0)
            split(g0, a, " "); split(g1, b, " ")
            printf " server_threads_cpu_us_per_call=loop:%.1f,cq:%.1f,pool:%.1f,other:%.1f",
              (n > 0 ? (b[1] - a[1]) * 1e6 / hz / n : 0), (n > 0 ? (b[2] - a[2]) * 1e6 / hz / n : 0),
              (n > 0 ? (b[3] - a[3]) * 1e6 / hz / n : 0), (n > 0 ? (b[4] - a[4]) * 1e6 / hz / n : 0)
            if (fx ~ /^[0-9]+$/ && n > 0) printf " server_futex_per_call=%.2f\n", fx / n
            else printf " server_futex_per_call=n/a\n"}'
}
field() { sed "s/.*$1=\([0-9.]*\).*/\1/" <<<"$2"; }
# The median of the numbers read (n/a when there are none).
median() {
  grep -E '^[0-9.]+$' | sort -g |
    awk '{v[NR]=$1} END {if (!NR) print "n/a"; else print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2)}'
}

load() { cut -d' ' -f1 /proc/loadavg; }
# "HEALTH / ANALYZE": the medians of series h$1 and a$1 of server $2.
pair() { echo "$(median <"$tmp/h$1$2") / $(median <"$tmp/a$1$2")"; }
echo "foldlined bench: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), model tiny_cnn.pb" \
  "($(stat -c %s "$model") bytes, options: ${FL_BENCH_OPTIONS:-none}), ${secs}s per window, $rounds round(s)," \
  "futex counts: $([ "$perf_ok" = 1 ] && echo perf || echo n/a)"
for i in "${!names[@]}"; do
  extra="FL_BENCH_ARGS$i"
  echo "server $i (${names[$i]}${!extra:+ ${!extra}}) idle: $(rss "${pids[$i]}")"
  # Warm-up: the pool's threads exist and the caches are filled before the
  # first measured window (perf counts the threads there are when it starts).
  "$gen" --target "127.0.0.1:$(cat "$tmp/port$i")" --method analyze --model "$model" \
    --concurrency 16 --seconds 0.5 --warmup 0 >/dev/null
done
least=()
for i in "${!names[@]}"; do
  least[$i]=""
  b="${names[$i]}/tests/bench/bench_reply"
  if [ "${FL_BENCH_OPTIONS:-none}" = none ] && [ -x "$b" ]; then
    line=$("$b" "$model" | head -1)
    least[$i]=$(awk '{for (i = 1; i < NF; i++) {if ($i == "after") e = $(i + 1); if ($i == "analysis") a = $(i + 1)}
                      if (a > 0 && e > 0) printf "%.1f", a + e}' <<<"$line")
    if [ -n "${least[$i]}" ]; then
      echo "server $i in process (bench_reply): $(sed 's/.*after *\([0-9.]*\) us.*analysis *\([0-9.]*\) us.*/analysis \2 us CPU + reply encoding \1 us/' <<<"$line") = ${least[$i]} us: the least server CPU of an Analyze call"
    fi
  fi
done
series="ratio hcpu acpu hcl acl hsw asw hfx afx cratio hratio hloop aloop hcq acq hpool apool hother aother"
for c in 1 16 64; do
  for i in "${!names[@]}"; do
    for k in $series; do : >"$tmp/$k$i"; done
  done
  load0=$(load)
  for r in $(seq "$rounds"); do
    for i in "${!names[@]}"; do
      if [ $((r % 2)) = 1 ]; then
        h=$(window "$i" health "$c")
        a=$(window "$i" analyze "$c")
        echo "server $i round $r: $h"
        echo "server $i round $r: $a"
      else
        a=$(window "$i" analyze "$c")
        h=$(window "$i" health "$c")
        echo "server $i round $r: $a"
        echo "server $i round $r: $h"
      fi
      awk -v a="$(field rps "$a")" -v h="$(field rps "$h")" \
        'BEGIN {printf "%.4f\n", (h > 0 ? a / h : 0)}' >>"$tmp/ratio$i"
      field server_cpu_us_per_call "$h" >>"$tmp/hcpu$i"
      field server_cpu_us_per_call "$a" >>"$tmp/acpu$i"
      field client_cpu_us_per_call "$h" >>"$tmp/hcl$i"
      field client_cpu_us_per_call "$a" >>"$tmp/acl$i"
      field server_switches_per_call "$h" >>"$tmp/hsw$i"
      field server_switches_per_call "$a" >>"$tmp/asw$i"
      field server_futex_per_call "$h" >>"$tmp/hfx$i"
      field server_futex_per_call "$a" >>"$tmp/afx$i"
      for g in loop cq pool other; do
        sed "s/.*server_threads_cpu_us_per_call=[^ ]*$g:\([0-9.]*\).*/\1/" <<<"$h" >>"$tmp/h$g$i"
        sed "s/.*server_threads_cpu_us_per_call=[^ ]*$g:\([0-9.]*\).*/\1/" <<<"$a" >>"$tmp/a$g$i"
      done
      awk -v hs="$(field server_cpu_us_per_call "$h")" -v as="$(field server_cpu_us_per_call "$a")" \
        -v hc="$(field client_cpu_us_per_call "$h")" -v ac="$(field client_cpu_us_per_call "$a")" \
        -v f1="$tmp/cratio$i" -v f2="$tmp/hratio$i" \
        'BEGIN {printf "%.4f\n", (as > 0 ? hs / as : 0) >>f1
                printf "%.4f\n", (as + ac > 0 ? (hs + hc) / (as + ac) : 0) >>f2}'
    done
  done
  load1=$(load)
  for i in "${!names[@]}"; do
    printf "server %d inflight=%d (load %s-%s, median of %d) analyze/health throughput ratio:" \
      "$i" "$c" "$load0" "$load1" "$rounds"
    printf " wall %.3f, server CPU %.3f, host CPU %.3f (wall rounds: %s)\n" \
      "$(median <"$tmp/ratio$i")" "$(median <"$tmp/cratio$i")" "$(median <"$tmp/hratio$i")" \
      "$(tr '\n' ' ' <"$tmp/ratio$i" | sed 's/ $//')"
    printf "  per call, health / analyze: server CPU us %s, client CPU us %s," \
      "$(pair cpu "$i")" "$(pair cl "$i")"
    printf " server context switches %s, server futex calls %s\n" "$(pair sw "$i")" "$(pair fx "$i")"
    printf "  server CPU us per call by thread, health / analyze: loop %s, CQ thread %s," \
      "$(pair loop "$i")" "$(pair cq "$i")"
    printf " analysis threads %s, gRPC's threads %s\n" "$(pair pool "$i")" "$(pair other "$i")"
    if [ -n "${least[$i]}" ]; then
      awk -v h="$(median <"$tmp/hcpu$i")" -v a="$(median <"$tmp/acpu$i")" -v l="${least[$i]}" \
        'BEGIN {printf "  analyze beyond health and the in-process analysis: %.1f us of server CPU;", a - h - l
                printf " server CPU ratio were it 0: %.3f\n", h / (h + l)}'
    fi
    echo "server $i after inflight=$c: $(rss "${pids[$i]}")"
  done
done

# Every Analyze call was analysed: the cache is off, and the log says so.
for i in "${!names[@]}"; do
  hits=$(grep -c '"method":"Analyze".*"cache_hit":true' "$tmp/log$i" || true)
  analysed=$(grep -c '"method":"Analyze".*"status":"OK".*"cache_hit":false' "$tmp/log$i" || true)
  echo "server $i: $analysed Analyze calls analysed, $hits answered from the cache"
  if [ "$hits" != 0 ]; then
    echo "bench_server.sh: server $i answered from its cache: the figures are not of analyses" >&2
    exit 1
  fi
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
    # every call between the zeroing and the dump: the window's and the last in flight
    calls=$(sed 's/.*all_calls=\([0-9]*\).*/\1/' <<<"$line")
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
