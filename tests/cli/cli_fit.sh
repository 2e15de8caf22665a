#!/usr/bin/env bash
# `foldline fit`: fits a profile's efficiency tables to ONNX Runtime traces
# (hand-written here in ORT's profiling format) of tests/data/tiny_cnn.onnx;
# the fitted profile loads and estimates with an interval; the base profile
# is left as it was; bad traces and options are refused naming file and
# problem.
# Usage: cli_fit.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

m="$data/tiny_cnn.onnx"
base="$(dirname "$0")/../../deploy/profiles/xeon-8380.yaml"
cp "$base" "$tmp/base.yaml"

# A trace of RUNS runs: kernel times (us) per node, each run 40 us longer than
# its kernels (dispatch). $1 = output file, $2 = a factor on every time.
trace() {
  python3 - "$1" "$2" <<'PY'
import json, sys
out, f = sys.argv[1], float(sys.argv[2])
nodes = [("conv1", "Conv", [1, 8, 32, 32], 40), ("bn1", "BatchNormalization", [1, 8, 32, 32], 12),
         ("relu1", "Relu", [1, 8, 32, 32], 6), ("pool1", "MaxPool", [1, 8, 16, 16], 9),
         ("conv2", "Conv", [1, 16, 8, 8], 15), ("relu2", "Relu", [1, 16, 8, 8], 2),
         ("gap", "GlobalAveragePool", [1, 16, 1, 1], 3), ("flatten", "Flatten", [1, 16], 1),
         ("fc", "Gemm", [1, 10], 2), ("softmax", "Softmax", [1, 10], 2)]
ev, ts = [], 0
for run in range(5):
    start = ts
    for name, op, shape, us in nodes:
        d = round(us * f * (1 + 0.01 * run))
        ev.append({"cat": "Node", "name": name + "_kernel_time", "ts": ts, "dur": d, "ph": "X",
                   "args": {"op_name": op, "output_type_shape": [{"float": shape}]}})
        ts += d + 4
    ev.append({"cat": "Session", "name": "model_run", "ts": start, "dur": ts - start, "ph": "X", "args": {}})
    ts += 10
json.dump(ev, open(out, "w"))
PY
}

if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 absent: the traces cannot be written"
  exit 77
fi
trace "$tmp/t1.json" 1
trace "$tmp/t2.json" 1.1
trace "$tmp/t3.json" 0.9
check fit 0 "wrote $tmp/fitted.yaml (profile 'fitted')" -- "$bin" fit --profile "$tmp/base.yaml" -o "$tmp/fitted.yaml" --bind N=1 "$m=$tmp/t1.json" "$m=$tmp/t2.json" "$m=$tmp/t3.json"
check fit_matched 0 "10 matched (10 by name, 0 by op and shape)" -- "$bin" fit --profile "$tmp/base.yaml" -o "$tmp/fitted.yaml" --bind N=1 "$m=$tmp/t1.json" "$m=$tmp/t2.json" "$m=$tmp/t3.json"
check fit_interval_printed 0 "interval (leave-one-model-out, 80 %)" -- "$bin" fit --profile "$tmp/base.yaml" -o "$tmp/fitted.yaml" --bind N=1 "$m=$tmp/t1.json" "$m=$tmp/t2.json" "$m=$tmp/t3.json"
if cmp -s "$base" "$tmp/base.yaml"; then pass=$((pass + 1)); else echo "FAIL base_untouched"; fails=$((fails + 1)); fi
check fitted_loads 0 "% interval" -- "$bin" analyze "$m" --bind N=1 --passes none --profile "$tmp/fitted.yaml"
check fitted_classes 0 "conv (" -- "$bin" analyze "$m" --bind N=1 --passes none --profile "$tmp/fitted.yaml"
mkdir -p "$tmp/fitdir"
cp "$tmp/fitted.yaml" "$tmp/fitdir/"
check fitted_sources 0 "fitted " -- "$bin" profiles --profiles-dir "$tmp/fitdir" --sources
# Seven classes traced: matmul (Gemm), conv, elementwise (Relu), other
# (Flatten), pooling (MaxPool, GlobalAveragePool), softmax, normalization.
check fitted_listed 0 "efficiency table: 7 classes, 80 % interval" -- "$bin" profiles --profiles-dir "$tmp/fitdir"
check fitted_listed_buckets 0 "conv all: compute " -- "$bin" profiles --profiles-dir "$tmp/fitdir" --sources
check fitted_listed_json 0 '"calibrated": true, "efficiency": [{"class": "matmul", "by": "flops", "buckets": [{"upto": null, "compute": ' -- "$bin" profiles --profiles-dir "$tmp/fitdir" --json
check fit_one_trace 0 "no interval: fewer than 3 traces" -- "$bin" fit --profile xeon-8380 -o "$tmp/one.yaml" --gap-per-kernel --bind N=1 "$m=$tmp/t1.json"
# The fitted kernels: conv1 took 40 us, so its estimate on the fitted profile
# is its kernel time plus the dispatch overhead, within the fit's accuracy
# (--gap-per-kernel: the run's gap as a cost per kernel alone).
"$bin" analyze "$m" --bind N=1 --passes none --per-node --json --profile "$tmp/one.yaml" >"$tmp/one.json"
if python3 - "$tmp/one.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["roofline"][0]["before"]
assert g["calibrated"] is True, g
n = {x["name"]: x for x in g["nodes"]}
# 40 us kernel + 4 us of dispatch per kernel (the trace's gaps): 44 us, to 15 %.
assert abs(n["conv1"]["time_s"] - 44e-6) < 0.15 * 44e-6, n["conv1"]
assert n["conv1"]["class"] == "conv" and n["bn1"]["class"] == "normalization"
assert n["flatten"]["executed"] is True and n["flatten"]["time_s"] > 0
PY
then pass=$((pass + 1)); else echo "FAIL fitted_estimate"; fails=$((fails + 1)); fi

