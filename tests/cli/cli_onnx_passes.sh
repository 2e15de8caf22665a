#!/usr/bin/env bash
# Grappler's passes on ONNX CNNs (and ViT) against ONNX Runtime's 'extended'
# level. For every CNN of the shared corpus, and vit_b_16, (onnx/NAME.raw.stripped.onnx: the exports
# with their BatchNormalization nodes, Constant nodes and Shape chains) and
# its ORT-optimised twin (onnx/ort-extended/): after foldline's default passes
#  - no BatchNormalization is left (in these exports every one follows a
#    Conv; the raw graph must have had some, or none were there to fold),
#  - the operator count is within 1.15x of ORT's graph's,
#  - FLOPs after the passes are within 1% of foldline's FLOPs on ORT's graph
#    (analysed as given, --passes none), and MACs are equal to the ORT
#    graph's and to the raw graph's before the passes (a rewrite never
#    changes the contractions).
# The tiny transformer encoder too (same checks, BatchNormalization-free):
# its attention scores become com.microsoft FusedMatMul (Transpose and the
# 1/sqrt(d) Div folded), its residual Add + LayerNormalization pairs
# SkipLayerNormalization, its 3-D MatMul + Add Reshape-wrapped Gemms and
# its q/k/v Slices one Split, as ONNX Runtime's 'extended' level writes
# them; the ledger must name those rules.
# Exit 77 (skipped) when the corpus is absent.
# Usage: cli_onnx_passes.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
py=/usr/bin/python3
. "$here/checks.bash"
[ -d "$corpus/onnx/ort-extended" ] || skip_all "cli_onnx_passes: $corpus/onnx/ort-extended is absent"

# "operators FLOPs MACs BNs" of one analysis ($1: before|after).
counts() { # which model [options...]
  local which="$1"
  shift
  "$bin" analyze "$@" --per-node --json 2>"$tmp/err" | "$py" -c '
import json, sys
which = sys.argv[1]
r = json.load(sys.stdin)
t = r["after"] if which == "after" else r["totals"]
nodes = r["nodes_after"] if which == "after" else r["nodes"]
v = lambda q: q.get("value", q.get("formula"))
bn = sum(1 for n in nodes if n["op"] == "BatchNormalization")
print(t["nodes"] if "nodes" in t else r["after"]["nodes"], v(t["flops"]), v(t["macs"]), bn)' "$which"
}

cnns="alexnet convnext_tiny efficientnet_b0 googlenet mobilenet_v2 mobilenet_v3_small resnet18 shufflenet_v2_x1_0 squeezenet1_0 vgg16 vit_b_16 tiny_transformer_encoder"
info=""
n=0
for name in $cnns $info; do
  raw="$corpus/onnx/$name.raw.stripped.onnx"
  ort="$corpus/onnx/ort-extended/$name.raw.ort-extended.stripped.onnx"
  if [ ! -f "$raw" ] || [ ! -f "$ort" ]; then
    echo "FAIL $name: $raw or $ort is missing"
    fails=$((fails + 1))
    continue
  fi
  read -r ops0 _ m0 bn0 < <(counts before "$raw" --passes none)
  read -r ops1 f1 m1 bn1 < <(counts after "$raw")
  read -r ops2 f2 m2 _ < <(counts before "$ort" --passes none)
  line="$name: operators $ops0 -> $ops1 (ORT $ops2), FLOPs $f1 (ORT graph $f2), MACs $m1 (ORT graph $m2), BatchNormalization $bn0 -> $bn1"
  case " $info " in
  *" $name "*)
    echo "info $line"
    continue
    ;;
  esac
  if "$py" -c '
import sys
ops1, ops2, f1, f2, m1, m2, bn1, m0 = sys.argv[1:]
ok = int(bn1) == 0 and int(ops1) <= 1.15 * int(ops2)
ok = ok and abs(int(f1) - int(f2)) <= 0.01 * int(f2) and m1 == m2 and m1 == m0
sys.exit(0 if ok else 1)' "$ops1" "$ops2" "$f1" "$f2" "$m1" "$m2" "$bn1" "$m0"; then
    echo "ok $line"
    pass=$((pass + 1))
  else
    echo "FAIL $line"
    fails=$((fails + 1))
  fi
  n=$((n + 1))
done
[ "$n" -ge 12 ] || { echo "FAIL: only $n models compared"; fails=$((fails + 1)); }

# The transformer's rewrites are named after ONNX Runtime's transformers:
# 4 layers, each with 2 attention MatMuls (one scaled), 2 skip connections,
# and the q/k/v Slices of the packed in-projection (one Split).
raw="$corpus/onnx/tiny_transformer_encoder.raw.stripped.onnx"
check_rules() {
  "$bin" analyze "$raw" --per-node --json 2>"$tmp/err" | "$py" -c '
import collections, json, sys
r = json.load(sys.stdin)
c = collections.Counter(e["rule"] for p in r["passes"] for e in p["rules"])
ops = collections.Counter(n["op"] for n in r["nodes_after"])
want = {"matmul_transpose_fusion": 8, "matmul_scale_fusion": 4, "skip_layer_norm_fusion": 8,
        "gather_slice_to_split_fusion": 4}
got = {k: c[k] for k in want}
fused = {k: ops[k] for k in ("FusedMatMul", "SkipLayerNormalization", "Split", "Slice")}
print("rules", got, "operators", fused)
ok = got == want and fused == {"FusedMatMul": 8, "SkipLayerNormalization": 8, "Split": 4, "Slice": 0}
sys.exit(0 if ok else 1)'
}
if out=$(check_rules); then
  echo "ok tiny_transformer_encoder: $out"
  pass=$((pass + 1))
else
  echo "FAIL tiny_transformer_encoder: $out"
  fails=$((fails + 1))
fi
finish
