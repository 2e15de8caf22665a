#!/usr/bin/env python3
"""Writes the TensorFlow traces of tests/data/tiny_cnn.pb that tests/cli/cli_fit_tf.sh
reads, by hand from the formats' specifications (TensorFlow is not installed
here): a Chrome trace as TensorFlow's timeline writes it from RunMetadata.step_stats,
one step (a file) each - and of while.pb, a GraphDef with a counted While
it writes too - a binary RunMetadata and a binary StepStats (field numbers of
tensorflow/core/framework/step_stats.proto and core/protobuf/config.proto:
RunMetadata.step_stats = 1; StepStats.dev_stats = 1; DeviceStepStats.device = 1,
node_stats = 2; NodeExecStats.node_name = 1, all_start_micros = 2,
all_end_rel_micros = 5, timeline_label = 8, all_start_nanos = 13,
all_end_rel_nanos = 16). Run it from this folder to write them again;
`make_traces.py brace FILE` writes the RunMetadata whose length byte is '{'
(the test writes it where it runs).
The protobuf bytes are encoded field by field with tests/tools/pbwrite.py,
without a protobuf library."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from pbwrite import attr, ld, varint, vi  # noqa: E402

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU = "/job:localhost/replica:0/task:0/device:GPU:0"

# The graph as Grappler's remapper leaves it (conv + bias + activation and
# matmul + bias fused, named after each chain's last node), and the nodes
# TensorFlow's executor also times. Per node: op type, times (us) of 3 runs.
FUSED = [
    ("_SOURCE", "NoOp", [1, 1, 2]),  # median 1
    ("conv1/w", "Const", [1, 0, 1]),  # median 1
    ("conv1/Relu", "_FusedConv2D", [50, 54, 52]),  # 52
    ("pool1", "MaxPool", [10, 12, 11]),  # 11
    ("conv2/Relu6", "_FusedConv2D", [20, 20, 26]),  # 20
    ("gap", "Mean", [4, 3, 5]),  # 4
    ("fc/BiasAdd", "_FusedMatMul", [3, 3, 3]),  # 3
    ("probs", "Softmax", [2, 3, 2]),  # 2
    ("_retval_probs_0_0", "_Retval", [0, 0, 0]),  # 0
]  # medians sum to 94 us


def timeline(nodes, path, run=0, devices=((1, CPU), (3, GPU)), gpu_node=True, pid_names=None):
    """One step's timeline (timeline.py converts one RunMetadata.step_stats:
    one file, one step): each node's time of the given run; a node listed
    more than once ran more than once within the step."""
    ev = [{"name": "process_name", "ph": "M", "pid": devices[0][0], "args": {"name": devices[0][1] + " Compute"}},
          {"name": "process_name", "ph": "M", "pid": 2, "args": {"name": devices[0][1] + " Tensors"}}]
    ev += [{"name": "process_name", "ph": "M", "pid": p, "args": {"name": d + " Compute"}}
           for p, d in devices[1:]]
    ev += [{"name": "process_name", "ph": "M", "pid": p, "args": {"name": d}} for p, d in pid_names or []]
    ts = 1000 + 500 * run
    for name, op, durs in nodes:
        ev.append({"ph": "X", "cat": "Op", "name": op, "pid": devices[0][0], "tid": 0, "ts": ts,
                   "dur": durs[run], "args": {"name": name, "op": op, "input0": "x"}})
        ts += durs[run] + 2
    if gpu_node and len(devices) > 1:
        ev.append({"ph": "X", "cat": "Op", "name": "_FusedConv2D", "pid": devices[1][0],
                   "tid": 0, "ts": ts, "dur": 5,
                   "args": {"name": "conv1/Relu", "op": "_FusedConv2D"}})
    json.dump({"traceEvents": ev}, open(path, "w"), indent=1)


def node_stats(name, op, start_us, dur_ns=None, dur_us=None, label=True):
    b = ld(1, name.encode())
    b += vi(2, start_us)
    if dur_us is not None:
        b += vi(5, dur_us)
    if label:
        b += ld(8, ("%s = %s(x)" % (name, op)).encode())
    b += vi(10, 7)  # thread_id: an unread field
    if dur_ns is not None:
        b += vi(13, start_us * 1000)
        b += vi(16, dur_ns)
    return b


def dev_stats(device, nodes):
    b = ld(1, device.encode()) if device is not None else b""
    for n in nodes:
        b += ld(2, n)
    return b


# One run with nanosecond times: the micros fields hold them truncated; the
# reader takes the nanos (0.8 + 0.6 + 52.4 + 11.2 + 20 + 4 + 3 + 2 = 94 us;
# the micros would sum to 92).
RUNMETA = [("_SOURCE", "NoOp", 800), ("conv1/w", "Const", 600), ("conv1/Relu", "_FusedConv2D", 52400),
           ("pool1", "MaxPool", 11200), ("conv2/Relu6", "_FusedConv2D", 20000), ("gap", "Mean", 4000),
           ("fc/BiasAdd", "_FusedMatMul", 3000), ("probs", "Softmax", 2000)]


def runmeta(path, negative=False):
    cpu = [node_stats(n, op, 5000 + 100 * i, dur_ns=(-d if negative and n == "pool1" else d),
                      dur_us=d // 1000) for i, (n, op, d) in enumerate(RUNMETA)]
    gpu = [node_stats("conv1/Relu", "_FusedConv2D", 5000, dur_ns=9000, dur_us=9)]
    step = ld(1, dev_stats(CPU, cpu)) + ld(1, dev_stats(GPU, gpu))
    open(path, "wb").write(ld(1, step) + ld(2, b"\x0a\x00"))  # + cost_graph: unread


# The graph as given (Grappler's remapper off): every node by its own name,
# micros only; probs without a timeline label (matched by name alone).
# 40 + 6 + 5 + 11 + 15 + 2 + 2 + 4 + 2 + 1 + 2 = 90 us.
STEPSTATS = [("conv1/Conv2D", "Conv2D", 40), ("conv1/BiasAdd", "BiasAdd", 6), ("conv1/Relu", "Relu", 5),
             ("pool1", "MaxPool", 11), ("conv2/Conv2D", "Conv2D", 15), ("conv2/BiasAdd", "BiasAdd", 2),
             ("conv2/Relu6", "Relu6", 2), ("gap", "Mean", 4), ("fc/MatMul", "MatMul", 2),
             ("fc/BiasAdd", "BiasAdd", 1), ("probs", "Softmax", 2)]


def stepstats(path):
    cpu = [node_stats(n, op, 7000 + 50 * i, dur_us=d, label=n != "probs")
           for i, (n, op, d) in enumerate(STEPSTATS)]
    open(path, "wb").write(ld(1, dev_stats(CPU, cpu)))


def brace(path):
    """A RunMetadata whose StepStats is 123 bytes long: its length byte is '{'
    (0x7b) after the leading 0x0a, which is a newline to JSON."""
    for pad in range(100):
        ns = ld(1, b"pool1") + vi(5, 11) + ld(8, b"pool1 = MaxPool(" + b"x" * pad + b")")
        step = ld(1, dev_stats(CPU, [ns]))
        if len(step) == 123:
            open(path, "wb").write(ld(1, step))
            return
    raise SystemExit("no padding gives 123 bytes")


if len(sys.argv) == 3 and sys.argv[1] == "brace":  # written by the test where it runs
    brace(sys.argv[2])
    raise SystemExit(0)
# three steps, a file each (timeline_1.json is run 0 of FUSED, ...)
for run in range(3):
    timeline(FUSED, "timeline_%d.json" % (run + 1), run)
runmeta("run_metadata.pb")
runmeta("negative.pb", negative=True)
stepstats("step_stats.pb")
# a trace of the GPU only: the same ops, every one on the GPU's process
timeline(FUSED, "gpu_only.json", devices=((3, GPU),), gpu_node=False)
# every time 0
timeline([(n, op, [0]) for n, op, _ in FUSED], "zero.json")
# another model's nodes
timeline([("dense_1/MatMul", "MatMul", [5]), ("dense_1/Relu", "Relu", [1])], "other_model.json")
# One step in which pool1 ran three times in a row (a loop's body runs once
# an iteration; TensorFlow records each run as a NodeExecStats of the same
# node_name, with no iteration field): 10 + 12 + 11 = 33 us in the step;
# the step's kernels 1 + 1 + 50 + 33 + 20 + 4 + 3 + 2 + 0 = 114 us.
LOOP = [(n, op, [d[0]]) for n, op, d in FUSED if n != "pool1"]
LOOP[3:3] = [("pool1", "MaxPool", [10]), ("pool1", "MaxPool", [12]), ("pool1", "MaxPool", [11])]
timeline(LOOP, "loop.json")
# pid 3 named twice (the GPU's, then the CPU's): which device ran its ops is unknown
timeline(FUSED, "dup_pid.json", pid_names=[(3, CPU + " Compute")])
# A GraphDef with a counted functional While (graphdef.proto: GraphDef node
# 1, library 2, versions 4; NodeDef name 1, op 2, input 3, attr 5;
# AttrValue list 1, type 6, shape 7, tensor 8, func 10; TensorProto dtype 1,
# tensor_shape 2, float_val 5, int_val 7; FunctionDef signature 1, node_def
# 3, ret 4; OpDef name 1, input_arg 2, output_arg 3; ArgDef name 1, type 3):
# W(i = 0, x [2,16]) runs while i < 5, its body B: i + 1 and mm = x @ w
# [16,16] (2 x 2 x 16 x 16 = 1,024 FLOPs a trip); after it out = W:1 @ w2
# [16,16], the same MatMul once (weights 0.5, nothing folds). foldline counts
# the body 5 times: mm 5,120 FLOPs and 6,400 bytes, out 1,024 and 1,280.
F32, I32 = 1, 3


def ty(t):
    return varint(6 << 3) + varint(t)


def dims(*d):
    return b"".join(ld(2, vi(1, n)) for n in d)


def node(name, op, inputs=(), attrs=()):
    b = ld(1, name.encode()) + ld(2, op.encode())
    b += b"".join(ld(3, i.encode()) for i in inputs)
    return b + b"".join(attr(k, v) for k, v in attrs)


def const_i32(name, v):
    return node(name, "Const", attrs=[("dtype", ty(I32)), ("value", ld(8, vi(1, I32) + ld(2, b"") + vi(7, v)))])


def const_f32(name, *d):
    return node(name, "Const", attrs=[("dtype", ty(F32)), ("value", ld(8, vi(1, F32) + ld(2, dims(*d)) + ld(5, b"\0\0\0\x3f")))])


def function(name, ins, outs, nodes, rets):
    sig = ld(1, name.encode())
    sig += b"".join(ld(2, ld(1, n.encode()) + vi(3, t)) for n, t in ins)
    sig += b"".join(ld(3, ld(1, n.encode()) + vi(3, t)) for n, t in outs)
    b = ld(1, sig) + b"".join(ld(3, n) for n in nodes)
    return b + b"".join(ld(4, ld(1, k.encode()) + ld(2, v.encode())) for k, v in rets)


def while_model(path):
    args = [("i", I32), ("x", F32)]
    cond = function("C", args, [("ok", 10)],
                    [const_i32("lim", 5), node("less", "Less", ["i", "lim:output:0"], [("T", ty(I32))])],
                    [("ok", "less:z:0")])
    body = function("B", args, [("i2", I32), ("y", F32)],
                    [const_i32("one", 1), node("inc", "AddV2", ["i", "one:output:0"], [("T", ty(I32))]),
                     const_f32("w", 16, 16), node("mm", "MatMul", ["x", "w:output:0"], [("T", ty(F32))])],
                    [("i2", "inc:z:0"), ("y", "mm:product:0")])
    nodes = [const_i32("i0", 0),
             node("x", "Placeholder", attrs=[("dtype", ty(F32)), ("shape", ld(7, dims(2, 16)))]),
             node("W", "While", ["i0", "x"], [("T", ld(1, varint(6 << 3 | 2) + varint(2) + varint(I32) + varint(F32))),
                                             ("cond", ld(10, ld(1, b"C"))), ("body", ld(10, ld(1, b"B")))]),
             const_f32("w2", 16, 16),
             node("out", "MatMul", ["W:1", "w2"], [("T", ty(F32))])]
    gd = b"".join(ld(1, n) for n in nodes) + ld(2, ld(1, cond) + ld(1, body)) + ld(4, vi(1, 1000))
    open(path, "wb").write(gd)


while_model("while.pb")
# One step of it: the body's nodes once a trip (5), the cond's once more
# (6), as TensorFlow's executor runs the lowered loop; mm 2 us a trip (10 us
# in the step), out 2 us: the MatMul class's two ops at one efficiency, the
# 5 trips' sum against foldline's 5 counted trips. Named as TensorFlow's
# lowering names them (lower_while_op.cc: the body called from
# Graph::NewName("W/body") = "W/body/_N", inlined as "<call>/<node>").
WHILE = [("W/cond/_3/less", "Less", 1)] + [("W/body/_7/inc", "AddV2", 1), ("W/body/_7/mm", "MatMul", 2),
                                           ("W/cond/_3/less", "Less", 1)] * 5 + [("out", "MatMul", 2)]
timeline([(n, op, [d]) for n, op, d in WHILE], "while.json", gpu_node=False)
# A StepStats whose DeviceStepStats has nodes but no device (field 1
# absent): the bytes also decode as a RunMetadata holding an empty StepStats
# (its nodes then an unknown field 2).
open("no_device.pb", "wb").write(ld(1, dev_stats(None, [node_stats(n, op, 7000, dur_us=d)
                                                         for n, op, d in STEPSTATS[:3]])))