# MODEL=TRACE@MS, --gap-per-kernel: the dispatch overhead from the untraced latency. ORT
# truncates durations to whole us, so a kernel's k runs written d are spread
# over [d, d + 1), the j-th at d + (j - 0.5) / k. The five runs (times x 1,
# 1.01, ... 1.04, rounded) of eight kernels are all equal: the middle one is
# d + 0.5 (bn1: 12.1, 12.3, 12.5, 12.7, 12.9); conv1 ran 40, 40, 41, 41, 42
# (40.25, 40.75, 41.25, 41.75, 42.5: median 41.25) and conv2 15, 15, 15, 15,
# 16 (15.125 ... 15.875, 16.5: median 15.625). 93 + 8 x 0.5 + 0.25 + 0.625 =
# 97.875 us in a 113 us run leave 1.51 us per kernel; a 193 us run would
# leave 9.5 us, more than the 4 us the traced runs show between kernels less
# the halves, 3.5 us (their bound).
check fit_latency 0 "dispatch overhead 1.51 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/lat.yaml" --bind N=1 "$m=$tmp/t1.json@0.113"
check fit_latency_bounded 0 "dispatch overhead 3.5 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/lat.yaml" --bind N=1 "$m=$tmp/t1.json@0.193"
# --quantile 0.25: each kernel's time is the second of its five spread runs:
# d + 0.3 for the eight whose runs are equal, conv1 40.75, conv2 15.375;
# 92 + 8 x 0.3 + 0.75 + 0.375 = 95.525 us in all: a 113 us run leaves
# 1.75 us per kernel; the sources say so.
# By default the gap is a share of the kernels' time: 113 - 97.875 us =
# 15.125 us over 97.875 us of kernels, 15.45 %, written as the profile's
# `gap` (0.154534), and no cost per kernel is left; a 193 us run: 97.2 %
# (not bounded by the traced gaps: the share is a median over the traces);
# a 300 us run would be 206.5 %: the share is bounded to 1 and the rest,
# (300 - 2 x 97.875) / 10 = 10.4 us per kernel, is the dispatch overhead.
check fit_gap_share 0 "run's gap 15.5 % of the kernels' time (median over 1 trace)" -- "$bin" fit --profile xeon-8380 -o "$tmp/share.yaml" --bind N=1 "$m=$tmp/t1.json@0.113"
check fit_gap_share_left 0 "dispatch overhead 0 us per kernel beyond the gap's share (the share leaves none: none written)" -- "$bin" fit --profile xeon-8380 -o "$tmp/share.yaml" --bind N=1 "$m=$tmp/t1.json@0.113"
check fit_gap_share_written 0 "gap: {share: 0.154534, source: " -- cat "$tmp/share.yaml"
mkdir -p "$tmp/sharedir"
cp "$tmp/share.yaml" "$tmp/sharedir/"
check fit_gap_share_listed 0 "run's gap 15.5 % of kernel time (\`gap\`): fitted " -- "$bin" profiles --profiles-dir "$tmp/sharedir" --sources
check fit_gap_share_json 0 '"gap_share": 0.154534, "gap_source": "fitted ' -- "$bin" profiles --profiles-dir "$tmp/sharedir" --json
check fit_gap_share_report 0 "of the overhead: the run's time beyond its kernels, 15.5 % of their time (the profile's \`gap\`: fitted " -- "$bin" analyze "$m" --bind N=1 --passes none --profile "$tmp/share.yaml"
check fit_gap_share_html 0 "is the run's gap: the run's time beyond its kernels, 15.5 % of their time (the profile's <code>gap</code>; source: fitted " -- sh -c '"$1" report "$2" --bind N=1 --profile "$3" -o "$4" && cat "$4"' sh "$bin" "$m" "$tmp/share.yaml" "$tmp/share.html"
check fit_gap_share_large 0 "run's gap 97.2 % of the kernels' time" -- "$bin" fit --profile xeon-8380 -o "$tmp/share.yaml" --bind N=1 "$m=$tmp/t1.json@0.193"
check fit_gap_share_bounded 0 "run's gap 100 % of the kernels' time (median over 1 trace)" -- "$bin" fit --profile xeon-8380 -o "$tmp/share.yaml" --bind N=1 "$m=$tmp/t1.json@0.3"
check fit_gap_share_rest 0 "dispatch overhead 10.4 us per kernel beyond the gap's share" -- "$bin" fit --profile xeon-8380 -o "$tmp/share.yaml" --bind N=1 "$m=$tmp/t1.json@0.3"
check fit_quantile 0 "dispatch overhead 1.75 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/q.yaml" --quantile 0.25 --bind N=1 "$m=$tmp/t1.json@0.113"
check fit_quantile_source 0 "(kernel times: 0.25 quantile of the runs)" -- cat "$tmp/q.yaml"
# --quantile 0 on a loaded host: conv1 ran 9000, 12000, 10000, 11000 and
# 30000 us (every run interrupted), bn1 12 us but 500 in run 2, the other
# kernels as in t1 (40 us of gaps per run): runs of 9092, 12580, 10092, 11092
# and 30092 us, median 11092. A least time is the least 1 us bin a run fell
# in, at its middle: 52 us + 9 x 0.5 for the nine short kernels (bn1's four
# runs of 12 count 12.5, not the least of them spread). With @7.5 (CPU time)
# the process ran 7500 / 11092 of the time; conv1 is longer than a time slice
# (4 ms), so it takes its median (five different figures: 11000.5) x 7500 /
# 11092 = 7438.132 us (less than 9000.5), leaving (7500 - 7438.132 - 52 -
# 4.5) / 10 = 0.537 us per kernel. Plain least times (9057 us) would leave
# none. With @9.2 the scaled median (9124.1 us) exceeds the least time,
# 9000.5 stays: 14.3 us per kernel, bounded by the traced gaps' 3.5 us.
python3 - "$tmp/loaded.json" <<'PY'
import json, sys
nodes = [("conv1", "Conv", [1, 8, 32, 32], [9000, 12000, 10000, 11000, 30000]),
         ("bn1", "BatchNormalization", [1, 8, 32, 32], [12, 500, 12, 12, 12]),
         ("relu1", "Relu", [1, 8, 32, 32], [6] * 5), ("pool1", "MaxPool", [1, 8, 16, 16], [9] * 5),
         ("conv2", "Conv", [1, 16, 8, 8], [15] * 5), ("relu2", "Relu", [1, 16, 8, 8], [2] * 5),
         ("gap", "GlobalAveragePool", [1, 16, 1, 1], [3] * 5), ("flatten", "Flatten", [1, 16], [1] * 5),
         ("fc", "Gemm", [1, 10], [2] * 5), ("softmax", "Softmax", [1, 10], [2] * 5)]
