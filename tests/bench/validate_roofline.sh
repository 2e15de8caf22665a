#!/usr/bin/env bash
# validate_roofline.sh - compares foldline's roofline latency predictions on
# this host's calibrated profile with ONNX Runtime's measured CPU latency on
# the ONNX corpus, and prints per-model tables, MAPE, Spearman and Kendall
# rank correlation and the median predicted/measured ratio.
#
#   tests/bench/validate_roofline.sh [BUILD_DIR] [--profile FILE.yaml]
#        [--threads N] [--cv] [--models NAME,NAME...] [--runs N] [--warmup N]
#        [--budget SECONDS] [--all-level] [--json FILE] [--keep] [--nice N]
#
# --nice N (with --cv): run ONNX Runtime at nice level N (e.g. -10; a
# negative level needs the privilege to raise priority) so that other
# processes of a shared host interrupt its kernels less: the traced kernel
# times, wall times, then come closer to the runs' CPU time. Under autogroup
# scheduling (processes grouped by session) nice orders only the session's
# own processes: no effect against the others'.
#
# --threads N: calibrate with N threads (`foldline calibrate --threads N`) and
# run ORT with N intra-op threads. On a shared host --threads 1 gives the
# trustworthy figures.
#
# --cv (default threads 1, 30 runs): how `foldline fit` does on models it
# never saw. Every model is run in ORT (graphOptimizationLevel disabled) with
# profiling
# (tests/bench/ort_trace.mjs: one per-node trace and the untraced median
# latency per model); then, leaving each model out in turn, a profile is
# fitted to the other models' traces and the left-out model is predicted
# (tests/bench/validate_fit.mjs). Prints per model the measured, before-fit
# and after-fit times with the fitted 80 % interval; MAPE, the share within
# +-10 %, Spearman and Kendall before and after fitting; per op class the
# median |error| of each op's predicted kernel time against its traced one;
# and the wall time of `foldline fit` on all the traces.
#
# BUILD_DIR (default: build-validate in the checkout, git-ignored) is
# configured and built (Release) when it has no foldline or fl_onnxfill yet.
# The profile is `foldline calibrate` of this host (about 2 s) unless
# --profile gives a calibrated one; ONNX Runtime runs with as many intra-op
# threads as the profile was calibrated with (its description says "N
# threads"), so prediction and measurement assume the same cores.
#
# Models: the corpus's `raw` graphs (../shared/corpus/onnx beside the
# checkout). Stripped weights are filled with deterministic pseudo-random
# values by fl_onnxfill (tests/tools/onnxfill.c) into a temporary directory;
# the two unstripped files are run as they are. ORT's own optimized graphs
# (ort-extended/) are filled and run too, so that foldline and ORT can be
# compared on exactly the graph ORT executes.
#
# onnxruntime-node (pinned by tests/bench/ort/package-lock.json) is installed
# with `npm ci --ignore-scripts` into BUILD_DIR/ort (never into the source
# tree). Without the corpus, node/npm or the npm registry the script prints
# why and exits 0: it is a benchmark, not a test. The host may be shared:
# figures are medians, run it more than once before drawing conclusions.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=""
profile=""
models=""
runs=""
warmup=3
budget=4
levels="disabled,extended"
json_out=""
keep=0
threads_opt=""
cv=0
nice_level=""

while [ $# -gt 0 ]; do
    case "$1" in
    --profile) profile=$2; shift 2 ;;
    --threads) threads_opt=$2; shift 2 ;;
    --cv) cv=1; shift ;;
    --nice) nice_level=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --all-level) levels="disabled,extended,all"; shift ;;
    --json) json_out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,52p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "validate_roofline: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
    esac
done

skip() {
    echo "validate_roofline: skipped: $*"
    exit 0
}

# --cv takes each kernel's least time over the traced runs: more runs
[ -n "$runs" ] || { [ "$cv" = 1 ] && runs=30 || runs=15; }

corpus="$repo/../shared/corpus/onnx"
[ -d "$corpus" ] || skip "the ONNX corpus ($corpus) is not there"
corpus=$(cd "$corpus" && pwd)
command -v node >/dev/null 2>&1 || skip "node is not installed"
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

# --- build ---------------------------------------------------------------
build=${build:-$repo/build-validate}
mkdir -p "$build"
build=$(cd "$build" && pwd)
if [ ! -x "$build/foldline" ] || [ ! -x "$build/tests/fl_onnxfill" ]; then
    echo "validate_roofline: building foldline and fl_onnxfill in $build"
    [ -f "$build/CMakeCache.txt" ] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" --target foldline_cli fl_onnxfill -j2 >/dev/null
foldline="$build/foldline"
fill="$build/tests/fl_onnxfill"

# --- ONNX Runtime ------------------------------------------------------------
ortdir="$build/ort"
mkdir -p "$ortdir"
if ! cmp -s "$here/ort/package-lock.json" "$ortdir/package-lock.json" ||
    [ ! -d "$ortdir/node_modules/onnxruntime-node" ]; then
    cp "$here/ort/package.json" "$here/ort/package-lock.json" "$ortdir/"
    echo "validate_roofline: npm ci --ignore-scripts (onnxruntime-node) in $ortdir"
    if ! (cd "$ortdir" && npm ci --ignore-scripts --no-audit --no-fund >npm.log 2>&1); then
        rm -f "$ortdir/package-lock.json"
        skip "npm ci failed (no registry?); see $ortdir/npm.log"
    fi
fi

