#!/usr/bin/env python3
"""Checks foldline on int8 torchvision networks in both forms of a quantized
ONNX graph (tests/data/quantized/, written by tests/tools/export_quantized.py;
needs only the committed files and python3's standard library).

Per network, four forms: torch's QDQ export (NAME.qdq), ONNX Runtime's
'basic' graph of it (NAME.basic: folded, still QDQ), its 'extended' graph
(NAME.extended: the QOperator form, QLinearConv/QGemm/QLinearAdd/...) and its
'all' graph (NAME.all: the QOperator form channels-last, com.microsoft
QLinearConv with channels_last and NhwcMaxPool between two Transposes). The
expected figures come from NAME.layers.json, made by the exporter from torch
forward hooks on the float network's Conv2d/Linear modules, not from foldline:
  - every form is complete: no unknown op, no incomplete node;
  - the QDQ forms' MACs are the hooks' sum times batch (symbolic and bound),
    before and after the passes, and each float Conv/Gemm node (torch names
    module a.b.c's node "/a/b/c/Conv") has that layer's MACs and output shape;
  - the QOperator forms have 0 MACs, and each QLinearConv/QGemm (ORT keeps the
    node's name; in the 'all' form with a suffix "_token_N") has int_ops = 2*M + E(x) + E(w) + E(y) + E(y) with a bias
    (the rule in src/ops/onnxops/misc.c's header and src/ops/onnxms/quant.c:
    integer MACs twice, the zero points of x and w subtracted once per
    element, y's zero point added, the int32 bias added), M the float layer's
    MACs: the integer MACs of the quantized graph are the float MACs of the
    QDQ graph; and it has the layer's output shape (channels-last in 'all');
  - each residual QLinearAdd and googlenet QLinearConcat has the shape and
    counts its operands' layers give (check_joins);
  - the 'all' form's totals (int_ops, FLOPs) equal the 'extended' form's: a
    layout changes no arithmetic (its two Transposes count none);
  - every tensor name two forms both produce by a node has the same dtype and
    shape in both (e.g. the QDQ form's QuantizeLinear outputs, which the
    QOperator form's QLinearConv/QLinearAdd write; ORT renames the tensors it
    moves to channels-last).
Tensor names come from the files themselves (a minimal protobuf reader below:
ModelProto.graph 7, GraphProto.node 1 / output 12, NodeProto input 1 /
output 2 / name 3 / op_type 4); foldline's --per-node list is in file order.

usage: quantized_check.py FOLDLINE DATA_DIR SCRATCH_DIR
Prints one FAIL line per failed check and a count; exits 1 on any failure.
"""
import gzip
import json
import math
import os
import re
import subprocess
import sys

MODELS = ["mobilenet_v2", "resnet18", "googlenet"]
FORMS = ["qdq", "basic", "extended", "all"]
QOPERATOR = ("extended", "all")
BATCH = 2

fails = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        fails.append(what)
        print("FAIL " + what)


def fields(buf):
    """(field number, wire type, value) of one protobuf message."""
    i = 0
    while i < len(buf):
        key = 0
        shift = 0
        while True:
            b = buf[i]
            i += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        num, wt = key >> 3, key & 7
        if wt == 0:
            v = 0
            shift = 0
            while True:
                b = buf[i]
                i += 1
                v |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
        elif wt == 2:
            n = 0
            shift = 0
            while True:
                b = buf[i]
                i += 1
                n |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
            v = buf[i:i + n]
            i += n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def onnx_nodes(data):
    """[(name, op_type, [outputs])] of the main graph, in file order."""
    graph = next(v for n, wt, v in fields(data) if n == 7 and wt == 2)
    nodes = []
    for num, wt, v in fields(graph):
        if num == 1 and wt == 2:
            node = {"outputs": [], "name": "", "op": ""}
            for f, fwt, fv in fields(v):
                if f == 2 and fwt == 2:
                    node["outputs"].append(fv.decode())
                elif f == 3 and fwt == 2:
                    node["name"] = fv.decode()
                elif f == 4 and fwt == 2:
                    node["op"] = fv.decode()
            nodes.append(node)
    return nodes


