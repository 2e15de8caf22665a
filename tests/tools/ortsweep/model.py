"""One-node ONNX models for export_ort_sweep.py: the case list's vocabulary
(In, K, case) and the model builder. A case is one node named `target` with
fixed input shapes: graph inputs (In, fed at run time) and initializers (K,
constants both foldline and ONNX Runtime see). Outputs are declared without
shapes; an output of a dtype onnxruntime-node cannot hand back (float8, 4-bit,
float4) gets a Cast to float after it, for ONNX Runtime's sake.
"""
from onnx import TensorProto, helper

DT = {"float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
      "string": 8, "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13,
      "bfloat16": 16, "float8e4m3fn": 17, "float8e4m3fnuz": 18, "float8e5m2": 19,
      "float8e5m2fnuz": 20, "uint4": 21, "int4": 22, "float4e2m1": 23, "float8e8m0": 24}
# the output dtypes onnxruntime-node returns
ORT_OUT_OK = {"float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
              "float16", "double", "uint32", "uint64"}


class In:
    """A graph input: run-time data (`values`, else the runner's pattern)."""

    def __init__(self, name, dtype, dims, values=None):
        self.name, self.dtype, self.dims, self.values = name, dtype, dims, values


class K:
    """An initializer."""

    def __init__(self, name, dtype, dims, values):
        self.name, self.dtype, self.dims, self.values = name, dtype, dims, values


CASES = []


def case(tag, op, opset, ins, outs, attrs=None, extra=(), domain="", dynamic=None, skip=None):
    """ins: In, K or None (an absent optional input), in the node's order.
    outs: (name, dtype) or None (an absent optional output).
    extra: graph inputs the node does not list (a subgraph reads them).
    dynamic: {output: [dim, ...]} dims that only the run-time data decide:
      foldline must leave them symbolic. skip: why the case is not written
      (ONNX Runtime cannot run it, or runs it wrongly)."""
    CASES.append(dict(tag=tag, op=op, opset=opset, ins=ins, outs=outs, attrs=attrs or {},
                      extra=list(extra), domain=domain, dynamic=dynamic or {}, skip=skip))


def _numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def make_init(k):
    dt = DT[k.dtype]
    t = TensorProto()
    t.name, t.data_type = k.name, dt
    t.dims.extend(k.dims)
    if dt >= 17:  # float8 and 4-bit types: zero bytes
        n = _numel(k.dims)
        t.raw_data = bytes((n + 1) // 2 if dt in (21, 22, 23) else n)
    elif k.dtype == "float16":
        t.int32_data.extend([0x3C00] * len(k.values))  # 1.0
    elif k.dtype == "bfloat16":
        t.int32_data.extend([0x3F80] * len(k.values))  # 1.0
    elif k.dtype == "string":
        return helper.make_tensor(k.name, dt, k.dims, [s.encode() for s in k.values])
    elif k.dtype == "bool":
        return helper.make_tensor(k.name, dt, k.dims, [bool(v) for v in k.values])
    else:
        return helper.make_tensor(k.name, dt, k.dims, k.values)
    return t


def build(c):
    node = helper.make_node(c["op"], ["" if i is None else i.name for i in c["ins"]],
                            ["" if o is None else o[0] for o in c["outs"]], name="target",
                            domain=c["domain"] or None, **c["attrs"])
    nodes, g_outs = [node], []
    for o in c["outs"]:
        if o is None:
            continue
        name, dt = o
        if dt in ORT_OUT_OK:
            g_outs.append(helper.make_tensor_value_info(name, DT[dt], None))
        else:
            nodes.append(helper.make_node("Cast", [name], [name + "_f"], to=1, name="cast_" + name))
            g_outs.append(helper.make_tensor_value_info(name + "_f", 1, None))
    every = c["ins"] + c["extra"]
    g_ins = [helper.make_tensor_value_info(i.name, DT[i.dtype], i.dims)
             for i in every if isinstance(i, In)]
    inits = [make_init(i) for i in every if isinstance(i, K)]
    g = helper.make_graph(nodes, c["tag"], g_ins, g_outs, inits)
    opsets = [helper.make_opsetid("", c["opset"])]
    if c["domain"]:
        opsets.append(helper.make_opsetid(c["domain"], 1))
    return helper.make_model(g, opset_imports=opsets, ir_version=10 if not c["domain"] else 9,
                             producer_name="foldline-tests")


def manifest_entry(c):
    """What the checker needs: the feeds, and per output its index and name in
    the node, the dtype and, where a Cast follows it, the graph output ONNX
    Runtime returns instead (`graph`). The model is the tag's .onnx file."""
    feeds = []
    for i in c["ins"] + c["extra"]:
        if isinstance(i, In):
            f = {"name": i.name, "dtype": i.dtype, "dims": i.dims}
            if i.values is not None:
                f["values"] = i.values
            feeds.append(f)
    outs = []
    for k, o in enumerate(c["outs"]):
        if o is None:
            continue
        name, dt = o
        e = {"index": k, "name": name, "dtype": dt}
        if dt not in ORT_OUT_OK:
            e["graph"] = name + "_f"
        if name in c["dynamic"]:
            e["dynamic"] = c["dynamic"][name]
        outs.append(e)
    return {"tag": c["tag"], "op": c["op"], "domain": c["domain"] or "ai.onnx",
            "opset": c["opset"], "feeds": feeds, "outputs": outs}
