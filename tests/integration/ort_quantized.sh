#!/usr/bin/env bash
# ONNX Runtime runs the integer graphs foldline writes for quantized models
# and computes what it computes itself. For each torch-quantized QDQ file of
# tests/data/quantized (resnet18, mobilenet_v2, googlenet; weight-stripped):
#  1. fl_onnxfill --ints refills it (int8 weights over their range, int32
#     biases, small per-channel scales: tests/tools/onnxfill.c);
#  2. `foldline optimize` (default passes, the qdq pass among them) writes
#     the QOperator graph: QLinearConv, QGemm, QLinearAdd, ... (the ledger
#     must name qdq rewrites; groups whose refilled scales fail ORT's
#     bias-scale check stay float on both sides): its operators are those
#     of ORT's own 'extended' graph of the file, one for one (integer ones,
#     float groups, DequantizeLinear nodes), with the same FLOPs, MACs,
#     integer ops and bytes;
#  3. ONNX Runtime (onnxruntime-node, CPU, one thread) runs the filled QDQ
#     file at its 'extended' level (its own QDQ transformer fuses the same
#     groups) and foldline's graph as written (optimisations disabled), on
#     the same seeded input at batch 2: every output value must be equal,
#     exactly (rtol 0), and not all one value;
#  4. control: the filled QDQ file run as written (DequantizeLinear -> float
#     Conv -> QuantizeLinear, optimisations disabled) must differ from
#     foldline's graph, so step 3's equality says the integer operators are
#     the ones ORT chooses, not merely that both graphs compute alike.
# The same for resnet18.nomp and googlenet.nomp, variants without the
# QuantizeLinear -> DequantizeLinear pair in front of each MaxPool (1 and 4
# pairs; tests/tools/drop_maxpool_qdq.py): qdq_propagation must put each
# back (once per pair), so that the Conv before it still becomes a
# QLinearConv as in ONNX Runtime (without propagation resnet18's variant
# keeps 9 QLinearConv of ORT's 10, googlenet's 47 of 49 and 7 QLinearConcat
# of 9).
# Then the small models of the qdq rules without a torch export
# (`test_onnx_qdq --write DIR`: MatMul and Gemm without Q, Where, ArgMax,
# Split, a Relu and a Clip removed before a QuantizeLinear in a group that
# stays float) and of QDQ propagation (`test_onnx_qdq_prop --write DIR`: a
# QuantizeLinear moved backward across a Transpose or MaxPool to a Conv or a
# graph input, a DequantizeLinear forward across a Reshape to a Conv) and
# of MatMulNBits (`test_onnx_qdq_nbits --write DIR`: int4/uint4 blockwise
# weights with and without zero points, re-laid by foldline),
# refilled the same way: optimize must apply the rule the file is named
# after once, foldline's graph has the operators of ORT's 'extended' graph
# of the model (the whole census), and its outputs equal ORT's 'extended'
# run exactly (inputs uint8, bool and float at random, seeded).
# onnxruntime-node is looked for in $FL_ORT_DIR, else in the build's ort/
# (`npm ci --ignore-scripts` of tests/bench/ort/package.json there; .ci/run
# installs it). Skipped (exit 77) without node, onnxruntime-node or
# fl_onnxfill.
# Usage: ort_quantized.sh FOLDLINE_BINARY TEST_DATA_DIR FL_ONNXFILL TEST_ONNX_QDQ
#        TEST_ONNX_QDQ_PROP TEST_ONNX_QDQ_NBITS
set -u
bin="$1"
data="$2"
fill="$3"
qdq_test="$4"
prop_test="$5"
nbits_test="$6"
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$bin")" && pwd)
. "$here/../cli/checks.bash"
py=python3

ort="${FL_ORT_DIR:-$build/ort}"
why=$(ort_missing "$ort")
[ -z "$why" ] || skip_all "$why: quantized graphs not run in ONNX Runtime"
[ -x "$fill" ] || skip_all "no fl_onnxfill at $fill"
big=(--max-folded-bytes 1000000000 --max-value-elements 100000000)

