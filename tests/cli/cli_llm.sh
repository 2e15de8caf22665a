#!/usr/bin/env bash
# The LLM view of `analyze` on a GPT-2-style decoder with a KV cache
# (tests/data/tiny_decoder.onnx, written by tests/tools/export_tiny_decoder.py
# with Debian's python3-torch; this test needs only the file). Its closed-form
# MACs (see the exporter): B*S*(6656 + 64*T), T = past + seq; KV cache 2 * 2
# layers * 16 floats = 256 bytes per token and sequence.
# Usage: cli_llm.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"
m="$data/tiny_decoder.onnx"

# The symbolic MACs are the closed form: 64*B*P*S + 64*B*S^2 + 6656*B*S.
check formula 0 "MACs          64*batch*past*seq + 64*batch*seq^2 + 6656*batch*seq" -- \
  "$bin" analyze "$m" --passes none

# field FILE PHASE COLUMN: a column of the view's row for PHASE (before the
# passes); field_after: the row under "after the rewrite passes".
field() { awk -v p="$2" -v c="$3" '$1 == p && NF == 6 { print $c; exit }' "$1"; }
field_after() {
  awk -v p="$2" -v c="$3" '/^  after the rewrite passes$/ { a = 1 } a && $1 == p && NF == 6 { print $c; exit }' "$1"
}
expect() { # name got want
  if [ "$2" = "$3" ]; then pass=$((pass + 1)); else
    echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}

"$bin" analyze "$m" --prompt 8 --context 32 >"$tmp/v" 2>&1
expect view_exit $? 0
# prefill: B=1, S=8, T=8: 8*(6656 + 512) = 57344 MACs over 8 tokens.
expect prefill_tokens "$(field "$tmp/v" prefill 2)" 8
expect prefill_macs "$(field "$tmp/v" prefill 4)" 7168.0
# decode at context 32: S=1, T=32: 6656 + 2048 = 8704 MACs for 1 token.
expect decode_tokens "$(field "$tmp/v" decode 2)" 1
expect decode_macs "$(field "$tmp/v" decode 4)" 8704.0
# After the rewrite passes (the default passes on each phase's graph): the
# MACs are still the closed form (the passes fold shape arithmetic and fuse
# MatMul + Add into Gemm, which keeps every multiply-accumulate).
expect after_prefill_macs "$(field_after "$tmp/v" prefill 4)" 7168.0
expect after_decode_macs "$(field_after "$tmp/v" decode 4)" 8704.0
expect after_tokens "$(field_after "$tmp/v" prefill 2) $(field_after "$tmp/v" decode 2)" "8 1"
"$bin" analyze "$m" --prompt 8 --context 32 --passes none >"$tmp/vn" 2>&1
expect after_none "$(grep -c 'after the rewrite passes' "$tmp/vn")" 0
check kv 0 "KV cache  256 bytes per token of context (4 inputs), 8192 bytes at context 32" -- \
  "$bin" analyze "$m" --prompt 8 --context 32
check roles 0 "LLM view  prompt 8, context 32 (--prompt, --context); seq = seq, past = past, batch = 1" -- \
  "$bin" analyze "$m" --prompt 8 --context 32

# --bind batch=4: 4 sequences; per token the same, the cache 4 times larger.
"$bin" analyze "$m" --prompt 8 --context 32 --bind batch=4 >"$tmp/b" 2>&1
expect batch_tokens "$(field "$tmp/b" prefill 2)" 32
expect batch_macs "$(field "$tmp/b" prefill 4)" 7168.0
check batch_kv 0 "KV cache  1024 bytes per token of context (4 inputs), 32768 bytes at context 32" -- \
  "$bin" analyze "$m" --prompt 8 --context 32 --bind batch=4

# The same decoder with an attention mask whose dim_param is the text
# "past + seq" (tests/data/tiny_decoder_mask.onnx, the exporter's --mask):
# read as that sum, the mask broadcasts against the scores [batch,2,seq,
# past+seq], so the symbolic totals are complete (an opaque name left 4
# nodes out) and the MACs the same closed form; the view binds past and seq
# only, and its figures are the unmasked model's.
mm="$data/tiny_decoder_mask.onnx"
check mask_input 0 "attention_mask int64 [batch,past + seq]" -- "$bin" analyze "$mm" --passes none
check mask_formula 0 "MACs          64*batch*past*seq + 64*batch*seq^2 + 6656*batch*seq" -- \
  "$bin" analyze "$mm" --passes none --require-complete
"$bin" analyze "$mm" --prompt 8 --context 32 >"$tmp/m" 2>&1
expect mask_view_exit $? 0
expect mask_macs "$(field "$tmp/m" prefill 4) $(field "$tmp/m" decode 4)" "7168.0 8704.0"
expect mask_after_macs "$(field_after "$tmp/m" prefill 4) $(field_after "$tmp/m" decode 4)" \
  "7168.0 8704.0"
