// validate_roofline.mjs - the Node side of tests/bench/validate_roofline.sh:
// measures ONNX Runtime (onnxruntime-node, CPU) latency of ONNX models, gets
// foldline's roofline prediction for the same models, and prints per-model
// tables and the agreement statistics (MAPE, Spearman, Kendall, median ratio).
//
//   node validate_roofline.mjs --plan PLAN.json
//
// PLAN.json (written by the shell script):
//   { "foldline": "path/to/foldline", "profile_dir": "...", "profile": "NAME",
//     "threads": 2, "warmup": 3, "runs": 15, "budget_s": 4, "json_out": "...",
//     "models": [ { "name": "resnet18",
//                   "run": "filled raw .onnx ORT executes",
//                   "analyze": "stripped (or raw) .onnx foldline analyses",
//                   "run_ort_graph": "filled ORT-extended graph (optional)",
//                   "analyze_ort_graph": "ORT-extended graph for foldline (optional)" } ] }
//
// Comparisons (each a table and a summary):
//   before    foldline `before` of the raw graph      vs ORT, graphOptimizationLevel 'disabled'
//   after     foldline `after` (its passes) of raw    vs ORT 'extended' on the raw graph
//   ort-graph foldline of ORT's own extended graph    vs ORT 'disabled' running that graph
//             (--passes none: both sides execute exactly the same nodes)
// ORT 'all' (adds layout transforms foldline does not model) is measured for
// information only.
//
// Timing: one session per (model, level), intra-op threads = the calibrated
// profile's thread count, inter-op 1, sequential execution; `warmup` runs are
// discarded, then up to `runs` timed runs (fewer when a run is slow: at most
// about `budget_s` seconds per session, never fewer than 5) and the median
// is reported. A model's sessions (its levels and ORT's graph) are open
// together and run round-robin, so load changes hit them alike. The host is shared: medians, and the spread (p10-p90) is shown.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);

function die(msg) {
  console.error(`validate_roofline: ${msg}`);
  process.exit(1);
}

const args = process.argv.slice(2);
const planPath = args[args.indexOf('--plan') + 1];
if (args.indexOf('--plan') < 0 || !planPath) die('usage: node validate_roofline.mjs --plan PLAN.json');
const plan = JSON.parse(readFileSync(planPath, 'utf8'));

// onnxruntime-node lives in the install directory the script chose.
let ort;
try {
  ort = require(require.resolve('onnxruntime-node', { paths: [plan.ort_dir] }));
} catch (e) {
  die(`cannot load onnxruntime-node from ${plan.ort_dir}: ${e.message}`);
}

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

// Average ranks (ties share the mean rank).
function ranks(xs) {
  const idx = xs.map((v, i) => [v, i]).sort((a, b) => a[0] - b[0]);
  const r = new Array(xs.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1][0] === idx[i][0]) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) r[idx[k][1]] = avg;
    i = j + 1;
  }
  return r;
}

function pearson(a, b) {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n, mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

const spearman = (a, b) => pearson(ranks(a), ranks(b));

// Kendall's tau-b (O(n^2); n is a dozen).
function kendall(a, b) {
  let c = 0, d = 0, ta = 0, tb = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = i + 1; j < a.length; j++) {
      const x = Math.sign(a[i] - a[j]), y = Math.sign(b[i] - b[j]);
      if (x === 0 && y === 0) continue;
      if (x === 0) ta++;
      else if (y === 0) tb++;
      else if (x === y) c++;
      else d++;
    }
  }
  const den = Math.sqrt((c + d + ta) * (c + d + tb));
  return den > 0 ? (c - d) / den : NaN;
}

function summary(rows) {
  const ok = rows.filter((r) => r.predicted_ms > 0 && r.measured_ms > 0);
  const p = ok.map((r) => r.predicted_ms), m = ok.map((r) => r.measured_ms);
  const ape = ok.map((r) => Math.abs(r.predicted_ms - r.measured_ms) / r.measured_ms);
  return {
    n: ok.length,
    mape: ok.length ? (100 * ape.reduce((s, v) => s + v, 0)) / ok.length : NaN,
    median_ape: ok.length ? 100 * median(ape) : NaN,
    spearman: ok.length > 1 ? spearman(p, m) : NaN,
    kendall: ok.length > 1 ? kendall(p, m) : NaN,
    median_ratio: ok.length ? median(ok.map((r) => r.predicted_ms / r.measured_ms)) : NaN,
    log_ratio_sd: ok.length > 1 ? stddev(ok.map((r) => Math.log(r.predicted_ms / r.measured_ms))) : NaN,
  };
}