# "qdq-rules-applied inputs-json" of an optimize report (batch bound to 2).
facts() {
  "$py" -c '
import json, sys
r = json.load(sys.stdin)
n = sum(1 for p in r["passes"] if p["pass"] == "qdq"
        for e in p["rules"] if e["rule"] != "qdq_left")
ins = [{"name": i["name"], "dtype": i["dtype"],
        "shape": [int(d) if d.isdigit() else 2 for d in i["shape"].strip("[]").split(",")]} for i in r["inputs"]]
print(n, json.dumps(ins, separators=(",", ":")))'
}

for m in resnet18 mobilenet_v2 googlenet resnet18.nomp googlenet.nomp; do
  base=${m%.nomp}
  src="$data/quantized/$base.qdq.stripped.onnx.gz"
  if ! gunzip -c "$src" >"$tmp/$m.stripped.onnx" 2>"$tmp/err"; then
    echo "FAIL $m: cannot read $src"
    fails=$((fails + 1))
    continue
  fi
  # NAME.nomp: the pairs in front of the MaxPools taken out
  # (tests/tools/drop_maxpool_qdq.py), which QDQ propagation puts back.
  if [ "$m" != "$base" ] &&
    ! n_pairs=$("$py" "$here/../tools/drop_maxpool_qdq.py" "$tmp/$m.stripped.onnx" "$tmp/$m.v.onnx" 2>"$tmp/err"); then
    echo "FAIL $m: drop_maxpool_qdq.py: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  [ "$m" != "$base" ] && mv "$tmp/$m.v.onnx" "$tmp/$m.stripped.onnx"
  if ! "$fill" "$tmp/$m.stripped.onnx" "$tmp/$m.onnx" --ints >"$tmp/fill.out" 2>&1; then
    echo "FAIL $m: fl_onnxfill --ints: $(head -c 300 "$tmp/fill.out")"
    fails=$((fails + 1))
    continue
  fi
  if ! "$bin" optimize "$tmp/$m.onnx" -o "$tmp/$m.opt.onnx" "${big[@]}" --json >"$tmp/opt.json" 2>"$tmp/err"; then
    echo "FAIL $m: optimize failed: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  read -r rules ins < <(facts <"$tmp/opt.json")
  if [ "${rules:-0}" -gt 0 ]; then
    echo "ok $m: optimize applied $rules qdq rewrites"
    pass=$((pass + 1))
  else
    echo "FAIL $m: optimize applied no qdq rule"
    fails=$((fails + 1))
  fi
  if [ "$m" != "$base" ]; then # one pair put back per pair taken out
    prop=$(grep -o '"rule": *"qdq_propagation"' "$tmp/opt.json" | wc -l)
    if [ "${n_pairs:-0}" -gt 0 ] && [ "$prop" = "$n_pairs" ]; then
      echo "ok $m: $n_pairs pairs before MaxPools taken out, $prop put back by qdq_propagation"
      pass=$((pass + 1))
    else
      echo "FAIL $m: $n_pairs pairs before MaxPools taken out, qdq_propagation applied $prop times"
      fails=$((fails + 1))
    fi
  fi
  # The same graph: ORT's 'extended' graph of the filled file and foldline's
  # have the same operators, one for one (the integer ones, the groups left
  # float, the DequantizeLinear nodes ORT neither folds nor merges), and the
  # same totals (FLOPs, MACs, integer ops, bytes).
  if node "$here/../tools/ort_optimize.mjs" "$ort" "$tmp/$m.onnx" extended "$tmp/$m.ort.onnx" 2>"$tmp/err" &&
    "$bin" analyze "$tmp/$m.ort.onnx" --passes none --json >"$tmp/a.json" 2>>"$tmp/err" &&
    "$bin" analyze "$tmp/$m.opt.onnx" --passes none --json >"$tmp/b.json" 2>>"$tmp/err"; then
    census=$("$py" "$here/../tools/ort_census.py" "$tmp/a.json" "$tmp/b.json" \
      --totals flops,macs,int_ops,bytes --integer)
  else
    census="ERROR $(head -c 300 "$tmp/err")"
  fi
  if [ "${census%% *}" = same ]; then
    echo "ok $m: operators and totals as in ONNX Runtime's 'extended' graph: ${census#same }"
    pass=$((pass + 1))
  else
    echo "FAIL $m: operators: $census"
    fails=$((fails + 1))
  fi
  # 3: ORT's own fusion of the QDQ file against foldline's graph, exactly.
  if node "$here/../cli/ort_compare.mjs" "$ort" "$tmp/$m.onnx" "$tmp/$m.opt.onnx" "$ins" 0 extended \
    >"$tmp/ort.out" 2>&1 && ! grep -q " 1 distinct" "$tmp/ort.out"; then
    echo "ok $m: equal to ONNX Runtime's 'extended' run of the QDQ file: $(tr '\n' ' ' <"$tmp/ort.out")"
    pass=$((pass + 1))
  else
    echo "FAIL $m: against ONNX Runtime's 'extended' run (values must be equal and not all one value): $(head -c 400 "$tmp/ort.out")"
    fails=$((fails + 1))
  fi
  # 4: the float path differs (exit 1: a mismatch, not an error).
  node "$here/../cli/ort_compare.mjs" "$ort" "$tmp/$m.onnx" "$tmp/$m.opt.onnx" "$ins" 0 disabled \
    >"$tmp/ort.out" 2>&1
  rc=$?
  if [ "$rc" = 1 ]; then
    echo "ok $m: control: the QDQ file run as written (float operators) differs: $(tr '\n' ' ' <"$tmp/ort.out")"
    pass=$((pass + 1))
  else
    echo "FAIL $m: control: the QDQ file run as written gave exit $rc (want 1, a mismatch): $(head -c 400 "$tmp/ort.out")"
    fails=$((fails + 1))
  fi
