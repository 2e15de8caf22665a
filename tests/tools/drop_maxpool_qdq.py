#!/usr/bin/env python3
"""Writes a variant of a QDQ ONNX file without the QuantizeLinear ->
DequantizeLinear pair in front of each MaxPool, as a quantizer that leaves
MaxPool's input in float does: X -> Q [-> Cast] -> DQ -> MaxPool (each of
Q, Cast, DQ read by the next alone) becomes X -> MaxPool. The QDQ
propagation of ONNX Runtime (and of foldline's qdq pass) puts the pair
back from the QuantizeLinear after the MaxPool.

Works on the protobuf wire format (no onnx module needed): ModelProto
field 7 (graph), GraphProto field 1 (node), NodeProto fields 1 (input),
2 (output), 4 (op_type); every other field is copied as it is.

Usage: drop_maxpool_qdq.py IN.onnx OUT.onnx  (prints the pairs removed)
"""
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def enc_varint(v):
    out = bytearray()
    while True:
        c, v = v & 0x7F, v >> 7
        out.append(c | 0x80 if v else c)
        if not v:
            return bytes(out)


def fields(b):
    """(field, wire type, value) of a message, in order."""
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        f, t = k >> 3, k & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 2:
            n, i = varint(b, i)
            v, i = bytes(b[i:i + n]), i + n
        elif t == 5:
            v, i = bytes(b[i:i + 4]), i + 4
        elif t == 1:
            v, i = bytes(b[i:i + 8]), i + 8
        else:
            raise ValueError("wire type %d" % t)
        out.append((f, t, v))
    return out


def emit(fs):
    out = bytearray()
    for f, t, v in fs:
        out += enc_varint(f << 3 | t)
        out += enc_varint(v) if t == 0 else (enc_varint(len(v)) + v if t == 2 else v)
    return bytes(out)


def strs(n, field):
    return [v.decode() for f, _, v in n if f == field]


def main():
    model = fields(open(sys.argv[1], "rb").read())
    gi = next(i for i, (f, _, _) in enumerate(model) if f == 7)
    graph = fields(model[gi][2])
    nodes = {i: fields(v) for i, (f, _, v) in enumerate(graph) if f == 1}
    prod, readers = {}, {}
    for i, n in nodes.items():
        for o in strs(n, 2):
            prod[o] = i
        for x in strs(n, 1):
            readers.setdefault(x, []).append(i)

    def single(value, op):
        """The node producing `value` when its op is `op` and only one node reads it."""
        i = prod.get(value)
        return i if i is not None and strs(nodes[i], 4)[0] == op and len(readers[value]) == 1 else None

    drop, rewire = set(), {}
    for i, n in nodes.items():
        if strs(n, 4)[0] != "MaxPool":
            continue
        dq = single(strs(n, 1)[0], "DequantizeLinear")
        if dq is None:
            continue
        x = strs(nodes[dq], 1)[0]
        cast = single(x, "Cast")
        q = single(strs(nodes[cast], 1)[0] if cast is not None else x, "QuantizeLinear")
        if q is None:
            continue
        drop |= {dq, q} | ({cast} if cast is not None else set())
        rewire[i] = strs(nodes[q], 1)[0]
    out = []
    for i, (f, t, v) in enumerate(graph):
        if i in drop:
            continue
        if i in rewire:
            n, first = [], True
            for nf, nt, nv in nodes[i]:
                if nf == 1 and first:
                    nv, first = rewire[i].encode(), False
                n.append((nf, nt, nv))
            v = emit(n)
        out.append((f, t, v))
    model[gi] = (7, 2, emit(out))
    open(sys.argv[2], "wb").write(emit(model))
    print(len(rewire))


if __name__ == "__main__":
    main()
