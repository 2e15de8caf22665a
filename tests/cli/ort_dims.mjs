// Runs an ONNX model in ONNX Runtime (CPU, graph optimisations disabled) on
// deterministic inputs and prints the dims of every output as JSON:
// {"name": [d0, d1, ...], ...}, or {"error": "..."}.
// Usage: node ort_dims.mjs ORT_DIR MODEL INPUTS_JSON
//   ORT_DIR      a directory with node_modules/onnxruntime-node
//   INPUTS_JSON  [{"name": "x", "dtype": "float"|"int32"|"int64", "dims": [2, 3]}, ...]
//                (integer inputs hold 0, 1, 2, 0, ...: valid positions and indices)
import { createRequire } from "module";
import path from "path";

const [ortDir, model, inputsJson] = process.argv.slice(2);
const ort = createRequire(path.join(path.resolve(ortDir), "package.json"))("onnxruntime-node");
try {
  const s = await ort.InferenceSession.create(model, { graphOptimizationLevel: "disabled", intraOpNumThreads: 1 });
  const feeds = {};
  for (const spec of JSON.parse(inputsJson)) {
    const n = spec.dims.reduce((a, b) => a * b, 1);
    if (spec.dtype === "float") {
      feeds[spec.name] = new ort.Tensor("float32", Float32Array.from({ length: n }, (_, i) => Math.sin(i) / 2), spec.dims);
    } else if (spec.dtype === "int32") {
      feeds[spec.name] = new ort.Tensor("int32", Int32Array.from({ length: n }, (_, i) => i % 3), spec.dims);
    } else if (spec.dtype === "int64") {
      feeds[spec.name] = new ort.Tensor("int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(i % 3)), spec.dims);
    } else {
      throw new Error(`input ${spec.name}: dtype ${spec.dtype} not handled`);
    }
  }
  const r = await s.run(feeds);
  const out = {};
  for (const name of s.outputNames) out[name] = r[name].dims;
  console.log(JSON.stringify(out));
} catch (e) {
  console.log(JSON.stringify({ error: e.message }));
}
