#!/usr/bin/env bash
# `foldline card`: the model-card section states parameters (from the
# tests/data architectures, tests/tools/mkmodels.c), FLOPs/MACs/bytes as
# formulas and at the stated bindings (the values computed here from the
# formulas), and the latency per profile equal to analyze's estimate, with
# the profile's file, description and calibration; Markdown and JSON.
# Usage: cli_card.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
here=$(cd "$(dirname "$0")" && pwd)
profiles="$here/../../deploy/profiles"
. "$here/checks.bash"
py=$(command -v python3) || skip_all "cli_card: python3 is absent"

pb="$data/tiny_cnn.pb"
onnx="$data/tiny_cnn.onnx"

# Markdown, no binding given: formulas, and the values with input.0 at 1.
check md_params 0 "| parameters | \`1562\` |" -- "$bin" card "$pb"
check md_flops 0 "| FLOPs | \`617852*input.0\` | 617.9 kFLOP (617852) |" -- "$bin" card "$pb"
check md_macs 0 "| MACs | \`295072*input.0\` | 295.1 kMAC (295072) |" -- "$bin" card "$pb"
check md_default_binding 0 "stated at 1" -- "$bin" card "$pb"
check md_binding_header 0 "| quantity | formula | at input.0=1 |" -- "$bin" card "$pb"
check md_onnx_params 0 "| parameters | \`1594\` |" -- "$bin" card "$onnx"
check md_onnx_head 0 "(onnx, opset 13): 10 operators; input \`input\` float [N,3,32,32]" -- "$bin" card "$onnx"

# Bound at 4: the formula's coefficient times 4, computed here.
"$bin" card "$pb" --bind input.0=4 --profile epyc-9654 --format json >"$tmp/card.json"
check json_values 0 "2471408 1180288" -- "$py" -c "
import json; d = json.load(open('$tmp/card.json'))
f = d['formulas']['flops']['formula']; m = d['formulas']['macs']['formula']
assert f.endswith('*input.0') and m.endswith('*input.0'), (f, m)
want = (int(f.split('*')[0]) * 4, int(m.split('*')[0]) * 4)
got = (d['values']['flops']['value'], d['values']['macs']['value'])
assert got == want, (got, want)
assert d['bindings'] == [{'name': 'input.0', 'value': 4, 'default': False}], d['bindings']
print(*got)"
# The latency is analyze's estimate with the same binding and profile; the
# profile's description is the YAML's.
"$bin" analyze "$pb" --bind input.0=4 --profile epyc-9654 --json >"$tmp/a.json"
desc=$(sed -n 's/^description: //p' "$profiles/epyc-9654.yaml")
check json_latency 0 "same" -- "$py" -c "
import json; d = json.load(open('$tmp/card.json')); a = json.load(open('$tmp/a.json'))
l = d['latency'][0]; r = a['roofline'][0]
assert l['profile'] == 'epyc-9654' and l['time_s'] == r['before']['time_s'], (l, r['before']['time_s'])
assert l['after_time_s'] == r['after']['time_s']
assert l['calibrated'] is False and l['file'] == 'epyc-9654.yaml' and l['kind'] == 'cpu'
assert l['description'] == '''$desc''', l['description']
assert l['hash'] == a['options']['profiles'][0]['hash']
assert l['sources']['compute'] and l['sources']['memory']
print('same')"
check md_latency 0 "| epyc-9654 | cpu |" -- "$bin" card "$pb" --bind input.0=4 --profile epyc-9654
check md_uncalibrated 0 "no: peak figures, a lower bound on time" -- "$bin" card "$pb" --bind input.0=4 --profile epyc-9654
check md_source 0 "\`epyc-9654.yaml\` (hash" -- "$bin" card "$pb" --profile epyc-9654
check md_all_profiles 0 "| a100-80gb | gpu |" -- "$bin" card "$onnx" --profile all

