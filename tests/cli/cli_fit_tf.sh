#!/usr/bin/env bash
# `foldline fit` on TensorFlow's per-node timings of tests/data/tiny_cnn.pb:
# a Chrome trace as TensorFlow's timeline writes it, a binary RunMetadata and
# a binary StepStats, written by hand from the formats' specifications
# (tests/data/tftrace/make_traces.py says how; no TensorFlow run made them).
# The expected figures are derived from the durations written there; bad
# traces are refused naming the file and the problem.
# Usage: cli_fit_tf.sh FOLDLINE_BINARY TEST_DATA_DIR
set -u
bin="$1"
data="$2"
# shellcheck source=checks.bash
source "$(dirname "$0")/checks.bash"

m="$data/tiny_cnn.pb"
d="$data/tftrace"
fit() { # out trace[@ms] [options...]
  local out="$1" tr="$2"
  shift 2
  "$bin" fit --profile xeon-8380 -o "$tmp/$out" --bind input.0=1 "$@" "$m=$tr"
}
# The per-node estimate (us, 3 decimals) of node $4 in graph $3 (before |
# after: the analysis's default passes) of model $1 on profile $2, the
# model's options after them.
model_node_us() {
  local model="$1" profile="$2" graph="$3" node="$4"
  shift 4
  "$bin" analyze "$model" "$@" --per-node --json --profile "$profile" |
    python3 -c 'import json, sys
g = json.load(sys.stdin)["roofline"][0][sys.argv[1]]
print("%.3f" % (1e6 * [n for n in g["nodes"] if n["name"] == sys.argv[2]][0]["time_s"]))' "$graph" "$node"
}
# The same for tiny_cnn.pb: profile $1, graph $2, node $3.
node_us() { model_node_us "$m" "$1" "$2" "$3" --bind input.0=1; }
expect_us() { # name want got
  if [ "$2" = "$3" ]; then pass=$((pass + 1)); else echo "FAIL $1: $3 us, want $2"; fails=$((fails + 1)); fi
}
if ! command -v python3 >/dev/null 2>&1; then
  skip_all "python3 absent: the estimates cannot be read"
fi

# The timeline: 3 steps (timeline.py writes one step's StepStats: a file
# each, given as one model's list) on the CPU of the graph as Grappler's
# remapper leaves it (conv1/Relu and conv2/Relu6 _FusedConv2D, fc/BiasAdd
# _FusedMatMul), plus _SOURCE, a Const and a _Retval (no kernel costed here:
# unmatched) and one node per step on the GPU (left out). Medians over the
# steps: _SOURCE 1, conv1/w 1, conv1/Relu 52, pool1 11, conv2/Relu6 20, gap
# 4, fc/BiasAdd 3, probs 2, _retval 0: 94 us; with a whole run of 117.5 us
# the gap is 23.5 / 94 = 25 %.
tl="$d/timeline_1.json,$d/timeline_2.json,$d/timeline_3.json"
check tf_timeline 0 "9 TensorFlow nodes on the CPU,     6 matched by name and op type (3 of them fused chains as foldline's remapper forms them, named after the chain's last node), 3 unmatched, 3 node runs on other devices left out (/job:localhost/replica:0/task:0/device:GPU:0 Compute); 3 steps (a file each)" -- fit tl.yaml "$tl@0.1175"
# The share's median is over one model, whose three files are named.
check tf_timeline_gap 0 "run's gap 25 % of the kernels' time (median over 1 model, 3 trace files)" -- fit tl.yaml "$tl@0.1175"
check tf_timeline_written 0 "gap: {share: 0.25, source: \"fitted " -- cat "$tmp/tl.yaml"
# The profile counts them as the line does: its header, source and gap's.
check tf_timeline_header 0 " and 1 model, 3 trace files." -- head -1 "$tmp/tl.yaml"
check tf_timeline_written_over 0 "/ sum of kernel times over 1 model, 3 trace files\"}" -- cat "$tmp/tl.yaml"
check tf_timeline_source 0 "by foldline fit to 1 model, 3 TensorFlow trace files on xeon-8380" -- cat "$tmp/tl.yaml"
# A class with one traced op reproduces its median, and the gap adds 25 %:
# pool1 11 x 1.25, gap 4 x 1.25, probs 2 x 1.25, the fused MatMul 3 x 1.25.
expect_us tf_timeline_pool 13.750 "$(node_us "$tmp/tl.yaml" after pool1)"
expect_us tf_timeline_mean 5.000 "$(node_us "$tmp/tl.yaml" after gap)"
expect_us tf_timeline_softmax 2.500 "$(node_us "$tmp/tl.yaml" after probs)"
expect_us tf_timeline_fused_matmul 3.750 "$(node_us "$tmp/tl.yaml" after fc/BiasAdd)"
# --quantile 0: each node's least run: pool1 10 us (x 1.25), gap 3 us; the
# least times sum to 1 + 0 + 50 + 10 + 20 + 3 + 3 + 2 + 0 = 89 us, and a
# 111.25 us run is 25 % over them.
check tf_quantile 0 "run's gap 25 % of the kernels' time" -- fit q.yaml "$tl@0.11125" --quantile 0
expect_us tf_quantile_pool 12.500 "$(node_us "$tmp/q.yaml" after pool1)"
expect_us tf_quantile_mean 3.750 "$(node_us "$tmp/q.yaml" after gap)"
# Without a whole-run time (TensorFlow's traces have no model_run event) the
# base's gap is kept and no interval is fitted; the kernels are fitted.
check tf_no_latency 0 "(no whole-run time: the traces have no model_run events and no @MS was given: base gap kept)" -- fit nl.yaml "$tl"
expect_us tf_no_latency_pool 11.000 "$(node_us "$tmp/nl.yaml" after pool1)"

