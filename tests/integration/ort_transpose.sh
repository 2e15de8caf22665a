#!/usr/bin/env bash
# The transpose pass (src/passes/transpose/, ONNX Runtime's transpose
# optimizer) against ONNX Runtime 1.30's own graphs.
#  1. The small models of test_onnx_transpose (`--write DIR`: an NHWC
#     wrapper around a Relu, a layer norm's mean and difference behind a
#     Transpose, a bias Add behind one, Concat and Softmax, a Slice, a
#     Squeeze between Transposes), weights filled by fl_onnxfill: `foldline optimize
#     --passes transpose` has the operators of ORT's 'basic' graph (level 1,
#     where the transpose optimizer runs) one for one, and the default
#     passes those of its 'extended' graph, with the same FLOPs, MACs and
#     bytes; and foldline's graph computes what the model computes (ONNX
#     Runtime runs both, optimisations disabled, on the same seeded inputs).
#  2. The transformer exports of tests/data (bert_tiny, bert_tiny_attn,
#     bert_tiny_mha: every operator count and the totals of ORT's
#     'extended' graph; swin_t: its layer norms and Dropouts).
#  3. The corpus's twelve raw float exports (../shared/corpus/onnx, with
#     ORT's 'extended' graphs of them in ort-extended/): foldline's
#     optimised graph has every operator count and the FLOP, MAC and byte
#     totals of ORT's (convnext_tiny and vit_b_16 need the transpose pass:
#     without it their layer norms fuse where ORT's do not). Skipped
#     visibly when the corpus is absent.
# onnxruntime-node is looked for in $FL_ORT_DIR, else in the build's ort/.
# Skipped (exit 77) without node, onnxruntime-node or fl_onnxfill.
# Usage: ort_transpose.sh FOLDLINE_BINARY FL_ONNXFILL TEST_ONNX_TRANSPOSE CORPUS_DIR
set -u
bin="$1"
fill="$2"
writer="$3"
corpus="$4/onnx"
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$bin")" && pwd)
. "$here/../cli/checks.bash"
py=python3

ort="${FL_ORT_DIR:-$build/ort}"
why=$(ort_missing "$ort")
[ -z "$why" ] || skip_all "$why: graphs not compared with ONNX Runtime's"
[ -x "$fill" ] || skip_all "no fl_onnxfill at $fill"

compare() { # name ort.onnx foldline.onnx what [ort_census.py options]
  if "$bin" analyze "$2" --passes none --json >"$tmp/a.json" 2>"$tmp/err" &&
    "$bin" analyze "$3" --passes none --json >"$tmp/b.json" 2>>"$tmp/err"; then
    c=$("$py" "$here/../tools/ort_census.py" "$tmp/a.json" "$tmp/b.json" "${@:5}")
  else
    c="ERROR $(head -c 300 "$tmp/err")"
  fi
  if [ "${c%% *}" = same ]; then
    echo "ok $1: operators and totals as in ONNX Runtime's $4 graph: ${c#same }"
    pass=$((pass + 1))
  else
    echo "FAIL $1: against ONNX Runtime's $4 graph: $c"
    fails=$((fails + 1))
  fi
}

mkdir -p "$tmp/small"
if ! "$writer" --write "$tmp/small" >"$tmp/err" 2>&1; then
  echo "FAIL small models: $writer --write: $(head -c 300 "$tmp/err")"
  fails=$((fails + 1))
