// Runs every model of a sweep directory (its cases.json, written by
// tests/tools/export_ort_sweep.py) in ONNX Runtime (CPU, graph optimisations
// disabled, one thread) and prints one JSON object: for each case tag,
// {"graph output": {"dims": [...], "type": "float32"}, ...} or {"error": "..."}.
// Inputs hold the case's values, else a fixed pattern (floats sin(i)/2,
// integers 0, 1, 2, 0, ..., strings "ab,c<i> d", float16 0.5).
// Usage: node ortsweep_run.mjs ORT_DIR SWEEP_DIR
import { createRequire } from "module";
import fs from "fs";
import path from "path";

const [ortDir, dir] = process.argv.slice(2);
const ort = createRequire(path.join(path.resolve(ortDir), "package.json"))("onnxruntime-node");
const seq = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const ints = (n, v) => v ?? seq(n, (i) => i % 3);
const make = {
  float: (n, v) => ["float32", Float32Array.from(v ?? seq(n, (i) => Math.sin(i) / 2))],
  double: (n, v) => ["float64", Float64Array.from(v ?? seq(n, (i) => Math.sin(i) / 2))],
  float16: (n, v) => ["float16", Uint16Array.from(v ?? seq(n, () => 0x3800))],
  int8: (n, v) => ["int8", Int8Array.from(ints(n, v))],
  uint8: (n, v) => ["uint8", Uint8Array.from(ints(n, v))],
  int16: (n, v) => ["int16", Int16Array.from(ints(n, v))],
  uint16: (n, v) => ["uint16", Uint16Array.from(ints(n, v))],
  int32: (n, v) => ["int32", Int32Array.from(ints(n, v))],
  uint32: (n, v) => ["uint32", Uint32Array.from(ints(n, v))],
  int64: (n, v) => ["int64", BigInt64Array.from(ints(n, v).map(BigInt))],
  uint64: (n, v) => ["uint64", BigUint64Array.from(ints(n, v).map(BigInt))],
  bool: (n, v) => ["bool", Uint8Array.from(v ?? seq(n, (i) => i % 2))],
  string: (n, v) => ["string", v ?? seq(n, (i) => `ab,c${i} d`)],
};
const cases = JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8"));
const all = {};
for (const c of cases) {
  try {
    const s = await ort.InferenceSession.create(path.join(dir, `${c.tag}.onnx`), {
      graphOptimizationLevel: "disabled",
      intraOpNumThreads: 1,
      logSeverityLevel: 3,
    });
    const feeds = {};
    for (const f of c.feeds) {
      if (!make[f.dtype]) throw new Error(`input ${f.name}: dtype ${f.dtype} not handled`);
      const [t, data] = make[f.dtype](f.dims.reduce((a, b) => a * b, 1), f.values);
      feeds[f.name] = new ort.Tensor(t, data, f.dims);
    }
    const r = await s.run(feeds);
    const out = {};
    for (const name of s.outputNames) out[name] = r[name] ? { dims: r[name].dims, type: r[name].type } : null;
    all[c.tag] = out;
    await s.release();
  } catch (e) {
    all[c.tag] = { error: String(e.message ?? e) };
  }
}
console.log(JSON.stringify(all));
