#!/usr/bin/env bash
# A model and ONNX Runtime's optimised form of it compute the same thing, so
# their MACs must be equal. For every graph in the shared corpus's
# onnx/ort-extended/ (ONNX Runtime's 'extended' level output, carrying
# com.microsoft FusedConv, FusedGemm, FusedMatMul, Gelu, QuickGelu,
# SkipLayerNormalization ...): foldline's MACs on it equal foldline's MACs on
# its raw graph (onnx/NAME.raw.stripped.onnx), exactly, with no unknown op in
# either, analysed as given (--passes none). The corpus models declare every
# input dim (MANIFEST), so there is no free dim to bind; a model whose totals
# are symbolic is bound at several values of each symbol and compared at each.
# Exit 77 (skipped) when the corpus is absent.
# Usage: cli_onnx_ort.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
py=/usr/bin/python3
. "$here/checks.bash"
[ -d "$corpus/onnx/ort-extended" ] || skip_all "cli_onnx_ort: $corpus/onnx/ort-extended is absent"

# MACs, unknown-op count and symbol names of one analysis.
summary() { # model [options...]
  "$bin" analyze "$@" --passes none --json 2>"$tmp/err" | "$py" -c '
import json, sys
r = json.load(sys.stdin)
syms = " ".join(sorted(s["name"] if isinstance(s, dict) else str(s) for s in r.get("symbols", [])))
q = r["totals"]["macs"]  # a count: {"value": N} or {"formula": "..."}
print(q.get("value", q.get("formula")), len(r["unknown_ops"]), syms or "-")'
}

n=0
for opt in "$corpus"/onnx/ort-extended/*.raw.ort-extended.stripped.onnx; do
  name=$(basename "$opt" .raw.ort-extended.stripped.onnx)
  raw="$corpus/onnx/$name.raw.stripped.onnx"
  if [ ! -f "$raw" ]; then
    echo "FAIL $name: no raw graph $raw"
    fails=$((fails + 1))
    continue
  fi
  read -r m_raw u_raw s_raw < <(summary "$raw")
  read -r m_opt u_opt s_opt < <(summary "$opt")
  if [ "$m_raw" = "$m_opt" ] && [ "$u_raw" = 0 ] && [ "$u_opt" = 0 ] && [ -n "$m_raw" ]; then
    echo "ok $name: MACs $m_raw"
    pass=$((pass + 1))
  else
    echo "FAIL $name: MACs raw $m_raw, ORT-optimised $m_opt; unknown ops $u_raw / $u_opt"
    fails=$((fails + 1))
  fi
  # Symbolic totals: compare at several bindings of every symbol.
  if [ "$s_raw" != - ]; then
    for v in 1 3 17; do
      binds=()
      for s in $s_raw; do binds+=(--bind "$s=$v"); done
      read -r a _ _ < <(summary "$raw" "${binds[@]}")
      read -r b _ _ < <(summary "$opt" "${binds[@]}")
      check "${name}_bind_$v" 0 "" -- test "$a" = "$b"
    done
  fi
  n=$((n + 1))
done
[ "$n" -ge 12 ] || { echo "FAIL: only $n ORT-optimised graphs"; fails=$((fails + 1)); }
finish