done

# The rule models: the census of every operator, then the outputs.
mkdir -p "$tmp/rules"
for w in "$qdq_test" "$prop_test" "$nbits_test"; do
  if ! "$w" --write "$tmp/rules" >"$tmp/err" 2>&1; then
    echo "FAIL rules: $w --write: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
  fi
done
for f in "$tmp"/rules/*.onnx; do
  [ -f "$f" ] || continue
  base=$(basename "$f" .onnx)
  name=${base%%.*}
  rule=${base#*.}
  if ! "$fill" "$f" "$tmp/$name.onnx" --ints >/dev/null 2>"$tmp/err" ||
    ! "$bin" optimize "$tmp/$name.onnx" -o "$tmp/$name.opt.onnx" --json >"$tmp/opt.json" 2>>"$tmp/err"; then
    echo "FAIL $name: fill or optimize: $(head -c 300 "$tmp/err")"
    fails=$((fails + 1))
    continue
  fi
  read -r _ ins < <(facts <"$tmp/opt.json")
  fired=$("$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(1 for p in r["passes"] if p["pass"] == "qdq" for e in p["rules"] if e["rule"] == sys.argv[2]))' "$tmp/opt.json" "$rule")
  if node "$here/../tools/ort_optimize.mjs" "$ort" "$tmp/$name.onnx" extended "$tmp/$name.ort.onnx" 2>"$tmp/err" &&
    "$bin" analyze "$tmp/$name.ort.onnx" --passes none --json >"$tmp/a.json" 2>>"$tmp/err" &&
    "$bin" analyze "$tmp/$name.opt.onnx" --passes none --json >"$tmp/b.json" 2>>"$tmp/err"; then
    c=$("$py" "$here/../tools/ort_census.py" "$tmp/a.json" "$tmp/b.json" --totals "")
  else
    c="ERROR $(head -c 300 "$tmp/err")"
  fi
  if [ "$fired" = 1 ] && [ "${c%% *}" = same ]; then
    echo "ok $name: $rule applied; operators as in ONNX Runtime's 'extended' graph: ${c#same }"
    pass=$((pass + 1))
  else
    echo "FAIL $name: $rule applied $fired times (want 1); operators: $c"
    fails=$((fails + 1))
  fi
  if node "$here/../cli/ort_compare.mjs" "$ort" "$tmp/$name.onnx" "$tmp/$name.opt.onnx" "$ins" 0 extended \
    >"$tmp/ort.out" 2>&1; then
    echo "ok $name: equal to ONNX Runtime's 'extended' run: $(tr '\n' ' ' <"$tmp/ort.out")"
    pass=$((pass + 1))
  else
    echo "FAIL $name: against ONNX Runtime's 'extended' run: $(head -c 400 "$tmp/ort.out")"
    fails=$((fails + 1))
  fi
done
finish