ev, ts = [], 0
for run in range(5):
    start = ts
    for name, op, shape, us in nodes:
        ev.append({"cat": "Node", "name": name + "_kernel_time", "ts": ts, "dur": us[run], "ph": "X",
                   "args": {"op_name": op, "output_type_shape": [{"float": shape}]}})
        ts += us[run] + 4
    ev.append({"cat": "Session", "name": "model_run", "ts": start, "dur": ts - start, "ph": "X", "args": {}})
    ts += 10
json.dump(ev, open(sys.argv[1], "w"))
PY
check fit_least_long 0 "dispatch overhead 0.537 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/q0.yaml" --quantile 0 --bind N=1 "$m=$tmp/loaded.json@7.5"
check fit_least_source 0 "(kernel times: the least of the runs)" -- cat "$tmp/q0.yaml"
check fit_least_kept 0 "dispatch overhead 3.5 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/q0.yaml" --quantile 0 --bind N=1 "$m=$tmp/loaded.json@9.2"
check fit_median_loaded 0 "dispatch overhead 0 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/q0.yaml" --bind N=1 "$m=$tmp/loaded.json@7.5"
# The gaps between kernels: 4 us in runs 1 and 5, 30 us in runs 2-4 (other
# processes): the runs' median leaves 30 x 10 - 10 x 0.5 = 295 us, 29.5 us
# per kernel; --quantile 0 takes the least gap at each place, 0 before the
# first kernel and 4 - 0.5 after each: 35 us, 3.5 us per kernel. A 1 ms
# latency is bounded by each.
python3 - "$tmp/gappy.json" <<'PY'
import json, sys
nodes = [("conv1", "Conv", [1, 8, 32, 32], 40), ("bn1", "BatchNormalization", [1, 8, 32, 32], 12),
         ("relu1", "Relu", [1, 8, 32, 32], 6), ("pool1", "MaxPool", [1, 8, 16, 16], 9),
         ("conv2", "Conv", [1, 16, 8, 8], 15), ("relu2", "Relu", [1, 16, 8, 8], 2),
         ("gap", "GlobalAveragePool", [1, 16, 1, 1], 3), ("flatten", "Flatten", [1, 16], 1),
         ("fc", "Gemm", [1, 10], 2), ("softmax", "Softmax", [1, 10], 2)]