# One step in which pool1 ran three times (a while loop's body: TensorFlow
# records a NodeExecStats per run of a node, with no iteration field, and
# the timeline one event per NodeExecStats): its time in the step is
# 10 + 12 + 11 = 33 us, the step's kernels 1 + 1 + 50 + 33 + 20 + 4 + 3 + 2
# + 0 = 114 us, so a 142.5 us run is 25 % over them, and pool1's estimate
# on the fitted profile 33 x 1.25. (Read as three runs of pool1, its median
# 11 us would leave 92 us of kernels and a 54.9 % gap.)
check tf_loop 0 "1 step (a file each), 1 node ran more than once within a step (a loop's iterations: their times in a step summed)" -- fit lp.yaml "$d/loop.json@0.1425"
check tf_loop_gap 0 "run's gap 25 % of the kernels' time (median over 1 trace)" -- fit lp.yaml "$d/loop.json@0.1425"
expect_us tf_loop_pool 41.250 "$(node_us "$tmp/lp.yaml" after pool1)"
expect_us tf_loop_mean 5.000 "$(node_us "$tmp/lp.yaml" after gap)"
# The loop's step with the three steps above: pool1 33, 10, 12 and 11 us in
# its four steps, median 11.5 us; the other nodes' medians over four steps
# (conv1/Relu 50, 50, 54, 52: 51) sum to 1 + 1 + 51 + 11.5 + 20 + 4 + 3 + 2
# + 0 = 93.5 us; a 116.875 us run is 25 % over them.
check tf_loop_steps 0 "run's gap 25 % of the kernels' time (median over 1 model, 4 trace files)" -- fit ls.yaml "$tl,$d/loop.json@0.116875"
expect_us tf_loop_steps_pool 14.375 "$(node_us "$tmp/ls.yaml" after pool1)"

