// ort_order.mjs MODEL.onnx=TRACE.json [...] - the order ONNX Runtime's
// sequential executor runs an ONNX graph's nodes in, derived from the graph
// alone, checked against a profiled run (`ort_trace.mjs`'s traces).
//
// The order (GraphViewer's default topological order in onnxruntime's
// core/graph/graph_viewer.cc: a reverse depth-first search from the leaf
// nodes): the nodes no other node reads, in the file's order, go on a stack;
// the node on top is taken, and, the first time, put back marked to be
// listed, then its producers (nodes whose outputs it reads; graph inputs and
// initializers are no nodes) in ascending file order, those not seen yet;
// a marked node is listed when it comes off the stack again, after all its
// producers. Constant nodes are no kernels (ONNX Runtime turns them into
// initializers when it loads the graph).
//
// Prints per model the kernels of the trace's last run and how many of them
// are at the same position in the derived order and in the file's order.
// The ONNX protobuf fields read: ModelProto graph 7; GraphProto node 1;
// NodeProto input 1, output 2, name 3, op_type 4.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

function* fields(b, start = 0, end = b.length) {
  let i = start;
  const varint = () => {
    let r = 0n, s = 0n, x;
    do {
      x = b[i++];
      r |= BigInt(x & 0x7f) << s;
      s += 7n;
    } while (x & 0x80);
    return r;
  };
  while (i < end) {
    const key = Number(varint()), f = key >> 3, w = key & 7;
    if (w === 0) yield [f, varint()];
    else if (w === 2) {
      const n = Number(varint());
      yield [f, b.subarray(i, i + n)];
      i += n;
    } else if (w === 1) i += 8;
    else if (w === 5) i += 4;
    else throw new Error(`wire type ${w} at byte ${i}`);
  }
}

function graphNodes(file) {
  const b = readFileSync(file);
  const nodes = [];
  for (const [f, graph] of fields(b)) {
    if (f !== 7) continue;
    for (const [g, nb] of fields(graph)) {
      if (g !== 1) continue;
      const n = { inputs: [], outputs: [], name: '', op: '' };
      for (const [k, v] of fields(nb)) {
        const s = () => Buffer.from(v).toString('utf8');
        if (k === 1) n.inputs.push(s());
        else if (k === 2) n.outputs.push(s());
        else if (k === 3) n.name = s();
        else if (k === 4) n.op = s();
      }
      if (n.op !== 'Constant') nodes.push(n);
    }
  }
  return nodes;
}

export function ortOrder(nodes) {
  const producer = new Map();
  nodes.forEach((n, i) => n.outputs.forEach((o) => producer.set(o, i)));
  const inputs = nodes.map((n) =>
    [...new Set(n.inputs.filter((x) => producer.has(x)).map((x) => producer.get(x)))].sort((a, b) => a - b),
  );
  const read = new Array(nodes.length).fill(false);
  inputs.forEach((ins) => ins.forEach((p) => (read[p] = true)));
  const stack = [];
  nodes.forEach((_, i) => !read[i] && stack.push([i, false]));
  const seen = new Array(nodes.length).fill(false), order = [];
  while (stack.length) {
    const [i, list] = stack.pop();
    if (list) {
      order.push(nodes[i]);
      continue;
    }
    if (seen[i]) continue;
    seen[i] = true;
    stack.push([i, true]);
    for (const p of inputs[i]) if (!seen[p]) stack.push([p, false]);
  }
  return order;
}

const pairs = process.argv.slice(2);
if (!pairs.length) {
  console.error('usage: node ort_order.mjs MODEL.onnx=TRACE.json [...]');
  process.exit(2);
}
for (const pair of pairs) {
  const [model, trace] = pair.split('=');
  const ev = JSON.parse(readFileSync(trace, 'utf8'));
  const events = Array.isArray(ev) ? ev : ev.traceEvents;
  const runs = events.filter((e) => e.name === 'model_run').sort((a, b) => a.ts - b.ts);
  const last = runs[runs.length - 1];
  const ran = events
    .filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.ts >= last.ts && e.ts <= last.ts + last.dur)
    .sort((a, b) => a.ts - b.ts)
    .map((e) => e.name.slice(0, -'_kernel_time'.length));
  const kernels = new Set(ran);
  const nodes = graphNodes(model);
  const derived = ortOrder(nodes).filter((n) => kernels.has(n.name));
  const file = nodes.filter((n) => kernels.has(n.name));
  const same = (list) => list.reduce((k, n, i) => k + (n.name === ran[i] ? 1 : 0), 0);
  console.log(
    `${basename(model).padEnd(44)} kernels ${String(ran.length).padStart(5)}  same position: derived order ${String(same(derived)).padStart(5)}, file order ${String(same(file)).padStart(5)}`,
  );
}
