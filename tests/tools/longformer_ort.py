#!/usr/bin/env python3
"""Checks foldline's output shapes and dtypes of com.microsoft
LongformerAttention and QOrderedLongformerAttention against ONNX Runtime.

ONNX Runtime's CPU execution provider has no kernel for either op (both are
CUDA-only): a session on the CPU EP fails ("Could not find an implementation"
for LongformerAttention; a rejected mask type for the quantized op, after ORT
inserts a float16 -> float Cast for the CPU EP), and no output can be
computed. What ORT does run on the
CPU is its graph resolution, which applies each contrib op's registered type
and shape inference. This script reads ORT's answer from there: each model
declares its output with a deliberately wrong shape (ORT then warns
"Error merging shape info for output. 'y' source:{...} target:{...}",
source being the shape it inferred) and, in a second copy, a wrong element
type (ORT then fails "... does not match expected type (tensor(T))", T the
type it inferred). foldline analyses the same model with the output
undeclared; its output shape (symbols as -1) and dtype must equal ORT's.

Cases: both ops, both weight formats ORT's kernels accept (format 1: weight
(H, 3H), bias (3H), global_weight (H, 3H), global_bias (3H); format 0:
weight (3, H, H), bias (5H) = Q, K, V, global K, global V, global_weight
(3, H, H), global_bias (H) = global Q), concrete (B 2, S 8, H 8) and
symbolic (B, S) inputs; num_heads 2, window 2. The quantized op's mask is
float16, as its schema's type constraint F says.

Needs Debian's python3-onnx and onnxruntime-node (npm install
--ignore-scripts onnxruntime-node in DIR). The models are written to a
temporary folder (or --keep OUTDIR).
Usage: longformer_ort.py --ort-dir DIR --foldline BIN [--keep OUTDIR]
Prints one line per case; exit 0 when every case agrees, 1 otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

H, HEADS, WINDOW = 8, 2, 2

# Runs one session per model on the CPU EP and prints, per model, a JSON
# line with ORT's stderr and the session error.
SESSION_JS = r"""
import { createRequire } from "module";
import path from "path";
const ort = createRequire(path.join(path.resolve(process.argv[2]), "package.json"))("onnxruntime-node");
try {
  await ort.InferenceSession.create(process.argv[3], { graphOptimizationLevel: "disabled" });
  console.log("created");
} catch (e) {
  console.log("error: " + e.message);
}
"""


def tensor_in(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def build(op, fmt, symbolic, out_elem, out_dims):
    """The model: every input a graph input (ORT infers from types and
    shapes only), output y declared with out_elem / out_dims."""
    quant = op == "QOrderedLongformerAttention"
    b, s = ("B", "S") if symbolic else (2, 8)
    x_t = TensorProto.INT8 if quant else TensorProto.FLOAT
    w_dims = [3, H, H] if fmt == 0 else [H, 3 * H]
    bias_n = 5 * H if fmt == 0 else 3 * H
    gbias_n = H if fmt == 0 else 3 * H
    inputs = [tensor_in("x", x_t, [b, s, H]), tensor_in("w", x_t, w_dims),
              tensor_in("bias", TensorProto.FLOAT, [bias_n]),
              tensor_in("mask", TensorProto.FLOAT16 if quant else TensorProto.FLOAT, [b, s]),
              tensor_in("gw", x_t, w_dims),
              tensor_in("gbias", TensorProto.FLOAT, [gbias_n]),
              tensor_in("g", TensorProto.INT32, [b, s])]
    if quant:
        inputs += [tensor_in("sc%d" % i, TensorProto.FLOAT, []) for i in range(7)]
        names = ["x", "sc0", "w", "sc1", "bias", "sc2", "sc3", "mask", "gw", "sc4",
                 "gbias", "sc5", "g", "sc6"]
        attrs = {"order_input": 1, "order_weight": 0, "order_global_weight": 0,
                 "order_output": 1}
    else:
        names = ["x", "w", "bias", "mask", "gw", "gbias", "g"]
        attrs = {}
    node = helper.make_node(op, names, ["y"], domain="com.microsoft", num_heads=HEADS,
                            window=WINDOW, **attrs)
    graph = helper.make_graph([node], "lf", inputs,
                              [helper.make_tensor_value_info("y", out_elem, out_dims)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                   helper.make_opsetid("com.microsoft", 1)])


def ort_session(ort_dir, js, path):
    p = subprocess.run(["node", js, ort_dir, path], capture_output=True, text=True, timeout=120)
    return p.stdout + p.stderr


ELEM_NAMES = {"float": TensorProto.FLOAT, "int8": TensorProto.INT8}


def ort_answer(ort_dir, js, folder, op, fmt, symbolic):
    """ORT's inferred (dims, type) and whether it has a CPU kernel."""
    tag = "%s_f%d_%s" % (op, fmt, "sym" if symbolic else "fixed")
    quant = op == "QOrderedLongformerAttention"
    right = TensorProto.INT8 if quant else TensorProto.FLOAT
    wrong = TensorProto.DOUBLE
    p1 = os.path.join(folder, tag + "_wrongshape.onnx")
    onnx.save(build(op, fmt, symbolic, right, [3, 5, H + 1]), p1)
    out1 = ort_session(ort_dir, js, p1)
    m = re.search(r"'y' source:\{([^}]*)\} target:\{3,5,%d\}" % (H + 1), out1)
    dims = [int(v) for v in m.group(1).split(",")] if m else None
    # The session itself fails on the CPU EP: "Could not find an
    # implementation" for the float op; for the quantized one ORT first
    # inserts a float16 -> float Cast of the mask (the CPU EP has no float16
    # kernels) and then rejects the node's mask type.
    no_kernel = "created" not in out1.split("\n")
    p2 = os.path.join(folder, tag + "_wrongtype.onnx")
    onnx.save(build(op, fmt, symbolic, wrong, None), p2)
    out2 = ort_session(ort_dir, js, p2)
    t = re.search(r"does not match expected type \(tensor\((\w+)\)\)", out2)
    return dims, t.group(1) if t else None, no_kernel, out1 + out2


