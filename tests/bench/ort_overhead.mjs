// ort_overhead.mjs ORT_DIR [RUNS] [BLOCKS] - what makes ONNX Runtime's tiny
// kernels (Shape, Gather, Unsqueeze, Concat of a few int64s: the shape
// arithmetic of exported transformers) take longer in one model than in
// another. Each variant is a model of BLOCKS copies of the same shape block
// (Shape of a [1,4,8] float input, Gather of one dim, two Unsqueezes of it,
// their Concat), and differs from the first only in what else the model
// holds or runs:
//   tiny       the blocks alone
//   resident   + a 256 MB weight read one row per run (Gather): big weights
//              held, hardly touched
//   touch-64k  a ReduceSum over a weight of its own of 64 KB before each
//              block (fits the caches: an op between the blocks, little
//              traffic)
//   touch-4m   the same over 4 MB weights (a kernel that streams more than
//              the core's L2 between the blocks)
//   touch-16m  the same over 16 MB weights
//   front-4m   the 24 ReduceSums over 4 MB weights all together (ONNX
//              Runtime runs them after the blocks: a run touches as many
//              bytes, and every block but the run's first follows tiny kernels)
//   front-16m  the same over 16 MB weights
// With `sweep`, the variants are reads of 0 to 32 MB before every 4th block,
// and it prints the time of a whole block by how many blocks ran since the
// read (how far the slowdown reaches). ONNX Runtime does not run the nodes
// in the file's order (here: the blocks last to first, each ReduceSum right
// after the block written after it, and reads that feed only a graph
// output, as in the front variants, after all the blocks), so positions are
// counted in the order the trace shows.
// All sessions are open at once and run in turn (CPU, one intra-op thread,
// graph optimisations off, profiling on), so the host's load hits all alike.
// Prints per variant the median over the runs' kernels of each shape op's
// traced time and of the gap between kernels, read as whole-us grouped data
// (whole_us.mjs); in the touch variants each Shape runs right after a
// ReduceSum, the Concat four kernels later.
//
// ORT_DIR holds node_modules/onnxruntime-node. Models are written here in the
// ONNX protobuf wire format (ModelProto ir_version 1, graph 7, opset_import 8
// {domain 1, version 2}; GraphProto node 1, name 2, initializer 5, input 11,
// output 12; NodeProto input 1, output 2, name 3, op_type 4, attribute 5;
// AttributeProto name 1, i 3, type 20 (INT = 2); TensorProto dims 1,
// data_type 2 (FLOAT = 1, INT64 = 7), name 8, raw_data 9; ValueInfoProto name
// 1, type 2; TypeProto.tensor_type 1: elem_type 1, shape 2 of dims 1 with
// dim_value 1).
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { int, msg, str } from './onnx_wire.mjs';
import { spreadWholeUs } from './whole_us.mjs';

const [ortDir, runsArg, blocksArg, mode] = process.argv.slice(2);
if (!ortDir) {
  console.error('usage: node ort_overhead.mjs ORT_DIR [RUNS] [BLOCKS] [sweep]');
  process.exit(2);
}
const ort = createRequire(join(resolve(ortDir), 'node_modules', 'x.js'))('onnxruntime-node');
const runs = Number(runsArg || 30), blocks = Number(blocksArg || 24);

const tensorType = (elem, shape) =>
  msg(1, int(1, elem), msg(2, ...shape.map((d) => msg(1, int(1, d)))));
const valueInfo = (name, elem, shape) => Buffer.concat([str(1, name), msg(2, tensorType(elem, shape))]);
const initializer = (name, elem, dims, raw) =>
  msg(5, ...dims.map((d) => int(1, d)), int(2, elem), str(8, name), msg(9, raw));
const node = (op, name, ins, outs, attrs = []) =>
  msg(1, ...ins.map((i) => str(1, i)), ...outs.map((o) => str(2, o)), str(3, name), str(4, op), ...attrs);
const intAttr = (name, v) => msg(5, str(1, name), int(3, v), int(20, 2));
const i64 = (...v) => {
  const b = Buffer.alloc(8 * v.length);
  v.forEach((x, i) => b.writeBigInt64LE(BigInt(x), 8 * i));
  return b;
};
const FLOAT = 1, INT64 = 7;

// One model: `blocks` shape blocks, each after a ReduceSum over `touch` bytes
// of a weight of its own when touch > 0, and one `resident`-byte weight read
// a row at a time when resident > 0.
function model(touch, resident, front, every = 1) {
  const parts = [], outs = [];
  parts.push(initializer('c0', INT64, [], i64(0)), initializer('ax', INT64, [1], i64(0)));
  for (let b = 0; front && b < blocks; b++) {
    parts.push(initializer(`w${b}`, FLOAT, [front / 4], Buffer.alloc(front, 1)));
    parts.push(node('ReduceSum', `/touch_${b}/ReduceSum`, [`w${b}`], [`t${b}`], [intAttr('keepdims', 0)]));
    outs.push(valueInfo(`t${b}`, FLOAT, []));
  }
  for (let b = 0; b < blocks; b++) {
    if (touch > 0 && b % every === 0) {
      parts.push(initializer(`w${b}`, FLOAT, [touch / 4], Buffer.alloc(touch, 1)));
      parts.push(node('ReduceSum', `/touch_${b}/ReduceSum`, [`w${b}`], [`t${b}`], [intAttr('keepdims', 0)]));
      outs.push(valueInfo(`t${b}`, FLOAT, []));
    }
    parts.push(node('Shape', `/block_${b}/Shape`, ['x'], [`s${b}`]));
    parts.push(node('Gather', `/block_${b}/Gather`, [`s${b}`, 'c0'], [`g${b}`], [intAttr('axis', 0)]));
    parts.push(node('Unsqueeze', `/block_${b}/Unsqueeze`, [`g${b}`, 'ax'], [`u${b}`]));
    parts.push(node('Unsqueeze', `/block_${b}/Unsqueeze_1`, [`g${b}`, 'ax'], [`v${b}`]));
    parts.push(node('Concat', `/block_${b}/Concat`, [`u${b}`, `v${b}`], [`k${b}`], [intAttr('axis', 0)]));
    outs.push(valueInfo(`k${b}`, INT64, [2]));
  }
  if (resident > 0) {
    const rows = resident / 64;
    parts.push(initializer('big', FLOAT, [rows, 16], Buffer.alloc(resident, 1)), initializer('row', INT64, [1], i64(rows - 1)));
    parts.push(node('Gather', '/resident/Gather', ['big', 'row'], ['r'], [intAttr('axis', 0)]));
    outs.push(valueInfo('r', FLOAT, [1, 16]));
  }
  const graph = Buffer.concat([
    ...parts,
    str(2, 'overhead'),
    msg(11, valueInfo('x', FLOAT, [1, 4, 8])),
    ...outs.map((o) => msg(12, o)),
  ]);
  return Buffer.concat([int(1, 8), msg(8, str(1, ''), int(2, 13)), msg(7, graph)]);
}

