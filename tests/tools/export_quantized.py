#!/usr/bin/env python3
"""Exports int8 torchvision networks in the two forms of a quantized ONNX graph.

For each of mobilenet_v2, resnet18 and googlenet (torchvision.models.
quantization, random weights):
  1. eager-mode post-training quantization as torchvision documents it:
     fuse_model(), the 'fbgemm' qconfig (per-channel int8 weights, uint8
     activations), prepare, three calibration batches of random images,
     convert;
  2. torch.onnx.export at opset 13 with a dynamic batch: the QDQ form
     (QuantizeLinear/DequantizeLinear around float Conv and Gemm):
     NAME.qdq.onnx;
  3. with --ort-dir, ONNX Runtime's optimised graphs of that file at 'basic'
     (constants folded, still QDQ: NAME.basic.onnx), 'extended' (ORT's QDQ
     selectors turn every DQ -> op -> Q group into one integer operator, the
     QOperator form: QLinearConv, QGemm, com.microsoft QLinearAdd,
     QLinearConcat, QLinearGlobalAveragePool, MaxPool on uint8:
     NAME.extended.onnx) and 'all' (the same moved to channels-last by ORT's
     NHWC transformer: com.microsoft QLinearConv with channels_last,
     NhwcMaxPool, a Transpose at each end: NAME.all.onnx; ORT warns that
     level-'all' files are meant for the machine that wrote them, which
     changes nothing for these ops), written by tests/tools/ort_optimize.mjs;
  4. NAME.layers.json: every nn.Conv2d and nn.Linear of the float network as
     torch runs it (forward hooks, one image): module name, input, weight and
     output shapes, whether it has a bias once fuse_model has folded the
     BatchNorms into the convolutions, and its multiply-accumulates
     (output elements x in_features / groups x kernel area; rows x in x out).
     ONNX Runtime keeps the node names torch gives, so the module
     "features.1.conv.0.0" is the node "/features/1/conv/0/0/Conv" in every
     form. These figures come from torch alone, not from any export.

With --stripped every file is also written weight-stripped as
NAME.FORM.stripped.onnx: every tensor (initializer or Constant node) of more
than 1024 bytes keeps name, dims and data_type and loses its data, except
int64 tensors (shapes, axes), which stay whole; metadata_props
weights_stripped=true. tests/data/quantized/ holds the stripped files and the
layer lists (cli_quantized reads them; the test suite needs no torch and no
ONNX Runtime).

Needs Debian's python3-torch, python3-torchvision and python3-onnx, node and
onnxruntime-node (`npm ci --ignore-scripts` of tests/bench/ort/package.json
into ORT_DIR). About a minute per network. To make the test data again:
  export_quantized.py OUTDIR --stripped --ort-dir ORT_DIR
  cp OUTDIR/*.stripped.onnx OUTDIR/*.layers.json tests/data/quantized/

shufflenet_v2 is not among them: torch 1.13 cannot export its quantized
channel split (a Slice of a quantized tensor fails in the exporter).

Usage: export_quantized.py OUTDIR [--stripped] [--ort-dir DIR] [--models a,b]
"""
import argparse
import json
import os
import subprocess

import onnx
import torch
import torch.nn as nn
from onnx import TensorProto
from torchvision.models import quantization as tq

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["mobilenet_v2", "resnet18", "googlenet"]


def build(name):
    kw = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
    return getattr(tq, name)(weights=None, quantize=False, **kw).eval()


def layer_list(model):
    """Every Conv2d/Linear of the float model as one image runs through it."""
    rows, hooks = [], []

    def hook(mname):
        def run(mod, inp, out):
            x, y, w = list(inp[0].shape), list(out.shape), list(mod.weight.shape)
            if isinstance(mod, nn.Conv2d):
                macs = out.numel() * (mod.in_channels // mod.groups) * w[2] * w[3]
            else:
                macs = out.numel() // out.shape[-1] * mod.in_features * mod.out_features
            rows.append({"module": mname, "op": "Conv" if isinstance(mod, nn.Conv2d) else "Gemm",
                         "x": x, "w": w, "y": y, "bias": mod.bias is not None, "macs": macs})

        return run

    for mname, mod in model.named_modules():
        if isinstance(mod, (nn.Conv2d, nn.Linear)):
            hooks.append(mod.register_forward_hook(hook(mname)))
    with torch.no_grad():
        model(torch.randn(1, 3, 224, 224))
    for h in hooks:
        h.remove()
    return rows


def quantize(model):
    model.qconfig = torch.ao.quantization.get_default_qconfig("fbgemm")
    torch.ao.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(2, 3, 224, 224))
    torch.ao.quantization.convert(model, inplace=True)
    return model


def strip(m):
    tensors = list(m.graph.initializer)
    tensors += [a.t for n in m.graph.node for a in n.attribute if a.type == onnx.AttributeProto.TENSOR]
    for t in tensors:
        if t.data_type == TensorProto.INT64 or t.ByteSize() <= 1024:
            continue
        for f in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            t.ClearField(f)
        t.raw_data = b""
    p = m.metadata_props.add()
    p.key, p.value = "weights_stripped", "true"


def export(name, out, ort_dir, stripped):
    torch.manual_seed(0)
    model = build(name)
    layers = layer_list(model)
    model.fuse_model()
    for r in layers:  # the bias after BatchNorm folds into the convolution
        mod = model.get_submodule(r["module"])
        if not isinstance(mod, (nn.Conv2d, nn.Linear)):
            mod = mod[0]  # a fused ConvReLU2d / ConvBn2d holds the convolution first
        r["bias"] = mod.bias is not None
    doc = {"model": name, "batch": 1, "macs": sum(r["macs"] for r in layers), "layers": layers}
    with open(os.path.join(out, name + ".layers.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    quantize(model)
    paths = {"qdq": os.path.join(out, name + ".qdq.onnx")}
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), paths["qdq"], opset_version=13,
                      input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    if ort_dir:
        for level in ("basic", "extended", "all"):
            paths[level] = os.path.join(out, f"{name}.{level}.onnx")
            subprocess.run(["node", os.path.join(HERE, "ort_optimize.mjs"), ort_dir, paths["qdq"], level,
                            paths[level]], check=True)
    if stripped:
        for path in paths.values():
            m = onnx.load(path)
            strip(m)
            onnx.save(m, path.replace(".onnx", ".stripped.onnx"))
    print(f"{name}: {len(layers)} layers, {doc['macs']:,} MACs per image; {', '.join(paths)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--stripped", action="store_true")
    ap.add_argument("--ort-dir")
    ap.add_argument("--models", default=",".join(MODELS))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name in a.models.split(","):
        export(name, a.out, a.ort_dir, a.stripped)


if __name__ == "__main__":
    main()
