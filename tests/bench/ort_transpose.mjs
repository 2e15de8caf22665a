// ort_transpose.mjs ORT_DIR [RUNS] - what a Transpose costs in ONNX Runtime
// (CPU, one intra-op thread, graph optimisations off), by size and by
// permutation: for each NCHW shape, a plain copy (the identity permutation),
// NCHW -> NHWC (0,2,3,1), NHWC -> NCHW (0,3,1,2) and a permutation that keeps
// the innermost axis (0,2,1,3: contiguous runs of W elements). Prints per case
// the bytes moved (input + output), the contiguous runs of the output, and
// the 10th percentile and median kernel time in microseconds from ORT's own
// profiler (written truncated to whole us, read as grouped data: whole_us.mjs),
// the figures the roofline's data-movement rules are checked against.
//
// ORT_DIR holds node_modules/onnxruntime-node (validate_roofline.sh installs
// it into BUILD_DIR/ort). Each case is a one-node model written here in the
// ONNX protobuf wire format (ModelProto fields from onnx.proto: ir_version 1,
// graph 7, opset_import 8; GraphProto node 1, name 2, input 11, output 12;
// NodeProto input 1, output 2, name 3, op_type 4, attribute 5; AttributeProto
// name 1, ints 8, type 20 (INTS = 7); ValueInfoProto name 1, type 2;
// TypeProto.tensor_type 1: elem_type 1 (FLOAT = 1), shape 2 of dims 1 with
// dim_value 1).
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { int, msg, str } from './onnx_wire.mjs';
import { spreadWholeUs } from './whole_us.mjs';

const [ortDir, runsArg] = process.argv.slice(2);
if (!ortDir) {
  console.error('usage: node ort_transpose.mjs ORT_DIR [RUNS]');
  process.exit(2);
}
const ort = createRequire(join(resolve(ortDir), 'node_modules', 'x.js'))('onnxruntime-node');
const maxRuns = Number(runsArg || 2000);

const valueInfo = (name, shape) =>
  Buffer.concat([str(1, name), msg(2, msg(1, int(1, 1), msg(2, ...shape.map((d) => msg(1, int(1, d))))))]);

function transposeModel(shape, perm) {
  const out = perm.map((p) => shape[p]);
  const attr = [str(1, 'perm'), int(20, 7), ...perm.map((p) => int(8, p))];
  const node = [str(1, 'x'), str(2, 'y'), str(3, 't'), str(4, 'Transpose'), msg(5, ...attr)];
  const graph = [msg(1, ...node), str(2, 'transpose'), msg(11, valueInfo('x', shape)),
    msg(12, valueInfo('y', out))];
  return Uint8Array.from(Buffer.concat([int(1, 8), msg(8, str(1, ''), int(2, 13)), msg(7, ...graph)]));
}

// Elements per contiguous run of the output: the input's trailing axes that
// stay, in order, the output's innermost ones (axes of size 1 left out).
function runLength(shape, perm) {
  const kept = perm.filter((p) => shape[p] > 1);
  const order = shape.map((d, i) => i).filter((i) => shape[i] > 1);
  let run = 1;
  for (let j = kept.length - 1, k = order.length - 1; j >= 0 && kept[j] === order[k]; j--, k--) {
    run *= shape[kept[j]];
  }
  return run;
}

const quantile = (s, q) => s[Math.floor((s.length - 1) * q)];
const work = mkdtempSync(join(tmpdir(), 'fl_transpose.'));
const shapes = [[16, 8], [64, 14], [96, 14], [768, 7], [96, 28], [384, 14], [192, 28],
  [96, 56], [256, 56]];
const perms = [['copy', [0, 1, 2, 3]], ['nchw_to_nhwc', [0, 2, 3, 1]],
  ['nhwc_to_nchw', [0, 3, 1, 2]], ['keep_inner', [0, 2, 1, 3]]];
console.log('case                shape            bytes     runs  p10_us  median_us');
for (const [c, hw] of shapes) {
  for (const [name, perm] of perms) {
    // NHWC -> NCHW starts from the NHWC tensor of the same sizes.
    const shape = name === 'nhwc_to_nchw' ? [1, hw, hw, c] : [1, c, hw, hw];
    const n = shape.reduce((a, b) => a * b, 1);
    const prefix = join(work, 'p');
    const s = await ort.InferenceSession.create(transposeModel(shape, perm), {
      executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
      graphOptimizationLevel: 'disabled', enableProfiling: true, profileFilePrefix: prefix,
    });
    const x = new ort.Tensor('float32', new Float32Array(n).fill(1), shape);
    const runs = Math.max(50, Math.min(maxRuns, Math.floor(2e7 / n)));
    for (let i = 0; i < runs; i++) await s.run({ x });
    s.endProfiling();
    await s.release();
    const figures = [];
    for (const f of readdirSync(work)) {
      for (const e of JSON.parse(readFileSync(join(work, f), 'utf8'))) {
        if (e.cat === 'Node' && e.name === 't_kernel_time') figures.push(e.dur);
      }
      rmSync(join(work, f));
    }
    const t = spreadWholeUs(figures);
    const runsOut = n / runLength(shape, perm);
    console.log(`${name.padEnd(19)} ${shape.join('x').padEnd(16)} ${String(8 * n).padStart(8)} ` +
      `${String(runsOut).padStart(7)} ${quantile(t, 0.1).toFixed(2).padStart(7)} ` +
      `${quantile(t, 0.5).toFixed(2).padStart(10)}`);
  }
}
rmSync(work, { recursive: true, force: true });
