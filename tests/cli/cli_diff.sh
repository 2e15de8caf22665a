#!/usr/bin/env bash
# `foldline diff`: deltas checked against two independent `analyze --json`
# runs (and the tests/data models' parameter counts from their
# architecture, tests/tools/mkmodels.c), --fail-on exit codes at and around
# the real deltas, usage errors; corpus pairs (ONNX raw vs folded, a GraphDef
# vs the TF.js export of the same model) skip visibly without the corpus.
# Usage: cli_diff.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
. "$here/checks.bash"
py=$(command -v python3) || skip_all "cli_diff: python3 is absent"

pb="$data/tiny_cnn.pb"
onnx="$data/tiny_cnn.onnx"

# The expected diff from two analyze --json documents: every total's delta,
# params, node names removed/added, op types, per-profile times.
cat >"$tmp/expect.py" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2])); d = json.load(open(sys.argv[3]))
errs = []
def eq(what, got, want):
    if got != want:
        errs.append("%s: got %r, want %r" % (what, got, want))
eq("after present", d["after"] is None, "after" not in a)
for block in ("totals", "after") if "after" in a else ("totals",):
    for k in ("flops", "macs", "int_ops", "bytes", "bytes_read", "bytes_written"):
        x, y = a[block][k], b[block][k]
        eq(block + "." + k + ".base", d[block][k]["base"], x)
        eq(block + "." + k + ".new", d[block][k]["new"], y)
        want = y["value"] - x["value"] if "value" in x and "value" in y else 0 if x == y else None
        eq(block + "." + k + ".delta", d[block][k]["delta"], want)
    eq(block + ".nodes.delta", d[block]["nodes"]["delta"], b[block]["nodes"] - a[block]["nodes"])
eq("params.delta", d["totals"]["params"]["delta"], b["graph"]["params"] - a["graph"]["params"])
na = {n["name"] for n in a["nodes"]}; nb = {n["name"] for n in b["nodes"]}
eq("removed", sorted(d["nodes"]["removed"]), sorted(na - nb))
eq("added", sorted(d["nodes"]["added"]), sorted(nb - na))
eq("common", d["nodes"]["common"], len(na & nb))
ops_a = {o["op"]: o["count"] for o in a["ops"]}; ops_b = {o["op"]: o["count"] for o in b["ops"]}
for o in d["ops"]:
    eq("op " + o["op"] + " base count", o["base"]["count"] if o["base"] else None, ops_a.get(o["op"]))
    eq("op " + o["op"] + " new count", o["new"]["count"] if o["new"] else None, ops_b.get(o["op"]))
eq("op types", sorted(o["op"] for o in d["ops"]), sorted(set(ops_a) | set(ops_b)))
for i, t in enumerate(d["time"]):
    ra, rb = a["roofline"][i], b["roofline"][i]
    eq("time profile", t["profile"], ra["profile"])
    eq("time base", t["before"]["base_s"], ra["before"]["time_s"])
    eq("time new", t["before"]["new_s"], rb["before"]["time_s"])
eq("time entries", len(d["time"]), len(a["roofline"]))
if errs:
    print("\n".join(errs)); sys.exit(1)
EOF

# diff_vs_analyze NAME BASE NEW [options...]: diff --json against the two
# analyses with the same options (bindings as given per side: BASE_OPTS and
# NEW_OPTS in the environment).
diff_vs_analyze() {
  local name="$1" base="$2" new="$3"
  shift 3
  "$bin" analyze "$base" --per-node --json ${BASE_OPTS:-} "$@" >"$tmp/a.json" &&
    "$bin" analyze "$new" --per-node --json ${NEW_OPTS:-} "$@" >"$tmp/b.json" &&
    "$bin" diff "$base" "$new" --json ${BASE_OPTS:-} ${NEW_OPTS:-} "$@" >"$tmp/d.json"
  if [ $? -ne 0 ]; then
    echo "FAIL $name: a command failed"
    fails=$((fails + 1))
    return
  fi
  if "$py" "$tmp/expect.py" "$tmp/a.json" "$tmp/b.json" "$tmp/d.json" >"$tmp/why"; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: $(head -c 600 "$tmp/why")"
    fails=$((fails + 1))
  fi
}

