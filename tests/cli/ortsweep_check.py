#!/usr/bin/python3
"""Checks every case of a sweep directory (tests/data/ortsweep, written by
tests/tools/export_ort_sweep.py): foldline (analyze --per-node --json
--passes none) must give the node `target` every output with a fully known
shape (the case's dynamic dims excepted, which must stay symbolic) and the
dtype the schema gives it; with ONNX Runtime's results (ortsweep_run.mjs's JSON
file), every output's dims and dtype must equal ONNX Runtime's.
Prints a line a case and a summary; exit 0 when every case passes, else 1.
Usage: ortsweep_check.py FOLDLINE SWEEP_DIR [ORT_RESULTS_JSON]
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# foldline's dtype names where they differ from the ONNX names the cases use
FL_DTYPE = {"half": "float16", "float8_e4m3fn": "float8e4m3fn", "float8_e5m2": "float8e5m2",
            "float8_e4m3fnuz": "float8e4m3fnuz", "float8_e5m2fnuz": "float8e5m2fnuz",
            "float8_e8m0fnu": "float8e8m0", "float4_e2m1fn": "float4e2m1"}
# onnxruntime-node's tensor type names
ORT_DTYPE = {"float32": "float", "float64": "double"}


def run_foldline(binary, path):
    p = subprocess.run([binary, "analyze", path, "--per-node", "--json", "--passes", "none"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()[:300])
    r = json.loads(p.stdout)
    if r.get("unknown_ops"):
        return None, "unknown ops %s" % r["unknown_ops"]
    node = [n for n in r["nodes"] if n["name"] == "target"]
    if not node:
        return None, "no node 'target' in the report"
    return node[0], None


def check(c, node, ort):
    """The case's problems, [] when it passes."""
    bad = []
    got = ort.get(c["tag"]) if ort is not None else None
    if got is not None and "error" in got:
        return ["ONNX Runtime: " + got["error"][:300]]
    outs = node["outputs"]
    for o in c["outputs"]:
        k = o["index"]
        if k >= len(outs):
            bad.append("output %s missing" % o["name"])
            continue
        dims, dt = outs[k].get("dims"), FL_DTYPE.get(outs[k]["dtype"], outs[k]["dtype"])
        if dt != o["dtype"]:
            bad.append("output %s dtype %s, the schema's %s" % (o["name"], dt, o["dtype"]))
        dyn = set(o.get("dynamic", []))
        if dims is None:
            bad.append("output %s has an unknown rank" % o["name"])
            continue
        for i, d in enumerate(dims):
            if (i in dyn) == isinstance(d, int):
                bad.append("output %s dim %d is %s, want %s" % (
                    o["name"], i, d, "symbolic (run-time data)" if i in dyn else "known"))
        if got is None:
            continue
        g = got.get(o.get("graph", o["name"]))
        if g is None:
            bad.append("ONNX Runtime gives no output %s" % o.get("graph", o["name"]))
            continue
        want = [d if i not in dyn else None for i, d in enumerate(g["dims"])]
        mine = [d if i not in dyn else None for i, d in enumerate(dims)]
        if mine != want or len(dims) != len(g["dims"]):
            bad.append("output %s: foldline %s, ONNX Runtime %s" % (o["name"], outs[k]["shape"],
                                                                   g["dims"]))
        ot = ORT_DTYPE.get(g["type"], g["type"])
        if "graph" not in o and ot != dt:  # a Cast's output is float
            bad.append("output %s: foldline dtype %s, ONNX Runtime %s" % (o["name"], dt, ot))
    return bad


def main():
    binary, sweep = sys.argv[1], sys.argv[2]
    ort = None
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as f:
            ort = json.load(f)
    with open(os.path.join(sweep, "cases.json")) as f:
        cases = json.load(f)
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda c: run_foldline(binary, os.path.join(sweep, c["tag"] + ".onnx")), cases))
    fails = 0
    ops = set()
    for c, (node, err) in zip(cases, runs):
        bad = [err] if err else check(c, node, ort)
        ops.add((c["domain"], c["op"]))
        if bad:
            fails += 1
            print("FAIL %s (%s-%d): %s" % (c["tag"], c["op"], c["opset"], "; ".join(bad)))
        else:
            shapes = " ".join(node["outputs"][o["index"]]["shape"] for o in c["outputs"])
            print("ok %s (%s-%d): %s%s" % (c["tag"], c["op"], c["opset"], shapes,
                                          ", ONNX Runtime the same" if ort is not None else ""))
    print("%d cases of %d operators: %d passed, %d failed" % (len(cases), len(ops),
                                                            len(cases) - fails, fails))
    sys.exit(1 if fails or len(cases) < 100 else 0)


if __name__ == "__main__":
    main()