fi
for f in "$tmp"/small/*.onnx; do
  [ -f "$f" ] || continue
  name=$(basename "$f" .transpose.onnx)
  if ! "$fill" "$f" "$tmp/$name.onnx" >/dev/null 2>"$tmp/err"; then
    echo "FAIL $name: fl_onnxfill: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  for lv in basic extended; do
    passes=default
    [ $lv = basic ] && passes=transpose
    if ! node "$here/../tools/ort_optimize.mjs" "$ort" "$tmp/$name.onnx" $lv "$tmp/$name.$lv.onnx" 2>"$tmp/err" ||
      ! "$bin" optimize "$tmp/$name.onnx" -o "$tmp/$name.$passes.onnx" --passes $passes >/dev/null 2>>"$tmp/err"; then
      echo "FAIL $name ($lv): $(head -c 300 "$tmp/err")"
      fails=$((fails + 1))
      continue
    fi
    compare "$name (--passes $passes)" "$tmp/$name.$lv.onnx" "$tmp/$name.$passes.onnx" "'$lv'"
  done
  ins=$("$bin" analyze "$tmp/$name.onnx" --passes none --json | "$py" -c '
import json, sys
r = json.load(sys.stdin)
print(json.dumps([{"name": i["name"], "dtype": i["dtype"],
                   "shape": [int(d) for d in i["shape"].strip("[]").split(",")]} for i in r["inputs"]]))')
  if node "$here/../cli/ort_compare.mjs" "$ort" "$tmp/$name.onnx" "$tmp/$name.transpose.onnx" "$ins" 1e-5 \
    >"$tmp/ort.out" 2>&1; then
    echo "ok $name: foldline's graph computes the model's outputs: $(tr '\n' ' ' <"$tmp/ort.out")"
    pass=$((pass + 1))
  else
    echo "FAIL $name: foldline's graph against the model in ONNX Runtime: $(head -c 400 "$tmp/ort.out")"
    fails=$((fails + 1))
  fi
done

# 2. The transformer exports of tests/data (BERT-style encoders at opset 13
# with symbolic batch and sequence: torch's layer norms, exact Gelu,
# attention with the head split by a Shape chain; the same with
# nn.MultiheadAttention and torch's attention), filled by fl_onnxfill:
# foldline's graph has every operator count and the totals of ORT's.
# swin_t (symbolic batch): its layer norms and Dropouts only (28
# LayerNormalization, one SimplifiedLayerNormalization and no Dropout in
# both; README says why the rest of its census differs).
data="$here/../data"
for m in bert_tiny bert_tiny_attn bert_tiny_mha swin_t; do
  src="$data/$m.stripped.onnx"
  [ -f "$src" ] || src="$src.gz"
  if ! { case "$src" in *.gz) gunzip -c "$src" ;; *) cat "$src" ;; esac; } >"$tmp/$m.stripped.onnx" 2>"$tmp/err" ||
    ! "$fill" "$tmp/$m.stripped.onnx" "$tmp/$m.onnx" >/dev/null 2>>"$tmp/err" ||
    ! node "$here/../tools/ort_optimize.mjs" "$ort" "$tmp/$m.onnx" extended "$tmp/$m.ext.onnx" 2>>"$tmp/err" ||
    ! "$bin" optimize "$tmp/$m.onnx" -o "$tmp/$m.opt.onnx" >/dev/null 2>>"$tmp/err"; then
    echo "FAIL $m: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  if [ $m = swin_t ]; then
    compare "$m (layer norms, Dropout)" "$tmp/$m.ext.onnx" "$tmp/$m.opt.onnx" "'extended'" \
      --ops LayerNormalization,SimplifiedLayerNormalization,SkipLayerNormalization,Dropout --totals ""
  else
    compare "$m" "$tmp/$m.ext.onnx" "$tmp/$m.opt.onnx" "'extended'"
  fi
done

# 3. The corpus.
models="alexnet convnext_tiny efficientnet_b0 googlenet mobilenet_v2 mobilenet_v3_small resnet18
shufflenet_v2_x1_0 squeezenet1_0 tiny_transformer_encoder vgg16 vit_b_16"
if [ ! -d "$corpus/ort-extended" ]; then
  skip_part "no corpus at $corpus (with ort-extended/): the float exports not compared"
else
  for m in $models; do
    raw="$corpus/$m.raw.stripped.onnx"
    ext="$corpus/ort-extended/$m.raw.ort-extended.stripped.onnx"
    if [ ! -f "$raw" ] || [ ! -f "$ext" ]; then
      skip_part "$m: not in the corpus"
      continue
    fi
    if ! "$bin" optimize "$raw" -o "$tmp/$m.opt.onnx" >/dev/null 2>"$tmp/err"; then
      echo "FAIL $m: optimize: $(head -c 300 "$tmp/err")"
      fails=$((fails + 1))
      continue
    fi
    compare "$m" "$ext" "$tmp/$m.opt.onnx" "'extended'"
  done
fi
finish
