#!/usr/bin/env bash
# bench_zerocopy.sh - a full-weight ONNX model against its weight-stripped
# twin, side by side in one run (issue: analysis at the speed of memory):
#   - in process (bench_zerocopy): one memcpy of the full file's bytes,
#     fl_analyze of the mapped full file without and with the default passes,
#     the stripped twin likewise;
#   - the CLI (`foldline analyze --passes none`): median wall time and peak
#     RSS of RUNS runs, full and stripped;
#   - ONNX Runtime's session creation on the same full file (CPU, one thread),
#     when node and onnxruntime-node are available (in $FL_ORT_DIR, else
#     npm ci --ignore-scripts into BUILD/ort, as validate_roofline.sh does).
# The full model is the corpus's resnet50 full-weight ONNX when present, else
# a stripped corpus model (MODEL, default convnext_tiny: 28.6 M parameters,
# about resnet50's size) filled with weights by fl_onnxfill; FULL=FILE and
# STRIPPED=FILE name the two files instead (e.g. a resnet50 exported with its
# weights and the same export with its float tensors emptied). Not run by CTest.
#
# Usage: tests/bench/bench_zerocopy.sh [BUILD_DIR] [RUNS]   (from the repo root;
#   BUILD_DIR defaults to build, RUNS to 7; a Release build gives the figures)
set -euo pipefail
build="${1:-build}"
runs="${2:-7}"
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$here/../../../shared/corpus/onnx"
model="${MODEL:-convnext_tiny}"
[ -d "$corpus" ] || { echo "bench_zerocopy: SKIP: no corpus at $corpus"; exit 77; }
cmake --build "$build" --target foldline_cli fl_onnxfill bench_zerocopy -j2 >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/fl_zerocopy.XXXXXX")
trap 'rm -rf "$work"' EXIT

full="${FULL:-}"
[ -n "$full" ] || for f in "$corpus"/resnet50*.onnx; do
    case "$f" in *stripped*) ;; *) [ -f "$f" ] && full="$f" && model=resnet50 ;; esac
done
stripped="${STRIPPED:-$corpus/$model.raw.stripped.onnx}"
[ -f "$stripped" ] || stripped="$(ls "$corpus/$model"*stripped.onnx | head -1)"
if [ -z "$full" ]; then
    full="$work/$model.full.onnx"
    "$build/tests/fl_onnxfill" "$stripped" "$full" >/dev/null
fi
echo "bench_zerocopy: full $(basename "$full") ($(stat -c %s "$full") bytes), stripped" \
    "$(basename "$stripped") ($(stat -c %s "$stripped") bytes); $(nproc) CPUs, load" \
    "$(cut -d' ' -f1 /proc/loadavg)"
"$build/tests/bench/bench_zerocopy" "$full" "$stripped" "$runs"

# CLI: median wall ms and the largest peak RSS over RUNS runs; with "cold",
# the file's pages are dropped from the page cache before each run.
cli() {
    local i t0 t1
    "$build/foldline" analyze "$1" --passes none >/dev/null
    for ((i = 0; i < runs; i++)); do
        if [ "${2:-}" = cold ]; then
            dd if="$1" iflag=nocache count=0 status=none
        fi
        t0=$EPOCHREALTIME
        /usr/bin/time -f "%M" -o "$work/rss" "$build/foldline" analyze "$1" --passes none >/dev/null
        t1=$EPOCHREALTIME
        echo "$t0 $t1 $(tail -1 "$work/rss")"
    done | awk '{ print ($2 - $1) * 1000, $3 }' | sort -g |
        awk '{ t[NR] = $1; if ($2 > rss) rss = $2 }
        END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2;
              printf "%8.1f ms wall, peak RSS %.1f MB", m, rss / 1024 }'
}
sync "$full" # written back, so that its cached pages can be dropped
# RSS counts every page of the mapping the process touched, in the page
# cache's units: a file just written may sit in large folios (up to 2 MB),
# so reading one tensor's header maps its whole folio. Once the file's pages
# are dropped, the mapping (read-ahead off) reads single pages on demand.
echo "CLI (foldline analyze --passes none), medians of $runs runs:"
echo "  full, page cache as written   $(cli "$full")"
echo "  full, file's cache dropped    $(cli "$full" cold)"
echo "  full, cached again (4K pages) $(cli "$full")"
echo "  stripped                      $(cli "$stripped")"

ortdir="${FL_ORT_DIR:-$build/ort}"
if [ -z "${FL_ORT_DIR:-}" ] && command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    if [ ! -d "$ortdir/node_modules/onnxruntime-node" ]; then
        mkdir -p "$ortdir"
        cp "$here/ort/package.json" "$here/ort/package-lock.json" "$ortdir/"
        (cd "$ortdir" && npm ci --ignore-scripts --no-audit --no-fund >npm.log 2>&1) || true
    fi
fi
if [ -d "$ortdir/node_modules/onnxruntime-node" ]; then
    # run from the scratch directory, onnxruntime-node found through a link
    ln -s "$(cd "$ortdir" && pwd)/node_modules" "$work/node_modules"
    cp "$here/ort_session.mjs" "$work/"
    read -r ort_ms ort_rss < <(node "$work/ort_session.mjs" "$full" "$runs")
    echo "ONNX Runtime session creation on the full file (median of $runs): $ort_ms ms," \
        "node peak RSS $ort_rss MB"
else
    echo "ONNX Runtime: not measured (node/npm or onnxruntime-node unavailable)"
fi
