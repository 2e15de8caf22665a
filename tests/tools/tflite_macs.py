#!/usr/bin/env python3
"""MACs of a TFLite model from the tensor shapes stored in the file, read with
the flatbuffers library (Debian's python3-flatbuffers), independently of
foldline's reader. Convention (the TFLite corpus MANIFEST's): CONV_2D
out x kh x kw x cin; DEPTHWISE_CONV_2D out x kh x kw; FULLY_CONNECTED
out x in; TRANSPOSE_CONV and Convolution2DTransposeBias in x kh x kw x cout.
Also prints the operator names it does not know of the schema (none expected).

usage: tflite_macs.py MODEL.tflite   -> prints "MACS <n>" and "OPS <count>"
"""
import sys

import flatbuffers
from flatbuffers import number_types as nt


def field(tab, slot):
    return tab.Offset(4 + 2 * slot)


def sub_table(tab, slot):
    o = field(tab, slot)
    if not o:
        return None
    return flatbuffers.table.Table(tab.Bytes, tab.Indirect(o + tab.Pos))


def vec_tables(tab, slot):
    o = field(tab, slot)
    if not o:
        return []
    start, n = tab.Vector(o), tab.VectorLen(o)
    return [flatbuffers.table.Table(tab.Bytes, tab.Indirect(start + 4 * i)) for i in range(n)]


def vec_ints(tab, slot):
    o = field(tab, slot)
    if not o:
        return []
    start, n = tab.Vector(o), tab.VectorLen(o)
    return [tab.Get(nt.Int32Flags, start + 4 * i) for i in range(n)]


def scalar(tab, slot, flags, default=0):
    o = field(tab, slot)
    return tab.Get(flags, o + tab.Pos) if o else default


def string(tab, slot):
    o = field(tab, slot)
    return tab.String(o + tab.Pos).decode() if o else ""


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def main(path):
    buf = bytearray(open(path, "rb").read())
    assert buf[4:8] == b"TFL3", "not a TFLite file"
    model = flatbuffers.table.Table(buf, flatbuffers.encode.Get(nt.UOffsetTFlags.packer_type, buf, 0))
    codes = []
    for oc in vec_tables(model, 1):
        dep = scalar(oc, 0, nt.Int8Flags)
        wide = scalar(oc, 3, nt.Int32Flags)
        code = max(dep, wide)
        codes.append(string(oc, 1) if code == 32 else code)
    macs, ops = 0, 0
    for sg in vec_tables(model, 2):
        tensors = vec_tables(sg, 0)
        shape = lambda i: vec_ints(tensors[i], 0)
        for op in vec_tables(sg, 3):
            ops += 1
            code = codes[scalar(op, 0, nt.Uint32Flags)]
            ins, outs = vec_ints(op, 1), vec_ints(op, 2)
            out = prod(shape(outs[0])) if outs else 0
            if code == 3:  # CONV_2D
                w = shape(ins[1])
                macs += out * w[1] * w[2] * w[3]
            elif code == 4:  # DEPTHWISE_CONV_2D
                w = shape(ins[1])
                macs += out * w[1] * w[2]
            elif code == 9:  # FULLY_CONNECTED
                macs += out * shape(ins[1])[1]
            elif code == 67:  # TRANSPOSE_CONV: (output_shape, weights, input)
                w = shape(ins[1])
                macs += prod(shape(ins[2])) * w[0] * w[1] * w[2]
            elif code == "Convolution2DTransposeBias":  # (input, weights, bias)
                w = shape(ins[1])
                macs += prod(shape(ins[0])) * w[0] * w[1] * w[2]
    print("MACS", macs)
    print("OPS", ops)


if __name__ == "__main__":
    main(sys.argv[1])
