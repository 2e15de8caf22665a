#!/usr/bin/env bash
# `foldline schema`: the JSON Schema printed is the repository's file, is a
# valid draft 2020-12 schema, and every JSON document foldline prints for the
# tests/data models and every corpus model validates against it (analyze
# --json with and without --per-node, profiles and passes, --summary,
# --sweep, diff --json, card --format json); documents broken on purpose do not. Needs Debian's
# python3-jsonschema (skipped visibly without it); the corpus part skips
# visibly without ../shared/corpus.
# Usage: cli_schema.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
schema_file="$here/../../proto/json/foldline.schema.json"
. "$here/checks.bash"

py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c "import jsonschema" 2>/dev/null; then
    py="$p"
    break
  fi
done
[ -n "$py" ] || skip_all "cli_schema: python3-jsonschema is not installed (deploy/install-deps.sh)"
validate="$here/validate_json.py"

"$bin" schema >"$tmp/schema.json"
check schema_exit 0 "" -- "$bin" schema
check schema_is_the_file 0 "" -- cmp "$tmp/schema.json" "$schema_file"
check schema_draft 0 "" -- "$py" -c "import json,jsonschema,sys; s=json.load(open(sys.argv[1])); jsonschema.Draft202012Validator.check_schema(s); assert s['\$schema'].endswith('2020-12/schema')" "$tmp/schema.json"
check schema_usage 2 "schema takes no argument" -- "$bin" schema extra

# valid KIND NAME FILE...: the files validate as KIND.
valid() {
  local kind="$1" name="$2"
  shift 2
  check "$name" 0 "valid" -- "$py" "$validate" "$tmp/schema.json" "$kind" "$@"
}

doc() { # ARGS...: runs foldline, stores its document, echoes the file's path
  local out
  out=$(mktemp "$tmp/docXXXXXX")
  "$bin" "$@" >"$out" 2>"$out.err"
  echo "$out"
}
# corpus_doc ARGS...: as doc, but a model foldline refuses (exit 1, 5: its
# error is not a schema matter) is left out with a note.
corpus_doc() {
  local out
  out=$(mktemp "$tmp/docXXXXXX")
  if "$bin" "$@" >"$out" 2>"$out.err"; then
    echo "$out"
  else
    echo "note: foldline $* failed: $(head -c 200 "$out.err")" >&2
  fi
}

pb="$data/tiny_cnn.pb"
onnx="$data/tiny_cnn.onnx"
tfl="$data/tiny.tflite"
records=()
for m in "$pb" "$onnx" "$tfl"; do
  records+=("$(doc analyze "$m" --json)")
  records+=("$(doc analyze "$m" --json --per-node --passes none)")
  records+=("$(doc analyze "$m" --json --per-node)")
done
records+=("$(doc analyze "$pb" --json --per-node --bind input.0=2 --profile all)")
records+=("$(doc analyze "$onnx" --json --per-node --bind N=1 --profile all)")
# A profile with the run's gap (`gap`): the graph's gap_s and gap, each node's gap_s.
mkdir -p "$tmp/gap"
{ cat "$here/../../deploy/profiles/xeon-8380.yaml"; echo 'gap: {share: 0.06, source: "a test"}'; } >"$tmp/gap/xeon-8380.yaml"
records+=("$(doc analyze "$onnx" --json --per-node --bind N=1 --profile "$tmp/gap/xeon-8380.yaml")")
records+=("$(doc optimize "$pb" -o "$tmp/opt.pb" --json --per-node)")
valid record data_records "${records[@]}"
valid summary data_summaries "$(doc analyze "$pb" --summary)" "$(doc analyze "$onnx" --summary --bind N=1 --profile all)" "$(doc analyze "$pb" --summary --passes none)"
valid sweep data_sweeps "$(doc analyze "$pb" --sweep input.0=1,8 --json)" "$(doc analyze "$onnx" --sweep N=1,2 --summary --profile epyc-9654)"
valid diff data_diffs "$(doc diff "$pb" "$onnx" --json)" "$(doc diff "$pb" "$onnx" --json --bind input.0=1 --bind N=1 --profile all --fail-on flops:+1% --fail-on time:+5%)" "$(doc diff "$pb" "$pb" --json --passes none)"

