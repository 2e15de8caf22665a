#!/usr/bin/env bash
# The CLI's contract: exit codes, one-line errors that name the problem, and
# the JSON document. Usage: cli_basics.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

check help 0 "usage: foldline analyze" -- "$bin" --help
# The project's version (CMakeLists.txt), as --version prints it.
version=$(sed -n 's/^project(foldline VERSION \([0-9.]*\) .*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
check version 0 "foldline $version" -- "$bin" --version
check no_args 2 "usage" -- "$bin"
check unknown_command 2 "unknown command 'frobnicate'" -- "$bin" frobnicate
check unknown_option 2 "unknown option '--bogus'" -- "$bin" analyze "$data/tiny_cnn.pb" --bogus
check missing_model 2 "analyze needs a MODEL file" -- "$bin" analyze
check bad_input_syntax 2 "--input expects NAME=D0,D1" -- "$bin" analyze "$data/tiny_cnn.pb" --input nodims
check bad_dim 2 "dimension 'x' is not a non-negative integer" -- "$bin" analyze "$data/tiny_cnn.pb" --input input=1,x
check bad_bind 2 "--bind N: '-3' is not an integer >= 0" -- "$bin" analyze "$data/tiny_cnn.pb" --bind N=-3
check option_needs_value 2 "option --top needs a value" -- "$bin" analyze "$data/tiny_cnn.pb" --top
check no_such_file 3 "cannot open '$tmp/none.pb'" -- "$bin" analyze "$tmp/none.pb"
printf '\x0a\xff\xff\xff\xff\x0f\x01' >"$tmp/junk.pb"
check junk_model 1 "not a valid binary tensorflow.GraphDef" -- "$bin" analyze "$tmp/junk.pb" --format graphdef
# Bindings that do not fit the model are usage errors (exit 2), like an
# unbound symbol; an unknown symbol's message lists the model's symbols.
check unbound_name 2 "input binding names 'nope', which is not a node of the graph (its inputs: input)" -- "$bin" analyze "$data/tiny_cnn.pb" --input nope=1
check rank_mismatch 2 "input binding gives rank 2 but the placeholder's shape has rank 4" -- "$bin" analyze "$data/tiny_cnn.pb" --input input=1,2
check unknown_symbol 2 "symbol binding names 'N', which is not a symbol of the graph (its symbols: input.0)" -- "$bin" analyze "$data/tiny_cnn.pb" --bind N=8
check unknown_symbol_onnx 2 "symbol binding names 'x.0', which is not a symbol of the graph (its symbols: N)" -- "$bin" analyze "$data/tiny_cnn.onnx" --bind x.0=8
check no_symbols 2 "symbol binding names 'input.0', but the graph has no symbols" -- "$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3 --bind input.0=8
# A model using what foldline does not support: exit 5, naming it (a
# ModelProto importing ai.onnx opset 13 whose graph input x has elem_type 27,
# a code past ONNX's last type (INT2, 26), written byte by byte).
printf '\x08\x07\x3a\x0e\x12\x01\x67\x5a\x09\x0a\x01\x78\x12\x04\x0a\x02\x08\x1b\x42\x02\x10\x0d' >"$tmp/fp8.onnx"
check unsupported 5 "elem_type 27 (newer than this foldline knows) is not supported" -- "$bin" analyze "$tmp/fp8.onnx"
check summary 0 "608,636" -- "$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3
check symbolic 0 "617852*input.0" -- "$bin" analyze "$data/tiny_cnn.pb"
check bound_symbol 0 "4,869,088" -- "$bin" analyze "$data/tiny_cnn.pb" --bind input.0=8
check savedmodel_dir 3 "saved_model.pb" -- "$bin" analyze "$tmp"
check bad_folded_limit 2 "--max-folded-bytes expects an integer >= 1, got '0'" -- "$bin" analyze "$data/tiny_cnn.pb" --max-folded-bytes 0

# ONNX: detected from the bytes, dim_param N is the symbol; optimize writes
# ONNX back (tests/cli/cli_onnx_writeback.sh runs the result in ONNX Runtime).
check onnx_symbolic 0 "295072*N" -- "$bin" analyze "$data/tiny_cnn.onnx"
check onnx_bound 0 "1,180,288" -- "$bin" analyze "$data/tiny_cnn.onnx" --bind N=4
check onnx_optimize 0 "7 nodes; 10 before" -- "$bin" optimize "$data/tiny_cnn.onnx" -o "$tmp/x.onnx"
check health_needs_server 2 "health asks a server: foldline --server HOST:PORT health" -- "$bin" health

# The JSON document parses and carries the documented keys and exact totals.
"$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3 --json --per-node >"$tmp/out.json" 2>"$tmp/err"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["schema_version", "foldline_version", "graph", "complete", "inputs", "outputs",
          "symbols", "totals", "coverage", "options", "ops", "unknown_ops", "warnings", "nodes"]:
    assert k in d, k
