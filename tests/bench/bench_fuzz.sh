#!/usr/bin/env bash
# The long fuzzing run: every target of tests/fuzz/targets.txt, in slices,
# for hours, and how many executions each got. Slices go round-robin to the
# targets that have not reached the goal yet; each target's corpus and
# findings accumulate in WORK/TARGET (tests/fuzz/run.sh --work), so a run
# can be stopped and resumed with the same WORK. Prints one line per slice
# and the totals at the end (also in WORK/totals.tsv). Findings do not stop
# the run: they are listed at the end (and the exit status is 1).
#
# usage: tests/bench/bench_fuzz.sh BUILD_DIR [--hours H] [--slice S] [--goal N] [--work DIR]
#   BUILD_DIR  a libFuzzer build: cmake -S . -B build-fuzz -DFL_FUZZ=ON
#              -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFL_BUILD_TESTS=OFF
#   --hours    wall-clock budget (default 8)
#   --slice    seconds per slice (default 900)
#   --goal     executions after which a target gets no more slices (default 10000000)
#   --work     corpus and findings directory (default fuzz-work)
# Run it at low priority beside other work: nice -n 19 tests/bench/bench_fuzz.sh ...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run="$here/../fuzz/run.sh"
build=""
hours=8
slice=900
goal=10000000
work=fuzz-work
while [ $# -gt 0 ]; do
  case "$1" in
    --hours) hours="$2"; shift 2 ;;
    --slice) slice="$2"; shift 2 ;;
    --goal) goal="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) build="$1"; shift ;;
  esac
done
[ -n "$build" ] || { echo "usage: bench_fuzz.sh BUILD_DIR [--hours H] [--slice S] [--goal N] [--work DIR]" >&2; exit 2; }
mkdir -p "$work"
totals="$work/totals.tsv"
touch "$totals"
targets=$(grep -E '^fuzz_' "$here/../fuzz/targets.txt" | awk '{print $1}')
end=$(($(date +%s) + $(awk -v h="$hours" 'BEGIN {printf "%d", h * 3600}')))

executions() { awk -v t="$1" '$1 == t {s += $2} END {print s + 0}' "$totals"; }
seconds_of() { awk -v t="$1" '$1 == t {s += $3} END {print s + 0}' "$totals"; }

while [ "$(date +%s)" -lt "$end" ]; do
  ran=0
  for t in $targets; do
    [ "$(date +%s)" -lt "$end" ] || break
    [ "$(executions "$t")" -lt "$goal" ] || continue
    left=$((end - $(date +%s)))
    s=$((left < slice ? left : slice))
    [ "$s" -ge 10 ] || break
    line=$("$run" "$build" --seconds "$s" --work "$work" "$t" 2>&1 | grep -E "^$t +[0-9]+ executions" | tail -n 1)
    n=$(echo "$line" | awk '{print $2}')
    f=$(echo "$line" | sed -n 's/.*, \([0-9]*\) findings/\1/p')
    printf '%s\t%s\t%s\t%s\n' "$t" "${n:-0}" "$s" "${f:-0}" >>"$totals"
    echo "$(date '+%F %T') $line"
    ran=1
  done
  [ "$ran" -eq 1 ] || break
done

echo "== totals (executions, seconds, findings) in $work"
status=0
for t in $targets; do
  f=$(find "$work/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) 2>/dev/null | wc -l)
  printf '%-18s %12d executions %8ds %d findings\n' "$t" "$(executions "$t")" "$(seconds_of "$t")" "$f"
  [ "$f" -eq 0 ] || status=1
done
exit "$status"
