#!/usr/bin/env bash
# The integer-op count of quantized models in the CLI's text and JSON output:
# tests/data/tiny_int8.tflite (the int8 twin of tiny.tflite; its counts are
# derived in tests/unit/test_tflite.c: int_ops 15,296 + 1,012 + 786 =
# 17,094, no FLOPs, no MACs) and the float tiny.tflite (int_ops 0, no line).
# Usage: cli_int_ops.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

check text_total 0 "integer ops   17,094" -- "$bin" analyze "$data/tiny_int8.tflite"
check text_top_op 0 "(+ 15,296 integer ops)" -- "$bin" analyze "$data/tiny_int8.tflite"
check text_node 0 "int_ops=1012 macs=0" -- "$bin" analyze "$data/tiny_int8.tflite" --per-node
"$bin" analyze "$data/tiny.tflite" >"$tmp/float.txt" 2>&1
if grep -q "integer ops" "$tmp/float.txt"; then
  echo "FAIL float_no_line: a float model prints an integer-op line"
  fails=$((fails + 1))
else
  pass=$((pass + 1))
fi
"$bin" analyze "$data/tiny_int8.tflite" --json --per-node >"$tmp/q.json" 2>"$tmp/q.err"
"$bin" analyze "$data/tiny.tflite" --json --summary >"$tmp/f.json" 2>"$tmp/f.err"
if python3 - "$tmp/q.json" "$tmp/f.json" <<'PY'; then
import json, sys
q = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))
t = q["totals"]
assert t["int_ops"] == {"value": 17094}, t
assert t["flops"] == {"value": 0} and t["macs"] == {"value": 0}, t
assert q["after"]["int_ops"] == {"value": 17094}, q["after"]
nodes = {n["name"]: n for n in q["nodes"]}
assert nodes["conv_out"]["int_ops"] == {"value": 15296}, nodes["conv_out"]
assert nodes["logits"]["int_ops"] == {"value": 786}, nodes["logits"]
ops = {o["op"]: o for o in q["ops"]}
assert ops["DEPTHWISE_CONV_2D"]["int_ops"] == {"value": 1012}, ops
assert f["totals"]["int_ops"] == {"value": 0}, f["totals"]
PY
  pass=$((pass + 1))
else
  echo "FAIL json_int_ops"
  fails=$((fails + 1))
fi
finish
