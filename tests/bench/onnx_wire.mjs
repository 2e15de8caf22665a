// onnx_wire.mjs - the protobuf wire format's few pieces the bench scripts
// need to write a small ONNX model by hand (ort_transpose.mjs,
// ort_overhead.mjs): a base-128 varint, a field key, a length-delimited
// field and a varint field. Every function returns a Buffer; msg and the
// field helpers take any number of Buffers as the field's body.

// A non-negative integer (Number or BigInt) as a base-128 varint.
export function varint(v) {
  const out = [];
  let n = BigInt(v);
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}

// A field's key: its number and wire type (0 varint, 2 length-delimited).
export const tag = (field, wire) => varint((field << 3) | wire);

// A length-delimited field whose body is the parts one after another.
export function msg(field, ...parts) {
  const body = Buffer.concat(parts);
  return Buffer.concat([tag(field, 2), varint(body.length), body]);
}

// A string field (UTF-8) and a varint field.
export const str = (field, s) => msg(field, Buffer.from(s));
export const int = (field, v) => Buffer.concat([tag(field, 0), varint(v)]);
