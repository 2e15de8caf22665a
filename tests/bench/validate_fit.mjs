// validate_fit.mjs - the cross-validation half of tests/bench/validate_roofline.sh
// (--cv): how well `foldline fit` predicts ONNX Runtime on models it never saw.
//
//   node validate_fit.mjs --plan PLAN.json [--foldline BIN] [--work DIR]
//        [--nodes OUT.jsonl] [--fit-runs N]
//
// --foldline BIN: use BIN instead of the plan's foldline, and --work DIR: write
// the fitted profiles to DIR instead of the plan's work directory (to compare
// two builds on the same traces and the same truth). --nodes OUT.jsonl: one
// line per traced node of every left-out model (model, name, op, class,
// bucket, bound, predicted and traced kernel seconds), to look at the worst.
// --fit-runs N: time `foldline fit` on all traces N times (default 5; 0: not).
// --by-op CLASS: per op type of that class, the median and mean |error| too.
// --gap-share: also what the held-out figures would be were the run's gap
// over its kernels charged as a share of their time (a what-if, see below;
// since 7.7 `fit` does so: the profile's `gap`). --gap-per-kernel: fit the
// gap as a cost per kernel alone (`foldline fit --gap-per-kernel`, the fit
// before 7.7), to compare the two on the same traces with one build.
//
// PLAN.json: {"foldline", "base": "calibrated profile file", "work": "dir",
//   "threads": 1, "models": [{"name", "model": "runnable .onnx",
//   "trace": "ORT profile", "median_ms": untraced median, "p10_ms", "p90_ms",
//   "cpu_median_ms": untraced median CPU time (0: not measured)}]}
//
// For every model M: `foldline fit` on the traces of all the other models,
// then `foldline analyze M --passes none` on that fitted profile (leave one
// model out). Whole-model predictions are compared with ORT's untraced median
// latency: before fitting (the calibrated peaks) and after.
//
// On a shared host other processes take the CPU in the middle of runs: wall
// times then move with the load (2-4x here), and the longer a kernel, the
// surer it is to be interrupted. So when the plan has CPU times, the measured
// latency of a model is the median CPU time of its untraced runs (one intra-op
// thread: the run's own work, which on an idle host is its wall time; the wall
// time is printed beside it) and `fit` takes each kernel's least time over
// the traced runs (`--quantile 0`: its least disturbed run) instead of its
// median; a kernel longer than a scheduler time slice (least time > 4 ms) is
// interrupted in every run, and takes its median time x the CPU time over
// the traced runs' median wall time, if less. The per-node comparison uses
// the same kernel times. ORT truncates durations to whole us, so both read a
// kernel's figures over its runs as grouped data (whole_us.mjs: the k figures
// equal to d spread evenly over [d, d + 1)), as `foldline fit` does.
// --quantile Q: that quantile instead. Per class it also prints the median
// over models of |predicted - traced| / traced of the class's summed kernel
// time in the model: single kernels of 2-4 us (Reshape, Shape: the `other`
// class) are within a step or two of the trace's 1 us resolution, their sum
// per model is not. Per node, each
// op's predicted kernel time (time - dispatch overhead) with its median
// kernel time in M's trace, per op class. Prints MAPE, the share within
// +-10 %, Spearman and Kendall, and the median time of `fit` on all traces.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { spreadWholeUs } from './whole_us.mjs';

const args = process.argv.slice(2);
const plan = JSON.parse(readFileSync(args[args.indexOf('--plan') + 1], 'utf8'));
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
if (opt('--foldline')) plan.foldline = opt('--foldline');
if (opt('--work')) plan.work = opt('--work');
const nodesOut = opt('--nodes'), nodeRows = [];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b), pos = (s.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
};
function ranks(xs) {
  const idx = xs.map((v, i) => [v, i]).sort((a, b) => a[0] - b[0]);
  const r = new Array(xs.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1][0] === idx[i][0]) j++;
    for (let k = i; k <= j; k++) r[idx[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}
function pearson(a, b) {
  const n = a.length, ma = a.reduce((s, v) => s + v, 0) / n, mb = b.reduce((s, v) => s + v, 0) / n;
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < n; i++) { ab += (a[i] - ma) * (b[i] - mb); aa += (a[i] - ma) ** 2; bb += (b[i] - mb) ** 2; }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : NaN;
}
function kendall(a, b) {
  let c = 0, d = 0, ta = 0, tb = 0;
  for (let i = 0; i < a.length; i++) for (let j = i + 1; j < a.length; j++) {
    const x = Math.sign(a[i] - a[j]), y = Math.sign(b[i] - b[j]);
    if (x === 0 && y === 0) continue;
    if (x === 0) ta++; else if (y === 0) tb++; else if (x === y) c++; else d++;
  }
  const den = Math.sqrt((c + d + ta) * (c + d + tb));
  return den > 0 ? (c - d) / den : NaN;
}
function stats(pred, meas) {
  const ape = pred.map((p, i) => Math.abs(p - meas[i]) / meas[i]);
  return { n: pred.length, mape: 100 * ape.reduce((s, v) => s + v, 0) / ape.length,
    within10: 100 * ape.filter((e) => e <= 0.1).length / ape.length,
    spearman: pearson(ranks(pred), ranks(meas)), kendall: kendall(pred, meas),
    ratio: median(pred.map((p, i) => p / meas[i])) };
}
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const pad = (s, n) => String(s).padEnd(n), lpad = (s, n) => String(s).padStart(n);