def analyze(binary, path, *args):
    r = subprocess.run([binary, "analyze", path, "--json", "--require-complete"] + list(args),
                       capture_output=True, text=True)
    if r.returncode != 0:
        return r.returncode, r.stderr[:300]
    return 0, json.loads(r.stdout)


def value(count):
    return count.get("value") if isinstance(count, dict) else None


def numel(dims):
    return math.prod(dims)


def node_name(layer):
    return "/" + layer["module"].replace(".", "/") + "/" + layer["op"]


def check_form(binary, model, form, path, layers):
    """The checks of one file; returns {tensor name: (dtype, dims)}."""
    tag = f"{model}.{form}"
    with open(path, "rb") as f:
        parsed = onnx_nodes(f.read())
    rc, d = analyze(binary, path, "--bind", f"batch={BATCH}", "--per-node", "--passes", "none")
    check(rc == 0, f"{tag}: analyze --require-complete: exit {rc}: {d if rc else ''}")
    if rc != 0:
        return {}, None
    check(d["complete"] and d["unknown_ops"] == [] and d["coverage"]["nodes_incomplete"] == 0,
          f"{tag}: not complete: {d['coverage']} unknown {d['unknown_ops']}")
    nodes = d["nodes"]
    check([n["name"] for n in nodes] == [n["name"] for n in parsed],
          f"{tag}: --per-node lists {len(nodes)} nodes, the file {len(parsed)}")
    if len(nodes) != len(parsed):
        return {}, None
    tensors = {}
    for fn, pn in zip(nodes, parsed):
        for out, name in zip(fn["outputs"], pn["outputs"]):
            tensors[name] = (out["dtype"], out["dims"])
    by_name = {re.sub(r"_token_[0-9]+$", "", n["name"]): n for n in nodes}
    macs = sum(layer["macs"] for layer in layers)
    if form not in QOPERATOR:
        check(value(d["totals"]["macs"]) == BATCH * macs,
              f"{tag}: MACs {d['totals']['macs']}, want {BATCH * macs}")
        check(sum(n["op"] in ("Conv", "Gemm") for n in nodes) == len(layers),
              f"{tag}: Conv+Gemm nodes != {len(layers)} layers")
    else:
        check(value(d["totals"]["macs"]) == 0, f"{tag}: MACs {d['totals']['macs']}, want 0")
        check(sum(n["op"] in ("QLinearConv", "QGemm") for n in nodes) == len(layers),
              f"{tag}: QLinearConv+QGemm nodes != {len(layers)} layers")
    check_layers(tag, form, nodes, layers)
    if form in QOPERATOR:
        check_joins(tag, form, nodes, layers)
    return tensors, d["totals"]


def check_layers(tag, form, nodes, layers):
    """Each layer's node (by torch's name) has the layer's output shape and
    its counts: the float layer's MACs in a float form, 2*M + E(x) + E(w) +
    E(y) (+ E(y) bias) int_ops in a QOperator form."""
    by_name = {re.sub(r"_token_[0-9]+$", "", n["name"]): n for n in nodes}
    for layer in layers:
        name = node_name(layer)
        n = by_name.get(name)
        if n is None:
            check(False, f"{tag}: no node {name}")
            continue
        y = [BATCH] + layer["y"][1:]
        if form == "all" and layer["op"] == "Conv":
            y = [BATCH] + y[2:] + [y[1]]
        check(n["outputs"][0]["dims"] == y, f"{tag}: {name} output {n['outputs'][0]['dims']}, want {y}")
        m = BATCH * layer["macs"]
        if form not in QOPERATOR:
            check(n["op"] == layer["op"] and value(n["macs"]) == m,
                  f"{tag}: {name} {n['op']} MACs {n['macs']}, want {layer['op']} {m}")
            continue
        ex = BATCH * numel(layer["x"][1:])
        ey = BATCH * numel(layer["y"][1:])
        want = 2 * m + ex + numel(layer["w"]) + ey + (ey if layer["bias"] else 0)
        qop = "QLinearConv" if layer["op"] == "Conv" else "QGemm"
        check(n["op"] == qop and value(n["int_ops"]) == want and value(n["macs"]) == 0,
              f"{tag}: {name} {n['op']} int_ops {n['int_ops']} MACs {n['macs']}, want {qop} {want} 0")