# json_get FILE EXPR: a value of the diff document (Python expression on d).
json_get() {
  "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# --- tests/data: the same classifier as a GraphDef and as ONNX -------------
BASE_OPTS="--bind input.0=1" NEW_OPTS="--bind N=1" diff_vs_analyze tiny_cross "$pb" "$onnx"
BASE_OPTS="--bind input.0=1" NEW_OPTS="--bind N=1" diff_vs_analyze tiny_cross_profiles "$pb" "$onnx" --profile epyc-9654 --profile a100-80gb
BASE_OPTS="--bind input.0=4" NEW_OPTS="--bind N=4" diff_vs_analyze tiny_cross_batch4 "$pb" "$onnx" --passes none
diff_vs_analyze tiny_symbolic "$pb" "$onnx"
diff_vs_analyze tiny_same "$pb" "$pb"

# Integer ops: a float TFLite model against an int8 one (int8 CONV_2D and
# FULLY_CONNECTED count integer ops, never FLOPs): the delta is the int8
# model's analyze total, the gate fires just above it and not at it.
tfl="$data/tiny.tflite"
int8="$data/tiny_int8.tflite"
diff_vs_analyze tflite_int_ops "$tfl" "$int8"
"$bin" analyze "$int8" --json --no-llm >"$tmp/i8.json"
iops=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['int_ops']['value'])" "$tmp/i8.json")
"$bin" diff "$tfl" "$int8" --json >"$tmp/d.json"
check int_ops_delta 0 "0 $iops $iops" -- json_get "$tmp/d.json" '"%s %s %s" % (d["totals"]["int_ops"]["base"]["value"], d["totals"]["int_ops"]["new"]["value"], d["totals"]["int_ops"]["delta"])'
check int_ops_nonzero 0 "" -- test "$iops" -gt 0
check int_ops_text 0 "int ops" -- "$bin" diff "$tfl" "$int8"
check int_ops_gate_at 0 "" -- "$bin" diff "$tfl" "$int8" --fail-on "int_ops:+$iops"
check int_ops_gate_below 1 "" -- "$bin" diff "$tfl" "$int8" --fail-on "int_ops:+$((iops - 1))"
check int_ops_gate_after 1 "" -- "$bin" diff "$tfl" "$int8" --fail-on "after.int_ops:+$((iops - 1))"
check int_ops_ops_sum 0 "$iops" -- json_get "$tmp/d.json" 'sum((o["new"] or {}).get("int_ops") or 0 for o in d["ops"])'

# Parameters from the architecture (mkmodels.c): GraphDef conv1 3x3x3x8 + 8,
# conv2 3x3x8x16 + 16, fc 16x10 + 10 = 1562 (the int32 reduction indices of
# Mean are not parameters); ONNX the same plus BatchNormalization's four
# 8-vectors = 1594.
"$bin" diff "$pb" "$onnx" --json --bind input.0=1 --bind N=1 >"$tmp/d.json"
check params_values 0 "1562 1594 32" -- json_get "$tmp/d.json" '"%d %d %d" % (d["base"]["params"], d["new"]["params"], d["totals"]["params"]["delta"])'
# MACs per image, by hand: conv1 32*32*8*27 = 221184, conv2 8*8*16*72 =
# 73728, fc 16*10 = 160: 295072 in both; the ONNX model's BatchNormalization
# has no MACs.
check macs_equal 0 "295072 295072 0" -- json_get "$tmp/d.json" '"%s %s %s" % (d["totals"]["macs"]["base"]["value"], d["totals"]["macs"]["new"]["value"], d["totals"]["macs"]["delta"])'
# No common op type names across the formats but Relu; Mean became
# GlobalAveragePool under the same node name "gap".
check changed_op 0 "gap Mean GlobalAveragePool" -- json_get "$tmp/d.json" '" ".join(d["nodes"]["changed"][0][k] for k in ("name", "base_op", "new_op"))'
check text_symbolic 0 "(symbolic)" -- "$bin" diff "$pb" "$onnx"