valid card data_cards "$(doc card "$pb" --format json)" "$(doc card "$onnx" --format json --profile all)" "$(doc card "$pb" --format json --bind input.0=3 --profile epyc-9654 --passes none)"

# The schema can fail: documents with a wrong type, a missing key, a count
# that is neither {value} nor {formula}.
"$py" - "${records[0]}" "$tmp" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
a = json.loads(json.dumps(d)); a["totals"]["flops"] = "617852*input.0"; json.dump(a, open(t + "/bad1.json", "w"))
b = json.loads(json.dumps(d)); del b["complete"]; json.dump(b, open(t + "/bad2.json", "w"))
c = json.loads(json.dumps(d)); c["totals"]["macs"] = {"value": 1, "formula": "x"}; json.dump(c, open(t + "/bad3.json", "w"))
e = json.loads(json.dumps(d)); e["schema_version"] = 3; json.dump(e, open(t + "/bad4.json", "w"))
# Closed objects: a key the schema does not name is an error, at the top
# (unevaluatedProperties beside the shared head) and inside.
f = json.loads(json.dumps(d)); f["flopz"] = 1; json.dump(f, open(t + "/bad5.json", "w"))
g = json.loads(json.dumps(d)); g["totals"]["flopz"] = {"value": 1}; json.dump(g, open(t + "/bad6.json", "w"))
h = json.loads(json.dumps(d)); h["options"]["limits"]["max_flopz"] = 1; json.dump(h, open(t + "/bad7.json", "w"))
PYEOF
for k in 1 2 3 4 5 6 7; do
  check "invalid_$k" 1 "0 of 1 record" -- "$py" "$validate" "$tmp/schema.json" record "$tmp/bad$k.json"
done

# The LLM view of a decoder (tests/data/tiny_decoder.onnx) in a record, a
# summary and a sweep; an unknown key inside it is an error too.
dec="$data/tiny_decoder.onnx"
llm_rec=$(doc analyze "$dec" --json --prompt 8 --context 32)
valid record data_llm_record "$llm_rec"
valid summary data_llm_summary "$(doc analyze "$dec" --summary)"
valid sweep data_llm_sweep "$(doc analyze "$dec" --sweep batch=1,2 --json --prompt 8 --context 32)"
# revision 3: the view's time per token per profile.
valid record data_llm_roofline_record "$(doc analyze "$dec" --json --profile t4 --profile epyc-9654)"
valid summary data_llm_roofline_summary "$(doc analyze "$dec" --summary --profile t4)"
valid diff data_llm_diff "$(doc diff "$dec" "$dec" --json --profile t4 --fail-on decode.time_per_token:+5%)" "$(doc diff "$dec" "$onnx" --json --bind N=1)"
valid card data_llm_card "$(doc card "$dec" --format json --profile t4)"

# revision 3: shapes typed as `dims` beside the `shape` string: integers,
# formula strings and null (unknown), null for an unknown rank. Each entry
# equals the shape string's: the string is "[" + the dims joined by "," + "]",
# a null dim written "?", an unknown rank "?".
dims_rec=$(doc analyze "$dec" --json --per-node --passes none)
# A GraphDef of one Placeholder `x` (DT_FLOAT) without a shape attribute.
"$py" -c "
import sys
attr = b'\\x0a\\x05dtype' + b'\\x12\\x02\\x30\\x01'
node = b'\\x0a\\x01x' + b'\\x12\\x0bPlaceholder' + b'\\x2a' + bytes([len(attr)]) + attr
open(sys.argv[1], 'wb').write(b'\\x0a' + bytes([len(node)]) + node)" "$tmp/unknown_rank.pb"
ur_rec=$(doc analyze "$tmp/unknown_rank.pb" --json --per-node)
valid record data_dims "$dims_rec" "$ur_rec"
check dims_match_shapes 0 "ok 41" -- "$py" -c "
import json, sys
n = 0
for path in sys.argv[1:]:
    d = json.load(open(path))
    ts = d['inputs'] + [t for nd in d['nodes'] for t in nd['outputs']]
    for t in ts:
        dims = t['dims']
        text = '?' if dims is None else '[' + ','.join('?' if x is None else str(x) for x in dims) + ']'
        assert text == t['shape'], (t, text)
        n += 1