# --- work directory, profile ---------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/fl_validate.XXXXXX")
if [ "$keep" = 1 ]; then
    echo "validate_roofline: keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/profiles" "$work/models"
if [ -n "$profile" ]; then
    [ -f "$profile" ] || { echo "validate_roofline: no profile $profile" >&2; exit 2; }
    cp "$profile" "$work/profiles/host.yaml"
else
    [ "$cv" = 1 ] && [ -z "$threads_opt" ] && threads_opt=1
    echo "validate_roofline: calibrating this host (foldline calibrate${threads_opt:+ --threads $threads_opt})"
    "$foldline" calibrate ${threads_opt:+--threads "$threads_opt"} -o "$work/profiles/host.yaml" \
        2>"$work/calibrate.log" || { cat "$work/calibrate.log" >&2; exit 1; }
fi
pname=$(sed -n 's/^name: *//p' "$work/profiles/host.yaml" | head -n1 | tr -d '"')
threads=$(grep -o '[0-9][0-9]* threads\{0,1\}' "$work/profiles/host.yaml" | head -n1 | cut -d' ' -f1 || true)
if [ -n "$threads_opt" ]; then
    threads=$threads_opt
elif [ -z "$threads" ]; then
    threads=$(nproc)
    echo "validate_roofline: the profile does not say how many threads it measured; using $threads"
fi
echo "validate_roofline: profile '$pname' ($threads threads):"
grep -E '^ *(fp32|- \{name|overhead)' "$work/profiles/host.yaml" |
    sed -E 's/, source: "[^"]*"//; s/^/    /'

# --- models ----------------------------------------------------------------
if [ -z "$models" ]; then
    models=$(cd "$corpus" && ls *.raw.stripped.onnx | sed 's/\.raw\.stripped\.onnx$//' | paste -sd, -)
fi
entries=""
IFS=, read -r -a names <<<"$models"
for n in "${names[@]}"; do
    stripped="$corpus/$n.raw.stripped.onnx"
    [ -f "$stripped" ] || { echo "validate_roofline: no $stripped" >&2; exit 2; }
    if [ -f "$corpus/$n.raw.onnx" ]; then
        run="$corpus/$n.raw.onnx" # real weights: run as is
    else
        run="$work/models/$n.raw.onnx"
        "$fill" "$stripped" "$run" >/dev/null
    fi
    ext="$corpus/ort-extended/$n.raw.ort-extended.stripped.onnx"
    ext_json=""
    if [ -f "$ext" ]; then
        "$fill" "$ext" "$work/models/$n.ort-extended.onnx" >/dev/null
        ext_json=", \"analyze_ort_graph\": \"$ext\", \"run_ort_graph\": \"$work/models/$n.ort-extended.onnx\""
    fi
    entries="$entries${entries:+,}
  {\"name\": \"$n\", \"analyze\": \"$stripped\", \"run\": \"$run\"$ext_json}"
done

if [ "$cv" = 1 ]; then
    echo "validate_roofline: tracing ${#names[@]} models in ONNX Runtime ($threads thread(s)); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    pairs=()
    for n in "${names[@]}"; do
        if [ -f "$corpus/$n.raw.onnx" ]; then pairs+=("$n=$corpus/$n.raw.onnx"); else pairs+=("$n=$work/models/$n.raw.onnx"); fi
    done
    mkdir -p "$work/traces"
    nice_cmd=()
    if [ -n "$nice_level" ]; then
        if nice -n "$nice_level" true 2>/dev/null && [ "$(nice -n "$nice_level" nice)" = "$nice_level" ]; then
            nice_cmd=(nice -n "$nice_level")
            echo "validate_roofline: ONNX Runtime runs at nice $nice_level"
        else
            echo "validate_roofline: cannot run at nice $nice_level (no privilege): normal priority"
        fi
    fi
    "${nice_cmd[@]}" node "$here/ort_trace.mjs" --ort-dir "$ortdir" --out "$work/traces" --threads "$threads" \
        --warmup "$warmup" --runs "$runs" "${pairs[@]}" >"$work/traces.jsonl"
    python3 - "$work" "$foldline" "$corpus" "$threads" <<'PY'
import json, sys
work, foldline, corpus, threads = sys.argv[1:5]
rows = [json.loads(l) for l in open(f"{work}/traces.jsonl")]
plan = {"foldline": foldline, "base": f"{work}/profiles/host.yaml", "work": work,
        "threads": int(threads),
        "models": [{"name": r["name"], "model": f"{corpus}/{r['name']}.raw.stripped.onnx",
                    "trace": r["trace"], "median_ms": r["median_ms"], "p10_ms": r["p10_ms"],
                    "p90_ms": r["p90_ms"],
                    "cpu_median_ms": r.get("cpu_median_ms", 0)} for r in rows]}
json.dump(plan, open(f"{work}/cv-plan.json", "w"))
PY
    node "$here/validate_fit.mjs" --plan "$work/cv-plan.json"
    echo "validate_roofline: load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    exit 0
fi

levels_json=$(echo "$levels" | sed 's/[^,]*/"&"/g')
cat >"$work/plan.json" <<EOF
{"foldline": "$foldline", "profile_dir": "$work/profiles", "profile": "$pname",
 "ort_dir": "$ortdir", "threads": $threads, "warmup": $warmup, "runs": $runs,
 "budget_s": $budget, "levels": [$levels_json], "json_out": "$json_out",
 "models": [$entries]}
EOF
echo "validate_roofline: measuring ${#names[@]} models (ORT levels $levels, then ORT's extended graphs)"
node "$here/validate_roofline.mjs" --plan "$work/plan.json"