ev, ts = [], 0
for run, gap in enumerate([4, 30, 30, 30, 4]):
    start = ts
    for name, op, shape, us in nodes:
        ev.append({"cat": "Node", "name": name + "_kernel_time", "ts": ts, "dur": us, "ph": "X",
                   "args": {"op_name": op, "output_type_shape": [{"float": shape}]}})
        ts += us + gap
    ev.append({"cat": "Session", "name": "model_run", "ts": start, "dur": ts - start, "ph": "X", "args": {}})
    ts += 10
json.dump(ev, open(sys.argv[1], "w"))
PY
check fit_gaps_median 0 "dispatch overhead 29.5 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/g.yaml" --bind N=1 "$m=$tmp/gappy.json@1"
check fit_gaps_least 0 "dispatch overhead 3.5 us per kernel" -- "$bin" fit --profile xeon-8380 --gap-per-kernel -o "$tmp/g.yaml" --quantile 0 --bind N=1 "$m=$tmp/gappy.json@1"
check fit_quantile_bad 2 "fit: --quantile expects a number in [0, 1), got '1'" -- "$bin" fit --profile xeon-8380 -o "$tmp/q.yaml" --quantile 1 "$m=$tmp/t1.json"
check fit_quantile_missing 2 "fit: option --quantile needs a value" -- "$bin" fit --profile xeon-8380 -o "$tmp/q.yaml" "$m=$tmp/t1.json" --quantile
check fit_latency_bad 2 "fit: 'x': the latency after '@' must be milliseconds > 0" -- "$bin" fit --profile xeon-8380 -o "$tmp/lat.yaml" --bind N=1 "$m=$tmp/t1.json@x"