assert d["schema_version"] == 2 and d["complete"] is True, d["schema_version"]
t = d["totals"]
assert t["tfprof_flops"] == {"value": 608636}, t
assert t["flops"] == {"value": 617852}, t
assert t["macs"] == {"value": 295072}, t
assert t["bytes"]["value"] == t["bytes_read"]["value"] + t["bytes_written"]["value"]
conv = [n for n in d["nodes"] if n["name"] == "conv1/Conv2D"][0]
assert conv["outputs"][0]["shape"] == "[1,32,32,8]", conv
assert conv["macs"] == {"value": 221184}, conv
assert d["inputs"] == [{"name": "input", "dtype": "float", "shape": "[1,32,32,3]",
                      "dims": [1, 32, 32, 3]}], d["inputs"]
assert d["outputs"] == ["probs"], d["outputs"]
# Every count, everywhere, is one object shape: {"value": int} or {"formula": str}.
def counts(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k in ("flops", "tfprof_flops", "macs", "bytes", "bytes_read", "bytes_written") \
                    and isinstance(v, dict):
                yield v
            else:
                yield from counts(v)
    elif isinstance(x, list):
        for v in x:
            yield from counts(v)
cs = [c for k, v in d.items() if k != "roofline" for c in counts(v)]
assert len(cs) > 100 and all(list(c) in (["value"], ["formula"]) for c in cs), cs[:3]
assert all(isinstance(c.get("value", 0), int) for c in cs)
o = d["options"]
assert o["inputs"] == [{"name": "input", "dims": [1, 32, 32, 3]}], o
assert (o["device"], o["remapper_mode"], o["pass_selection"]) == ("cpu", "standard", "default"), o
assert o["limits"] == {"max_nodes": 5000000, "max_value_elements": 1048576,
                       "max_memory_bytes": 8 << 30, "max_folded_bytes": 102400}, o["limits"]
assert d["graph"]["producer"] == 1205 and d["graph"]["opset"] is None, d["graph"]
PY
  then pass=$((pass + 1)); else echo "FAIL json"; fails=$((fails + 1)); fi
  "$bin" analyze "$data/tiny_cnn.pb" --json >"$tmp/sym.json"
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['totals']['flops']=={'formula': '617852*input.0'}, d['totals']; assert d['symbols']==['input.0'] and d['complete'] is True" "$tmp/sym.json"; then
    pass=$((pass + 1)); else echo "FAIL json_symbolic"; fails=$((fails + 1)); fi
else
  skip_part "python3 absent: JSON parse checks"
fi

# Rewrite passes: `analyze` runs the default passes unless told otherwise
# (before/after and the ledger after the analysis); `--passes none` is the
# analysis of the graph as given; `optimize` writes a graph that re-imports
# with the "after" totals.
check optimize_needs_out 2 "optimize needs -o OUT.pb" -- "$bin" optimize "$data/tiny_cnn.pb"
check bad_pass 2 "unknown pass 'bogus'" -- "$bin" analyze "$data/tiny_cnn.pb" --passes pruning,bogus
check bad_output 2 "output 'nope' names no node" -- "$bin" optimize "$data/tiny_cnn.pb" -o "$tmp/x.pb" --output nope
check passes_table 0 "rewrite passes (Grappler order)" -- "$bin" analyze "$data/tiny_cnn.pb" --passes default
check passes_by_default 0 "rewrite passes (Grappler order)" -- "$bin" analyze "$data/tiny_cnn.pb"
check ledger_by_default 0 "contraction_bias_activation  conv1/Relu: Conv2D+BiasAdd+Relu -> _FusedConv2D" -- "$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3
# The rule column is as wide as its longest name (27 here): every node name
# starts in one column (the 34th: 4 spaces, 27, 2 spaces).
"$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3 >"$tmp/ledger.txt"
check ledger_aligned 0 "1 34" -- sh -c "grep -E '^    contraction_bias' '$tmp/ledger.txt' | awk '{ print index(\$0, \$2) }' | sort -u | awk '{ n++; c = \$1 } END { print n, c }'"
check optimize 0 "wrote     $tmp/opt.pb" -- "$bin" optimize "$data/tiny_cnn.pb" -o "$tmp/opt.pb" --input input=1,32,32,3
"$bin" analyze "$data/tiny_cnn.pb" --input input=1,32,32,3 --passes default --json >"$tmp/pj.json" 2>/dev/null
"$bin" analyze "$tmp/opt.pb" --input input=1,32,32,3 --json >"$tmp/rj.json" 2>/dev/null
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$tmp/pj.json" "$tmp/rj.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
assert p["before"]["flops"] == p["totals"]["flops"] == {"value": 617852}, p["before"]
for k in ["flops", "tfprof_flops", "macs", "bytes", "nodes"]:
    assert p["after"][k] == r["totals"][k], (k, p["after"], r["totals"])
assert [x["pass"] for x in p["passes"][:7]] == ["pruning", "cse", "constfold", "shape",
                                               "arithmetic", "remap", "dependency"]
PY
  then pass=$((pass + 1)); else echo "FAIL optimize_reimport"; fails=$((fails + 1)); fi
else
  skip_part "python3 absent: optimize re-import check"
fi
# The default is `--passes default`; `--passes none` is that output up to the
# passes' section (the graph as given: same lines, nothing after them).
"$bin" analyze "$data/tiny_cnn.pb" >"$tmp/plain.txt" 2>&1
"$bin" analyze "$data/tiny_cnn.pb" --passes default >"$tmp/default.txt" 2>&1
"$bin" analyze "$data/tiny_cnn.pb" --passes none >"$tmp/none.txt" 2>&1
if cmp -s "$tmp/plain.txt" "$tmp/default.txt"; then pass=$((pass + 1)); else
  echo "FAIL passes_default_identical"; fails=$((fails + 1)); fi
n=$(wc -l <"$tmp/none.txt")
if ! grep -q "rewrite passes" "$tmp/none.txt" && head -n "$n" "$tmp/plain.txt" | cmp -s - "$tmp/none.txt" &&
  [ "$(sed -n "$((n + 2))p" "$tmp/plain.txt")" = "rewrite passes (Grappler order)" ]; then
  pass=$((pass + 1)); else echo "FAIL passes_none_is_prefix"; fails=$((fails + 1)); fi
"$bin" analyze "$data/tiny_cnn.pb" --json >"$tmp/dj.json" 2>/dev/null
"$bin" analyze "$data/tiny_cnn.pb" --json --passes none >"$tmp/nj.json" 2>/dev/null
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$tmp/dj.json" "$tmp/nj.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = json.load(open(sys.argv[2]))
assert d["before"] == dict(d["totals"], nodes=19) and d["after"]["nodes"] == 14, d["after"]
assert "before" not in n and "after" not in n and "passes" not in n, sorted(n)
assert {k: v for k, v in d.items() if k not in ("before", "after", "passes", "options")} == \
    {k: v for k, v in n.items() if k != "options"}
assert (d["options"]["pass_selection"], n["options"]["pass_selection"]) == ("default", "none")
PY
  then pass=$((pass + 1)); else echo "FAIL json_default_passes"; fails=$((fails + 1)); fi
else
  skip_part "python3 absent: JSON passes check"
fi

# Partial answers say so. A graph of one node of an op type nobody knows
# (GraphDef: node {name: "x" op: "Frobnicate"}): the text starts with a
# banner, the JSON says complete false and what is excluded, and
# --require-complete exits 4 (after printing). An empty graph is an error.
printf '\x0a\x0f\x0a\x01x\x12\x0aFrobnicate' >"$tmp/unknown.pb"
check partial_banner 0 "PARTIAL   the totals leave out the FLOPs of 1 of 1 nodes (0 without a FLOP rule, 1 incomplete; 1 of unknown op types)" -- "$bin" analyze "$tmp/unknown.pb"
check partial_require_complete 4 "the answer is partial: the totals leave out the FLOPs of 1 of 1 nodes" -- "$bin" analyze "$tmp/unknown.pb" --require-complete
check complete_require_complete 0 "617852*input.0" -- "$bin" analyze "$data/tiny_cnn.pb" --require-complete
: >"$tmp/empty.pb"
check empty_graph 1 "the graph has no nodes: nothing to analyse" -- "$bin" analyze "$tmp/empty.pb"
if "$bin" analyze "$data/tiny_cnn.pb" | head -n 1 | grep -q '^model '; then pass=$((pass + 1)); else
  echo "FAIL complete_no_banner"; fails=$((fails + 1)); fi
# ONNX in ONNX terms: producer and opset, operators (initializers apart),
# graph output names, no tfprof line.
check onnx_header 0 "(onnx, opset " -- "$bin" analyze "$data/tiny_cnn.onnx"
"$bin" analyze "$data/tiny_cnn.onnx" --passes none >"$tmp/onnx.txt" 2>&1
if ! grep -q "tfprof" "$tmp/onnx.txt" && grep -q "^nodes     [0-9]* operators (+[0-9]* initializers)" "$tmp/onnx.txt"; then
  pass=$((pass + 1)); else echo "FAIL onnx_terms: $(head -c 400 "$tmp/onnx.txt")"; fails=$((fails + 1)); fi
if command -v python3 >/dev/null 2>&1; then
  "$bin" analyze "$tmp/unknown.pb" --json >"$tmp/partial.json"
  "$bin" analyze "$data/tiny_cnn.onnx" --json --per-node >"$tmp/onnx.json"
  "$bin" analyze "$data/tiny_cnn.pb" --summary --bind input.0=2 --profile all >"$tmp/summary.json"
  if python3 - "$tmp/partial.json" "$tmp/onnx.json" "$tmp/summary.json" "$data/tiny_cnn.onnx" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
assert p["complete"] is False and p["coverage"]["nodes_excluded"] == 1, p["coverage"]
assert p["unknown_ops"] == [{"op": "Frobnicate", "count": 1}], p["unknown_ops"]
o = json.load(open(sys.argv[2]))
g = o["graph"]
assert g["format"] == "onnx" and g["producer"] is None and g["opset"] >= 7, g
# Independently of foldline: count the ModelProto's operators and
# initializers with the protobuf runtime when it is there.
try:
    sys.path.insert(0, os.environ.get("FL_PY_STUBS", ""))
    import onnx.onnx_pb2 as opb  # generated from proto/ by the integration suite only
except Exception:
    opb = None
if opb:
    m = opb.ModelProto()
    m.ParseFromString(open(sys.argv[4], "rb").read())
    assert g["nodes"] == len(m.graph.node) and g["initializers"] == len(m.graph.initializer), g
    assert o["outputs"] == [x.name for x in m.graph.output], o["outputs"]
assert g["nodes"] == len(o["nodes"]) == o["totals"]["nodes"], (g, len(o["nodes"]))
assert all(n["op"] not in ("Const", "Placeholder") for n in o["nodes"]), [n["op"] for n in o["nodes"]]
assert o["flop_conventions"]["tfprof_flops"] is None and o["totals"]["tfprof_flops"] is None
assert all(n["tfprof_flops"] is None for n in o["nodes"])
s = json.load(open(sys.argv[3]))
assert s["schema_version"] == 2 and s["complete"] is True and len(s["roofline"]) >= 10, s.keys()
assert all(len(r["hash"]) == 16 and r["speedup"] > 1 for r in s["roofline"]), s["roofline"][0]
assert os.path.getsize(sys.argv[3]) < 4096, os.path.getsize(sys.argv[3])
PY
  then pass=$((pass + 1)); else echo "FAIL json_partial_onnx_summary"; fails=$((fails + 1)); fi
fi

finish