# A decoder's card carries its LLM view at the bindings given: the same
# object as analyze --json prints for the model (phases, KV cache and the
# time per token per profile), and a Markdown section with those figures.
dec="$data/tiny_decoder.onnx"
"$bin" analyze "$dec" --json --prompt 8 --context 32 --profile t4 >"$tmp/dec_a.json" 2>/dev/null
"$bin" card "$dec" --format json --prompt 8 --context 32 --profile t4 >"$tmp/dec_c.json" 2>"$tmp/dec_c.err"
check json_llm_same 0 "same" -- "$py" -c "
import json
a = json.load(open('$tmp/dec_a.json')); c = json.load(open('$tmp/dec_c.json'))
assert c['llm'] == a['llm'], (c.get('llm'), a['llm'])
assert [e['profile'] for e in c['llm']['roofline']] == ['t4']
print('same')"
"$bin" card "$dec" --prompt 8 --context 32 --profile t4 >"$tmp/dec_c.md" 2>&1
want_md=$("$py" -c "
import json
v = json.load(open('$tmp/dec_a.json'))['llm']
p = v['prefill']
def t(s):
    return '%.4g µs' % (s * 1e6) if 1e-6 <= s < 1e-3 else '%.4g ms' % (s * 1e3) if s >= 1e-3 else '%.4g ns' % (s * 1e9)
e = v['roofline'][0]
print('| prefill | %d | %d | %d |' % (p['tokens'], p['past'], p['seq']))
print('| t4 | %s (%s) | %s (%s) |' % (t(e['prefill']['time_per_token_s']), e['prefill']['bound'], t(e['decode']['time_per_token_s']), e['decode']['bound']))
# After the graph rewrites: the view's 'after' rows (each phase's graph
# optimised at its bindings, as analyze --json gives them).
a = v['after']
def si(x, u):
    return '%.4g k%s' % (x / 1e3, u) if x >= 1e3 else '%.4g %s' % (x, u)
print('| decode, after graph rewrites | %d | %d | %d | %s |' % (a['decode']['tokens'], a['decode']['past'], a['decode']['seq'], si(a['decode']['flops_per_token'], 'FLOP')))
e = a['roofline'][0]
print('| t4, after graph rewrites | %s (%s) | %s (%s) |' % (t(e['prefill']['time_per_token_s']), e['prefill']['bound'], t(e['decode']['time_per_token_s']), e['decode']['bound']))")
while IFS= read -r line; do
  check "md_llm ${line:0:12}" 0 "$line" -- cat "$tmp/dec_c.md"
done <<<"$want_md"
check md_llm_head 0 "### Generation (LLM view)" -- cat "$tmp/dec_c.md"
check json_no_llm 0 "False" -- sh -c "'$bin' card '$dec' --format json --no-llm | '$py' -c 'import json,sys; print(\"llm\" in json.load(sys.stdin))'"
check json_cnn_no_llm 0 "False" -- sh -c "'$bin' card '$onnx' --format json | '$py' -c 'import json,sys; print(\"llm\" in json.load(sys.stdin))'"

# A partial answer says so (a node of an unknown op type).
printf '\x0a\x0f\x0a\x01x\x12\x0aFrobnicate' >"$tmp/unknown.pb"
check md_partial 0 "**Partial:**" -- "$bin" card "$tmp/unknown.pb"
check json_partial 0 "False" -- sh -c "'$bin' card '$tmp/unknown.pb' --format json | '$py' -c 'import json,sys; print(json.load(sys.stdin)[\"complete\"])'"

# Usage errors.
check bad_format 2 "card --format must be md or json" -- "$bin" card "$pb" --format onnx
check model_format 0 "(onnx" -- "$bin" card "$onnx" --model-format onnx
check needs_model 2 "card needs MODEL first" -- "$bin" card --format md
check no_sweep 2 "card takes no --sweep" -- "$bin" card "$pb" --sweep input.0=1,2
check missing 3 "cannot open" -- "$bin" card "$tmp/none.pb"
check bad_bind 2 "" -- "$bin" card "$pb" --bind nosuch=1
finish