def census(ops):
    """Operators per op type."""
    c = {}
    for op in ops:
        c[op] = c.get(op, 0) + 1
    return c


def check_fusion(binary, model, form, path, ext_path, layers):
    """The QDQ fusion pass (src/passes/qdq/fuse.c) on a QDQ form: after the
    default passes the graph has ONNX Runtime's QOperator graph's operators
    (the op census of NAME.extended, read from that file), no group left
    unfused, the totals foldline gives the QOperator file (FLOPs, MACs,
    int_ops, bytes, symbolic in batch), and every layer's node is the
    QLinearConv/QGemm check_layers derives from the hooks (at batch 2)."""
    tag = f"{model}.{form} after the passes"
    with open(ext_path, "rb") as f:
        want = census(n["op"] for n in onnx_nodes(f.read()))
    rc, d = analyze(binary, path, "--per-node")
    rc2, e = analyze(binary, ext_path, "--passes", "none")
    check(rc == 0 and rc2 == 0, f"{tag}: analyze exit {rc} / {rc2}")
    if rc or rc2:
        return
    got = census(n["op"] for n in d["nodes_after"])
    check(got == want, f"{tag}: operators {sorted(got.items())}, ORT's extended graph "
                       f"{sorted(want.items())}")
    left = [r for p in d["passes"] for r in p["rules"] if r["rule"] == "qdq_left"]
    check(not left, f"{tag}: groups left: {left[:3]}")
    fused = sum(len(p["rules"]) for p in d["passes"] if p["pass"] == "qdq")
    check(fused > 0, f"{tag}: the qdq pass fired no rule")
    for k in ("flops", "macs", "int_ops", "bytes"):
        check(d["after"][k] == e["totals"][k],
              f"{tag}: {k} {d['after'][k]}, the QOperator file {e['totals'][k]}")
    rc, d = analyze(binary, path, "--per-node", "--bind", f"batch={BATCH}")
    check(rc == 0, f"{tag}: analyze --bind exit {rc}")
    if rc == 0:
        check_layers(tag, "extended", d["nodes_after"], layers)


def check_joins(tag, form, nodes, layers):
    """The residual QLinearAdds and googlenet's QLinearConcats, from the hooks'
    shapes: an Add "/P/Add" joins operands shaped as block P's last layer
    output (E each of A, B and C): int_ops 3E, FLOPs 4E (qlinear.c: zero
    points off A and B and on C; scales of A and B, the add, the rounding).
    A Concat "/P/Concat" (axis 1) stacks the outputs of the last layer of each
    branch "P.branchK": Y = (N, sum of their channels, H, W); int_ops and FLOPs
    2 * E(Y) each (requantizing every element)."""
    seen = 0
    for n in nodes:
        name = re.sub(r"_token_[0-9]+$", "", n["name"])
        block = name.rsplit("/", 1)[0][1:].replace("/", ".")
        if n["op"] == "QLinearAdd":
            inside = [layer for layer in layers if layer["module"].startswith(block + ".")]
            if not inside:
                check(False, f"{tag}: {name}: no layer in block {block}")
                continue
            y = [BATCH] + inside[-1]["y"][1:]
            e = numel(y)
            want_i, want_f = 3 * e, 4 * e
        elif n["op"] == "QLinearConcat":
            last = {}
            for layer in layers:
                if layer["module"].startswith(block + ".branch"):
                    last[layer["module"].split(".")[1]] = layer
            ys = [layer["y"] for layer in last.values()]
            y = [BATCH, sum(v[1] for v in ys)] + ys[0][2:]
            want_i = want_f = 2 * numel(y)
        else:
            continue
        seen += 1
        if form == "all":
            y = [y[0]] + y[2:] + [y[1]]
        check(n["outputs"][0]["dims"] == y and value(n["int_ops"]) == want_i
              and value(n["flops"]) == want_f,
              f"{tag}: {name} {n['op']} {n['outputs'][0]['dims']} int_ops {n['int_ops']} FLOPs "
              f"{n['flops']}, want {y} {want_i} {want_f}")
    check(seen > 0, f"{tag}: no QLinearAdd/QLinearConcat")