function stddev(xs) {
  const mu = xs.reduce((s, v) => s + v, 0) / xs.length;
  return Math.sqrt(xs.reduce((s, v) => s + (v - mu) ** 2, 0) / (xs.length - 1));
}

// ---------------------------------------------------------------------------
// ONNX Runtime
// ---------------------------------------------------------------------------

// Deterministic inputs from the session's metadata (free dims = 1).
function makeFeeds(session) {
  const feeds = {};
  for (const meta of session.inputMetadata) {
    if (!meta.isTensor) throw new Error(`input ${meta.name} is not a tensor`);
    const dims = (meta.shape || []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const n = dims.reduce((a, b) => a * b, 1);
    let data;
    switch (meta.type) {
      case 'float32':
        data = Float32Array.from({ length: n }, (_, i) => ((i * 2654435761) % 1000) / 1000);
        break;
      case 'int64':
        data = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 997));
        break;
      case 'int32':
        data = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 997);
        break;
      default:
        throw new Error(`input ${meta.name}: type ${meta.type} not generated`);
    }
    feeds[meta.name] = new ort.Tensor(meta.type, data, dims);
  }
  return feeds;
}

function allFinite(outputs) {
  for (const t of Object.values(outputs)) {
    if (t.data instanceof Float32Array || t.data instanceof Float64Array) {
      for (const v of t.data) if (!Number.isFinite(v)) return false;
    }
  }
  return true;
}

