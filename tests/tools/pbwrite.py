"""pbwrite.py - protobuf wire format written by hand, for the scripts of
tests/ that make GraphDefs, traces and models without TensorFlow's Python
package (field numbers from tensorflow/core/framework/*.proto)."""


def varint(n):
    """An unsigned varint; a negative n as its 64-bit two's complement (ten
    bytes), as protobuf writes a negative int64."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def ld(num, payload):
    """A length-delimited field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vi(num, v):
    """A varint field."""
    return varint(num << 3) + varint(v)


def attr(key, value):
    """One entry of NodeDef.attr (field 5, a map entry {key 1, value 2})."""
    return ld(5, ld(1, key.encode()) + ld(2, value))
