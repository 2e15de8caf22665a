#!/usr/bin/env python3
"""Writes a small ONNX model for cli_onnx_writeback, in pure Python (no onnx
package): OUT_DIR/ext.onnx with its weight in OUT_DIR/ext.bin as external
data, and a second graph output computed from constants only.

  x [1,4] float -> MatMul(x, w [4,3], external in ext.bin) -> Add(., b [3]) -> y
  k = Add(c1 [3], c2 [3])  (a graph output the constant folding turns into
                            an initializer)
Values: w = 0.5 * (1..12), b = (1, -1, 2), c1 = (1, 2, 3), c2 = (0.5, 0.25, 4).
Usage: mk_onnx_ext.py OUT_DIR
"""
import os
import struct
import sys


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def s(num, text):
    return field(num, 2, text.encode() if isinstance(text, str) else text)


def floats(vals):
    return struct.pack("<%df" % len(vals), *vals)


def tensor(name, dims, raw=None, external=None):
    t = b"".join(field(1, 0, d) for d in dims) + field(2, 0, 1) + s(8, name)
    if raw is not None:
        t += s(9, raw)
    if external is not None:
        for k, v in external:
            t += s(13, s(1, k) + s(2, v))
        t += field(14, 0, 1)
    return t


def node(name, op, ins, outs):
    return b"".join(s(1, i) for i in ins) + b"".join(s(2, o) for o in outs) + s(3, name) + s(4, op)


def value_info(name, dims):
    shape = b"".join(s(1, field(1, 0, d)) for d in dims)
    return s(1, name) + s(2, s(1, field(1, 0, 1) + s(2, shape)))


out = sys.argv[1]
w = floats([0.5 * i for i in range(1, 13)])
with open(os.path.join(out, "ext.bin"), "wb") as f:
    f.write(w)
graph = (
    s(1, node("mm", "MatMul", ["x", "w"], ["p"]))
    + s(1, node("add", "Add", ["p", "b"], ["y"]))
    + s(1, node("kadd", "Add", ["c1", "c2"], ["k"]))
    + s(2, "ext")
    + s(5, tensor("w", [4, 3], external=[("location", "ext.bin"), ("offset", "0"), ("length", str(len(w)))]))
    + s(5, tensor("b", [3], raw=floats([1, -1, 2])))
    + s(5, tensor("c1", [3], raw=floats([1, 2, 3])))
    + s(5, tensor("c2", [3], raw=floats([0.5, 0.25, 4])))
    + s(11, value_info("x", [1, 4]))
    + s(12, value_info("y", [1, 3]))
    + s(12, value_info("k", [3]))
)
model = field(1, 0, 8) + s(8, s(1, "") + field(2, 0, 13)) + s(7, graph)
with open(os.path.join(out, "ext.onnx"), "wb") as f:
    f.write(model)
