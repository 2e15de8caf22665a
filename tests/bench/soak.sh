#!/usr/bin/env bash
# Soak: foldlined under 64 concurrent calls for a long time, over a mix of
# models, reporting every window: calls, errors, p50/p99 per model and the
# server's resident memory (VmRSS). The cache is off, so every call is a
# full analysis. Prints one block per window and a summary: total errors,
# and RSS after warm-up (first window excluded) as min, max and spread in %.
#
# usage: tests/bench/soak.sh BUILD_DIR [--minutes M] [--window S] [MODEL...]
#   default 10 minutes in 30 s windows; models: tiny_cnn (GraphDef, ONNX),
#   TFLite when present, and four corpus models when ../shared/corpus exists.
#   The 64 calls in flight are shared out over the models (one loadgen
#   process per model, tests/bench/server_loadgen.c).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=""
minutes=10
window=30
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --window) window="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) if [ -z "$build" ]; then build="$1"; else models+=("$1"); fi; shift ;;
  esac
done
[ -n "$build" ] || { echo "usage: soak.sh BUILD_DIR [--minutes M] [--window S] [MODEL...]" >&2; exit 2; }
if [ ${#models[@]} -eq 0 ]; then
  models=("$src/tests/data/tiny_cnn.pb" "$src/tests/data/tiny_cnn.onnx")
  c="$src/../shared/corpus"
  for m in tf/human-age.pb tf/human-blazeface.pb onnx/resnet18.folded.stripped.onnx \
    onnx/mobilenet_v2.folded.stripped.onnx; do
    [ -f "$c/$m" ] && models+=("$c/$m")
  done
fi
# 64 calls in flight in all: the first 64 % N models get one more.
per=$((64 / ${#models[@]}))
extra=$((64 % ${#models[@]}))
tmp=$(mktemp -d)
"$build/server/foldlined" --listen 127.0.0.1:0 --port-file "$tmp/port" --cache-mb 0 \
  --threads 2 --max-queued 256 2>"$tmp/server.log" &
srv=$!
# (|| true: under set -e a failing kill of the server already stopped below
# would make the trap, and so the whole run, exit 1)
trap 'kill $srv 2>/dev/null || true; wait $srv 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(head -n 1 "$tmp/port")
echo "soak: ${#models[@]} models, 64 calls in flight ($per or $((per + 1)) each)," \
  "$minutes min in ${window} s windows; server pid $srv"
windows=$((minutes * 60 / window))
total_errors=0
rss_list=()
for w in $(seq "$windows"); do
  pids=()
  for i in "${!models[@]}"; do
    "$build/tests/server_loadgen" --target "127.0.0.1:$port" --method analyze \
      --model "${models[$i]}" --concurrency "$((per + (i < extra ? 1 : 0)))" \
      --seconds "$window" --warmup 0 \
      >"$tmp/w.$i" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$srv/status")
  rss_list+=("$rss")
  line="window $w ($((w * window)) s): rss ${rss} kB"
  for i in "${!models[@]}"; do
    r=$(cat "$tmp/w.$i")
    e=$(echo "$r" | sed -n 's/.*errors=\([0-9]*\).*/\1/p')
    total_errors=$((total_errors + ${e:-1}))
    line="$line | $(basename "${models[$i]}"): $(echo "$r" | sed 's/method=analyze //; s/inflight=[0-9]* //')"
  done
  echo "$line"
done
kill -TERM "$srv"
wait "$srv" && echo "server exited 0" || echo "server exited $?"
printf '%s\n' "${rss_list[@]:1}" | sort -n | awk -v e="$total_errors" '
  NR == 1 {min = $1} {max = $1}
  END {printf "summary: %d errors; RSS after the first window: min %d kB, max %d kB, spread %.1f %%\n",
       e, min, max, min ? 100 * (max - min) / min : 0}'