def check_symbolic(binary, model, form, path, macs):
    """Free batch: the MACs as a formula; after the default passes the same in a
    QOperator form, 0 in a QDQ form (fused: integer work), and the same with
    the qdq pass off."""
    tag = f"{model}.{form}"
    rc, d = analyze(binary, path)
    check(rc == 0, f"{tag}: analyze with passes: exit {rc}: {d if rc else ''}")
    if rc != 0:
        return
    want = {"formula": f"{macs}*batch"} if form not in QOPERATOR else {"value": 0}
    # A QDQ form's MACs become int_ops in the qdq pass (check_fusion); with
    # the pass off the other passes keep them.
    if form not in QOPERATOR:
        rc, d2 = analyze(binary, path, "--disable", "qdq")
        check(rc == 0 and d2["after"]["macs"] == want,
              f"{tag}: MACs after the passes but qdq {d2['after']['macs'] if rc == 0 else rc}")
    want_after = want if form in QOPERATOR else {"value": 0}
    check(d["before"]["macs"] == want and d["after"]["macs"] == want_after,
          f"{tag}: MACs before {d['before']['macs']} after {d['after']['macs']}, want {want} "
          f"and {want_after}")
    if form in QOPERATOR:  # nothing for the passes to fold: the integer work stays
        check(d["before"]["int_ops"] == d["after"]["int_ops"],
              f"{tag}: int_ops before {d['before']['int_ops']} after {d['after']['int_ops']}")


def main():
    binary, data, scratch = sys.argv[1:4]
    for model in MODELS:
        with open(os.path.join(data, f"{model}.layers.json")) as f:
            doc = json.load(f)
        layers = doc["layers"]
        macs = sum(layer["macs"] for layer in layers)
        # The hooks' own MAC figure of each layer, from its shapes.
        for layer in layers:
            k = numel(layer["w"][1:])  # in_channels / groups x kernel area, or in_features
            check(layer["macs"] == numel(layer["y"]) * k, f"{model}: {layer['module']} MACs from shapes")
        check(macs == doc["macs"], f"{model}: layer sum {macs} != {doc['macs']}")
        shapes, totals = {}, {}
        for form in FORMS:
            path = os.path.join(scratch, f"{model}.{form}.onnx")
            with gzip.open(os.path.join(data, f"{model}.{form}.stripped.onnx.gz"), "rb") as src:
                with open(path, "wb") as dst:
                    dst.write(src.read())
            shapes[form], totals[form] = check_form(binary, model, form, path, layers)
            check_symbolic(binary, model, form, path, macs)
        for form in ("qdq", "basic"):
            check_fusion(binary, model, form, os.path.join(scratch, f"{model}.{form}.onnx"),
                         os.path.join(scratch, f"{model}.extended.onnx"), layers)
        ta, tb = totals["extended"], totals["all"]
        check(ta and tb and ta["int_ops"] == tb["int_ops"] and ta["flops"] == tb["flops"],
              f"{model}: totals extended {ta} vs all {tb}")
        for a, b in (("qdq", "extended"), ("basic", "extended"), ("qdq", "basic"), ("extended", "all")):
            shared = set(shapes[a]) & set(shapes[b])
            # The NHWC transformer renames what it moves to channels-last: outside
            # the two Transposes x's QuantizeLinear, the QGemm and y keep their names.
            least = 3 if b == "all" else len(layers)
            check(len(shared) >= least, f"{model}: {a}/{b} share {len(shared)} tensor names")
            bad = sorted(t for t in shared if shapes[a][t] != shapes[b][t])
            check(not bad, f"{model}: {a}/{b}: {len(bad)} shared tensors differ, e.g. " +
                  ", ".join(f"{t} {shapes[a][t]} vs {shapes[b][t]}" for t in bad[:3]))
    print(f"{passed} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