const useCpu = plan.models.every((m) => m.cpu_median_ms > 0);
const truth = (m) => (useCpu ? m.cpu_median_ms : m.median_ms);
// The kernel time over the traced runs: with CPU times (a shared host), the
// least one, as `foldline fit --quantile 0` takes it (a kernel longer than
// 4 ms: its median x the share of the traced runs' wall time the process ran,
// if less); else the median.
const kq = opt('--quantile') !== undefined ? Number(opt('--quantile')) : useCpu ? 0 : 0.5;
function analyze(model, profile) {
  const out = execFileSync(plan.foldline, ['analyze', model, '--passes', 'none', '--per-node',
    '--json', '--profile', profile], { maxBuffer: 512 << 20 }).toString();
  return JSON.parse(out).roofline[0].before;
}
// CPU time (ms) of this process's waited-for children: /proc/self/stat's
// cutime + cstime, in USER_HZ (100) ticks; null where there is no /proc.
function childCpuMs() {
  try {
    const st = readFileSync('/proc/self/stat', 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return null;
  }
}
const fitCpu = [];
function readLoad() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  } catch {
    return 'unknown';
  }
}
function fit(out, models) {
  const argv = ['fit', '--profile', plan.base, '-o', out, ...(kq !== 0.5 ? ['--quantile', String(kq)] : []),
    ...(args.includes('--gap-per-kernel') ? ['--gap-per-kernel'] : []),
    ...models.map((m) => `${m.model}=${m.trace}@${truth(m)}`)];
  const c0 = childCpuMs(), t0 = performance.now();
  execFileSync(plan.foldline, argv, { maxBuffer: 64 << 20 });
  const wall = performance.now() - t0, c1 = childCpuMs();
  if (c0 !== null && c1 !== null) fitCpu.push(c1 - c0);
  return wall;
}
function kernels(trace, latencyMs) {
  const ev = JSON.parse(readFileSync(trace, 'utf8'));
  const k = new Map(), runs = [];
  for (const e of Array.isArray(ev) ? ev : ev.traceEvents) {
    if (e.cat === 'Node' && e.name.endsWith('_kernel_time')) {
      const n = e.name.slice(0, -12);
      if (!k.has(n)) k.set(n, []);
      k.get(n).push(e.dur);
    } else if (e.cat === 'Session' && e.name === 'model_run' && e.dur > 0) {
      runs.push(e.dur * 1e-3);
    }
  }
  const run = runs.length ? median(runs) : 0, rho = run > latencyMs ? latencyMs / run : 1;
  // us, each kernel's figures spread over their truncated 1 us bins
  const time = (figures) => {
    const d = spreadWholeUs(figures);
    if (kq > 0) return quantile(d, kq);
    // the least 1 us bin a run fell in, at its middle (as `foldline fit`)
    const least = Math.floor(d[0]) + 0.5, scaled = median(d) * rho;
    return least > 4e3 && scaled < least ? scaled : least;
  };
  return new Map([...k].map(([n, d]) => [n, time(d) * 1e-6]));
}

