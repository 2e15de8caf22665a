#!/usr/bin/env python3
"""Exports a tiny BERT encoder three ways, for tests/cli/cli_bert_fused.sh:

  bert_tiny.onnx       torch.onnx.export of the model (opset 13, dynamic
                       batch and seq, the exporter's constant folding on):
                       attention, LayerNorm and Gelu decomposed into
                       primitive ops, as a user's export is;
  bert_tiny_attn.onnx  the same weights in the form ONNX Runtime's transformer
                       optimizer gives a BERT model: com.microsoft
                       EmbedLayerNormalization (mask -> mask_index),
                       Attention (merged Q/K/V weights [D, 3D] and bias),
                       SkipLayerNormalization (residual + output projection's
                       bias + LayerNorm), BiasGelu;
  bert_tiny_mha.onnx   the form with separate Q/K/V MatMuls feeding
                       com.microsoft MultiHeadAttention (bias [3D],
                       key_padding_mask [B, S]).
All three are written with their weights and, with --stripped, also
weight-stripped as NAME.stripped.onnx (every float tensor of 1024 bytes or
more keeps name, dims and data_type and loses its data; metadata
weights_stripped=true): the files tests/data holds.

The fused forms are built here from the op definitions in onnxruntime's
docs/ContribOperators.md. With --ort-dir DIR (node_modules/onnxruntime-node
there) the script checks that they compute what the export computes: ONNX
Runtime runs the three unstripped files on the same inputs (two sequences
of 6 tokens, token types 0 and 1, the second sequence right-padded by 2)
through tests/cli/ort_compare.mjs, outputs equal within 1e-4 of their
magnitude (measured: max |diff| 3.6e-7 on both forms).

Sizes: vocabulary V = 50, width D = 16, 2 heads of 8, L = 2 layers,
feed-forward FF = 64, 32 positions, 2 token types, a tanh pooler on token 0.

Closed-form MACs of one forward pass (batch B, sequence S):
  per layer and token: Q, K, V and output projections 4*D^2 = 1024,
                       feed-forward 2*D*FF = 2048,
                       Q.K^T and the weighted sum of V 2*D*S = 32*S;
  pooler: D^2 = 256 per sequence;
  total = L*B*S*(3072 + 32*S) + 256*B = 64*B*S^2 + 6144*B*S + 256*B.
Every form must count exactly that (the embedding gathers, LayerNorms, Gelu
and Softmax have no MACs).

Needs Debian's python3-torch and python3-onnx (the test suite does not: it
reads the committed stripped files).
Usage: export_bert_fused.py OUTDIR [--stripped] [--ort-dir DIR]
"""
import math
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