check mask_bind 0 "MACs          43,008 (43.01 KMAC)" -- "$bin" analyze "$mm" --passes none --bind batch=2 \
  --bind past=5 --bind seq=3
check mask_bind_text 2 "'past + seq', which is not a symbol of the graph" -- \
  "$bin" analyze "$mm" --passes none --bind "past + seq=8"

# Defaults (prompt 128, context 1024), --no-llm, JSON untouched, bad values.
check defaults 0 "LLM view  prompt 128, context 1024" -- "$bin" analyze "$m"
"$bin" analyze "$m" --no-llm >"$tmp/n" 2>&1
expect no_llm "$(grep -c 'LLM view' "$tmp/n")" 0
# JSON: the same figures as the text (the closed form at P=0, S=8 and at
# context 32), the roles, and null with --no-llm or for a graph that is not
# a decoder.
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
"$bin" analyze "$m" --json --prompt 8 --context 32 >"$tmp/j" 2>&1
expect json_prefill "$(jq_py "$tmp/j" 'd["llm"]["prefill"]["macs_per_token"], d["llm"]["prefill"]["macs"], d["llm"]["prefill"]["tokens"]')" "7168 {'value': 57344} 8"
expect json_decode "$(jq_py "$tmp/j" 'd["llm"]["decode"]["macs_per_token"], d["llm"]["decode"]["past"], d["llm"]["decode"]["seq"]')" "8704 31 1"
expect json_kv "$(jq_py "$tmp/j" 'd["llm"]["kv_bytes_per_token"], d["llm"]["kv_bytes_at_context"], d["llm"]["decode"]["kv_bytes"]')" "256 8192 7936"
expect json_after_null "$("$bin" analyze "$m" --json --prompt 8 --context 32 --passes none | python3 -c 'import json,sys; print(json.load(sys.stdin)["llm"]["after"])')" "None"
expect json_roles "$(jq_py "$tmp/j" 'd["llm"]["seq_symbol"], d["llm"]["past_symbol"], d["llm"]["token_input"], d["llm"]["other_symbols"]')" "seq past input_ids ['batch']"
"$bin" analyze "$m" --summary --prompt 8 --context 32 >"$tmp/s" 2>&1
expect summary_llm "$(jq_py "$tmp/s" 'd["llm"]["decode"]["macs_per_token"]')" "8704"
"$bin" analyze "$m" --json --no-llm >"$tmp/jn" 2>&1
expect json_no_llm "$(jq_py "$tmp/jn" 'd["llm"]')" "None"
"$bin" analyze "$data/tiny_cnn.onnx" --json >"$tmp/jc" 2>&1
expect json_cnn_null "$(jq_py "$tmp/jc" 'd["llm"]')" "None"
# --sweep over batch: the view per point (the decode row of the view at
# --bind batch=4 above; the cache 256 bytes per token per sequence) in the
# table and in each record.
"$bin" analyze "$m" --prompt 8 --context 32 --sweep batch=1,4 >"$tmp/sw" 2>&1
expect sweep_cols "$(awk '$1 == "4" { print $(NF-1), $NF }' "$tmp/sw")" "$(field "$tmp/b" decode 3) 1024"
expect sweep_head "$(grep -c 'LLM view at prompt 8, context 32' "$tmp/sw")" 1
"$bin" analyze "$m" --prompt 8 --context 32 --sweep batch=1,4 --json >"$tmp/swj" 2>&1
expect sweep_json "$(jq_py "$tmp/swj" '[r["llm"]["prefill"]["macs_per_token"] for r in d["results"]], [r["llm"]["kv_bytes_per_token"] for r in d["results"]]')" "[7168, 7168] [256, 1024]"
check bad_prompt 2 "--prompt expects an integer >= 1, got '0'" -- "$bin" analyze "$m" --prompt 0
check bad_context 2 "--context must be at least 2" -- "$bin" analyze "$m" --context 1
# --max-memory-mb reached in a phase is a limit of the view, as --max-nodes is:
# the analysis (which fits in 2 MB with the self-checks) stands and a warning
# says why the view is out (the prefill phase at seq=32768 needs more than 12 MB).
check phase_memory_limit 0 "LLM view left out: its prefill phase (seq=32768, past=0) failed: analysis needs more than the memory limit of 4194304 bytes" -- \
  "$bin" analyze "$m" --max-memory-mb 4 --context 65536 --prompt 32768