# A counted functional While (while.pb, make_traces.py: W runs its body 5
# times; foldline counts W/body/mm 5 x 1,024 = 5,120 FLOPs and 6,400 bytes,
# out 1,024 and 1,280) and one step of it (while.json): the body's nodes
# once a trip, the cond's once more, named as TensorFlow's lowering names
# them ("W/body/_7/mm": the inlined call's node id dropped to meet foldline's
# "W/body/mm"); mm 2 us a trip, out 2 us. Summed, mm's
# 10 us and out's 2 us are in the ratio of their FLOPs and bytes, so one
# efficiency fits the MatMul class's two ops exactly (0.0 %); mm read as 5
# runs of 2 us would not. Kernels 1 + 5 x (1 + 2 + 1) + 2 = 23 us, a
# 28.75 us run is 25 % over them, and the estimates are mm 10 x 1.25, out
# 2 x 1.25.
check tf_while 0 "4 TensorFlow nodes on the CPU,     4 matched by name and op type (0 of them fused chains as foldline's remapper forms them, named after the chain's last node), 0 unmatched; 1 step (a file each), 3 nodes ran more than once within a step" -- "$bin" fit --profile xeon-8380 -o "$tmp/wh.yaml" "$d/while.pb=$d/while.json@0.02875"
check tf_while_gap 0 "run's gap 25 % of the kernels' time" -- "$bin" fit --profile xeon-8380 -o "$tmp/wh.yaml" "$d/while.pb=$d/while.json@0.02875"
check tf_while_matmul 0 "  matmul              2        1  0.0 %" -- "$bin" fit --profile xeon-8380 -o "$tmp/wh.yaml" "$d/while.pb=$d/while.json@0.02875"
expect_us tf_while_mm 12.500 "$(model_node_us "$d/while.pb" "$tmp/wh.yaml" before W/body/mm)"
expect_us tf_while_out 2.500 "$(model_node_us "$d/while.pb" "$tmp/wh.yaml" before out)"

# RunMetadata, one run with nanosecond times (the micros fields hold them
# truncated): 0.8 + 0.6 + 52.4 + 11.2 + 20 + 4 + 3 + 2 = 94 us read from the
# nanos (the micros sum to 92: 27.7 %), so 117.5 us is 25 % over them.
check tf_runmeta 0 "8 TensorFlow nodes on the CPU,     6 matched by name and op type (3 of them fused chains" -- fit rm.yaml "$d/run_metadata.pb@0.1175"
check tf_runmeta_gap 0 "run's gap 25 % of the kernels' time" -- fit rm.yaml "$d/run_metadata.pb@0.1175"
check tf_runmeta_gpu 0 "1 node runs on other devices left out (/job:localhost/replica:0/task:0/device:GPU:0)" -- fit rm.yaml "$d/run_metadata.pb@0.1175"
expect_us tf_runmeta_pool 14.000 "$(node_us "$tmp/rm.yaml" after pool1)"

# StepStats, micros only, the graph as given (Grappler's remapper off): every
# node matches by its own name (probs has no timeline label: by name alone)
# in the graph before foldline's remapper; 90 us of kernels, 112.5 us run.
check tf_stepstats 0 "11 TensorFlow nodes on the CPU,    11 matched by name and op type (0 of them fused chains" -- fit ss.yaml "$d/step_stats.pb@0.1125"
check tf_stepstats_gap 0 "run's gap 25 % of the kernels' time (median over 1 trace)" -- fit ss.yaml "$d/step_stats.pb@0.1125"
check tf_stepstats_header 0 ".yaml and 1 trace." -- head -1 "$tmp/ss.yaml"
check tf_stepstats_source 0 "by foldline fit to 1 TensorFlow trace on xeon-8380" -- cat "$tmp/ss.yaml"
check tf_stepstats_written_over 0 "/ sum of kernel times over 1 trace\"}" -- cat "$tmp/ss.yaml"
expect_us tf_stepstats_pool 13.750 "$(node_us "$tmp/ss.yaml" before pool1)"
expect_us tf_stepstats_matmul 2.500 "$(node_us "$tmp/ss.yaml" before fc/MatMul)"
# Three traces: an interval, and a source naming both kinds with an ORT one.
check tf_three 0 "interval (leave-one-model-out, 80 %)" -- "$bin" fit --profile xeon-8380 -o "$tmp/three.yaml" --bind input.0=1 "$m=$tl@0.1175" "$m=$d/run_metadata.pb@0.1175" "$m=$d/step_stats.pb@0.1125"
check tf_three_source 0 "by foldline fit to 3 models, 5 TensorFlow trace files on" -- cat "$tmp/three.yaml"
check tf_three_header 0 "and 3 models, 5 trace files." -- head -1 "$tmp/three.yaml"
# The three models' gaps: the timeline's three step files and one file each.
check tf_three_gap 0 "(median over 3 models, 5 trace files)" -- "$bin" fit --profile xeon-8380 -o "$tmp/three.yaml" --bind input.0=1 "$m=$tl@0.1175" "$m=$d/run_metadata.pb@0.1175" "$m=$d/step_stats.pb@0.1125"