# --- --fail-on: thresholds around the real deltas ---------------------------
# FLOPs per image: 617852 -> 634236, +16384 = +2.6518 %; bytes fall; MACs equal.
b=(--bind input.0=1 --bind N=1)
check fail_flops_exceeded 1 "EXCEEDED" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on flops:+2.6%
check fail_flops_ok 0 "ok" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on flops:+2.7%
check fail_flops_abs 1 "EXCEEDED" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on flops:+16383
check fail_flops_abs_ok 0 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on flops:+16384
check fail_macs_zero 0 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on macs:+0%
check fail_params 1 "params:+31" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on params:+31
check fail_params_ok 0 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on params:+32
check fail_nodes_shrink 1 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on nodes:-40%
check fail_nodes_shrink_ok 0 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on nodes:-50%
check fail_two_one_bad 1 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on macs:+1% --fail-on flops:+1%
check fail_symbolic_needs_bind 2 "symbolic" -- "$bin" diff "$pb" "$onnx" --fail-on flops:+5%
check fail_same_model 0 "" -- "$bin" diff "$pb" "$pb" --bind input.0=1 --fail-on flops:+0% --fail-on bytes:-0%
# after the passes: bytes moved after each model's rewrites.
"$bin" analyze "$pb" --bind input.0=1 --json >"$tmp/a.json"
"$bin" analyze "$onnx" --bind N=1 --json >"$tmp/b.json"
# thresholds just inside and outside the real move (computed from the two
# analyses), in its direction.
after_thr=$("$py" -c "
import json
a=json.load(open('$tmp/a.json')); b=json.load(open('$tmp/b.json'))
x=a['after']['bytes']['value']; y=b['after']['bytes']['value']; p=(y-x)/x*100
assert p != 0, 'after.bytes did not move'
print('%s%.9f %s%.9f' % ('-' if p < 0 else '+', abs(p) / 2, '-' if p < 0 else '+', abs(p) * 2))")
check fail_after_bytes 1 "after.bytes" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on "after.bytes:${after_thr% *}%"
check fail_after_bytes_ok 0 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on "after.bytes:${after_thr#* }%"
# time per profile: the threshold just below and above the real change.
tpct=$("$py" -c "
import json,subprocess,sys
def t(m, bind):
    d=json.loads(subprocess.check_output(['$bin','analyze',m,'--bind',bind,'--profile','a100-80gb','--json']))
    return d['roofline'][0]['before']['time_s']
a=t('$pb','input.0=1'); b=t('$onnx','N=1'); p=(b-a)/a*100
print('-%.3f -%.3f' % (-p-0.01, -p+0.01) if p < 0 else '+%.3f +%.3f' % (p-0.01, p+0.01))")
check fail_time_below 1 "time@a100-80gb" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --profile a100-80gb --fail-on "time:${tpct% *}%"
check fail_time_above 0 "" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --profile a100-80gb --fail-on "time@a100-80gb:${tpct#* }%"
# The text's time rows in analyze's units (557 ns, 1.38 ms: 3 significant
# digits), each side the time of its own analyze --json, the delta signed;
# the fail-on line likewise.
trow=$("$py" -c "
import json,subprocess
def t(m, bind):
    d=json.loads(subprocess.check_output(['$bin','analyze',m,'--bind',bind,'--profile','a100-80gb','--json']))
    return d['roofline'][0]['before']['time_s']
def fmt(s):
    for lim, mul, unit in ((1, 1, 's'), (1e-3, 1e3, 'ms'), (1e-6, 1e6, 'us'), (0, 1e9, 'ns')):
        if abs(s) >= lim:
            return '%.3g %s' % (abs(s) * mul, unit)
a=t('$pb','input.0=1'); b=t('$onnx','N=1')
print('a100-80gb %s %s %s%s|%s -> %s' % (fmt(a), fmt(b), '-' if b < a else '+', fmt(b - a), fmt(a), fmt(b)))")
"$bin" diff "$pb" "$onnx" "${b[@]}" --profile a100-80gb --fail-on time:+1000% | tr -s ' ' >"$tmp/trow.txt"
check time_row_units 0 " ${trow%|*} " -- cat "$tmp/trow.txt"
check time_fail_on_units 0 "a100-80gb:+1000% ${trow#*|} " -- cat "$tmp/trow.txt"

# --- usage errors (exit 2) and I/O ------------------------------------------
check unknown_metric 2 "the metrics: flops, macs, int_ops, bytes" -- "$bin" diff "$pb" "$onnx" --fail-on latency:+5%
check bad_threshold 2 "is not a threshold" -- "$bin" diff "$pb" "$onnx" --fail-on flops:+five%
check no_colon 2 "METRIC:+N%" -- "$bin" diff "$pb" "$onnx" --fail-on flops
check one_model 2 "diff needs BASE and NEW" -- "$bin" diff "$pb"
check option_first 2 "diff needs BASE and NEW" -- "$bin" diff --json "$pb" "$onnx"
check bind_neither 2 "neither model has the symbol" -- "$bin" diff "$pb" "$onnx" --bind batch=1
check time_no_profile 2 "add --profile" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --fail-on time:+5%
check time_unknown_profile 2 "no such profile" -- "$bin" diff "$pb" "$onnx" "${b[@]}" --profile epyc-9654 --fail-on time@l4:+5%
check sweep_refused 2 "diff takes no --sweep" -- "$bin" diff "$pb" "$onnx" --sweep input.0=1,2
check bad_analyze_option 2 "unknown option '--frob'" -- "$bin" diff "$pb" "$onnx" --frob
check missing_file 3 "cannot open" -- "$bin" diff "$pb" "$tmp/nope.onnx"
check help 0 "usage: foldline diff BASE NEW" -- "$bin" diff --help

# --- the LLM view -----------------------------------------------------------
# The decoder against its own rewritten form (foldline optimize: the ORT
# fusions change its FLOPs per token): every per-token delta equals the
# difference of the two models' analyze --json views, and the gates fire
# around the real delta.
dec="$data/tiny_decoder.onnx"
llm=(--prompt 8 --context 32)
"$bin" optimize "$dec" -o "$tmp/dec_opt.onnx" >/dev/null 2>&1
lprof=(--profile t4 --profile epyc-9654)
"$bin" analyze "$dec" --json "${llm[@]}" "${lprof[@]}" >"$tmp/la.json" 2>/dev/null
"$bin" analyze "$tmp/dec_opt.onnx" --json "${llm[@]}" "${lprof[@]}" >"$tmp/lb.json" 2>/dev/null
"$bin" diff "$dec" "$tmp/dec_opt.onnx" --json "${llm[@]}" "${lprof[@]}" >"$tmp/ld.json" 2>"$tmp/ld.err"
check llm_diff_exit 0 "" -- test -s "$tmp/ld.json"
cat >"$tmp/llm_expect.py" <<'EOF2'
import json, sys
a, b, d = (json.load(open(f)) for f in sys.argv[1:4])
va, vb = a["llm"], b["llm"]
want = {}
for ph in ("prefill", "decode"):
    for k in ("flops_per_token", "macs_per_token", "bytes_per_token"):
        want["%s.%s" % (ph, k)] = (va[ph][k], vb[ph][k])
want["kv_bytes_per_token"] = (va["kv_bytes_per_token"], vb["kv_bytes_per_token"])
for ea, eb in zip(va["roofline"], vb["roofline"]):
    for ph in ("prefill", "decode"):
        want["%s.time_per_token@%s" % (ph, ea["profile"])] = (ea[ph]["time_per_token_s"], eb[ph]["time_per_token_s"])
# After the rewrite passes: the same from each view's "after" (no KV metric:
# the passes leave the inputs as they are).
for ph in ("prefill", "decode"):
    for k in ("flops_per_token", "macs_per_token", "bytes_per_token"):
        want["after.%s.%s" % (ph, k)] = (va["after"][ph][k], vb["after"][ph][k])
for ea, eb in zip(va["after"]["roofline"], vb["after"]["roofline"]):
    for ph in ("prefill", "decode"):
        want["after.%s.time_per_token@%s" % (ph, ea["profile"])] = (ea[ph]["time_per_token_s"], eb[ph]["time_per_token_s"])
got = {m["metric"]: (m["base"], m["new"]) for m in d["llm"]["metrics"]}
errs = []
if got != want:
    errs.append("metrics %r != %r" % (got, want))
for m in d["llm"]["metrics"]:
    if m["delta"] != m["new"] - m["base"]:
        errs.append("delta of " + m["metric"])
if d["llm"]["base"] != {"prompt": 8, "context": 32} or d["llm"]["new"] != {"prompt": 8, "context": 32}:
    errs.append("sides %r %r" % (d["llm"]["base"], d["llm"]["new"]))
# The rewrite changes the prefill FLOPs per token (otherwise this tests nothing).
if want["prefill.flops_per_token"][0] == want["prefill.flops_per_token"][1]:
    errs.append("no change in prefill.flops_per_token")
print("; ".join(errs) or "ok")
EOF2
check llm_diff_vs_analyze 0 "ok" -- "$py" "$tmp/llm_expect.py" "$tmp/la.json" "$tmp/lb.json" "$tmp/ld.json"
# Gates: the prefill FLOPs per token fall by p % (from the two analyses):
# -N% fires below p, not above; the time gate runs once per profile.
pct=$("$py" -c "import json,sys; a=json.load(open(sys.argv[1]))['llm']['prefill']['flops_per_token']; b=json.load(open(sys.argv[2]))['llm']['prefill']['flops_per_token']; print('%.6f' % ((a-b)/a*100))" "$tmp/la.json" "$tmp/lb.json")
lo=$("$py" -c "print('%.4f' % ($pct - 0.001))"); hi=$("$py" -c "print('%.4f' % ($pct + 0.001))")
check llm_gate_fires 1 "EXCEEDED" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" --fail-on "prefill.flops_per_token:-$lo%"
check llm_gate_ok 0 "ok" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" --fail-on "prefill.flops_per_token:-$hi%"
"$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" "${lprof[@]}" --json --fail-on decode.time_per_token:+1000% >"$tmp/lt.json" 2>&1
check llm_time_gate_per_profile 0 "decode.time_per_token@t4 decode.time_per_token@epyc-9654" -- json_get "$tmp/lt.json" '" ".join(c["metric"] for c in d["fail_on"])'
"$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" "${lprof[@]}" --json --fail-on after.decode.time_per_token:+1000% --fail-on after.prefill.flops_per_token:+1000% >"$tmp/lta.json" 2>&1
check llm_after_gates 0 "after.decode.time_per_token@t4 after.decode.time_per_token@epyc-9654 after.prefill.flops_per_token" -- json_get "$tmp/lta.json" '" ".join(c["metric"] for c in d["fail_on"])'
check llm_after_kv_refused 2 "unknown metric 'after.kv_bytes_per_token'" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" --fail-on after.kv_bytes_per_token:+5%
# The decoder's symbols are free, so neither side has a whole-graph time:
# the text says why and a time gate is a usage error naming the symbols
# (the phases' times per token are the gates that apply); bound, the time
# is there.
check llm_time_why 0 "estimated time: none for base: its symbols batch, past, seq are free" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" --profile t4
check llm_time_gate_free 2 "BASE has no whole-graph time estimate: its symbols batch, past, seq are free" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" --profile t4 --fail-on time:+5%
check llm_time_at_gate_free 2 "BASE has no whole-graph time estimate" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}" --profile t4 --fail-on after.time@t4:+5%
check llm_time_gate_bound 0 "time@t4:+1000%" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" --bind batch=1 --bind past=0 --bind seq=8 --profile t4 --fail-on time:+1000%
check llm_text 0 "prefill.flops_per_token" -- "$bin" diff "$dec" "$tmp/dec_opt.onnx" "${llm[@]}"
# A side without a view: null there, and a gate on it is a usage error.
"$bin" diff "$dec" "$onnx" --json "${llm[@]}" --bind N=1 >"$tmp/ln.json" 2>&1
check llm_one_side 0 "None True" -- json_get "$tmp/ln.json" '"%s %s" % (d["llm"]["new"], all(m["new"] is None for m in d["llm"]["metrics"]))'
check llm_gate_no_view 2 "NEW has no LLM view" -- "$bin" diff "$dec" "$onnx" "${llm[@]}" --bind N=1 --fail-on decode.flops_per_token:+5%
"$bin" diff "$pb" "$onnx" --json >"$tmp/lnone.json" 2>&1
check llm_none 0 "None" -- json_get "$tmp/lnone.json" 'd["llm"]'
check llm_unknown_phase_metric 2 "the metrics:" -- "$bin" diff "$pb" "$onnx" --fail-on decode.latency:+5%

# --- corpus pairs -----------------------------------------------------------
if [ -d "$corpus/onnx" ] && [ -d "$corpus/tfjs" ]; then
  o="$corpus/onnx"
  # resnet18: the exporter folded the 20 BatchNormalizations into the Convs.
  diff_vs_analyze resnet18_raw_folded "$o/resnet18.raw.stripped.onnx" "$o/resnet18.folded.stripped.onnx" --profile epyc-9654
  "$bin" diff "$o/resnet18.raw.stripped.onnx" "$o/resnet18.folded.stripped.onnx" --json >"$tmp/d.json"
  check resnet18_bn_gone 0 "20 None" -- json_get "$tmp/d.json" '"%s %s" % tuple((o["base"]["count"], o["new"]) for o in d["ops"] if o["op"] == "BatchNormalization")[0]'
  diff_vs_analyze vit_raw_folded "$o/vit_b_16.raw.stripped.onnx" "$o/vit_b_16.folded.stripped.onnx"
  # A GraphDef and the TF.js export of the same model: 100,033,408 MACs per
  # image in both (cli_formats), FLOPs may differ by the fused ops.
  BASE_OPTS="" NEW_OPTS="" diff_vs_analyze antispoof_tf_tfjs "$corpus/tf/human-antispoof.pb" "$corpus/tfjs/antispoof" --bind conv2d_input.0=1
  check antispoof_macs_gate 0 "ok" -- "$bin" diff "$corpus/tf/human-antispoof.pb" "$corpus/tfjs/antispoof" --bind conv2d_input.0=1 --fail-on macs:+0%
else
  skip_part "corpus pairs: $corpus/onnx or $corpus/tfjs is absent"
fi

finish
