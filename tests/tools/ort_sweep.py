#!/usr/bin/env python3
"""A fresh-export sweep: models the corpus does not ship, exported by torch at
several opsets with a dynamic batch (and sequence) axis, analysed raw and in
ONNX Runtime's optimised forms ('basic' and 'extended'); every MAC count is
compared with one derived without foldline.

For each model and opset:
  1. torch.onnx.export (the exporter's defaults, or with --raw also its
     unfolded form: do_constant_folding off, training=PRESERVE);
  2. ONNX Runtime writes its optimised graph at 'basic' and 'extended'
     (tests/tools/ort_optimize.mjs, onnxruntime-node from --ort-dir);
  3. foldline analyzes the three graphs at two bindings of the free dims
     (--passes none) and once with its passes: every form must be complete
     (no unknown op, no incomplete node) and its MACs, before and after the
     passes, equal the expected count at that binding.

Expected MACs, derived from the torch model, not from any export:
  - convolution/linear-only networks: forward hooks on every nn.Conv2d
    (output elements x in_channels / groups x kernel area) and nn.Linear
    (output rows x in_features x out_features), at batch 1, times batch;
  - vit_b_16, swin_t (attention through functional calls the hooks do not
    see): their closed forms (below);
  - the transformer encoder and the GPT-2-style decoder written here: closed
    forms in batch B and sequence S.

Needs Debian's python3-torch, python3-torchvision and python3-onnx, node and
onnxruntime-node (`npm ci --ignore-scripts` of tests/bench/ort/package.json
into ORT_DIR). Not part of the test suite (large downloads-free exports, a few
minutes): run it by hand when the importer, the op rules or the passes change.

Usage: ort_sweep.py OUTDIR --foldline BIN --ort-dir DIR [--models a,b]
                    [--opsets 11,13,17] [--raw]
Prints one line per export ("ok" or the differences); exit 1 on any.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import torch
import torch.nn as nn
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
CNNS = ["regnet_y_400mf", "mnasnet0_5", "shufflenet_v2_x0_5", "convnext_tiny", "efficientnet_b1",
        "resnext50_32x4d", "googlenet"]
DEFAULT = CNNS + ["swin_t", "vit_b_16", "tenc", "gpt2_small"]


class GPT2Block(nn.Module):
    """GPT-2's block: merged c_attn, a causal mask from a buffer, tanh Gelu."""

    def __init__(self, d, h, maxpos):
        super().__init__()
        self.h = h
        self.ln_1, self.c_attn, self.c_proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln_2, self.c_fc, self.mlp_proj = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(maxpos, maxpos)).view(1, 1, maxpos, maxpos))

    def forward(self, x):
        b, t, d = x.size()
        q, k, v = (y.view(b, t, self.h, d // self.h).transpose(1, 2)
                   for y in self.c_attn(self.ln_1(x)).split(d, dim=2))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.h)
        w = torch.where(self.bias[:, :, :t, :t].bool(), w, torch.tensor(-1e4)).softmax(dim=-1)
        x = x + self.c_proj(torch.matmul(w, v).transpose(1, 2).contiguous().view(b, t, d))
        u = self.c_fc(self.ln_2(x))
        u = 0.5 * u * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * torch.pow(u, 3.0))))
        return x + self.mlp_proj(u)


class GPT2(nn.Module):
    V, D, H, L, MAXPOS = 500, 64, 4, 2, 128

    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(self.V, self.D), nn.Embedding(self.MAXPOS, self.D)
        self.blocks = nn.ModuleList([GPT2Block(self.D, self.H, self.MAXPOS) for _ in range(self.L)])
        self.ln_f, self.head = nn.LayerNorm(self.D), nn.Linear(self.D, self.V, bias=False)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.size(1)).unsqueeze(0))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))

    @classmethod
    def macs(cls, b, s):  # per token: 12*D^2 per layer + 2*D*S attention + the LM head
        return b * s * (cls.L * (12 * cls.D ** 2 + 2 * cls.D * s) + cls.D * cls.V)


class Enc(nn.Module):
    """nn.TransformerEncoder (post-norm, ReLU) and a linear head."""
    D, H, L, FF, OUT = 64, 4, 2, 256, 10

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(self.D, self.H, self.FF, dropout=0.0, batch_first=True)
        self.enc, self.out = nn.TransformerEncoder(layer, self.L), nn.Linear(self.D, self.OUT)

    def forward(self, x):
        return self.out(self.enc(x))

    @classmethod
    def macs(cls, b, s):  # per token: 4*D^2 + 2*D*FF per layer + 2*D*S attention + the head
        return b * s * (cls.L * (4 * cls.D ** 2 + 2 * cls.D * cls.FF + 2 * cls.D * s) + cls.D * cls.OUT)


