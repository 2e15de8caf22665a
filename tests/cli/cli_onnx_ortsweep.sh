#!/usr/bin/env bash
# ONNX operators beside ONNX Runtime, one node a model: the ai.onnx operators
# opsets 18 to 24 added or changed, and ONNX Runtime's com.microsoft operators,
# each input and attribute variant a model (tests/data/ortsweep, written by
# tests/tools/export_ort_sweep.py; its cases.json lists the feeds and outputs).
# foldline must infer every output of the node fully (dims only the run-time
# data decide stay symbolic) with the schema's dtype; ONNX Runtime (CPU),
# running every model once in one process (ortsweep_run.mjs), must produce
# outputs of exactly those dims and dtypes. Without onnxruntime-node or node
# (looked for as cli_onnx_opset24 does) the ONNX Runtime part is skipped
# (exit 77). Usage: cli_onnx_ortsweep.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$bin")" && pwd)
. "$here/checks.bash"

ort="${FL_ORT_DIR:-$build/ort}"
why=$(ort_missing "$ort")
results=()
if [ -n "$why" ]; then
  skip_part "$why: shapes and dtypes not compared with ONNX Runtime"
elif ! node "$here/ortsweep_run.mjs" "$ort" "$data/ortsweep" >"$tmp/ort.json" 2>"$tmp/ort.err"; then
  echo "FAIL ortsweep_run.mjs: $(head -c 300 "$tmp/ort.err")"
  fails=$((fails + 1))
else
  results=("$tmp/ort.json")
fi
if /usr/bin/python3 "$here/ortsweep_check.py" "$bin" "$data/ortsweep" "${results[@]}"; then
  pass=$((pass + 1))
else
  fails=$((fails + 1))
fi
finish
