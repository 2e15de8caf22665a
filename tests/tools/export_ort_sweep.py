#!/usr/bin/env python3
"""Writes tests/data/ortsweep/: one small ONNX model per case of
ortsweep/cases_onnx.py (ai.onnx operators of opsets 18 to 24) and
ortsweep/cases_ms.py (ONNX Runtime's com.microsoft operators), and cases.json,
what tests/cli/cli_onnx_ortsweep.sh needs to run each model in foldline and in
ONNX Runtime and compare every output's shape and dtype: the inputs to feed,
and per output the node's output and the dtype the schema gives it (and the
Cast's output ONNX Runtime returns for a dtype onnxruntime-node cannot hand
back). A case's model is TAG.onnx.

Each model is one node named `target`; fixed input shapes; constant operands
are initializers. Cases ONNX Runtime 1.30 cannot run or runs wrongly (the
SKIP lists, each with its reason) are not written: foldline's answers for the
valid ones are checked by the unit tests instead (test_nodes_ort_cannot_run in
test_onnx_ops.c, test_ms_nodes_ort_cannot_run in test_onnx_ms.c, and the
contrib ops without a CPU kernel in test_onnx_ms.c, test_onnx_mha.c,
test_onnx_qlinear.c and test_onnx_qms.c). ImageDecoder is not modelled.

Needs Debian's python3-onnx (the test suite reads the committed files).
Usage: export_ort_sweep.py OUTDIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "ortsweep"))

import onnx  # noqa: E402

import model  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    skip, dynamic = {}, {}
    for mod in ("cases_onnx", "cases_ms"):
        m = __import__(mod)
        skip.update(m.SKIP)
        dynamic.update(m.DYNAMIC)
    tags = [c["tag"] for c in model.CASES]
    dup = {t for t in tags if tags.count(t) > 1}
    if dup:
        sys.exit("duplicate case tags: %s" % sorted(dup))
    for t in list(skip) + list(dynamic):
        if t not in tags:
            sys.exit("SKIP/DYNAMIC names no case: %s" % t)
    for f in os.listdir(out):
        if f.endswith(".onnx"):
            os.remove(os.path.join(out, f))
    entries = []
    for c in model.CASES:
        if c["tag"] in skip:
            continue
        c["dynamic"] = dynamic.get(c["tag"], {})
        onnx.save(model.build(c), os.path.join(out, c["tag"] + ".onnx"))
        entries.append(model.manifest_entry(c))
    with open(os.path.join(out, "cases.json"), "w") as f:  # a case a line
        f.write("[\n" + ",\n".join(json.dumps(e, separators=(",", ":")) for e in entries) + "\n]\n")
    print("%d cases written, %d skipped" % (len(entries), len(skip)))


if __name__ == "__main__":
    main()