const sweep = mode === 'sweep';
const SWEEP_EVERY = 4;
const variants = sweep
  ? [0, 256 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20].map((t) => [
      `read-${t >> 10}k`,
      t,
      0,
      0,
    ])
  : [
  ['tiny', 0, 0, 0],
  ['resident', 0, 256 << 20, 0],
  ['touch-64k', 64 << 10, 0, 0],
  ['touch-4m', 4 << 20, 0, 0],
  ['touch-16m', 16 << 20, 0, 0],
  ['front-4m', 0, 0, 4 << 20],
  ['front-16m', 0, 0, 16 << 20],
];
const dir = mkdtempSync(join(tmpdir(), 'fl_overhead.'));
try {
  const sessions = [];
  for (const [name, touch, resident, front] of variants) {
    const file = join(dir, `${name}.onnx`);
    writeFileSync(file, model(touch, resident, front, sweep ? SWEEP_EVERY : 1));
    sessions.push(
      await ort.InferenceSession.create(file, {
        executionProviders: ['cpu'],
        graphOptimizationLevel: 'disabled',
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        enableProfiling: true,
        profileFilePrefix: join(dir, `p-${name}`),
      }),
    );
  }
  const feeds = { x: new ort.Tensor('float32', new Float32Array(32).fill(0.5), [1, 4, 8]) };
  for (let r = 0; r < runs + 3; r++) for (const s of sessions) await s.run(feeds);
  for (const s of sessions) s.endProfiling();
  const median = (v) => {
    const s = spreadWholeUs(v);
    return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
  };
  console.log(`ONNX Runtime ${ort.env.versions?.common ?? ''}, ${runs} runs, ${blocks} blocks; median us`);
  if (sweep) {
    console.log(`a read every ${SWEEP_EVERY} blocks; per block (5 kernels, each figure + 0.5 us) by blocks since the read`);
    console.log('variant      1st    2nd    3rd    4th');
  } else console.log('variant     Shape  Gather Unsqueeze Concat    gap ReduceSum');
  for (const [name] of variants) {
    const f = readdirSync(dir).filter((x) => x.startsWith(`p-${name}`))[0];
    const ev = JSON.parse(readFileSync(join(dir, f), 'utf8'))
      .filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'))
      .sort((a, b) => a.ts - b.ts);
    const per = ev.length / (runs + 3), kept = ev.slice(3 * per);
    if (sweep) {
      // in the order the kernels ran: each block's kernels summed, by how
      // many blocks ran since the last ReduceSum; a run's first block
      // follows the other sessions' runs and is left out; without reads
      // every other block counts in every column
      const pos = Array.from({ length: SWEEP_EVERY }, () => []);
      const reads = kept.some((e) => e.args.op_name === 'ReduceSum');
      let since = -1, block = null, sum = 0, first = false;
      const close = () => {
        if (block === null || first) return;
        if (!reads) pos.forEach((p) => p.push(sum));
        else if (since >= 0 && since < SWEEP_EVERY) pos[since].push(sum);
      };
      kept.forEach((e, i) => {
        const m = /^\/block_(\d+)\//.exec(e.name);
        if (!m || m[1] !== block || i % per === 0) {
          close();
          first = i % per === 0;
          block = m ? m[1] : null;
          sum = 0;
          since = m ? since + 1 : -1;
        }
        if (m) sum += e.dur + 0.5;
      });
      close();
      const med = (v) => {
        const t = [...v].sort((a, b) => a - b);
        return t.length ? ((t[(t.length - 1) >> 1] + t[t.length >> 1]) / 2).toFixed(1).padStart(6) : '     -';
      };
      console.log(`${name.padEnd(10)} ${pos.map(med).join(' ')}`);
      continue;
    }
    const by = {}, gaps = [];
    kept.forEach((e, i) => {
      (by[e.args.op_name] ??= []).push(e.dur);
      if (i % per) gaps.push(e.ts - kept[i - 1].ts - kept[i - 1].dur);
    });
    const f1 = (v) => (v && v.length ? median(v).toFixed(2) : '-').padStart(6);
    console.log(
      `${name.padEnd(10)} ${f1(by.Shape)} ${f1(by.Gather)} ${f1(by.Unsqueeze)}    ${f1(by.Concat)} ${f1(gaps)} ${f1(by.ReduceSum)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