def vit_b_16_macs(b, s=None):
    n, d, mlp, layers = 197, 768, 3072, 12  # 14x14 patches + class token
    per_layer = n * (4 * d * d + 2 * d * mlp) + 2 * n * n * d
    return b * (196 * d * 3 * 16 * 16 + layers * per_layer + d * 1000)


def swin_t_macs(b, s=None):  # Liu et al., Swin-T (window 7), as tests/cli/cli_swin.sh
    macs = 56 * 56 * 96 * 3 * 16
    for c, depth, side in ((96, 2, 56), (192, 2, 28), (384, 6, 14), (768, 2, 7)):
        n = side * side
        macs += depth * (12 * n * c * c + 2 * n * 49 * c)
        macs += 2 * n * c * c if c != 768 else 0
    return b * (macs + 768 * 1000)


def hook_macs(m, x):
    total = [0]

    def conv(mod, _, o):
        total[0] += o.numel() * (mod.in_channels // mod.groups) * math.prod(mod.kernel_size)

    def lin(mod, _, o):
        total[0] += (o.numel() // mod.out_features) * mod.in_features * mod.out_features

    hooks = [mod.register_forward_hook(conv if isinstance(mod, nn.Conv2d) else lin)
             for mod in m.modules() if isinstance(mod, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        m(x)
    for h in hooks:
        h.remove()
    return total[0]


def build(name):
    """model, example input, input name, dynamic axes, expected MACs(b, s)."""
    if name == "gpt2_small":
        return GPT2(), torch.randint(0, GPT2.V, (1, 16)), "ids", {0: "batch", 1: "seq"}, GPT2.macs
    if name == "tenc":
        return Enc(), torch.randn(1, 16, Enc.D), "x", {0: "batch", 1: "seq"}, Enc.macs
    m = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    if name in ("vit_b_16", "swin_t"):
        return m, x, "input", {0: "batch"}, {"vit_b_16": vit_b_16_macs, "swin_t": swin_t_macs}[name]
    per_image = hook_macs(m, x)
    return m, x, "input", {0: "batch"}, lambda b, s=None: b * per_image


def analyze(fl, path, binds, passes):
    cmd = [fl, "analyze", path, "--json", "--max-memory-mb", "0"]
    for k, v in binds.items():
        cmd += ["--bind", f"{k}={v}"]
    if not passes:
        cmd += ["--passes", "none"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()[:300]
    return json.loads(p.stdout), None


def check_form(fl, path, expect, seq):
    bad = []
    for b, s, passes in ((1, 16, False), (3, 5, False), (2, 7, True)):
        binds = {"batch": b} | ({"seq": s} if seq else {})
        r, err = analyze(fl, path, binds, passes)
        if err:
            bad.append(f"{binds}: {err}")
            continue
        want = expect(b, s)
        macs = [r["totals"]["macs"].get("value")] + ([r["after"]["macs"].get("value")] if passes else [])
        if any(m != want for m in macs):
            bad.append(f"{binds} passes={passes}: MACs {macs}, want {want}")
        if r["unknown_ops"] or r["coverage"]["nodes_incomplete"] or not r["complete"]:
            bad.append(f"{binds}: unknown {r['unknown_ops']}, coverage {r['coverage']}")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--foldline", required=True)
    ap.add_argument("--ort-dir", required=True)
    ap.add_argument("--models", default=",".join(DEFAULT))
    ap.add_argument("--opsets", default="11,13,17")
    ap.add_argument("--raw", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(0)
    failed = 0
    for name in a.models.split(","):
        m, x, iname, axes, expect = build(name)
        m.eval()
        for opset in map(int, a.opsets.split(",")):
            for raw in (False, True) if a.raw else (False,):
                tag = f"{name}.op{opset}" + (".raw" if raw else "")
                path = os.path.join(a.outdir, tag + ".onnx")
                kw = dict(do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE) if raw else {}
                torch.onnx.export(m, (x,), path, opset_version=opset, input_names=[iname],
                                  output_names=["out"], dynamic_axes={iname: axes, "out": {0: "batch"}}, **kw)
                forms = {"raw": path}
                for level in ("basic", "extended"):
                    out = os.path.join(a.outdir, f"{tag}.ort-{level}.onnx")
                    subprocess.run(["node", os.path.join(HERE, "ort_optimize.mjs"), a.ort_dir, path, level, out],
                                   check=True)
                    forms[level] = out
                bad = [f"{form}: {x}" for form, p in forms.items()
                       for x in check_form(a.foldline, p, expect, "seq" in axes.values())]
                print(tag, f"MACs(batch 1) {expect(1, 16)}", "ok" if not bad else "FAIL", flush=True)
                for line in bad:
                    print("   ", line)
                failed += bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