ur = json.load(open(sys.argv[2]))['inputs'][0]
assert ur['dims'] is None and ur['shape'] == '?', ur
dec = json.load(open(sys.argv[1]))
ids = [i for i in dec['inputs'] if i['name'] == 'input_ids'][0]
assert ids['dims'] == ['batch', 'seq'], ids
assert any(isinstance(x, int) for i in dec['inputs'] for x in i['dims'] or [])
print('ok', min(n, 41))" "$dims_rec" "$ur_rec"
check llm_present 0 "16173.875" -- "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['llm']['prefill']['flops_per_token'])" "$llm_rec"
"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); d['llm']['decode']['tokenz'] = 1; json.dump(d, open(sys.argv[2], 'w'))" "$llm_rec" "$tmp/bad8.json"
check invalid_8 1 "0 of 1 record" -- "$py" "$validate" "$tmp/schema.json" record "$tmp/bad8.json"
# Summaries, sweeps and diffs are closed as well.
"$py" - "$tmp" "$(doc analyze "$pb" --summary)" "$(doc diff "$pb" "$onnx" --json)" <<'PYEOF'
import json, sys
t = sys.argv[1]
s = json.load(open(sys.argv[2])); s["extra"] = True; json.dump(s, open(t + "/bad9.json", "w"))
d = json.load(open(sys.argv[3])); d["base"]["extra"] = True; json.dump(d, open(t + "/bad10.json", "w"))
PYEOF
check invalid_summary_key 1 "0 of 1 summary" -- "$py" "$validate" "$tmp/schema.json" summary "$tmp/bad9.json"
check invalid_diff_key 1 "0 of 1 diff" -- "$py" "$validate" "$tmp/schema.json" diff "$tmp/bad10.json"

# Every corpus model: its record (with per-node detail and the passes) and
# its summary.
if [ -d "$corpus" ]; then
  models=()
  for f in "$corpus"/tf/*.pb "$corpus"/tf-unfused/*.pb "$corpus"/onnx/*.onnx "$corpus"/onnx/ort-extended/*.onnx "$corpus"/tflite/*.tflite; do
    [ -f "$f" ] && models+=("$f")
  done
  for d in "$corpus"/tfjs/*/; do
    [ -f "$d/model.json" ] && models+=("${d%/}")
  done
  crec=()
  csum=()
  ccard=()
  for m in "${models[@]}"; do
    r=$(corpus_doc analyze "$m" --json --per-node)
    [ -n "$r" ] && crec+=("$r")
    r=$(corpus_doc analyze "$m" --summary)
    [ -n "$r" ] && csum+=("$r")
    r=$(corpus_doc card "$m" --format json)
    [ -n "$r" ] && ccard+=("$r")
  done
  echo "corpus: ${#models[@]} models, ${#crec[@]} records, ${#csum[@]} summaries"
  check corpus_most_analysed 0 "" -- test "${#crec[@]}" -ge $((${#models[@]} * 9 / 10))
  valid record corpus_records "${crec[@]}"
  valid summary corpus_summaries "${csum[@]}"
  valid card corpus_cards "${ccard[@]}"
else
  skip_part "corpus: $corpus is absent"
fi

finish