def foldline_answer(fl, folder, op, fmt, symbolic):
    tag = "%s_f%d_%s" % (op, fmt, "sym" if symbolic else "fixed")
    path = os.path.join(folder, tag + ".onnx")
    quant = op == "QOrderedLongformerAttention"
    onnx.save(build(op, fmt, symbolic, TensorProto.INT8 if quant else TensorProto.FLOAT, None),
              path)
    p = subprocess.run([fl, "analyze", path, "--json", "--per-node"], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        return None, None, (p.stdout + p.stderr).strip()
    rep = json.loads(p.stdout)
    node = [n for n in rep["nodes"] if n["op"] == op][0]
    out = node["outputs"][0]
    dims = [d if isinstance(d, int) else -1 for d in out["dims"]]
    return dims, out["dtype"], ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--foldline", required=True)
    ap.add_argument("--keep")
    a = ap.parse_args()
    folder = a.keep or tempfile.mkdtemp(prefix="longformer_ort_")
    os.makedirs(folder, exist_ok=True)
    js = os.path.join(folder, "session.mjs")
    with open(js, "w") as f:
        f.write(SESSION_JS)
    ok = True
    for op in ("LongformerAttention", "QOrderedLongformerAttention"):
        for fmt in (1, 0):
            for symbolic in (False, True):
                od, ot, nk, log = ort_answer(a.ort_dir, js, folder, op, fmt, symbolic)
                fd, ft, err = foldline_answer(a.foldline, folder, op, fmt, symbolic)
                same = od is not None and od == fd and ot is not None and ot == ft
                ok &= same
                print("%-28s format %d %-8s ORT %s %s (CPU kernel: %s) foldline %s %s %s" %
                      (op, fmt, "symbolic" if symbolic else "fixed", od, ot,
                       "no" if nk else "yes", fd, ft, "ok" if same else "DIFFERS " + err))
                if od is None or ot is None:
                    print("  ORT said: " + log.strip().replace("\n", "\n  "))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
