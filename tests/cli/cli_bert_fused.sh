#!/usr/bin/env bash
# A tiny BERT encoder three ways (tests/data/bert_tiny*.stripped.onnx, written
# by tests/tools/export_bert_fused.py; this test needs only the files): torch's
# export (attention, LayerNorm and Gelu as primitive ops), the form ONNX
# Runtime's transformer optimizer gives it (com.microsoft
# EmbedLayerNormalization, Attention with merged Q/K/V weights,
# SkipLayerNormalization, BiasGelu) and the MultiHeadAttention form (separate
# Q/K/V MatMuls). The three compute the same thing (ONNX Runtime gives equal
# outputs on the exporter's unstripped files), so their MACs must be equal,
# and equal to the closed form computed here from the architecture (V 50,
# D 16, 2 heads, 2 layers, FF 64; see the exporter):
#   per layer and token 4*D^2 + 2*D*FF + 2*D*S, a D x D pooler per sequence:
#   MACs = 64*batch*seq^2 + 6144*batch*seq + 256*batch.
# Checked symbolically, at bound (batch, seq) before and after the passes,
# every node costed and no unknown op.
# Usage: cli_bert_fused.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

D=16 FF=64 L=2
per_token=$((L * (4 * D * D + 2 * D * FF)))        # 6144
per_score=$((L * 2 * D))                           # 64, times seq^2
formula="${per_score}*batch*seq^2 + ${per_token}*batch*seq + $((D * D))*batch"

json_macs() { # file -> "before after complete incomplete unknown"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
m=lambda q: q["macs"].get("value", q["macs"].get("formula"))
print(m(d["before"]), m(d["after"]), d["complete"], d["coverage"]["nodes_incomplete"],
      len(d["unknown_ops"]))' "$1"
}

for form in bert_tiny bert_tiny_attn bert_tiny_mha; do
  m="$data/$form.stripped.onnx"
  check "${form}_symbolic" 0 "MACs          $formula" -- "$bin" analyze "$m" --passes none \
    --require-complete
  for bs in "1 8" "2 5" "3 17"; do
    read -r b s <<<"$bs"
    want=$((b * (per_score * s * s + per_token * s + D * D)))
    "$bin" analyze "$m" --bind batch="$b" --bind seq="$s" --json >"$tmp/o.json" 2>"$tmp/o.err"
    rc=$?
    got=$(json_macs "$tmp/o.json" 2>&1)
    if [ $rc -eq 0 ] && [ "$got" = "$want $want True 0 0" ]; then pass=$((pass + 1)); else
      echo "FAIL ${form}_b${b}_s$s: exit $rc, got '$got', want '$want $want True 0 0';" \
        "$(head -c 300 "$tmp/o.err")"
      fails=$((fails + 1))
    fi
  done
done
# The fused forms carry the contrib ops they are meant to test (op: count).
op_counts() { # model -> "op:count ..." sorted
  "$bin" analyze "$1" --passes none --json | python3 -c 'import json,sys
print(" ".join(sorted("%s:%d" % (o["op"], o["count"]) for o in json.load(sys.stdin)["ops"])))'
}
want_attn="Attention:2 BiasGelu:2 Cast:3 EmbedLayerNormalization:1 Gather:1 Gemm:1 Identity:1 MatMul:6"
want_attn="$want_attn SkipLayerNormalization:4 Tanh:1"
check attn_ops 0 "$want_attn" -- op_counts "$data/bert_tiny_attn.stripped.onnx"
want_mha="BiasGelu:2 Cast:3 EmbedLayerNormalization:1 Gather:1 Gemm:1 Identity:1 MatMul:12"
want_mha="$want_mha MultiHeadAttention:2 SkipLayerNormalization:4 Tanh:1"
check mha_ops 0 "$want_mha" -- op_counts "$data/bert_tiny_mha.stripped.onnx"
finish
