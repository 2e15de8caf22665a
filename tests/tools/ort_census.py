#!/usr/bin/env python3
"""ort_census.py ORT.json FOLDLINE.json [--totals K,K,...] [--ops OP,OP,...]
[--integer]: compares two `foldline analyze --passes none --json` reports,
ONNX Runtime's optimised graph first and foldline's second. Prints one line:
"same " or "DIFFERENT ", ORT's operator counts, foldline's when they differ,
and the totals (default flops, macs, bytes) that differ. --ops compares only
those operators (absent counts as 0); --integer also requires an operator
of ORT's integer kernels (QLinear*, QGemm) in ORT's graph. Used by
tests/integration/ort_transpose.sh and ort_quantized.sh."""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument("ort")
ap.add_argument("foldline")
ap.add_argument("--totals", default="flops,macs,bytes")
ap.add_argument("--ops", default="")
ap.add_argument("--integer", action="store_true")
args = ap.parse_args()
keys = [k for k in args.totals.split(",") if k]
only = [k for k in args.ops.split(",") if k]


def load(path):
    r = json.load(open(path))
    ops = {e["op"]: e["count"] for e in r["ops"]}
    if only:
        ops = {k: ops.get(k, 0) for k in only}
    return ops, {k: json.dumps(r["totals"][k], sort_keys=True) for k in keys}


def census(ops):
    return " ".join(f"{k}={v}" for k, v in sorted(ops.items()))


(a, ta), (b, tb) = load(args.ort), load(args.foldline)
diff = [k for k in keys if ta[k] != tb[k]]
same = a == b and not diff
if args.integer:
    same = same and any(k.startswith(("QLinear", "QGemm")) for k in a)
print(("same " if same else "DIFFERENT ") + census(a) +
      ("" if a == b else " (foldline: " + census(b) + ")") +
      ("" if not diff else " totals differ: " + "; ".join(f"{k} {ta[k]} vs {tb[k]}" for k in diff)))