const rows = [], nodeErr = new Map(), nodeTime = new Map(), byOp = new Map(), classSum = new Map();
const byOpClass = opt('--by-op');
for (const m of plan.models) {
  const others = plan.models.filter((o) => o !== m);
  const out = `${plan.work}/lomo-${m.name}.yaml`;
  fit(out, others);
  const before = analyze(m.model, plan.base), after = analyze(m.model, out);
  rows.push({ name: m.name, meas: truth(m), wall: m.median_ms, before: before.time_s * 1e3, after: after.time_s * 1e3,
    low: after.interval ? after.interval.low_s * 1e3 : NaN,
    high: after.interval ? after.interval.high_s * 1e3 : NaN });
  const k = kernels(m.trace, truth(m));
  rows[rows.length - 1].ksum = [...k.values()].reduce((a, v) => a + v, 0) * 1e3;
  rows[rows.length - 1].nk = k.size;
  // the estimate less its per-kernel dispatch overhead and its share of the run's gap (the
  // profile's `gap`), and the kernels charged it (--gap-share)
  rows[rows.length - 1].kernelsOnly = (after.time_s - after.nodes.reduce((a, n) => a + n.overhead_s + (n.gap_s ?? 0), 0)) * 1e3;
  rows[rows.length - 1].share = after.gap ? after.gap.share : 0;
  rows[rows.length - 1].charged = after.nodes.filter((n) => n.overhead_s > 0).length;
  for (const n of after.nodes) {
    const t = k.get(n.name);
    if (t === undefined) continue;
    const p = n.time_s - n.overhead_s - (n.gap_s ?? 0); // the kernel: no dispatch, no run's gap
    if (!nodeErr.has(n.class)) { nodeErr.set(n.class, []); nodeTime.set(n.class, 0); }
    nodeErr.get(n.class).push(Math.abs(p - t) / t);
    nodeTime.set(n.class, nodeTime.get(n.class) + t);
    const key = `${n.class}\t${m.name}`, cs = classSum.get(key) ?? { p: 0, t: 0 };
    classSum.set(key, { p: cs.p + p, t: cs.t + t });
    if (n.class === byOpClass) {
      if (!byOp.has(n.op)) byOp.set(n.op, { err: [], t: 0 });
      byOp.get(n.op).err.push(Math.abs(p - t) / t);
      byOp.get(n.op).t += t;
    }
    if (nodesOut) {
      nodeRows.push(JSON.stringify({ model: m.name, name: n.name, op: n.op, class: n.class,
        bucket: n.bucket, bound: n.bound, level: n.level, flops: n.flops, bytes: n.bytes, channels: n.channels ?? 0,
        pred_s: p, traced_s: t }));
    }
  }
  console.error(`  ${pad(m.name, 26)} measured ${f2(truth(m))} ms, before ${f2(before.time_s * 1e3)}, after ${f2(after.time_s * 1e3)}`);
}

console.log(`\n== leave-one-model-out: foldline fit on the other ${plan.models.length - 1} traces, ` +
  `ORT ${plan.threads} thread(s), graphOptimizationLevel disabled, untraced median ` +
  (useCpu ? 'CPU time (wall time beside it)' : 'wall time') + ', kernels: ' +
  (kq === 0 ? 'least time of the traced runs (> 4 ms: median x CPU/wall if less)' :
    kq === 0.5 ? 'median of the traced runs' : `${kq} quantile of the traced runs`));
console.log(`${pad('model', 26)} ${lpad('meas ms', 9)} ${lpad('wall ms', 9)} ${lpad('before', 9)} ${lpad('after', 9)} ${lpad('80% interval', 17)} ${lpad('ratio', 6)} ${lpad('gap %', 6)}`);
for (const r of rows) {
  console.log(`${pad(r.name, 26)} ${lpad(f2(r.meas), 9)} ${lpad(f2(r.wall), 9)} ${lpad(f2(r.before), 9)} ${lpad(f2(r.after), 9)} ` +
    `${lpad(`${f2(r.low)}-${f2(r.high)}`, 17)} ${lpad(f2(r.after / r.meas), 6)} ${lpad(f2(100 * r.share), 6)}`);
}
const meas = rows.map((r) => r.meas), inside = rows.filter((r) => r.meas >= r.low && r.meas <= r.high).length;
for (const [label, key] of [['before fitting (peaks)', 'before'], ['after fitting (unseen)', 'after']]) {
  const s = stats(rows.map((r) => r[key]), meas);
  console.log(`summary ${pad(label, 24)} n=${s.n}  MAPE ${f2(s.mape)}%  within 10% ${f2(s.within10)}%  ` +
    `Spearman ${f2(s.spearman)}  Kendall ${f2(s.kendall)}  median ratio ${f2(s.ratio)}`);
}
if (useCpu) {
  console.log(`wall / CPU time of the untraced runs (the host's load): median ` +
    `${f2(median(rows.map((r) => r.wall / r.meas)))}`);
}
console.log(`measured latency inside the 80 % interval: ${inside} of ${rows.length}`);
// What the whole run takes beyond its kernels, against both the kernels'
// count and their time: `fit` charges it per kernel (the dispatch overhead).
console.log(`\nthe run's gap: measured - the sum of its traced kernels (as above), per model`);
for (const r of rows) {
  const gap = r.meas - r.ksum;
  console.log(`  ${pad(r.name, 26)} ${lpad(f2(gap), 8)} ms  ${lpad(f2((100 * gap) / r.ksum), 6)} % of the kernels' time  ` +
    `${lpad(f2((gap / r.nk) * 1e3), 7)} us per kernel (${r.nk} kernels)`);
}
console.log(`  median: ${f2(median(rows.map((r) => (100 * (r.meas - r.ksum)) / r.ksum)))} % of the kernels' time, ` +
  `${f2(median(rows.map((r) => ((r.meas - r.ksum) / r.nk) * 1e3)))} us per kernel`);
