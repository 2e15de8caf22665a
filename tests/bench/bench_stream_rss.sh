#!/usr/bin/env bash
# bench_stream_rss.sh - foldlined's peak memory for one AnalyzeStream upload:
# a GraphDef of MB megabytes (one float Const of that size and an Identity;
# FORMAT=onnx: an ONNX model, four float initializers of MB/4 each added up),
# sent by the CLI (`foldline --server ... analyze --passes none`, which
# streams a graph above 512 KiB in 512 KiB messages) to a fresh server, whose
# peak RSS (VmHWM) is read after the reply. With a second server binary
# (OTHER, e.g. one built from an earlier commit) both are run alternately,
# ROUNDS times each, and printed side by side. UPLOADS=N sends N distinct
# models of that size (they differ in their producer field) one after the
# other to the same server, run with --cache-mb CACHE_MB, and also prints
# its RSS after the last reply: what the reply cache holds on to.
# Not run by CTest.
#
# Usage: tests/bench/bench_stream_rss.sh [BUILD_DIR] [OTHER_FOLDLINED]
#   (from the repo root; MB=100, ROUNDS=3, FORMAT=graphdef, UPLOADS=1 and
#   CACHE_MB=0 by default)
set -euo pipefail
build="${1:-build}"
other="${2:-}"
mb="${MB:-100}"
here="$(cd "$(dirname "$0")" && pwd)"
rounds="${ROUNDS:-3}"
format="${FORMAT:-graphdef}"
uploads="${UPLOADS:-1}"
cache_mb="${CACHE_MB:-0}"
cmake --build "$build" --target foldlined foldline_cli -j2 >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/fl_stream_rss.XXXXXX")
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

# The GraphDef, written field by field (tensorflow/core/framework/graph.proto,
# node_def.proto, attr_value.proto, tensor.proto, tensor_shape.proto).
# ONNX: onnx/onnx.proto (ModelProto 1 ir_version, 7 graph, 8 opset_import;
# GraphProto 1 node, 2 name, 5 initializer, 11 input, 12 output; TensorProto
# 1 dims, 2 data_type, 8 name, 9 raw_data).
PYTHONPATH="$here/../tools" python3 - "$work/big.pb" "$mb" "$format" "$uploads" <<'EOF'
import sys
from pbwrite import attr, ld, vi
n = int(sys.argv[2]) * 1000000 // 4
uploads = int(sys.argv[4])
if sys.argv[3] == "onnx":
    q = n // 4
    vinfo = lambda name: ld(1, name) + ld(2, ld(1, vi(1, 1) + ld(2, ld(1, vi(1, q)))))
    g = ld(2, b"g")
    for i in range(4):
        g += ld(5, vi(1, q) + vi(2, 1) + ld(8, b"w%d" % i) + ld(9, bytes(4 * q)))
    g += ld(1, ld(1, b"w0") + ld(1, b"w1") + ld(2, b"s0") + ld(4, b"Add"))
    g += ld(1, ld(1, b"w2") + ld(1, b"w3") + ld(2, b"s1") + ld(4, b"Add"))
    g += ld(1, ld(1, b"s0") + ld(1, b"s1") + ld(2, b"out") + ld(4, b"Add"))
    g += ld(12, vinfo(b"out"))
    for u in range(uploads):  # ModelProto.producer_name (2)
        with open(sys.argv[1] + ("" if u == 0 else ".%d" % u), "wb") as f:
            f.write(vi(1, 8) + ld(2, b"bench%d" % u) + ld(7, g) + ld(8, ld(1, b"") + vi(2, 17)))
    sys.exit(0)
tensor = vi(1, 1) + ld(2, ld(2, vi(1, n))) + ld(4, bytes(4 * n))  # DT_FLOAT [n]
const = ld(1, b"w") + ld(2, b"Const") + attr("dtype", vi(6, 1)) + attr("value", ld(8, tensor))
ident = ld(1, b"out") + ld(2, b"Identity") + ld(3, b"w") + attr("T", vi(6, 1))
for u in range(uploads):  # GraphDef.versions (4): its producer
    with open(sys.argv[1] + ("" if u == 0 else ".%d" % u), "wb") as f:
        f.write(ld(1, const) + ld(1, ident) + ld(4, vi(1, 1205 + u)))
EOF
size=$(stat -c %s "$work/big.pb")
nodes=2
[ "$format" = onnx ] && nodes=3

# UPLOADS uploads to a fresh server: prints "peak_MB idle_MB wall_s cpu_s
# end_MB" (the server's CPU time, all its threads, start-up included; wall
# time of all uploads; RSS after the last).
run() {
    local bin="$1" port_file="$work/port" i
    rm -f "$port_file"
    "$bin" --listen 127.0.0.1:0 --port-file "$port_file" --cache-mb "$cache_mb" 2>"$work/log" &
    pid=$!
    for i in $(seq 200); do [ -s "$port_file" ] && break; sleep 0.05; done
    local port idle t0 t1 peak cpu end u f
    port=$(head -1 "$port_file")
    idle=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
    t0=$(date +%s.%N)
    for u in $(seq 0 $((uploads - 1))); do
        f="$work/big.pb"
        [ "$u" -gt 0 ] && f="$work/big.pb.$u"
        "$build/foldline" --server "127.0.0.1:$port" analyze "$f" --passes none >/dev/null
    done
    t1=$(date +%s.%N)
    peak=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
    end=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
    cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' /proc/$pid/stat)
    kill -TERM "$pid"
    wait "$pid" || true
    pid=""
    [ "$(grep -c "\"method\":\"AnalyzeStream\".*\"nodes\":$nodes,.*\"status\":\"OK\"" \
        "$work/log")" = "$uploads" ] ||
        { echo "bench_stream_rss: an upload was not analysed:" >&2; cat "$work/log" >&2; exit 1; }
    echo "$((peak / 1024)) $((idle / 1024)) $(echo "$t1 - $t0" | bc) $cpu $((end / 1024))"
}

echo "bench_stream_rss: $uploads $format model(s) of $size bytes streamed by the CLI," \
    "--cache-mb $cache_mb, $rounds rounds"
printf "%-7s %-6s %10s %10s %10s %8s %8s\n" server round "peak MB" "idle MB" "end MB" "wall s" \
    "CPU s"
for r in $(seq "$rounds"); do
    read -r peak idle wall cpu end < <(run "$build/server/foldlined")
    printf "%-7s %-6s %10s %10s %10s %8.3f %8s\n" this "$r" "$peak" "$idle" "$end" "$wall" "$cpu"
    if [ -n "$other" ]; then
        read -r peak idle wall cpu end < <(run "$other")
        printf "%-7s %-6s %10s %10s %10s %8.3f %8s\n" other "$r" "$peak" "$idle" "$end" "$wall" \
            "$cpu"
    fi
done