# Bad input: each error names the file and the problem.
head -c 300 "$tmp/t1.json" >"$tmp/cut.json"
check fit_truncated 1 "$tmp/cut.json:1:" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/cut.json"
echo "not json" >"$tmp/text.json"
check fit_not_json 1 "$tmp/text.json:1:" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/text.json"
echo '{"a": 1}' >"$tmp/obj.json"
check fit_not_trace 1 "not a trace (expected a JSON array of trace events or an object with a traceEvents array)" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/obj.json"
echo '[]' >"$tmp/empty.json"
check fit_no_kernels 1 "$tmp/empty.json: no kernel events" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/empty.json"
trace "$tmp/zero.json" 0
check fit_zero 1 "$tmp/zero.json: every kernel time is 0" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/zero.json"
sed 's/"dur": 40/"dur": "40"/' "$tmp/t1.json" >"$tmp/strdur.json"
check fit_bad_dur 1 "(conv1_kernel_time): 'dur' is not a number >= 0" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/strdur.json"
sed 's/"conv1_kernel_time"/"other_kernel_time"/; s/_kernel_time"/x_kernel_time"/g; s/"Conv"/"Tanh"/g; s/"Gemm"/"Tanh"/g; s/"Relu"/"Tanh"/g; s/"BatchNormalization"/"Tanh"/g; s/"MaxPool"/"Tanh"/g; s/"GlobalAveragePool"/"Tanh"/g; s/"Flatten"/"Tanh"/g; s/"Softmax"/"Tanh"/g' "$tmp/t1.json" >"$tmp/other.json"
check fit_other_model 1 "$tmp/other.json: no kernel matches an op of $m" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/other.json"
sed 's/\[1, 8, 32, 32\]/[1, 8, 64, 64]/g' "$tmp/t1.json" >"$tmp/bigger.json"
check fit_other_size 1 "node conv1 (Conv): traced output [1,8,64,64] but $m gives [1,8,32,32]" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/bigger.json"
check fit_missing_trace 3 "$tmp/none.json" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/none.json"
check fit_missing_model 3 "cannot read '$tmp/none.onnx'" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" "$tmp/none.onnx=$tmp/t1.json"
check fit_no_out 2 "fit: -o OUT.yaml is required" -- "$bin" fit --profile xeon-8380 "$m=$tmp/t1.json"
check fit_no_pairs 2 "fit: give at least one MODEL.onnx=TRACE.json" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml"
check fit_no_base 2 "fit: give one base profile" -- "$bin" fit -o "$tmp/x.yaml" "$m=$tmp/t1.json"
check fit_over_base 2 "is the base profile, which fit never overwrites" -- "$bin" fit --profile "$tmp/base.yaml" -o "$tmp/base.yaml" --bind N=1 "$m=$tmp/t1.json"
check fit_unbound 2 "unbound" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" "$m=$tmp/t1.json"
check fit_out_all 2 "fit: -o $tmp/all.yaml: the profile is named after its file, and 'all' is not a valid name" -- "$bin" fit --profile xeon-8380 -o "$tmp/all.yaml" --bind N=1 "$m=$tmp/t1.json"
check fit_out_bad_name 2 "and 'a b' is not a valid name" -- "$bin" fit --profile xeon-8380 -o "$tmp/a b.yaml" --bind N=1 "$m=$tmp/t1.json"
check fit_bad_arg 2 "fit: unexpected argument '--fast'" -- "$bin" fit --fast

# The trace reader: the same events written differently (indented; inside
# {"traceEvents": ...} after other members; keys in reverse order, names with
# \u escapes, durations as reals 40.0, non-event elements and strings of
# every kind of UTF-8 between them) give the same fitted profile, byte for
# byte, as the compact array.
python3 - "$tmp/t1.json" "$tmp" <<'PY'
import json, sys
ev, d = json.load(open(sys.argv[1])), sys.argv[2]
json.dump(ev, open(d + "/pretty.json", "w"), indent=2)
json.dump({"otherData": {"x": [1, -2.5e3, None, True, False, {}], "y": "caf\u00e9"}, "traceEvents": ev},
          open(d + "/wrapped.json", "w"))