async function openSession(path, level) {
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(path, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: level,
    intraOpNumThreads: plan.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  return { session, feeds: makeFeeds(session), load_s: (performance.now() - t0) / 1000,
    times: [], finite: true };
}

// Measures several sessions of one model round-robin (one run of each in
// turn), so that a change of the host's load hits every variant alike.
async function measureAll(specs) {
  const ss = [];
  for (const [key, path, level] of specs) ss.push([key, await openSession(path, level)]);
  for (const [, s] of ss) {
    for (let i = 0; i < plan.warmup; i++) {
      const out = await s.session.run(s.feeds);
      if (i === 0) s.finite = allFinite(out);
    }
  }
  const start = performance.now();
  for (let i = 0; i < plan.runs; i++) {
    for (const [, s] of ss) {
      const a = performance.now();
      await s.session.run(s.feeds);
      s.times.push(performance.now() - a);
    }
    if (i + 1 >= 5 && performance.now() - start > plan.budget_s * 1000 * ss.length) break;
  }
  const res = {};
  for (const [key, s] of ss) {
    await s.session.release();
    res[key] = { median_ms: median(s.times), p10_ms: quantile(s.times, 0.1),
      p90_ms: quantile(s.times, 0.9), runs: s.times.length, load_s: s.load_s, finite: s.finite };
  }
  return res;
}

// ---------------------------------------------------------------------------
// foldline
// ---------------------------------------------------------------------------

function predict(path, passes) {
  const argv = ['analyze', path, '--profile', plan.profile, '--profiles-dir', plan.profile_dir,
    '--json'];
  if (passes) argv.push('--passes', passes);
  const out = execFileSync(plan.foldline, argv, { maxBuffer: 256 << 20 }).toString();
  const j = JSON.parse(out);
  const r = j.roofline[0];
  const top = (g) => (g.top || []).slice(0, 3).map((t) => `${t.op}:${t.bound}`).join(' ');
  const pack = (g) => g && {
    ms: g.time_s * 1e3,
    compute_ms: g.compute_s * 1e3,
    memory_ms: g.memory_s * 1e3,
    overhead_ms: g.overhead_s * 1e3,
    bound: dominant(g),
    ops: g.ops_compute_bound + g.ops_memory_bound + g.ops_overhead_bound,
    top: top(g),
  };
  return { before: pack(r.before), after: pack(r.after), flops: j.totals && j.totals.flops };
}

function dominant(g) {
  const parts = [['compute', g.compute_s], ['memory', g.memory_s], ['overhead', g.overhead_s]];
  parts.sort((a, b) => b[1] - a[1]);
  return parts[0][0];
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

const results = [];
for (const m of plan.models) {
  const res = { name: m.name };
  try {
    res.pred = predict(m.analyze, null);
    if (m.analyze_ort_graph) res.pred_ort_graph = predict(m.analyze_ort_graph, 'none');
    const specs = plan.levels.map((level) => [level, m.run, level]);
    if (m.run_ort_graph) specs.push(['ort_graph', m.run_ort_graph, 'disabled']);
    const meas = await measureAll(specs);
    res.ort_graph_disabled = meas.ort_graph;
    delete meas.ort_graph;
    res.ort = meas;
  } catch (e) {
    res.error = String(e.message || e).split('\n')[0];
  }
  results.push(res);
  const o = res.ort || {};
  const show = Object.entries(o).map(([k, v]) => `${k} ${f2(v.median_ms)} ms`).join(', ');
  console.error(`  ${pad(m.name, 26)} ${res.error ? 'ERROR ' + res.error : show}`);
}

const comparisons = [
  ['before', 'foldline before (raw graph)', 'ORT disabled', (r) => r.pred && r.pred.before,
    (r) => r.ort && r.ort.disabled],
  ['after', 'foldline after (its passes)', 'ORT extended', (r) => r.pred && r.pred.after,
    (r) => r.ort && r.ort.extended],
  ['ort-graph', 'foldline on ORT-extended graph', 'ORT disabled on it',
    (r) => r.pred_ort_graph && r.pred_ort_graph.before, (r) => r.ort_graph_disabled],
];

const report = { plan: { threads: plan.threads, warmup: plan.warmup, runs: plan.runs,
  profile: plan.profile }, models: results, comparisons: {} };
for (const [key, ptitle, mtitle, getP, getM] of comparisons) {
  const rows = [];
  for (const r of results) {
    const p = getP(r), m = getM(r);
    if (!p || !m) continue;
    rows.push({ model: r.name, predicted_ms: p.ms, measured_ms: m.median_ms, p10_ms: m.p10_ms,
      p90_ms: m.p90_ms, runs: m.runs, ratio: p.ms / m.median_ms, bound: p.bound,
      split: `${f2(p.compute_ms)}/${f2(p.memory_ms)}/${f2(p.overhead_ms)}`, finite: m.finite });
  }
  if (!rows.length) continue;
  const s = summary(rows);
  report.comparisons[key] = { rows, summary: s };
  console.log(`\n== ${key}: ${ptitle} vs ${mtitle} (${plan.threads} threads, median of up to ` +
    `${plan.runs} runs after ${plan.warmup} warm-up)`);
  console.log(`${pad('model', 26)} ${lpad('pred ms', 9)} ${lpad('meas ms', 9)} ` +
    `${lpad('p10-p90', 15)} ${lpad('ratio', 6)}  ${pad('bound', 9)} comp/mem/ovh ms`);
  for (const r of rows) {
    console.log(`${pad(r.model, 26)} ${lpad(f2(r.predicted_ms), 9)} ${lpad(f2(r.measured_ms), 9)} ` +
      `${lpad(`${f2(r.p10_ms)}-${f2(r.p90_ms)}`, 15)} ${lpad(f2(r.ratio), 6)}  ${pad(r.bound, 9)} ` +
      `${r.split}${r.finite ? '' : '  (non-finite outputs)'}`);
  }
  console.log(`summary ${key}: n=${s.n}  MAPE ${f2(s.mape)}%  (median APE ${f2(s.median_ape)}%)  ` +
    `Spearman ${f2(s.spearman)}  Kendall ${f2(s.kendall)}  median ratio ${f2(s.median_ratio)}  ` +
    `sd(log ratio) ${f2(s.log_ratio_sd)}`);
}
if (plan.levels.includes('all')) {
  console.log(`\nORT 'all' (layout transforms; not modelled) vs 'extended', measured ms:`);
  for (const r of results) {
    if (r.ort && r.ort.all && r.ort.extended) {
      console.log(`  ${pad(r.name, 26)} extended ${lpad(f2(r.ort.extended.median_ms), 8)}  ` +
        `all ${lpad(f2(r.ort.all.median_ms), 8)}`);
    }
  }
}
const errors = results.filter((r) => r.error);
for (const r of errors) console.log(`error: ${r.name}: ${r.error}`);
if (plan.json_out) writeFileSync(plan.json_out, JSON.stringify(report, null, 1));
process.exit(errors.length && errors.length === results.length ? 1 : 0);
