#!/usr/bin/env bash
# bench_all.sh - the speed and memory figures of the analysis in one run:
# tiny_cnn's fixed cost, chains of 10k, 100k and 1M nodes with and without
# the passes (in process: ns/node and peak RSS/node), the CLI on the 1M
# chain (wall, CPU, peak RSS), the largest corpus models with and without
# the passes, foldlined's Analyze/Health throughput ratio and its peak
# memory for a 100 MB streamed upload. Not run by
# CTest; single-threaded figures are the ones to trust on a shared host.
#
# Usage: tests/bench/bench_all.sh [BUILD_DIR] [RUNS]   (from the repository root)
#   FL_BENCH_10M=1 adds the 10M-node chain without and with the passes
#   (about 4 GB and 7 GB of memory, one after the other: check that the
#   host has them free).
set -euo pipefail
build="${1:-build}"
runs="${2:-5}"
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$here/../../../shared/corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== in process (bench_scaling, $runs runs)"
"$build/tests/bench/bench_scaling" "$runs"
if [ -n "${FL_BENCH_10M:-}" ]; then
  "$build/tests/bench/bench_scaling" 1 10000000
fi

echo "== CLI on the 1M-node chain (wall and CPU seconds, peak RSS)"
"$build/tests/bench/bench_scaling" --write-chain 1000000 "$tmp/chain1m.pb"
for passes in none default; do
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$build/foldline" analyze "$tmp/chain1m.pb" \
    --passes "$passes" >/dev/null 2>"$tmp/err" || { echo "failed: $(cat "$tmp/err")"; continue; }
  awk -v p="$passes" '{printf "foldline analyze chain1m.pb --passes %-8s wall %.2f s  cpu %.2f s  peak rss %.0f MB\n", p, $1, $2 + $3, $4 / 1024}' "$tmp/t"
done

echo "== corpus models, in process (bench_passes: median of $runs)"
models=()
for m in vit_b_16.raw.stripped.onnx convnext_tiny.raw.stripped.onnx \
  efficientnet_b0.raw.stripped.onnx resnet18.raw.stripped.onnx; do
  [ -f "$corpus/onnx/$m" ] && models+=("$corpus/onnx/$m")
done
for m in human-facemesh-attention-pinto.pb foolmarks-cifar-cnn.pb; do
  [ -f "$corpus/tf/$m" ] && models+=("$corpus/tf/$m")
done
if [ ${#models[@]} -gt 0 ]; then
  "$build/tests/bench/bench_passes" "$runs" "${models[@]}"
else
  echo "corpus absent ($corpus): skipped"
fi

echo "== foldlined (bench_server.sh)"
bash "$here/bench_server.sh" "$build" 3

echo "== foldlined, a 100 MB AnalyzeStream upload (bench_stream_rss.sh)"
bash "$here/bench_stream_rss.sh" "$build"
