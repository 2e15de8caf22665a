#!/usr/bin/env bash
# torchvision's swin_t as torch exports it (tests/data/swin_t.stripped.onnx.gz,
# written by tests/tools/export_swin_t.py; this test needs only the file): the
# shifted-window padding is a Shape -> Mod -> Concat -> Slice -> Transpose ->
# Pad chain, so every window's shapes hang on evaluating that chain. Every node
# must be costed, and the MACs must equal the closed form (see the exporter),
# computed here from the architecture, not from foldline:
#   4,490,566,656 per image.
# Usage: cli_swin.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"
gzip -dc "$data/swin_t.stripped.onnx.gz" >"$tmp/swin_t.onnx" || { echo "FAIL gunzip"; exit 1; }
m="$tmp/swin_t.onnx"

# Closed form: patch embedding, 12*N*C^2 + 2*N*M^2*C per block, patch merging
# 2*N*C^2 after stages 1-3, the 768 -> 1000 head.
macs=$((56 * 56 * 96 * 3 * 16))
for stage in "96 2 56" "192 2 28" "384 6 14" "768 2 7"; do
  read -r C D H <<<"$stage"
  N=$((H * H))
  macs=$((macs + D * (12 * N * C * C + 2 * N * 49 * C)))
  [ "$C" -ne 768 ] && macs=$((macs + 2 * N * C * C))
done
macs=$((macs + 768 * 1000))

# Symbolic batch: complete, and the per-image MACs times batch.
check complete_symbolic 0 "coverage  7100 of 7100 nodes have a cost rule" -- \
  "$bin" analyze "$m" --passes none --require-complete
check macs_symbolic 0 "MACs          ${macs}*batch" -- "$bin" analyze "$m" --passes none

# Bound batches, before and after the passes (a rewrite changes no MAC).
json_macs() { # file -> "before after" MACs
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["before"]["macs"]["value"], d["after"]["macs"]["value"], d["complete"],
      d["coverage"]["nodes_incomplete"])' "$1"
}
for b in 1 3; do
  "$bin" analyze "$m" --bind batch=$b --json >"$tmp/b$b.json" 2>"$tmp/b$b.err"
  rc=$?
  got=$(json_macs "$tmp/b$b.json" 2>&1)
  want="$((macs * b)) $((macs * b)) True 0"
  if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then pass=$((pass + 1)); else
    echo "FAIL batch_$b: exit $rc, got '$got', want '$want'; $(head -c 300 "$tmp/b$b.err")"
    fails=$((fails + 1))
  fi
done

# --max-memory-mb from 1 to 32 MB with the default passes: a limit fails
# (exit 3, naming it) or gives the report of the unlimited analysis, and
# every limit from the smallest that passes on passes (arena blocks cut
# down to the room a limit left made 12-15 MB pass and 16-17 MB fail).
# The self-checks (FOLDLINE_VERIFY=1, which CTest sets) take memory of
# their own and move the smallest passing limit past that window, so the
# sweep runs with them off; a debug build keeps them on whatever the
# environment says, and there the sweep checks the order only.
export FOLDLINE_VERIFY=0
"$bin" analyze "$m" --per-node --max-memory-mb 0 >"$tmp/unlimited.txt" 2>&1
first=""
for mb in $(seq 1 32); do
  "$bin" analyze "$m" --per-node --max-memory-mb "$mb" >"$tmp/lim.txt" 2>"$tmp/lim.err"
  rc=$?
  if [ $rc -eq 0 ] && cmp -s "$tmp/lim.txt" "$tmp/unlimited.txt"; then
    first=${first:-$mb}
    pass=$((pass + 1))
  elif [ $rc -eq 3 ] && [ -z "$first" ] &&
    grep -qF "the memory limit of $((mb << 20)) bytes" "$tmp/lim.err"; then
    pass=$((pass + 1))
  else
    echo "FAIL limit_${mb}mb: exit $rc (smallest passing limit: ${first:-none}); $(head -c 300 "$tmp/lim.err")"
    fails=$((fails + 1))
  fi
done
[ -n "$first" ] || { echo "FAIL limits: none of 1-32 MB passes"; fails=$((fails + 1)); }
echo "smallest passing --max-memory-mb: ${first:-none}"
finish
