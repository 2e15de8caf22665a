#!/usr/bin/env bash
# `foldline optimize x.onnx -o y.onnx` writes the optimised ONNX graph, and
# ONNX Runtime loads and runs it with the original's outputs. For corpus
# models with their weights (mobilenet_v3_small and the tiny transformer
# encoder as exported (its attention as com.microsoft FusedMatMul with
# transBatch/alpha, SkipLayerNormalization, Reshape-wrapped Gemms); resnet18, efficientnet_b0, mobilenet_v2,
# shufflenet_v2_x1_0, googlenet, squeezenet1_0 and convnext_tiny (Gelu and
# LayerNormalization fused) filled with fl_onnxfill's
# seeded values):
#  - the written model re-analysed as given (--passes none) has the
#    operator count, FLOPs and MACs the optimize run reported after its
#    passes, and no BatchNormalization;
#  - ONNX Runtime (onnxruntime-node, graph optimisations disabled so each
#    model runs as written: com.microsoft FusedConv/FusedGemm/QuickGelu
#    included) gives the same outputs on the same seeded inputs, within
#    1e-3 of the output's largest magnitude (folding a batch norm into the
#    weights reorders float operations).
# tests/data/tiny_cnn.onnx (Conv+BatchNormalization+Relu, Conv+Relu, with
# its (zero) weights) goes through the same checks without the corpus.
# Also without ONNX Runtime: a weight-stripped model is written stripped,
# and a model whose folded weights exceed the limits is refused naming the
# constant and the limits.
# onnxruntime-node is looked for in $FL_ORT_DIR, else in the build's ort/
# (tests/bench/validate_roofline.sh installs it there: npm ci
# --ignore-scripts). Parts skip (exit 77) when node, onnxruntime-node,
# fl_onnxfill or the corpus are absent.
# Usage: cli_onnx_writeback.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$bin")" && pwd)
corpus="$here/../../../shared/corpus/onnx"
py=/usr/bin/python3
. "$here/checks.bash"
big=(--max-folded-bytes 1000000000 --max-value-elements 100000000)

# "operators FLOPs MACs BatchNormalizations inputs-json" of a report.
facts() { # which(totals|after)
  "$py" -c '
import json, sys
r = json.load(sys.stdin)
t = r[sys.argv[1]]
v = lambda q: q.get("value", q.get("formula"))
nodes = r["nodes_after"] if sys.argv[1] == "after" else r["nodes"]
bn = sum(1 for n in nodes if n["op"] == "BatchNormalization")
ins = [{"name": i["name"], "dtype": i["dtype"],
        "shape": [int(d) if d.isdigit() else 2 for d in i["shape"].strip("[]").split(",")]} for i in r["inputs"]]
print(t["nodes"], v(t["flops"]), v(t["macs"]), bn, json.dumps(ins, separators=(",", ":")))' "$1"
}

ort="${FL_ORT_DIR:-$build/ort}"
have_ort=0
why=$(ort_missing "$ort")
if [ -n "$why" ]; then
  skip_part "$why: outputs not compared in ONNX Runtime"
else
  have_ort=1
fi

models=("$data/tiny_cnn.onnx")
# A weight in an external file and a graph output computed from constants
# only (tests/cli/mk_onnx_ext.py, needs no corpus): written with the weight
# inline (the written model is loaded from another directory, without
# ext.bin) and the folded output still produced under its name k.
mkdir -p "$tmp/src"
if "$py" "$here/mk_onnx_ext.py" "$tmp/src"; then
  models+=("$tmp/src/ext.onnx")
else
  echo "FAIL ext: mk_onnx_ext.py failed"
  fails=$((fails + 1))
fi
have_corpus=1
[ -d "$corpus" ] || { have_corpus=0; skip_part "$corpus is absent: only tests/data/tiny_cnn.onnx is written"; }
for m in mobilenet_v3_small tiny_transformer_encoder; do
  [ -f "$corpus/$m.raw.onnx" ] && models+=("$corpus/$m.raw.onnx")
done
fill="$build/tests/fl_onnxfill"
if [ "$have_corpus" = 0 ]; then
  :
elif [ -x "$fill" ]; then
  for m in resnet18 efficientnet_b0 mobilenet_v2 shufflenet_v2_x1_0 googlenet squeezenet1_0 convnext_tiny; do
    if "$fill" "$corpus/$m.raw.stripped.onnx" "$tmp/$m.onnx" >/dev/null 2>&1; then
      models+=("$tmp/$m.onnx")
    else
      echo "FAIL $m: fl_onnxfill failed"
      fails=$((fails + 1))
    fi
  done
else
  skip_part "no $fill: only the corpus models with weights are written"
fi

for m in "${models[@]}"; do
  name=$(basename "$m" .onnx)
  out="$tmp/$name.opt.onnx"
  if ! "$bin" optimize "$m" -o "$out" "${big[@]}" --per-node --json >"$tmp/opt.json" 2>"$tmp/err"; then
    echo "FAIL $name: optimize failed: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  read -r o1 f1 m1 _ _ < <(facts after <"$tmp/opt.json")
  "$bin" analyze "$out" --passes none --per-node --json >"$tmp/re.json" 2>"$tmp/err"
  read -r o2 f2 m2 bn2 ins < <(facts totals <"$tmp/re.json")
  if [ "$o1" = "$o2" ] && [ "$f1" = "$f2" ] && [ "$m1" = "$m2" ] && [ "$bn2" = 0 ]; then
    echo "ok $name: written graph re-analysed: $o2 operators, FLOPs $f2, MACs $m2"
    pass=$((pass + 1))
  else
    echo "FAIL $name: optimize after: $o1 ops, FLOPs $f1, MACs $m1; written graph: $o2 ops, FLOPs $f2, MACs $m2, BatchNormalization $bn2"
    fails=$((fails + 1))
  fi
  if [ "$have_ort" = 1 ]; then
    if node "$here/ort_compare.mjs" "$ort" "$m" "$out" "$ins" 1e-3 >"$tmp/ort.out" 2>&1; then
      echo "ok $name: ONNX Runtime outputs equal: $(tr '\n' ' ' <"$tmp/ort.out")"
      pass=$((pass + 1))
    else
      echo "FAIL $name: ONNX Runtime: $(head -c 400 "$tmp/ort.out")"
      fails=$((fails + 1))
    fi
  fi
done

# The external weight was written inline: the written model names no file.
if [ -f "$tmp/ext.opt.onnx" ] && ! grep -q "ext.bin" "$tmp/ext.opt.onnx"; then
  echo "ok ext: written model holds its weight inline (no reference to ext.bin)"
  pass=$((pass + 1))
else
  echo "FAIL ext: $tmp/ext.opt.onnx missing or still refers to ext.bin"
  fails=$((fails + 1))
fi

# A stripped model is written stripped (its folded weights have no content).
[ "$have_corpus" = 1 ] && check stripped_written 0 "wrote" -- "$bin" optimize "$corpus/resnet18.raw.stripped.onnx" -o "$tmp/s.onnx"
[ "$have_corpus" = 1 ] && check stripped_reanalysed 0 "40 operators" -- "$bin" analyze "$tmp/s.onnx" --passes none
# Weights over the limits: refused, naming the constant and the limits.
if [ -f "$tmp/resnet18.onnx" ]; then
  check over_limits 1 "raise those limits" -- "$bin" optimize "$tmp/resnet18.onnx" -o "$tmp/x.onnx"
  check over_limits_named 1 "folded_weights' (Const)" -- "$bin" optimize "$tmp/resnet18.onnx" -o "$tmp/x.onnx"
fi
finish
