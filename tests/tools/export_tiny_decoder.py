#!/usr/bin/env python3
"""Exports tests/data/tiny_decoder.onnx: a GPT-2-style decoder with a KV cache.

Needs Debian's python3-torch (the test suite does not: it reads the committed
file). Sizes: vocab V=32, model width d=16, 2 heads of 8, L=2 layers, feed-
forward 4d=64, learned positions up to 64. Dynamic axes: batch, seq (new
tokens), past (cached tokens); the present outputs have total = past + seq.

Closed-form MACs of one forward pass (batch B, seq S, past P, T = P + S):
  per layer: q, k, v and output projections 4*d*d, feed-forward 2*d*4d
             -> 12*d^2 per token; Q.K^T and the weighted sum of V: 2*d*T
             per token;
  LM head:   d*V per token;
  total = B*S*(L*(12*d^2 + 2*d*T) + d*V) = B*S*(6656 + 64*T).
KV cache: 2 (K and V) * L * d floats per token = 256 bytes per token and
sequence.

With --mask (tests/data/tiny_decoder_mask.onnx) the model also takes an
attention_mask [batch, past + seq] of 1s and 0s, as exporters of decoders
name it (the dim_param is the text "past + seq"), and adds
(1 - mask) * -10000 to the attention scores before the softmax: the same
MACs, and the mask's dim is the scores' last dim only when the dim_param is
read as the sum it names.

Usage: export_tiny_decoder.py OUT.onnx [--mask]
"""
import sys

import torch
import torch.nn as nn

V, D, H, L, FF, MAXPOS = 32, 16, 2, 2, 64, 64
DH = D // H


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.q = nn.Linear(D, D)
        self.k = nn.Linear(D, D)
        self.v = nn.Linear(D, D)
        self.o = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D)
        self.up = nn.Linear(D, FF)
        self.down = nn.Linear(FF, D)

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, H, DH).transpose(1, 2)

    def forward(self, x, past_k, past_v, mask_bias=None):
        h = self.ln1(x)
        q, k, v = self.heads(self.q(h)), self.heads(self.k(h)), self.heads(self.v(h))
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        s, t = q.shape[2], k.shape[2]
        past = t - s
        # causal: query i (at position past + i) sees keys 0..past + i
        qi = torch.arange(s).unsqueeze(1) + past
        kj = torch.arange(t).unsqueeze(0)
        att = torch.matmul(q, k.transpose(2, 3)) / (DH ** 0.5)
        if mask_bias is not None:
            att = att + mask_bias
        att = att.masked_fill(kj > qi, float("-inf")).softmax(dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(x.shape)
        x = x + self.o(y)
        x = x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))
        return x, k, v


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.pos = nn.Embedding(MAXPOS, D)
        self.blocks = nn.ModuleList([Block() for _ in range(L)])
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)

    def forward(self, input_ids, *past, attention_mask=None):
        s = input_ids.shape[1]
        p = past[0].shape[2]
        x = self.tok(input_ids) + self.pos(torch.arange(s) + p)
        bias = None
        if attention_mask is not None:
            bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        present = []
        for i, blk in enumerate(self.blocks):
            x, k, v = blk(x, past[2 * i], past[2 * i + 1], bias)
            present += [k, v]
        return (self.head(self.ln(x)), *present)


class MaskedDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.dec = Decoder()

    def forward(self, input_ids, attention_mask, *past):
        return self.dec(input_ids, *past, attention_mask=attention_mask)


def main():
    torch.manual_seed(0)
    mask = "--mask" in sys.argv[2:]
    model = (MaskedDecoder() if mask else Decoder()).eval()
    ids = torch.randint(0, V, (2, 3))
    past = [torch.zeros(2, H, 5, DH) for _ in range(2 * L)]
    names = [f"past_key_values.{i // 2}.{'key' if i % 2 == 0 else 'value'}" for i in range(2 * L)]
    outs = [n.replace("past_key_values", "present") for n in names]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    axes.update({n: {0: "batch", 2: "past"} for n in names})
    axes.update({n: {0: "batch", 2: "total"} for n in outs})
    args, inputs = (ids, *past), ["input_ids"] + names
    if mask:
        args = (ids, torch.ones(2, 8, dtype=torch.int64), *past)
        inputs = ["input_ids", "attention_mask"] + names
        axes["attention_mask"] = {0: "batch", 1: "past + seq"}
    torch.onnx.export(model, args, sys.argv[1], input_names=inputs,
                      output_names=["logits"] + outs, dynamic_axes=axes, opset_version=14,
                      do_constant_folding=True)


if __name__ == "__main__":
    main()