# The time per token on each profile: each phase's time is the roofline of
# the graph analysed at that phase's bindings (prefill: seq=8, past=0;
# decode: seq=1, past=31; batch=1), over the phase's tokens (8 and 1); its
# bound is the largest of that estimate's compute, memory and overhead time.
# The graph as given, whose symbols are free, has no estimate of its own
# (a warning says so) instead of failing as it does without the view.
prof=(--profile t4 --profile epyc-9654 --profile raspberry-pi-4)
"$bin" analyze "$m" --json --prompt 8 --context 32 "${prof[@]}" >"$tmp/rj" 2>&1
expect roof_exit $? 0
"$bin" analyze "$m" --json --no-llm --bind seq=8 --bind past=0 --bind batch=1 "${prof[@]}" >"$tmp/rp" 2>&1
"$bin" analyze "$m" --json --no-llm --bind seq=1 --bind past=31 --bind batch=1 "${prof[@]}" >"$tmp/rd" 2>&1
roof_cmp() {
  python3 - "$tmp/rj" "$tmp/rp" "$tmp/rd" <<'PY'
import json, sys
v, p, d = (json.load(open(f)) for f in sys.argv[1:4])
def bound(g):
    if g["time_s"] <= 0:
        return "none"
    if g["compute_s"] >= g["memory_s"] and g["compute_s"] >= g["overhead_s"]:
        return "compute"
    return "memory" if g["memory_s"] >= g["overhead_s"] else "overhead"
bad = []
rl = v["llm"]["roofline"]
if [e["profile"] for e in rl] != ["t4", "epyc-9654", "raspberry-pi-4"]:
    bad.append("profiles %r" % [e["profile"] for e in rl])
for e, gp, gd in zip(rl, p["roofline"], d["roofline"]):
    for ph, g, tok in (("prefill", gp["before"], 8), ("decode", gd["before"], 1)):
        want = {"time_s": g["time_s"], "time_per_token_s": g["time_s"] / tok, "bound": bound(g)}
        if e[ph] != want:
            bad.append("%s %s: %r, want %r" % (e["profile"], ph, e[ph], want))
    if e["calibrated"] != gp["before"]["calibrated"]:
        bad.append("calibrated")
# After the passes: each phase's graph optimised with the same passes, so
# the after-estimate of the graph at the phase's bindings.
for e, gp, gd in zip(v["llm"]["after"]["roofline"], p["roofline"], d["roofline"]):
    for ph, g, tok in (("prefill", gp["after"], 8), ("decode", gd["after"], 1)):
        want = {"time_s": g["time_s"], "time_per_token_s": g["time_s"] / tok, "bound": bound(g)}
        if e[ph] != want:
            bad.append("after %s %s: %r, want %r" % (e["profile"], ph, e[ph], want))
for ph, r, tok in (("prefill", p, 8), ("decode", d, 1)):
    a = v["llm"]["after"][ph]
    for k in ("flops", "macs", "bytes"):
        if a[k] != r["after"][k] or a[k + "_per_token"] != r["after"][k]["value"] / tok:
            bad.append("after %s %s: %r, want %r" % (ph, k, a[k], r["after"][k]))
    if a["tokens"] != tok or a["kv_bytes"] != v["llm"][ph]["kv_bytes"]:
        bad.append("after %s tokens/kv %r" % (ph, a))
# The passes make the phases cheaper here (shape arithmetic folded): the
# comparison is not vacuous.
if not v["llm"]["after"]["prefill"]["flops"]["value"] < v["llm"]["prefill"]["flops"]["value"]:
    bad.append("after prefill not below before")
if v["roofline"] != [] or not any("no roofline estimate of the graph as given" in w for w in v["warnings"]):
    bad.append("whole graph: %r %r" % (v["roofline"], v["warnings"]))
# Bounds differ between profiles: both kinds are exercised.
if {e[ph]["bound"] for e in rl for ph in ("prefill", "decode")} != {"memory", "overhead"}:
    bad.append("bounds %r" % [(e[ph]["bound"]) for e in rl for ph in ("prefill", "decode")])
print("; ".join(bad) or "ok")
PY
}
expect roof_per_token "$(roof_cmp)" ok
"$bin" analyze "$m" --prompt 8 --context 32 "${prof[@]}" >"$tmp/rt" 2>&1
# One row per profile before the passes and one after (under its heading).
expect roof_text_rows "$(awk '$1 == "t4" || $1 == "epyc-9654" || $1 == "raspberry-pi-4"' "$tmp/rt" | grep -c ' per token\|(memory)\|(overhead)')" 6
expect roof_text_head "$(grep -c '^  time per token  *prefill  *decode$' "$tmp/rt")" 2
expect roof_text_after "$(grep -A1 '^  after the rewrite passes$' "$tmp/rt" | grep -c '^  time per token')" 1
# Without the view, free symbols still fail a roofline estimate (exit 2).
check roof_no_llm 2 "a roofline estimate needs every symbol bound; unbound: batch, past, seq" -- \
  "$bin" analyze "$m" --no-llm --profile t4
# Every symbol bound: the whole graph's estimate, and no view (no free seq).
"$bin" analyze "$m" --json --bind seq=8 --bind past=0 --bind batch=1 --profile t4 >"$tmp/rb" 2>&1
expect roof_bound_all "$(jq_py "$tmp/rb" 'len(d["roofline"]), d["llm"]')" "1 None"

# A graph without a sequence symbol or a KV cache shows no view.
"$bin" analyze "$data/tiny_cnn.onnx" >"$tmp/c" 2>&1
expect cnn_no_view "$(grep -c 'LLM view' "$tmp/c")" 0

finish