odd = []
for e in ev:
    e = dict(reversed(list(e.items())))
    e["dur"] = float(e["dur"])
    odd += [e, 17, "\u00e9\u4e2d\U0001f600", [], None]
text = json.dumps(odd, ensure_ascii=True).replace('"conv1_kernel_time"', '"conv\\u0031\\u005fkernel_time"')
assert "\\ud83d\\ude00" in text and "\\u0031" in text and '"dur": 40.0' in text
open(d + "/odd.json", "w").write(text)
raw = json.dumps(odd, ensure_ascii=False)  # the same strings as raw UTF-8
open(d + "/raw.json", "w", encoding="utf-8").write(raw)
PY
for v in t1 pretty wrapped odd raw; do
  mkdir -p "$tmp/r_$v"
  check "fit_reader_$v" 0 "10 matched (10 by name, 0 by op and shape)" -- "$bin" fit --profile xeon-8380 -o "$tmp/r_$v/same.yaml" --bind N=1 "$m=$tmp/$v.json"
done
for v in pretty wrapped odd raw; do
  if cmp -s "$tmp/r_t1/same.yaml" "$tmp/r_$v/same.yaml"; then pass=$((pass + 1)); else echo "FAIL fit_reader_same_$v"; fails=$((fails + 1)); fi
done
# Bad JSON: line and column of the fault (the pretty file: line 1 is '[',
# line 2 '  {', line 3 '    "cat": "Node",'): 'x' in column 4 + 13 + 2 = 19;
# a repeated key: its value, at 4 + 13 + 2 + 8 = column 27.
sed '3s/"Node",/"Node" x/' "$tmp/pretty.json" >"$tmp/bad3.json"
check fit_syntax_line 1 "$tmp/bad3.json:3:19: ',' or '}' expected" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/bad3.json"
sed '3s/"cat": "Node",/"cat": "Node", "cat": "Node",/' "$tmp/pretty.json" >"$tmp/dup.json"
check fit_duplicate_key 1 "$tmp/dup.json:3:27: duplicate object key 'cat'" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/dup.json"
printf '[{"cat": "Node", "name": "a\xff_kernel_time"}]' >"$tmp/utf8.json"
check fit_bad_utf8 1 "$tmp/utf8.json:1:28: invalid UTF-8 in a string" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/utf8.json"
printf '[{"name": "a\\u0000b"}]' >"$tmp/nul.json"
check fit_escaped_nul 1 "\\u0000 is not allowed" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/nul.json"
printf '[{"ts": 12345678901234567890}]' >"$tmp/bigint.json"
check fit_big_integer 1 "$tmp/bigint.json:1:9: too big integer" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/bigint.json"
printf '[{"dur": 1e999}]' >"$tmp/bigreal.json"
check fit_big_real 1 "$tmp/bigreal.json:1:10: real number overflow" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/bigreal.json"
printf '[] []' >"$tmp/two.json"
check fit_trailing 1 "$tmp/two.json:1:4: end of file expected" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/two.json"
python3 -c 'print("[" * 1025 + "]" * 1025)' >"$tmp/deep.json"
check fit_too_deep 1 "$tmp/deep.json:1:1025: nested too deep" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/deep.json"
python3 -c 'print("[" * 1024 + "]" * 1024)' >"$tmp/deep_ok.json"
check fit_deep_ok 1 "$tmp/deep_ok.json: no kernel events" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/deep_ok.json"
: >"$tmp/empty_file.json"
check fit_empty_file 1 "$tmp/empty_file.json:1:1: unexpected end of file" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/empty_file.json"
check fit_directory 1 "$tmp/r_t1: not a regular file" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$m=$tmp/r_t1"
if [ -e "$tmp/x.yaml" ]; then echo "FAIL fit_failed_wrote: a failed fit left $tmp/x.yaml"; fails=$((fails + 1)); else pass=$((pass + 1)); fi
if ls "$tmp"/*.tmp.* >/dev/null 2>&1; then echo "FAIL fit_temp_left"; fails=$((fails + 1)); else pass=$((pass + 1)); fi

echo "$pass passed, $fails failed"
[ "$fails" -eq 0 ]
