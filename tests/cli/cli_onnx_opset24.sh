#!/usr/bin/env bash
# The ai.onnx operators opsets 23 and 24 add (Attention, RotaryEmbedding,
# RMSNormalization, Swish, TensorScatter) and later or rarer ones (DeformConv,
# GlobalLpPool, MaxRoiPool, CumProd, the sequence and optional ops, and
# com.microsoft ops ORT's CPU provider runs, ms_*): for every model of
# tests/data/opset24/ (tests/tools/export_opset24_ops.py; one node each,
# fixed input shapes, outputs declared without shapes), foldline infers every
# output with a known shape and no unknown op, and ONNX Runtime, running the
# model on the CPU, produces outputs of exactly those shapes. onnxruntime-node
# is looked for in $FL_ORT_DIR, else in the build's ort/ (as
# cli_onnx_writeback); without it or node the ORT part is skipped (exit 77).
# Usage: cli_onnx_opset24.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$bin")" && pwd)
py=/usr/bin/python3
. "$here/checks.bash"

ort="${FL_ORT_DIR:-$build/ort}"
have_ort=0
why=$(ort_missing "$ort")
if [ -n "$why" ]; then
  skip_part "$why: shapes not compared with ONNX Runtime"
else
  have_ort=1
fi

n=0
for m in "$data"/opset24/*.onnx; do
  name=$(basename "$m" .onnx)
  n=$((n + 1))
  if ! "$bin" analyze "$m" --per-node --json >"$tmp/r.json" 2>"$tmp/err"; then
    echo "FAIL $name: foldline: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  # "inputs-json outputs-json": the graph inputs for ORT and foldline's output dims by name.
  read -r ins outs < <("$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
ins = [{"name": i["name"], "dtype": i["dtype"] if i["dtype"] in ("int32", "int64") else "float",
        "dims": i["dims"]}
       for i in r["inputs"]]
assert not r["unknown_ops"], r["unknown_ops"]
ops = [x for x in r["nodes"] if x["op"] not in ("Placeholder",)]
node = ops[-1]
names = r["outputs"]
outs = {names[k]: o["dims"] for k, o in enumerate(node["outputs"]) if k < len(names)}
if len(ops) > 1:  # several nodes, each named after its one output (unnamed in the file)
    by_name = {x["name"]: x for x in ops}
    outs = {nm: by_name[nm]["outputs"][0]["dims"] for nm in names}
print(json.dumps(ins, separators=(",", ":")), json.dumps(outs, separators=(",", ":"), sort_keys=True))' "$tmp/r.json")
  if [ -z "${outs:-}" ] || ! "$py" -c '
import json, sys
o = json.loads(sys.argv[1])
sys.exit(0 if o and all(all(isinstance(d, int) for d in v) for v in o.values()) else 1)' "$outs"; then
    echo "FAIL $name: foldline left an output shape unknown or an op unknown: ${outs:-none}"
    fails=$((fails + 1))
    continue
  fi
  if [ "$have_ort" = 1 ]; then
    got=$(node "$here/ort_dims.mjs" "$ort" "$m" "$ins")
    same=$("$py" -c '
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("yes" if a == b else "no")' "$got" "$outs")
    if [ "$same" = yes ]; then
      echo "ok $name: $outs (ONNX Runtime the same)"
      pass=$((pass + 1))
    else
      echo "FAIL $name: foldline $outs, ONNX Runtime $got"
      fails=$((fails + 1))
    fi
  else
    echo "ok $name: $outs"
    pass=$((pass + 1))
  fi
done
[ "$n" -ge 8 ] || { echo "FAIL only $n models in $data/opset24"; fails=$((fails + 1)); }
finish
