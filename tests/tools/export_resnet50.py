#!/usr/bin/env python3
"""Exports torchvision's resnet50 to ONNX as the corpus's models are, for the
benchmarks of the README's "What the benchmarks measure".

Needs Debian's python3-torch, python3-torchvision and python3-onnx (the test
suite does not: nothing here is committed, the files are about 100 MB).
weights=None (no download): random weights of the same architecture and byte
size as the published ones, seeded, each parameter and buffer given small
noise so that no two tensors are identical (BatchNormalization's initial
weights, biases, means and variances are otherwise all ones or zeros). Batch
1, eval mode, opset 13, input `input` float32[1,3,224,224].

Writes into OUTDIR:
  resnet50.raw.onnx             do_constant_folding=False, training=PRESERVE:
                                the exporter's Conv+BatchNormalization fusion
                                skipped, the full weights (about 102 MB)
  resnet50.raw.stripped.onnx    the same, stripped
  resnet50.folded.onnx          the exporter's defaults (BatchNormalization
                                fused into the Conv before it), full weights
  resnet50.folded.stripped.onnx the same, stripped

Stripping, as the corpus's stripped files: every float tensor (initializer or
Constant node) over 1024 bytes keeps name, dims and data_type and loses its
data; integer tensors stay whole. metadata_props weights_stripped=true.

Usage: export_resnet50.py OUTDIR
"""
import os
import sys

import onnx
import torch
import torchvision
from onnx_strip import strip_model


def stripped(path, out):
    m = onnx.load(path)
    strip_model(m)
    onnx.save(m, out)


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None).eval()
    with torch.no_grad():
        for t in list(model.parameters()) + [b for b in model.buffers() if b.is_floating_point()]:
            t.add_(torch.rand_like(t) * 1e-3)
    x = torch.randn(1, 3, 224, 224)
    forms = {
        "raw": dict(do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE),
        "folded": dict(),
    }
    for form, kw in forms.items():
        full = os.path.join(outdir, f"resnet50.{form}.onnx")
        torch.onnx.export(model, x, full, opset_version=13, input_names=["input"],
                          output_names=["output"], **kw)
        stripped(full, os.path.join(outdir, f"resnet50.{form}.stripped.onnx"))
        n = len(onnx.load(full, load_external_data=False).graph.node)
        print(f"{full}: {n} nodes, {os.path.getsize(full)} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
