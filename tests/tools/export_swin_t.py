#!/usr/bin/env python3
"""Exports tests/data/swin_t.stripped.onnx: torchvision's swin_t, weight-stripped.

Needs Debian's python3-torch, python3-torchvision and python3-onnx (the test
suite does not: it reads the committed file). Random weights (weights=None);
dynamic batch; opset 13; torch's own constant folding off, so the shifted-window
padding stays the Shape -> Mod -> Concat -> Slice -> Transpose -> Pad chain that
torch writes for F.pad.

Stripping, as the corpus's stripped files: every float tensor (initializer or
Constant node) over 1024 bytes keeps name, dims and data_type and loses its
data; integer tensors (shapes, axes, the relative-position index) stay whole.
metadata_props weights_stripped=true.

Closed-form MACs of one image (Liu et al., Swin-T: C = 96, depths 2,2,6,2,
heads 3,6,12,24, window M = 7, 224x224 input, patch 4):
  patch embedding, a 4x4/4 conv 3 -> 96 on 56x56:  56*56*96*3*16
  per block on N = H*W tokens of width C:
      q, k, v and output projections             4*N*C^2
      MLP (C -> 4C -> C)                          8*N*C^2
      Q.K^T and the weighted sum over windows     2*N*M^2*C
  patch merging after stages 1-3 (Linear 4C -> 2C on N/4 tokens): 2*N*C^2
  classifier head 768 -> 1000
  total = 4,490,566,656 per image (torchvision lists 4.49 GFLOPS for swin_t).

Usage: export_swin_t.py OUT.onnx
"""
import sys

import onnx
import torch
import torchvision
from onnx_strip import strip_model


def main(out):
    torch.manual_seed(0)
    model = torchvision.models.swin_t(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    torch.onnx.export(model, x, out, opset_version=13, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
                      do_constant_folding=False)
    m = onnx.load(out)
    strip_model(m)
    onnx.save(m, out)


if __name__ == "__main__":
    main(sys.argv[1])
