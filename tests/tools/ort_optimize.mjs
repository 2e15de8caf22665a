// ort_optimize.mjs ORT_DIR MODEL.onnx LEVEL OUT.onnx - writes ONNX Runtime's
// (CPU) optimised graph of MODEL at LEVEL ('basic', 'extended' or 'all'), as
// its optimizedModelFilePath session option saves it. ORT_DIR holds
// node_modules/onnxruntime-node (`npm ci --ignore-scripts` with
// tests/bench/ort/package.json). Used by tests/tools/ort_sweep.py.
import { createRequire } from "module";
import path from "path";

const [ortDir, model, level, out] = process.argv.slice(2);
if (!out) {
  console.error("usage: ort_optimize.mjs ORT_DIR MODEL.onnx LEVEL OUT.onnx");
  process.exit(2);
}
const ort = createRequire(path.join(path.resolve(ortDir), "package.json"))("onnxruntime-node");
try {
  const s = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: level, optimizedModelFilePath: out, intraOpNumThreads: 1,
  });
  await s.release();
} catch (e) {
  console.error(`${model} at ${level}: ${e.message}`);
  process.exit(1);
}
