// Runs two ONNX models in ONNX Runtime (CPU, graph optimisations disabled,
// so each runs as written, unless LEVEL_A names another level for A) on the
// same seeded random inputs and compares every output: same names, shapes
// and values within a tolerance relative to the output's largest magnitude
// (RTOL 0: equal values).
// Usage: node ort_compare.mjs ORT_DIR A.onnx B.onnx INPUTS_JSON [RTOL [LEVEL_A]]
//   ORT_DIR      a directory with node_modules/onnxruntime-node
//   INPUTS_JSON  [{"name": "input", "dtype": "float", "shape": [1,3,224,224]}, ...];
//                (dtype float, int64, uint8 or bool); an entry may give its "values"
//                (row-major, float or int64) instead of random ones
//   LEVEL_A      ORT's graphOptimizationLevel for A: disabled (default), basic,
//                extended or all (B always runs with optimisations disabled)
// Prints one line per output (with its count of distinct values); exit 0
// when all match, 1 when not, 2 on error.
import { createRequire } from "module";
import path from "path";

const [ortDir, a, b, inputsJson, rtolArg, levelA] = process.argv.slice(2);
const ort = createRequire(path.join(path.resolve(ortDir), "package.json"))("onnxruntime-node");
const rtol = rtolArg !== undefined && rtolArg !== "" ? Number(rtolArg) : 1e-3;

let seed = 12345;
function rand() { // xorshift32 in [-1, 1)
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return (seed / 4294967296) * 2 - 1;
}

function makeInput(spec) {
  const n = spec.shape.reduce((x, y) => x * y, 1);
  if (spec.values) {
    if (spec.values.length !== n) throw new Error(`input ${spec.name}: ${spec.values.length} values for ${n} elements`);
    if (spec.dtype === "int64") return new ort.Tensor("int64", BigInt64Array.from(spec.values, BigInt), spec.shape);
    return new ort.Tensor("float32", Float32Array.from(spec.values), spec.shape);
  }
  if (spec.dtype === "float") {
    const d = new Float32Array(n);
    for (let i = 0; i < n; i++) d[i] = rand();
    return new ort.Tensor("float32", d, spec.shape);
  }
  if (spec.dtype === "int64") {
    const d = new BigInt64Array(n);
    for (let i = 0; i < n; i++) d[i] = BigInt(Math.floor((rand() + 1) * 50));
    return new ort.Tensor("int64", d, spec.shape);
  }
  if (spec.dtype === "uint8") {
    const d = new Uint8Array(n);
    for (let i = 0; i < n; i++) d[i] = Math.floor((rand() + 1) * 128);
    return new ort.Tensor("uint8", d, spec.shape);
  }
  if (spec.dtype === "bool") {
    const d = new Uint8Array(n);
    for (let i = 0; i < n; i++) d[i] = rand() > 0 ? 1 : 0;
    return new ort.Tensor("bool", d, spec.shape);
  }
  throw new Error(`input ${spec.name}: dtype ${spec.dtype} not handled`);
}

try {
  const opts = { graphOptimizationLevel: "disabled", intraOpNumThreads: 1, logSeverityLevel: 3 };
  const sa = await ort.InferenceSession.create(a, { ...opts, graphOptimizationLevel: levelA || "disabled" });
  const sb = await ort.InferenceSession.create(b, opts);
  const feeds = {};
  for (const spec of JSON.parse(inputsJson)) feeds[spec.name] = makeInput(spec);
  const ra = await sa.run(feeds);
  const rb = await sb.run(feeds);
  let ok = JSON.stringify(sa.outputNames) === JSON.stringify(sb.outputNames);
  if (!ok) console.log(`outputs differ: ${sa.outputNames} vs ${sb.outputNames}`);
  for (const name of sa.outputNames) {
    const x = ra[name], y = rb[name];
    if (!y || JSON.stringify(x.dims) !== JSON.stringify(y.dims)) {
      console.log(`${name}: shape ${x.dims} vs ${y ? y.dims : "missing"}`);
      ok = false;
      continue;
    }
    let scale = 0, diff = 0;
    const distinct = new Set();
    for (let i = 0; i < x.data.length; i++) {
      if (distinct.size < 100000) distinct.add(Number(x.data[i]));
      scale = Math.max(scale, Math.abs(Number(x.data[i])));
      diff = Math.max(diff, Math.abs(Number(x.data[i]) - Number(y.data[i])));
    }
    const good = Number.isFinite(scale) && diff <= rtol * Math.max(scale, 1e-6);
    console.log(`${name}: [${x.dims}] max |diff| ${diff.toExponential(3)}, max |value| ${scale.toExponential(3)}, ${distinct.size} distinct ${good ? "ok" : "MISMATCH"}`);
    ok = ok && good;
  }
  process.exit(ok ? 0 : 1);
} catch (e) {
  console.log(`error: ${e.message}`);
  process.exit(2);
}
