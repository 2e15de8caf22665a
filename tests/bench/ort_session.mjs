// ort_session.mjs MODEL.onnx RUNS - ONNX Runtime (CPU) session creation on a
// file: the median wall time of RUNS creations (after one warm-up) and the
// process's peak RSS. Used by tests/bench/bench_zerocopy.sh.
import ort from 'onnxruntime-node';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const [model, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const opts = { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 };
let s = await ort.InferenceSession.create(model, opts);
await s.release();
const t = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  s = await ort.InferenceSession.create(model, opts);
  t.push(performance.now() - t0);
  await s.release();
}
t.sort((a, b) => a - b);
const med = runs % 2 ? t[(runs - 1) / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
console.log(`${med.toFixed(1)} ${(process.resourceUsage().maxRSS / 1024).toFixed(1)}`);
