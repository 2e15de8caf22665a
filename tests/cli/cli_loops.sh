#!/usr/bin/env bash
# A loop whose trip count cannot be determined makes the answer partial in
# every output (shared corpus; exit 77, shown as skipped, when it is absent).
# grappler-function_functional_while.pb: a functional While on a float
# counter (cond Greater, body Sub and Add on float scalars, 1 FLOP each), no
# counted loop, so its body and cond count once: 3 FLOPs, 49 bytes (16 of
# the While + 9 + 12 + 12), a lower bound; the While node "W/while" is the one
# incomplete node of 16.
# Usage: cli_loops.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../shared/corpus"
. "$here/checks.bash"
m="$corpus/tf/grappler-function_functional_while.pb"
if [ ! -f "$m" ]; then
  skip_all "cli_loops: $m is absent"
fi
w="MyFunc_AenMyWWx1Us/While"

check banner 0 "PARTIAL   the totals leave out the FLOPs of 1 of 16 nodes (0 without a FLOP rule, 1 incomplete)" -- "$bin" analyze "$m"
check at_least_flops 0 "  FLOPs         at least 3 (3 FLOP)" -- "$bin" analyze "$m"
check at_least_bytes 0 "  bytes         at least 49 (49 B)" -- "$bin" analyze "$m"
check passes_at_least 0 "rewrite passes (Grappler order): partial, each total at least" -- "$bin" analyze "$m"
check why 0 "While '$w': trip count unknown (the cond's comparison '$w/cond/Greater' reads no loop variable the body steps by a constant)" -- "$bin" analyze "$m"
check summary_warning 0 "1 node(s) depend on trip counts the analysis cannot determine (a loop counted once, or a subgraph also run inside a loop): their counts in the totals are a lower bound" -- "$bin" analyze "$m"
check require_complete 4 "the answer is partial: the totals leave out the FLOPs of 1 of 16 nodes" -- "$bin" analyze "$m" --require-complete
check json_complete 0 '"complete": false' -- "$bin" analyze "$m" --json
check json_counts 0 '"nodes_incomplete": 1, "nodes_excluded": 1' -- "$bin" analyze "$m" --json
check json_node 0 "\"name\": \"$w/while\", \"op\": \"While\"" -- "$bin" analyze "$m" --json --per-node
"$bin" analyze "$m" --json --per-node >"$tmp/nodes.json" 2>/dev/null
# One node a line: the While node is incomplete and still counts its bytes
# (16: its one trip stays in the totals); the body's nodes are complete.
if grep -F "\"name\": \"$w/while\"" "$tmp/nodes.json" | grep -qF '"bytes": {"value": 16}, "has_rule": true, "incomplete": true' &&
  [ "$(grep -cF "\"name\": \"$w/body/" "$tmp/nodes.json")" -gt 0 ] &&
  ! grep -F "\"name\": \"$w/body/" "$tmp/nodes.json" | grep -qF '"incomplete": true'; then
  pass=$((pass + 1))
else
  echo "FAIL json_node_incomplete: $(grep -F "\"name\": \"$w/while\"" "$tmp/nodes.json")"
  fails=$((fails + 1))
fi
finish