# Bad input: the file and the problem named, exit 1, nothing written.
check tf_other_model 1 "other_model.json: no kernel matches an op of $m (by node name and op type, as given and as foldline's remapper fuses it): a trace of another model?" -- fit x.yaml "$d/other_model.json"
head -c 300 "$d/timeline_3.json" >"$tmp/trunc.json"
check tf_truncated_json 1 "$tmp/trunc.json:16:62: unexpected end of file" -- fit x.yaml "$tmp/trunc.json"
head -c 200 "$d/run_metadata.pb" >"$tmp/trunc.pb"
check tf_truncated_pb 1 "$tmp/trunc.pb: neither JSON trace events nor a TensorFlow RunMetadata or StepStats message: tensorflow.StepStats.dev_stats at byte 0: a length points past the end of its message" -- fit x.yaml "$tmp/trunc.pb"
sed 's/"dur": 52,/"dur": NaN,/' "$d/timeline_3.json" >"$tmp/nan.json"
check tf_nan 1 "$tmp/nan.json:62:11: invalid token" -- fit x.yaml "$tmp/nan.json"
sed 's/"dur": 52,/"dur": "NaN",/' "$d/timeline_3.json" >"$tmp/nanstr.json"
check tf_nan_string 1 "$tmp/nanstr.json: event 5 (node conv1/Relu): 'dur' is not a number >= 0" -- fit x.yaml "$tmp/nanstr.json"
sed 's/"dur": 52,/"dur": -52,/' "$d/timeline_3.json" >"$tmp/neg.json"
check tf_negative_json 1 "$tmp/neg.json: event 5 (node conv1/Relu): 'dur' is not a number >= 0" -- fit x.yaml "$tmp/neg.json"
# the file, the node and the field (the message decodes: no "neither JSON
# nor ..." before it)
check tf_negative_pb 1 "foldline: fit: $d/negative.pb: node 3 (pool1 on /job:localhost/replica:0/task:0/device:CPU:0): NodeExecStats.all_end_rel_nanos is negative (-11200)" -- fit x.yaml "$d/negative.pb"
# A StepStats whose DeviceStepStats holds nodes but no device (it also
# decodes as a RunMetadata with an empty StepStats): the missing field named.
check tf_no_device 1 "foldline: fit: $d/no_device.pb: StepStats.dev_stats[0] has 3 nodes (node 0, conv1/Conv2D, the first) but no device (DeviceStepStats.device): whether they ran on a CPU is unknown" -- fit x.yaml "$d/no_device.pb"
# A timeline naming one pid twice, the GPU's then the CPU's.
check tf_dup_pid 1 "foldline: fit: $d/dup_pid.json: event 3: process_name names pid 3 again (event 2 named it \"/job:localhost/replica:0/task:0/device:GPU:0 Compute\", this one \"/job:localhost/replica:0/task:0/device:CPU:0 Compute\"): which device ran its ops is unknown" -- fit x.yaml "$d/dup_pid.json"
# A list of files is one model's TensorFlow steps: ONNX Runtime's profile
# (its runs in one file) is refused there, and so is an empty name.
printf '[{"cat": "Node", "name": "conv1/Conv2D_kernel_time", "ph": "X", "dur": 5, "args": {"op_name": "Conv2D"}}]' >"$tmp/ort.json"
check tf_list_ort 1 "foldline: fit: $tmp/ort.json: ONNX Runtime's profile, in a list of files for one model ($d/timeline_1.json,$tmp/ort.json), which are TensorFlow steps" -- fit x.yaml "$d/timeline_1.json,$tmp/ort.json"
# A path holding a comma that names a file is that file (one step).
cp "$d/timeline_1.json" "$tmp/a,b.json"
check tf_comma_path 0 "3 unmatched, 1 node runs on other devices left out (/job:localhost/replica:0/task:0/device:GPU:0 Compute); 1 step (a file each)" -- fit x2.yaml "$tmp/a,b.json"
# pool1's three runs in the loop's step at 1e308 us each: their sum is no
# double; an error naming the file and the node, not an infinite time.
sed 's/"dur": 1[012],/"dur": 1e308,/' "$d/loop.json" >"$tmp/huge.json"
check tf_sum_overflow 1 "foldline: fit: $tmp/huge.json: node pool1: its 3 times in the step sum past what a double holds (a duration of 1e+308 us)" -- fit x.yaml "$tmp/huge.json"
# Two steps in which one node ran as different op types are not of one
# graph: refused whichever file comes first, naming the node and both ops.
sed 's/"MaxPool"/"Softmax"/' "$d/timeline_2.json" >"$tmp/t2_op.json"
check tf_list_op_differs 1 "foldline: fit: $tmp/t2_op.json: node pool1 ran as Softmax here but as MaxPool in an earlier step of the list $d/timeline_1.json,$tmp/t2_op.json: the steps are not of one graph" -- fit x.yaml "$d/timeline_1.json,$tmp/t2_op.json@0.1175"
check tf_list_op_differs_rev 1 "foldline: fit: $d/timeline_1.json: node pool1 ran as MaxPool here but as Softmax in an earlier step of the list $tmp/t2_op.json,$d/timeline_1.json: the steps are not of one graph" -- fit x.yaml "$tmp/t2_op.json,$d/timeline_1.json@0.1175"
check tf_list_empty 2 "an empty name in the list of a model's TensorFlow steps" -- fit x.yaml "$d/timeline_1.json,,$d/timeline_2.json"
check tf_zero 1 "zero.json: every kernel time is 0" -- fit x.yaml "$d/zero.json"
check tf_gpu_only 1 "gpu_only.json: no node ran on a CPU: a trace of another device only (9 node runs on /job:localhost/replica:0/task:0/device:GPU:0 Compute); fit reads TensorFlow's CPU timings" -- fit x.yaml "$d/gpu_only.json"
check tf_onnx_model 1 "timeline_1.json holds TensorFlow timings, but $data/tiny_cnn.onnx is no TensorFlow model (GraphDef, SavedModel or TF.js graph model)" -- "$bin" fit --profile xeon-8380 -o "$tmp/x.yaml" --bind N=1 "$data/tiny_cnn.onnx=$d/timeline_1.json"
# Told from the bytes: a message begins with 0x0a (a newline to JSON); one
# whose length byte is '{' is still read as the message it is.
python3 "$d/make_traces.py" brace "$tmp/brace.pb"
check tf_brace 0 "1 TensorFlow nodes on the CPU,     1 matched by name and op type" -- fit br.yaml "$tmp/brace.pb"
printf '\n\005abc' >"$tmp/short.bin"
check tf_short_pb 1 "$tmp/short.bin: neither JSON trace events nor a TensorFlow RunMetadata or StepStats message: " -- fit x.yaml "$tmp/short.bin"
printf 'not a trace at all' >"$tmp/text.bin"
check tf_text 1 "$tmp/text.bin:1:1: '[' or '{' expected" -- fit x.yaml "$tmp/text.bin"
if command -v gzip >/dev/null 2>&1; then
  gzip -c "$d/timeline_1.json" >"$tmp/t.json.gz"
  check tf_gzip 1 "$tmp/t.json.gz: gzip-compressed (as the TensorFlow profiler writes its trace.json.gz): decompress it first (gunzip)" -- fit x.yaml "$tmp/t.json.gz"
else
  skip_part "gzip absent: the compressed trace is not written"
fi
if [ -e "$tmp/x.yaml" ]; then echo "FAIL tf_failed_wrote: a failed fit left x.yaml"; fails=$((fails + 1)); else pass=$((pass + 1)); fi
finish
