// ort_trace.mjs - runs ONNX models in ONNX Runtime (onnxruntime-node, CPU,
// sequential, N intra-op threads) and writes, per model, ORT's per-node
// profiling trace (enableProfiling: the JSON `foldline fit` reads) and the
// median latency of untraced runs (profiling adds a little per node).
//
//   node ort_trace.mjs --ort-dir DIR --out DIR [--threads 1] [--warmup 3]
//        [--runs 15] [--level disabled] NAME=MODEL.onnx [NAME=MODEL.onnx ...]
//
// Writes OUT/NAME.trace.json and prints one JSON line per model:
// {"name", "median_ms", "p10_ms", "p90_ms", "min_ms", "cpu_median_ms",
// "cpu_p10_ms", "cpu_min_ms", "traced_wall_ms": [...], "traced_cpu_ms": [...],
// "runs", "trace"} (wall-time and CPU-time figures of the untraced runs, and
// each traced run's wall and CPU time: their ratio is the share of the time
// the process ran, the rest other processes took).
import { createRequire } from 'node:module';
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = { threads: 1, warmup: 3, runs: 15, level: 'disabled' };
const models = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--ort-dir') opt.ortDir = args[++i];
  else if (a === '--out') opt.out = args[++i];
  else if (a === '--threads') opt.threads = Number(args[++i]);
  else if (a === '--warmup') opt.warmup = Number(args[++i]);
  else if (a === '--runs') opt.runs = Number(args[++i]);
  else if (a === '--level') opt.level = args[++i];
  else if (a.includes('=')) models.push(a.split('=', 2));
  else { console.error(`ort_trace: unknown argument ${a}`); process.exit(2); }
}
const ort = require(require.resolve('onnxruntime-node', { paths: [opt.ortDir] }));

function feedsOf(session) {
  const feeds = {};
  for (const meta of session.inputMetadata) {
    const dims = (meta.shape || []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const n = dims.reduce((a, b) => a * b, 1);
    if (meta.type === 'int64') {
      feeds[meta.name] = new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 997)), dims);
    } else if (meta.type === 'float32') {
      feeds[meta.name] = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => ((i * 2654435761) % 1000) / 1000), dims);
    } else {
      throw new Error(`input ${meta.name}: type ${meta.type} not generated`);
    }
  }
  return feeds;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q, lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
};

async function session(path, profiling, prefix) {
  return ort.InferenceSession.create(path, {
    executionProviders: ['cpu'], graphOptimizationLevel: opt.level,
    intraOpNumThreads: opt.threads, interOpNumThreads: 1, executionMode: 'sequential',
    enableProfiling: profiling, profileFilePrefix: prefix,
  });
}

// All sessions are open at once and every round runs each model once
// untraced and once traced, so a change of the host's load over the
// benchmark hits every model alike instead of the models measured during it.
// Besides wall time, each untraced run's CPU time (process.cpuUsage, every
// thread of the process) is recorded: with one intra-op thread it is the
// run's own work, without the time the scheduler gave other processes.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
const entries = [];
for (const [name, path] of models) {
  const prefix = `${opt.out}/${name}.ortprof`;
  const traced = await session(path, true, prefix);
  const plain = await session(path, false, prefix);
  entries.push({ name, prefix, traced, plain, feeds: feedsOf(plain), times: [], cpu: [], tcpu: [], twall: [] });
}
for (const e of entries) {
  for (let i = 0; i < opt.warmup; i++) { await e.plain.run(e.feeds); await e.traced.run(e.feeds); }
}
for (let i = 0; i < opt.runs; i++) {
  for (const e of entries) {
    const c0 = cpuMs(), t0 = performance.now();
    await e.plain.run(e.feeds);
    e.times.push(performance.now() - t0);
    e.cpu.push(cpuMs() - c0);
    const c1 = cpuMs(), t1 = performance.now();
    await e.traced.run(e.feeds);
    e.twall.push(performance.now() - t1);
    e.tcpu.push(cpuMs() - c1);
  }
}
for (const e of entries) {
  const { name, traced, plain, times, cpu, tcpu, twall } = e;
  traced.endProfiling(); // writes OUT/NAME.ortprof_DATE.json (the binding returns no name)
  const written = readdirSync(opt.out).filter((f) => f.startsWith(`${name}.ortprof`)).sort();
  if (!written.length) throw new Error(`${name}: ONNX Runtime wrote no profile`);
  const trace = `${opt.out}/${name}.trace.json`;
  renameSync(`${opt.out}/${written[written.length - 1]}`, trace);
  for (const f of written.slice(0, -1)) rmSync(`${opt.out}/${f}`);
  await traced.release();
  await plain.release();
  console.log(JSON.stringify({ name, median_ms: quantile(times, 0.5), p10_ms: quantile(times, 0.1),
    p90_ms: quantile(times, 0.9), cpu_median_ms: quantile(cpu, 0.5), cpu_min_ms: Math.min(...cpu),
    cpu_p10_ms: quantile(cpu, 0.1), min_ms: Math.min(...times), traced_wall_ms: twall, traced_cpu_ms: tcpu,
    runs: times.length, trace }));
}