V, D, H, L, FF, MAXPOS, TYPES, EPS = 50, 16, 2, 2, 64, 32, 2, 1e-12
DH = D // H


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
        self.dense, self.ln1 = nn.Linear(D, D), nn.LayerNorm(D, eps=EPS)
        self.inter, self.out, self.ln2 = nn.Linear(D, FF), nn.Linear(FF, D), nn.LayerNorm(D, eps=EPS)

    def heads(self, x):
        b, n, _ = x.size()
        return x.view(b, n, H, DH).permute(0, 2, 1, 3)

    def forward(self, x, ext):
        q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
        p = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(DH) + ext, dim=-1)
        c = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        a = self.ln1(self.dense(c.view(c.size(0), c.size(1), D)) + x)
        return self.ln2(self.out(nn.functional.gelu(self.inter(a))) + a)


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        self.word, self.pos, self.tt = nn.Embedding(V, D), nn.Embedding(MAXPOS, D), nn.Embedding(TYPES, D)
        self.ln = nn.LayerNorm(D, eps=EPS)
        self.layers = nn.ModuleList([Layer() for _ in range(L)])
        self.pool = nn.Linear(D, D)

    def forward(self, ids, mask, tt):
        pos = torch.arange(ids.size(1), dtype=torch.long).unsqueeze(0).expand_as(ids)
        x = self.ln(self.word(ids) + self.pos(pos) + self.tt(tt))
        ext = (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            x = layer(x, ext)
        return x, torch.tanh(self.pool(x[:, 0]))


INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


def value_info(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


class Builder:
    def __init__(self, m):
        self.m, self.nodes, self.inits = m, [], []

    def init(self, name, t):
        self.inits.append(numpy_helper.from_array(t.detach().numpy().astype("float32"), name))
        return name

    def node(self, op, ins, outs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_node", domain=domain, **attrs))
        return outs[0]

    def linear_t(self, name, lin):  # MatMul weight [in, out]
        return self.init(name, lin.weight.t())

    def embeddings(self):
        m = self.m
        self.node("Cast", ["input_ids"], ["ids32"], to=TensorProto.INT32)
        self.node("Cast", ["token_type_ids"], ["tt32"], to=TensorProto.INT32)
        self.node("Cast", ["attention_mask"], ["mask32"], to=TensorProto.INT32)
        ins = ["ids32", "tt32", self.init("word", m.word.weight), self.init("pos", m.pos.weight),
               self.init("tt", m.tt.weight), self.init("emb_g", m.ln.weight), self.init("emb_b", m.ln.bias),
               "mask32"]
        self.node("EmbedLayerNormalization", ins, ["emb", "mask_index"], domain="com.microsoft", epsilon=EPS)
        return "emb"

    def attention(self, i, lay, x, mha):
        w = torch.cat([lay.query.weight.t(), lay.key.weight.t(), lay.value.weight.t()], dim=1)
        b = self.init(f"l{i}_qkv_b", torch.cat([lay.query.bias, lay.key.bias, lay.value.bias]))
        if not mha:
            return self.node("Attention", [x, self.init(f"l{i}_qkv_w", w), b, "mask_index"], [f"l{i}_att"],
                             domain="com.microsoft", num_heads=H)
        qkv = []
        for j, lin in enumerate((lay.query, lay.key, lay.value)):
            qkv.append(self.node("MatMul", [x, self.linear_t(f"l{i}_w{j}", lin)], [f"l{i}_p{j}"]))
        return self.node("MultiHeadAttention", qkv + [b, "mask32"], [f"l{i}_att"], domain="com.microsoft",
                         num_heads=H)

    def layer(self, i, lay, x, mha):
        a = self.attention(i, lay, x, mha)
        d = self.node("MatMul", [a, self.linear_t(f"l{i}_dense_w", lay.dense)], [f"l{i}_dense"])
        ins = [d, x, self.init(f"l{i}_ln1_g", lay.ln1.weight), self.init(f"l{i}_ln1_b", lay.ln1.bias),
               self.init(f"l{i}_dense_b", lay.dense.bias)]
        x = self.node("SkipLayerNormalization", ins, [f"l{i}_sln1"], domain="com.microsoft", epsilon=EPS)
        u = self.node("MatMul", [x, self.linear_t(f"l{i}_inter_w", lay.inter)], [f"l{i}_inter"])
        g = self.node("BiasGelu", [u, self.init(f"l{i}_inter_b", lay.inter.bias)], [f"l{i}_gelu"],
                      domain="com.microsoft")
        o = self.node("MatMul", [g, self.linear_t(f"l{i}_out_w", lay.out)], [f"l{i}_out"])
        ins = [o, x, self.init(f"l{i}_ln2_g", lay.ln2.weight), self.init(f"l{i}_ln2_b", lay.ln2.bias),
               self.init(f"l{i}_out_b", lay.out.bias)]
        return self.node("SkipLayerNormalization", ins, [f"l{i}_sln2"], domain="com.microsoft", epsilon=EPS)

    def model(self, mha):
        x = self.embeddings()
        for i, lay in enumerate(self.m.layers):
            x = self.layer(i, lay, x, mha)
        self.node("Identity", [x], ["hidden"])
        self.inits.append(numpy_helper.from_array(np.array(0, dtype="int64"), "zero"))
        first = self.node("Gather", [x, "zero"], ["first"], axis=1)
        pw, pb = self.init("pool_w", self.m.pool.weight), self.init("pool_b", self.m.pool.bias)
        p = self.node("Gemm", [first, pw, pb], ["pool"], transB=1)
        self.node("Tanh", [p], ["pooled"])
        ins = [value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in INPUTS]
        outs = [value_info("hidden", TensorProto.FLOAT, ["batch", "seq", D]),
                value_info("pooled", TensorProto.FLOAT, ["batch", D])]
        g = helper.make_graph(self.nodes, "bert_tiny", ins, outs, self.inits)
        ops = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
        return helper.make_model(g, opset_imports=ops, producer_name="export_bert_fused")


def strip(m):
    for t in list(m.graph.initializer) + [a.t for n in m.graph.node for a in n.attribute
                                          if a.type == onnx.AttributeProto.TENSOR]:
        if t.data_type == TensorProto.FLOAT and len(t.raw_data) + 4 * len(t.float_data) >= 1024:
            t.ClearField("float_data")
            t.raw_data = b""
    p = m.metadata_props.add()
    p.key, p.value = "weights_stripped", "true"


CHECK_INPUTS = [
    {"name": "input_ids", "dtype": "int64", "shape": [2, 6], "values": [3, 17, 42, 8, 0, 49, 11, 5, 23, 31, 2, 7]},
    {"name": "attention_mask", "dtype": "int64", "shape": [2, 6], "values": [1] * 6 + [1, 1, 1, 1, 0, 0]},
    {"name": "token_type_ids", "dtype": "int64", "shape": [2, 6], "values": [0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1]},
]


def ort_check(out, ort_dir):
    compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "ort_compare.mjs")
    for fused in ("bert_tiny_attn.onnx", "bert_tiny_mha.onnx"):
        subprocess.run(["node", compare, ort_dir, os.path.join(out, "bert_tiny.onnx"), os.path.join(out, fused),
                        json.dumps(CHECK_INPUTS), "1e-4"], check=True)


def main(out, stripped, ort_dir):
    torch.manual_seed(0)
    m = Bert().eval()
    ids = torch.randint(0, V, (1, 8))
    mask, tt = torch.ones(1, 8, dtype=torch.long), torch.zeros(1, 8, dtype=torch.long)
    dyn = {n: {0: "batch", 1: "seq"} for n in INPUTS + ["hidden"]}
    dyn["pooled"] = {0: "batch"}
    path = os.path.join(out, "bert_tiny.onnx")
    torch.onnx.export(m, (ids, mask, tt), path, opset_version=13, input_names=INPUTS,
                      output_names=["hidden", "pooled"], dynamic_axes=dyn)
    models = {"bert_tiny.onnx": onnx.load(path)}
    with torch.no_grad():
        models["bert_tiny_attn.onnx"] = Builder(m).model(mha=False)
        models["bert_tiny_mha.onnx"] = Builder(m).model(mha=True)
    for name, model in models.items():
        onnx.save(model, os.path.join(out, name))
    if ort_dir:
        ort_check(out, ort_dir)
    if stripped:
        for name, model in models.items():
            strip(model)
            onnx.save(model, os.path.join(out, name.replace(".onnx", ".stripped.onnx")))


if __name__ == "__main__":
    args = sys.argv[2:]
    main(sys.argv[1], "--stripped" in args, args[args.index("--ort-dir") + 1] if "--ort-dir" in args else None)