// --gap-share: what the held-out figures would be were the gap charged as a
// share of the kernels' time (the median over the other models of gap /
// kernel time) plus a cost per kernel fitted to the rest, in place of `fit`'s
// cost per kernel. A what-if computed here, not an estimate foldline makes.
if (args.includes('--gap-share')) {
  const pos = (x) => (x > 0 ? x : 0);
  const alt = rows.map((r) => {
    const o = rows.filter((x) => x !== r);
    const share = pos(median(o.map((x) => (x.meas - x.ksum) / x.ksum)));
    const per = pos(median(o.map((x) => (x.meas - (1 + share) * x.ksum) / x.nk)));
    return { name: r.name, share, per, after: r.kernelsOnly * (1 + share) + per * r.charged };
  });
  console.log(`\nwhat if (--gap-share; not foldline's estimate): the gap as a share of the kernels' time ` +
    `plus a cost per kernel, each the median over the other models`);
  rows.forEach((r, i) => {
    const a = alt[i];
    console.log(`  ${pad(r.name, 26)} share ${lpad(f2(100 * a.share), 5)} %  per kernel ${lpad(f2(a.per * 1e3), 6)} us  ` +
      `${lpad(f2(a.after), 9)} ms  ratio ${f2(a.after / r.meas)} (as fitted ${f2(r.after / r.meas)})`);
  });
  const s = stats(alt.map((a) => a.after), meas);
  console.log(`summary what if (--gap-share)   n=${s.n}  MAPE ${f2(s.mape)}%  within 10% ${f2(s.within10)}%  ` +
    `Spearman ${f2(s.spearman)}  Kendall ${f2(s.kendall)}  median ratio ${f2(s.ratio)}`);
}
console.log(`\nper node (unseen models): |predicted kernel - traced kernel| / traced, by class (by traced time); ` +
  `the quartiles and the mean beside the median show when a class's errors split in two groups`);
const classes = [...nodeTime].sort((a, b) => b[1] - a[1]);
// A class's summed kernel time per model, predicted against traced: the 1 us
// steps of the traces' single small kernels average out.
const sumErr = (c) => [...classSum].filter(([k]) => k.split('\t')[0] === c)
  .map(([, v]) => Math.abs(v.p - v.t) / v.t);
for (const [c, t] of classes) {
  console.log(`  ${pad(c, 14)} ${lpad(nodeErr.get(c).length, 6)} ops  ${lpad(f2(t * 1e3), 10)} ms traced  ` +
    `per node: median |error| ${lpad(f2(100 * median(nodeErr.get(c))), 7)}%  ` +
    `(25-75 % ${f2(100 * quantile(nodeErr.get(c), 0.25))}-${f2(100 * quantile(nodeErr.get(c), 0.75))}%, ` +
    `mean ${f2(100 * nodeErr.get(c).reduce((s, v) => s + v, 0) / nodeErr.get(c).length)}%); ` +
    `per model, the class's summed time: median |error| ${f2(100 * median(sumErr(c)))}% over ${sumErr(c).length}`);
}
if (byOpClass) {
  console.log(`\n${byOpClass} by op type (unseen models, by traced time):`);
  for (const [op, v] of [...byOp].sort((a, b) => b[1].t - a[1].t)) {
    console.log(`  ${pad(op, 20)} ${lpad(v.err.length, 6)} ops  ${lpad(f2(v.t * 1e3), 10)} ms traced  ` +
      `median |error| ${lpad(f2(100 * median(v.err)), 7)}%  mean ${f2(100 * v.err.reduce((s, e) => s + e, 0) / v.err.length)}%`);
  }
}
if (nodesOut) writeFileSync(nodesOut, nodeRows.join('\n') + '\n');
const times = [];
const fitRuns = Number(opt('--fit-runs') ?? 5);
fitCpu.length = 0;
for (let i = 0; i < fitRuns; i++) times.push(fit(`${plan.work}/fit-all.yaml`, plan.models));
if (fitRuns > 0) {
  // CPU time is what a loaded host does not inflate (wall time: the load's share)
  const cpu = fitCpu.length === fitRuns ? `, ${f2(median(fitCpu))} ms CPU (user + system, 10 ms ticks)` : '';
  console.log(`\nfoldline fit on all ${plan.models.length} traces: median ${f2(median(times))} ms wall${cpu} ` +
    `(${fitRuns} runs, analyses included; load ${readLoad()})`);
}
